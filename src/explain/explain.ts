import { karpenterCatalog, type InstanceType } from '../catalog/catalog';
import { priceRange } from '../catalog/match';
import { catalogMatcher, type Matcher } from '../catalog/match';
import { applyOverlays } from '../catalog/overlays';
import type { CapacityBufferSpec, Cluster, Platform, Pool } from '../config/platform';
import type { FieldProvenance } from '../config/platform';
import { poolPlan } from '../model/plan';
import { Quantity } from '../quantity/quantity';
import { inCatalogUnits } from '../quantity/resource-units';

/** The admitted instance types of one family, with the smallest and largest size. */
export interface FamilySizes {
  readonly family: string;
  readonly count: number;
  /** The smallest and largest size, by vCPUs (`large`, `48xlarge`). */
  readonly sizes: readonly [string, string];
}

/** What `npm run explain` says about one pool (contract section 5.3). */
export interface PoolExplanation {
  readonly cluster: string;
  readonly pool: string;
  readonly team: string;
  readonly fields: readonly FieldProvenance[];
  /** The instance types the pool admits, in catalog order. */
  readonly instanceTypes: readonly string[];
  readonly families: readonly FamilySizes[];
  /** The admitted types' on-demand list prices per hour. @default null - none is priced */
  readonly onDemandPricePerHour: { readonly min: number; readonly max: number; readonly region: string } | null;
  /**
   * The most the pool can cost per hour with its limits reached: for each limit whose resource
   * every admitted type has, the limit times the highest price per unit among them; the
   * smallest of those bounds. @default null - no limit bounds it
   */
  readonly maxCostPerHour: number | null;
  /** The limit that gives {@link PoolExplanation.maxCostPerHour}. @default - none */
  readonly boundBy?: string;
  /** Admitted types without a list price, left out of the prices and the bound. */
  readonly unpricedTypes: number;
}

/**
 * Explains pool `poolName` of cluster `clusterId` of a platform loaded with provenance.
 * @returns the explanation, or a message naming the pools there are when there is no such pool
 */
export function explainPool(platform: Platform, clusterId: string, poolName: string): PoolExplanation | string {
  const cluster = platform.clusters.find((c) => c.id === clusterId);
  if (!cluster) return `no cluster "${clusterId}" (clusters: ${platform.clusters.map((c) => c.id).join(', ')})`;
  const pool = cluster.pools.find((p) => p.name === poolName);
  if (!pool) return `cluster ${clusterId} has no pool "${poolName}" (pools: ${cluster.pools.map((p) => p.name).join(', ')})`;
  const admitted = admittedTypes(cluster, pool);
  const prices = priceRange(admitted);
  const bound = maxCostPerHour(cluster, pool);
  return {
    cluster: cluster.id,
    pool: pool.name,
    team: pool.team,
    fields: pool.provenance ?? [],
    instanceTypes: admitted.map((t) => t.name),
    families: families(admitted),
    onDemandPricePerHour: prices ? { min: prices.min, max: prices.max, region: karpenterCatalog().pricingRegion } : null,
    maxCostPerHour: bound ? round(bound.cost) : null,
    ...(bound ? { boundBy: bound.by } : {}),
    unpricedTypes: admitted.length - admitted.filter((t) => t.price !== undefined).length,
  };
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
 * The instance types a pool admits, as Karpenter sees them on its cluster: matched with the
 * requirements its NodePool is written with (the plan's, as synth renders them), then with the
 * cluster's NodeOverlays applied (prices replaced or adjusted, extended resources added).
 * @see https://karpenter.sh/docs/concepts/nodeoverlays/
 */
export function admittedTypes(cluster: Cluster, pool: Pool, matcher: Matcher = catalogMatcher()): InstanceType[] {
  const admitted = matcher.match(poolPlan(cluster, pool).nodePool.requirements).admitted;
  return applyOverlays(admitted, cluster.overlays, matcher);
}

/**
 * The most pool `pool` of `cluster` can cost per hour, on demand, with its limits reached: the
 * figure `explain` prints as "at most per hour" and the one team budgets sum. Pure: a function
 * of the cluster (its overlays), the pool and the catalog.
 * - a static pool (replicas): its replicas (at most limits.nodes) at the dearest admitted type;
 * - a dynamic pool: the tightest bound its limits give (see costBound);
 * both after the cluster's overlays, plus what a team's buffer on the pool is worth (see bufferCost).
 * @returns the cost and what bounds it, or undefined when nothing bounds it (or no admitted type has a price)
 * @see https://karpenter.sh/docs/concepts/nodepools/#specreplicas
 */
export function maxCostPerHour(cluster: Cluster, pool: Pool, matcher: Matcher = catalogMatcher()): { cost: number; by: string } | undefined {
  const admitted = admittedTypes(cluster, pool, matcher);
  const replicas = pool.settings.replicas;
  let bound: { cost: number; by: string } | undefined;
  if (replicas !== undefined) {
    const prices = priceRange(admitted);
    if (!prices) return undefined;
    const nodesLimit = pool.settings.limits?.nodes;
    const nodes = nodesLimit !== undefined ? Math.min(replicas, Number(nodesLimit)) : replicas;
    bound = { cost: nodes * prices.max, by: `replicas: ${replicas} at ${prices.maxType}` };
  } else {
    bound = costBound(pool, admitted);
  }
  const buffer = cluster.buffers.find((b) => b.pool === pool.name);
  if (!bound || !buffer) return bound;
  const extra = bufferCost(buffer, admitted);
  return extra === undefined ? bound : { cost: bound.cost + extra, by: `${bound.by}, plus buffer ${buffer.replicas} × (cpu ${buffer.cpu}, memory ${buffer.memory})` };
}

/**
 * What a buffer's placeholder pods are worth per hour on the pool: for cpu and for memory, the
 * pods' total request times the highest price per unit among the admitted types; the larger of the two.
 * Added on top of the pool's bound (contract 6.4: a buffer's cost is added to its pool).
 */
function bufferCost(buffer: CapacityBufferSpec, admitted: readonly InstanceType[]): number | undefined {
  const priced = admitted.filter((t) => t.price !== undefined);
  if (priced.length === 0) return undefined;
  const worth = (resource: string, request: string) => {
    const amount = buffer.replicas * inCatalogUnits(resource, Quantity.of(request), 'exact');
    const perUnit = Math.max(...priced.map((t) => {
      const cap = capacity(t, resource);
      return cap ? (t.price ?? 0) / cap : 0;
    }));
    return amount * perUnit;
  };
  return Math.max(worth('cpu', buffer.cpu), worth('memory', buffer.memory));
}

/**
 * The tightest cost bound the limits give. Nodes of the pool together stay within every limit,
 * so for a limit L on a resource every admitted type has, their total price is at most
 * L × the highest price per unit of it among the admitted types. The limit and the capacity
 * are both in the catalog's unit of the resource (a limit of `100Gi` ephemeral-storage is
 * 102400 MiB, against a node's MiB).
 * @see https://karpenter.sh/docs/concepts/nodepools/#speclimits
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

function families(admitted: readonly InstanceType[]): FamilySizes[] {
  const byFamily = new Map<string, InstanceType[]>();
  for (const t of admitted) {
    const family = t.labels.get('karpenter.k8s.aws/instance-family') ?? t.name.split('.')[0];
    byFamily.set(family, [...(byFamily.get(family) ?? []), t]);
  }
  return [...byFamily].map(([family, types]) => {
    const bySize = [...types].sort((a, b) => Number(a.labels.get('karpenter.k8s.aws/instance-cpu')) - Number(b.labels.get('karpenter.k8s.aws/instance-cpu')));
    const size = (t: InstanceType) => t.labels.get('karpenter.k8s.aws/instance-size') ?? t.name.split('.')[1];
    return { family, count: types.length, sizes: [size(bySize[0]), size(bySize[bySize.length - 1])] as const };
  });
}

function round(n: number): number {
  return Math.round(n * 10000) / 10000;
}

/** The explanation for a terminal. */
export function renderExplanation(e: PoolExplanation): string {
  const lines = [`pool ${e.pool} of cluster ${e.cluster} (team ${e.team})`, '', 'fields (value, the level that set it, where):'];
  // Karpenter reads budget schedules in UTC: say so wherever one is shown.
  const rows = e.fields.map((f) => [f.path, `${JSON.stringify(f.value)}${/schedule/.test(f.path) || /"schedule"/.test(JSON.stringify(f.value) ?? '') ? ' (UTC)' : ''}`, f.from, f.at ?? '']);
  const widths = [0, 1, 2].map((i) => Math.min(60, Math.max(...rows.map((r) => r[i].length))));
  for (const r of rows) lines.push(`  ${r.map((c, i) => (i < 3 ? c.padEnd(widths[i]) : c)).join('  ').trimEnd()}`);
  lines.push('', `instance types: ${e.instanceTypes.length} admitted${e.instanceTypes.length ? ', by family (smallest to largest size):' : ''}`);
  for (const f of e.families) lines.push(`  ${f.family}: ${f.sizes[0] === f.sizes[1] ? f.sizes[0] : `${f.sizes[0]} to ${f.sizes[1]}`} (${f.count})`);
  const p = e.onDemandPricePerHour;
  lines.push('', p ? `on-demand price (${p.region} list prices): $${p.min.toFixed(4)} to $${p.max.toFixed(4)} per node-hour` : 'on-demand price: unknown');
  if (e.unpricedTypes > 0) lines.push(`  (${e.unpricedTypes} admitted type(s) have no list price and are left out of the prices)`);
  lines.push(e.maxCostPerHour === null
    ? 'at most per hour: unbounded (no limit bounds every admitted type: set limits on cpu or memory)'
    : `at most per hour, with its limits reached: $${e.maxCostPerHour.toFixed(2)} on demand (bound by ${e.boundBy})`);
  return `${lines.join('\n')}\n`;
}
