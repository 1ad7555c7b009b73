import { createHash } from 'node:crypto';
import type { Cluster, Platform } from '../config/platform';
import { APP_NAMES } from '../config/reserved';
import type { ApplicationModel, GitSource } from '../model/applications';
import { someNames } from '../model/cluster-sets';
import { clusterApplicationModels, clusterRevision, isStaged, stageRef } from '../model/stages';
import { LiveApplication, parseApplications } from './live-applications';

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
  /** A digest of the Argo CD state the decision read (see stateDigest): an approved push goes ahead only while it is the same. */
  readonly state: string;
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

/** An Application a promotion waits for: its name, and whether its status carries the git revision. */
interface Checked {
  readonly name: string;
  /** It has a git source: `status.sync.revision` (or one of `revisions`) must be the revision. */
  readonly git: boolean;
  /** The Application as the generator writes it: its destination and sources identify it. */
  readonly model: ApplicationModel;
}

/**
 * The Applications of a cluster that must have a revision before the next stage gets it:
 * its root and every automated Application the root creates (CRDs, controller, policies,
 * pools, overlays and the drift gate, whose health is Karpenter having finished); not the
 * smoke tests (synced by hand) or the orphaned pools Application of earlier releases.
 */
function applicationsOf(platform: Platform, cluster: Cluster): Checked[] {
  const { root, children } = clusterApplicationModels(platform, cluster);
  return [root, ...children].filter((a) => a.automated).map((a) => ({ name: a.name, git: a.sources.some((s) => !('chart' in s)), model: a }));
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
export function promotion(platform: Platform, stage: number, revision: string, applications: Applications, options: PromotionOptions = {}): Promotion {
  const { stillWanted, now = Date.now() } = options;
  const before = platform.clusters.filter((c) => c.stage === stage - 1);
  const policy = platform.gitops.stages?.find((s) => s.stage === stage);
  const soakMinutes = policy?.soakMinutes ?? 0;
  const blockers: string[] = [];
  if (stage < 2) blockers.push(`stage ${stage}: only stages 2 and later are promoted (stage 1 tracks gitops.targetRevision)`);
  else if (!platform.clusters.some((c) => c.stage === stage)) blockers.push(`no cluster is at stage ${stage}`);
  else if (before.length === 0) blockers.push(`no cluster is at stage ${stage - 1}, which stage ${stage} waits for`);
  const manual = blockers.length === 0 ? manualClusters(platform, stage - 1).map((c) => c.id) : [];
  const looked = blockers.length === 0 ? lookAt(platform, before.filter((c) => c.manualSync !== true), revision, applications) : { checked: [], settled: [], blockers: [] };
  blockers.push(...looked.blockers);
  const { checked, settled } = looked;
  // The stage before has finished once every Application is settled; the soak counts from the last.
  const finished = blockers.length === 0 && settled.length > 0 && settled.every((s) => typeof s.at === 'number')
    ? Math.max(...settled.map((s) => (typeof s.at === 'number' ? s.at : 0))) : undefined;
  const soakRemainingMinutes = finished === undefined ? undefined : Math.max(0, Math.ceil((finished + soakMinutes * 60_000 - now) / 60_000));
  if (blockers.length === 0 && soakMinutes > 0) blockers.push(...soakBlockers(stage, soakMinutes, settled, finished, soakRemainingMinutes));
  if (blockers.length === 0 && stillWanted) blockers.push(...wantedBlockers(platform, stage, revision, stillWanted));
  const ready = blockers.length === 0;
  const ref = stageRef(platform, stage);
  return {
    ready, blockers, checked, manual, noSuchStage: stage >= 2 && !platform.clusters.some((c) => c.stage === stage), ref, soakMinutes,
    state: stateDigest(checked.map((name) => [name, applications.get(name)])),
    ...(ready ? { command: `git push origin ${revision}:refs/heads/${ref}` } : {}),
    ...(policy?.environment !== undefined ? { environment: policy.environment } : {}),
    ...(finished !== undefined ? { finishedAt: finished, soakRemainingMinutes } : {}),
  };
}

/** An Application of the stage before that is Synced at the revision and Healthy, and since when. */
interface Settled {
  readonly name: string;
  readonly at: number | 'running' | undefined;
}

/** Every Application of `clusters` checked against the revision: the settled ones, and what holds the others, grouped. */
function lookAt(platform: Platform, clusters: readonly Cluster[], revision: string, applications: Applications): { checked: string[]; settled: Settled[]; blockers: string[] } {
  const checked: string[] = [];
  const settled: Settled[] = [];
  const held = new Map<string, string[]>();
  const hold = (cluster: Cluster, text: string) => {
    const list = held.get(text) ?? [];
    held.set(text, [...list, cluster.id]);
  };
  for (const cluster of clusters) {
    const reasons: string[] = [];
    const absent: string[] = [];
    for (const app of applicationsOf(platform, cluster)) {
      checked.push(app.name);
      const live = applications.get(app.name);
      if (!live) {
        absent.push(app.name);
        continue;
      }
      const why = [...notTheClusters(app.model, live), ...statusWhy(platform, cluster, app, live, revision)];
      if (why.length) reasons.push(`${generic(app.name, cluster)}: ${why.join(', ')}`);
      else settled.push({ name: app.name, at: settledAt(live) });
    }
    if (reasons.length) hold(cluster, reasons.join('; '));
    if (absent.length) hold(cluster, notGiven(platform, cluster, absent));
  }
  return { checked, settled, blockers: [...held].map(([text, ids]) => groupLine(ids, clusters, text)) };
}

/** An Application's name with its cluster's id put as `<cluster>`, so that clusters held for one reason group. */
const generic = (name: string, cluster: Cluster) => name.split(cluster.id).join('<cluster>');

/** One line for the clusters held for one reason: the cluster itself when alone. */
function groupLine(ids: readonly string[], clusters: readonly Cluster[], text: string): string {
  const stage = clusters.find((c) => c.id === ids[0])?.stage;
  if (ids.length === 1) return `cluster ${ids[0]} (stage ${stage}): ${text.split('<cluster>').join(ids[0])}`;
  return `${ids.length} clusters of stage ${stage} (${someNames(ids)}): ${text}`;
}

/** Why Applications of a cluster are missing from the files: every one of them, or some. */
function notGiven(platform: Platform, cluster: Cluster, absent: readonly string[]): string {
  const from = [
    isStaged(cluster) ? `its root creates them from ${clusterRevision(platform, cluster)}` : undefined,
    cluster.argocd !== undefined ? `read from Argo CD ${cluster.argocd}` : undefined,
  ].filter((w): w is string => w !== undefined);
  const all = absent.length === applicationsOf(platform, cluster).length;
  const what = all ? 'no Application of the cluster is' : `${absent.map((n) => generic(n, cluster)).join(', ')} ${absent.length === 1 ? 'is' : 'are'} not`;
  return `${what} in the Applications given${from.length ? ` (${from.join('; ')})` : ''}`;
}

/**
 * Whether the Application found by name is the cluster's: its destination (server or name) and
 * every git source's repository and path are those the generator writes. An Application of the
 * same name that deploys elsewhere, or from another repository (another fleet's, a hand-made
 * one), says nothing about this cluster.
 */
function notTheClusters(model: ApplicationModel, live: LiveApplication): string[] {
  const spec = live.spec;
  const want = model.destination;
  const got = spec?.destination;
  const wantText = 'server' in want ? `server ${want.server}` : `name ${want.name}`;
  const gotText = got?.server ? `server ${got.server}` : got?.name ? `name ${got.name}` : 'none';
  const destination = ('server' in want ? got?.server === want.server : got?.name === want.name) ? [] : [`not this cluster's: its destination is ${gotText}, the generator's ${wantText}`];
  const sources = [...(spec?.source ? [spec.source] : []), ...(spec?.sources ?? [])];
  const missing = model.sources.filter(isFolder)
    .filter((m) => !sources.some((s) => sameRepository(s.repoURL, m.repoURL) && trimSlashes(s.path) === trimSlashes(m.path)));
  return [...destination, ...missing.map((m) => `not this cluster's: no source is ${m.repoURL} ${m.path}`)];
}

/** A git source that is a folder (not a chart, not only a `ref` for other sources' value files). */
const isFolder = (s: ApplicationModel['sources'][number]): s is GitSource & { readonly path: string } => !('chart' in s) && s.path !== undefined;
const trimSlashes = (p: string | undefined) => (p ?? '').replace(/^\.?\/+|\/+$/g, '');
/** Argo CD's repository URLs compare without a trailing `.git` or `/` and case-insensitively (argo-cd v3.5.1 util/git/git.go `NormalizeGitURL`, `SameURL`). */
const sameRepository = (a: string | undefined, b: string) => (a ?? '').toLowerCase().replace(/(\.git)?\/*$/, '') === b.toLowerCase().replace(/(\.git)?\/*$/, '');

/** What keeps one Application from counting: its sync, revision and health. */
function statusWhy(platform: Platform, cluster: Cluster, app: Checked, live: LiveApplication, revision: string): string[] {
  const sync = live.status?.sync;
  const revisions = sync?.revisions ?? (sync?.revision !== undefined ? [sync.revision] : []);
  const health = live.status?.health?.status ?? 'Unknown';
  const unresolved = (live.status?.conditions ?? []).find((c) => c.type === 'ComparisonError' && UNRESOLVED.test(c.message ?? ''));
  return [
    unresolved && isStaged(cluster) ? `its stage ref ${stageRef(platform, cluster.stage ?? 0)} does not exist yet: promote stage ${cluster.stage} first` : undefined,
    sync?.status !== 'Synced' ? `sync is ${sync?.status ?? 'Unknown'}` : undefined,
    app.git && !revisions.includes(revision) ? `at revision ${revisions.join(', ') || 'none'}, not ${revision}` : undefined,
    health !== 'Healthy' ? `health is ${health}${health === 'Progressing' && app.name === APP_NAMES.driftGate(cluster.id) ? ' (the drift gate waits for Karpenter to finish with the revision)' : ''}` : undefined,
  ].filter((w): w is string => w !== undefined);
}

/** What holds a stage whose stage before has settled, for its soak. */
function soakBlockers(stage: number, soakMinutes: number, settled: readonly Settled[], finished: number | undefined, left: number | undefined): string[] {
  const running = settled.filter((s) => s.at === 'running').map((s) => s.name);
  const unknown = settled.filter((s) => s.at === undefined).map((s) => s.name);
  if (running.length) return [`stage ${stage} soaks ${minutesText(soakMinutes)} after stage ${stage - 1} finished: a sync operation is running on ${someNames(running)}, so it has not finished`];
  if (unknown.length) return [`stage ${stage} soaks ${minutesText(soakMinutes)} after stage ${stage - 1} finished, but Argo CD recorded no status.operationState.finishedAt or status.health.lastTransitionTime on ${someNames(unknown)} (Argo CD 3.x writes them)`];
  if (finished === undefined || left === undefined || left <= 0) return [];
  const last = settled.find((s) => s.at === finished)?.name ?? '';
  return [`stage ${stage} soaks ${minutesText(soakMinutes)} after stage ${stage - 1} finished at ${rfc3339(finished)} (${last} Synced and Healthy, as Argo CD recorded it): ${minutesText(left)} left`];
}

/** The clusters of `stage` whose files the main branch has changed since `revision`, or could not tell. */
function wantedBlockers(platform: Platform, stage: number, revision: string, stillWanted: (cluster: Cluster) => boolean | undefined): string[] {
  const changed: string[] = [];
  const unknown: string[] = [];
  for (const cluster of platform.clusters.filter((c) => c.stage === stage)) {
    const wanted = stillWanted(cluster);
    if (wanted === false) changed.push(cluster.id);
    if (wanted === undefined) unknown.push(cluster.id);
  }
  const who = (ids: readonly string[]) => (ids.length === 1 ? `cluster ${ids[0]} (stage ${stage})` : `${ids.length} clusters of stage ${stage} (${someNames(ids)})`);
  return [
    ...(changed.length ? [`${who(changed)}: the main branch has changed ${changed.length === 1 ? 'its' : 'their'} files since ${revision} (a revert, or a newer change): stage ${stage} waits for stage ${stage - 1} to finish the main branch's version `
      + `(a main branch that changes them faster than stage ${stage - 1} finishes starves stage ${stage}: batch the changes, or hold merges until it is promoted)`] : []),
    ...(unknown.length ? [`${who(unknown)}: cannot tell whether the main branch still has ${revision}'s files for ${unknown.length === 1 ? 'it' : 'them'}`] : []),
  ];
}

/**
 * A digest of what Argo CD said of the Applications a decision read: each one's sync status and
 * revisions, health, operation phase and times. An approved push re-reads Argo CD and pushes
 * only when this is unchanged: the reviewers approved a decision, not whatever the stage became
 * while they read it. `reconciledAt` is left out (it moves every few minutes by itself).
 */
function stateDigest(apps: readonly (readonly [string, LiveApplication | undefined])[]): string {
  const facts = apps.map(([name, a]) => [name, a?.status?.sync?.status, a?.status?.sync?.revision, a?.status?.sync?.revisions, a?.status?.health?.status,
    a?.status?.health?.lastTransitionTime, a?.status?.operationState?.phase, a?.status?.operationState?.finishedAt]);
  return createHash('sha256').update(JSON.stringify(facts)).digest('hex').slice(0, 16);
}

/** Argo CD's Applications by name, as the promotion reads them (see live-applications.ts). */
export type Applications = ReadonlyMap<string, LiveApplication>;

/** `kubectl get applications -o json` (a List, or one Application) by name; throws on one that is not (tests, simulations). */
export function applicationsIndex(json: unknown, from = 'the Applications'): Applications {
  const { read, problems } = parseApplications(JSON.stringify(json), from);
  if (!read) throw new Error(problems.join('\n'));
  return new Map(read.items.map((a) => [a.metadata.name, a]));
}

