/**
 * How fast Karpenter replaces a broken node of a pool (node repair), from the pool's budgets, the
 * cluster's release and its settings: what the review, SUMMARY and the config's warnings say.
 *
 * - Karpenter picks, per disruption reason, the smallest `nodes` of the active budgets whose
 *   `reasons` is unset or lists that reason (kubernetes-sigs/karpenter v1.14.1
 *   `pkg/apis/v1/nodepool.go` L364-L377, `GetAllowedDisruptionsByReason`: `budget.Reasons == nil
 *   || lo.Contains(budget.Reasons, reason)`).
 * - Up to 1.14, node repair (`featureGates.nodeRepair`) is a controller of its own that deletes an
 *   unhealthy node once its condition has lasted the cloud provider's toleration; no budget paces
 *   it (kubernetes-sigs/karpenter v1.14.1 `pkg/controllers/node/health/controller.go`).
 * - From 1.15, node repair is a voluntary disruption method, run before drift and consolidation
 *   and paced by the NodePool's budgets with the reason `Repair`; `settings.legacyNodeRepair`
 *   keeps the controller of earlier releases (aws/karpenter-provider-aws v1.15.0 at d77d1a3a,
 *   `website/content/en/v1.15/concepts/disruption.md` and `charts/karpenter/values.yaml`
 *   `legacyNodeRepair`). So on 1.15 a budget without `reasons` paces repair too, and one at
 *   `nodes: "0"` holds broken nodes while it is active; a budget whose reasons leave `Repair`
 *   out does not touch it. The budgets a window compiles into list `Drifted` only
 *   (schedule/windows.ts): no window holds repair.
 */
import type { Budget } from './windows';

/** How node repair is paced on a pool. */
export type RepairPace =
  | { readonly kind: 'off' }
  | { readonly kind: 'controller'; readonly why: string }
  | {
    readonly kind: 'budgets';
    /** The most nodes repaired at a time when no scheduled budget is active (`10%`), or none: unbounded. */
    readonly always?: string;
    /** Scheduled budgets that apply to repair: in their minutes it is at most their `nodes`. */
    readonly scheduled: readonly Budget[];
  };

/** What {@link repairPace} reads of the cluster. */
export interface RepairCluster {
  /** Its Karpenter release. */
  readonly version: string;
  /** Whether the release paces repair by budgets (1.15 and later: the caller compares releases). */
  readonly budgetedRelease: boolean;
  readonly featureGates: Readonly<Record<string, boolean>>;
  readonly settings: Readonly<Record<string, string | number | boolean>>;
}

/** The first release whose node repair is a disruption method paced by budgets. */
export const BUDGETED_REPAIR = '1.15.0';

/** Whether a budget applies to repair on a release that paces it by budgets. */
export const pacesRepair = (b: Budget): boolean => b.reasons === undefined || b.reasons.length === 0 || b.reasons.includes('Repair');

/** A budget at zero nodes (`0`, `0%`): while active, nothing of its reasons is disrupted. */
export const isZero = (b: Budget): boolean => /^0+%?$/.test(b.nodes);

/** How `budgets` (the pool's, its window's included) pace node repair on `cluster`. */
export function repairPace(budgets: readonly Budget[], cluster: RepairCluster): RepairPace {
  if (cluster.featureGates.nodeRepair !== true) return { kind: 'off' };
  if (!cluster.budgetedRelease) return { kind: 'controller', why: `Karpenter ${cluster.version} repairs by its node health controller, which no budget paces` };
  if (cluster.settings.legacyNodeRepair === true) return { kind: 'controller', why: 'settings.legacyNodeRepair keeps the node health controller of earlier releases, which no budget paces' };
  const applying = budgets.filter(pacesRepair);
  const always = applying.filter((b) => b.schedule === undefined).map((b) => b.nodes);
  return { kind: 'budgets', ...(always.length ? { always: smallest(always) } : {}), scheduled: applying.filter((b) => b.schedule !== undefined) };
}

/** The smallest of budget `nodes` values that are all counts or all percentages; else the first. */
function smallest(values: readonly string[]): string {
  const percent = values.every((v) => v.endsWith('%'));
  const counts = values.every((v) => !v.endsWith('%'));
  if (!percent && !counts) return values.join(' and ');
  return [...values].sort((a, b) => parseInt(a, 10) - parseInt(b, 10))[0];
}

/** One sentence: how fast a broken node of the pool is replaced, inside and outside its window. */
export function repairText(pace: RepairPace, windowed: boolean): string {
  if (pace.kind === 'off') return 'node repair off (featureGates.nodeRepair): a broken node stays until someone replaces it';
  if (pace.kind === 'controller') return `repaired as soon as its condition has lasted its toleration: ${pace.why}`;
  const base = pace.always === undefined ? 'repaired at once, as many at a time as are broken' : `repaired up to ${pace.always} of the pool's nodes at a time`;
  const held = pace.scheduled.map((b) => `${isZero(b) ? 'none' : `at most ${b.nodes}`} during \`${b.schedule}\` (UTC) for ${b.duration}`);
  return `${base}${held.length ? `, ${held.join(', ')}` : ''}${windowed ? ', inside and outside the window alike (the window holds Drifted only)' : ''}`;
}
