/**
 * A fleet in simulated time: a git repository of synthesized trees (git-sim.ts), Argo CD
 * (argocd-sim.ts) in its own cluster, and per cluster an API server with its Deployment and Job
 * controllers (kube-sim.ts), Karpenter (karpenter-sim.ts), the drift gate's pod (gate-sim.ts) and the
 * guard gates' pods (guard-gate-sim.ts),
 * and the promotion CI job of docs/windows.md, run as GitHub runs the promote workflow the commits
 * carry (github-sim.ts: its push jobs' environments, concurrency and credential; GitHub refuses a
 * push as git-sim.ts says). Everything is driven by the files of the commits:
 * a person applies `argocd/argocd-cm-patch.yaml` and `argocd/bootstrap.yaml` by hand once, as
 * the docs say; the rest comes from git through Argo CD.
 *
 * Time moves in one-minute steps. Each minute: the Deployment and Job controllers (and the gate
 * pods), then Karpenter, then Argo CD, then (every 15 minutes) the CI job, then the checks.
 * Minutes in which nothing can happen are skipped: Argo CD idle (no operation, no refresh asked
 * for, every Application compared at the commit its ref names now and none that auto-sync would
 * sync), every cluster idle (no rollout, no running Job, no NodeClaim drifted, launching or
 * deleted, nothing changed since Karpenter's last minute), no stage behind the stage before it;
 * the skip ends at the next scheduled action or when a sync window opens for an Application that
 * waits on it. Argo CD's periodic refreshes in such minutes would compare the same objects at the
 * same commits and change nothing.
 *
 * Beside the simulation runs an **oracle** that says, from the commits' files and the objects in
 * each cluster, when a cluster has finished a commit: Karpenter runs the commit's chart and
 * values, every NodePool, EC2NodeClass and NodeOverlay of the commit is applied as written and
 * hashed by Karpenter, and every NodeClaim of its NodePools carries those hashes and one of its
 * EC2NodeClass's images, none being replaced, for 600s without a break. It reads no digest and
 * no status written by the generator's design (not the gate, not `npm run promote`).
 */
import { parse, parseAllDocuments } from 'yaml';
import type { Platform } from '../../src/config/platform';
import { applicationsIndex, promotion } from '../../src/promote/promote';
import { ArgoEvent, ArgoSim } from './argocd-sim';
import { Assess, assess as simAssess, gateProgram, GateLook, isGateJob } from './gate-sim';
import { GitSim } from './git-sim';
import { guardGateProgram, GuardLook, isGuardGateJob } from './guard-gate-sim';
import { PromoteWorkflow, promoteWorkflow, PushJob } from './github-sim';
import { renderChart } from './karpenter-chart';
import { ec2NodeClassHash, KarpenterSim, nodePoolHash } from './karpenter-sim';
import { KubeApi, KubeControllers, KubeObject } from './kube-sim';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const MINUTE = 60_000;
const SETTLE_MS = 600_000;

/** A synthesized tree and the platform it was made from. */
export interface Synthesized {
  readonly files: ReadonlyMap<string, string>;
  readonly platform: Platform;
}

/** A cluster of the fleet, as its config says. */
export interface SimCluster {
  readonly id: string;
  readonly stage?: number;
  /** The local window drifted nodes may be replaced in. */
  readonly window?: { readonly timeZone: string; readonly days: readonly string[]; readonly start: string; readonly duration: string };
  readonly api: KubeApi;
  readonly kube: KubeControllers;
  readonly karpenter: KarpenterSim;
}

/** Options of {@link FleetSim}. */
export interface FleetSimOptions {
  /** When the simulation starts (the bootstrap is applied then). */
  readonly start: Date;
  /** The latest time it may run to (fire lists of schedules are built up to it). */
  readonly end: Date;
  /** NodeClaims a NodePool starts with. */
  readonly initialNodeClaims: (cluster: string, pool: string) => number;
  /** The windows of the config, by cluster. */
  readonly windows: Readonly<Record<string, SimCluster['window']>>;
  /** The gate's decision. @default gate-sim.ts assess */
  readonly assess?: Assess;
  /** Stage refs created with the first commit. @default - none */
  readonly refsAtStart?: readonly string[];
  /** Seed of the jitter. @default 1 */
  readonly seed?: number;
  /**
   * The text of `.github/workflows/promote.yaml` every commit carries, unless its tree has its own:
   * the CI runs the workflow of main's commit, as GitHub runs a scheduled workflow.
   * @default - the repository's own file
   */
  readonly workflow?: string;
}

/** Where the promote workflow is, in the repository and in every commit of the simulation. */
export const PROMOTE_WORKFLOW = '.github/workflows/promote.yaml';
const REPOSITORY_WORKFLOW = readFileSync(join(__dirname, '../..', PROMOTE_WORKFLOW), 'utf8');

/** What happened to one push job of the promote workflow (see {@link FleetSim.ciJobs}). */
export interface CiJobEvent {
  readonly at: number;
  readonly stage: number;
  readonly revision: string;
  /**
   * `pending`: queued behind another job of its concurrency group; `cancelled`: a newer job took
   * its place; `waiting`: for its environment's reviewers; `approved`; `pushed`; `refused` by
   * GitHub; `not-wanted`: its re-check held it; `up-to-date`: the ref had the commit already.
   */
  readonly event: 'pending' | 'cancelled' | 'waiting' | 'approved' | 'pushed' | 'refused' | 'not-wanted' | 'up-to-date';
  /** The job (its id in the workflow), and why, for a refusal or a re-check. */
  readonly job: string;
  readonly message?: string;
}

/** A push job of a run of the promote workflow. */
interface CiPush {
  readonly stage: number;
  readonly revision: string;
  readonly ref: string;
  readonly job: PushJob;
  readonly group?: string;
  /** The Applications its run read (the artifact it downloads). */
  readonly applications: unknown;
  /** The digest of the Argo CD state its run decided on (`--expect-state`). */
  readonly decidedOn: string;
  /** The config of its run's commit (what it checks out). */
  readonly platform: Platform;
  /** The workflow-wide concurrency group of its run. @default - none */
  readonly runGroup?: string;
  state: 'pending' | 'waiting' | 'done';
}

/** One decision of the CI job. */
export interface CiRun {
  readonly at: number;
  readonly stage: number;
  readonly revision?: string;
  readonly ready: boolean;
  readonly blockers: readonly string[];
}

/** What the oracle expects of a cluster at a commit. */
interface Expected {
  readonly karpenter: readonly { readonly kind: string; readonly name: string; readonly json: string; readonly hash?: string }[];
  readonly pools: ReadonlySet<string>;
  readonly template: string;
}

const FIXTURES = join(__dirname, '../fixtures/argocd-health');
const BUILTIN_HEALTH = new Map([
  ['karpenter.sh/NodePool', readFileSync(join(FIXTURES, 'karpenter.sh/NodePool/health.lua'), 'utf8')],
  ['karpenter.k8s.aws/EC2NodeClass', readFileSync(join(FIXTURES, 'karpenter.k8s.aws/EC2NodeClass/health.lua'), 'utf8')],
]);

/** What the oracle expects of a cluster at a commit, by `cluster@sha` (a sha names the same tree in every simulation). */
const expectedMemo = new Map<string, Expected>();

/** mulberry32: a small seeded generator, so every run jitters alike. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const docsOf = (text: string): KubeObject[] => parseAllDocuments(text).map((d) => d.toJS() as KubeObject).filter((o) => o !== null && o !== undefined);

/** Memo of {@link FleetSim.doneNow} by what it reads: the cluster's API server state and the commit. */
const DONE_NOW = Symbol('doneNow');

/** A fleet in simulated time. */
export class FleetSim {
  public readonly git = new GitSim();
  public readonly inCluster: KubeApi;
  public readonly clusters = new Map<string, SimCluster>();
  public readonly argo: ArgoSim;
  public now: number;
  /** The platform of each commit (the CI job reads main's). */
  private readonly platforms = new Map<string, Platform>();
  public readonly ciRuns: CiRun[] = [];
  /** Every push job's events, in order. */
  public readonly ciJobs: CiJobEvent[] = [];
  /** Push jobs not done: pending in their group, or waiting for their reviewers. */
  private readonly openPushes: CiPush[] = [];
  /** A scheduled run pending behind its workflow's concurrency group. */
  private pendingRun = false;
  private readonly workflowText: string;
  private readonly workflows = new Map<string, PromoteWorkflow>();
  public readonly gateLooks: GateLook[] = [];
  /** What the guard gates' pods saw, each look whose verdict changed. */
  public readonly guardLooks: GuardLook[] = [];
  /** Broken invariants, one line each, with the minute. */
  public readonly violations: string[] = [];
  /** When each cluster finished each commit (oracle). */
  public readonly finished = new Map<string, Map<string, number>>();
  private readonly doneSince = new Map<string, { sha: string; since: number }>();
  private readonly actions: { at: number; run: () => void }[] = [];
  /** Stages whose CI job is switched off. */
  public readonly ciDisabled = new Set<number>();
  private readonly windowMinutes = new Map<string, (t: number) => boolean>();
  private readonly reportedRunning = new Set<string>();
  /** Longest time a root or the bootstrap had an operation Running, by Application. */
  public readonly longestRootOperation = new Map<string, number>();
  /** Minutes a windowed Application waited on its window OutOfSync, and what its health check said meanwhile. */
  public readonly windowWaits: { at: number; app: string; childHealth: string; rootHealth: string }[] = [];

  public constructor(first: Synthesized, options: FleetSimOptions) {
    this.now = options.start.getTime();
    this.inCluster = new KubeApi('in-cluster', () => this.now);
    this.workflowText = options.workflow ?? REPOSITORY_WORKFLOW;
    const sha = this.commit(first, 'C0: the fleet');
    for (const ref of options.refsAtStart ?? []) this.git.push(ref, sha, this.now);
    for (const c of first.platform.clusters) {
      const name = 'name' in c.destination ? c.destination.name : undefined;
      if (name === undefined) throw new Error(`cluster ${c.id}: the simulation needs destination.name`);
      const api = new KubeApi(name, () => this.now);
      const kube = new KubeControllers(api, (job) => {
        if (isGuardGateJob(job)) return guardGateProgram(c.id, this.guardLooks);
        if (!isGateJob(job)) throw new Error(`${c.id}: Job ${job.name} is neither a drift gate nor a guard gate: no program simulated`);
        return gateProgram(c.id, options.assess ?? simAssess, this.gateLooks);
      });
      const karpenter = new KarpenterSim(c.id, api, kube, { initialNodeClaims: (pool) => options.initialNodeClaims(c.id, pool), from: new Date(this.now - 86_400_000), to: options.end });
      this.clusters.set(c.id, { id: c.id, stage: c.stage, window: options.windows[c.id], api, kube, karpenter });
      if (c.window) this.windowMinutes.set(c.id, localWindow(options.windows[c.id]!));
    }
    const files = first.files;
    const cm = parse(files.get('argocd/argocd-cm-patch.yaml')!) as { data: Record<string, string> };
    this.argo = new ArgoSim({
      git: this.git, inCluster: this.inCluster,
      clusters: new Map([...this.clusters.values()].map((c) => [c.api.cluster, c.api])),
      argocdCm: cm.data, builtinHealth: BUILTIN_HEALTH, random: seeded(options.seed ?? 1),
      from: new Date(this.now - 86_400_000), to: options.end, namespace: first.platform.gitops.argocdNamespace,
    });
    // Applied by hand (docs/fleets.md): the bootstrap Application.
    this.inCluster.apply(parse(files.get('argocd/bootstrap.yaml')!) as KubeObject);
  }

  /** Commits a synthesized tree on main, with the promote workflow unless the tree has its own; returns the sha. */
  public commit(tree: Synthesized, message: string): string {
    const files = tree.files.has(PROMOTE_WORKFLOW) ? tree.files : new Map([...tree.files, [PROMOTE_WORKFLOW, this.workflowText]]);
    const sha = this.git.commit(files, message, this.now);
    this.platforms.set(sha, tree.platform);
    return sha;
  }

  /** Runs `run` at simulated time `at`. */
  public at(at: number, run: () => void): void {
    this.actions.push({ at, run });
  }

  /** Advances to `until`, minute by minute. */
  public runUntil(until: number): void {
    while (this.now + MINUTE <= until) {
      this.skipQuietMinutes(until);
      this.step();
    }
  }

  /** Advances minute by minute until `done()` or `until`; returns whether `done()`. */
  public runUntilTrue(done: () => boolean, until: number): boolean {
    while (this.now + MINUTE <= until) {
      if (!done()) this.skipQuietMinutes(until);
      this.step();
      if (done()) return true;
    }
    return false;
  }

  /** Simulated minutes skipped because nothing could happen in them. */
  public skippedMinutes = 0;

  /**
   * Skips minutes in which nothing can happen: Argo CD, every cluster and the oracle idle, the
   * CI job with nothing to push; the skip ends before a scheduled action, at `until`, or when a
   * sync window opens for an Application that waits on it.
   */
  private skipQuietMinutes(until: number): void {
    if (!this.quiet()) return;
    const nextAction = Math.min(until, ...this.actions.map((a) => a.at));
    while (this.now + 2 * MINUTE <= nextAction && !this.argo.windowOpensFor(this.now + MINUTE)) {
      this.now += MINUTE;
      this.skippedMinutes++;
    }
  }

  private quiet(): boolean {
    if (!this.argo.idle()) return false;
    for (const c of this.clusters.values()) if (!c.kube.idle() || !c.karpenter.idle(this.now)) return false;
    for (const c of this.clusters.values()) {
      const since = this.doneSince.get(c.id);
      if (since && !this.finished.get(c.id)?.has(since.sha)) return false;
    }
    // The CI job might push: a stage behind the stage before it (and its job on).
    const platform = this.mainPlatform();
    for (const stage of this.stages(platform)) {
      const revision = this.git.resolve(stage - 1 === 1 ? 'main' : this.stageRef(platform, stage - 1));
      if (revision !== undefined && !this.ciDisabled.has(stage) && this.git.resolve(this.stageRef(platform, stage)) !== revision) return false;
    }
    return true;
  }

  private stages(platform: Platform): number[] {
    return [...new Set(platform.clusters.map((c) => c.stage).filter((s): s is number => s !== undefined && s >= 2))].sort();
  }

  private step(): void {
    this.now += MINUTE;
    const now = this.now;
    for (const a of this.actions.filter((x) => x.at <= now)) {
      this.actions.splice(this.actions.indexOf(a), 1);
      a.run();
    }
    for (const c of this.clusters.values()) c.kube.tick(now);
    for (const c of this.clusters.values()) c.karpenter.tick(now);
    this.argo.tick(now);
    if (Math.floor(now / MINUTE) % 15 === 0) this.ci(now);
    this.observe(now);
  }

  /** The stage ref of stage `n`. */
  public stageRef(platform: Platform, n: number): string {
    return `${platform.gitops.stageRefPrefix ?? 'karpenter-gitops/stage-'}${n}`;
  }

  /** The platform of main's commit (the config the CI job checks out). */
  public mainPlatform(): Platform {
    return this.platforms.get(this.git.resolve('main')!)!;
  }

  /** `kubectl -n argocd get applications -o json`, parsed (as `npm run promote` reads the file). */
  public applicationsJson(): unknown {
    return JSON.parse(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: this.inCluster.list('Application').map((l) => this.inCluster.render(l)) })) as unknown;
  }

  /** The promote workflow of a commit, as GitHub runs it. */
  private workflowOf(sha: string): PromoteWorkflow {
    const text = this.git.get(sha).files.get(PROMOTE_WORKFLOW) ?? this.workflowText;
    let workflow = this.workflows.get(text);
    if (!workflow) {
      workflow = promoteWorkflow(text);
      this.workflows.set(text, workflow);
    }
    return workflow;
  }

  /** As `npm run promote -- … --main origin/main` asks git when called: are a cluster's files at `revision` main's? */
  private stillWanted(revision: string): (cluster: { id: string }) => boolean | undefined {
    const files = (sha: string, id: string) => [...this.git.get(sha).files].filter(([p]) => p.startsWith(`dist/${id}/`) || p === `argocd/${id}.yaml`).sort(([a], [b]) => (a < b ? -1 : 1));
    return (cluster) => {
      const main = this.git.resolve('main');
      return main === undefined ? undefined : JSON.stringify(files(revision, cluster.id)) === JSON.stringify(files(main, cluster.id));
    };
  }

  /**
   * A scheduled run of the promote workflow (docs/windows.md), every 15 minutes, of main's commit:
   * it reads the Applications, then decides each stage as the decide job does (stage 2 from main,
   * stage N from stage N-1's ref; a stage whose stage before has no ref ends the loop; a stage
   * already at that commit is skipped) with `npm run promote`'s own `promotion` at this minute,
   * and queues a push job for each ready stage. A run of a workflow with a concurrency group of
   * its own waits while another of the group is in progress.
   */
  private ci(now: number): void {
    const workflow = this.workflowOf(this.git.resolve('main')!);
    if (workflow.runGroup !== undefined && this.openPushes.some((p) => p.runGroup === workflow.runGroup)) {
      this.pendingRun = true;
      return;
    }
    this.pendingRun = false;
    const platform = this.mainPlatform();
    const applications = this.applicationsJson();
    const ready: { stage: number; revision: string; ref: string; decidedOn: string; environment?: string }[] = [];
    for (const stage of this.stages(platform)) {
      if (this.ciDisabled.has(stage)) continue;
      const prev = stage - 1 === 1 ? 'main' : this.stageRef(platform, stage - 1);
      const revision = this.git.resolve(prev);
      if (revision === undefined) {
        this.ciRuns.push({ at: now, stage, ready: false, blockers: [`${prev} does not exist`] });
        break;
      }
      if (this.git.resolve(this.stageRef(platform, stage)) === revision) continue;
      const decision = promotion(platform, stage, revision, applicationsIndex(applications), { stillWanted: this.stillWanted(revision), now });
      this.ciRuns.push({ at: now, stage, revision, ready: decision.ready, blockers: decision.blockers });
      if (decision.ready) ready.push({ stage, revision, ref: decision.ref, decidedOn: decision.state, ...(decision.environment !== undefined ? { environment: decision.environment } : {}) });
    }
    for (const r of ready) {
      // A stage with a GitHub environment goes to the push job that names one (push-approved).
      const job = workflow.pushJobs.find((j) => j.environment === (r.environment !== undefined)) ?? workflow.pushJobs[0];
      const group = job.group?.(r.stage);
      this.queuePush({
        ...r, job, applications, platform, state: 'pending',
        ...(group !== undefined ? { group } : {}), ...(workflow.runGroup !== undefined ? { runGroup: workflow.runGroup } : {}),
      });
    }
  }

  private jobEvent(p: CiPush, event: CiJobEvent['event'], message?: string): void {
    this.ciJobs.push({ at: this.now, stage: p.stage, revision: p.revision, event, job: p.job.id, ...(message !== undefined ? { message } : {}) });
  }

  /** A push job queued: behind a job of its group in progress (replacing the one pending there), else started. */
  private queuePush(push: CiPush): void {
    const group = push.group;
    if (group !== undefined && this.openPushes.some((p) => p.group === group && p.state === 'waiting')) {
      for (const old of this.openPushes.filter((p) => p.group === group && p.state === 'pending')) {
        old.state = 'done';
        this.jobEvent(old, 'cancelled');
      }
      this.openPushes.splice(0, this.openPushes.length, ...this.openPushes.filter((p) => p.state !== 'done'));
      this.openPushes.push(push);
      this.jobEvent(push, 'pending');
      return;
    }
    this.startPush(push);
  }

  /** A job with an environment waits for its reviewers; one without runs at once. */
  private startPush(push: CiPush): void {
    if (push.job.environment) {
      push.state = 'waiting';
      if (!this.openPushes.includes(push)) this.openPushes.push(push);
      this.jobEvent(push, 'waiting');
      return;
    }
    this.runPush(push);
  }

  /**
   * A reviewer of the stage's GitHub environment approves its waiting push job, which runs now;
   * false when no job of the stage waits.
   */
  public approve(stage: number): boolean {
    const push = this.openPushes.find((p) => p.stage === stage && p.state === 'waiting');
    if (!push) return false;
    this.jobEvent(push, 'approved');
    this.runPush(push);
    return true;
  }

  /**
   * A push job's push step: the ref may already have the commit; else it asks `npm run promote`
   * again, with the Applications its run read and main as it is now, and pushes with the
   * workflow's credential, which GitHub may refuse (git-sim.ts pushAs). Then the next job of its
   * group starts, and a run pending behind the workflow's own group.
   */
  private runPush(push: CiPush): void {
    const now = this.now;
    if (this.git.resolve(push.ref) === push.revision) this.jobEvent(push, 'up-to-date');
    else {
      // A job that re-reads (push-approved) asks with Argo CD as it is now, and only while it says what the run decided on.
      const applications = push.job.rereads ? this.applicationsJson() : push.applications;
      const asked = promotion(push.platform, push.stage, push.revision, applicationsIndex(applications), { stillWanted: this.stillWanted(push.revision), now });
      const changed = push.job.rereads && asked.ready && asked.state !== push.decidedOn;
      const decision = changed ? { ...asked, ready: false, blockers: [`Argo CD no longer says what the decision ${push.decidedOn} was made on`] } : asked;
      if (!decision.ready) this.jobEvent(push, 'not-wanted', decision.blockers.join('; '));
      else {
        const refusal = this.git.pushAs(push.job.credential, push.ref, push.revision, now);
        this.jobEvent(push, refusal ? 'refused' : 'pushed', refusal?.message);
      }
    }
    push.state = 'done';
    this.openPushes.splice(0, this.openPushes.length, ...this.openPushes.filter((p) => p.state !== 'done'));
    const next = push.group === undefined ? undefined : this.openPushes.find((p) => p.group === push.group && p.state === 'pending');
    if (next) this.startPush(next);
    if (this.pendingRun && push.runGroup !== undefined && !this.openPushes.some((p) => p.runGroup === push.runGroup)) this.ci(now);
  }

  /** The ref a cluster's root tracks. */
  public refOf(cluster: SimCluster): string {
    const platform = this.mainPlatform();
    return cluster.stage !== undefined && cluster.stage >= 2 ? this.stageRef(platform, cluster.stage) : 'main';
  }

  /** The cluster an Application belongs to (its root, or a child under dist/<cluster>/apps/), if any. */
  public clusterOf(app: string): SimCluster | undefined {
    const root = app.endsWith('-karpenter-root') ? app : this.inCluster.get('Application', app, 'argocd')?.trackedBy;
    return [...this.clusters.values()].find((c) => `${c.id}-karpenter-root` === root);
  }

  /** What the oracle expects of `cluster` at commit `sha`. */
  private expected(cluster: string, sha: string): Expected | undefined {
    const key = `${cluster}@${sha}`;
    let e = expectedMemo.get(key);
    if (e) return e;
    const files = this.git.get(sha).files;
    const app = files.get(`dist/${cluster}/apps/karpenter.yaml`);
    const values = files.get(`dist/${cluster}/karpenter/values.yaml`);
    if (!app || !values) return undefined;
    const spec = (parse(app) as { spec: { sources: { chart?: string; targetRevision: string }[]; destination: { namespace: string } } }).spec;
    const version = spec.sources.find((s) => s.chart === 'karpenter')!.targetRevision;
    const deployment = renderChart('karpenter', version, 'karpenter', spec.destination.namespace, values).find((o) => o.kind === 'Deployment')!;
    const karpenter: { kind: string; name: string; json: string; hash?: string }[] = [];
    const pools = new Set<string>();
    for (const [path, text] of files) {
      if (!path.startsWith(`dist/${cluster}/nodepools/`) && !path.startsWith(`dist/${cluster}/overlays/`)) continue;
      for (const obj of docsOf(text)) {
        if (!['NodePool', 'EC2NodeClass', 'NodeOverlay'].includes(obj.kind)) continue;
        const hash = obj.kind === 'NodePool' ? nodePoolHash(obj) : obj.kind === 'EC2NodeClass' ? ec2NodeClassHash(obj) : undefined;
        karpenter.push({ kind: obj.kind, name: obj.metadata.name, json: JSON.stringify(obj), hash });
        if (obj.kind === 'NodePool') pools.add(obj.metadata.name);
      }
    }
    e = { karpenter, pools, template: JSON.stringify((deployment.spec as { template: unknown }).template) };
    expectedMemo.set(key, e);
    return e;
  }

  /** Whether `cluster` runs commit `sha` with nothing left to replace, now (without the settle time). */
  public doneNow(cluster: SimCluster, sha: string): boolean {
    const memo = (cluster as unknown as Record<symbol, { key: string; done: boolean } | undefined>)[DONE_NOW];
    const key = `${sha}/${cluster.api.changes}`;
    if (memo?.key === key) return memo.done;
    const done = this.computeDoneNow(cluster, sha);
    (cluster as unknown as Record<symbol, { key: string; done: boolean }>)[DONE_NOW] = { key, done };
    return done;
  }

  private computeDoneNow(cluster: SimCluster, sha: string): boolean {
    const e = this.expected(cluster.id, sha);
    if (!e) return false;
    const deployment = cluster.api.list('Deployment').find((d) => (d.applied.metadata.labels ?? {})['helm.sh/chart']?.startsWith('karpenter-'));
    const serving = deployment && cluster.kube.servingTemplate(deployment.namespace!, deployment.name);
    if (!serving || JSON.stringify(serving) !== e.template) return false;
    const hashes = new Map<string, string>();
    for (const x of e.karpenter) {
      const live = cluster.api.get(x.kind, x.name);
      if (!live || live.deletionAt !== undefined || live.appliedJson !== x.json) return false;
      if (x.hash !== undefined) {
        const annotation = x.kind === 'NodePool' ? 'karpenter.sh/nodepool-hash' : 'karpenter.k8s.aws/ec2nodeclass-hash';
        if (live.controllerAnnotations[annotation] !== x.hash) return false;
        hashes.set(`${x.kind}/${x.name}`, x.hash);
      }
    }
    for (const claim of cluster.api.list('NodeClaim')) {
      const pool = claim.applied.metadata.labels?.['karpenter.sh/nodepool'] ?? '';
      if (!e.pools.has(pool)) continue;
      if (claim.deletionAt !== undefined) return false;
      const className = (claim.applied.spec as { nodeClassRef: { name: string } }).nodeClassRef.name;
      if (claim.controllerAnnotations['karpenter.sh/nodepool-hash'] !== hashes.get(`NodePool/${pool}`)) return false;
      if (claim.controllerAnnotations['karpenter.k8s.aws/ec2nodeclass-hash'] !== hashes.get(`EC2NodeClass/${className}`)) return false;
      const nodeClass = cluster.api.get('EC2NodeClass', className)!;
      const amis = ((nodeClass.status ?? {}) as { amis?: { id: string }[]; conditions?: { type: string; observedGeneration?: number }[] });
      if ((amis.conditions ?? []).find((c) => c.type === 'Ready')?.observedGeneration !== nodeClass.generation) return false;
      if (!(amis.amis ?? []).some((a) => a.id === ((claim.status ?? {}) as { imageID?: string }).imageID)) return false;
      const initialized = ((claim.status ?? {}) as { conditions?: { type: string; status: string }[] }).conditions?.some((c) => c.type === 'Initialized' && c.status === 'True');
      if (!initialized) return false;
    }
    return true;
  }

  /** The minute's checks: the oracle, and the invariants. */
  private observe(now: number): void {
    for (const c of this.clusters.values()) {
      const sha = this.git.resolve(this.refOf(c));
      if (sha === undefined) continue;
      const done = this.doneNow(c, sha);
      const since = this.doneSince.get(c.id);
      if (!done) this.doneSince.delete(c.id);
      else if (!since || since.sha !== sha) this.doneSince.set(c.id, { sha, since: now });
      else if (now - since.since >= SETTLE_MS) {
        if (!this.finished.has(c.id)) this.finished.set(c.id, new Map());
        if (!this.finished.get(c.id)!.has(sha)) this.finished.get(c.id)!.set(sha, now);
      }
    }
    for (const watch of this.watchers) watch(now);
    this.checkJobs(now);
    this.checkDisruptions(now);
    this.checkSyncs(now);
    this.checkRootOperations(now);
    this.checkWindowWaits(now);
  }

  /** Whether the invariants are checked (from {@link check} on; not while a fleet bootstraps with refs set by hand). */
  private checking = false;

  private readonly watchers: ((now: number) => void)[] = [];

  /** Calls `watch` at the end of every simulated minute (not for skipped minutes, in which nothing changes). */
  public everyMinute(watch: (now: number) => void): void {
    this.watchers.push(watch);
  }

  private readonly failedJobs = new Set<string>();

  /** No Job fails: the drift gate has no deadline (it waits), and a guard gate fails only at its deadline, when its policy never comes (a scenario that wants it says so). */
  private checkJobs(now: number): void {
    for (const c of this.clusters.values()) {
      for (const job of c.api.list('Job')) {
        const failed = (((job.status ?? {}) as { conditions?: { type: string; status: string }[] }).conditions ?? []).some((x) => x.type === 'Failed' && x.status === 'True');
        if (failed && !this.failedJobs.has(job.uid)) {
          this.failedJobs.add(job.uid);
          this.violation(now, `${c.id}: Job ${job.name} failed`);
        }
      }
    }
  }

  /** Checks the invariants from now on. */
  public check(): void {
    this.checking = true;
  }

  private violation(now: number, what: string): void {
    if (this.checking) this.violations.push(`${new Date(now).toISOString()}: ${what}`);
  }

  private checkedDisruptions = new Map<string, number>();

  /** No drifted node is replaced outside its cluster's window (local time, as configured). */
  private checkDisruptions(now: number): void {
    for (const c of this.clusters.values()) {
      const inWindow = this.windowMinutes.get(c.id);
      const from = this.checkedDisruptions.get(c.id) ?? 0;
      for (const d of c.karpenter.disruptions.slice(from)) {
        if (inWindow && !inWindow(d.at)) this.violation(d.at, `${c.id}: Karpenter replaced drifted NodeClaim ${d.nodeClaim} of NodePool ${d.pool} outside the window`);
      }
      this.checkedDisruptions.set(c.id, c.karpenter.disruptions.length);
    }
    void now;
  }

  private checkedEvents = 0;

  /**
   * No Application of a stage-N cluster starts syncing a commit that every stage-(N-1)
   * cluster has not finished; no sync ends Failed or Error; the API server refuses nothing.
   */
  private checkSyncs(now: number): void {
    const events = this.argo.events.slice(this.checkedEvents);
    this.checkedEvents = this.argo.events.length;
    for (const e of events) this.checkEvent(e);
    void now;
  }

  private checkEvent(e: ArgoEvent): void {
    if (e.type === 'apply-refused') this.violation(e.at, `${e.app}: the API server refused an object: ${e.message}`);
    if (e.type === 'sync-finished' && e.phase !== 'Succeeded') this.violation(e.at, `${e.app}: sync ${e.phase}: ${e.message}`);
    if (e.type !== 'sync-started') return;
    const cluster = this.clusterOf(e.app);
    if (!cluster?.stage || cluster.stage < 2) return;
    const sha = e.revisions.find((r) => /^[0-9a-f]{40}$/.test(r));
    if (!sha) return;
    for (const before of this.clusters.values()) {
      if (before.stage !== cluster.stage - 1) continue;
      if (!this.finished.get(before.id)?.has(sha)) {
        this.violation(e.at, `${e.app} (stage ${cluster.stage}) started syncing ${sha.slice(0, 8)} (${this.git.message(sha)}), which ${before.id} (stage ${before.stage}) has not finished`);
      }
    }
  }

  /** No root or bootstrap operation stays Running longer than two reconciles (2 x (120s + 60s jitter)). */
  private checkRootOperations(now: number): void {
    const limit = 2 * (120_000 + 60_000);
    for (const live of this.inCluster.list('Application')) {
      if (!live.name.endsWith('-karpenter-root') && live.name !== 'karpenter-gitops-bootstrap') continue;
      const op = this.argo.operation(live.name);
      if (!op) continue;
      const running = (op.phase === 'Running' ? now : op.finishedAt ?? now) - op.startedAt;
      this.longestRootOperation.set(live.name, Math.max(this.longestRootOperation.get(live.name) ?? 0, running));
      const key = `${live.name}@${op.startedAt}`;
      if (op.phase === 'Running' && running > limit && !this.reportedRunning.has(key)) {
        this.reportedRunning.add(key);
        this.violation(now, `${live.name}: its sync operation (started ${new Date(op.startedAt).toISOString()}) has been Running for ${running / MINUTE} minutes: ${op.message}`);
      }
    }
  }

  /** While a windowed Application waits on its window, its health check says Healthy, and its root's health does not wait on it. */
  private checkWindowWaits(now: number): void {
    for (const c of this.clusters.values()) {
      if (!c.window) continue;
      const root = this.inCluster.get('Application', `${c.id}-karpenter-root`, 'argocd');
      if (!root) continue;
      const rootHealth = ((root.status ?? {}) as { health?: { status?: string } }).health?.status ?? 'none';
      for (const child of this.inCluster.trackedBy(root.name)) {
        if (!child.applied.metadata.annotations?.['karpenter-gitops.io/waits-for']) continue;
        const sync = ((child.status ?? {}) as { sync?: { status?: string } }).sync?.status;
        if (sync !== 'OutOfSync' || this.argo.canSync(child)) continue;
        const health = this.argo.liveHealth(this.inCluster, child);
        this.windowWaits.push({ at: now, app: child.name, childHealth: health?.status ?? 'none', rootHealth });
        if (health?.status !== 'Healthy') this.violation(now, `${child.name} waits on its window and its health check says ${health?.status}: ${health?.message}`);
        if (rootHealth === 'Healthy') continue;
        const others = this.inCluster.trackedBy(root.name).filter((o) => o !== child).map((o) => this.argo.liveHealth(this.inCluster, o)?.status ?? 'Healthy');
        if (others.every((h) => h === 'Healthy')) this.violation(now, `${root.name} is ${rootHealth} while only ${child.name} waits on its window`);
      }
    }
  }

  /** Whether every automated Application is Synced and Healthy, no operation runs, and every cluster finished its ref's commit. */
  public converged(): boolean {
    for (const live of this.inCluster.list('Application')) {
      const spec = live.applied.spec as { syncPolicy?: { automated?: unknown } };
      if (!spec.syncPolicy?.automated) continue;
      const status = (live.status ?? {}) as { sync?: { status?: string }; health?: { status?: string } };
      if (status.sync?.status !== 'Synced' || status.health?.status !== 'Healthy' || this.argo.operation(live.name)?.phase === 'Running') return false;
    }
    return [...this.clusters.values()].every((c) => {
      const sha = this.git.resolve(this.refOf(c));
      return sha !== undefined && this.finished.get(c.id)?.has(sha) === true;
    });
  }

  /** When `cluster` finished `sha`, if it did. */
  public finishedAt(cluster: string, sha: string): number | undefined {
    return this.finished.get(cluster)?.get(sha);
  }
}

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** Whether a time is inside a local window (zone, days, start, duration), from the zone's wall clock (Intl). */
function localWindow(window: NonNullable<SimCluster['window']>): (t: number) => boolean {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: window.timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const [h, m] = window.start.split(':').map(Number);
  const dm = /^(?:([0-9]+)h)?(?:([0-9]+)m)?$/.exec(window.duration)!;
  const duration = Number(dm[1] ?? 0) * 60 + Number(dm[2] ?? 0);
  const starts = window.days.map((d) => DAYS.indexOf(d) * 1440 + h * 60 + m);
  return (t) => {
    const parts = Object.fromEntries(format.formatToParts(new Date(t)).map((p) => [p.type, p.value]));
    const minute = DAYS.indexOf(parts.weekday.toLowerCase()) * 1440 + Number(parts.hour) * 60 + Number(parts.minute);
    return starts.some((s) => ((minute - s + 7 * 1440) % (7 * 1440)) < duration);
  };
}
