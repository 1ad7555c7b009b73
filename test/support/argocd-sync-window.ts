/**
 * Argo CD's sync window check, written from argo-cd v3.5.1
 * `pkg/apis/application/v1alpha1/types.go`: `active()` (l. 3373-3393) parses the schedule with
 * `cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow`, shifts `now` by the zone's
 * offset (`scheduleOffsetByTimeZone`, l. 3036-3044, the offset at the time of the check) and
 * says the window is active when `schedule.Next(now + offset - duration).Before(now + offset)`.
 * The schedule is evaluated on the shifted time as if it were UTC.
 *
 * Upstream: MODELS.argocd (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import { FireList, parseGoDuration } from './karpenter-budgets';

/** The fields of `SyncWindow` that `active()` reads. */
export interface SimSyncWindow {
  readonly schedule: string;
  readonly duration: string;
  readonly timeZone?: string;
}

/** Argo CD's `active()` for one window over a span of time. */
export class SyncWindowSimulator {
  private readonly fires: FireList;
  public constructor(private readonly window: SimSyncWindow, private readonly offsetAt: (now: Date) => number, from: Date, to: Date) {
    const day = 86_400_000;
    this.fires = new FireList(window.schedule, new Date(from.getTime() - 2 * day - parseGoDuration(window.duration)), new Date(to.getTime() + 2 * day));
  }

  /** `active(now)`. */
  public active(now: number): boolean {
    const shifted = now + this.offsetAt(new Date(now)) * 60_000;
    const next = this.fires.next(shifted - parseGoDuration(this.window.duration));
    return next !== undefined && next < shifted;
  }
}
