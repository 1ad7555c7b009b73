/**
 * What one run of the promote workflow pushes (`npm run promote -- decide`): each stage's
 * decision in order, from the Applications its read jobs could read. The workflow holds only the
 * wiring; what is pushed, what waits for a person and what the summary says is decided here.
 *
 * - Stage 2 follows the main branch; stage N follows stage N-1's ref. A stage whose ref is at the
 *   commit it follows already has nothing to do; a stage whose stage before has no ref yet stops
 *   the loop (no later stage can be promoted either).
 * - An Argo CD instance whose read job failed (no `applications-<instance>.json`) holds only the
 *   stages whose stage before it deploys; every other stage is decided and pushed in the same run.
 * - A ready stage with a GitHub environment (`gitops.stages.<N>.environment`) goes to `approve`:
 *   its reviewers approve, then the instances it depends on are read again (`reread`) and the push
 *   goes ahead only while Argo CD still says what it said here (Promotion.state). One such stage
 *   per run: a job that needs a matrix job reads one result for all its legs
 *   (https://docs.github.com/en/actions/reference/workflows-and-actions/contexts#needs-context), so
 *   in one matrix a stage whose approval is rejected, or still pending, would hold every other
 *   approved stage (test/workflow-graph.test.ts). With several ready, the run's quarter hour picks
 *   which (they take turns, each run asks for one; runs do not wait for each other).
 */
import { basename } from 'node:path';
import type { Cluster, Platform } from '../config/platform';
import { someNames } from '../model/cluster-sets';
import type { ApplicationsRead } from './live-applications';
import { mergeApplications } from './live-applications';
import { readLegs, ReadLeg, SINGLE_INSTANCE } from './plan';
import { promotion, Promotion, PromotionOptions } from './promote';
import { promotionPlan } from './plan';

/** A push the workflow makes: one leg of its `push` or `approve` matrix. */
export interface StagePush {
  readonly stage: number;
  /** The commit the stage ref is moved to. */
  readonly revision: string;
  /** The stage ref, `<gitops.stageRefPrefix>N`. */
  readonly ref: string;
  /** The digest of the Argo CD state the decision read: the approved push re-reads and compares. */
  readonly state: string;
  /** The GitHub environment whose reviewers approve it. @default - none: pushed without approval */
  readonly environment?: string;
}

/** What a run decided. */
export interface Decided {
  /** Ready stages without an environment: pushed now. */
  readonly push: readonly StagePush[];
  /** Ready stages with an environment: pushed once its reviewers approve, after a re-read. */
  readonly approve: readonly StagePush[];
  /** The read legs the approved stages depend on, read again after the approval. */
  readonly reread: readonly ReadLeg[];
  /** One line per stage (and what holds it), for people: the run's summary. */
  readonly lines: readonly string[];
}

/** What {@link decide} reads of git and the clock. */
export interface DecideContext {
  /** The commit a ref names, undefined when there is no such ref. */
  readonly commitOf: (ref: string) => string | undefined;
  /** The main branch as a ref (`origin/main`). */
  readonly main: string;
  /** The remote whose branches are the stage refs. @default "origin" */
  readonly remote?: string;
  /** Whether main still wants a revision for a cluster (see PromotionOptions.stillWanted). */
  readonly stillWanted?: (revision: string) => PromotionOptions['stillWanted'];
  readonly now?: number;
}

/** How often the promote workflow runs (its cron): the turn of the approval stages. */
const QUARTER_HOUR = 15 * 60_000;

/** The instance a file of Applications is of: `applications-<instance>.json`, as the read jobs name their artifacts. */
export function instanceOfFile(from: string): string | undefined {
  return /^applications-(.+)\.json$/.exec(basename(from))?.[1];
}

/** The read leg that serves a cluster: its `argocd`, or the fleet's only one. */
const legOf = (cluster: Cluster) => cluster.argocd ?? SINGLE_INSTANCE;

/** Each stage of the platform decided with the Applications of `files` (see the file's comment). */
export function decide(platform: Platform, files: readonly ApplicationsRead[], context: DecideContext): { readonly decided?: Decided; readonly problems: readonly string[] } {
  const legs = readLegs(platform);
  const named = files.map((f) => ({ file: f, instance: instanceOfFile(f.from) }));
  const problems = [
    ...named.filter((n) => n.instance === undefined || !legs.some((l) => l.name === n.instance))
      .map((n) => `${n.file.from}: decide reads the read jobs' artifacts, applications-<instance>.json, one per Argo CD instance (${legs.map((l) => l.name).join(', ')})`),
    ...(files.length === 0 ? ['no Argo CD instance\'s Applications could be read (see the read jobs): nothing is promoted'] : []),
  ];
  const { byName, problems: twice } = mergeApplications(files);
  if (problems.length || twice.length) return { problems: [...problems, ...twice] };
  const read = new Set(named.map((n) => n.instance));
  const unread = legs.filter((l) => !read.has(l.name)).map((l) => l.name);
  const remote = context.remote ?? 'origin';
  const lines: string[] = unread.length ? [`Argo CD ${unread.join(', ')}: could not be read (see the read job); only the stages that wait on ${unread.length === 1 ? 'its' : 'their'} clusters are held`] : [];
  const ready: StagePush[] = [];
  for (const s of promotionPlan(platform).stages) {
    const follows = s.follows === undefined ? context.main : `${remote}/${s.follows}`;
    const revision = context.commitOf(follows);
    if (revision === undefined) {
      lines.push(`stage ${s.stage}: waits for ${follows}, which does not exist yet: stage ${s.stage - 1} is promoted first`);
      break;
    }
    if (context.commitOf(`${remote}/${s.ref}`) === revision) {
      lines.push(`stage ${s.stage}: ${s.ref} is at ${revision} already`);
      continue;
    }
    const waitsOn = platform.clusters.filter((c) => c.stage === s.stage - 1 && c.manualSync !== true);
    const held = [...new Set(waitsOn.map(legOf))].filter((l) => unread.includes(l));
    if (held.length) {
      const ids = waitsOn.filter((c) => held.includes(legOf(c))).map((c) => c.id);
      lines.push(`stage ${s.stage}: held: Argo CD ${held.join(', ')} could not be read, and it deploys stage ${s.stage - 1}'s ${someNames(ids)}`);
      continue;
    }
    const d = promotion(platform, s.stage, revision, byName, {
      ...(context.stillWanted ? { stillWanted: context.stillWanted(revision) } : {}), ...(context.now !== undefined ? { now: context.now } : {}),
    });
    lines.push(...decisionLines(s.stage, revision, d));
    if (d.ready) ready.push({ stage: s.stage, revision, ref: d.ref, state: d.state, ...(d.environment !== undefined ? { environment: d.environment } : {}) });
  }
  const approvals = ready.filter((p) => p.environment !== undefined);
  const turn = Math.floor((context.now ?? Date.now()) / QUARTER_HOUR) % Math.max(1, approvals.length);
  const approve = approvals.slice(turn, turn + 1);
  for (const later of approvals.filter((p) => !approve.includes(p))) {
    lines.push(`stage ${later.stage}: its reviewers are asked in another run (one approval per run, so that no stage's pending or rejected approval holds another's push)`);
  }
  const needed = new Set(platform.clusters.filter((c) => approve.some((p) => c.stage === p.stage - 1) && c.manualSync !== true).map(legOf));
  return { decided: { push: ready.filter((p) => p.environment === undefined), approve, reread: legs.filter((l) => needed.has(l.name)), lines }, problems: [] };
}

/** A stage's decision as the summary says it. */
function decisionLines(stage: number, revision: string, d: Promotion): string[] {
  if (d.ready) {
    return [`stage ${stage}: ${d.command ?? ''}${d.environment !== undefined ? ` (once the required reviewers of the GitHub environment ${d.environment} approve)` : ''}`];
  }
  const soak = d.soakRemainingMinutes ? ` (soak: ${d.soakRemainingMinutes}m left)` : '';
  return [`stage ${stage}: not yet for ${revision.slice(0, 12)}${soak}`, ...d.blockers.map((b) => `  ${b}`)];
}
