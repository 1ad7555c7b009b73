/**
 * Karpenter's disruption budget evaluation, written from kubernetes-sigs/karpenter v1.14.1
 * `pkg/apis/v1/nodepool.go`: `GetAllowedDisruptionsByReason` (l. 364-377) takes, per reason,
 * the minimum allowed disruptions over the active budgets that name the reason (or name none);
 * `IsActive` (l. 412-426) parses `"TZ=UTC " + schedule` with robfig/cron's `ParseStandard`
 * and says a budget is active when `!schedule.Next(now - duration).After(now)`. A budget
 * without schedule is always active. robfig's `Next` returns the first time strictly after
 * its argument; so does cron-parser's `next()` (test/support/karpenter-budgets.test.ts).
 *
 * Upstream: MODELS.karpenter (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import { CronExpressionParser } from 'cron-parser';

/** A NodePool disruption budget as the API server holds it. */
export interface SimBudget {
  readonly nodes: string;
  readonly schedule?: string;
  readonly duration?: string;
  readonly reasons?: readonly string[];
}

/** Go's `time.ParseDuration` for the budget pattern (`19h`, `30m`, `5h30m`, with an optional `0s`): milliseconds. */
export function parseGoDuration(d: string): number {
  const m = /^(?:([0-9]+)h)?(?:([0-9]+)m)?(?:0s)?$/.exec(d);
  if (!m) throw new Error(`not a budget duration: ${d}`);
  return (Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60_000;
}

/** `schedule.Next(t)` in UTC: the first fire strictly after `t`. */
export function cronNext(schedule: string, t: Date): Date {
  return CronExpressionParser.parse(schedule, { currentDate: t, tz: 'UTC' }).next().toDate();
}

/**
 * The fires of a schedule between `from` and `to` (UTC), found with cron-parser once, so a
 * simulation asks `Next` by binary search instead of parsing the expression every minute.
 */
export class FireList {
  private readonly fires: number[] = [];
  public constructor(schedule: string, from: Date, to: Date) {
    const it = CronExpressionParser.parse(schedule, { currentDate: from, tz: 'UTC', endDate: to });
    while (it.hasNext()) this.fires.push(it.next().getTime());
  }
  /** `Next(t)`: the first fire strictly after `t` (undefined beyond the list's end). */
  public next(t: number): number | undefined {
    let lo = 0;
    let hi = this.fires.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.fires[mid] > t) hi = mid; else lo = mid + 1;
    }
    return this.fires[lo];
  }
}

/** Karpenter's budget evaluation for one NodePool over a span of time. */
export class BudgetSimulator {
  private readonly lists: (FireList | undefined)[];
  public constructor(private readonly budgets: readonly SimBudget[], from: Date, to: Date) {
    // Fires up to a budget's duration before `from` decide whether it is active at `from`.
    this.lists = budgets.map((b) => (b.schedule === undefined ? undefined
      : new FireList(b.schedule, new Date(from.getTime() - parseGoDuration(b.duration ?? '0m') - 60_000), to)));
  }

  /** `IsActive(now)`: `checkPoint := now - duration; !schedule.Next(checkPoint).After(now)`. */
  public isActive(index: number, now: number): boolean {
    const b = this.budgets[index];
    const list = this.lists[index];
    if (!list || b.schedule === undefined) return true;
    const next = list.next(now - parseGoDuration(b.duration ?? '0m'));
    return next !== undefined && !(next > now);
  }

  /**
   * `GetAllowedDisruptionsByReason(numNodes, reason)`: the minimum over active budgets naming
   * the reason (or none) of the budget's nodes (a percentage of `numNodes`, rounded up as
   * `intstr.GetScaledValueFromIntOrPercent(..., true)` does); MaxInt32 with no active budget.
   */
  public allowed(now: number, reason: string, numNodes: number): number {
    let min = 2147483647;
    for (const [i, b] of this.budgets.entries()) {
      if (b.reasons && b.reasons.length > 0 && !b.reasons.includes(reason)) continue;
      if (!this.isActive(i, now)) continue;
      const n = b.nodes.endsWith('%') ? Math.ceil((Number(b.nodes.slice(0, -1)) * numNodes) / 100) : Number(b.nodes);
      min = Math.min(min, n);
    }
    return min;
  }
}
