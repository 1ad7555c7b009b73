/**
 * A test-only model of where a pod can run in a cluster that Karpenter scales: whether Karpenter
 * launches a node of a NodePool for it, whether the kube-scheduler can bind it to a running node,
 * and whether the kubelet runs it on the node it names. Written from the source of
 * kubernetes-sigs/karpenter v1.14.1 (with the AWS provider's additions, aws/karpenter-provider-aws
 * v1.14.1) and of Kubernetes, not from this repository's code: it stands for those systems, so
 * the tenancy policy's tests can hold the generated policy to what they would do.
 *
 * What it leaves out, on purpose: resources, limits, instance types and offerings (a pool is taken
 * to have room and a type for any pod its requirements and taints allow), pod (anti-)affinity,
 * topology spread, volumes and DRA. Each of those only keeps a pod off a pool, never puts it on one.
 * @see https://github.com/kubernetes-sigs/karpenter/tree/v1.14.1
 *
 * Upstream: MODELS.karpenter, MODELS.karpenterAws (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */

/** A JSON object, as the API server holds it. */
export type Json = { readonly [key: string]: unknown };

/** A taint. */
export interface ModelTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

/** A toleration, as a pod spec writes it. */
export interface ModelToleration {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
}

/** A node selector requirement, as a pod spec writes it. */
export interface ModelRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

/** A node selector term, as a pod spec writes it. */
export interface ModelTerm {
  readonly matchExpressions?: readonly ModelRequirement[];
  readonly matchFields?: readonly ModelRequirement[];
}

/** What of a pod decides where it can run. */
export interface ModelPod {
  readonly ownerReferences: readonly { readonly apiVersion: string; readonly kind: string; readonly controller?: boolean }[];
  readonly nodeName?: string;
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly ModelToleration[];
  /** `requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`; undefined: no required node affinity. */
  readonly required?: readonly ModelTerm[];
  /** `preferredDuringSchedulingIgnoredDuringExecution`. */
  readonly preferred: readonly { readonly weight: number; readonly preference: ModelTerm }[];
  /**
   * What the pod requests as Karpenter's scheduler counts it (resources.RequestsForPods of the one
   * pod, `pods: 1` included), one canonical quantity per resource (see {@link formatQuantity}).
   * @default - not read: the model's placement rules never look at it
   */
  readonly requests?: Readonly<Record<string, string>>;
}

/** A running node: its name, labels and taints. */
export interface ModelNode {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly ModelTaint[];
}

// ==== Labels
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/labels.go#L39-L135

const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
const HOSTNAME_LABEL = 'kubernetes.io/hostname';

/**
 * WellKnownLabels: Karpenter's own, and those the AWS provider adds in its init.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/labels.go#L75-L84
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/v1/labels.go#L33-L62
 */
const WELL_KNOWN: ReadonlySet<string> = new Set([
  NODEPOOL_LABEL, 'topology.kubernetes.io/zone', 'topology.kubernetes.io/region', 'node.kubernetes.io/instance-type',
  'kubernetes.io/arch', 'kubernetes.io/os', 'karpenter.sh/capacity-type', 'node.kubernetes.io/windows-build',
  ...['capacity-reservation-id', 'capacity-reservation-type', 'capacity-reservation-interruptible', 'instance-hypervisor',
    'instance-encryption-in-transit-supported', 'instance-category', 'instance-capability-flex', 'instance-family',
    'instance-generation', 'instance-size', 'instance-local-nvme', 'instance-cpu', 'instance-cpu-manufacturer',
    'instance-cpu-sustained-clock-speed-mhz', 'instance-memory', 'instance-ebs-bandwidth', 'instance-network-bandwidth',
    'instance-gpu-name', 'instance-gpu-manufacturer', 'instance-gpu-count', 'instance-gpu-memory', 'instance-accelerator-name',
    'instance-accelerator-manufacturer', 'instance-accelerator-count', 'instance-tenancy', 'placement-group-id',
    'placement-group-partition'].map((l) => `karpenter.k8s.aws/${l}`),
  'topology.k8s.aws/zone-id',
]);

/**
 * RestrictedLabelDomains: Karpenter's, and the AWS provider's group.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/labels.go#L69-L71
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/v1/labels.go#L106-L108
 */
const RESTRICTED_DOMAINS = ['karpenter.sh', 'karpenter.k8s.aws'];

/** @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/labels.go#L121-L127 (NormalizedLabels) */
const NORMALIZED: Readonly<Record<string, string>> = {
  'failure-domain.beta.kubernetes.io/zone': 'topology.kubernetes.io/zone',
  'beta.kubernetes.io/arch': 'kubernetes.io/arch',
  'beta.kubernetes.io/os': 'kubernetes.io/os',
  'beta.kubernetes.io/instance-type': 'node.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/region': 'topology.kubernetes.io/region',
};

/** @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/labels.go#L138-L153 (IsRestrictedLabel) */
function isRestrictedLabel(key: string): boolean {
  if (WELL_KNOWN.has(key)) return false;
  const domain = key.includes('/') ? key.slice(0, key.indexOf('/')) : '';
  return RESTRICTED_DOMAINS.some((d) => domain === d || domain.endsWith(`.${d}`)) || key === HOSTNAME_LABEL;
}

// ==== Integers as Go parses them

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * strconv.Atoi and strconv.ParseInt(s, 10, 64) on a 64-bit platform: an optional sign, then
 * decimal digits, within int64; undefined where Go returns an error.
 */
function goInt(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}

// ==== Taints and tolerations

/**
 * Toleration.ToleratesTaint: an empty effect matches every effect, an empty key every key;
 * Equal (or no operator) compares values, Exists matches any, Lt and Gt compare the values as
 * int64 (Karpenter calls it with the comparison operators enabled).
 * @see https://github.com/kubernetes/api/blob/v0.35.1/core/v1/toleration.go (ToleratesTaint, compareNumericValues)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/taints.go#L83-L95 (Tolerates: ToleratesTaint(..., true))
 */
export function toleratesTaint(t: ModelToleration, taint: ModelTaint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal': return (t.value ?? '') === (taint.value ?? '');
    case 'Exists': return true;
    case 'Lt':
    case 'Gt': {
      const mine = goInt(t.value ?? '');
      const theirs = goInt(taint.value ?? '');
      if (mine === undefined || theirs === undefined) return false;
      return t.operator === 'Lt' ? theirs < mine : theirs > mine;
    }
    default: return false;
  }
}

/** Whether every taint that `counts` keeps is tolerated by one of the tolerations. */
function toleratesAll(taints: readonly ModelTaint[], tolerations: readonly ModelToleration[], counts: (t: ModelTaint) => boolean): boolean {
  return taints.filter(counts).every((taint) => tolerations.some((t) => toleratesTaint(t, taint)));
}

// ==== Kubernetes' node affinity, as the scheduler and the kubelet match it

/**
 * A label requirement against a node's labels: In needs the label with one of the values; NotIn
 * passes when the label is absent; Gt and Lt need the label, and both values as int64.
 * @see https://github.com/kubernetes/kubernetes/blob/v1.33.0/staging/src/k8s.io/apimachinery/pkg/labels/selector.go (Requirement.Matches)
 */
function labelMatches(r: ModelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In': return has && values.includes(labels[r.key]);
    case 'NotIn': return !has || !values.includes(labels[r.key]);
    case 'Exists': return has;
    case 'DoesNotExist': return !has;
    case 'Gt':
    case 'Lt': {
      if (!has || values.length !== 1) return false;
      const mine = goInt(labels[r.key]);
      const theirs = goInt(values[0]);
      if (mine === undefined || theirs === undefined) return false;
      return r.operator === 'Gt' ? mine > theirs : mine < theirs;
    }
    default: return false;
  }
}

/** How a node's name is matched: as it is, or (`any`) as if the pod had named this very node. */
export type NodeNames = 'exact' | 'any';

/**
 * Whether a node meets the pod's required node affinity: its nodeSelector, and one of the
 * required terms (ORed). A term with neither expressions nor fields matches no node; matchFields
 * know only metadata.name, with In and NotIn.
 * @see https://github.com/kubernetes/kubernetes/blob/v1.33.0/staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go (GetRequiredNodeAffinity, NewLazyErrorNodeSelector: "nil or empty term selects no objects")
 */
export function requiredAffinityMatches(pod: ModelPod, node: ModelNode, names: NodeNames): boolean {
  if (!Object.entries(pod.nodeSelector).every(([k, v]) => node.labels[k] === v)) return false;
  if (pod.required === undefined) return true;
  return pod.required.some((term) => {
    const expressions = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    if (expressions.length === 0 && fields.length === 0) return false;
    return expressions.every((e) => labelMatches(e, node.labels))
      && (names === 'any' || fields.every((f) => f.key === 'metadata.name' && labelMatches(f, { 'metadata.name': node.name })));
  });
}

/**
 * Whether the kube-scheduler can bind the pod to this running node: the NodeAffinity filter, and
 * the TaintToleration filter on NoSchedule and NoExecute taints (PreferNoSchedule only scores). A
 * pod that names its node never reaches the scheduler.
 * @see https://github.com/kubernetes/kubernetes/blob/v1.33.0/pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go (Filter)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.33.0/pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go (Filter: DoNotScheduleTaintsFilterFunc)
 */
export function schedulerBinds(pod: ModelPod, node: ModelNode, names: NodeNames = 'exact'): boolean {
  if (pod.nodeName) return false;
  return requiredAffinityMatches(pod, node, names)
    && toleratesAll(node.taints, pod.tolerations, (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
}

/**
 * Whether the kubelet runs a pod created with spec.nodeName on this node: the node is the one it
 * names, the pod's required node affinity matches, and it tolerates the NoExecute taints (the
 * kubelet "is only interested in the NoExecute taint": a NoSchedule taint does not stop it).
 * @see https://github.com/kubernetes/kubernetes/blob/v1.33.0/pkg/kubelet/lifecycle/predicate.go (generalFilter)
 */
export function kubeletRuns(pod: ModelPod, node: ModelNode, names: NodeNames = 'exact'): boolean {
  if (!pod.nodeName || (names === 'exact' && pod.nodeName !== node.name)) return false;
  return requiredAffinityMatches(pod, node, names) && toleratesAll(node.taints, pod.tolerations, (t) => t.effect === 'NoExecute');
}

// ==== Karpenter's requirements
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go

/** Requirement: a set of values (or its complement), with integer bounds. */
interface Requirement {
  readonly key: string;
  readonly complement: boolean;
  readonly values: ReadonlySet<string>;
  /** Inclusive lower bound (Gt N is Gte N+1). */
  readonly gte?: bigint;
  /** Inclusive upper bound (Lt N is Lte N-1). */
  readonly lte?: bigint;
}

/** @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go#L48-L110 (NewRequirementWithFlexibility) */
function newRequirement(rawKey: string, operator: string, values: readonly string[] = []): Requirement {
  const key = NORMALIZED[rawKey] ?? rawKey;
  if (operator === 'In') return { key, complement: false, values: new Set(values) };
  const r = { key, complement: operator !== 'DoesNotExist', values: new Set(operator === 'NotIn' ? values : []) };
  // Bounds: the operator's one value, prevalidated (Validate refuses pods where it is not an integer >= 0).
  const bound = goInt(values[0] ?? '') ?? 0n;
  if (operator === 'Gt') return bound === INT64_MAX ? newRequirement(key, 'DoesNotExist') : { ...r, gte: bound + 1n };
  if (operator === 'Lt') return { ...r, lte: bound - 1n };
  if (operator === 'Gte') return { ...r, gte: bound };
  if (operator === 'Lte') return { ...r, lte: bound };
  return r;
}

/** @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go#L334-L350 (withinBounds) */
function withinBounds(value: string, gte?: bigint, lte?: bigint): boolean {
  if (gte === undefined && lte === undefined) return true;
  const n = goInt(value);
  if (n === undefined) return false;
  return (gte === undefined || n >= gte) && (lte === undefined || n <= lte);
}

const maxOf = (a?: bigint, b?: bigint) => (a === undefined ? b : b === undefined ? a : a > b ? a : b);
const minOf = (a?: bigint, b?: bigint) => (a === undefined ? b : b === undefined ? a : a < b ? a : b);

/** @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go#L181-L214 (Intersection) */
function intersection(r: Requirement, o: Requirement): Requirement {
  const complement = r.complement && o.complement;
  let gte = maxOf(r.gte, o.gte);
  let lte = minOf(r.lte, o.lte);
  if (gte !== undefined && lte !== undefined && gte > lte) return newRequirement(r.key, 'DoesNotExist');
  let values: string[];
  if (r.complement && o.complement) values = [...new Set([...r.values, ...o.values])];
  else if (r.complement) values = [...o.values].filter((v) => !r.values.has(v));
  else if (o.complement) values = [...r.values].filter((v) => !o.values.has(v));
  else values = [...r.values].filter((v) => o.values.has(v));
  values = values.filter((v) => withinBounds(v, gte, lte));
  if (!complement) [gte, lte] = [undefined, undefined];
  return { key: r.key, complement, values: new Set(values), gte, lte };
}

/** @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go#L220-L254 (HasIntersection) */
function hasIntersection(r: Requirement, o: Requirement): boolean {
  const gte = maxOf(r.gte, o.gte);
  const lte = minOf(r.lte, o.lte);
  if (gte !== undefined && lte !== undefined && gte > lte) return false;
  if (r.complement && o.complement) return true;
  if (r.complement) return [...o.values].some((v) => !r.values.has(v) && withinBounds(v, gte, lte));
  if (o.complement) return [...r.values].some((v) => !o.values.has(v) && withinBounds(v, gte, lte));
  return [...r.values].some((v) => o.values.has(v) && withinBounds(v, gte, lte));
}

/** Requirement.Has: the value is allowed. @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go#L275-L280 */
function allows(r: Requirement, value: string): boolean {
  return (r.complement ? !r.values.has(value) : r.values.has(value)) && withinBounds(value, r.gte, r.lte);
}

/** @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go#L290-L301 (Operator: a complement is NotIn, or Exists without values) */
function operatorOf(r: Requirement): 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' {
  if (r.complement) return r.values.size > 0 ? 'NotIn' : 'Exists';
  return r.values.size > 0 ? 'In' : 'DoesNotExist';
}

/** Requirements: one Requirement per key. */
type Requirements = ReadonlyMap<string, Requirement>;

/** Requirements.Add: a key already present is intersected. @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go#L133-L140 */
function add(into: Map<string, Requirement>, ...requirements: readonly Requirement[]): Map<string, Requirement> {
  for (const r of requirements) {
    const existing = into.get(r.key);
    into.set(r.key, existing ? intersection(r, existing) : r);
  }
  return into;
}

/** Requirements.Get: an absent key allows any value (Exists). @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go#L160-L166 */
function get(rs: Requirements, key: string): Requirement {
  return rs.get(key) ?? newRequirement(key, 'Exists');
}

/**
 * Requirements.Compatible with AllowUndefinedWellKnownLabels: a custom label the NodeClaim does
 * not define passes only as NotIn or DoesNotExist; then every key both define must intersect (two
 * NotIn/DoesNotExist sides always do).
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go#L181-L197 (Compatible)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go#L254-L274 (Intersects)
 */
function compatible(nodeClaim: Requirements, pod: Requirements): boolean {
  for (const [key, r] of pod) {
    if (WELL_KNOWN.has(key)) continue;
    const op = operatorOf(r);
    if (!nodeClaim.has(key) && op !== 'NotIn' && op !== 'DoesNotExist') return false;
  }
  for (const key of pod.keys()) {
    if (!nodeClaim.has(key)) continue;
    const existing = get(nodeClaim, key);
    const incoming = get(pod, key);
    if (hasIntersection(existing, incoming)) continue;
    const negative = (r: Requirement) => operatorOf(r) === 'NotIn' || operatorOf(r) === 'DoesNotExist';
    if (!(negative(incoming) && negative(existing))) return false;
  }
  return true;
}

// ==== What Karpenter makes of a NodePool

/** What Karpenter schedules against for one NodePool. */
export interface NodeClaimTemplate {
  readonly nodePool: string;
  /** The labels its nodes get: the template's, the NodePool's name, the node class's name. */
  readonly labels: Readonly<Record<string, string>>;
  readonly requirements: Requirements;
  readonly taints: readonly ModelTaint[];
}

/**
 * NewNodeClaimTemplate: the NodePool's requirements, its template labels plus
 * `karpenter.sh/nodepool` and the node class label (`<group>/<kind lowercased>`) as In
 * requirements, and karpenter.sh/registered and karpenter.sh/initialized for DaemonSet
 * scheduling; then NewNodeClaim adds the new node's placeholder hostname. Its taints are the
 * template's (startup taints are not checked: they go once the node is initialized).
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go#L66-L92
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaim.go#L93-L97
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/labels.go#L173-L175 (NodeClassLabelKey)
 */
export function nodeClaimTemplate(nodePool: Json): NodeClaimTemplate {
  const metadata = obj(nodePool.metadata);
  const template = obj(obj(nodePool.spec).template);
  const spec = obj(template.spec);
  const ref = obj(spec.nodeClassRef);
  const labels: Record<string, string> = {
    ...(obj(obj(template.metadata).labels) as Record<string, string>),
    [NODEPOOL_LABEL]: String(metadata.name),
    [`${String(ref.group)}/${String(ref.kind).toLowerCase()}`]: String(ref.name),
  };
  const requirements = add(new Map(), ...list(spec.requirements).map(obj).map((r) => newRequirement(String(r.key), String(r.operator), list(r.values).map(String))));
  add(requirements, ...Object.entries(labels).map(([k, v]) => newRequirement(k, 'In', [v])));
  add(requirements, newRequirement('karpenter.sh/registered', 'In', ['true']), newRequirement('karpenter.sh/initialized', 'In', ['true']));
  add(requirements, newRequirement(HOSTNAME_LABEL, 'In', ['hostname-placeholder-0001']));
  const taints = list(spec.taints).map(obj).map((t): ModelTaint => ({ key: String(t.key), ...(t.value !== undefined ? { value: String(t.value) } : {}), effect: String(t.effect) }));
  return { nodePool: String(metadata.name), labels, requirements, taints };
}

/**
 * A node Karpenter launched for the template, once registered and initialized: the NodeClaim's
 * labels (the template's, and one value of each requirement, here the instance's labels given)
 * and the NodePool's taints are synced onto the Node. Throws when the instance's labels do not
 * meet the NodePool's requirements (Karpenter would not have launched it).
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/nodeclaim/lifecycle/registration.go (syncNode)
 */
export function launchedNode(template: NodeClaimTemplate, name: string, instanceLabels: Readonly<Record<string, string>>): ModelNode {
  const labels: Record<string, string> = {
    ...template.labels, ...instanceLabels, [HOSTNAME_LABEL]: name, 'karpenter.sh/registered': 'true', 'karpenter.sh/initialized': 'true',
  };
  for (const [key, r] of template.requirements) {
    if (key !== HOSTNAME_LABEL && key in labels && !allows(r, labels[key])) {
      throw new Error(`karpenter-provisioning: node ${name} has ${key}=${labels[key]}, which NodePool ${template.nodePool} does not allow`);
    }
  }
  return { name, labels, taints: template.taints };
}

// ==== Which pods Karpenter provisions for

/** IsOwnedBy: any ownerReference (controller or not) of that apiVersion and kind. @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/pod/scheduling.go#L181-L190 */
function isOwnedBy(pod: ModelPod, apiVersion: string, kind: string): boolean {
  return pod.ownerReferences.some((o) => o.apiVersion === apiVersion && o.kind === kind);
}

/**
 * Why Karpenter never launches a node for the pod, or undefined when it would (if the
 * kube-scheduler had marked it unschedulable and it is not preempting):
 *
 * - IsProvisionable: the pod is bound (spec.nodeName), or owned by an apps/v1 DaemonSet (any
 *   ownerReference), or by a Node (a mirror pod);
 * - Provisioner.Validate: a nodeSelector entry or required term's expression Karpenter refuses
 *   (a restricted label, a Gt or Lt that is not one integer >= 0, an In without values), a
 *   required term with matchFields, or karpenter.sh/nodepool DoesNotExist among its requirements.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/pod/scheduling.go#L102-L108 (IsProvisionable)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/pod/scheduling.go#L134-L136 (IsScheduled)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/pod/scheduling.go#L168-L179 (IsOwnedByDaemonSet, IsOwnedByNode)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/provisioner.go#L196-L216 (GetPendingPods)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/provisioner.go#L561-L653 (Validate)
 */
export function karpenterIgnores(pod: ModelPod): string | undefined {
  if (pod.nodeName) return 'bound to a node';
  if (isOwnedBy(pod, 'apps/v1', 'DaemonSet')) return 'owned by a DaemonSet';
  if (isOwnedBy(pod, 'v1', 'Node')) return 'a mirror pod';
  const nodePool = relaxations(pod)[0].requirements.get(NODEPOOL_LABEL);
  if (nodePool !== undefined && operatorOf(nodePool) === 'DoesNotExist') return 'karpenter.sh/nodepool DoesNotExist';
  const selector = Object.entries(pod.nodeSelector).map(([key, value]): ModelRequirement => ({ key, operator: 'In', values: [value] }));
  const terms = pod.required ?? [];
  if (terms.some((t) => (t.matchFields ?? []).length > 0)) return 'a term with matchFields';
  const invalid = [...selector, ...terms.flatMap((t) => t.matchExpressions ?? [])].find((r) => !validRequirement(r));
  return invalid ? `invalid requirement ${invalid.key} ${invalid.operator}` : undefined;
}

/** @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/nodeclaim_validation.go#L117-L160 (ValidateRequirement) */
function validRequirement(r: ModelRequirement): boolean {
  const key = NORMALIZED[r.key] ?? r.key;
  const values = r.values ?? [];
  if (!['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte'].includes(r.operator)) return false;
  if (isRestrictedLabel(key)) return false;
  if (key === 'karpenter.sh/capacity-type' && r.operator === 'In' && !values.some((v) => ['on-demand', 'spot', 'reserved'].includes(v))) return false;
  if (key === 'karpenter.k8s.aws/instance-tenancy' && r.operator === 'In' && !values.some((v) => ['dedicated', 'default'].includes(v))) return false;
  if (!QUALIFIED_NAME.test(key) || values.some((v) => !LABEL_VALUE.test(v))) return false;
  if (r.operator === 'In' && values.length === 0) return false;
  if (['Gt', 'Lt', 'Gte', 'Lte'].includes(r.operator)) {
    const n = values.length === 1 ? goInt(values[0]) : undefined;
    if (n === undefined || n < 0n) return false;
  }
  return true;
}

/** @see https://github.com/kubernetes/kubernetes/blob/v1.33.0/staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go (IsQualifiedName, IsValidLabelValue) */
const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

/** One state of a pod in Karpenter's scheduling loop: the requirements and tolerations it is tried with. */
interface Relaxation {
  readonly requirements: Requirements;
  readonly tolerations: readonly ModelToleration[];
}

/**
 * The states Karpenter tries a pod in, in order. NewPodRequirements: the nodeSelector, the
 * heaviest preferred term's expressions and the first required term's expressions (an empty
 * first term adds nothing). When no NodeClaim takes it, Relax applies the first relaxation that
 * still can: drop the first required term while more than one is left; then the heaviest
 * preferred term; then, when some NodePool has a PreferNoSchedule taint, tolerate every
 * PreferNoSchedule taint. Preferred terms of equal weight may be sorted either way (sort.Slice is
 * not stable), so every such order is a state.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go#L90-L110 (newPodRequirements)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/preferences.go#L38-L88 (Relax, removePreferredNodeAffinityTerm, removeRequiredNodeAffinityTerm)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/preferences.go#L132-L146 (toleratePreferNoScheduleTaints)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go#L144-L153 (toleratePreferNoSchedule)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go#L521-L566 (trySchedule, updateCachedPodData)
 */
function relaxations(pod: ModelPod, toleratePreferNoSchedule = false): Relaxation[] {
  const states: Relaxation[] = [];
  for (const preferred of weightOrders(pod.preferred)) {
    let terms = pod.required ?? [];
    let prefs = preferred;
    let tolerations = pod.tolerations;
    for (;;) {
      const requirements = add(new Map(), ...Object.entries(pod.nodeSelector).map(([k, v]) => newRequirement(k, 'In', [v])));
      if (prefs.length > 0) add(requirements, ...combined(prefs[0].preference.matchExpressions ?? []));
      if (terms.length > 0) add(requirements, ...combined(terms[0].matchExpressions ?? []));
      states.push({ requirements, tolerations });
      if (terms.length > 1) terms = terms.slice(1);
      else if (prefs.length > 0) prefs = prefs.slice(1);
      else if (toleratePreferNoSchedule && !tolerations.some((t) => (t.key ?? '') === '' && t.operator === 'Exists' && t.effect === 'PreferNoSchedule' && (t.value ?? '') === '')) {
        tolerations = [...tolerations, { operator: 'Exists', effect: 'PreferNoSchedule' }];
      } else break;
    }
  }
  return states;
}

/** A term's expressions as Requirements (NewNodeSelectorRequirements: each key intersected). */
function combined(expressions: readonly ModelRequirement[]): Requirement[] {
  return [...add(new Map(), ...expressions.map((e) => newRequirement(e.key, e.operator, e.values ?? []))).values()];
}

/** Every order of the preferred terms heaviest first (ties either way). */
function weightOrders<T extends { readonly weight: number }>(terms: readonly T[]): T[][] {
  if (terms.length === 0) return [[]];
  const heaviest = Math.max(...terms.map((t) => t.weight));
  return terms.flatMap((t, i) => (t.weight === heaviest ? weightOrders([...terms.slice(0, i), ...terms.slice(i + 1)]).map((rest) => [t, ...rest]) : []));
}

/**
 * Whether Karpenter would launch a node of this template for the pod, given that nothing running
 * or in flight takes it and every pool it would rather use is at its limits: it considers the pod
 * (karpenterIgnores), and in one of the states it tries the pod in, the NodeClaim's taints are
 * tolerated (every taint, PreferNoSchedule included, until that relaxation) and its requirements
 * are compatible with the pod's.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go#L695-L790 (addToNewNodeClaim)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaim.go#L124-L136 (CanAdd)
 */
export function karpenterLaunches(pod: ModelPod, template: NodeClaimTemplate, allTemplates: readonly NodeClaimTemplate[]): boolean {
  if (karpenterIgnores(pod) !== undefined) return false;
  return launchesInSomeState(pod, template, allTemplates);
}

/** Whether, in one of the states Karpenter tries the pod in, a NodeClaim of the template takes it (CanAdd's taints and requirements). */
function launchesInSomeState(pod: ModelPod, template: NodeClaimTemplate, allTemplates: readonly NodeClaimTemplate[]): boolean {
  const preferNoSchedule = allTemplates.some((t) => t.taints.some((taint) => taint.effect === 'PreferNoSchedule'));
  return relaxations(pod, preferNoSchedule).some((s) => toleratesAll(template.taints, s.tolerations, () => true) && compatible(template.requirements, s.requirements));
}

/**
 * Whether the pod's node selection, one required term at a time, can be met by a node of the
 * template: by a running node's labels (as the scheduler matches them), or by Karpenter's
 * requirements for a new one (as Compatible checks them). `names` tells how node names are read.
 * Each result: the term's index (-1: no required affinity) and whether it holds.
 */
export function alternativesHolding(pod: ModelPod, template: NodeClaimTemplate, nodes: readonly ModelNode[], names: NodeNames): number[] {
  const terms = pod.required;
  const alternatives: { index: number; term?: ModelTerm }[] = terms === undefined ? [{ index: -1 }] : terms.map((term, index) => ({ index, term }));
  return alternatives.filter(({ term }) => {
    const one: ModelPod = { ...pod, required: term === undefined ? undefined : [term] };
    if (nodes.some((n) => requiredAffinityMatches(one, n, names))) return true;
    const requirements = add(new Map(), ...Object.entries(pod.nodeSelector).map(([k, v]) => newRequirement(k, 'In', [v])), ...combined(term?.matchExpressions ?? []));
    return compatible(template.requirements, requirements);
  }).map(({ index }) => index);
}

// ==== Reading a pod

/** The parts of a pod object (as the API server holds it) that this model reads. */
export function modelPod(pod: Json): ModelPod {
  const metadata = obj(pod.metadata);
  const spec = obj(pod.spec);
  const nodeAffinity = obj(obj(spec.affinity).nodeAffinity);
  const required = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  return {
    ownerReferences: list(metadata.ownerReferences).map(obj).map((o) => ({ apiVersion: String(o.apiVersion), kind: String(o.kind), controller: o.controller === true })),
    ...(typeof spec.nodeName === 'string' && spec.nodeName !== '' ? { nodeName: spec.nodeName } : {}),
    nodeSelector: obj(spec.nodeSelector) as Record<string, string>,
    tolerations: list(spec.tolerations).map(obj) as ModelToleration[],
    ...(required !== undefined ? { required: list(obj(required).nodeSelectorTerms).map(obj) as ModelTerm[] } : {}),
    preferred: list(nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution).map(obj)
      .map((p) => ({ weight: Number(p.weight), preference: obj(p.preference) as ModelTerm })),
  };
}

function obj(v: unknown): Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

// ==== Quantities
// @see https://github.com/kubernetes/apimachinery/blob/v0.35.1/pkg/api/resource/quantity.go#L277-L300 (ParseQuantity)
// @see https://github.com/kubernetes/apimachinery/blob/v0.35.1/pkg/api/resource/suffix.go#L108-L132 (newSuffixer: the binary and decimal suffixes)

const NANOS_PER_UNIT = 1_000_000_000n;

/** Each suffix as a multiplier (numerator, denominator) of one unit. */
const SUFFIXES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  n: [1n, NANOS_PER_UNIT], u: [1n, 1_000_000n], m: [1n, 1000n], '': [1n, 1n],
  k: [10n ** 3n, 1n], M: [10n ** 6n, 1n], G: [10n ** 9n, 1n], T: [10n ** 12n, 1n], P: [10n ** 15n, 1n], E: [10n ** 18n, 1n],
  Ki: [2n ** 10n, 1n], Mi: [2n ** 20n, 1n], Gi: [2n ** 30n, 1n], Ti: [2n ** 40n, 1n], Pi: [2n ** 50n, 1n], Ei: [2n ** 60n, 1n],
};
const BINARY_SUFFIXES = ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki'] as const;
const QUANTITY = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+|[numkMGTPE])?$/;

/** Division rounded up (Quantity keeps nano precision and rounds finer values up). */
function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return q * b !== a && (a > 0n) === (b > 0n) ? q + 1n : q;
}

/**
 * A Kubernetes quantity in nano-units ("1500m" is 1.5 units). Throws on anything ParseQuantity
 * refuses, naming `where` it was read.
 */
function parseQuantity(value: unknown, where: string): bigint {
  const match = typeof value === 'number' ? QUANTITY.exec(String(value)) : typeof value === 'string' ? QUANTITY.exec(value) : null;
  if (match === null) throw new Error(`karpenter-provisioning: ${where}: ${JSON.stringify(value)} is not a quantity`);
  const [, sign, number, suffix = ''] = match;
  const [whole, fraction = ''] = number.split('.');
  let [num, den] = SUFFIXES[suffix] ?? [1n, 1n];
  if (/^[eE]/.test(suffix)) {
    const exponent = BigInt(suffix.slice(1));
    [num, den] = exponent >= 0n ? [10n ** exponent, 1n] : [1n, 10n ** -exponent];
  }
  const mantissa = BigInt(`${whole}${fraction}` || '0') * (sign === '-' ? -1n : 1n);
  return ceilDiv(mantissa * num * NANOS_PER_UNIT, den * 10n ** BigInt(fraction.length));
}

/**
 * A nano-unit amount written one way only, so that equal quantities compare equal: a whole
 * number of units with the largest binary suffix that divides it ("128Mi"), else plain units
 * ("2", "1000000000"), else milli, micro or nano units ("1500m").
 */
function formatQuantity(nanos: bigint): string {
  if (nanos % NANOS_PER_UNIT === 0n) {
    const units = nanos / NANOS_PER_UNIT;
    const binary = units === 0n ? undefined : BINARY_SUFFIXES.find((s) => units % SUFFIXES[s][0] === 0n);
    return binary === undefined ? String(units) : `${units / SUFFIXES[binary][0]}${binary}`;
  }
  if (nanos % 1_000_000n === 0n) return `${nanos / 1_000_000n}m`;
  if (nanos % 1000n === 0n) return `${nanos / 1000n}u`;
  return `${nanos}n`;
}

// ==== What a pod requests

/** A resource list as nano-unit amounts. */
type Amounts = Record<string, bigint>;

/** `into` += `list` (addResourceList). */
function addInto(into: Amounts, list: Readonly<Amounts>): Amounts {
  for (const [k, v] of Object.entries(list)) into[k] = (into[k] ?? 0n) + v;
  return into;
}

/** `into` = max(`into`, `list`) per resource (maxResourceList). */
function maxInto(into: Amounts, list: Readonly<Amounts>): Amounts {
  for (const [k, v] of Object.entries(list)) if (into[k] === undefined || v > into[k]) into[k] = v;
  return into;
}

function amounts(list: unknown, where: string): Amounts {
  return Object.fromEntries(Object.entries(obj(list)).map(([k, v]) => [k, parseQuantity(v, `${where}.${k}`)]));
}

/** IsSupportedPodLevelResource: cpu, memory and hugepages-*. */
const podLevel = (name: string) => name === 'cpu' || name === 'memory' || name.startsWith('hugepages-');

/**
 * PodRequests from the spec alone (resources.RequestsForSpec; Karpenter's Ceiling also reads the
 * status of a pod being resized in place, which the model leaves out): the containers' requests
 * summed; each init container's, plus the restartable (sidecar) init containers before it,
 * taken as a floor, and sidecars added to the sum; pod-level requests of cpu, memory and
 * hugepages replace the containers'; then the pod's overhead is added.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/resources/resources.go#L111-L126 (Ceiling, RequestsForSpec)
 * @see https://github.com/openshift/microshift/blob/5019821e0eb2f9a74e00e2aab215144336c4b981/deps/github.com/openshift/kubernetes/staging/src/k8s.io/component-helpers/resource/helpers.go#L149-L279 (PodRequests, AggregateContainerRequests; Kubernetes 1.35, as Karpenter's k8s.io/component-helpers v0.35.0)
 */
function specRequests(spec: Json, where: string): Amounts {
  const total: Amounts = {};
  list(spec.containers).map(obj).forEach((c, i) => addInto(total, amounts(obj(c.resources).requests, `${where}.containers[${i}].resources.requests`)));
  const sidecars: Amounts = {};
  const initFloor: Amounts = {};
  list(spec.initContainers).map(obj).forEach((c, i) => {
    const own = amounts(obj(c.resources).requests, `${where}.initContainers[${i}].resources.requests`);
    if (c.restartPolicy === 'Always') {
      addInto(total, own);
      addInto(sidecars, own);
      maxInto(initFloor, sidecars);
    } else {
      maxInto(initFloor, addInto({ ...own }, sidecars));
    }
  });
  maxInto(total, initFloor);
  const pod = amounts(obj(spec.resources).requests, `${where}.resources.requests`);
  if (Object.keys(pod).some(podLevel)) for (const [k, v] of Object.entries(pod)) if (podLevel(k)) total[k] = v;
  return addInto(total, amounts(spec.overhead, `${where}.overhead`));
}

/** RequestsForPods of one pod: its requests and `pods: 1`, written as quantities. @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/resources/resources.go#L29-L38 */
function requestsForPod(spec: Json, where: string): Record<string, string> {
  const total = { ...specRequests(spec, where), pods: NANOS_PER_UNIT };
  return Object.fromEntries(Object.entries(total).map(([k, v]) => [k, formatQuantity(v)]));
}

/**
 * Each container's limits copied into its requests where it requests nothing of that resource:
 * Karpenter's mergeResourceLimitsIntoRequests for PodForDaemonSet, which is what the API server's
 * SetDefaults_Pod does to every pod it stores (and not to pod templates).
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/daemonset/daemonset.go#L36-L60
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/pkg/apis/core/v1/defaults.go#L167-L195 (SetDefaults_Pod)
 */
function limitsIntoRequests(spec: Json): Json {
  const merge = (c: Json): Json => {
    const resources = obj(c.resources);
    if (resources.limits == null) return c;
    return { ...c, resources: { ...resources, requests: { ...obj(resources.limits), ...obj(resources.requests) } } };
  };
  return {
    ...spec,
    ...(spec.containers !== undefined ? { containers: list(spec.containers).map(obj).map(merge) } : {}),
    ...(spec.initContainers !== undefined ? { initContainers: list(spec.initContainers).map(obj).map(merge) } : {}),
  };
}

// ==== DaemonSet pods, as Karpenter's scheduler sees them

/** A DaemonSet's pod as Provisioner.getDaemonSetPods hands it to the scheduler. */
export interface DaemonPod extends ModelPod {
  /** `namespace/name` of the DaemonSet. */
  readonly daemonSet: string;
  /** `namespace/name` of the live pod Karpenter took. @default - none: the pod was made from the template (PodForDaemonSet) */
  readonly livePod?: string;
  readonly requests: Readonly<Record<string, string>>;
}

function namespaceOf(o: Json): string {
  const ns = obj(o.metadata).namespace;
  return typeof ns === 'string' && ns !== '' ? ns : 'default';
}

/**
 * metav1.IsControlledBy: the pod's first ownerReference with `controller: true` carries the
 * owner's UID. Only the UID is compared: not the kind, the apiVersion or the name.
 * @see https://github.com/kubernetes/apimachinery/blob/v0.35.1/pkg/apis/meta/v1/controller_ref.go#L24-L56 (IsControlledBy, GetControllerOfNoCopy)
 */
function isControlledBy(pod: Json, ownerUid: unknown): boolean {
  const ref = list(obj(pod.metadata).ownerReferences).map(obj).find((o) => o.controller === true);
  return ref !== undefined && String(ref.uid ?? '') === String(ownerUid ?? '');
}

/** metadata.creationTimestamp in ms; absent (Go's zero time) is before every time. */
function createdAt(o: Json): number {
  const t = Date.parse(String(obj(o.metadata).creationTimestamp));
  return Number.isNaN(t) ? -Infinity : t;
}

/**
 * What Provisioner.getDaemonSetPods gives the scheduler for each DaemonSet (of every namespace):
 *
 * - the newest pod (by creationTimestamp; of equal ones, the first listed) in the DaemonSet's
 *   namespace that it controls (metav1.IsControlledBy: the controller ownerReference's UID is the
 *   DaemonSet's, whatever its kind or name; a reference with `controller: false` does not count).
 *   Any such pod is taken whoever created it, and whatever its spec says, in place of the
 *   template. Karpenter caches it when the DaemonSet is created and polls again every minute,
 *   and keeps the last one found while the DaemonSet exists; the model reads the pods given as
 *   that poll found them. A live pod is taken as the API server stores it (limits defaulted
 *   into requests, which the model applies to the pods given);
 * - else PodForDaemonSet: the template's spec (no owner references, no tolerations added), each
 *   container's limits merged into its requests;
 * - then, when the template has required node affinity (even with no terms), it replaces the
 *   pod's: the DaemonSet controller's `matchFields metadata.name` term on a live pod stays only
 *   when the template has none (Karpenter reads no matchFields, so such a term asks for nothing).
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/provisioner.go#L534-L559 (getDaemonSetPods)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/state/cluster.go#L657-L686 (GetDaemonSetPod, UpdateDaemonSet)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/state/informer/daemonset.go#L54-L92 (on create, then RequeueAfter one minute)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/daemonset/daemonset.go#L25-L60 (PodForDaemonSet)
 */
export function daemonSetPods(daemonSets: readonly Json[], pods: readonly Json[]): DaemonPod[] {
  return daemonSets.map((ds) => {
    const namespace = namespaceOf(ds);
    const name = String(obj(ds.metadata).name);
    const templateSpec = obj(obj(obj(ds.spec).template).spec);
    let live: Json | undefined;
    for (const p of pods) {
      if (namespaceOf(p) !== namespace || !isControlledBy(p, obj(ds.metadata).uid)) continue;
      if (live === undefined || createdAt(p) > createdAt(live)) live = p;
    }
    let spec = limitsIntoRequests(live === undefined ? templateSpec : obj(live.spec));
    const templateRequired = obj(obj(templateSpec.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution;
    if (templateRequired != null) {
      const affinity = obj(spec.affinity);
      spec = { ...spec, affinity: { ...affinity, nodeAffinity: { ...obj(affinity.nodeAffinity), requiredDuringSchedulingIgnoredDuringExecution: templateRequired } } };
    }
    const livePod = live === undefined ? undefined : `${namespace}/${String(obj(live.metadata).name)}`;
    const pod = { metadata: live === undefined ? { name, namespace } : obj(live.metadata), spec };
    return {
      ...modelPod(pod),
      daemonSet: `${namespace}/${name}`,
      ...(livePod !== undefined ? { livePod } : {}),
      requests: requestsForPod(spec, livePod !== undefined ? `pod ${livePod}` : `DaemonSet ${namespace}/${name}`),
    };
  });
}

// ==== Daemon overhead

/**
 * NodePools in the order Karpenter schedules against them (nodepoolutils.OrderByWeight):
 * heaviest spec.weight first, and of equal weight, names in reverse order.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/nodepool/nodepool.go#L161-L171
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/provisioner.go#L290-L293
 */
export function orderByWeight(nodePools: readonly Json[]): Json[] {
  const weight = (np: Json) => Number(obj(np.spec).weight ?? 0);
  const name = (np: Json) => String(obj(np.metadata).name);
  return [...nodePools].sort((a, b) => weight(b) - weight(a) || (name(a) > name(b) ? -1 : name(a) < name(b) ? 1 : 0));
}

/**
 * The NodePools whose every new node Karpenter sizes for this daemon pod: buildDaemonOverheadGroups
 * adds the requests of each compatible daemon pod to the overhead of the template's instance types,
 * and NewNodeClaim hands that overhead to every NodeClaim of the template, for CanAdd to fit pods
 * around and addDaemonRequests to add to its requests. isDaemonPodCompatible, per template:
 *
 * - a PreferNoSchedule toleration is added (toleratePreferNoScheduleTaints), then every taint of
 *   the template must be tolerated;
 * - NewStrictPodRequirements (the nodeSelector and the first required term's expressions; no
 *   preferred term; matchFields never read) must be Compatible, with AllowUndefinedWellKnownLabels
 *   (the same rule karpenterLaunches uses), with the NodeClaimTemplate's requirements: those of
 *   {@link nodeClaimTemplate} without the new node's placeholder hostname, which only NewNodeClaim
 *   adds; so a daemon asking for kubernetes.io/hostname to exist fits no NodePool;
 * - when it is not, the first required term is dropped while more than one is left, and the
 *   next one is tried.
 *
 * Dropping a term changes the pod itself (removeRequiredNodeAffinityTerm mutates it, and the same
 * pod is checked against every template and instance type of the scheduling run), so a template
 * later in the order starts from the term the earlier ones stopped at. Pass the templates in
 * Karpenter's order ({@link orderByWeight}). The model has no instance types: it takes
 * `it.Requirements.Intersects` to hold (checked for each instance type, it only takes pools away
 * and, failing, drops further terms).
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go#L969-L1004 (buildDaemonOverheadGroups)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go#L1019-L1043 (isDaemonPodCompatible)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go#L172-L178 (daemonOverheadGroups built once per scheduling run)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go#L728-L729 (NewNodeClaim with the template's groups, then CanAdd)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaim.go#L85-L119 (NewNodeClaim: placeholder hostname, overhead groups)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaim.go#L352-L377 (addDaemonRequests)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaim.go#L562-L573 (filterInstanceTypesByRequirements: overhead added to the pods' requests)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/preferences.go#L74-L88 (removeRequiredNodeAffinityTerm)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/preferences.go#L132-L146 (toleratePreferNoScheduleTaints)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/taints.go#L77-L95 (ToleratesPod: every taint)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go#L78-L110 (NewStrictPodRequirements)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go#L172-L197 (AllowUndefinedWellKnownLabels, Compatible)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go#L66-L92 (NewNodeClaimTemplate: no hostname)
 */
export function daemonOverheadPools(daemonPod: ModelPod, templates: readonly NodeClaimTemplate[]): string[] {
  const preferNoSchedule: ModelToleration = { operator: 'Exists', effect: 'PreferNoSchedule' };
  const matchesIt = (t: ModelToleration) => (t.key ?? '') === '' && t.operator === 'Exists' && (t.value ?? '') === '' && t.effect === 'PreferNoSchedule';
  const tolerations = daemonPod.tolerations.some(matchesIt) ? daemonPod.tolerations : [...daemonPod.tolerations, preferNoSchedule];
  let terms = daemonPod.required ?? [];
  const pools: string[] = [];
  for (const template of templates) {
    if (!toleratesAll(template.taints, tolerations, () => true)) continue;
    const nodeClaimTemplate = new Map(template.requirements);
    nodeClaimTemplate.delete(HOSTNAME_LABEL);
    for (;;) {
      const strict = add(new Map(), ...Object.entries(daemonPod.nodeSelector).map(([k, v]) => newRequirement(k, 'In', [v])));
      if (terms.length > 0) add(strict, ...combined(terms[0].matchExpressions ?? []));
      if (compatible(nodeClaimTemplate, strict)) {
        pools.push(template.nodePool);
        break;
      }
      if (terms.length <= 1) break;
      terms = terms.slice(1);
    }
  }
  return pools;
}

// ==== CapacityBuffers (autoscaling.x-k8s.io/v1beta1)

/** A CapacityBuffer's virtual pod, as the provisioner adds it to the pending pods. */
export interface BufferPod extends ModelPod {
  /** `capacity-buffer-<buffer>-<i>`. */
  readonly name: string;
  /** The template's labels. */
  readonly labels: Readonly<Record<string, string>>;
  readonly requests: Readonly<Record<string, string>>;
}

/** The object of that apiVersion test, kind, namespace and name. */
function findObject(objects: readonly Json[], where: { apiVersion: (v: string) => boolean; kind: string; namespace: string; name: unknown }): Json | undefined {
  return objects.find((o) => where.apiVersion(String(o.apiVersion)) && o.kind === where.kind && namespaceOf(o) === where.namespace && obj(o.metadata).name === where.name);
}

/**
 * ResolveCapacityBuffer: podTemplateRef (tried first) names a PodTemplate of the buffer's namespace,
 * whose `.template` is used; scalableRef names, in the same namespace, a Deployment, StatefulSet
 * or ReplicaSet of API group "apps" (an empty apiGroup means "apps"), whose `.spec.template` is
 * used and whose spec.replicas (default 1) percentage reads. Anything else resolves to nothing.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/apps/resolve.go#L39-L50 (ResolvePodTemplateRef)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/apps/resolve.go#L70-L99 (ResolveCapacityBuffer)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/apps/resolve.go#L101-L135 (ResolveScalableRef)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/autoscaling/v1beta1/constants.go#L33-L36 (the kinds)
 */
function resolveBuffer(buffer: Json, objects: readonly Json[]): { template: Json; scalableReplicas?: number } | undefined {
  const spec = obj(buffer.spec);
  const namespace = namespaceOf(buffer);
  if (spec.podTemplateRef != null) {
    const found = findObject(objects, { apiVersion: (v) => v === 'v1', kind: 'PodTemplate', namespace, name: obj(spec.podTemplateRef).name });
    return found && { template: obj(found.template) };
  }
  if (spec.scalableRef == null) return undefined;
  const ref = obj(spec.scalableRef);
  const group = typeof ref.apiGroup === 'string' && ref.apiGroup !== '' ? ref.apiGroup : 'apps';
  if (group !== 'apps' || !['Deployment', 'StatefulSet', 'ReplicaSet'].includes(String(ref.kind))) return undefined;
  const found = findObject(objects, { apiVersion: (v) => v.startsWith('apps/'), kind: String(ref.kind), namespace, name: ref.name });
  return found && { template: obj(obj(found.spec).template), scalableReplicas: Number(obj(found.spec).replicas ?? 1) };
}

const INT32_MAX = 2 ** 31 - 1;

/**
 * The capacitybuffer controller's replica count: the larger of spec.replicas and, for a
 * scalableRef, ceil(its replicas × percentage / 100) (at least 1); then, when spec.limits is set
 * and shares a resource the template requests (RequestsForSpec: no limits merged), bounded by
 * floor(limit / request) of each; with neither replicas nor percentage, that bound alone; 0
 * when nothing sets it.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/capacitybuffer/controller.go#L166-L228 (resolveAndUpdateStatus, computeReplicas)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/capacitybuffer/helpers.go#L27-L68 (calculateLimitReplicas, calculatePercentageReplicas)
 */
function bufferReplicas(buffer: Json, resolved: { template: Json; scalableReplicas?: number }, where: string): number {
  const spec = obj(buffer.spec);
  const candidates: number[] = [];
  if (resolved.scalableReplicas !== undefined && spec.percentage != null && resolved.scalableReplicas > 0) {
    const percentage = Number(spec.percentage);
    const replicas = Math.ceil((resolved.scalableReplicas * percentage) / 100);
    candidates.push(replicas < 1 && percentage > 0 ? 1 : replicas);
  }
  if (spec.replicas != null) candidates.push(Number(spec.replicas));
  const desired = candidates.length > 0 ? Math.max(...candidates) : 0;
  if (spec.limits == null) return desired;
  const requests = specRequests(obj(resolved.template.spec), `${where} template.spec`);
  if (Object.keys(requests).length === 0) return desired;
  const milli = (nanos: bigint) => ceilDiv(nanos, 1_000_000n);
  const bounds = Object.entries(obj(spec.limits))
    .filter(([k]) => requests[k] !== undefined && requests[k] !== 0n)
    .map(([k, v]) => Math.min(Math.floor(Number(milli(parseQuantity(v, `${where} spec.limits.${k}`))) / Number(milli(requests[k]))), INT32_MAX));
  if (bounds.length === 0) return desired;
  return candidates.length > 0 ? Math.min(desired, ...bounds) : Math.min(...bounds);
}

/**
 * The virtual pods Karpenter schedules for a CapacityBuffer (with the CapacityBuffer feature gate
 * on; it is off by default in v1.14.1), once the capacitybuffer controller has resolved it:
 * status.replicas identical pods built from the resolved template (BuildVirtualPods), each with
 * the template's labels and spec, less its nodeName (sanitizeVirtualPodSpec drops it, with PVC
 * and ephemeral volumes) and with no owner references. No limits are merged into their requests:
 * they never pass through the API server. spec.provisioningStrategy is not read: every strategy
 * gets pods. A buffer that resolves to nothing (see resolveBuffer), or to 0 replicas, has none.
 *
 * They are not pending pods: GetPendingPods appends them after the IsProvisionable listing and
 * the Validate filter, so no restricted label, matchFields term, nodeName or karpenter.sh/nodepool
 * DoesNotExist keeps Karpenter from scheduling them; after that they take the same path as pending
 * pods (Solve, relaxation, CanAdd). Use {@link karpenterLaunchesBufferPod}, not karpenterLaunches.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/autoscaling/v1beta1/capacitybuffer.go#L61-L139 (LocalObjectRef, ScalableRef, CapacityBufferSpec)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/state/virtualpods/utilities.go#L52-L63 (isBufferReadyForProvisioning)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/state/virtualpods/utilities.go#L76-L156 (BuildVirtualPods, sanitizeVirtualPodSpec)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/state/virtualpods/virtualpods.go#L51-L113 (UpdateEntry, GetAll)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/provisioner.go#L196-L225 (GetPendingPods: virtual pods appended after Validate)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/operator/options/options.go#L134 (CapacityBuffer=false by default)
 */
export function bufferPods(buffer: Json, objects: readonly Json[]): BufferPod[] {
  const where = `CapacityBuffer ${namespaceOf(buffer)}/${String(obj(buffer.metadata).name)}`;
  const resolved = resolveBuffer(buffer, objects);
  if (resolved === undefined) return [];
  const replicas = bufferReplicas(buffer, resolved, where);
  const { nodeName: _dropped, ...spec } = obj(resolved.template.spec);
  const labels = obj(obj(resolved.template.metadata).labels) as Record<string, string>;
  const requests = requestsForPod(spec, `${where} template.spec`);
  const pod = modelPod({ metadata: { labels }, spec });
  return Array.from({ length: Math.max(replicas, 0) }, (_, i) => ({
    ...pod, name: `capacity-buffer-${String(obj(buffer.metadata).name)}-${i + 1}`, labels, requests,
  }));
}

/**
 * Whether Karpenter would launch a node of this template for a CapacityBuffer's virtual pod:
 * as {@link karpenterLaunches}, without karpenterIgnores (IsProvisionable and Validate never see
 * virtual pods). A restricted label such as karpenter.k8s.aws/ec2nodeclass in its nodeSelector
 * is read as any other label, and a term of only matchFields asks for nothing.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/provisioner.go#L218-L224
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go#L440-L491 (Solve: every pod alike)
 */
export function karpenterLaunchesBufferPod(pod: BufferPod, template: NodeClaimTemplate, allTemplates: readonly NodeClaimTemplate[]): boolean {
  return launchesInSomeState(pod, template, allTemplates);
}
