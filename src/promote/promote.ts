import type { Cluster, Platform } from '../config/platform';
import { APP_NAMES } from '../config/reserved';
import { clusterApplicationModels, clusterRevision, isStaged, stageRef } from '../model/stages';

/** What `npm run promote` decided. */
export interface Promotion {
  /** Whether every Application of the stage before is Synced at the revision and Healthy, its soak has passed and the main branch still wants the revision. */
  readonly ready: boolean;
  /** The command that promotes, when ready: `git push origin SHA:refs/heads/<prefix>STAGE` (it creates the ref the first time). */
  readonly command?: string;
  /** One line per thing that holds the promotion back, naming it and why. */
  readonly blockers: readonly string[];
  /** The Applications checked. */
  readonly checked: readonly string[];
  /**
   * The ids of the clusters of the stage before that are not waited for: synced by hand
   * (`clusters.<id>.manualSync`), so nothing syncs them by itself (see manualClusters).
   */
  readonly manual: readonly string[];
  /** No cluster is at this stage: a loop over the stages (the promote workflow) stops here. */
  readonly noSuchStage: boolean;
  /** The stage's ref, `<gitops.stageRefPrefix>STAGE`. */
  readonly ref: string;
  /** The GitHub environment the push runs in, whose required reviewers approve it (`gitops.stages.<N>.environment`). @default - none: no approval */
  readonly environment?: string;
  /** How long after the stage before finished the revision may reach this stage (`gitops.stages.<N>.soak`), in minutes. */
  readonly soakMinutes: number;
  /**
   * When the stage before finished the revision, as its Argo CD recorded it (ms since the epoch):
   * the latest `status.operationState.finishedAt` or `status.health.lastTransitionTime` of its
   * Applications, once each is Synced at the revision and Healthy.
   * @default - not known: the stage before has not finished, or Argo CD recorded no time
   */
  readonly finishedAt?: number;
  /** Minutes of the soak left at the time of the decision, 0 once passed. @default - not started: the stage before has not finished */
  readonly soakRemainingMinutes?: number;
}

/** How {@link promotion} decides, besides the Applications. */
export interface PromotionOptions {
  /**
   * Whether the main branch still has the revision's files for a cluster of the stage
   * (`dist/<cluster>/`, `argocd/<cluster>.yaml`); undefined: it could not be told, which holds
   * the promotion too.
   * @default - not asked
   */
  readonly stillWanted?: (cluster: Cluster) => boolean | undefined;
  /** When the decision is made, in ms since the epoch: the soak is measured up to it. @default - the clock */
  readonly now?: number;
}

/** The fields of an Argo CD Application that the decision reads (`kubectl get applications -o json`). */
interface LiveApplication {
  readonly metadata?: { readonly name?: string };
  readonly status?: {
    readonly sync?: { readonly status?: string; readonly revision?: string; readonly revisions?: readonly string[] };
    readonly health?: { readonly status?: string; readonly lastTransitionTime?: string };
    readonly operationState?: { readonly phase?: string; readonly finishedAt?: string };
    readonly conditions?: readonly { readonly type?: string; readonly message?: string }[];
  };
}

/** An Application a promotion waits for: its name, and whether its status carries the git revision. */
interface Checked {
  readonly name: string;
  /** It has a git source: `status.sync.revision` (or one of `revisions`) must be the revision. */
  readonly git: boolean;
}

/**
 * The Applications of a cluster that must have a revision before the next stage gets it:
 * its root and every automated Application the root creates (CRDs, controller, policies,
 * pools, overlays and the drift gate, whose health is Karpenter having finished); not the
 * smoke tests (synced by hand) or the orphaned pools Application of earlier releases.
 */
function applicationsOf(platform: Platform, cluster: Cluster): Checked[] {
  const { root, children } = clusterApplicationModels(platform, cluster);
  return [root, ...children].filter((a) => a.automated).map((a) => ({ name: a.name, git: a.sources.some((s) => !('chart' in s)) }));
}

/**
 * The clusters of `stage` whose Applications sync only by hand (`manualSync: true`, as adopt
 * writes it): a promotion does not wait for them. Such an Application has no
 * `syncPolicy.automated`, and Argo CD's controller starts no sync of it by itself: `autoSync`
 * returns before any operation when automated sync is off (argo-cd v3.5.1
 * controller/appcontroller.go l. 2332-2334; `SyncPolicy.IsAutomatedSyncEnabled`,
 * pkg/apis/application/v1alpha1/types.go l. 1531-1536). Waiting for it to reach the revision
 * would hold every later stage until a person syncs it, which for a cluster being adopted is by
 * design later (docs/adopting.md); so it is named in the decision instead, as not waited for,
 * and the review says its changes happen when someone syncs it (docs/review.md).
 */
function manualClusters(platform: Platform, stage: number): Cluster[] {
  return platform.clusters.filter((c) => c.stage === stage && c.manualSync === true);
}

/** Messages Argo CD's repo server gives when a git revision cannot be resolved (a stage ref not created yet). */
const UNRESOLVED = /unable to resolve|couldn't find remote ref|reference not found|not a valid revision/i;

/**
 * Operation phases of a sync that has ended (`OperationPhase.Completed`): only then is its
 * `finishedAt` the end of the sync; a `Running` operation carries one between retries.
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/gitops-engine/pkg/sync/common/types.go (l. 74-90: OperationPhase, Completed)
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/controller/appcontroller.go (l. 1626-1629: FinishedAt set on a Running phase to time the retry)
 */
const COMPLETED = new Set(['Succeeded', 'Failed', 'Error']);

/**
 * When an Application last became what it is, as Argo CD recorded it: its last completed
 * operation's `finishedAt` (written when the operation completes, `setOperationState`,
 * controller/appcontroller.go l. 1668-1677) or its health's `lastTransitionTime` (written when
 * the health status changes and only then, `persistAppStatus` l. 2245-2256), the later of the
 * two. `running` when an operation is under way (it has not finished); undefined when neither
 * time is recorded.
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/pkg/apis/application/v1alpha1/types.go (l. 1451-1465 OperationState.FinishedAt; l. 1954-1963 AppHealthStatus.LastTransitionTime)
 */
function settledAt(app: LiveApplication): number | 'running' | undefined {
  const op = app.status?.operationState;
  if (op?.phase !== undefined && !COMPLETED.has(op.phase)) return 'running';
  const times = [op?.finishedAt, app.status?.health?.lastTransitionTime].map((t) => (t === undefined ? NaN : Date.parse(t))).filter((t) => !Number.isNaN(t));
  return times.length === 0 ? undefined : Math.max(...times);
}

/** Minutes as `24h`, `3h20m`, `45m`, as `gitops.stages.<N>.soak` is written. */
export function minutesText(minutes: number): string {
  const [h, m] = [Math.floor(minutes / 60), minutes % 60];
  return h === 0 ? `${m}m` : m === 0 ? `${h}h` : `${h}h${m}m`;
}

/** ms since the epoch as RFC 3339 to the second, as Argo CD writes times (`metav1.Time`). */
export function rfc3339(t: number): string {
  return new Date(t).toISOString().replace(/\.[0-9]{3}Z$/, 'Z');
}

/**
 * Whether `revision` may be promoted to stage `stage`:
 *
 * 1. every Application of every stage-(STAGE-1) cluster (see applicationsOf) reports
 *    `status.sync.status` Synced, at `revision` (`status.sync.revision`, or among `revisions` for
 *    the controller's chart and values), and `status.health.status` Healthy. The drift gate
 *    Application is Healthy only once its Job has seen Karpenter finish with this revision
 *    (docs/windows.md). `applications` is `kubectl -n argocd get applications -o json` (a List,
 *    or one Application; several instances' lists merged by {@link mergeApplications});
 * 2. the stage's soak (`gitops.stages.<N>.soak`) has passed since the stage before finished:
 *    when the last of those Applications became Synced and Healthy, as Argo CD recorded it
 *    (see settledAt), not when anyone looked;
 * 3. main still wants it: `stillWanted(cluster)` says whether each stage-STAGE cluster's generated
 *    files (`dist/<cluster>/`, `argocd/<cluster>.yaml`) are the same at `revision` and on the main
 *    branch. A commit main has since reverted, or changed again for these clusters, is not
 *    promoted: the stage waits for the stage before to finish main's version (so a revert is
 *    never overtaken by the commit it reverts). A main that changes those files faster than the
 *    stage before finishes them starves the stage: the blocker says so.
 *
 * The decision names the stage's GitHub environment (`gitops.stages.<N>.environment`), whose
 * reviewers approve the push: the promote workflow pushes in it.
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/pkg/apis/application/v1alpha1/types.go (SyncStatus: revision, revisions)
 */
export function promotion(platform: Platform, stage: number, revision: string, applications: unknown, options: PromotionOptions = {}): Promotion {
  const { stillWanted, now = Date.now() } = options;
  const items: LiveApplication[] = Array.isArray((applications as { items?: unknown })?.items)
    ? (applications as { items: LiveApplication[] }).items : [applications as LiveApplication];
  const byName = new Map(items.filter((a) => a?.metadata?.name).map((a) => [a.metadata!.name!, a]));
  const before = platform.clusters.filter((c) => c.stage === stage - 1);
  const policy = platform.gitops.stages?.find((s) => s.stage === stage);
  const soakMinutes = policy?.soakMinutes ?? 0;
  const blockers: string[] = [];
  const checked: string[] = [];
  if (stage < 2) blockers.push(`stage ${stage}: only stages 2 and later are promoted (stage 1 tracks gitops.targetRevision)`);
  else if (!platform.clusters.some((c) => c.stage === stage)) blockers.push(`no cluster is at stage ${stage}`);
  else if (before.length === 0) blockers.push(`no cluster is at stage ${stage - 1}, which stage ${stage} waits for`);
  const settled: { name: string; at: number | 'running' | undefined }[] = [];
  const manual = blockers.length === 0 ? manualClusters(platform, stage - 1).map((c) => c.id) : [];
  for (const cluster of blockers.length === 0 ? before.filter((c) => c.manualSync !== true) : []) {
    for (const { name, git } of applicationsOf(platform, cluster)) {
      checked.push(name);
      const app = byName.get(name);
      const where = `${name} (cluster ${cluster.id}, stage ${stage - 1})`;
      if (!app) {
        const from = [
          isStaged(cluster) ? `its root creates it from ${clusterRevision(platform, cluster)}` : undefined,
          cluster.argocd !== undefined ? `read from Argo CD ${cluster.argocd}` : undefined,
        ].filter((w): w is string => w !== undefined);
        blockers.push(`${where}: not in the Applications given${from.length ? ` (${from.join('; ')})` : ''}`);
        continue;
      }
      const sync = app.status?.sync;
      const revisions = sync?.revisions ?? (sync?.revision !== undefined ? [sync.revision] : []);
      const health = app.status?.health?.status ?? 'Unknown';
      const unresolved = (app.status?.conditions ?? []).find((c) => c.type === 'ComparisonError' && UNRESOLVED.test(c.message ?? ''));
      const why = [
        unresolved && isStaged(cluster) ? `its stage ref ${stageRef(platform, cluster.stage!)} does not exist yet: promote stage ${cluster.stage} first` : undefined,
        sync?.status !== 'Synced' ? `sync is ${sync?.status ?? 'Unknown'}` : undefined,
        git && !revisions.includes(revision) ? `at revision ${revisions.join(', ') || 'none'}, not ${revision}` : undefined,
        health !== 'Healthy' ? `health is ${health}${health === 'Progressing' && name === APP_NAMES.driftGate(cluster.id) ? ' (the drift gate waits for Karpenter to finish with the revision)' : ''}` : undefined,
      ].filter((w): w is string => w !== undefined);
      if (why.length) blockers.push(`${where}: ${why.join(', ')}`);
      else settled.push({ name, at: settledAt(app) });
    }
  }
  // The stage before has finished once every Application is settled; the soak counts from the last.
  const finished = blockers.length === 0 && settled.every((s) => typeof s.at === 'number') && settled.length > 0
    ? Math.max(...settled.map((s) => s.at as number)) : undefined;
  const soakRemainingMinutes = finished === undefined ? undefined : Math.max(0, Math.ceil((finished + soakMinutes * 60_000 - now) / 60_000));
  if (blockers.length === 0 && soakMinutes > 0) {
    const running = settled.filter((s) => s.at === 'running').map((s) => s.name);
    const unknown = settled.filter((s) => s.at === undefined).map((s) => s.name);
    if (running.length) blockers.push(`stage ${stage} soaks ${minutesText(soakMinutes)} after stage ${stage - 1} finished: a sync operation is running on ${running.join(', ')}, so it has not finished`);
    else if (unknown.length) blockers.push(`stage ${stage} soaks ${minutesText(soakMinutes)} after stage ${stage - 1} finished, but Argo CD recorded no status.operationState.finishedAt or status.health.lastTransitionTime on ${unknown.join(', ')} (Argo CD 3.x writes them)`);
    else if (soakRemainingMinutes! > 0) {
      const last = settled.find((s) => s.at === finished)!.name;
      blockers.push(`stage ${stage} soaks ${minutesText(soakMinutes)} after stage ${stage - 1} finished at ${rfc3339(finished!)} (${last} Synced and Healthy, as Argo CD recorded it): ${minutesText(soakRemainingMinutes!)} left`);
    }
  }
  if (blockers.length === 0 && stillWanted) {
    for (const cluster of platform.clusters.filter((c) => c.stage === stage)) {
      const wanted = stillWanted(cluster);
      if (wanted === false) {
        blockers.push(`cluster ${cluster.id} (stage ${stage}): the main branch has changed its files since ${revision} (a revert, or a newer change): stage ${stage} waits for stage ${stage - 1} to finish the main branch's version `
          + `(a main branch that changes them faster than stage ${stage - 1} finishes starves stage ${stage}: batch the changes, or hold merges until it is promoted)`);
      }
      if (wanted === undefined) blockers.push(`cluster ${cluster.id} (stage ${stage}): cannot tell whether the main branch still has ${revision}'s files for it`);
    }
  }
  const ready = blockers.length === 0;
  const ref = stageRef(platform, stage);
  return {
    ready, blockers, checked, manual, noSuchStage: stage >= 2 && !platform.clusters.some((c) => c.stage === stage), ref, soakMinutes,
    ...(ready ? { command: `git push origin ${revision}:refs/heads/${ref}` } : {}),
    ...(policy?.environment !== undefined ? { environment: policy.environment } : {}),
    ...(finished !== undefined ? { finishedAt: finished, soakRemainingMinutes } : {}),
  };
}

/** One file of Applications, as read: where it came from (for messages) and its JSON. */
export interface ApplicationsFile {
  /** The file as the user named it (or `stdin`). */
  readonly from: string;
  /** `kubectl get applications -o json`: a List, or one Application. */
  readonly json: unknown;
}

/**
 * The Applications of several Argo CD instances (one file each) as one List, and a problem for
 * each name found in two files: the promotion could not tell which one a cluster's is (the
 * generator names every Application after its cluster, so a name in two instances is the same
 * file read twice, or a cluster deployed by both).
 */
export function mergeApplications(files: readonly ApplicationsFile[]): { readonly applications: { readonly items: readonly unknown[] }; readonly problems: readonly string[] } {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  const items: unknown[] = [];
  for (const { from, json } of files) {
    const list: LiveApplication[] = Array.isArray((json as { items?: unknown })?.items) ? (json as { items: LiveApplication[] }).items : [json as LiveApplication];
    for (const app of list) {
      const name = app?.metadata?.name;
      if (name === undefined) continue;
      const first = seen.get(name);
      if (first !== undefined) {
        problems.push(`Application ${name} is in ${first} and in ${from}: give each Argo CD instance's Applications once (the same file twice, or a cluster two instances deploy?)`);
        continue;
      }
      seen.set(name, from);
      items.push(app);
    }
  }
  return { applications: { items }, problems };
}

/** What the promote workflow needs to build its jobs (`npm run promote -- plan --format json`). */
export interface PromotionPlan {
  /** The version of this data's shape. */
  readonly version: 1;
  /** Where Argo CD's Applications are (`gitops.argocdNamespace`). */
  readonly argocdNamespace: string;
  /**
   * The Argo CD instances to read (`gitops.argocd`), each with the clusters it deploys.
   * @default [] - the fleet's one Argo CD, read with the ARGOCD_KUBECONFIG secret
   */
  readonly instances: readonly { readonly name: string; readonly eksCluster: string; readonly region: string; readonly roleArn: string; readonly clusters: readonly string[] }[];
  /** Every stage that is promoted (2 and later), in order. */
  readonly stages: readonly {
    readonly stage: number;
    /** Its ref, `<gitops.stageRefPrefix>N`. */
    readonly ref: string;
    /** The ref of the stage before, whose commit it is promoted to; none for stage 2, which follows the main branch. */
    readonly follows?: string;
    readonly soakMinutes: number;
    /** The GitHub environment its push runs in. @default - none */
    readonly environment?: string;
    readonly clusters: readonly string[];
  }[];
}

/** The promote workflow's plan of a platform: its Argo CD instances and stages (see {@link PromotionPlan}). */
export function promotionPlan(platform: Platform): PromotionPlan {
  const stages = [...new Set(platform.clusters.map((c) => c.stage).filter((s): s is number => s !== undefined && s >= 2))].sort((a, b) => a - b);
  return {
    version: 1,
    argocdNamespace: platform.gitops.argocdNamespace,
    instances: (platform.gitops.argocdInstances ?? []).map((i) => ({
      name: i.name, eksCluster: i.eksCluster, region: i.region, roleArn: i.roleArn,
      clusters: platform.clusters.filter((c) => c.argocd === i.name).map((c) => c.id),
    })),
    stages: stages.map((stage) => {
      const policy = platform.gitops.stages?.find((s) => s.stage === stage);
      return {
        stage, ref: stageRef(platform, stage),
        ...(stage > 2 ? { follows: stageRef(platform, stage - 1) } : {}),
        soakMinutes: policy?.soakMinutes ?? 0,
        ...(policy?.environment !== undefined ? { environment: policy.environment } : {}),
        clusters: platform.clusters.filter((c) => c.stage === stage).map((c) => c.id),
      };
    }),
  };
}
