/**
 * Argo CD's application controller for the rollout simulation, written from argo-cd v3.5.1
 * (gitops-engine is vendored in that repository at `gitops-engine/`). It reads Applications and
 * AppProjects from the Argo CD cluster's simulated API server, git through {@link GitSim}, and
 * applies to the simulated clusters; what it writes into each Application's `status` is built
 * by test/support/argocd-status.ts from Argo CD's Go types, so a health check or `npm run
 * promote` reads what the real controller would write.
 *
 * **Refresh** (controller/appcontroller.go):
 * - the Application informer resyncs every `timeout.reconciliation` (120s; informer created
 *   with `refreshTimeout`, l. 2584-2595) and each resync requests a refresh after a random
 *   jitter below `timeout.reconciliation.jitter` (60s; l. 2699-2702; defaults:
 *   cmd/argocd-application-controller/commands/argocd_application_controller.go l. 45-47),
 *   which compares with the latest git revision only once the last such comparison is older
 *   than 120s (`needRefreshAppStatus` l. 2105-2150, `Expired` types.go l. 3660-3662);
 * - a spec whose sources differ from the ones compared is refreshed at once, resolving git
 *   afresh (l. 2119-2124: CompareWithLatestForceResolve), as is a new Application;
 * - a change to a managed resource (a child Application's status included) refreshes its
 *   Application at once, comparing with the revision already resolved (`handleObjectUpdated`
 *   l. 436-500: CompareWithRecent; l. 1911-1918: `revisions = app.Status.Sync.Revisions`);
 * - git refs come from `ls-remote`, cached for 3 minutes (`--revision-cache-expiration`,
 *   reposerver/cache/cache.go l. 70; util/git/client.go l. 812-870) unless the comparison
 *   resolves afresh (reposerver/repository/repository.go l. 353: no cache with noRevisionCache);
 * - a repository error (a ref that does not exist) is not written until it has lasted the grace
 *   period, `defaultRepoErrorGracePeriod` = 180s (controller/state.go l. 694-712), then the
 *   Application is `Unknown` with a `ComparisonError` (state.go l. 1034-1035).
 *
 * **Comparison** (`CompareAppState`, controller/state.go l. 633-1070): the desired objects of
 * each source (a directory source: GitSim.directory; a chart source: karpenter-chart.ts, values
 * from the `$values` ref source), a namespaced object without namespace in the destination's;
 * an object is Synced when what was last applied equals it (the objects' fields written by
 * controllers are not compared, as with server-side diff); an object the Application applied and
 * no longer wants needs pruning. Health (controller/health.go l. 20-104): the worst resource
 * health, skipping resources without health, missing ones and a child Application's Missing or
 * Unknown; Missing when no resource exists yet. Resource health (gitops-engine
 * pkg/health/health.go l. 70-101): Progressing while being deleted, else the `argocd-cm`
 * health Lua of the kind (the generated `argocd/argocd-cm-patch.yaml`), else Argo CD's built-in
 * Lua (test/fixtures/argocd-health), else the built-in Go checks for Deployment
 * (health_deployment.go l. 28-70) and Job (health_job.go l. 30-75), else none.
 *
 * **Auto-sync** (`autoSync` l. 2322-2470), only when the project's sync windows allow
 * (`CanSync(false, nil)` l. 1947-1970; nothing is written when they do not): skipped while an
 * operation exists or the Application is not OutOfSync; a revision (and sources) already
 * attempted is not synced again when that attempt failed (`SyncError` condition), and is
 * self-healed when it succeeded; `Prune` false and only pruning left: skipped.
 *
 * **Sync operation** (`processRequestedAppOperation` l. 1512-1667, controller/sync.go
 * `SyncAppState` l. 102-150 and gitops-engine pkg/sync/sync_context.go `Sync` l. 478-720),
 * driven every simulated minute while it runs:
 * - blocked, still Running, while a sync window of its project denies it (sync.go l. 123-131,
 *   `syncWindowPreventsSync` l. 625-642: automated, no overrun);
 * - every task must be permitted by the project (`IsGroupKindNamePermitted`,
 *   app_project_types.go l. 399-418, and the destination, l. 483-522), else the operation fails;
 * - waves in order (`argocd.argoproj.io/sync-wave`, 0 by default); a multi-wave sync waits
 *   until every object of the wave applied is Healthy (or has no health) and fails when one is
 *   Degraded (l. 540-590); the last wave succeeds once applied, "EVEN if those objects
 *   subsequently degrade" (l. 703-712); prune tasks take their object's wave, the prune waves
 *   reversed (l. 1097-1125), except that an object with `PruneLast=true` is pruned in a wave of
 *   its own after every other (l. 1127-1143); an object with `Prune=confirm` waits for a person;
 * - an object the API server refuses fails the operation ("one or more objects failed to apply"),
 *   retried `retry.limit` times after `duration * factor^n`, at most `maxDuration`
 *   (l. 1546-1575, 1619-1635; `NextRetryAt` types.go l. 1567-1596), then Failed; each retry is a
 *   new sync context (its hooks run again).
 * A completed operation requests a refresh (l. 1641-1660).
 *
 * **Resource hooks** (gitops-engine pkg/sync/hook/hook.go l. 26-41, delete_policy.go l. 11-26; sync_context.go), PreSync
 * only (any other hook type is an error of the simulation):
 * - an object annotated `argocd.argoproj.io/hook` is not compared, never makes the Application
 *   OutOfSync, never counts toward its health and is never pruned (controller/state.go l. 981-985,
 *   controller/health.go l. 30-32, sync_context.go l. 966-970);
 * - a sync runs the PreSync phase's waves before any of the Sync phase's (sync_tasks.go l. 15-19,
 *   80-110); before creating a hook whose object is there from an earlier sync, it deletes that
 *   object when the hook's delete policies hold `BeforeHookCreation` (the default when none is
 *   given) and waits until it is gone (l. 1650-1684);
 * - a running hook is always waited for; Healthy (or no health) succeeds, Progressing or Suspended
 *   runs, Degraded or Unknown fails the sync (`getOperationPhase` l. 348-371, l. 573-597, 634-640);
 * - once the sync succeeded its `HookSucceeded` hooks are deleted, once it failed its `HookFailed`
 *   ones (l. 620-640, 652-656, 703-712).
 * Not modelled: the hook finalizer Argo CD adds to each hook and removes once it completed
 * (l. 998-1000, 611-618): nothing here deletes a running hook but Argo CD itself.
 *
 * **Times** it records, which `npm run promote` measures a soak from: the operation's `startedAt`
 * and `finishedAt` (set when it completes, `setOperationState` l. 1668-1677, and while a failed
 * attempt waits for its retry, l. 1619-1630) and the health's `lastTransitionTime` (moved when,
 * and only when, the health status changes, `persistAppStatus` l. 2245-2256).
 *
 * Upstream: MODELS.argocd (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import { parseAllDocuments } from 'yaml';
import { anApplicationStatus } from './argocd-status';
import { SyncWindowSimulator } from './argocd-sync-window';
import type { GitSim } from './git-sim';
import { renderChart } from './karpenter-chart';
import { ApiError, kindInfo, KubeApi, KubeObject, Live, objectKey } from './kube-sim';
import { FENGARI_COMPILED, useOpenLibs } from './lua';

/** The in-cluster API server's URL, and Argo CD's name for it. */
const IN_CLUSTER = 'https://kubernetes.default.svc';
const RESYNC_MS = 120_000;
const JITTER_MS = 60_000;
const REPO_ERROR_GRACE_MS = 180_000;
const REF_CACHE_MS = 180_000;
const WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';

/** Comparison levels (appcontroller.go l. 93-99). */
const enum Level { Nothing = 0, Recent = 1, Latest = 2, ForceResolve = 3 }

interface Source {
  readonly repoURL: string;
  readonly targetRevision?: string;
  readonly path?: string;
  readonly chart?: string;
  readonly ref?: string;
  readonly helm?: { readonly releaseName?: string; readonly valueFiles?: readonly string[] };
  readonly directory?: { readonly include?: string; readonly recurse?: boolean };
}

interface ApplicationSpec {
  readonly project: string;
  readonly source?: Source;
  readonly sources?: readonly Source[];
  readonly destination: { readonly server?: string; readonly name?: string; readonly namespace?: string };
  readonly ignoreDifferences?: unknown;
  readonly syncPolicy?: {
    readonly automated?: { readonly enabled?: boolean; readonly prune?: boolean; readonly selfHeal?: boolean; readonly allowEmpty?: boolean };
    readonly syncOptions?: readonly string[];
    readonly retry?: { readonly limit?: number; readonly backoff?: { readonly duration?: string; readonly factor?: number; readonly maxDuration?: string } };
  };
}

interface ProjectSpec {
  readonly sourceRepos?: readonly string[];
  readonly destinations?: readonly { readonly server?: string; readonly name?: string; readonly namespace?: string }[];
  readonly clusterResourceWhitelist?: readonly { readonly group: string; readonly kind: string }[];
  readonly namespaceResourceWhitelist?: readonly { readonly group: string; readonly kind: string }[];
  readonly syncWindows?: readonly SyncWindow[];
}

interface SyncWindow {
  readonly kind: 'allow' | 'deny';
  readonly schedule: string;
  readonly duration: string;
  readonly timeZone?: string;
  readonly applications?: readonly string[];
  readonly namespaces?: readonly string[];
  readonly clusters?: readonly string[];
  readonly manualSync?: boolean;
}

/** The `default` AppProject Argo CD creates: everything allowed. */
const DEFAULT_PROJECT: ProjectSpec = {
  sourceRepos: ['*'], destinations: [{ server: '*', namespace: '*' }, { name: '*', namespace: '*' }], clusterResourceWhitelist: [{ group: '*', kind: '*' }],
};

/** One object an Application wants, at the revisions compared. */
interface Desired {
  readonly key: string;
  readonly obj: KubeObject;
  readonly json: string;
  readonly wave: number;
  /** A resource hook (`argocd.argoproj.io/hook`): its delete policies. @default - not a hook */
  readonly hook?: { readonly deletePolicies: readonly string[] };
}

const HOOK_ANNOTATION = 'argocd.argoproj.io/hook';
const HOOK_DELETE_POLICY_ANNOTATION = 'argocd.argoproj.io/hook-delete-policy';
/** Sync phases in order (gitops-engine pkg/sync/sync_tasks.go l. 15-19): a step's key is phase × this + wave. */
const PHASE_STEP = 1_000_000;

/** Whether an object is a resource hook (gitops-engine pkg/sync/hook/hook.go `IsHook`: the annotation, unless its only type is Skip). */
function isHookObject(obj: KubeObject): boolean {
  const types = (obj.metadata.annotations?.[HOOK_ANNOTATION] ?? '').split(',').map((t) => t.trim()).filter((t) => t !== '');
  return types.length > 0 && !(types.length === 1 && types[0] === 'Skip');
}

type SyncCode = 'Synced' | 'OutOfSync' | 'Unknown';
type HealthCode = 'Healthy' | 'Progressing' | 'Degraded' | 'Suspended' | 'Missing' | 'Unknown';
interface Condition { readonly type: string; readonly message: string }

interface Compared {
  /** The spec compared (sources, destination, ignoreDifferences), as JSON. */
  readonly specJson: string;
  readonly sync: SyncCode;
  /** Resolved revision of each source (or the revision asked for, when it did not resolve). */
  readonly revisions: readonly string[];
  readonly health: HealthCode;
  readonly conditions: readonly Condition[];
  /** Objects that need pruning, and whether every managed object does. */
  readonly pruneOnly: boolean;
  readonly allNeedPrune: boolean;
}

/** A sync operation (OperationState with its sync context). */
export interface Operation {
  phase: 'Running' | 'Succeeded' | 'Failed' | 'Error';
  message: string;
  readonly startedAt: number;
  finishedAt?: number;
  retryCount: number;
  readonly revisions: readonly string[];
  readonly sourcesJson: string;
  readonly prune: boolean;
  readonly retry: { readonly limit: number; readonly duration: number; readonly factor: number; readonly maxDuration: number };
  /** The sync context of this attempt (a retry starts a new one). */
  waves?: { readonly applied: Set<number>; running: string[]; readonly hooks: Set<string> };
}

interface AppState {
  readonly name: string;
  reconciledAt?: number;
  /** When the informer's resync asks for a refresh. */
  dueAt?: number;
  /** The level of a refresh asked for by an event, if any. */
  requested?: Level;
  compared?: Compared;
  op?: Operation;
  /** The last operation, completed (status.operationState). */
  lastOp?: Operation;
  repoErrorSince?: number;
  /** The health status last written, and since when (status.health.lastTransitionTime). */
  healthWritten?: HealthCode;
  healthSince?: number;
}

/** Something the controller did, for the simulation's invariants and reports. */
export interface ArgoEvent {
  readonly at: number;
  readonly app: string;
  readonly type: 'sync-started' | 'sync-finished' | 'apply-refused' | 'sync-blocked';
  readonly revisions: readonly string[];
  readonly phase?: string;
  readonly message?: string;
}

/** Options of {@link ArgoSim}. */
export interface ArgoSimOptions {
  readonly git: GitSim;
  /** Argo CD's own cluster (Applications, AppProjects). */
  readonly inCluster: KubeApi;
  /** Destination clusters by the name Argo CD knows them by (`destination.name`). */
  readonly clusters: ReadonlyMap<string, KubeApi>;
  /** `argocd-cm` as applied by hand (the generated `argocd/argocd-cm-patch.yaml`). */
  readonly argocdCm: Readonly<Record<string, string>>;
  /** Argo CD's built-in health Lua, by `group/Kind`. */
  readonly builtinHealth: ReadonlyMap<string, string>;
  /** A random number in [0, 1) (seeded, for jitter). */
  readonly random: () => number;
  readonly from: Date;
  readonly to: Date;
  readonly namespace: string;
}

const parseDuration = (d: string | undefined, fallback: number): number => {
  if (d === undefined) return fallback;
  if (/^[0-9]+$/.test(d)) return Number(d) * 1000;
  const m = /^(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?$/.exec(d);
  if (!m) throw new Error(`not a duration: ${d}`);
  return ((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 1000;
};

/** Offset east of UTC in minutes of `timeZone` at `at` (what Go's `time.LoadLocation` gives). */
function zoneOffset(timeZone: string, at: Date): number {
  if (timeZone === 'UTC' || timeZone === '') return 0;
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /^GMT(?:([+-])([0-9]{2}):([0-9]{2}))?$/.exec(name);
  return !m || m[1] === undefined ? 0 : (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

const globs = new Map<string, RegExp>();
const glob = (pattern: string, value: string): boolean => {
  if (pattern === '*') return true;
  let re = globs.get(pattern);
  if (!re) {
    re = new RegExp(`^${pattern.replace(/[.+^$()|[\]\\{}]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
    globs.set(pattern, re);
  }
  return re.test(value);
};

/**
 * Results of pure functions, shared by every simulation of the test process: a health check's
 * verdict on an object (by script and object), and the objects of sources at commits (a commit's
 * sha is a hash of its files, message and parent, so it names the same tree in every simulation).
 */
const healthMemo = new Map<string, Map<string, { status: HealthCode; message?: string } | null>>();
const desiredMemo = new Map<string, Desired[] | { error: string }>();
/** The YAML documents of a file's text (most files are the same in every commit). */
const docsMemo = new Map<string, KubeObject[]>();

function documents(text: string): KubeObject[] {
  let docs = docsMemo.get(text);
  if (!docs) {
    docs = parseAllDocuments(text).map((d) => d.toJS() as KubeObject | null).filter((o): o is KubeObject => o !== null && o !== undefined);
    docsMemo.set(text, docs);
  }
  return docs;
}

/** Argo CD's application controller over the simulated clusters. */
export class ArgoSim {
  private readonly apps = new Map<string, AppState>();
  private readonly liveHealthMemo = new Map<string, { version: number; deleting: boolean; health: { status: HealthCode; message?: string } | null }>();
  private readonly statusMemo = new Map<string, string>();
  private readonly specErrorMemo = new Map<string, Condition[]>();
  private readonly windows = new Map<string, SyncWindowSimulator>();
  private readonly matchMemo = new Map<string, { readonly window: SyncWindow; readonly sim: SyncWindowSimulator }[]>();
  private readonly specJsonMemo = new Map<string, { readonly version: number; readonly json: string }>();
  private refCache?: { readonly refs: ReadonlyMap<string, string>; readonly at: number };
  private nextResync?: number;
  private now = 0;
  /** What the controller did. */
  public readonly events: ArgoEvent[] = [];

  public constructor(private readonly options: ArgoSimOptions) {
    options.inCluster.watch((live, change) => {
      if (live.kind === 'Application' && live.namespace === options.namespace) {
        // The Application informer: a new Application, or one whose spec changed, is refreshed at once.
        if (change === 'created' || change === 'spec') this.request(live.name, Level.ForceResolve);
        if (change === 'deleted') this.apps.delete(live.name);
      }
    });
    for (const api of [options.inCluster, ...options.clusters.values()]) {
      api.watch((live) => {
        if (live.trackedBy !== undefined && live.trackedBy !== live.name) this.request(live.trackedBy, Level.Recent);
      });
    }
  }

  private request(app: string, level: Level): void {
    const state = this.state(app);
    state.requested = Math.max(state.requested ?? Level.Nothing, level);
  }

  private state(name: string): AppState {
    let state = this.apps.get(name);
    if (!state) {
      state = { name };
      this.apps.set(name, state);
    }
    return state;
  }

  /** The Application objects, by name. */
  private applications(): Live[] {
    return this.options.inCluster.list('Application').filter((a) => a.namespace === this.options.namespace && a.deletionAt === undefined);
  }

  /** The operation of an Application, running or last. */
  public operation(name: string): Operation | undefined {
    const state = this.apps.get(name);
    return state?.op ?? state?.lastOp;
  }

  /**
   * Whether nothing will happen until something outside changes (git, a cluster's objects, the
   * time crossing a sync window's edge): no operation, no refresh asked for, every Application
   * compared at the commit its refs name now, and none that auto-sync would sync.
   */
  public idle(): boolean {
    for (const live of this.applications()) {
      const state = this.apps.get(live.name);
      const compared = state?.compared;
      if (!state || !compared || state.requested !== undefined || state.op || state.repoErrorSince !== undefined) return false;
      const spec = this.spec(live);
      if (compared.specJson !== this.specJson(live)) return false;
      for (const [i, src] of this.sources(spec).entries()) {
        if (src.chart === undefined && (this.options.git.resolve(src.targetRevision ?? 'HEAD') ?? src.targetRevision) !== compared.revisions[i]) return false;
      }
      const automated = spec.syncPolicy?.automated;
      const wouldSync = automated !== undefined && automated.enabled !== false && compared.sync === 'OutOfSync' && !compared.conditions.some((c) => c.type === 'SyncError');
      if (wouldSync && this.canSync(live, spec)) return false;
    }
    return true;
  }

  /** Whether some automated Application that waits OutOfSync on a sync window may sync at `at`. */
  public windowOpensFor(at: number): boolean {
    for (const live of this.applications()) {
      const compared = this.apps.get(live.name)?.compared;
      const automated = this.spec(live).syncPolicy?.automated;
      if (!automated || automated.enabled === false || compared?.sync !== 'OutOfSync') continue;
      if (!this.canSync(live) && this.canSync(live, this.spec(live), at)) return true;
    }
    return false;
  }

  /** One simulated minute of the controller. */
  public tick(now: number): void {
    this.now = now;
    this.nextResync ??= now;
    if (now >= this.nextResync) {
      for (const live of this.applications()) this.state(live.name).dueAt = now + Math.floor(this.options.random() * JITTER_MS);
      while (this.nextResync <= now) this.nextResync += RESYNC_MS;
    }
    // Within a minute, children before their parents: a root then looks at its children once they have settled.
    const ordered = () => {
      const apps = this.applications();
      const byName = new Map(apps.map((a) => [a.name, a]));
      const depth = (live: Live | undefined): number => (live?.trackedBy === undefined ? 0 : 1 + depth(byName.get(live.trackedBy)));
      const depths = new Map(apps.map((a) => [a, depth(a)]));
      return apps.sort((a, b) => depths.get(b)! - depths.get(a)! || a.name.localeCompare(b.name));
    };
    for (let round = 0; round < 6; round++) {
      let worked = false;
      for (const live of ordered()) {
        const state = this.state(live.name);
        let level = state.requested;
        state.requested = undefined;
        if (state.dueAt !== undefined && state.dueAt <= now) {
          state.dueAt = undefined;
          // needRefreshAppStatus: the resync compares only once the last comparison has expired.
          if (state.reconciledAt === undefined || state.reconciledAt + RESYNC_MS < now) level = Math.max(level ?? Level.Nothing, Level.Latest);
        }
        if (level !== undefined && level > Level.Nothing) {
          this.refresh(live, state, level);
          worked = true;
        }
      }
      for (const live of ordered()) {
        const state = this.state(live.name);
        if (state.op?.phase === 'Running' && this.operate(live, state)) worked = true;
      }
      if (!worked) break;
    }
  }

  private spec(live: Live): ApplicationSpec {
    return live.applied.spec as ApplicationSpec;
  }

  /** What `comparedTo` is built from: the sources, destination and ignoreDifferences, as JSON. */
  private specJson(live: Live): string {
    const memo = this.specJsonMemo.get(live.uid);
    if (memo && memo.version === live.version) return memo.json;
    const spec = this.spec(live);
    const json = JSON.stringify({ source: spec.source, sources: spec.sources, destination: spec.destination, ignoreDifferences: spec.ignoreDifferences });
    this.specJsonMemo.set(live.uid, { version: live.version, json });
    return json;
  }

  private sources(spec: ApplicationSpec): readonly Source[] {
    return spec.sources && spec.sources.length > 0 ? spec.sources : [spec.source!];
  }

  /** The project's spec, undefined when it does not exist. */
  private project(name: string): ProjectSpec | undefined {
    const live = this.options.inCluster.get('AppProject', name, this.options.namespace);
    if (live) return live.applied.spec as ProjectSpec;
    return name === 'default' ? DEFAULT_PROJECT : undefined;
  }

  private destination(spec: ApplicationSpec): { readonly api: KubeApi; readonly name: string; readonly server: string } | undefined {
    const { server, name } = spec.destination;
    if (name !== undefined && name !== '') {
      const api = name === 'in-cluster' ? this.options.inCluster : this.options.clusters.get(name);
      return api && { api, name, server: name === 'in-cluster' ? IN_CLUSTER : `https://${name}.example` };
    }
    return server === IN_CLUSTER ? { api: this.options.inCluster, name: 'in-cluster', server: IN_CLUSTER } : undefined;
  }

  /** `refreshAppConditions`: errors that keep an Application from being compared (InvalidSpecError). */
  private specErrors(spec: ApplicationSpec): Condition[] {
    const projectLive = this.options.inCluster.get('AppProject', spec.project, this.options.namespace);
    const key = `${projectLive?.version ?? 'none'}/${JSON.stringify([spec.project, spec.source, spec.sources, spec.destination])}`;
    let errors = this.specErrorMemo.get(key);
    if (!errors) {
      errors = this.computeSpecErrors(spec);
      this.specErrorMemo.set(key, errors);
    }
    return errors;
  }

  private computeSpecErrors(spec: ApplicationSpec): Condition[] {
    const project = this.project(spec.project);
    if (!project) return [{ type: 'InvalidSpecError', message: `Application referencing project ${spec.project} which does not exist` }];
    const errors: Condition[] = [];
    for (const s of this.sources(spec)) {
      if (!(project.sourceRepos ?? []).some((r) => glob(r, s.repoURL))) errors.push({ type: 'InvalidSpecError', message: `application repo ${s.repoURL} is not permitted in project '${spec.project}'` });
    }
    const dest = this.destination(spec);
    if (!dest) errors.push({ type: 'InvalidSpecError', message: `could not find destination ${JSON.stringify(spec.destination)}` });
    else if (!this.destinationPermitted(project, dest, spec.destination.namespace ?? '')) {
      errors.push({ type: 'InvalidSpecError', message: `application destination {${dest.server} ${spec.destination.namespace}} is not permitted in project '${spec.project}'` });
    }
    return errors;
  }

  private destinationPermitted(project: ProjectSpec, dest: { readonly name: string; readonly server: string }, namespace: string): boolean {
    return (project.destinations ?? []).some((d) => ((d.name !== undefined && glob(d.name, dest.name)) || (d.server !== undefined && glob(d.server, dest.server))) && glob(d.namespace ?? '*', namespace));
  }

  private permitted(project: ProjectSpec, dest: { readonly name: string; readonly server: string }, obj: KubeObject): boolean {
    const { group, namespaced } = kindInfo(obj.kind);
    const inList = (list: readonly { group: string; kind: string }[] | undefined) => (list ?? []).some((r) => glob(r.group, group) && glob(r.kind, obj.kind));
    if (!namespaced) return (project.clusterResourceWhitelist ?? []).length > 0 && inList(project.clusterResourceWhitelist);
    const kindOk = project.namespaceResourceWhitelist === undefined || inList(project.namespaceResourceWhitelist);
    return kindOk && this.destinationPermitted(project, dest, obj.metadata.namespace ?? '');
  }

  /** Resolves the revision of each source: a chart's version as is, a git ref through `ls-remote` (cached unless `force`). */
  private resolve(spec: ApplicationSpec, force: boolean): { revisions: string[] } | { error: string; asked: string[] } {
    const asked = this.sources(spec).map((s) => s.targetRevision ?? 'HEAD');
    if (force || !this.refCache || this.now - this.refCache.at >= REF_CACHE_MS) this.refCache = { refs: this.options.git.listRefs(), at: this.now };
    const revisions: string[] = [];
    for (const [i, s] of this.sources(spec).entries()) {
      if (s.chart !== undefined) revisions.push(asked[i]);
      else {
        const sha = this.options.git.resolve(asked[i], this.refCache.refs);
        if (sha === undefined) return { error: `Failed to load target state: failed to generate manifest for source ${i + 1} of ${asked.length}: rpc error: code = Unknown desc = unable to resolve '${asked[i]}' to a commit SHA`, asked };
        revisions.push(sha);
      }
    }
    return { revisions };
  }

  /** The objects an Application wants at `revisions`. */
  private desired(spec: ApplicationSpec, revisions: readonly string[]): Desired[] | { error: string } {
    const key = JSON.stringify([this.sources(spec), spec.destination.namespace, revisions]);
    let result = desiredMemo.get(key);
    if (!result) {
      result = this.render(spec, revisions);
      desiredMemo.set(key, result);
    }
    return result;
  }

  private render(spec: ApplicationSpec, revisions: readonly string[]): Desired[] | { error: string } {
    const sources = this.sources(spec);
    const objects: KubeObject[] = [];
    for (const [i, s] of sources.entries()) {
      if (s.chart !== undefined) {
        const values = (s.helm?.valueFiles ?? []).map((file) => {
          const m = /^\$([^/]+)\/(.*)$/.exec(file);
          const refIndex = m ? sources.findIndex((r) => r.ref === m[1]) : -1;
          const text = refIndex < 0 ? undefined : this.options.git.get(revisions[refIndex]).files.get(m![2]);
          if (text === undefined) throw new Error(`values file ${file} not found`);
          return text;
        });
        objects.push(...renderChart(s.chart, revisions[i], s.helm?.releaseName ?? s.chart, spec.destination.namespace ?? 'default', values.join('\n')));
      } else if (s.path !== undefined) {
        const files = this.options.git.directory(revisions[i], s.path, s.directory?.include);
        // A folder missing from the commit: the repo server's `apppathutil.Path` fails with "<path>: app
        // path does not exist" (reposerver/repository/repository.go v3.5.1 l. 540-543, util/app/path/path.go
        // l. 15 and l. 25-27), a plain error, which gRPC sends with code Unknown (grpc-go v1.81.1, Argo CD's:
        // server.go l. 1432-1436, status/status.go l. 161) and the controller reads as "rpc error: code =
        // Unknown desc = …" (internal/status/status.go l. 202), then wraps (state.go l. 377 and l. 698).
        if (!files) return { error: `Failed to load target state: failed to generate manifest for source ${i + 1} of ${sources.length}: rpc error: code = Unknown desc = ${s.path}: app path does not exist` };
        for (const f of files) objects.push(...documents(f.text));
      }
    }
    return objects.map((obj) => {
      const withNamespace = kindInfo(obj.kind).namespaced && obj.metadata.namespace === undefined
        ? { ...obj, metadata: { ...obj.metadata, namespace: spec.destination.namespace } } : obj;
      const wave = Number(withNamespace.metadata.annotations?.[WAVE_ANNOTATION] ?? 0);
      const key = objectKey(obj.kind, obj.metadata.name, withNamespace.metadata.namespace);
      if (!isHookObject(withNamespace)) return { key, obj: withNamespace, json: JSON.stringify(withNamespace), wave };
      const types = (withNamespace.metadata.annotations?.[HOOK_ANNOTATION] ?? '').split(',').map((t) => t.trim());
      if (types.some((t) => t !== 'PreSync')) throw new Error(`${key}: the simulation models PreSync hooks only, not ${types.join(',')}`);
      // No delete policy is BeforeHookCreation (pkg/sync/hook/delete_policy.go DeletePolicies).
      const policies = (withNamespace.metadata.annotations?.[HOOK_DELETE_POLICY_ANNOTATION] ?? '').split(',').map((t) => t.trim()).filter((t) => t !== '');
      return { key, obj: withNamespace, json: JSON.stringify(withNamespace), wave, hook: { deletePolicies: policies.length ? policies : ['BeforeHookCreation'] } };
    });
  }

  /** The health of a live object, once per version of it. */
  public liveHealth(api: KubeApi, live: Live): { status: HealthCode; message?: string } | null {
    const key = `${api.cluster}/${live.key}`;
    const memo = this.liveHealthMemo.get(key);
    if (memo && memo.version === live.version && memo.deleting === (live.deletionAt !== undefined)) return memo.health;
    const health = this.resourceHealth(api.render(live));
    this.liveHealthMemo.set(key, { version: live.version, deleting: live.deletionAt !== undefined, health });
    return health;
  }

  /** The health of a live object (gitops-engine `GetResourceHealth`); null: no health. */
  public resourceHealth(obj: KubeObject): { status: HealthCode; message?: string } | null {
    if (obj.metadata.deletionTimestamp !== undefined) return { status: 'Progressing', message: 'Pending deletion' };
    const { group } = kindInfo(obj.kind);
    const groupKind = `${group}/${obj.kind}`;
    const override = this.options.argocdCm[`resource.customizations.health.${group}_${obj.kind}`];
    const script = override ?? this.options.builtinHealth.get(groupKind);
    // An override runs in Argo CD's sandbox unless its useOpenLibs key says otherwise; a built-in
    // script always with the standard libraries (util/lua/lua.go v3.5.1 l. 44-57, 169-174, 203-204).
    const openLibs = override === undefined || useOpenLibs(this.options.argocdCm[`resource.customizations.useOpenLibs.${group}_${obj.kind}`]);
    if (script !== undefined) {
      let verdicts = healthMemo.get(script);
      if (!verdicts) {
        verdicts = new Map();
        healthMemo.set(script, verdicts);
      }
      const key = JSON.stringify(obj);
      let health = verdicts.get(key);
      if (health === undefined) {
        health = FENGARI_COMPILED.run(script, obj, { openLibs }) as { status: HealthCode; message?: string };
        verdicts.set(key, health);
      }
      return health;
    }
    if (obj.kind === 'Deployment') return deploymentHealth(obj);
    if (obj.kind === 'Job') return jobHealth(obj);
    return null;
  }

  /** A refresh of one Application at `level`. */
  private refresh(live: Live, state: AppState, level: Level): void {
    const spec = this.spec(live);
    const specJson = this.specJson(live);
    // A spec compared for other sources is compared afresh (needRefreshAppStatus l. 2119-2124).
    if (state.compared && state.compared.specJson !== specJson) level = Math.max(level, Level.ForceResolve);
    const errors = this.specErrors(spec);
    if (errors.length > 0) {
      state.compared = { specJson, sync: 'Unknown', revisions: this.sources(spec).map((s) => s.targetRevision ?? 'HEAD'), health: 'Unknown', conditions: errors, pruneOnly: false, allNeedPrune: false };
      this.writeStatus(live, state);
      return;
    }
    const dest = this.destination(spec)!;
    const recent = level === Level.Recent && state.compared !== undefined && state.compared.specJson === specJson && state.compared.sync !== 'Unknown';
    const resolved = recent ? { revisions: [...state.compared!.revisions] } : this.resolve(spec, level >= Level.ForceResolve);
    const desired: Desired[] | { error: string } = 'error' in resolved ? { error: resolved.error } : this.desired(spec, resolved.revisions);
    const revisions = 'error' in resolved ? resolved.asked : resolved.revisions;
    if ('error' in desired) {
      // A repository error is ignored until it has lasted the grace period (state.go l. 694-712).
      state.repoErrorSince ??= this.now;
      if (level < Level.ForceResolve && this.now - state.repoErrorSince <= REPO_ERROR_GRACE_MS) return;
    } else state.repoErrorSince = undefined;
    const conditions: Condition[] = 'error' in desired ? [{ type: 'ComparisonError', message: desired.error }] : [];
    // A hook is never compared and never counts toward health (controller/state.go l. 981-985, controller/health.go l. 30-32).
    const wanted: Desired[] = 'error' in desired ? [] : desired.filter((d) => !d.hook);
    const wantedKeys = new Set(wanted.map((d) => d.key));
    let outOfSync = false;
    let pruneOnly = true;
    const managed: { live?: Live; desired?: Desired }[] = [];
    for (const d of wanted) {
      const l = dest.api.get(d.obj.kind, d.obj.metadata.name, d.obj.metadata.namespace);
      if (!l || l.appliedJson !== d.json) {
        outOfSync = true;
        pruneOnly = false;
      }
      managed.push({ live: l, desired: d });
    }
    const extraneous = dest.api.trackedBy(live.name).filter((l) => !wantedKeys.has(l.key) && l.deletionAt === undefined && !isHookObject(l.applied));
    if (extraneous.length > 0) outOfSync = true;
    for (const l of extraneous) managed.push({ live: l });
    const sync: SyncCode = 'error' in desired ? 'Unknown' : outOfSync ? 'OutOfSync' : 'Synced';
    const health = this.appHealth(dest.api, managed);
    state.compared = {
      specJson, sync, revisions, health, conditions: [...conditions, ...(state.compared?.conditions ?? []).filter((c) => c.type === 'SyncError')],
      pruneOnly: outOfSync && pruneOnly, allNeedPrune: wanted.length === 0 && extraneous.length > 0,
    };
    if (this.canSync(live, spec)) this.autoSync(live, state, spec);
    if (state.reconciledAt === undefined || level >= Level.Latest) state.reconciledAt = this.now;
    this.writeStatus(live, state);
  }

  private appHealth(api: KubeApi, managed: readonly { live?: Live; desired?: Desired }[]): HealthCode {
    const order: HealthCode[] = ['Healthy', 'Suspended', 'Progressing', 'Missing', 'Degraded', 'Unknown'];
    let health: HealthCode = 'Healthy';
    let anyLive = false;
    for (const m of managed) {
      if (!m.live) continue;
      anyLive = true;
      const h = this.liveHealth(api, m.live);
      if (!h) continue;
      if (m.live.kind === 'Application' && (h.status === 'Missing' || h.status === 'Unknown')) continue;
      if (order.indexOf(h.status) > order.indexOf(health)) health = h.status;
    }
    return managed.length > 0 && !anyLive && order.indexOf('Missing') > order.indexOf(health) ? 'Missing' : health;
  }

  /** The matching windows of the Application's project (`SyncWindows.Matches`, types.go l. 3101-3178), each with its `active()`. */
  private matchingWindows(live: Live, spec: ApplicationSpec): { readonly window: SyncWindow; readonly sim: SyncWindowSimulator }[] {
    const projectLive = this.options.inCluster.get('AppProject', spec.project, this.options.namespace);
    const key = `${live.name}/${live.version}/${projectLive?.uid}/${projectLive?.version}`;
    let matching = this.matchMemo.get(key);
    if (!matching) {
      const project = this.project(spec.project);
      matching = (project?.syncWindows ?? []).filter((w) => (w.applications ?? []).some((a) => glob(a, live.name))
        || (w.clusters ?? []).some((c) => glob(c, spec.destination.name ?? '') || glob(c, spec.destination.server ?? ''))
        || (w.namespaces ?? []).some((n) => glob(n, spec.destination.namespace ?? ''))).map((window) => ({ window, sim: this.windowSim(window) }));
      this.matchMemo.set(key, matching);
    }
    return matching;
  }

  private windowSim(window: SyncWindow): SyncWindowSimulator {
    const key = JSON.stringify(window);
    let sim = this.windows.get(key);
    if (!sim) {
      sim = new SyncWindowSimulator(window, (at) => zoneOffset(window.timeZone ?? 'UTC', at), this.options.from, this.options.to);
      this.windows.set(key, sim);
    }
    return sim;
  }

  /** `CanSync(isManual = false, no overrun)` (types.go l. 3181-3240): no active deny, and an active allow when the matching windows have any. */
  public canSync(live: Live, spec: ApplicationSpec = this.spec(live), at = this.now): boolean {
    const windows = this.matchingWindows(live, spec);
    if (windows.length === 0) return true;
    const active = windows.filter((w) => w.sim.active(at)).map((w) => w.window);
    if (active.some((w) => w.kind === 'deny')) return false;
    if (active.some((w) => w.kind === 'allow')) return true;
    return !windows.some((w) => w.window.kind === 'allow');
  }

  private autoSync(live: Live, state: AppState, spec: ApplicationSpec): void {
    const compared = state.compared!;
    const setSyncError = (message?: string) => {
      state.compared = { ...compared, conditions: [...compared.conditions.filter((c) => c.type !== 'SyncError'), ...(message ? [{ type: 'SyncError', message }] : [])] };
    };
    const automated = spec.syncPolicy?.automated;
    if (!automated || automated.enabled === false) return;
    if (state.op) return;
    if (compared.sync !== 'OutOfSync') return setSyncError();
    if (!automated.prune && compared.pruneOnly) return setSyncError();
    const sourcesJson = JSON.stringify(this.sources(spec));
    const last = state.lastOp;
    if (last && JSON.stringify(last.revisions) === JSON.stringify(compared.revisions) && last.sourcesJson === sourcesJson) {
      if (last.phase !== 'Succeeded') return setSyncError(`Failed last sync attempt to [${last.revisions.join(' ')}]: ${last.message}`);
      if (!automated.selfHeal) return setSyncError();
    }
    if (automated.prune && !automated.allowEmpty && compared.allNeedPrune) return setSyncError(`Skipping sync attempt to [${compared.revisions.join(' ')}]: auto-sync will wipe out all resources`);
    setSyncError();
    const retry = spec.syncPolicy?.retry;
    state.op = {
      phase: 'Running', message: 'one or more tasks are running', startedAt: this.now, retryCount: 0,
      revisions: compared.revisions, sourcesJson, prune: automated.prune === true,
      retry: {
        limit: retry?.limit ?? 5, duration: parseDuration(retry?.backoff?.duration, 5000),
        factor: retry?.backoff?.factor ?? 2, maxDuration: parseDuration(retry?.backoff?.maxDuration, 180_000),
      },
    };
    this.events.push({ at: this.now, app: live.name, type: 'sync-started', revisions: compared.revisions });
  }

  /** One pass of a running operation; whether it changed anything. */
  private operate(live: Live, state: AppState): boolean {
    const op = state.op!;
    const spec = this.spec(live);
    if (op.finishedAt !== undefined) {
      // A failed attempt waiting for its retry (appcontroller.go l. 1546-1575).
      const wait = Math.min(op.retry.maxDuration, op.retry.duration * op.retry.factor ** op.retryCount);
      if (this.now < op.finishedAt + wait) return false;
      op.finishedAt = undefined;
      op.waves = undefined;
      op.message = `Retrying attempt #${op.retryCount}`;
    }
    if (!this.canSync(live, spec)) {
      if (op.message !== 'Sync operation blocked by sync window') {
        op.message = 'Sync operation blocked by sync window';
        this.events.push({ at: this.now, app: live.name, type: 'sync-blocked', revisions: op.revisions });
        this.writeStatus(live, state);
        return true;
      }
      return false;
    }
    const dest = this.destination(spec)!;
    const project = this.project(spec.project) ?? DEFAULT_PROJECT;
    // The sources of the operation, as when it started (SyncResult.Sources).
    const started = JSON.parse(op.sourcesJson) as Source[];
    const desired = this.desired(started.length > 1 || spec.sources ? { ...spec, sources: started } : { ...spec, source: started[0] }, op.revisions);
    if ('error' in desired) return this.finish(live, state, 'Error', desired.error);
    // A hook is never pruned, nor a task of the resources: only its own sync runs it (sync_context.go l. 966-970, 979-1004).
    const wantedKeys = new Set(desired.filter((d) => !d.hook).map((d) => d.key));
    const prunes = op.prune ? dest.api.trackedBy(live.name).filter((l) => !wantedKeys.has(l.key) && l.deletionAt === undefined && !isHookObject(l.applied)) : [];
    // Every task, hooks included, goes through the project's permission check (sync_context.go l. 1044-1095).
    if (desired.some((d) => !this.permitted(project, dest, d.obj))) {
      const refused = desired.find((d) => !this.permitted(project, dest, d.obj))!;
      return this.finish(live, state, 'Failed', `one or more synchronization tasks are not valid: ${refused.obj.kind} ${refused.obj.metadata.name} is not permitted in project ${spec.project}`);
    }
    // Prune waves reversed (sync_context.go l. 1097-1125).
    const pruneWave = new Map<string, number>();
    const pruneWaves = [...new Set(prunes.map((l) => Number(l.applied.metadata.annotations?.[WAVE_ANNOTATION] ?? 0)))].sort((a, b) => a - b);
    for (const l of prunes) {
      const w = Number(l.applied.metadata.annotations?.[WAVE_ANNOTATION] ?? 0);
      pruneWave.set(l.key, pruneWaves[pruneWaves.length - 1 - pruneWaves.indexOf(w)]);
    }
    // PruneLast (l. 1127-1143): such a prune (by its live object's sync options) runs in the sync phase's last wave + 1,
    // that wave taken over every task of the sync phase, prunes included, and 0 at least.
    const pruneLast = Math.max(0, ...desired.filter((d) => !d.hook).map((d) => d.wave), ...pruneWave.values()) + 1;
    for (const l of prunes) {
      if ((l.applied.metadata.annotations?.['argocd.argoproj.io/sync-options'] ?? '').split(',').includes('PruneLast=true')) pruneWave.set(l.key, pruneLast);
    }
    // Steps in order: the PreSync phase's waves (its hooks), then the Sync phase's (sync_tasks.go l. 15-19, 80-110).
    const stepOf = (d: Desired) => (d.hook ? -PHASE_STEP : 0) + d.wave;
    const steps = [...new Set([...desired.map(stepOf), ...pruneWave.values()])].sort((a, b) => a - b);
    op.waves ??= { applied: new Set(), running: [], hooks: new Set() };
    const context = op.waves;
    const ran = this.runningTasks(live, state, dest.api, desired, context);
    if (typeof ran === 'boolean') return ran;
    // Running hooks are always waited for; other tasks when the sync has several steps (sync_context.go l. 573-597).
    if ((steps.length > 1 || ran.hookRunning) && context.running.length > 0) return ran.progressed;
    const pending = steps.filter((w) => !context.applied.has(w));
    if (pending.length === 0) return this.succeed(live, state, dest.api, desired, context, 'successfully synced (no more tasks)');
    const step = pending[0];
    const confirm = prunes.filter((l) => pruneWave.get(l.key) === step && /Prune=confirm/.test(l.applied.metadata.annotations?.['argocd.argoproj.io/sync-options'] ?? ''));
    if (confirm.length > 0) {
      op.message = `waiting for pruning confirmation of ${confirm.map((l) => l.key).join(', ')}`;
      this.writeStatus(live, state);
      return false;
    }
    const tasks = desired.filter((x) => stepOf(x) === step);
    if (this.deleteBeforeCreation(dest.api, tasks, context)) {
      op.message = 'waiting for deletion of hook';
      this.writeStatus(live, state);
      return false;
    }
    const applied: string[] = [];
    for (const d of tasks) {
      try {
        dest.api.apply(d.obj, live.name);
        applied.push(d.key);
        if (d.hook) context.hooks.add(d.key);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        this.events.push({ at: this.now, app: live.name, type: 'apply-refused', revisions: op.revisions, message: error.message });
        return this.finish(live, state, 'Failed', `one or more objects failed to apply, reason: ${error.message}`);
      }
    }
    for (const l of prunes.filter((x) => pruneWave.get(x.key) === step)) dest.api.delete(l);
    context.applied.add(step);
    // The last step succeeds once applied, unless it holds hooks (sync_context.go l. 703-715).
    if (pending.length === 1 && !tasks.some((d) => d.hook)) return this.succeed(live, state, dest.api, desired, context, 'successfully synced (all tasks run)');
    context.running = applied;
    op.message = 'one or more tasks are running';
    this.writeStatus(live, state);
    return true;
  }

  /**
   * The running tasks of a sync context: a resource is done when Healthy (or without health) and
   * fails when Degraded (sync_context.go l. 540-575); a hook is done when Healthy (or without
   * health), runs while Progressing or Suspended, and fails when Degraded or Unknown
   * (`getOperationPhase` l. 348-371). A task whose object is gone is an error (l. 579-593).
   * Returns what the operation did when it ended, else what is still running.
   */
  private runningTasks(live: Live, state: AppState, api: KubeApi, desired: readonly Desired[], context: NonNullable<Operation['waves']>): boolean | { readonly progressed: boolean; readonly hookRunning: boolean } {
    const stillRunning: string[] = [];
    let hookRunning = false;
    for (const key of context.running) {
      const d = desired.find((x) => x.key === key);
      const l = d && api.get(d.obj.kind, d.obj.metadata.name, d.obj.metadata.namespace);
      if (!l) return this.finish(live, state, 'Error', `Resource ${key} is missing, it might have been deleted`);
      const h = this.liveHealth(api, l);
      const failed = h?.status === 'Degraded' || (d.hook !== undefined && h?.status === 'Unknown');
      if (failed) {
        this.deleteHooks(api, desired, context, 'HookFailed');
        return this.finish(live, state, 'Failed', `one or more synchronization tasks completed unsuccessfully: ${key}: ${h?.message ?? ''}`);
      }
      if (h && h.status !== 'Healthy') {
        stillRunning.push(key);
        if (d.hook) hookRunning = true;
      }
    }
    const progressed = stillRunning.length !== context.running.length;
    context.running = stillRunning;
    return { progressed, hookRunning };
  }

  /**
   * `BeforeHookCreation` (the default): a hook of this step whose object is there from an earlier
   * sync is deleted first, and the step waits until it is gone (runTasks, sync_context.go
   * l. 1650-1684; a Job deleted with foreground propagation goes once its pods have). Whether the
   * step must wait.
   */
  private deleteBeforeCreation(api: KubeApi, tasks: readonly Desired[], context: NonNullable<Operation['waves']>): boolean {
    let waiting = false;
    for (const d of tasks) {
      if (!d.hook || context.hooks.has(d.key) || !d.hook.deletePolicies.includes('BeforeHookCreation')) continue;
      const old = api.get(d.obj.kind, d.obj.metadata.name, d.obj.metadata.namespace);
      if (!old) continue;
      api.delete(old);
      waiting = true;
    }
    return waiting;
  }

  /** Deletes this sync's hooks that carry `policy` (`HookSucceeded` once the sync succeeded, `HookFailed` once it failed: sync_context.go l. 620-640, 652-656, 703-712). */
  private deleteHooks(api: KubeApi, desired: readonly Desired[], context: NonNullable<Operation['waves']>, policy: string): void {
    for (const d of desired) {
      if (!d.hook || !context.hooks.has(d.key) || !d.hook.deletePolicies.includes(policy)) continue;
      const l = api.get(d.obj.kind, d.obj.metadata.name, d.obj.metadata.namespace);
      if (l) api.delete(l);
    }
  }

  /** A successful sync: its hooks with `HookSucceeded` go, then the operation ends. */
  private succeed(live: Live, state: AppState, api: KubeApi, desired: readonly Desired[], context: NonNullable<Operation['waves']>, message: string): boolean {
    this.deleteHooks(api, desired, context, 'HookSucceeded');
    return this.finish(live, state, 'Succeeded', message);
  }

  /** Ends an attempt: a failure is retried while `retry.limit` allows (appcontroller.go l. 1619-1635). */
  private finish(live: Live, state: AppState, phase: Operation['phase'], message: string): boolean {
    const op = state.op!;
    if ((phase === 'Failed' || phase === 'Error') && (op.retryCount < op.retry.limit || op.retry.limit < 0)) {
      op.phase = 'Running';
      op.finishedAt = this.now;
      op.retryCount++;
      op.message = `${message}. Retrying attempt #${op.retryCount}`;
      this.writeStatus(live, state);
      return true;
    }
    op.phase = phase;
    op.message = op.retryCount > 0 && phase !== 'Succeeded' ? `${message} (retried ${op.retryCount} times).` : message;
    op.finishedAt = this.now;
    state.lastOp = op;
    state.op = undefined;
    this.events.push({ at: this.now, app: live.name, type: 'sync-finished', revisions: op.revisions, phase, message: op.message });
    this.request(live.name, Level.Latest);
    this.writeStatus(live, state);
    return true;
  }

  /** Writes `status` as Argo CD 3.5.1 stores it (argocd-status.ts). */
  private writeStatus(live: Live, state: AppState): void {
    const compared = state.compared;
    if (!compared) return;
    const opNow = state.op ?? state.lastOp;
    // The health's lastTransitionTime moves when, and only when, the health status changes
    // (persistAppStatus, controller/appcontroller.go l. 2245-2256).
    if (state.healthWritten !== compared.health) {
      state.healthWritten = compared.health;
      state.healthSince = this.now;
    }
    const inputs = JSON.stringify([compared.specJson, compared.sync, compared.health, compared.revisions, compared.conditions, opNow?.phase, opNow?.message, opNow?.startedAt, opNow?.finishedAt, state.healthSince]);
    if (this.statusMemo.get(live.uid) === inputs) return;
    this.statusMemo.set(live.uid, inputs);
    const comparedSpec = JSON.parse(compared.specJson) as { source?: Source; sources?: Source[]; destination: unknown; ignoreDifferences?: unknown };
    const op = state.op ?? state.lastOp;
    const multi = (comparedSpec.sources ?? []).length > 0;
    const status = anApplicationStatus({ spec: comparedSpec }, {
      comparedSpec, sync: compared.sync, health: compared.health,
      operation: op ? { phase: op.phase, message: op.message } : null,
      revision: compared.revisions[0], ...(multi ? { revisions: compared.revisions } : {}),
      conditions: compared.conditions,
    });
    this.options.inCluster.setStatus(live, withTimes(status, state.healthSince, op));
  }
}

/** A time as Argo CD writes one: `metav1.Time`, RFC 3339 to the second (k8s.io/apimachinery pkg/apis/meta/v1/time.go MarshalJSON). */
const rfc3339 = (t: number) => new Date(t).toISOString().replace(/\.[0-9]{3}Z$/, 'Z');

/**
 * A status with the times this controller recorded: `health.lastTransitionTime` (see
 * writeStatus), the operation's `startedAt` and its `finishedAt`, which `setOperationState`
 * writes when the operation completes (appcontroller.go l. 1668-1677) and which a failed attempt
 * waiting for its retry carries while Running (l. 1619-1630).
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/pkg/apis/application/v1alpha1/types.go (l. 1451-1465 OperationState; l. 1954-1963 AppHealthStatus)
 */
function withTimes(status: ReturnType<typeof anApplicationStatus>, healthSince: number | undefined, op: Operation | undefined): ReturnType<typeof anApplicationStatus> {
  const timed = status as { health?: { lastTransitionTime?: string }; operationState?: { startedAt?: string; finishedAt?: string } | null };
  if (timed.health && healthSince !== undefined) timed.health.lastTransitionTime = rfc3339(healthSince);
  if (timed.operationState && op) {
    timed.operationState.startedAt = rfc3339(op.startedAt);
    if (op.finishedAt !== undefined) timed.operationState.finishedAt = rfc3339(op.finishedAt);
    else delete timed.operationState.finishedAt;
  }
  return status;
}

/** gitops-engine pkg/health/health_deployment.go l. 28-70. */
function deploymentHealth(obj: KubeObject): { status: HealthCode; message?: string } {
  const spec = obj.spec as { paused?: boolean; replicas?: number };
  const status = (obj.status ?? {}) as { observedGeneration?: number; updatedReplicas?: number; replicas?: number; availableReplicas?: number; conditions?: { type: string; reason?: string }[] };
  if (spec.paused) return { status: 'Suspended', message: 'Deployment is paused' };
  if ((obj.metadata.generation as number) > (status.observedGeneration ?? 0)) return { status: 'Progressing', message: 'Waiting for rollout to finish: observed deployment generation less than desired generation' };
  const progressing = (status.conditions ?? []).find((c) => c.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') return { status: 'Degraded', message: `Deployment "${obj.metadata.name}" exceeded its progress deadline` };
  const updated = status.updatedReplicas ?? 0;
  if (spec.replicas !== undefined && updated < spec.replicas) return { status: 'Progressing', message: `Waiting for rollout to finish: ${updated} out of ${spec.replicas} new replicas have been updated...` };
  if ((status.replicas ?? 0) > updated) return { status: 'Progressing', message: `Waiting for rollout to finish: ${(status.replicas ?? 0) - updated} old replicas are pending termination...` };
  if ((status.availableReplicas ?? 0) < updated) return { status: 'Progressing', message: `Waiting for rollout to finish: ${status.availableReplicas ?? 0} of ${updated} updated replicas are available...` };
  return { status: 'Healthy' };
}

/** gitops-engine pkg/health/health_job.go l. 30-75. */
function jobHealth(obj: KubeObject): { status: HealthCode; message?: string } {
  const conditions = ((obj.status ?? {}) as { conditions?: { type: string; status: string; message?: string }[] }).conditions ?? [];
  let failed = false;
  let complete = false;
  let suspended = false;
  let message = '';
  for (const c of conditions) {
    if (c.type === 'Failed') { failed = true; complete = true; message = c.message ?? ''; }
    if (c.type === 'Complete') { complete = true; message = c.message ?? ''; }
    if (c.type === 'Suspended') { complete = true; suspended = c.status === 'True'; }
  }
  if (!complete) return { status: 'Progressing', message };
  if (failed) return { status: 'Degraded', message };
  if (suspended) return { status: 'Suspended', message };
  return { status: 'Healthy', message };
}
