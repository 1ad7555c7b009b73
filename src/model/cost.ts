/**
 * What a pool, a team and a cluster can cost per hour at their limits: ceilings at us-east-1
 * on-demand list prices (the catalog's), never forecasts. The plan computes each pool's ceiling
 * once ({@link poolCeiling}, model/plan.ts) from the instance types it admits after overlays;
 * `explain`, budgets (docs/cost.md), `dist/SUMMARY.md`, `dist/summary.json` and the review read
 * that figure. The functions here are pure: they take what they sum.
 */
import type { InstanceType } from '../catalog/catalog';
import { priceRange } from '../catalog/match';
import type { CapacityBufferSpec, Cluster, Pool, TeamBudget } from '../config/platform';
import { Quantity } from '../quantity/quantity';
import { inCatalogUnits } from '../quantity/resource-units';

/** The words every ceiling is shown with. */
export const CEILING_BASIS = 'ceiling at us-east-1 on-demand list price after NodeOverlays';

/** What bounds a pool's ceiling: a limit (`cpu`, `memory`, `nodes`, …), or a static pool's replicas. */
export type CeilingBound = { readonly kind: 'limit'; readonly resource: string; readonly limit: string } | { readonly kind: 'replicas'; readonly replicas: number; readonly nodes: number; readonly type: string };

/** What one pool can cost per hour at its limits. */
export interface PoolCeiling {
  /**
   * USD per hour with its limits reached, at on-demand list prices whatever its capacity types
   * (a spot-only pool's ceiling is still on-demand: the most it can cost), rounded to 1/10000.
   * @default null - no limit bounds every admitted priced type: unbounded
   */
  readonly perHour: number | null;
  /** What gives {@link PoolCeiling.perHour}, in words (`cpu: 100`, `replicas: 4 at m7i.xlarge, plus buffer …`). @default - none */
  readonly boundBy?: string;
  /** What gives it, as data. @default - none: unbounded */
  readonly bound?: CeilingBound;
  /** What a buffer on the pool adds per hour (included in perHour). @default - none */
  readonly buffer?: { readonly replicas: number; readonly cpu: string; readonly memory: string; readonly perHour: number };
}

/**
 * How many nodes a static pool keeps: its replicas, at most its `limits.nodes` (Karpenter creates
 * none past the limit). Undefined for a dynamic pool.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/static/provisioning/controller.go (Reconcile: ReserveNodeCount up to limits.nodes)
 */
export function staticNodes(pool: Pool): number | undefined {
  const replicas = pool.settings.replicas;
  if (replicas === undefined) return undefined;
  const nodesLimit = pool.settings.limits?.nodes;
  return nodesLimit !== undefined ? Math.min(replicas, Number(nodesLimit)) : replicas;
}

/**
 * The most pool `pool` of `cluster` can cost per hour, on demand, with its limits reached,
 * given the instance types it admits after the cluster's overlays and, for a static pool, the
 * nodes it keeps (both the plan's): a static pool at those nodes × the dearest admitted type; a
 * dynamic pool at the tightest bound its limits give (see costBound); plus what a team's buffer
 * on the pool is worth (see bufferCost). Rounded to 1/10000.
 * @param nodes a static pool's node count (see staticNodes). @default - a dynamic pool
 * @see https://karpenter.sh/docs/concepts/nodepools/#speclimits
 */
export function poolCeiling(cluster: Cluster, pool: Pool, admitted: readonly InstanceType[], nodes?: number): PoolCeiling {
  const replicas = pool.settings.replicas;
  let bound: CostBound | undefined;
  if (replicas !== undefined && nodes !== undefined) {
    const prices = priceRange(admitted);
    if (prices) {
      bound = { cost: nodes * prices.max, by: `replicas: ${replicas} at ${prices.maxType}`, bound: { kind: 'replicas', replicas, nodes, type: prices.maxType } };
    }
  } else {
    bound = costBound(pool, admitted);
  }
  if (!bound) return { perHour: null };
  const spec = cluster.buffers.find((b) => b.pool === pool.name);
  const extra = spec ? bufferCost(spec, admitted) : undefined;
  if (!spec || extra === undefined) return { perHour: round(bound.cost), boundBy: bound.by, bound: bound.bound };
  return {
    perHour: round(bound.cost + extra),
    boundBy: `${bound.by}, plus buffer ${spec.replicas} × (cpu ${spec.cpu}, memory ${spec.memory})`,
    bound: bound.bound,
    buffer: { replicas: spec.replicas, cpu: spec.cpu, memory: spec.memory, perHour: round(extra) },
  };
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

/** One pool's ceiling in one cluster. */
export interface PoolCost {
  readonly cluster: string;
  readonly pool: string;
  readonly team: string;
  /** USD per hour at its limits. @default null - unbounded (no limit bounds it) */
  readonly perHour: number | null;
}

/** A team's ceiling: per cluster (the clusters it has pools in, in platform order) and in total. */
export interface TeamCeiling {
  readonly team: string;
  readonly pools: readonly PoolCost[];
  /** USD per hour per cluster id; null when a pool there is unbounded. */
  readonly perCluster: ReadonlyMap<string, number | null>;
  /** USD per hour over every cluster; null when any pool is unbounded. */
  readonly total: number | null;
  /** `budget.perHour`, USD. @default - none */
  readonly budget?: string;
}

/**
 * Every team's ceiling, in order of first appearance: the sum of its pools' ceilings (the plan's
 * {@link PoolCost}s) per cluster and over every cluster, with its budget.
 */
export function teamCeilings(pools: readonly PoolCost[], clusters: readonly string[], budgets: readonly TeamBudget[] = []): TeamCeiling[] {
  // One pass over the pools, by team and then by cluster: a scan per team and cluster would cost teams x clusters x pools.
  const byTeam = new Map<string, PoolCost[]>();
  for (const p of pools) {
    const mine = byTeam.get(p.team);
    if (mine) mine.push(p);
    else byTeam.set(p.team, [p]);
  }
  return [...byTeam].map(([team, mine]) => {
    const here = byCluster(mine);
    const perCluster = new Map<string, number | null>();
    for (const c of clusters) {
      const costs = here.get(c);
      if (costs) perCluster.set(c, sum(costs));
    }
    const budget = budgets.find((b) => b.team === team && b.group === undefined)?.perHour;
    return { team, pools: mine, perCluster, total: sum(mine.map((p) => p.perHour)), ...(budget !== undefined ? { budget } : {}) };
  });
}

/** Each cluster's pools' ceilings, in the pools' order. */
function byCluster(pools: readonly PoolCost[]): Map<string, (number | null)[]> {
  const here = new Map<string, (number | null)[]>();
  for (const p of pools) {
    const costs = here.get(p.cluster);
    if (costs) costs.push(p.perHour);
    else here.set(p.cluster, [p.perHour]);
  }
  return here;
}

/** Every cluster's ceiling: the sum of its pools'. null when a pool is unbounded. */
export function clusterCeilings(pools: readonly PoolCost[], clusters: readonly string[]): { cluster: string; perHour: number | null }[] {
  const here = byCluster(pools);
  return clusters.map((c) => ({ cluster: c, perHour: sum(here.get(c) ?? []) }));
}

/** A problem with a team's budget, located at its `budget.perHour` (the shape of an input Problem). */
export interface BudgetProblem {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly path: string;
  readonly message: string;
}

/**
 * Budgets against ceilings: a problem for each team whose ceiling exceeds its budget (naming
 * the pools that contribute most) and for each pool without a bound under a budget.
 */
export function budgetProblems(ceilings: readonly TeamCeiling[], budgets: readonly TeamBudget[] = []): BudgetProblem[] {
  const problems: BudgetProblem[] = [];
  for (const budget of budgets) {
    const team = ceilings.find((t) => t.team === budget.team);
    if (!team) continue;
    // A group's budget counts the team's pools on the group's clusters only.
    const inGroup = budget.group && new Set(budget.group.clusters);
    const pools = inGroup ? team.pools.filter((p) => inGroup.has(p.cluster)) : team.pools;
    const where = budget.group ? ` on group ${budget.group.name}'s ${budget.group.clusters.length} cluster(s)` : '';
    const at = (message: string) => problems.push({ ...budget.at, message });
    const unbounded = pools.filter((p) => p.perHour === null);
    for (const p of unbounded) {
      at(`pool ${p.pool} of cluster ${p.cluster} has no limit that bounds its cost, so team ${team.team}'s ceiling${where} is unbounded under a budget: set limits.cpu or limits.memory on the pool`);
    }
    const total = sum(pools.map((p) => p.perHour));
    if (unbounded.length || total === null) continue;
    const limit = Number(budget.perHour);
    if (total <= limit) continue;
    const top = [...pools].sort((a, b) => (b.perHour ?? 0) - (a.perHour ?? 0)).slice(0, 3);
    at(`team ${team.team}'s ceiling${where} is ${usd(total)}/hour, over its budget of ${usd(limit)}/hour by ${usd(total - limit)} (${CEILING_BASIS}); `
      + `most from ${top.map((p) => `${p.cluster}/${p.pool} ${usd(p.perHour ?? 0)}`).join(', ')}${pools.length > 3 ? ` (of ${pools.length} pools)` : ''}: lower their limits or raise the budget`);
  }
  return problems;
}

/** The heading of `dist/SUMMARY.md`'s cost table. */
const COST_HEADING = '## Cost ceilings';

/** An amount as every page shows it: `$12.34`, `unbounded`, or `-` for none. */
export function ceilingCell(v: number | null | undefined): string {
  return v === undefined ? '-' : v === null ? 'unbounded' : usd(v);
}

/** Clusters the fleet's page sums together: those of one stage in the same groups. */
export interface ClusterSet {
  /** `stage 3 · groups prod, prod-eu`. */
  readonly label: string;
  /** Their ids, in platform order. */
  readonly clusters: readonly string[];
}

/**
 * `dist/SUMMARY.md`'s cost section, one row per team and set of clusters, never a column per
 * cluster: the team's ceiling on each cluster of the set (one amount when it is the same on
 * each, else the range) and on the set in all; then the team's total over the fleet with its
 * budget; then all teams likewise; then each group budget beside the team's ceiling on the
 * group's clusters. `unbounded` where a pool has no limit that bounds it.
 * @param sets the fleet's clusters by stage and groups, in the order the page lists them
 */
export function costMarkdown(sets: readonly ClusterSet[], ceilings: readonly TeamCeiling[], budgets: readonly TeamBudget[] = []): string[] {
  const cell = ceilingCell;
  const clusters = (n: number) => `${n.toLocaleString('en-US')} cluster${n === 1 ? '' : 's'}`;
  const rows = (name: string, ceilingOn: (cluster: string) => number | null | undefined, total: number | null, budget: string) => {
    const out: string[] = [];
    for (const set of sets) {
      const values = set.clusters.map(ceilingOn).filter((v): v is number | null => v !== undefined);
      if (values.length === 0) continue;
      out.push(`| ${name} | ${set.label} (${values.length.toLocaleString('en-US')}) | ${range(values)} | ${cell(sum(values))} | |`);
    }
    const on = sets.reduce((n, set) => n + set.clusters.filter((c) => ceilingOn(c) !== undefined).length, 0);
    out.push(`| **${name}** | in all: ${clusters(on)} | | **${cell(total)}** | ${budget} |`);
    return out;
  };
  const all = new Map<string, number | null>();
  for (const t of ceilings) {
    for (const [c, v] of t.perCluster) all.set(c, all.has(c) ? sum([all.get(c) ?? null, v]) : v);
  }
  const lines = [
    COST_HEADING,
    '',
    `USD per hour that each team's pools can cost with their limits reached: ${CEILING_BASIS} (whatever the capacity type), not a forecast of the bill; `
      + 'by stage and the groups the clusters are in, then in all. A budget is `teams.<team>.budget.perHour` (the whole fleet) or `groups.<group>.teams.<team>.budget.perHour` '
      + '(the group\'s clusters); synth fails when a ceiling exceeds its budget (see docs/cost.md). Each cluster\'s page has its own.',
    '',
    '| team | clusters | each cluster | in all | budget |',
    '|---|---|---:|---:|---:|',
    ...ceilings.flatMap((t) => rows(t.team, (c) => t.perCluster.get(c), t.total, t.budget !== undefined ? usd(Number(t.budget)) : '-')),
    ...(ceilings.length ? rows('all teams', (c) => all.get(c), sum([...all.values()]), '-') : []),
  ];
  const grouped = budgets.filter((b) => b.group !== undefined);
  if (grouped.length) {
    lines.push('', 'Group budgets, each beside the team\'s ceiling on the group\'s clusters:', '');
    for (const b of grouped) {
      const team = ceilings.find((t) => t.team === b.team);
      const values = b.group!.clusters.map((c) => team?.perCluster.get(c)).filter((v): v is number | null => v !== undefined);
      lines.push(`- team ${b.team} on group ${b.group!.name} (${clusters(b.group!.clusters.length)}): ceiling ${cell(sum(values))} per hour, budget ${usd(Number(b.perHour))}`);
    }
  }
  return lines;
}

/** Some clusters' ceilings in one cell: the amount when it is the same on each, else `$1.00–$2.50`, with how many are unbounded. */
function range(values: readonly (number | null)[]): string {
  const bounded = values.filter((v): v is number => v !== null);
  const unbounded = values.length - bounded.length;
  if (bounded.length === 0) return 'unbounded';
  const [min, max] = [Math.min(...bounded), Math.max(...bounded)];
  const shown = usd(min) === usd(max) ? usd(min) : `${usd(min)}–${usd(max)}`;
  return unbounded ? `${shown}; unbounded on ${unbounded}` : shown;
}

/** A USD amount per hour as shown: `$12.34`. */
export function usd(n: number): string {
  return `$${n.toFixed(2)}`;
}

function sum(values: readonly (number | null)[]): number | null {
  if (values.some((v) => v === null)) return null;
  return round((values as number[]).reduce((a, b) => a + b, 0));
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
function costBound(pool: Pool, admitted: readonly InstanceType[]): CostBound | undefined {
  // Reads the limits and the admitted types, nothing else of the pool (its name is in no field).
  const key = JSON.stringify(pool.settings.limits ?? {});
  let byLimits = costBounds.get(admitted);
  if (!byLimits) costBounds.set(admitted, byLimits = new Map());
  if (!byLimits.has(key)) byLimits.set(key, limitsBound(pool.settings.limits ?? {}, admitted));
  return byLimits.get(key);
}

/** A pool's cost bound and what gives it. */
interface CostBound {
  readonly cost: number;
  readonly by: string;
  readonly bound: CeilingBound;
}

/**
 * {@link costBound}s by admitted types (the plan shares one frozen list among the pools of a
 * shape under the same overlays: catalog/overlays.ts overlaidAdmitted), then by limits, in their
 * order (on a tie the first limit gives the bound). Held weakly by the list.
 */
const costBounds = new WeakMap<readonly InstanceType[], Map<string, CostBound | undefined>>();

function limitsBound(limits: Readonly<Record<string, string>>, admitted: readonly InstanceType[]): CostBound | undefined {
  const priced = admitted.filter((t) => t.price !== undefined);
  if (priced.length === 0) return undefined;
  let best: CostBound | undefined;
  for (const [resource, limit] of Object.entries(limits)) {
    const amount = inCatalogUnits(resource, Quantity.of(limit), 'exact');
    const perUnit = priced.map((t) => {
      const cap = capacity(t, resource);
      return cap ? (t.price ?? 0) / cap : Infinity;
    });
    if (perUnit.some((p) => !Number.isFinite(p))) continue;
    const cost = amount * Math.max(...perUnit);
    if (!best || cost < best.cost) best = { cost, by: `${resource}: ${limit}`, bound: Object.freeze({ kind: 'limit', resource, limit }) };
  }
  return best && Object.freeze(best);
}

function round(n: number): number {
  return Math.round(n * 10000) / 10000;
}
