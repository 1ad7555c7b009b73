/**
 * Whether a pod's requests fit a node of a pool: the allocatable of the instance types
 * its node selection left, within the pool's limits, and the pool's minValues.
 */
import type { InstanceType } from '../catalog/catalog';
import { fits, largestAllocatable, Matcher, ResourceAmounts, UNIFORM_LABELS } from '../catalog/match';
import { normalizeKey } from '../catalog/requirements';
import type { Cluster } from '../config/platform';
import type { NodePoolModel } from '../model/node-pool';
import { Quantity } from '../quantity/quantity';
import { formatAmount, inCatalogUnits } from '../quantity/resource-units';
import { parseGoFloat } from '../release/go-values';
import { SETTINGS_RULES } from '../release/settings-rules.generated';

/**
 * The release's default of the controller setting vmMemoryOverheadPercent (0.075 in
 * 1.14.1), read from its settings rules so that it follows an upgrade.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/operator/options/options.go (VM_MEMORY_OVERHEAD_PERCENT)
 */
export const VM_MEMORY_OVERHEAD_DEFAULT = Number(SETTINGS_RULES.vmMemoryOverheadPercent.controllerDefault);

/** What bounds a pool's nodes besides its requirements. */
export interface PoolBounds {
  /** The pool's limits in the catalog's units (`nodes` left out). */
  readonly limits: ResourceAmounts;
  /** `cpu=10, memory=40Gi`, as the config writes them. */
  readonly limitsText: string;
  /** Whether its limits allow no node at all (`nodes: 0`). */
  readonly noNodes: boolean;
  /** The controller's vmMemoryOverheadPercent, by which an instance's memory capacity is smaller than its size. */
  readonly vmMemoryOverhead: number;
  /** The largest minValues per instance-type label, enforced unless the controller's minValuesPolicy is BestEffort. */
  readonly minValues: ReadonlyMap<string, number>;
}

/**
 * The bounds of a pool of a cluster, read from its planned NodePool (the limits and minValues
 * Karpenter sees: a static pool's NodePool carries only `limits.nodes`) and the cluster's
 * controller settings.
 */
export function poolBounds(nodePool: NodePoolModel, cluster: Cluster, matcher: Matcher): PoolBounds {
  const limits: Record<string, number> = {};
  for (const [resource, value] of Object.entries(nodePool.limits ?? {})) {
    // A limit rounds down: a node over it by a fraction of a unit is still over it.
    if (resource !== 'nodes') limits[resource] = inCatalogUnits(resource, Quantity.of(value), 'down');
  }
  const nodes = nodePool.limits?.nodes;
  const settings = cluster.karpenter.controller.settings;
  // The loader let only what Go's ParseFloat reads through.
  const configured = settings.vmMemoryOverheadPercent;
  const overhead = configured === undefined ? VM_MEMORY_OVERHEAD_DEFAULT : Number(parseGoFloat(String(configured)));
  const minValues = new Map<string, number>();
  if (settings.minValuesPolicy !== 'BestEffort') {
    for (const r of nodePool.requirements) {
      const key = normalizeKey(r.key);
      if (r.minValues !== undefined && matcher.isInstanceTypeLabel(key)) minValues.set(key, Math.max(minValues.get(key) ?? 0, r.minValues));
    }
  }
  return {
    limits,
    limitsText: Object.entries(nodePool.limits ?? {}).map(([k, v]) => `${k}=${v}`).join(', '),
    noNodes: nodes !== undefined && Quantity.of(nodes).nanos === 0n,
    vmMemoryOverhead: overhead,
    minValues,
  };
}

/**
 * Why the pool can never launch a node for any pod, or undefined: its limits allow no
 * node, or every instance type it admits is larger than its limits. Karpenter checks
 * this before anything about the pod.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go (addToNewNodeClaim, filterByRemainingResources)
 */
export function poolLimitReason(admitted: readonly InstanceType[], b: PoolBounds): string | undefined {
  if (b.noNodes) return `the pool can launch no node: its limits allow none (${b.limitsText})`;
  if (!admitted.some((t) => withinLimits(t, b))) return `the pool can launch no node: every instance type it admits is larger than its limits (${b.limitsText})`;
  return undefined;
}

/**
 * Why the pod's requests fit no node of the pool, or undefined when one does:
 *
 * 1. only instance types whose capacity is within the pool's limits can launch
 *    (an empty pool: all of its limits left);
 * 2. a type fits when its allocatable holds every request (a resource it lacks has 0);
 * 3. the types that fit must give every minValues of the pool enough distinct values
 *    (unless the controller's minValuesPolicy is BestEffort).
 *
 * DaemonSet overhead and offerings (zones, capacity reservations) are not known here.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaim.go (filterInstanceTypesByRequirements, fits)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/resources/resources.go (Fits)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/cloudprovider/types.go (SatisfiesMinValues)
 */
export function resourceReason(admitted: readonly InstanceType[], requests: ResourceAmounts, b: PoolBounds): string | undefined {
  const eligible = admitted.filter((t) => withinLimits(t, b));
  if (eligible.length === 0) return `every instance type the pool admits for it is larger than the pool's limits (${b.limitsText})`;
  const fitting = typesThatHold(admitted, requests, b);
  if (fitting.length === 0) return tooLarge(requests, admitted, eligible, b.limitsText);
  for (const [key, minValues] of b.minValues) {
    const values = [...new Set(fitting.flatMap((t) => UNIFORM_LABELS.get(key) ?? (t.labels.has(key) ? [t.labels.get(key) as string] : [])))];
    if (values.length < minValues) {
      const shown = values.length > 0 ? ` (${values.slice(0, 5).join(', ')}${values.length > 5 ? ', …' : ''})` : '';
      return `the ${fitting.length} instance type(s) that can hold it have ${values.length} distinct ${key} value(s)${shown}, `
        + `fewer than the pool's minValues ${minValues}`;
    }
  }
  return undefined;
}

/** The instance types, of those given, within the pool's limits whose allocatable holds the requests. */
export function typesThatHold(admitted: readonly InstanceType[], requests: ResourceAmounts, b: PoolBounds): InstanceType[] {
  return admitted.filter((t) => withinLimits(t, b) && fits(t, requests));
}

/**
 * The request no type can hold: one that no instance type the pool admits has at all,
 * else the first larger than the largest the pool can launch (saying "within its
 * limits" when a type beyond them has more), else the requests together.
 */
function tooLarge(requests: ResourceAmounts, admitted: readonly InstanceType[], eligible: readonly InstanceType[], limitsText: string): string {
  const all = largestAllocatable(admitted);
  const largest = largestAllocatable(eligible);
  const asked = ordered(requests).filter(([, amount]) => amount > 0);
  const lacking = asked.find(([resource]) => !all.has(resource));
  if (lacking) return `requests ${formatAmount(lacking[0], lacking[1])} ${lacking[0]}: no instance type the pool admits has ${lacking[0]}`;
  const over = asked.find(([resource, amount]) => amount > (largest.get(resource)?.amount ?? 0));
  if (over) {
    const [resource, amount] = over;
    const most = largest.get(resource);
    const within = (all.get(resource)?.amount ?? 0) > (most?.amount ?? 0) ? ` within its limits (${limitsText})` : '';
    return most
      ? `requests ${formatAmount(resource, amount)} ${resource}: the largest the pool can offer${within} is ${formatAmount(resource, most.amount, 'down')} (${most.type})`
      : `requests ${formatAmount(resource, amount)} ${resource}: no instance type the pool can launch${within} has ${resource}`;
  }
  const together = asked.filter(([r]) => r !== 'pods').map(([r, a]) => `${formatAmount(r, a)} ${r}`).join(', ');
  const limited = eligible.length < admitted.length ? ` within its limits (${limitsText})` : '';
  return `requests ${together}: no instance type the pool admits${limited} has all of that at once`;
}

/** cpu, memory and ephemeral-storage first, pods last, the rest as given. */
function ordered(requests: ResourceAmounts): [string, number][] {
  const rank = (r: string) => (r === 'cpu' ? 0 : r === 'memory' ? 1 : r === 'ephemeral-storage' ? 2 : r === 'pods' ? 4 : 3);
  return Object.entries(requests).sort(([a], [b]) => rank(a) - rank(b));
}

/**
 * Whether an instance type's capacity is within every limit of the pool. Capacity is
 * the vCPUs; the memory size less 64 MiB on Graviton and less the VM overhead
 * (vmMemoryOverheadPercent); for other resources the allocatable (the same for
 * devices and pods; for ephemeral-storage a lower bound).
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go (filterByRemainingResources)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/instancetype/types.go (computeCapacity, cpu, memory)
 */
function withinLimits(t: InstanceType, b: PoolBounds): boolean {
  return Object.entries(b.limits).every(([resource, limit]) => capacity(t, resource, b.vmMemoryOverhead) <= limit);
}

function capacity(t: InstanceType, resource: string, vmMemoryOverhead: number): number {
  const cpus = t.labels.get('karpenter.k8s.aws/instance-cpu');
  const mib = t.labels.get('karpenter.k8s.aws/instance-memory');
  if (resource === 'cpu' && cpus !== undefined) return Number(cpus) * 1000;
  if (resource === 'memory' && mib !== undefined) {
    const size = Number(mib) - (t.labels.get('kubernetes.io/arch') === 'arm64' ? 64 : 0);
    return size - Math.ceil(size * vmMemoryOverhead);
  }
  return t.allocatable.get(resource) ?? 0;
}
