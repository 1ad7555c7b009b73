/**
 * Everything a run can find, found in one run (STYLE.md: every problem of a run at once): the
 * config's problems (config/load.ts readPlatform) and what only the plan can say — a team's
 * ceiling over its budget, a pool whose limits bound nothing — reported together.
 */
import { LoadOptions, readPlatform } from '../config/load';
import type { Platform } from '../config/platform';
import { collapseShared, inFileOrder, InputError, Problem } from '../input/problems';
import { budgetProblems, CEILING_BASIS } from './cost';
import { FleetPlan, fleetPlan, PlanOptions } from './plan';
import { expressionFindings } from './kubelet-expressions';

/** The plan's findings: problems (synth fails) and warnings. */
export interface PlanFindings {
  readonly problems: readonly Problem[];
  readonly warnings: readonly Problem[];
}

/**
 * What the plan finds: every team whose ceiling exceeds its budget, a pool without a bound
 * under a budget (problems, docs/cost.md), and a pool whose limits bound nothing (a warning:
 * Karpenter may launch nodes without bound).
 */
export function planFindings(platform: Platform, plan: FleetPlan): PlanFindings {
  const warnings: Problem[] = [];
  platform.clusters.forEach((cluster, i) => cluster.pools.forEach((pool, j) => {
    const { admitted, prices, ceiling } = plan.clusters[i].pools[j].facts;
    if (ceiling.perHour !== null || admitted.length === 0) return;
    warnings.push({
      ...pool.limitsAt,
      message: `pool ${pool.name} has no limit that bounds it: Karpenter may launch nodes without bound (${admitted.length} instance types, `
        + `up to ${prices ? `$${prices.max.toFixed(2)}/hour` : 'an unknown price'} each, ${CEILING_BASIS}); set limits: { cpu: ..., memory: ... } or limits.nodes`,
    });
  }));
  const problems: Problem[] = [...budgetProblems(plan.teamCeilings, platform.budgets), ...sharedClassProblems(platform, plan)];
  // CEL expressions of a pool's kubelet (1.15), on every instance type it admits after overlays.
  platform.clusters.forEach((cluster, i) => cluster.pools.forEach((pool, j) => {
    const at = pool.kubeletExpressionsAt;
    if (!at || !pool.settings.kubelet) return;
    for (const f of expressionFindings(pool.settings.kubelet, plan.clusters[i].pools[j].facts.admitted)) {
      const where = at[f.field];
      if (where) (f.severity === 'error' ? problems : warnings).push({ ...where, message: `${f.message} (cluster ${cluster.id}, Karpenter ${cluster.karpenter.version})`, cluster: cluster.id });
    }
  }));
  return { problems, warnings };
}

/**
 * Pools of a cluster that name the same EC2NodeClass share one object: each must say the same
 * of it (the first pool's file holds it), or the class would be whichever Argo CD applied last.
 */
function sharedClassProblems(platform: Platform, plan: FleetPlan): Problem[] {
  const problems: Problem[] = [];
  platform.clusters.forEach((cluster, i) => {
    const first = new Map<string, { pool: string; json: string }>();
    plan.clusters[i].pools.forEach((p, j) => {
      const json = JSON.stringify(p.nodeClass);
      const owner = first.get(p.nodeClass.name);
      if (!owner) {
        first.set(p.nodeClass.name, { pool: p.name, json });
        return;
      }
      if (owner.json === json) return;
      const mine = p.nodeClass as unknown as Record<string, unknown>;
      const theirs = JSON.parse(owner.json) as Record<string, unknown>;
      const field = [...new Set([...Object.keys(mine), ...Object.keys(theirs)])].find((k) => JSON.stringify(mine[k]) !== JSON.stringify(theirs[k])) ?? 'spec';
      const pool = cluster.pools[j];
      problems.push({
        ...(pool.nodeClassAt ?? pool.limitsAt),
        message: `pool ${p.name} shares EC2NodeClass ${p.nodeClass.name} with pool ${owner.pool} on cluster ${cluster.id}, but says otherwise of it: its ${field} is `
          + `${JSON.stringify(mine[field])}, pool ${owner.pool}'s ${JSON.stringify(theirs[field])}; give both the same fields, or this pool its own nodeClass`,
        cluster: cluster.id,
      });
    });
  });
  return problems;
}

/** A platform, its plan and the warnings of both. */
export interface LoadedPlan {
  readonly platform: Platform;
  readonly plan: FleetPlan;
  readonly warnings: readonly Problem[];
}

/** What {@link readPlan} found: every problem of the config and its plan, and both as far as they could be built. */
export interface ReadPlanResult {
  /** @default - none: the config could not be read or parsed at all */
  readonly platform?: Platform;
  /** @default - none: no platform, or its plan could not be built from a config with problems */
  readonly plan?: FleetPlan;
  readonly problems: readonly Problem[];
  readonly warnings: readonly Problem[];
}

/**
 * {@link loadPlan} without throwing for the config's problems: every command that loads the
 * config (synth, check, diff, fit, explain, promote, adopt) reports this same set. Once the config
 * parses, its per-cluster checks, the dry run, the budgets, shared classes and kubelet
 * expressions report together; only a plan that cannot be built from a broken config is skipped.
 */
export function readPlan(configPath: string, options: LoadOptions & PlanOptions = {}): ReadPlanResult {
  const read = readPlatform(configPath, options);
  if (!read.platform) return read;
  let plan: FleetPlan;
  try {
    plan = fleetPlan(read.platform, options);
  } catch (err) {
    // The plan of a config with problems may not be buildable (a field the schema refused is
    // missing); those problems are what to fix, and they are all reported.
    if (read.problems.length) return read;
    throw err;
  }
  const found = planFindings(read.platform, plan);
  return {
    platform: read.platform, plan,
    problems: inFileOrder([...read.problems, ...found.problems]), warnings: collapseShared(inFileOrder([...read.warnings, ...found.warnings])),
  };
}

/**
 * Reads the config, plans it, and throws an {@link InputError} with every problem of both
 * ({@link readPlan}) when anything is wrong.
 */
export function loadPlan(configPath: string, options: LoadOptions & PlanOptions = {}): LoadedPlan {
  const { platform, plan, problems, warnings } = readPlan(configPath, options);
  if (problems.length || !platform || !plan) throw new InputError(problems);
  return { platform, plan, warnings };
}
