/**
 * A pod's node selection (nodeSelector and one term of its required node affinity)
 * against what a pool's nodes will be: the checks of Karpenter's NodeClaim.CanAdd, with
 * a reason a person can act on when they fail.
 */
import { distinctLabelValues, InstanceType } from '../catalog/catalog';
import {
  describe, Matcher, UNIFORM_LABELS,
} from '../catalog/match';
import { conflictingKeys, keyOperators, NodeSelectorRequirement, normalizeKey } from '../catalog/requirements';
import type { Taint } from '../model/node-pool';
import type { PoolPlan } from '../model/plan';
import { NODECLASS_LABEL, NODEPOOL_LABEL } from '../model/tenancy';

/**
 * The labels Karpenter lets a pod require although a NodePool does not constrain them
 * (AllowUndefinedWellKnownLabels): the core set, and those the AWS provider adds. A pod
 * requirement on any other label the pool neither sets nor requires cannot be met.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/labels.go (WellKnownLabels)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/v1/labels.go (init: WellKnownLabels.Insert)
 */
export const WELL_KNOWN_LABELS: ReadonlySet<string> = new Set([
  'karpenter.sh/nodepool', 'topology.kubernetes.io/zone', 'topology.kubernetes.io/region', 'node.kubernetes.io/instance-type',
  'kubernetes.io/arch', 'kubernetes.io/os', 'karpenter.sh/capacity-type', 'node.kubernetes.io/windows-build',
  'karpenter.k8s.aws/capacity-reservation-id', 'karpenter.k8s.aws/capacity-reservation-type',
  'karpenter.k8s.aws/capacity-reservation-interruptible', 'karpenter.k8s.aws/instance-hypervisor',
  'karpenter.k8s.aws/instance-encryption-in-transit-supported', 'karpenter.k8s.aws/instance-category',
  'karpenter.k8s.aws/instance-capability-flex', 'karpenter.k8s.aws/instance-family', 'karpenter.k8s.aws/instance-generation',
  'karpenter.k8s.aws/instance-size', 'karpenter.k8s.aws/instance-local-nvme', 'karpenter.k8s.aws/instance-cpu',
  'karpenter.k8s.aws/instance-cpu-manufacturer', 'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz',
  'karpenter.k8s.aws/instance-memory', 'karpenter.k8s.aws/instance-ebs-bandwidth', 'karpenter.k8s.aws/instance-network-bandwidth',
  'karpenter.k8s.aws/instance-gpu-name', 'karpenter.k8s.aws/instance-gpu-manufacturer', 'karpenter.k8s.aws/instance-gpu-count',
  'karpenter.k8s.aws/instance-gpu-memory', 'karpenter.k8s.aws/instance-accelerator-name',
  'karpenter.k8s.aws/instance-accelerator-manufacturer', 'karpenter.k8s.aws/instance-accelerator-count',
  'topology.k8s.aws/zone-id', 'karpenter.k8s.aws/instance-tenancy', 'karpenter.k8s.aws/placement-group-id',
  'karpenter.k8s.aws/placement-group-partition',
]);

const HOSTNAME_LABEL = 'kubernetes.io/hostname';

/** What a node of a pool will be, as Karpenter's NodeClaimTemplate for its NodePool holds it. */
export interface PoolTemplate {
  readonly name: string;
  /** The NodePool's taints (startup taints are not here: Karpenter ignores them). */
  readonly taints: readonly Taint[];
  /** Its labels with their one value, by key. */
  readonly labels: ReadonlyMap<string, string>;
  /** The NodePool's requirements as written. */
  readonly poolRequirements: readonly NodeSelectorRequirement[];
  /** Those, then each label as `In [value]`, then the node's hostname. */
  readonly requirements: readonly NodeSelectorRequirement[];
  /** The instance types the NodePool admits, after the cluster's NodeOverlays (the plan's). */
  readonly admitted: readonly InstanceType[];
  /** Why no pod can ask for one of its nodes by name: a new node's name is not known before it is made, nor are a static pool's nodes'. */
  readonly unnamed: string;
}

/** Templates by pool plan: one per pool of a cluster. */
const templates = new WeakMap<PoolPlan, PoolTemplate>();

/**
 * A pool's NodeClaimTemplate, read from its plan: its NodePool's requirements, its template
 * labels plus `karpenter.sh/nodepool` and the node class label (each an `In` requirement),
 * the `karpenter.sh/registered` and `karpenter.sh/initialized` requirements Karpenter adds
 * for DaemonSet scheduling, and the hostname of a node (a name no pod can know); the types it
 * admits are the plan's, after the cluster's overlays.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go (NewNodeClaimTemplate)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaim.go (NewNodeClaim: the hostname requirement)
 */
export function poolTemplate(pool: PoolPlan): PoolTemplate {
  let template = templates.get(pool);
  if (!template) {
    const model = pool.nodePool;
    const labels = new Map(Object.entries({
      ...model.labels,
      [NODEPOOL_LABEL]: model.name,
      [NODECLASS_LABEL]: pool.nodeClass.name,
      'karpenter.sh/registered': 'true',
      'karpenter.sh/initialized': 'true',
    }));
    const poolRequirements = model.requirements.map((r): NodeSelectorRequirement => ({ ...r }));
    const nodes = pool.facts.nodes;
    template = {
      name: model.name,
      taints: model.taints,
      labels,
      poolRequirements,
      requirements: [
        ...poolRequirements,
        ...[...labels].map(([key, value]): NodeSelectorRequirement => ({ key, operator: 'In', values: [value] })),
        // Not a valid label value, so no pod can ask for it by name.
        { key: HOSTNAME_LABEL, operator: 'In', values: ['<node>'] },
      ],
      admitted: pool.facts.admitted,
      unnamed: nodes === undefined
        ? 'a new node of the pool gets a name of its own'
        : `fit does not know the names of the pool's ${nodes} node${nodes === 1 ? '' : 's'}`,
    };
    templates.set(pool, template);
  }
  return template;
}

/** A requirement of the pod, with how the reason names it (`nodeSelector team=web`, `requires kubernetes.io/arch In [arm64]`). */
export interface PodRequirement {
  readonly requirement: NodeSelectorRequirement;
  readonly text: string;
}

/** The pod's nodeSelector as requirements: one `In [value]` per label. */
export function nodeSelectorRequirements(nodeSelector: Readonly<Record<string, string>>): PodRequirement[] {
  return Object.entries(nodeSelector).map(([key, value]) => ({ requirement: { key, operator: 'In', values: [value] }, text: `nodeSelector ${key}=${value}` }));
}

/** A node affinity term's expressions as requirements. */
export function expressionRequirements(expressions: readonly NodeSelectorRequirement[]): PodRequirement[] {
  return expressions.map((requirement) => ({ requirement, text: `requires ${describe(requirement)}` }));
}

/** What node selection decides: the instance types left, or why there are none. */
export type Selection = { readonly admitted: readonly InstanceType[] } | { readonly reason: string };

/**
 * Whether a pool's new node can satisfy the pod's requirements, and on which instance
 * types, as NodeClaim.CanAdd checks them after the taints:
 *
 * 1. a requirement on a label that is not well known (custom) needs the pool to set or
 *    require that label, unless it is `NotIn` or `DoesNotExist`;
 * 2. on each key both constrain, the pod's and the pool's requirements must share a
 *    value (a label's one value, the pool's requirement values);
 * 3. together they must admit an instance type, matched through the catalog.
 *
 * The reason names the first of the pod's requirements (in the order given) that fails.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaim.go (CanAdd, filterInstanceTypesByRequirements)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go (Compatible, AllowUndefinedWellKnownLabels)
 */
export function selectNodes(pod: readonly PodRequirement[], t: PoolTemplate, matcher: Matcher): Selection {
  const requirements = pod.map((r) => r.requirement);
  const first = (keys: ReadonlySet<string>) => pod.find((r) => keys.has(normalized(r.requirement.key)));
  const poolKeys = keyOperators(t.requirements);
  const undefinedKeys = new Set([...keyOperators(requirements)]
    .filter(([key, op]) => !WELL_KNOWN_LABELS.has(key) && !poolKeys.has(key) && op !== 'NotIn' && op !== 'DoesNotExist')
    .map(([key]) => key));
  const undefinedOne = first(undefinedKeys);
  if (undefinedOne) {
    const key = normalized(undefinedOne.requirement.key);
    return { reason: `${undefinedOne.text}: the pool's nodes have no ${key} label${typoHint(key, [...poolKeys.keys()])}` };
  }
  const conflicting = first(new Set(conflictingKeys(t.requirements, requirements)));
  if (conflicting) return { reason: `${conflicting.text}: ${whatThePoolHas(normalized(conflicting.requirement.key), t, matcher)}` };
  const admitted = admittedWith(t, requirements, matcher);
  if (admitted.length > 0) return { admitted };
  return { reason: noInstanceType(pod, t, matcher) };
}

/**
 * The types the pool admits (the plan's, after overlays) that the pod's requirements admit too:
 * the pod's question, asked of the catalog. Both hold on a type exactly when their intersection
 * does, since on every key both constrain they share a value (conflictingKeys checked it first).
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaim.go (filterInstanceTypesByRequirements)
 */
function admittedWith(t: PoolTemplate, pod: readonly NodeSelectorRequirement[], matcher: Matcher): readonly InstanceType[] {
  if (pod.length === 0) return t.admitted;
  const names = new Set(matcher.match(pod).admitted.map((type) => type.name));
  return t.admitted.filter((type) => names.has(type.name));
}

/** What the pool's nodes have on a key the pod's requirement does not meet. */
function whatThePoolHas(key: string, t: PoolTemplate, matcher: Matcher): string {
  if (key === HOSTNAME_LABEL) return t.unnamed;
  const label = t.labels.get(key);
  if (label !== undefined) return `the pool's nodes have ${key}=${label}`;
  if (matcher.isInstanceTypeLabel(key)) return admittedValues(key, t, 'In');
  const own = t.poolRequirements.filter((r) => normalized(r.key) === key).map(describe);
  return `the pool requires ${own.join(' and ')}`;
}

/** Why the pod's requirements and the pool's admit no instance type together: the first requirement that alone admits none, or the pair that does not. */
function noInstanceType(pod: readonly PodRequirement[], t: PoolTemplate, matcher: Matcher): string {
  const empty = (rs: readonly PodRequirement[]) => admittedWith(t, rs.map((r) => r.requirement), matcher).length === 0;
  const alone = pod.find((r) => empty([r]));
  if (alone) return `${alone.text}: ${admittedValues(normalized(alone.requirement.key), t, alone.requirement.operator)}`;
  const last = pod.findIndex((_, i) => empty(pod.slice(0, i + 1)));
  if (last < 0) return 'the pool admits no instance type';
  const partner = pod.slice(0, last).find((r) => empty([r, pod[last]]));
  if (partner) return `${partner.text} together with ${pod[last].text}: no instance type the pool admits satisfies both`;
  return `${pod.slice(0, last + 1).map((r) => r.text).join(', ')} together: no instance type the pool admits satisfies all of them`;
}

/** What the pool's instance types have on a key, for a requirement with `operator` that none of them meets. */
function admittedValues(key: string, t: PoolTemplate, operator: NodeSelectorRequirement['operator']): string {
  if (operator === 'DoesNotExist') return 'every instance type the pool admits has it';
  const values = UNIFORM_LABELS.get(key) ?? distinctLabelValues(t.admitted, key);
  if (values.length === 0) return 'no instance type the pool admits has it';
  if (values.every((v) => /^[0-9]+$/.test(v))) {
    return values.length === 1
      ? `the pool's instance types have ${key}=${values[0]}`
      : `the pool's instance types have ${key} from ${values[0]} to ${values[values.length - 1]}`;
  }
  if (values.length <= 3) return `the pool admits only ${words(values, 'and')} instance types`;
  return `the pool's instance types have ${key} ${words(values, 'or')}`;
}

/** `a`, `a and b`, `a, b and c`, `a, b, c, d, e or 7 others`. */
function words(values: readonly string[], last: 'and' | 'or'): string {
  if (values.length === 1) return values[0];
  const shown = values.length > 6 ? [...values.slice(0, 5), `${values.length - 5} others`] : values;
  return `${shown.slice(0, -1).join(', ')} ${last} ${shown[shown.length - 1]}`;
}

/**
 * ` (typo of "kubernetes.io/arch"?)` when a well-known or pool label contains the
 * key or ends like it, as Karpenter hints.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go (labelHint)
 */
function typoHint(key: string, poolKeys: readonly string[]): string {
  if (key.length < 3) return '';
  const suffix = key.includes('/') ? key.slice(key.indexOf('/') + 1) : key;
  const hit = [...[...WELL_KNOWN_LABELS].sort(), ...poolKeys].find((k) => k !== key && (k.includes(key) || k.endsWith(suffix)));
  return hit ? ` (typo of "${hit}"?)` : '';
}

function normalized(key: string): string {
  return normalizeKey(key);
}
