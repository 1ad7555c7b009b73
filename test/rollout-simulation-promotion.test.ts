/**
 * Promotion as an organisation runs it (contract 8.4), in the simulated staged fleet of
 * test/rollout-simulation.test.ts (test/support/rollout-fleet.ts): every commit carries
 * `.github/workflows/promote.yaml`, and the CI runs the workflow of main's commit as GitHub runs
 * it (test/support/github-sim.ts: its push jobs' environments, concurrency groups and credential),
 * deciding with `npm run promote`'s own `promotion` at the minute it runs; GitHub refuses a push as
 * test/support/git-sim.ts says; Argo CD records when each Application's sync ended and its health
 * last changed as argo-cd v3.5.1 does (test/support/argocd-sim.ts).
 *
 * The invariants of the simulation hold in each scenario (FleetSim `violations`, expected empty).
 * `ROLLOUT_REPORT=1` prints each scenario's timeline.
 */
import { readFileSync } from 'node:fs';
import { applicationsIndex } from '../src/promote/promote';
import { rolloutStatus } from '../src/promote/status';
import { removeProjects } from './builders';
import { PROMOTE_WORKFLOW } from './support/fleet-sim';
import type { FleetSim } from './support/fleet-sim';
import { after, Config, convergedFleet, fleetConfig, HOUR, iso, synth, TUESDAY } from './support/rollout-fleet';

afterAll(removeProjects);

const REPORT: string[] = [];
afterAll(() => {
  if (process.env.ROLLOUT_REPORT) console.log(REPORT.join('\n'));
});

const MINUTE = 60_000;
/** A change every cluster finishes quickly: the controller logs at debug (its Deployment rolls out; no node drifts). */
const DEBUG_LOGS = (c: Config) => { c.karpenter.controller = { ...c.karpenter.controller, logLevel: 'debug' }; };
const pushOf = (fleet: FleetSim, stage: number, sha: string) => fleet.git.pushes.find((p) => p.ref === `karpenter-gitops/stage-${stage}` && p.to === sha)?.at;

/**
 * When the Applications of `cluster` last became what they are, as Argo CD recorded it: the latest
 * `status.operationState.finishedAt` or `status.health.lastTransitionTime` of its automated
 * Applications (what docs/windows.md calls the stage finishing), read from their statuses.
 */
function recordedFinish(fleet: FleetSim, cluster: string): number {
  const items = (fleet.applicationsJson() as { items: { metadata: { name: string }; spec: { syncPolicy?: { automated?: unknown } }; status: { operationState?: { finishedAt?: string }; health?: { lastTransitionTime?: string } } }[] }).items;
  const times = items.filter((a) => a.metadata.name.startsWith(`${cluster}-`) && a.spec.syncPolicy?.automated)
    .flatMap((a) => [a.status.operationState?.finishedAt, a.status.health?.lastTransitionTime]).filter((t): t is string => t !== undefined).map((t) => Date.parse(t));
  return Math.max(...times);
}

describe('promotion an organisation can run (gitops.stages, the GitHub App, environments), in simulated time', () => {
  it('a. promotes a commit that changes a workflow file: the push runs with a credential GitHub lets move refs across it', () => {
    const fleet = convergedFleet();
    fleet.runUntil(TUESDAY);
    const tree = synth(fleetConfig());
    const workflow = readFileSync(PROMOTE_WORKFLOW, 'utf8');
    const c1 = fleet.commit({ ...tree, files: new Map([...tree.files, [PROMOTE_WORKFLOW, `${workflow}# promote every 15 minutes\n`]]) }, 'C1: a comment in promote.yaml');
    const ok = fleet.runUntilTrue(() => fleet.git.resolve('karpenter-gitops/stage-3') === c1, TUESDAY + 2 * HOUR);
    REPORT.push(`a. C1 changes .github/workflows/promote.yaml at ${iso(TUESDAY)}: stage-2 ${after(TUESDAY, pushOf(fleet, 2, c1))}, stage-3 ${after(TUESDAY, pushOf(fleet, 3, c1))}; refused: ${fleet.git.refused.map((r) => `${r.ref}: ${r.message}`).join('; ') || 'none'}`);
    expect(fleet.git.refused).toEqual([]);
    expect(ok).toBe(true);
    expect(fleet.violations).toEqual([]);
  });

  it('b. holds stage 3 for its soak after staging finished, as Argo CD recorded it, then promotes at the next run', () => {
    const soaked = (edit: (c: Config) => void = () => undefined) => fleetConfig((c) => { c.gitops.stages = { 3: { soak: '1h' } }; edit(c); });
    const fleet = convergedFleet(soaked());
    fleet.runUntil(TUESDAY);
    const c1 = fleet.commit(synth(soaked(DEBUG_LOGS)), 'C1: the controller logs at debug');
    const ok = fleet.runUntilTrue(() => fleet.git.resolve('karpenter-gitops/stage-3') === c1, TUESDAY + 4 * HOUR);
    const [pushed, finished, oracle] = [pushOf(fleet, 3, c1)!, recordedFinish(fleet, 'staging'), fleet.finishedAt('staging', c1)];
    const soaking = fleet.ciRuns.filter((r) => r.stage === 3 && r.revision === c1 && r.blockers.some((b) => /^stage 3 soaks 1h after stage 2 finished at /.test(b)));
    REPORT.push(`b. C1 at ${iso(TUESDAY)}: stage-2 ${after(TUESDAY, pushOf(fleet, 2, c1))}, staging finished ${after(TUESDAY, finished)} (Argo CD's record; the oracle's ${after(TUESDAY, oracle)}), stage-3 ${after(TUESDAY, pushed)}; runs held by the soak: ${soaking.length}`);
    expect(ok).toBe(true);
    expect(pushed).toBeGreaterThanOrEqual(finished + 60 * MINUTE);
    // The first run after the soak pushes (runs are every 15 minutes).
    expect(pushed).toBeLessThan(finished + 75 * MINUTE);
    expect(soaking.length).toBeGreaterThanOrEqual(3);
    expect(Math.abs(finished - oracle!)).toBeLessThan(5 * MINUTE);
    expect(fleet.violations).toEqual([]);
  });

  it('c. pushes stage 3 only once a reviewer of its GitHub environment approves, while stage 2 goes on being promoted; an approval of a state Argo CD no longer reports pushes nothing', () => {
    const approved = (edit: (c: Config) => void = () => undefined) => fleetConfig((c) => { c.gitops.stages = { 3: { environment: 'production' } }; edit(c); });
    const fleet = convergedFleet(approved());
    fleet.runUntil(TUESDAY);
    const c1 = fleet.commit(synth(approved(DEBUG_LOGS)), 'C1: the controller logs at debug');
    const waitingFor = (rev: string) => () => fleet.ciJobs.some((j) => j.stage === 3 && j.revision === rev && j.event === 'waiting');
    expect(fleet.runUntilTrue(waitingFor(c1), TUESDAY + 3 * HOUR)).toBe(true);
    const asked = fleet.now;
    // Meanwhile a change of dev and staging only: prod's files stay C1's, so main still wants C1 for stage 3.
    const quieter = (c: Config) => { DEBUG_LOGS(c); for (const id of ['dev', 'staging']) c.clusters[id].karpenter = { controller: { logLevel: 'error' } }; };
    const c2 = fleet.commit(synth(approved(quieter)), 'C2: dev and staging log errors only');
    expect(fleet.runUntilTrue(() => fleet.git.resolve('karpenter-gitops/stage-2') === c2, asked + 3 * HOUR)).toBe(true);
    const stage2 = fleet.now;
    expect(fleet.git.resolve('karpenter-gitops/stage-3')).not.toBe(c1);
    // The reviewers approve C1, decided when staging ran C1; staging now runs C2: the re-read refuses the push.
    const approval = fleet.now + 10 * MINUTE;
    fleet.at(approval, () => expect(fleet.approve(3)).toBe(true));
    fleet.runUntil(approval + MINUTE);
    const refused = fleet.ciJobs.find((j) => j.stage === 3 && j.revision === c1 && j.event === 'not-wanted');
    // Read again, staging runs C2: C1 is no longer what stage 2 has (or, had it settled again, no longer the state decided on).
    expect(refused?.message).toMatch(/^cluster staging \(stage 2\): staging-karpenter-root: at revision [0-9a-f]{40}, not [0-9a-f]{40}|^Argo CD no longer says what the decision [0-9a-f]{16} was made on/);
    expect(fleet.git.resolve('karpenter-gitops/stage-3')).not.toBe(c1);
    // The next runs decide again, on C2 (what stage 2 now runs): the reviewers approve what waits (a run queued meanwhile
    // may still carry C1, refused again when approved) until C2 is pushed.
    const waiting = () => fleet.ciJobs.filter((j) => j.stage === 3 && (j.event === 'waiting' || j.event === 'approved')).at(-1)?.event === 'waiting';
    let second = approval;
    for (let i = 0; i < 4 && fleet.git.resolve('karpenter-gitops/stage-3') !== c2; i++) {
      if (!fleet.runUntilTrue(waiting, fleet.now + 3 * HOUR)) break;
      second = fleet.now + 5 * MINUTE;
      fleet.at(second, () => expect(fleet.approve(3)).toBe(true));
      fleet.runUntil(second + MINUTE);
    }
    expect(fleet.git.resolve('karpenter-gitops/stage-3')).toBe(c2);
    expect(fleet.ciJobs.filter((j) => j.stage === 3 && j.event === 'pushed').map((j) => j.revision)).toEqual([c2]);
    const pushed = pushOf(fleet, 3, c2)!;
    REPORT.push(`c. C1 at ${iso(TUESDAY)}: stage-2 ${after(TUESDAY, pushOf(fleet, 2, c1))}, stage-3 job waits for production's reviewers from ${after(TUESDAY, asked)}; `
      + `C2 reaches stage 2 ${after(TUESDAY, stage2)}; C1 approved ${after(TUESDAY, approval)} and refused (stage 2 changed); C2 approved ${after(TUESDAY, second)}, stage-3 gets C2 ${after(TUESDAY, pushed)}; `
      + `jobs: ${fleet.ciJobs.filter((j) => j.stage === 3).map((j) => `${j.event}@${after(TUESDAY, j.at)}`).join(' ')}`);
    expect(pushed).toBeGreaterThanOrEqual(second);
    expect(pushed).toBeLessThanOrEqual(second + MINUTE);
    expect(stage2).toBeLessThan(approval);
    expect(new Set(fleet.ciJobs.filter((j) => j.event === 'approved').map((j) => j.stage))).toEqual(new Set([3]));
    expect(fleet.violations).toEqual([]);
  });
});

describe('a week of promotion with a window and an approval, and the rollout page at each step (issue 45)', () => {
  it('d. moves each stage ref exactly when it should, and the page says at each step where every cluster stands', () => {
    const approved = (edit: (c: Config) => void = () => undefined) => fleetConfig((c) => { c.gitops.stages = { 3: { environment: 'production' } }; edit(c); });
    const fleet = convergedFleet(approved());
    fleet.runUntil(TUESDAY);
    // A pool change: prod's pools Applications sync only in their windows (eu: Tue 22:00 Berlin, us: Tue 20:00 New York).
    const c1 = fleet.commit(synth(approved((c) => { c.teams.web.expireAfter = '360h'; })), 'C1: web nodes expire sooner');
    /** The page as `npm run promote -- status` makes it now, from what Argo CD reports and the refs. */
    const page = () => {
      const platform = fleet.mainPlatform();
      const revisions = new Map<number, string>([[1, fleet.git.resolve('main')!]]);
      for (const stage of [2, 3]) {
        const sha = fleet.git.resolve(`karpenter-gitops/stage-${stage}`);
        if (sha !== undefined) revisions.set(stage, sha);
      }
      return rolloutStatus(platform, { applications: [...applicationsIndex(fleet.applicationsJson()).values()], revisions, now: new Date(fleet.now) });
    };
    const states = (s: ReturnType<typeof page>) => s.stages.flatMap((st) => st.clusters.map((c) => `${c.cluster}:${c.state}${c.state === 'waiting' ? `(${c.why})` : ''}`)).join(' ');
    const steps: { at: number; states: string; stage2?: string; stage3?: string; waitsFor: string }[] = [];
    const look = () => {
      const s = page();
      const entry = {
        at: fleet.now, states: states(s), waitsFor: s.stages.find((st) => st.stage === 3)?.promotion?.waitsFor.join('; ') ?? '',
        stage2: fleet.git.resolve('karpenter-gitops/stage-2') === c1 ? 'C1' : 'C0', stage3: fleet.git.resolve('karpenter-gitops/stage-3') === c1 ? 'C1' : 'C0',
      };
      const last = steps.at(-1);
      if (!last || last.states !== entry.states || last.stage2 !== entry.stage2 || last.stage3 !== entry.stage3 || last.waitsFor !== entry.waitsFor) steps.push(entry);
    };
    let approvedAt: number | undefined;
    for (let t = TUESDAY; t < TUESDAY + 3 * 24 * HOUR; t += 15 * MINUTE) {
      fleet.runUntil(t);
      look();
      // A reviewer approves an hour after the approval was asked for.
      const asked = fleet.ciJobs.find((j) => j.stage === 3 && j.revision === c1 && j.event === 'waiting');
      if (approvedAt === undefined && asked && fleet.now >= asked.at + HOUR) {
        approvedAt = fleet.now;
        expect(fleet.approve(3)).toBe(true);
      }
    }
    REPORT.push(`d. ${steps.map((s) => `${after(TUESDAY, s.at)} stage-2 ${s.stage2}, stage-3 ${s.stage3}: ${s.states}${s.waitsFor ? ` | stage 3 waits for ${s.waitsFor}` : ''}`).join('\n   ')}`);
    const [pushed2, pushed3] = [pushOf(fleet, 2, c1)!, pushOf(fleet, 3, c1)!];
    const devDone = fleet.finishedAt('dev', c1)!;
    const stagingDone = fleet.finishedAt('staging', c1)!;
    // Stage 2 at the first run after dev finished; stage 3 only after staging finished and within a minute of the approval.
    expect(pushed2).toBeGreaterThanOrEqual(devDone);
    expect(pushed2).toBeLessThan(devDone + 16 * MINUTE);
    expect(approvedAt).toBeGreaterThan(stagingDone);
    expect(pushed3).toBeGreaterThanOrEqual(approvedAt!);
    expect(pushed3).toBeLessThanOrEqual(approvedAt! + MINUTE);
    // The page said it: stage 3 waited for its approval once staging had finished, and prod waited for its windows after the push.
    expect(steps.some((s) => s.stage3 === 'C0' && /approval/.test(s.waitsFor))).toBe(true);
    expect(steps.some((s) => s.stage3 === 'C1' && /prod-eu:waiting\(window eu\)/.test(s.states))).toBe(true);
    // prod-eu's pools synced only in its window (Berlin 22:00-04:00), and the page ends with every cluster synced.
    const euSynced = fleet.finishedAt('prod-eu', c1)!;
    const berlinHour = Number(new Date(euSynced).toLocaleString('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', hour12: false }));
    expect(berlinHour >= 22 || berlinHour < 4).toBe(true);
    expect(steps.at(-1)!.states.split(' ').every((s) => s.endsWith(':synced'))).toBe(true);
    expect(fleet.violations).toEqual([]);
  });
});
