/**
 * A test-only stand-in for what the Kubernetes API server does with a ValidatingAdmissionPolicy
 * and its binding on a request, evaluating the policy's CEL with @bufbuild/cel as
 * test/support/crd-validator.ts does for CRD rules. The steps follow the documentation:
 *
 * 1. matching: the policy's `matchConstraints` (resource rules by group, version, resource and
 *    operation; `namespaceSelector` against the namespace's labels; `excludeResourceRules`),
 *    then the binding's `matchResources` when it has one;
 * 2. `matchConditions`, in order: one that is false skips the policy; an error is handled by
 *    `failurePolicy`;
 * 3. `validations`, each with `variables` evaluated lazily — a variable is computed the first
 *    time an expression reads it, at most once per request, and one that no expression reads is
 *    never computed (so its errors never surface);
 * 4. a failed validation's message: `messageExpression` when it yields a non-empty string
 *    without line breaks, else `message`, else the expression; an error is `failurePolicy`'s;
 * 5. the binding's `validationActions`: Deny refuses, Warn returns a warning, Audit records it.
 *
 * With a `paramKind`, the binding's `paramRef` picks the parameters (by name, or by a label
 * selector); steps 2 to 4 run once per parameter, each with `params` bound to it and variables
 * computed afresh, and every refusal of every parameter is collected; the API server reports
 * the first (dispatcher.go L212-L290, L300-L318). No parameter found: `parameterNotFoundAction`
 * Allow admits, Deny refuses (a configuration error, by `failurePolicy`). The parameters are
 * tried in name order here; the API server's order is its informer's, which is not fixed.
 *
 * The CEL environment holds what Kubernetes gives a validating admission policy: `object`,
 * `oldObject` (null on CREATE), `request` (the AdmissionRequest's attributes), `params` (null:
 * no paramKind), `namespaceObject` (the namespace of a namespaced resource), `variables`, with
 * the CEL standard library and Kubernetes' string extensions; `authorizer` is not emulated (an
 * expression that reads it fails here, loudly).
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
 * @see https://kubernetes.io/docs/reference/using-api/cel/
 * @see https://github.com/kubernetes/kubernetes/blob/v1.33.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/validator.go
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/policy/validating/dispatcher.go (Dispatch: per binding, CollectParams, one Validate per parameter)
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/policy/generic/policy_dispatcher.go (CollectParams: paramRef name or selector, parameterNotFoundAction)
 *
 * Upstream: MODELS.kubernetes (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import { celEnv, isCelError, parse, plan, type CelResult } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';

/** A JSON object, as the API server decodes it. */
export type JsonObject = { [key: string]: unknown };

/** The request the API server admits. */
export interface AdmissionRequest {
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  /** The namespace of the request (a pod's namespace comes from the URL; metadata.namespace may be empty). */
  readonly namespace: string;
  readonly object: JsonObject | null;
  /** @default null */
  readonly oldObject?: JsonObject | null;
  /** Labels of the namespace (the API server adds `kubernetes.io/metadata.name`). @default {} */
  readonly namespaceLabels?: Readonly<Record<string, string>>;
  /** `request.userInfo.username`. @default a ReplicaSet controller's service account */
  readonly username?: string;
  /** Group, version and resource. @default pods of the core group, v1 */
  readonly resource?: { readonly group: string; readonly version: string; readonly resource: string };
}

/** What the policy and its binding make of a request. */
export interface Decision {
  /** `skipped`: the policy does not match the request, or a match condition is false. */
  readonly outcome: 'admitted' | 'refused' | 'skipped';
  /** The refusal, as the API server words it (Deny). @default - admitted or skipped */
  readonly message?: string;
  /** Warnings returned to the client (Warn). */
  readonly warnings: readonly string[];
  /** Audit annotations recorded (Audit). */
  readonly audit: readonly string[];
  /** The variables the request evaluated, in the order it did, each `<parameter>:<variable>` with a paramKind. */
  readonly evaluated: readonly string[];
  /** Every refusal, of every parameter, in the order they were evaluated (the API server reports the first). @default [] */
  readonly refusals: readonly string[];
}

/** A ValidatingAdmissionPolicy and its binding, as rendered, and the parameter objects in the cluster. */
export interface PolicyPair {
  readonly policy: JsonObject;
  readonly binding: JsonObject;
  /** The objects of the policy's `paramKind` in the cluster. @default [] */
  readonly params?: readonly JsonObject[];
}

/** The functions Kubernetes provides beyond the CEL standard library that this stand-in has. */
const env = celEnv({ funcs: [...strings] });

/** Calls the bufbuild planner handles itself rather than through registered functions. */
const PLANNER_BUILTINS = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '_[?_]', '_?._', '@not_strictly_false', '__not_strictly_false__']);

const compiled = new Map<string, (bindings: Record<string, unknown>) => CelResult>();

/** Parses and plans an expression once; a function the environment lacks is a gap of this stand-in, so it throws. */
export function compile(expression: string): (bindings: Record<string, unknown>) => CelResult {
  let run = compiled.get(expression);
  if (run === undefined) {
    const parsed = parse(expression);
    const mixed = heterogeneousLiteral(parsed.expr);
    if (mixed) throw new Error(`admission-policy: ${mixed} in ${expression}: Kubernetes' CEL requires list and map literals of one type (HomogeneousAggregateLiterals)`);
    const missing = [...calledFunctions(parsed.expr)].filter((name) => !PLANNER_BUILTINS.has(name) && !env.funcs.find(name));
    if (missing.length > 0) throw new Error(`admission-policy: CEL function ${missing.join(', ')} (in ${expression}) is not implemented`);
    const planned = plan(env, parsed);
    run = (bindings) => planned(bindings as never);
    compiled.set(expression, run);
  }
  return run;
}

type CelExpr = ReturnType<typeof parse>['expr'];

function childrenOf(expr: CelExpr | undefined): (CelExpr | undefined)[] {
  const kind = expr?.exprKind;
  return kind?.case === 'selectExpr' ? [kind.value.operand]
    : kind?.case === 'callExpr' ? [kind.value.target, ...kind.value.args]
      : kind?.case === 'listExpr' ? kind.value.elements
        : kind?.case === 'structExpr' ? kind.value.entries.flatMap((e) => [e.keyKind.case === 'mapKey' ? e.keyKind.value : undefined, e.value])
          : kind?.case === 'comprehensionExpr' ? [kind.value.iterRange, kind.value.accuInit, kind.value.loopCondition, kind.value.loopStep, kind.value.result]
            : [];
}

function calledFunctions(expr: CelExpr | undefined, into = new Set<string>()): Set<string> {
  const kind = expr?.exprKind;
  for (const child of childrenOf(kind ? expr : undefined)) calledFunctions(child, into);
  if (kind?.case === 'callExpr') into.add(kind.value.function);
  if (kind?.case === 'identExpr' && kind.value.name === 'authorizer') throw new Error('admission-policy: authorizer is not emulated');
  return into;
}

/**
 * The first list or map literal whose elements (or keys, or values) are literals of different
 * types, which Kubernetes' CEL environment refuses to compile (cel.HomogeneousAggregateLiterals
 * in its base environment). Elements that are not literals have a type only the type checker
 * knows and are left alone.
 * @see https://github.com/kubernetes/kubernetes/blob/v1.33.0/staging/src/k8s.io/apiserver/pkg/cel/environment/base.go
 */
function heterogeneousLiteral(expr: CelExpr | undefined): string | undefined {
  let found: string | undefined;
  const typeOf = (e: CelExpr | undefined): string | undefined => {
    const kind = e?.exprKind;
    if (kind?.case === 'constExpr') return kind.value.constantKind.case;
    if (kind?.case === 'listExpr') {
      const types = kind.value.elements.map(typeOf);
      agree(types, 'list elements');
      return `list(${types.find((t) => t !== undefined) ?? '?'})`;
    }
    if (kind?.case === 'structExpr' && kind.value.messageName === '') {
      const keys = kind.value.entries.map((x) => (x.keyKind.case === 'mapKey' ? typeOf(x.keyKind.value) : undefined));
      const values = kind.value.entries.map((x) => typeOf(x.value));
      agree(keys, 'map keys');
      agree(values, 'map values');
      return `map(${keys.find((t) => t !== undefined) ?? '?'}, ${values.find((t) => t !== undefined) ?? '?'})`;
    }
    return undefined;
  };
  const agree = (types: (string | undefined)[], what: string) => {
    const known = [...new Set(types.filter((t): t is string => t !== undefined && !t.includes('?')))];
    if (known.length > 1 && found === undefined) found = `${what} of types ${known.join(', ')}`;
  };
  const walk = (e: CelExpr | undefined): void => {
    typeOf(e);
    for (const child of childrenOf(e)) walk(child);
  };
  walk(expr);
  return found;
}

/** `variables`: a CEL map whose members are computed on first read, at most once (bufbuild's CelMap marker). */
function lazyVariables(definitions: readonly { name: string; expression: string }[], bindings: Record<string, unknown>, evaluated: string[]): unknown {
  const cache = new Map<string, CelResult>();
  const byName = new Map(definitions.map((d) => [d.name, d.expression]));
  const variables = {
    [Symbol.for('@bufbuild/cel/map')]: {},
    get size() {
      return byName.size;
    },
    get(key: unknown) {
      if (typeof key !== 'string' || !byName.has(key)) return undefined;
      if (!cache.has(key)) {
        evaluated.push(key);
        cache.set(key, compile(byName.get(key) as string)({ ...bindings, variables }));
      }
      return cache.get(key);
    },
    has(key: unknown) {
      return typeof key === 'string' && byName.has(key);
    },
    keys: () => byName.keys(),
  };
  return variables;
}

/** JSON to CEL input: integers become int (bigint), objects maps. @see apiserver pkg/cel/common/valuesunstructured.go */
export function toCel(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (value === null || value === undefined || typeof value !== 'object') return value ?? null;
  if (Array.isArray(value)) return value.map(toCel);
  return new Map(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, toCel(v)]));
}

/**
 * What the API server's state does to a policy before any CEL runs: each case is a
 * configuration error, which `failurePolicy` alone decides (Fail: the request is refused,
 * whatever the binding's validationActions; Ignore: the policy is skipped).
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/policy/validating/dispatcher.go#L76-L114 (addConfigError)
 */
export interface ApiServerState {
  /**
   * `apiVersion/kind` of parameter kinds that discovery does not resolve yet: a CRD created
   * moments ago, or any CRD just after the API server restarted (its cached discovery is
   * refreshed every ~30 s: kubernetes/kubernetes#124237, #122658), or whose informer has not
   * synced within its one-second wait (#141367). A policy with such a `paramKind` carries a
   * ConfigurationError (dispatcher.go L130-134; policy_source.go compilePolicy).
   */
  readonly unresolvedParamKinds?: readonly string[];
  /**
   * Reading the request's namespace fails: not in the namespace informer (a namespace created
   * moments ago), and the direct GET that follows fails too (an API server under load or
   * restarting); DefinitionMatches then returns an error, a configuration error of every policy
   * with a namespaceSelector (dispatcher.go L123-128).
   * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/webhook/predicates/namespace/matcher.go (GetNamespaceLabels: lister, then a direct GET)
   */
  readonly namespaceLookupFails?: boolean;
}

/** What one policy and its binding contribute to a request's decision (one iteration of Dispatch's loop). */
interface PolicyResult {
  /** Deny decisions: configuration errors under Fail, and failed validations under validationActions Deny. */
  readonly denied: readonly string[];
  readonly warnings: readonly string[];
  readonly audit: readonly string[];
  readonly refusals: readonly string[];
  readonly judged: boolean;
}

/** One policy of Dispatch's loop: matching, configuration errors, then one Validate per parameter. */
function dispatchOne(pair: PolicyPair, request: AdmissionRequest, state: ApiServerState, evaluated: string[]): PolicyResult {
  const spec = obj(pair.policy.spec);
  const bindingSpec = obj(pair.binding.spec);
  // The API server compiles every expression when the policy is created: one that does not compile never admits anything.
  for (const e of expressionsOf(spec)) compile(e);
  const none: PolicyResult = { denied: [], warnings: [], audit: [], refusals: [], judged: false };
  if (bindingSpec.policyName !== obj(pair.policy.metadata).name) throw new Error('admission-policy: the binding names another policy');
  const failurePolicy = spec.failurePolicy ?? 'Fail';
  const configError = (message: string): PolicyResult => (failurePolicy === 'Fail' ? { ...none, denied: [message], refusals: [message], judged: true } : none);
  if (state.namespaceLookupFails === true && obj(spec.matchConstraints).namespaceSelector !== undefined) {
    return configError(`failed to configure policy: the server is currently unable to handle the request (get namespaces ${request.namespace})`);
  }
  const namespaceLabels = { 'kubernetes.io/metadata.name': request.namespace, ...request.namespaceLabels };
  if (!matches(obj(spec.matchConstraints), request, namespaceLabels)) return none;
  const kind = obj(spec.paramKind);
  if (spec.paramKind !== undefined && (state.unresolvedParamKinds ?? []).includes(`${String(kind.apiVersion)}/${String(kind.kind)}`)) {
    return configError(`failed to configure policy: failed to find resource referenced by paramKind: '${String(kind.apiVersion)}, Kind=${String(kind.kind)}'`);
  }
  if (bindingSpec.matchResources !== undefined && !matches(obj(bindingSpec.matchResources), request, namespaceLabels)) return none;

  const base = requestBindings(request, namespaceLabels);
  const violations: string[] = [];
  const params = collectParams(spec, bindingSpec, pair.params ?? []);
  if (params === 'not found') return configError('failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction');
  // Whether any evaluation got past its match conditions (none did: the policy skipped the request).
  let judged = false;
  for (const param of params) {
    const label = param === null ? '' : `${String(obj(param.metadata).name)}:`;
    const result = validate(spec, { ...base, params: param === null ? null : toCel(param) }, failurePolicy, evaluated, label);
    if (result !== 'skipped') {
      judged = true;
      violations.push(...result);
    }
  }
  const policyName = String(obj(pair.policy.metadata).name);
  const bindingName = String(obj(pair.binding.metadata).name);
  const actions = list(bindingSpec.validationActions).map(String);
  return {
    judged,
    refusals: violations,
    denied: actions.includes('Deny') ? violations.map((v) => `ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}' denied request: ${v}`) : [],
    warnings: actions.includes('Warn') ? violations.map((v) => `Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${v}`) : [],
    // v0.34.0 publishValidationFailureAnnotation (dispatcher.go L311-L329): AddAnnotation refuses a key already set, so only a request's first failure is recorded.
    audit: actions.includes('Audit') ? violations : [],
  };
}

/** What the API server decides about a request, given the policy, its binding and the parameters. */
export function admit(pair: PolicyPair, request: AdmissionRequest, state: ApiServerState = {}): Decision {
  return admitAll([pair], request, state);
}

/**
 * What the API server decides about a request, given every policy (each with its binding and
 * parameters) that exists: each is evaluated whatever the others decided, and the first Deny
 * decision is the answer (dispatcher.go Dispatch, L120-L318). Audit keeps only the request's
 * first failure in v0.34 (L311-L329).
 */
export function admitAll(pairs: readonly PolicyPair[], request: AdmissionRequest, state: ApiServerState = {}): Decision {
  const evaluated: string[] = [];
  const results = pairs.map((pair) => dispatchOne(pair, request, state, evaluated));
  const resource = request.resource ?? { group: '', version: 'v1', resource: 'pods' };
  const name = String(obj(request.object?.metadata).name ?? obj(request.oldObject?.metadata).name ?? '');
  const denied = results.flatMap((r) => r.denied);
  const audit = results.flatMap((r) => r.audit).slice(0, 1);
  const judged = results.some((r) => r.judged);
  return {
    outcome: denied.length > 0 ? 'refused' : judged ? 'admitted' : 'skipped',
    message: denied.length > 0 ? `${resource.resource} "${name}" is forbidden: ${denied[0]}` : undefined,
    warnings: results.flatMap((r) => r.warnings),
    audit,
    evaluated,
    refusals: results.flatMap((r) => r.refusals),
  };
}

/**
 * What a policy's CEL sees of a request, as CEL values (`params` and `variables` aside):
 * `object`, `oldObject`, `namespaceObject` and `request` (the AdmissionRequest's attributes).
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/cel/compile.go (BuildRequestType, BuildNamespaceType)
 */
export function requestBindings(request: AdmissionRequest, namespaceLabels: Readonly<Record<string, string>> = { 'kubernetes.io/metadata.name': request.namespace }): Record<string, unknown> {
  const resource = request.resource ?? { group: '', version: 'v1', resource: 'pods' };
  const object = request.object;
  const name = String(obj(object?.metadata).name ?? obj(request.oldObject?.metadata).name ?? '');
  return {
    object: toCel(object),
    oldObject: toCel(request.oldObject ?? null),
    namespaceObject: toCel({
      apiVersion: 'v1', kind: 'Namespace',
      metadata: { name: request.namespace, labels: namespaceLabels },
      spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' },
    }),
    request: toCel({
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      kind: { group: resource.group, version: resource.version, kind: String(object?.kind ?? 'Pod') },
      resource,
      requestKind: { group: resource.group, version: resource.version, kind: String(object?.kind ?? 'Pod') },
      requestResource: resource,
      name,
      namespace: request.namespace,
      operation: request.operation,
      userInfo: { username: request.username ?? 'system:serviceaccount:kube-system:replicaset-controller', groups: ['system:serviceaccounts', 'system:authenticated'] },
      dryRun: false,
    }),
  };
}

/**
 * The parameters a binding evaluates the policy against: none needed without a `paramKind`
 * ([null]); with one, the object `paramRef.name` names, or those `paramRef.selector` selects (by
 * labels), in name order; `not found` when there are none and `parameterNotFoundAction` is Deny.
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/policy/generic/policy_dispatcher.go (CollectParams)
 */
function collectParams(spec: JsonObject, bindingSpec: JsonObject, all: readonly JsonObject[]): (JsonObject | null)[] | 'not found' {
  if (spec.paramKind === undefined) return [null];
  const kind = obj(spec.paramKind);
  const ref = obj(bindingSpec.paramRef);
  if (bindingSpec.paramRef === undefined) throw new Error('admission-policy: a policy with paramKind needs a binding with paramRef');
  const ofKind = all.filter((p) => p.apiVersion === kind.apiVersion && p.kind === kind.kind);
  const found = typeof ref.name === 'string' ? ofKind.filter((p) => obj(p.metadata).name === ref.name)
    : ofKind.filter((p) => selects(obj(ref.selector), obj(obj(p.metadata).labels) as Record<string, string>));
  const sorted = [...found].sort((a, b) => String(obj(a.metadata).name).localeCompare(String(obj(b.metadata).name)));
  if (sorted.length > 0) return sorted;
  return ref.parameterNotFoundAction === 'Deny' ? 'not found' : [];
}

/**
 * One Validate of validator.go: the match conditions, then the validations, with variables
 * computed lazily (at most once) for this evaluation. The refusals it makes, as messages.
 */
function validate(spec: JsonObject, base: Record<string, unknown>, failurePolicy: unknown, evaluated: string[], label: string): string[] | 'skipped' {
  const bindings: Record<string, unknown> = { ...base };
  const mine: string[] = [];
  bindings.variables = lazyVariables(list(spec.variables).map((v) => ({ name: String(obj(v).name), expression: String(obj(v).expression) })), bindings, mine);
  try {
    return validateWith(spec, bindings, failurePolicy);
  } finally {
    evaluated.push(...mine.map((v) => `${label}${v}`));
  }
}

function validateWith(spec: JsonObject, bindings: Record<string, unknown>, failurePolicy: unknown): string[] | 'skipped' {
  const violations: string[] = [];
  for (const condition of list(spec.matchConditions).map(obj)) {
    const result = compile(String(condition.expression))(bindings);
    if (isCelError(result)) {
      if (failurePolicy === 'Fail') return [`failed to evaluate match condition ${String(condition.name)}: ${result.message}`];
      return 'skipped';
    }
    if (result !== true) return 'skipped';
  }
  for (const validation of list(spec.validations).map(obj)) {
    const result = compile(String(validation.expression))(bindings);
    if (isCelError(result)) {
      if (failurePolicy === 'Fail') violations.push(`expression '${String(validation.expression)}' resulted in error: ${result.message}`);
      continue;
    }
    if (typeof result !== 'boolean') throw new Error(`admission-policy: ${String(validation.expression)} returned ${String(result)}, not a bool`);
    if (!result) violations.push(message(validation, bindings));
  }
  return violations;
}

/**
 * The message of a failed validation: its messageExpression's, else its message, else the
 * expression. A messageExpression that fails, or yields an empty string, only spaces or line
 * breaks, falls back as if it were unset (the API server logs it; tests see the fallback).
 */
function message(validation: JsonObject, bindings: Record<string, unknown>): string {
  if (typeof validation.messageExpression === 'string') {
    const result = compile(validation.messageExpression)(bindings);
    if (typeof result === 'string' && result.trim() !== '' && !result.includes('\n')) return result;
  }
  if (typeof validation.message === 'string' && validation.message !== '') return validation.message;
  return `failed expression: ${String(validation.expression)}`;
}

/** Whether MatchResources hold for the request: resource rules, minus excluded ones, and the namespace selector. */
function matches(match: JsonObject, request: AdmissionRequest, namespaceLabels: Readonly<Record<string, string>>): boolean {
  const resource = request.resource ?? { group: '', version: 'v1', resource: 'pods' };
  const ruleHolds = (rule: JsonObject) => {
    const any = (field: string, value: string) => list(rule[field]).some((v) => v === '*' || v === value);
    return any('apiGroups', resource.group) && any('apiVersions', resource.version) && any('resources', resource.resource) && any('operations', request.operation);
  };
  if (!list(match.resourceRules).map(obj).some(ruleHolds)) return false;
  if (list(match.excludeResourceRules).map(obj).some(ruleHolds)) return false;
  return selects(obj(match.namespaceSelector), namespaceLabels) && selects(obj(match.objectSelector), obj(obj(request.object?.metadata).labels) as Record<string, string>);
}

/** A LabelSelector against labels (an empty selector selects everything). @see https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#resources-that-support-set-based-requirements */
function selects(selector: JsonObject, labels: Readonly<Record<string, string>>): boolean {
  const matchLabels = obj(selector.matchLabels) as Record<string, string>;
  if (Object.entries(matchLabels).some(([k, v]) => labels[k] !== v)) return false;
  return list(selector.matchExpressions).map(obj).every((e) => {
    const key = String(e.key);
    const values = list(e.values).map(String);
    switch (e.operator) {
      case 'In': return key in labels && values.includes(labels[key]);
      case 'NotIn': return !(key in labels) || !values.includes(labels[key]);
      case 'Exists': return key in labels;
      case 'DoesNotExist': return !(key in labels);
      default: throw new Error(`admission-policy: unknown selector operator ${String(e.operator)}`);
    }
  });
}

function obj(v: unknown): JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

// ==== Shape: the required fields of the two kinds (there is no CRD for built-in kinds)
// @see https://kubernetes.io/docs/reference/kubernetes-api/extend-resources/validating-admission-policy-v1/
// @see https://kubernetes.io/docs/reference/kubernetes-api/extend-resources/validating-admission-policy-binding-v1/
// @see https://github.com/kubernetes/kubernetes/blob/v1.33.0/pkg/apis/admissionregistration/validation/validation.go

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Problems the API server's validation would report for a ValidatingAdmissionPolicy of admissionregistration.k8s.io/v1. */
export function policyShapeProblems(policy: JsonObject): string[] {
  const problems: string[] = [];
  const spec = obj(policy.spec);
  if (policy.apiVersion !== 'admissionregistration.k8s.io/v1') problems.push(`apiVersion: ${String(policy.apiVersion)}`);
  if (policy.kind !== 'ValidatingAdmissionPolicy') problems.push(`kind: ${String(policy.kind)}`);
  problems.push(...nameProblems(policy));
  if (obj(policy.metadata).namespace !== undefined) problems.push('metadata.namespace: cluster-scoped');
  if (spec.failurePolicy !== undefined && !['Fail', 'Ignore'].includes(String(spec.failurePolicy))) problems.push('spec.failurePolicy: Fail or Ignore');
  const match = spec.matchConstraints;
  if (match === undefined) problems.push('spec.matchConstraints: Required value');
  const rules = list(obj(match).resourceRules).map(obj);
  if (rules.length === 0) problems.push('spec.matchConstraints.resourceRules: Required value');
  rules.forEach((r, i) => {
    for (const field of ['apiGroups', 'apiVersions', 'operations', 'resources']) {
      if (list(r[field]).length === 0) problems.push(`spec.matchConstraints.resourceRules[${i}].${field}: Required value`);
    }
    if (r.scope !== undefined && !['Cluster', 'Namespaced', '*'].includes(String(r.scope))) problems.push(`spec.matchConstraints.resourceRules[${i}].scope: ${String(r.scope)}`);
    for (const op of list(r.operations)) if (!['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'].includes(String(op))) problems.push(`spec.matchConstraints.resourceRules[${i}].operations: ${String(op)}`);
  });
  if (spec.paramKind !== undefined) {
    const kind = obj(spec.paramKind);
    if (typeof kind.apiVersion !== 'string' || !/^([a-z0-9.-]+\/)?v[0-9]+[a-z0-9]*$/.test(kind.apiVersion)) problems.push(`spec.paramKind.apiVersion: ${String(kind.apiVersion)}`);
    if (typeof kind.kind !== 'string' || kind.kind === '') problems.push('spec.paramKind.kind: Required value');
  }
  const matchPolicy = obj(match).matchPolicy;
  if (matchPolicy !== undefined && !['Exact', 'Equivalent'].includes(String(matchPolicy))) problems.push(`spec.matchConstraints.matchPolicy: ${String(matchPolicy)}`);
  list(obj(obj(match).namespaceSelector).matchExpressions).map(obj).forEach((e, i) => {
    const at = `spec.matchConstraints.namespaceSelector.matchExpressions[${i}]`;
    if (!QUALIFIED_NAME.test(String(e.key))) problems.push(`${at}.key: ${String(e.key)}`);
    if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(String(e.operator))) problems.push(`${at}.operator: ${String(e.operator)}`);
    if (['In', 'NotIn'].includes(String(e.operator)) && list(e.values).length === 0) problems.push(`${at}.values: Required value`);
  });
  const validations = list(spec.validations).map(obj);
  if (validations.length === 0 && list(spec.auditAnnotations).length === 0) problems.push('spec: validations or auditAnnotations: Required value');
  validations.forEach((v, i) => {
    if (typeof v.expression !== 'string' || v.expression === '') problems.push(`spec.validations[${i}].expression: Required value`);
    if (typeof v.message === 'string' && v.message.includes('\n')) problems.push(`spec.validations[${i}].message: no line breaks`);
    if (v.reason !== undefined && !['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'].includes(String(v.reason))) problems.push(`spec.validations[${i}].reason: ${String(v.reason)}`);
  });
  const variables = list(spec.variables).map(obj);
  variables.forEach((v, i) => {
    if (!CEL_IDENTIFIER.test(String(v.name))) problems.push(`spec.variables[${i}].name: not a CEL identifier`);
    if (typeof v.expression !== 'string' || v.expression === '') problems.push(`spec.variables[${i}].expression: Required value`);
  });
  if (new Set(variables.map((v) => v.name)).size !== variables.length) problems.push('spec.variables: duplicate name');
  const conditions = list(spec.matchConditions).map(obj);
  if (conditions.length > 64) problems.push('spec.matchConditions: at most 64');
  conditions.forEach((c, i) => {
    if (!QUALIFIED_NAME.test(String(c.name))) problems.push(`spec.matchConditions[${i}].name: ${String(c.name)}`);
    if (typeof c.expression !== 'string' || c.expression === '') problems.push(`spec.matchConditions[${i}].expression: Required value`);
  });
  // Every expression must compile (the API server type-checks it; here it parses, its literals are homogeneous and its functions exist).
  for (const e of expressionsOf(spec)) {
    try {
      compile(e);
    } catch (err) {
      problems.push(`expression does not compile: ${(err as Error).message}`);
    }
  }
  return problems;
}

/** Problems the API server's validation would report for a ValidatingAdmissionPolicyBinding of admissionregistration.k8s.io/v1. */
export function bindingShapeProblems(binding: JsonObject): string[] {
  const problems: string[] = [];
  const spec = obj(binding.spec);
  if (binding.apiVersion !== 'admissionregistration.k8s.io/v1') problems.push(`apiVersion: ${String(binding.apiVersion)}`);
  if (binding.kind !== 'ValidatingAdmissionPolicyBinding') problems.push(`kind: ${String(binding.kind)}`);
  problems.push(...nameProblems(binding));
  if (typeof spec.policyName !== 'string' || spec.policyName === '') problems.push('spec.policyName: Required value');
  const actions = list(spec.validationActions).map(String);
  if (actions.length === 0) problems.push('spec.validationActions: Required value');
  if (new Set(actions).size !== actions.length) problems.push('spec.validationActions: Duplicate value');
  for (const a of actions) if (!['Deny', 'Warn', 'Audit'].includes(a)) problems.push(`spec.validationActions: Unsupported value: ${a}`);
  if (actions.includes('Deny') && actions.includes('Warn')) problems.push('spec.validationActions: Deny and Warn may not be used together');
  if (spec.paramRef !== undefined) {
    // validateParamRef: a name or a selector, not both; parameterNotFoundAction Allow or Deny, required in v1.
    const ref = obj(spec.paramRef);
    if ((ref.name === undefined) === (ref.selector === undefined)) problems.push('spec.paramRef: one of name or selector must be specified');
    if (!['Allow', 'Deny'].includes(String(ref.parameterNotFoundAction))) problems.push('spec.paramRef.parameterNotFoundAction: Required value (Allow or Deny)');
  }
  return problems;
}

/** Every CEL expression of a policy's spec. */
function expressionsOf(spec: JsonObject): string[] {
  const all = [
    ...list(spec.matchConditions).map((c) => obj(c).expression),
    ...list(spec.variables).map((v) => obj(v).expression),
    ...list(spec.validations).flatMap((v) => [obj(v).expression, obj(v).messageExpression]),
  ];
  return all.filter((x): x is string => typeof x === 'string');
}

function nameProblems(o: JsonObject): string[] {
  const name = obj(o.metadata).name;
  return typeof name === 'string' && name.length <= 253 && DNS_SUBDOMAIN.test(name) ? [] : [`metadata.name: ${String(name)}`];
}
