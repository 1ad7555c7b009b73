import type { Cluster, Platform } from '../config/platform';
import { stageRef } from '../model/stages';
import { nextOpeningFromNow } from '../schedule/windows';
import type { LiveApplication } from './live-applications';
import { ClusterState, clusterStatus, ClusterStatus, localWhen } from './cluster-state';
import type { DriftCount } from './nodeclaims';
import { minutesText, promotion } from './promote';

export type { ClusterState, ClusterStatus } from './cluster-state';
export { STATE_ORDER } from './cluster-state';

/** What a stage's next promotion waits for (stages 2 and later). */
export interface PromotionWait {
  /** The commit the stage before runs, which is promoted next. @default - unknown: the stage before has no ref yet */
  readonly revision?: string;
  /** The stage has that commit already: nothing to promote. */
  readonly upToDate: boolean;
  /** `gitops.stages.<N>.soak`, in minutes (0: none). */
  readonly soakMinutes: number;
  /** Minutes of the soak left, once the stage before has finished. @default - not started, or not told (no Applications given) */
  readonly soakRemainingMinutes?: number;
  /** The GitHub environment whose reviewers approve the push. @default - none: no approval */
  readonly environment?: string;
  /** Whether `npm run promote` would push now. @default - not told: no Applications were given */
  readonly ready?: boolean;
  /** What holds it back, as `npm run promote` says it. @default [] */
  readonly blockers: readonly string[];
  /** What it waits for, in a few words each: `stage 1 to finish (3 blockers)`, `soak 24h: 3h20m left`, `approval: …`. */
  readonly waitsFor: readonly string[];
}

/** A window of a stage's clusters and when it next opens. */
export interface StageWindow {
  readonly name: string;
  readonly clusters: number;
  /** `Tue 02:00 Europe/Berlin (in 5h)`. @default - it has no minute to open in */
  readonly opens?: string;
}

/** One stage of the rollout. */
export interface StageStatus {
  readonly stage: number;
  /** What it tracks: `gitops.targetRevision` for stage 1 (and clusters without a stage), else its stage ref. */
  readonly ref: string;
  /** The commit the ref names. @default - not known: the ref does not exist (not promoted yet) or could not be read */
  readonly revision?: string;
  /** Whether its ref exists (stage 1: always, it tracks the main branch). */
  readonly promoted: boolean;
  /** Its cluster ids. */
  readonly clusterIds: readonly string[];
  readonly windows: readonly StageWindow[];
  /** Each cluster's state, when the Applications were given. @default [] */
  readonly clusters: readonly ClusterStatus[];
  /** Clusters per state (all 0 without Applications). */
  readonly counts: Readonly<Record<ClusterState, number>>;
  /** Stages 2 and later: what their next promotion waits for. @default - stage 1: it follows the main branch */
  readonly promotion?: PromotionWait;
}

/** Where a fleet's rollout stands (`npm run promote -- status`). */
export interface RolloutStatus {
  /** The version of this data's shape. */
  readonly version: 1;
  /** When it was told, RFC 3339. */
  readonly at: string;
  /** Whether the Applications were given: without them only what the config and git say. */
  readonly live: boolean;
  readonly clusters: number;
  readonly stages: readonly StageStatus[];
}

/** What {@link rolloutStatus} reads besides the platform. */
export interface RolloutInputs {
  /** The Applications Argo CD reports, every instance's. @default - not given: no per-cluster state */
  readonly applications?: readonly LiveApplication[];
  /** The commit each stage's ref names, by stage (1: `gitops.targetRevision`'s); a stage missing here has no ref yet. */
  readonly revisions: ReadonlyMap<number, string>;
  /** The time it is told at. */
  readonly now: Date;
  /** NodeClaims counted, by cluster id. @default - none */
  readonly drift?: ReadonlyMap<string, DriftCount>;
}

/** Clusters per state. */
function countStates(clusters: readonly ClusterStatus[]): Record<ClusterState, number> {
  const counts: Record<ClusterState, number> = { held: 0, synced: 0, replacing: 0, waiting: 0, manual: 0, syncing: 0, unknown: 0 };
  for (const c of clusters) counts[c.state]++;
  return counts;
}

/** The stage of a cluster: clusters without one track `gitops.targetRevision`, as stage 1 does. */
function stageOf(cluster: Cluster): number {
  return cluster.stage ?? 1;
}

/** The windows of some clusters, each with how many of them have it and when it next opens. */
function windowsOf(clusters: readonly Cluster[], now: Date): StageWindow[] {
  const byName = new Map<string, { cluster: Cluster; n: number }>();
  for (const c of clusters) {
    if (!c.window) continue;
    const was = byName.get(c.window.name);
    byName.set(c.window.name, { cluster: was?.cluster ?? c, n: (was?.n ?? 0) + 1 });
  }
  return [...byName].map(([name, { cluster, n }]) => {
    const open = cluster.window ? nextOpeningFromNow(cluster.window, now) : undefined;
    return { name, clusters: n, ...(open && cluster.window ? { opens: open === 'open' ? 'open now' : localWhen(open, cluster.window.timeZone, now) } : {}) };
  });
}

/**
 * What stage `stage`'s next promotion waits for: the commit of the stage before, unless it has
 * it already; with the Applications, `promotion()` (promote.ts) decides as `npm run promote`
 * would, and its blockers are counted; the soak and approval come from `gitops.stages`.
 */
function promotionWait(platform: Platform, stage: number, revisions: ReadonlyMap<number, string>, inputs: RolloutInputs): PromotionWait {
  const revision = revisions.get(stage - 1);
  const policy = platform.gitops.stages?.find((s) => s.stage === stage);
  const soakMinutes = policy?.soakMinutes ?? 0;
  const environment = policy?.environment;
  const approval = environment !== undefined ? [`approval by the reviewers of GitHub environment ${environment}`] : [];
  const base = { soakMinutes, ...(environment !== undefined ? { environment } : {}) };
  if (revision === undefined) {
    // Stage 1 has no ref of its own: its commit is gitops.targetRevision's, which git could not name.
    const first = stage - 1 < 2 ? `git to know ${platform.gitops.targetRevision} (run it in the repository, with the branch fetched)` : `stage ${stage - 1} to be promoted first`;
    return { ...base, upToDate: false, blockers: [], waitsFor: [first] };
  }
  if (revisions.get(stage) === revision) return { ...base, revision, upToDate: true, blockers: [], waitsFor: [] };
  const soak = soakMinutes > 0 ? [`soak ${minutesText(soakMinutes)}`] : [];
  if (inputs.applications === undefined) return { ...base, revision, upToDate: false, blockers: [], waitsFor: [`stage ${stage - 1} to finish`, ...soak, ...approval] };
  const d = promotion(platform, stage, revision, new Map(inputs.applications.map((a) => [a.metadata.name, a])), { now: inputs.now.getTime() });
  const finished = d.soakRemainingMinutes !== undefined;
  const soaking = d.soakRemainingMinutes !== undefined && d.soakRemainingMinutes > 0;
  const others = d.blockers.length - (soaking ? 1 : 0);
  const plural = (n: number) => `${n} blocker${n === 1 ? '' : 's'}`;
  const waitsFor = [
    ...(finished ? [] : [`stage ${stage - 1} to finish (${plural(d.blockers.length)})`]),
    ...(soakMinutes === 0 ? [] : [!finished ? `soak ${minutesText(soakMinutes)} after it finishes` : soaking ? `soak ${minutesText(soakMinutes)}: ${minutesText(d.soakRemainingMinutes ?? 0)} left` : `soak ${minutesText(soakMinutes)}: passed`]),
    ...(finished && others > 0 ? [`${others} other ${plural(others).replace(/^[0-9]+ /, '')}`] : []),
    ...approval,
  ];
  return {
    ...base, revision, upToDate: false, ready: d.ready, blockers: d.blockers, waitsFor,
    ...(d.soakRemainingMinutes !== undefined ? { soakRemainingMinutes: d.soakRemainingMinutes } : {}),
  };
}

/**
 * Where the fleet's rollout stands, per stage: its ref and commit, its clusters' states (with
 * the Applications: see clusterStatus) and what its next promotion waits for. Pure: the
 * commands read the files and git.
 */
export function rolloutStatus(platform: Platform, inputs: RolloutInputs): RolloutStatus {
  const { applications, revisions, now, drift } = inputs;
  const byName = new Map((applications ?? []).map((a) => [a.metadata.name, a]));
  const stages = [...new Set(platform.clusters.map(stageOf))].sort((a, b) => a - b);
  return {
    version: 1,
    at: now.toISOString().replace(/\.[0-9]{3}Z$/, 'Z'),
    live: applications !== undefined,
    clusters: platform.clusters.length,
    stages: stages.map((stage): StageStatus => {
      const members = platform.clusters.filter((c) => stageOf(c) === stage);
      const revision = revisions.get(stage);
      const promoted = stage < 2 || revision !== undefined;
      const clusters = applications === undefined ? [] : members.map((c) => {
        const d = drift?.get(c.id);
        return clusterStatus(platform, c, { applications: byName, promoted, now, ...(revision !== undefined ? { revision } : {}), ...(d ? { drift: d } : {}) });
      });
      const counts = countStates(clusters);
      return {
        stage, ref: stage < 2 ? platform.gitops.targetRevision : stageRef(platform, stage), promoted,
        ...(revision !== undefined ? { revision } : {}),
        clusterIds: members.map((c) => c.id), windows: windowsOf(members, now), clusters, counts,
        ...(stage >= 2 ? { promotion: promotionWait(platform, stage, revisions, inputs) } : {}),
      };
    }),
  };
}
