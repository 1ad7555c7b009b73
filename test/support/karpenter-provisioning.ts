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
function requiredAffinityMatches(pod: ModelPod, node: ModelNode, names: NodeNames): boolean {
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
