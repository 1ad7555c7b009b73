/**
 * The cluster's tenancy policies, evaluated as the API server evaluates them, for `fit` and the
 * review: the generated policies' own CEL (model/tenancy.ts renders it; nothing here restates
 * the rule), run with @bufbuild/cel on the object a user applies. Per policy, as
 * validator.go does: the match conditions, then each validation with the variables computed
 * lazily, at most once; a failed validation's message is its messageExpression's. The match
 * constraints are the policies' resource rules and exempt namespaces.
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/policy/validating/validator.go
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/policy/validating/dispatcher.go#L182-L262
 */
import type * as Cel from '@bufbuild/cel';
import type * as CelExt from '@bufbuild/cel/ext';
import { TENANCY_VARIABLES, TenancyPolicyModel, TenancyPolicyPart } from '../model/tenancy';

/** A request the policies judge: a user applies an object. */
export interface TenancyRequest {
  readonly operation: 'CREATE' | 'UPDATE';
  readonly namespace: string;
  /** The object as applied (its JSON). */
  readonly object: Readonly<Record<string, unknown>>;
  /** @default null */
  readonly oldObject?: Readonly<Record<string, unknown>> | null;
  /** The resource: `pods`, `deployments`, ... in its API group. */
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  /** The user who sends it. @default "kubernetes-admin" - a person applying a manifest */
  readonly username?: string;
}

/** What one policy says about a request. */
export interface TenancyVerdict {
  /** The policy (a part of the set). */
  readonly policy: string;
  /** Refusals, as the API server words them (each validation that failed). */
  readonly refusals: readonly string[];
  /** The pools the object would borrow from this part, first the one a refusal names. */
  readonly borrowed: readonly string[];
}

let loaded: { lib: typeof Cel; env: ReturnType<typeof Cel.celEnv> } | undefined;
/** The CEL library with Kubernetes' string functions, loaded on the first evaluation (most commands evaluate none). */
function cel(): { lib: typeof Cel; env: ReturnType<typeof Cel.celEnv> } {
  if (loaded) return loaded;
  const lib: typeof Cel = require('@bufbuild/cel');
  const ext: typeof CelExt = require('@bufbuild/cel/ext');
  loaded = { lib, env: lib.celEnv({ funcs: [...ext.strings] }) };
  return loaded;
}

const programs = new Map<string, (bindings: Record<string, unknown>) => unknown>();
/** An expression planned once. */
function program(expression: string): (bindings: Record<string, unknown>) => unknown {
  let run = programs.get(expression);
  if (!run) {
    const { lib, env } = cel();
    const planned = lib.plan(env, lib.parse(expression));
    run = (bindings) => (isBindings(bindings) ? planned(bindings) : undefined);
    programs.set(expression, run);
  }
  return run;
}

/** Bindings as the planned program takes them: each a CEL input (toCel's output and the lazy `variables` map are). */
function isBindings(v: Record<string, unknown>): v is Record<string, Cel.CelInput> {
  return typeof v === 'object';
}

/** JSON to CEL input: integers become int (bigint), objects maps. @see apiserver pkg/cel/common/valuesunstructured.go */
function toCel(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (value === null || value === undefined || typeof value !== 'object') return value ?? null;
  if (Array.isArray(value)) return value.map(toCel);
  return new Map(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, toCel(v)]));
}

/** CEL output to plain data (lists and strings, for the pools borrowed). */
function fromCel(value: unknown): unknown {
  return cel().lib.isCelList(value) ? [...value].map(fromCel) : value;
}

/** `variables`, computed on first read, at most once (bufbuild's CelMap marker). */
function lazyVariables(part: TenancyPolicyPart, bindings: Record<string, unknown>): { get(key: unknown): unknown } {
  const cache = new Map<string, unknown>();
  const byName = new Map(part.spec.variables.map((v) => [v.name, v.expression]));
  const variables = {
    [Symbol.for('@bufbuild/cel/map')]: {},
    get size() {
      return byName.size;
    },
    get(key: unknown) {
      const expression = typeof key === 'string' ? byName.get(key) : undefined;
      if (expression === undefined) return undefined;
      if (!cache.has(expression)) cache.set(expression, program(expression)({ ...bindings, variables }));
      return cache.get(expression);
    },
    has: (key: unknown) => typeof key === 'string' && byName.has(key),
    keys: () => byName.keys(),
  };
  return variables;
}

/** Whether a policy's match constraints take the request: its resource rules and its exempt namespaces. */
function matches(part: TenancyPolicyPart, request: TenancyRequest): boolean {
  const { group, version, resource } = request.resource;
  const rules = part.spec.matchConstraints.resourceRules;
  const ruled = rules.some((r) => r.apiGroups.includes(group) && r.apiVersions.includes(version) && r.resources.includes(resource) && r.operations.includes(request.operation));
  const exempt = part.spec.matchConstraints.namespaceSelector.matchExpressions.some((e) => e.values.includes(request.namespace));
  return ruled && !exempt;
}

/** What one policy part says about the request, or undefined when it does not look at it. */
export function evaluatePart(part: TenancyPolicyPart, request: TenancyRequest): TenancyVerdict | undefined {
  if (!matches(part, request)) return undefined;
  const kind = String(request.object.kind ?? '');
  const bindings: Record<string, unknown> = {
    object: toCel(request.object),
    oldObject: toCel(request.oldObject ?? null),
    request: toCel({
      kind: { group: request.resource.group, version: request.resource.version, kind },
      resource: request.resource,
      namespace: request.namespace,
      operation: request.operation,
      userInfo: { username: request.username ?? 'kubernetes-admin' },
    }),
  };
  if (part.spec.matchConditions.some((c) => program(c.expression)(bindings) !== true)) return undefined;
  const variables = lazyVariables(part, bindings);
  bindings.variables = variables;
  const refusals = part.spec.validations.filter((v) => program(v.expression)(bindings) !== true).map((v) => {
    const message = program(v.messageExpression)(bindings);
    return typeof message === 'string' && message.trim() !== '' ? message : v.message;
  });
  const borrowed = fromCel(variables.get(TENANCY_VARIABLES.borrowed));
  return { policy: part.name, refusals, borrowed: Array.isArray(borrowed) ? borrowed.map(String) : [] };
}

/** What every policy of the set says about the request, in the set's order (the API server reports the first refusal). */
export function evaluateTenancy(policy: TenancyPolicyModel, request: TenancyRequest): TenancyVerdict[] {
  return policy.parts.map((part) => evaluatePart(part, request)).filter((v): v is TenancyVerdict => v !== undefined);
}

/** The resource of each kind `fit` reads, as the API server names it. */
export const KIND_RESOURCES: Readonly<Record<string, TenancyRequest['resource']>> = {
  Pod: { group: '', version: 'v1', resource: 'pods' },
  PodTemplate: { group: '', version: 'v1', resource: 'podtemplates' },
  ReplicationController: { group: '', version: 'v1', resource: 'replicationcontrollers' },
  Deployment: { group: 'apps', version: 'v1', resource: 'deployments' },
  ReplicaSet: { group: 'apps', version: 'v1', resource: 'replicasets' },
  StatefulSet: { group: 'apps', version: 'v1', resource: 'statefulsets' },
  DaemonSet: { group: 'apps', version: 'v1', resource: 'daemonsets' },
  Job: { group: 'batch', version: 'v1', resource: 'jobs' },
  CronJob: { group: 'batch', version: 'v1', resource: 'cronjobs' },
};
