/**
 * A pool's budgets against its cluster's release: the reasons its NodePool CRD accepts, and, on a
 * release that paces node repair by budgets, the budgets that would hold broken nodes
 * (schedule/repair.ts; docs/windows.md, Node repair).
 */
import type { FieldPath, Problem } from '../input/problems';
import { DISRUPTION_REASONS, ReleaseFacts } from '../release/types';
import { compareRelease } from '../release/versions';
import { BUDGETED_REPAIR, isZero, repairPace } from '../schedule/repair';
import type { Budget } from '../schedule/windows';

/** Where a pool's problems go: its cluster, its name, and the problem at a field of the pool. */
interface BudgetContext {
  readonly cluster: string;
  readonly name: string;
  problem(path: FieldPath, message: string): Problem;
}

/** What the checks read of the cluster's Karpenter. */
interface BudgetCluster {
  readonly version: string;
  readonly featureGates?: Readonly<Record<string, boolean>>;
  readonly settings?: Readonly<Record<string, string | number | boolean>>;
}

/** Each budget reason the cluster's NodePool CRD does not accept (`Repair` before a release whose CRD lists it), at the reason. */
export function budgetReasonProblems(ctx: BudgetContext, version: string, facts: ReleaseFacts, budgets: readonly Budget[]): Problem[] {
  const allowed = facts.disruptionReasons ?? DISRUPTION_REASONS;
  return budgets.flatMap((b, i) => (b.reasons ?? []).flatMap((r, j) => (allowed.includes(r) ? [] : [ctx.problem(['disruption', 'budgets', i, 'reasons', j],
    `cluster ${ctx.cluster} runs Karpenter ${version}, whose NodePool CRD does not accept the budget reason ${r} (allowed: ${allowed.join(', ')}): `
    + (r === 'Repair' ? 'on Karpenter 1.15 node repair is paced by the budgets without reasons; a budget for Repair alone needs a release whose NodePool CRD lists it (docs/windows.md, Node repair)'
      : `upgrade this cluster's Karpenter first (clusters.${ctx.cluster}.karpenter.version), or remove it`))])));
}

/**
 * On a release that paces node repair by budgets (1.15, `featureGates.nodeRepair`, not
 * `settings.legacyNodeRepair`), a budget at zero nodes without reasons holds broken nodes too while
 * it is active: a warning at the budget, with the reasons that leave repair its own pace.
 */
export function repairHoldWarnings(ctx: BudgetContext, karpenter: BudgetCluster, budgets: readonly Budget[]): Problem[] {
  const pace = repairPace(budgets, {
    version: karpenter.version, budgetedRelease: compareRelease(karpenter.version, BUDGETED_REPAIR) >= 0,
    featureGates: karpenter.featureGates ?? {}, settings: karpenter.settings ?? {},
  });
  if (pace.kind !== 'budgets') return [];
  return budgets.flatMap((b, i) => (isZero(b) && (b.reasons === undefined || b.reasons.length === 0) ? [ctx.problem(['disruption', 'budgets', i],
    `on cluster ${ctx.cluster} (Karpenter ${karpenter.version}, featureGates.nodeRepair) node repair is a disruption paced by budgets, so this budget without reasons also keeps broken nodes `
    + `of pool ${ctx.name} from being replaced ${b.schedule === undefined ? 'at all times' : `during \`${b.schedule}\` (UTC) for ${b.duration}`}: `
    + 'add reasons: [Underutilized, Empty, Drifted] to leave repair its own pace (docs/windows.md, Node repair)')] : []));
}
