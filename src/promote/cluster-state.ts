import type { Cluster, Platform } from '../config/platform';
import { APP_NAMES } from '../config/reserved';
import type { ApplicationModel } from '../model/applications';
import { clusterApplicationModels, stageRef } from '../model/stages';
import { nextOpeningFromNow } from '../schedule/windows';
import type { LiveApplication } from './live-applications';
import { DriftCount, driftText } from './nodeclaims';
import { minutesText, rfc3339 } from './promote';

/**
 * Where one cluster stands in a rollout, the first that applies: `held` by a problem, `synced`,
 * `replacing` nodes, `waiting` (for its window, or for its stage's first promotion), `manual`
 * (synced by hand), `syncing` (or out of sync), `unknown` (its Applications were not given).
 */
export type ClusterState = 'held' | 'synced' | 'replacing' | 'waiting' | 'manual' | 'syncing' | 'unknown';

/** The states in the order a page lists them: what needs someone first, done last. */
export const STATE_ORDER: readonly ClusterState[] = ['held', 'replacing', 'waiting', 'syncing', 'manual', 'unknown', 'synced'];

/** One cluster's state in a rollout. */
export interface ClusterStatus {
  readonly cluster: string;
  readonly state: ClusterState;
  /** Why, in words many clusters share (a page groups clusters by it): `SyncError`, `window nightly`, `drift gate running`. */
  readonly why: string;
  /** What is this cluster's own: `window opens Tue 02:00 Europe/Berlin (in 5h)`, a message. @default - nothing beyond `why` */
  readonly detail?: string;
  /** Drifted and total NodeClaims, when its NodeClaims were given. @default - not given */
  readonly drift?: DriftCount;
}

/** What {@link clusterStatus} reads besides the cluster. */
export interface ClusterInputs {
  /** Every Application given, by name. */
  readonly applications: ReadonlyMap<string, LiveApplication>;
  /** The commit the cluster's stage tracks (its ref's), or undefined: the ref does not exist (not promoted), or it was not read. */
  readonly revision?: string;
  /** Whether the stage ref exists: a stage-N cluster whose ref does not is waiting for its first promotion. */
  readonly promoted: boolean;
  /** The time the state is told at. */
  readonly now: Date;
  /** The cluster's NodeClaims counted, when given. @default - not given */
  readonly drift?: DriftCount;
}

/**
 * Operation phases of a sync that failed: the sync did not apply everything.
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/gitops-engine/pkg/sync/common/types.go#L79-L80
 */
const FAILED_PHASES = new Set(['Failed', 'Error']);
/**
 * Health statuses that mean something is wrong, not under way.
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/gitops-engine/pkg/health/health.go#L28-L30
 */
const BAD_HEALTH = new Set(['Degraded', 'Missing']);
/** Messages Argo CD's repo server gives when a git revision cannot be resolved (promote.ts UNRESOLVED: a stage ref not created yet). */
const UNRESOLVED = /unable to resolve|couldn't find remote ref|reference not found|not a valid revision/i;
/** How long a message may be on a page: a problem's first words say what it is. */
const MESSAGE_CHARS = 140;

/** A message on one line, at most {@link MESSAGE_CHARS} characters. */
function short(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length <= MESSAGE_CHARS ? line : `${line.slice(0, MESSAGE_CHARS - 1)}…`;
}

/**
 * The problem an Application reports, if any: an error condition (a type ending in `Error`,
 * as Argo CD tells one: `ApplicationCondition.IsError`, types.go l. 3769-3771), a failed sync
 * operation, or health Degraded or Missing. A stage ref that does not exist yet is no problem
 * of the cluster's while its stage has not been promoted.
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/pkg/apis/application/v1alpha1/types.go#L3769-L3771
 */
function problemOf(app: LiveApplication, promoted: boolean): { why: string; message: string } | undefined {
  const status = app.status;
  const error = (status?.conditions ?? []).find((c) => (c.type ?? '').endsWith('Error') && (promoted || !UNRESOLVED.test(c.message ?? '')));
  if (error) return { why: error.type ?? 'Error', message: error.message ?? '' };
  const op = status?.operationState;
  if (op?.phase !== undefined && FAILED_PHASES.has(op.phase)) return { why: `sync ${op.phase}`, message: op.message ?? '' };
  const health = status?.health?.status;
  if (health !== undefined && BAD_HEALTH.has(health)) return { why: `health ${health}`, message: status?.health?.message ?? '' };
  return undefined;
}

/** Whether an Application is Synced at `revision` (a git source's revision must be it; a chart-only one has none). */
function atRevision(app: LiveApplication, model: ApplicationModel, revision: string | undefined): boolean {
  const sync = app.status?.sync;
  if (sync?.status !== 'Synced') return false;
  const git = model.sources.some((s) => !('chart' in s));
  const revisions = sync.revisions ?? (sync.revision !== undefined ? [sync.revision] : []);
  return revision === undefined || !git || revisions.includes(revision);
}

/** `Tue 02:00 Europe/Berlin (in 5h)`: a time in a zone, and how long until it. */
export function localWhen(at: Date, timeZone: string, now: Date): string {
  const local = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at).replace(',', '');
  return `${local} ${timeZone} (in ${minutesText(Math.max(0, Math.ceil((at.getTime() - now.getTime()) / 60_000)))})`;
}

/** When the cluster's window next opens, as text, or undefined when it is open now (or it has none). */
function windowWait(cluster: Cluster, now: Date): string | undefined {
  if (!cluster.window) return undefined;
  const open = nextOpeningFromNow(cluster.window, now);
  if (open === undefined || open === 'open') return undefined;
  return `window opens ${localWhen(open, cluster.window.timeZone, now)}`;
}

/**
 * Where a cluster stands: its Applications (the automated ones the generator gives it, or all
 * of them for a cluster synced by hand: model/stages.ts clusterApplicationModels, the names
 * `promote` checks) against its stage's revision, the first state that applies (see
 * {@link ClusterState}).
 */
export function clusterStatus(platform: Platform, cluster: Cluster, inputs: ClusterInputs): ClusterStatus {
  const { applications, revision, promoted, now, drift } = inputs;
  // The Applications that sync by themselves unless the cluster is synced by hand (so never the smoke tests).
  const { root, children } = clusterApplicationModels(platform, { ...cluster, manualSync: false });
  const models = [root, ...children].filter((a) => a.automated);
  const base = { cluster: cluster.id, ...(drift ? { drift } : {}) };
  const live = models.map((model) => ({ model, app: applications.get(model.name) }));
  for (const { model, app } of live) {
    const problem = app && problemOf(app, promoted);
    if (problem) return { ...base, state: 'held', why: problem.why, detail: short(`${model.name}: ${problem.message || problem.why}`) };
  }
  if (!promoted) return { ...base, state: 'waiting', why: `stage ref ${stageRef(platform, cluster.stage ?? 1)} not created yet: not promoted` };
  const missing = live.filter((l) => l.app === undefined).map((l) => l.model.name);
  if (missing.length) {
    const why = `not in the Applications given${cluster.argocd !== undefined ? ` (read from Argo CD ${cluster.argocd})` : ''}`;
    return { ...base, state: 'unknown', why, detail: short(missing.join(', ')) };
  }
  const given = live.flatMap((l) => (l.app ? [{ model: l.model, app: l.app }] : []));
  const synced = given.every((l) => atRevision(l.app, l.model, revision));
  const gate = given.find((l) => l.model.name === APP_NAMES.driftGate(cluster.id));
  const healthy = (l: { app: LiveApplication }) => l.app.status?.health?.status === 'Healthy';
  if (synced && given.every(healthy)) return { ...base, state: 'synced', why: 'synced and healthy' };
  if (synced && gate && gate.app.status?.health?.status === 'Progressing' && given.every((l) => l === gate || healthy(l))) {
    const since = gate.app.status.health.lastTransitionTime ?? gate.app.status.operationState?.finishedAt;
    const paused = windowWait(cluster, now);
    const detail = [since ? `since ${rfc3339(Date.parse(since))}` : undefined, drift ? driftText(drift) : undefined, paused ? `paused until its ${paused}` : undefined];
    return { ...base, state: 'replacing', why: 'drift gate running', detail: detail.filter((d): d is string => d !== undefined).join('; ') };
  }
  const behind = given.filter((l) => l.app.status?.sync?.status !== 'Synced').map((l) => l.model.name);
  const wait = behind.length ? windowWait(cluster, now) : undefined;
  if (wait && cluster.window) return { ...base, state: 'waiting', why: `window ${cluster.window.name}`, detail: wait };
  if (cluster.manualSync === true) return { ...base, state: 'manual', why: 'synced by hand (manualSync)' };
  const running = given.some((l) => l.app.status?.operationState?.phase === 'Running');
  const notAt = given.filter((l) => !atRevision(l.app, l.model, revision)).map((l) => l.model.name);
  const unhealthy = given.filter((l) => !healthy(l)).map((l) => `${l.model.name} ${l.app.status?.health?.status ?? 'Unknown'}`);
  const what = [...(notAt.length ? [`not at the revision: ${notAt.join(', ')}`] : []), ...unhealthy];
  return { ...base, state: 'syncing', why: running ? 'syncing' : 'out of sync', ...(what.length ? { detail: short(what.join('; ')) } : {}) };
}
