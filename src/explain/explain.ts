import { karpenterCatalog, type InstanceType } from '../catalog/catalog';
import type { Platform } from '../config/platform';
import type { FieldProvenance } from '../config/platform';
import { suggest } from '../input/issues';
import { describeClusters, someNames } from '../model/cluster-sets';
import { CEILING_BASIS } from '../model/cost';
import { FleetPlan, fleetPlan } from '../model/plan';

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
   * The most the pool can cost per hour with its limits reached, at on-demand list prices
   * (the plan's ceiling, model/cost.ts poolCeiling). @default null - no limit bounds it
   */
  readonly maxCostPerHour: number | null;
  /** The limit that gives {@link PoolExplanation.maxCostPerHour}. @default - none */
  readonly boundBy?: string;
  /** Admitted types without a list price, left out of the prices and the bound. */
  readonly unpricedTypes: number;
}

/**
 * Explains pool `poolName` of cluster `clusterId` of a platform loaded with provenance, from
 * the fleet's plan (its admitted types, prices and ceiling are the plan's: what SUMMARY and
 * budgets show).
 * @param plan the platform's plan. @default - planned here
 * @returns the explanation, or a message naming the pools there are when there is no such pool
 */
export function explainPool(platform: Platform, clusterId: string, poolName: string, plan: FleetPlan = fleetPlan(platform)): PoolExplanation | string {
  const i = platform.clusters.findIndex((c) => c.id === clusterId);
  if (i < 0) {
    const ids = platform.clusters.map((c) => c.id);
    const near = suggest(clusterId, ids);
    return `no cluster "${clusterId}" (${near !== undefined ? `did you mean "${near}"?` : `clusters: ${someNames(ids, 10)}`})`;
  }
  const cluster = platform.clusters[i];
  const j = cluster.pools.findIndex((p) => p.name === poolName);
  if (j < 0) return `cluster ${clusterId} has no pool "${poolName}" (pools: ${cluster.pools.map((p) => p.name).join(', ')})`;
  const pool = cluster.pools[j];
  const { admitted, prices, ceiling } = plan.clusters[i].pools[j].facts;
  return {
    cluster: cluster.id,
    pool: pool.name,
    team: pool.team,
    fields: pool.provenance ?? [],
    instanceTypes: admitted.map((t) => t.name),
    families: families(admitted),
    onDemandPricePerHour: prices ? { min: prices.min, max: prices.max, region: karpenterCatalog().pricingRegion } : null,
    maxCostPerHour: ceiling.perHour,
    ...(ceiling.boundBy !== undefined ? { boundBy: ceiling.boundBy } : {}),
    unpricedTypes: admitted.length - admitted.filter((t) => t.price !== undefined).length,
  };
}

/** One explanation that holds for several clusters: every field, type, price and bound the same (contract 8.2). */
export interface SharedExplanation extends PoolExplanation {
  /** The clusters it holds for, in the platform's order; {@link PoolExplanation.cluster} is the first. */
  readonly clusters: readonly string[];
}

/**
 * Explains pool `poolName` on each of the clusters `clusterIds` that has it, clusters whose
 * explanations are the same (all but the cluster's id: the same fields from the same levels and
 * lines, types, prices and bound) explained once: at 80 clusters of one group, usually one
 * explanation.
 * @returns the explanations, the largest set of clusters first; or a message when none of
 * the clusters has such a pool, with the closest pool name they have
 */
export function explainPools(platform: Platform, poolName: string, clusterIds: readonly string[], plan: FleetPlan = fleetPlan(platform)): SharedExplanation[] | string {
  const byContent = new Map<string, { explanation: PoolExplanation; clusters: string[] }>();
  const chosen = platform.clusters.filter((c) => clusterIds.includes(c.id));
  for (const cluster of chosen.filter((c) => c.pools.some((p) => p.name === poolName))) {
    const e = explainPool(platform, cluster.id, poolName, plan) as PoolExplanation;
    const key = JSON.stringify({ ...e, cluster: '' });
    const known = byContent.get(key);
    if (known) known.clusters.push(cluster.id);
    else byContent.set(key, { explanation: e, clusters: [cluster.id] });
  }
  if (byContent.size === 0) {
    const pools = [...new Set(chosen.flatMap((c) => c.pools.map((p) => p.name)))];
    const near = suggest(poolName, pools);
    return `no pool "${poolName}" on ${describeClusters(clusterIds, platform.clusters)} (${near !== undefined ? `did you mean "${near}"?` : `pools: ${someNames(pools, 10)}`})`;
  }
  return [...byContent.values()].sort((a, b) => b.clusters.length - a.clusters.length).map(({ explanation, clusters }) => ({ ...explanation, clusters }));
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

/**
 * The explanation for a terminal.
 * @param where the clusters it holds for, in words (`group prod (80 clusters)`). @default - `cluster <its cluster>`
 */
export function renderExplanation(e: PoolExplanation, where = `cluster ${e.cluster}`): string {
  const lines = [`pool ${e.pool} of ${where} (team ${e.team})`, '', 'fields (value, the level that set it, where):'];
  // Karpenter reads budget schedules in UTC: say so wherever one is shown.
  const rows = e.fields.map((f) => [f.path, `${JSON.stringify(f.value)}${/schedule/.test(f.path) || /"schedule"/.test(JSON.stringify(f.value) ?? '') ? ' (UTC)' : ''}`, f.from, f.at ?? '']);
  const widths = [0, 1, 2].map((i) => Math.min(60, Math.max(...rows.map((r) => r[i].length))));
  for (const r of rows) lines.push(`  ${r.map((c, i) => (i < 3 ? c.padEnd(widths[i]) : c)).join('  ').trimEnd()}`);
  lines.push('', `instance types: ${e.instanceTypes.length} admitted${e.instanceTypes.length ? ', by family (smallest to largest size):' : ''}`);
  for (const f of e.families) lines.push(`  ${f.family}: ${f.sizes[0] === f.sizes[1] ? f.sizes[0] : `${f.sizes[0]} to ${f.sizes[1]}`} (${f.count})`);
  const p = e.onDemandPricePerHour;
  lines.push('', p ? `on-demand price (${p.region} list prices after NodeOverlays): $${p.min.toFixed(4)} to $${p.max.toFixed(4)} per node-hour` : 'on-demand price: unknown');
  if (e.unpricedTypes > 0) lines.push(`  (${e.unpricedTypes} admitted type(s) have no list price and are left out of the prices)`);
  lines.push(e.maxCostPerHour === null
    ? 'at most per hour: unbounded (no limit bounds every admitted type: set limits on cpu or memory)'
    : `at most per hour, with its limits reached: $${e.maxCostPerHour.toFixed(2)} on demand (bound by ${e.boundBy}; ${CEILING_BASIS}, not a forecast)`);
  return `${lines.join('\n')}\n`;
}
