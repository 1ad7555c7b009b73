/**
 * What a pool, a team and a cluster can cost per hour at their limits: ceilings at us-east-1
 * on-demand list prices (the catalog's), never forecasts. `explain`, budgets (docs/cost.md),
 * `dist/SUMMARY.md` and the review all read {@link poolCeiling}; nothing else derives a cost.
 */
import { karpenterCatalog, type InstanceType } from '../catalog/catalog';
import { catalogMatcher } from '../catalog/match';
import type { Cluster, Pool } from '../config/platform';
import { Quantity } from '../quantity/quantity';
import { inCatalogUnits } from '../quantity/resource-units';
import { poolPlan } from './plan';

/** The words every ceiling is shown with. */
export const CEILING_BASIS = 'ceiling at us-east-1 on-demand list price';

/** What one pool can cost per hour at its limits. */
export interface PoolCeiling {
  /** The instance types the pool's NodePool admits, in catalog order. */
  readonly admitted: readonly InstanceType[];
  /**
   * USD per hour with its limits reached, at on-demand list prices whatever its capacity types
   * (a spot-only pool's ceiling is still on-demand: the most it can cost), rounded to 1/10000.
   * @default null - no limit bounds every admitted priced type: unbounded
   */
  readonly perHour: number | null;
  /** The limit that gives {@link PoolCeiling.perHour} (`cpu: 100`). @default - none */
  readonly boundBy?: string;
}

/**
 * The most pool `pool` of `cluster` can cost per hour with its limits reached: for each limit
 * whose resource every admitted type has, the limit times the highest price per unit among
 * them; the smallest of those bounds.
 * @see https://karpenter.sh/docs/concepts/nodepools/#speclimits
 */
export function poolCeiling(cluster: Cluster, pool: Pool): PoolCeiling {
  // The requirements its NodePool is written with: the plan's, as synth renders them.
  const admitted = catalogMatcher().match(poolPlan(cluster, pool).nodePool.requirements).admitted;
  const bound = costBound(pool, admitted);
  return { admitted, perHour: bound ? round(bound.cost) : null, ...(bound ? { boundBy: bound.by } : {}) };
}

/** The region of the catalog's list prices. */
export function pricingRegion(): string {
  return karpenterCatalog().pricingRegion;
}

/**
 * The capacity Karpenter counts against a limit, per node of a type, in the catalog's unit
 * of the resource (limits apply to node capacity, not allocatable): cpu in millicores from
 * the vCPUs, memory in MiB from the memory size, GPUs and accelerators counted, one per
 * node for `nodes`; anything else (pods, ephemeral-storage, hugepages) the catalog's
 * allocatable, which is at most the capacity, so the bound stays an upper bound.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go (filterByRemainingResources)
 */
function capacity(type: InstanceType, resource: string): number | undefined {
  const label = (key: string) => Number(type.labels.get(key) ?? 0);
  switch (resource) {
    case 'cpu': return label('karpenter.k8s.aws/instance-cpu') * 1000;
    case 'memory': return label('karpenter.k8s.aws/instance-memory');
    case 'nodes': return 1;
    case 'nvidia.com/gpu':
    case 'amd.com/gpu': return label('karpenter.k8s.aws/instance-gpu-count');
    case 'aws.amazon.com/neuron': return label('karpenter.k8s.aws/instance-accelerator-count');
    default: return type.allocatable.get(resource);
  }
}

/**
 * The tightest cost bound the limits give. Nodes of the pool together stay within every limit,
 * so for a limit L on a resource every admitted type has, their total price is at most
 * L × the highest price per unit of it among the admitted types. The limit and the capacity
 * are both in the catalog's unit of the resource (a limit of `100Gi` ephemeral-storage is
 * 102400 MiB, against a node's MiB).
 */
function costBound(pool: Pool, admitted: readonly InstanceType[]): { cost: number; by: string } | undefined {
  const priced = admitted.filter((t) => t.price !== undefined);
  if (priced.length === 0) return undefined;
  let best: { cost: number; by: string } | undefined;
  for (const [resource, limit] of Object.entries(pool.settings.limits ?? {})) {
    const amount = inCatalogUnits(resource, Quantity.of(limit), 'exact');
    const perUnit = priced.map((t) => {
      const cap = capacity(t, resource);
      return cap ? (t.price ?? 0) / cap : Infinity;
    });
    if (perUnit.some((p) => !Number.isFinite(p))) continue;
    const cost = amount * Math.max(...perUnit);
    if (!best || cost < best.cost) best = { cost, by: `${resource}: ${limit}` };
  }
  return best;
}

function round(n: number): number {
  return Math.round(n * 10000) / 10000;
}
