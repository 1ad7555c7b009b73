/**
 * When a pull request's changes happen, cluster by cluster and stage by stage, counted from the
 * head commit's time (docs/review.md, "When each change happens"). What is known is said as
 * such: stage 1 and clusters without a stage get everything at merge; a stage-N cluster when its
 * stage ref is promoted, which `npm run promote` does only after every stage-(N-1) cluster has
 * finished (its drift gate) and the stage's soak has passed (`gitops.stages`), and with an
 * environment only once a reviewer approves; a windowed Application syncs in its window's kept
 * UTC minutes only. What is not known — how long Karpenter takes to replace the drifted nodes,
 * and so when a stage finishes — is an estimate, and every text built on it says so.
 */
import { clusterLayout } from '../output/layout';
import { DRIFT_GATE_SETTLE_SECONDS } from '../model/stages';
import type { SummaryData, SummaryDataCluster } from '../model/summary-data';
import { budgetDuration, keptMask, nextOpening, WEEK, type Day, type MaintenanceWindow } from '../schedule/windows';
import type { Change, ClusterChange } from './changes';
import { isControllerApp } from './fields';
import { isGuardGate } from './guard-gate';
import { FLEET, FolderIndex, sourcePaths } from './tree';

/**
 * Minutes of drift-allowed time the estimate gives Karpenter to replace a cluster's drifted
 * nodes. An assumption, not a derivation: the review knows the budgets but neither how many
 * nodes a pool runs nor how long their pods take to move, so every time built on it is said to
 * be an estimate.
 */
export const ASSUMED_DRIFT_MINUTES = 120;

/** The gate's settle time, in minutes: a stage is finished only once its gate has seen Karpenter done for that long (model/stages.ts). */
const SETTLE_MINUTES = DRIFT_GATE_SETTLE_SECONDS / 60;

const MINUTE = 60_000;

/**
 * Which Applications make a change happen on its cluster, as far as when is concerned:
 * - `controller`: the CRD and controller Applications (a Karpenter chart Application, whose own
 *   sync installs its chart version, and the controller's values file, read through its
 *   `$values` source); held by the window only with `karpenter.syncInWindow`;
 * - `pools`: what a team's pools Application syncs (`dist/<cluster>/nodepools/`), the
 *   Applications a window always holds (model/stages.ts, windowedApplicationNames);
 * - `policies`: what the tenancy policy Application syncs (`dist/<cluster>/policies/`): who may
 *   use which pools, at merge or at the promotion, never held by a window (access is not node
 *   churn; each guarded team's pools wait for it with their guard gate instead);
 * - `other`: everything the root and the other Applications sync, at once; a guard gate's hook
 *   Job, which runs at the next sync of its team's pools (a hook alone never makes them
 *   OutOfSync); and what goes with an Application the change removes: the root prunes the
 *   Application, and its resources finalizer deletes what it deployed, which no sync window
 *   holds (docs/review.md).
 */
export type ChangeTiming = 'controller' | 'pools' | 'policies' | 'other';

/** The {@link ChangeTiming} of each change of a review (a removal depends on whether its Application goes too). */
function changeTimings(changes: readonly Change[]): (c: Change) => ChangeTiming {
  const removedApps = new FolderIndex(changes.filter((c) => c.action === 'removed' && c.resource.kind === 'Application')
    .map((c) => ({ owner: c.resource.name, paths: sourcePaths(c.resource.body) })));
  return (c) => {
    if (c.resource.kind === 'HelmValues' || (c.resource.kind === 'Application' && isControllerApp(c.resource.body))) return 'controller';
    if (c.resource.cluster === FLEET) return 'other';
    if (c.action === 'removed' && removedApps.ownersOf(c.resource.file).length > 0) return 'other';
    if (isGuardGate(c.resource)) return 'other';
    const layout = clusterLayout(c.resource.cluster);
    if (c.resource.file.startsWith(`${layout.policiesDir}/`)) return 'policies';
    return c.resource.file.startsWith(`${layout.poolsRoot}/`) ? 'pools' : 'other';
  };
}

/** What a change does on one cluster, as far as when it is done. */
interface ClusterWork {
  controller: boolean;
  pools: boolean;
  /** Karpenter replaces drifted nodes. */
  drift: boolean;
}

/** A window of the summary data as the schedule room takes it. */
export function windowOf(w: NonNullable<SummaryDataCluster['window']>): MaintenanceWindow {
  return { name: w.name, timeZone: w.timeZone, days: w.days as Day[], start: w.start, duration: w.duration };
}

/** When a stage gets the change, and when it is estimated to be done with it. */
export interface StageEstimate {
  readonly stage: number;
  /**
   * Stage 1: the merge. Stage N: no earlier than stage N-1's estimated finish plus this stage's
   * soak (an estimate); with an environment, later still by the time a reviewer takes to approve.
   */
  readonly start: Date;
  /** Whether {@link start} is an estimate (every stage after the first). */
  readonly estimated: boolean;
  /** Stage N-1's estimated finish (stage 1: the merge). */
  readonly previousFinish: Date;
  /** Minutes after stage N-1 finished before the change may reach this stage (`gitops.stages.<N>.soak`). */
  readonly soakMinutes: number;
  /** The GitHub environment whose reviewers approve the promotion; null: no approval. */
  readonly environment: string | null;
  /** This stage or an earlier one waits for an approval: {@link start} is later by that wait. */
  readonly afterApproval: boolean;
  /**
   * The estimated finish: every cluster of the stage the pull request touches has synced it (in
   * its window where a window holds it), Karpenter has replaced their drifted nodes (given
   * {@link ASSUMED_DRIFT_MINUTES} of the kept minutes) and their gates have settled.
   */
  readonly finish: Date;
}

/** The whole pull request's schedule over the fleet: one promotion carries all of it, stage by stage. */
export class RolloutTimeline {
  private readonly clusters: ReadonlyMap<string, SummaryDataCluster>;
  private readonly estimates = new Map<number, StageEstimate>();
  /** The {@link ChangeTiming} of a change of this review. */
  public readonly timingOf: (c: Change) => ChangeTiming;

  /**
   * @param data the head's `dist/summary.json`
   * @param at the head commit's time: the merge
   * @param changes every change of the review
   * @param events the clusters added and removed
   */
  public constructor(public readonly data: SummaryData, public readonly at: Date, changes: readonly Change[], events: readonly ClusterChange[] = []) {
    this.clusters = new Map(data.clusters.map((c) => [c.id, c]));
    this.timingOf = changeTimings(changes);
    const work = new Map<string, ClusterWork>();
    const of = (id: string) => {
      const w = work.get(id) ?? { controller: false, pools: false, drift: false };
      work.set(id, w);
      return w;
    };
    for (const c of changes) {
      if (c.resource.cluster === FLEET) continue;
      const w = of(c.resource.cluster);
      const timing = this.timingOf(c);
      if (timing === 'controller') w.controller = true;
      if (timing === 'pools') w.pools = true;
      if (c.risk === 'replaces-nodes') w.drift = true;
    }
    // An added cluster installs everything; a removed one is not promoted (the bootstrap prunes it at merge).
    for (const e of events) if (e.action === 'added') Object.assign(of(e.cluster), { controller: true, pools: true });
    const stages = [...new Set(data.clusters.map((c) => c.stage).filter((s): s is number => s !== null))].sort((a, b) => a - b);
    let previousFinish = at;
    let afterApproval = false;
    for (const stage of stages) {
      const policy = data.stages?.find((s) => s.stage === stage);
      const soakMinutes = stage >= 2 ? policy?.soakMinutes ?? 0 : 0;
      const start = stage >= 2 ? plus(previousFinish, soakMinutes) : at;
      let finish = start;
      // A cluster synced by hand has no finish to wait for: npm run promote does not wait for it (promote/promote.ts).
      for (const c of data.clusters.filter((x) => x.stage === stage && !isManual(x))) {
        const w = work.get(c.id);
        if (w) finish = later(finish, this.finishOf(c, w, start));
      }
      const environment = stage >= 2 ? policy?.environment ?? null : null;
      afterApproval ||= environment !== null;
      this.estimates.set(stage, { stage, start, estimated: stage >= 2, previousFinish, soakMinutes, environment, afterApproval, finish });
      previousFinish = finish;
    }
  }

  /** The estimate of a stage; undefined when no cluster is at it. */
  public stage(stage: number): StageEstimate | undefined {
    return this.estimates.get(stage);
  }

  /** The stages of the fleet, in order. */
  public stages(): StageEstimate[] {
    return [...this.estimates.values()];
  }

  /** A cluster of the head, by id. */
  public cluster(id: string): SummaryDataCluster | undefined {
    return this.clusters.get(id);
  }

  /** When a cluster at `stage` gets the change from git: the merge (stage 1, none), or its stage's start. */
  public startOf(stage: number | null): Date {
    return stage === null || stage < 2 ? this.at : this.estimates.get(stage)?.start ?? this.at;
  }

  /** How the start of a stage reads: `at merge`, or its promotion with the soak, the approval and the estimate. */
  public startText(stage: number | null): string {
    const s = stage === null || stage < 2 ? undefined : this.estimates.get(stage);
    if (!s) return 'at merge';
    const soak = s.soakMinutes > 0 ? `, then a soak of ${budgetDuration(s.soakMinutes)}` : '';
    const approval = s.environment !== null ? `, then an approval in GitHub environment ${s.environment}` : '';
    return `when stage ${s.stage} is promoted: after every stage-${s.stage - 1} cluster has it and Karpenter has finished with it there (its drift gate)${soak}${approval}`
      + ` — estimate: not before ${whenText(s.start)}${s.afterApproval ? ' plus the wait for approval' : ''}`;
  }

  /**
   * When a cluster's Applications of this timing sync the change: at its start, or for a
   * windowed one the first kept minute from then. Undefined when its window keeps no minute
   * (synth refuses such a window, windows.<name>.duration).
   */
  public syncOf(cluster: SummaryDataCluster, timing: ChangeTiming): Date | undefined {
    return this.syncFrom(cluster, timing, this.startOf(cluster.stage));
  }

  /** {@link syncOf} from the cluster's start `start`. */
  private syncFrom(cluster: SummaryDataCluster, timing: ChangeTiming, start: Date): Date | undefined {
    return this.heldByWindow(cluster, timing) ? nextOpening(windowOf(cluster.window!), start) : start;
  }

  /** Whether a cluster's window holds Applications of this timing: never the policies' or the root's. */
  public heldByWindow(cluster: SummaryDataCluster, timing: ChangeTiming): boolean {
    if (!cluster.window) return false;
    return timing === 'pools' || (timing === 'controller' && cluster.syncInWindow === true);
  }

  /** The estimated time a cluster is done with what the change does there, its gate settled. */
  private finishOf(cluster: SummaryDataCluster, work: ClusterWork, start: Date): Date {
    let end = start;
    if (work.controller) end = later(end, this.syncFrom(cluster, 'controller', start) ?? start);
    if (work.pools || work.drift) {
      const synced = this.syncFrom(cluster, 'pools', start) ?? start;
      end = later(end, work.drift ? driftEnd(cluster, synced) : synced);
    }
    return plus(end, SETTLE_MINUTES);
  }
}

/**
 * Whether a cluster's Applications sync only by hand (`manualSync: true`, as adopt writes it).
 * Argo CD then never syncs them by itself: its controller's `autoSync` returns before any
 * operation when automated sync is off (argo-cd v3.5.1 controller/appcontroller.go l. 2332-2334),
 * so a change reaches the cluster when someone syncs it, not at merge or at its stage's promotion,
 * and `npm run promote` does not wait for it. Its window, if any, does not hold a manual sync (the
 * sync windows allow `manualSync`, schedule/windows.ts syncWindowModels); its budgets still hold
 * the drifted nodes to the window's kept minutes.
 */
export function isManual(cluster: SummaryDataCluster): boolean {
  return cluster.manualSync === true;
}

/** When a manual cluster gets a change, as the review says it: `manual: when someone syncs it`, and why. */
export function manualText(cluster: SummaryDataCluster, start: string): string {
  return `${MANUAL_SYNC} — its Applications have no automated sync (manualSync: true), so Argo CD never syncs them by itself; `
    + `in git ${start}; npm run promote does not wait for it${cluster.window ? `; window ${cluster.window.name} does not hold a manual sync` : ''}`;
}

/** The start of every text saying when a manual cluster gets a change. */
export const MANUAL_SYNC = 'manual: when someone syncs it';

/**
 * When {@link ASSUMED_DRIFT_MINUTES} of drift-allowed time have passed from `from`: at once
 * without a window, else counted in the window's kept UTC minutes only (the budgets stop
 * Karpenter in every other minute), across as many openings as it takes.
 */
function driftEnd(cluster: SummaryDataCluster, from: Date): Date {
  if (!cluster.window) return plus(from, ASSUMED_DRIFT_MINUTES);
  const kept = keptMask(windowOf(cluster.window));
  if (!kept.includes(true)) return from;
  let minute = Math.ceil(from.getTime() / MINUTE);
  let left = ASSUMED_DRIFT_MINUTES;
  while (left > 0) {
    if (kept[weekMinuteOf(minute)]) left--;
    minute++;
  }
  return new Date(minute * MINUTE);
}

/** How many kept minutes follow `open` without a break (the rest of the kept run it is in), at most a week. */
export function keptRunFrom(window: NonNullable<SummaryDataCluster['window']>, open: Date): number {
  const kept = keptMask(windowOf(window));
  const first = Math.ceil(open.getTime() / MINUTE);
  let n = 0;
  while (n < WEEK && kept[weekMinuteOf(first + n)]) n++;
  return n;
}

/** A minute since the epoch as a minute of the UTC week, Sunday 00:00 = 0 (1970-01-04, a Sunday, is 3 days after the epoch). */
function weekMinuteOf(minute: number): number {
  return (((minute - 3 * 24 * 60) % WEEK) + WEEK) % WEEK;
}

/** `2026-11-30 01:00 UTC (Sun 20:00 America/New_York)`. */
export function whenText(at: Date, timeZone?: string): string {
  const utc = `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  if (!timeZone || timeZone === 'UTC') return utc;
  const local = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at).replace(',', '');
  return `${utc} (${local} ${timeZone})`;
}

function plus(at: Date, minutes: number): Date {
  return new Date(at.getTime() + minutes * MINUTE);
}

function later(a: Date, b: Date): Date {
  return a.getTime() >= b.getTime() ? a : b;
}
