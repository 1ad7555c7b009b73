/**
 * Access outside the window, pools only after their guard (issue 43), simulated minute by minute
 * (test/support/fleet-sim.ts): one cluster, `prod-eu`, in a Berlin weeknight window (kept UTC
 * minutes mon-thu 21:00-02:00), teams `web` and `ml` open to every namespace and `batch` guarded
 * (`namespaces: [batch]`). Each commit of the simulated repository is `synthesize()` of a config;
 * Argo CD (its resource hooks and sync windows, test/support/argocd-sim.ts), the API server and
 * the Job controller (its `activeDeadlineSeconds`, test/support/kube-sim.ts) and the guard gate's
 * pod (test/support/guard-gate-sim.ts, which decides with src/gate's own `assessGuard`) are models
 * written from their sources, fed only with the generated files.
 *
 * What is checked: the tenancy policy syncs at merge, outside the window; a new pool of a guarded
 * team is created only inside the window and only once the guard gate saw the policy that guards
 * it live; a policies Application that cannot sync holds the team's pools (each attempt's guard
 * fails at its deadline, the sync fails, nothing of the team's pools is applied) until it can; a
 * commit that changes only who may use the pools holds nothing.
 */
import { parse, parseAllDocuments } from 'yaml';
import { synthesize } from '../src/synth';
import { aTerraform, removeProjects } from './builders';
import { load } from './config/helpers';
import { aFleetConfig, TEAMS } from './review/fleet';
import { FleetSim, Synthesized } from './support/fleet-sim';
import type { KubeObject } from './support/kube-sim';
import { firstTime, HOUR, START, TUESDAY, WINDOWS } from './support/rollout-fleet';

afterAll(removeProjects);

type Config = Record<string, any>;
const CLUSTER = 'prod-eu';
/** Tuesday's window, in the UTC minutes Argo CD and Karpenter keep: 21:00 to Wednesday 02:00. */
const OPENS = Date.parse('2027-01-12T21:00:00Z');
const CLOSES = Date.parse('2027-01-13T02:00:00Z');

function config(edit: (c: Config) => void = () => undefined): Config {
  const c = aFleetConfig([CLUSTER], {
    gitops: { project: 'karpenter' },
    windows: { eu: WINDOWS.eu },
    clusters: { [CLUSTER]: { window: 'eu', destination: { name: CLUSTER } } },
    teams: { ...structuredClone(TEAMS), batch: { owner: 'batch@acme.example', namespaces: ['batch'] } },
  }) as Config;
  edit(c);
  return c;
}

const trees = new Map<string, Synthesized>();
function synth(c: Config): Synthesized {
  const key = JSON.stringify(c);
  let tree = trees.get(key);
  if (!tree) {
    const { platform } = load({ config: c, terraform: { [CLUSTER]: aTerraform({ cluster_name: CLUSTER }) } });
    tree = { files: synthesize(platform), platform };
    trees.set(key, tree);
  }
  return tree;
}

/** A tree whose policies folder is missing: its Application cannot render it (a ComparisonError), so the policies never arrive. */
function withoutPolicies(tree: Synthesized): Synthesized {
  return { platform: tree.platform, files: new Map([...tree.files].filter(([path]) => !path.startsWith(`dist/${CLUSTER}/policies/`))) };
}

const ADD_POOL = (c: Config) => { c.teams.batch.pools = { big: { instanceFamilies: ['m7i', 'c7i'] } }; };
const MORE_NAMESPACES = (c: Config) => { c.teams.batch.namespaces = ['batch', 'batch-etl']; };
const BIGGER_LIMITS = (c: Config) => { c.teams.batch.limits = { cpu: '400' }; };

/** The team's guard digest a commit's files hold (its guard gate's GUARD spec). */
function digestOf(tree: Synthesized, team: string): string {
  const job = parse(tree.files.get(`dist/${CLUSTER}/nodepools/${team}/_guard-gate.yaml`)!) as { spec: { template: { spec: { containers: { env: { name: string; value: string }[] }[] } } } };
  return (JSON.parse(job.spec.template.spec.containers[0].env.find((e) => e.name === 'GUARD')!.value) as { digest: string }).digest;
}

/** A fleet of `prod-eu` bootstrapped on Monday, its pools synced in Monday's window, converged; its invariants checked from then on. */
function convergedFleet(c: Config = config()): FleetSim {
  const fleet = new FleetSim(synth(c), {
    start: new Date(START), end: new Date(START + 7 * 86_400_000),
    initialNodeClaims: () => 2,
    windows: { [CLUSTER]: WINDOWS.eu },
  });
  expect(fleet.runUntilTrue(() => fleet.converged(), START + 36 * HOUR)).toBe(true);
  fleet.check();
  return fleet;
}

const api = (fleet: FleetSim) => fleet.clusters.get(CLUSTER)!.api;
/** The team's digest on the live policy, if it has one. */
const liveDigest = (fleet: FleetSim, team: string) => {
  const policy = api(fleet).list('ValidatingAdmissionPolicy')[0];
  return policy && (JSON.parse(policy.applied.metadata.annotations?.['karpenter-gitops.io/guards'] ?? '{}') as Record<string, string>)[team];
};
/** The namespaces a live policy (one with its binding) gives the team's pools, read from the policy's own data. */
const liveNamespaces = (fleet: FleetSim, team: string) => {
  const bound = new Set(api(fleet).list('ValidatingAdmissionPolicyBinding').map((b) => String((b.applied.spec as { policyName?: string }).policyName)));
  for (const p of api(fleet).list('ValidatingAdmissionPolicy').filter((x) => bound.has(x.name))) {
    const data = ((p.applied.spec as { variables?: { name: string; expression: string }[] }).variables ?? []).find((v) => v.name === 'namespaces');
    const namespaces = (JSON.parse(data?.expression ?? '{}') as Record<string, string[]>)[team];
    if (namespaces) return namespaces;
  }
  return undefined;
};
const syncs = (fleet: FleetSim, app: string, sha: string, type: 'sync-started' | 'sync-finished' = 'sync-started') => fleet.argo.events.filter((e) => e.app === app && e.type === type && e.revisions.includes(sha));
/** The looks of the guard gates of `team` from `from` on (the fleet's first install, on Monday, ran them once too). */
const guardLooks = (fleet: FleetSim, team: string, from = TUESDAY) => fleet.guardLooks.filter((l) => l.team === team && l.at >= from);
const guardDone = (fleet: FleetSim, team: string, from = TUESDAY) => guardLooks(fleet, team, from).find((l) => 'done' in l.verdict && l.verdict.done)?.at;

describe('the tenancy policy outside the window, each guarded team\'s pools after their guard, in simulated time', () => {
  it('a commit that adds a pool to guarded team batch and gives it a namespace: the policy syncs at merge, the pool only in the window, after its guard saw the policy live', () => {
    const fleet = convergedFleet();
    fleet.runUntil(TUESDAY);
    const tree = synth(config((c) => { ADD_POOL(c); MORE_NAMESPACES(c); }));
    const digest = digestOf(tree, 'batch');
    expect(digest).not.toBe(digestOf(synth(config()), 'batch'));
    const sha = fleet.commit(tree, 'C1: pool batch-big, namespace batch-etl');
    const policyLive = firstTime(fleet, () => liveDigest(fleet, 'batch') === digest);
    const accessLive = firstTime(fleet, () => liveNamespaces(fleet, 'batch')?.includes('batch-etl') === true);
    expect(fleet.runUntilTrue(() => api(fleet).get('NodePool', 'batch-big') !== undefined, CLOSES)).toBe(true);
    const created = api(fleet).get('NodePool', 'batch-big')!.createdAt;

    // The policy and the access change at merge, hours before the window opens.
    expect(syncs(fleet, `${CLUSTER}-policies`, sha, 'sync-finished').map((e) => e.phase)).toEqual(['Succeeded']);
    expect(policyLive()).toBeLessThan(TUESDAY + 10 * 60_000);
    expect(accessLive()).toBeLessThan(TUESDAY + 10 * 60_000);
    // The pools Application waits for the window; in it, its guard runs first and the pool follows.
    expect(syncs(fleet, `${CLUSTER}-pools-batch`, sha).map((e) => e.at >= OPENS && e.at < CLOSES)).toEqual([true]);
    expect(created).toBeGreaterThanOrEqual(OPENS);
    expect(created).toBeLessThan(CLOSES);
    const passed = guardDone(fleet, 'batch');
    expect(passed).toBeGreaterThanOrEqual(OPENS);
    expect(passed).toBeLessThanOrEqual(created);
    expect(guardLooks(fleet, 'batch').map((l) => 'done' in l.verdict && l.verdict.done)).toEqual([true]);
    // Once the sync has ended, the hook Job that passed is gone (HookSucceeded); nothing failed.
    fleet.runUntil(fleet.now + 10 * 60_000);
    expect(syncs(fleet, `${CLUSTER}-pools-batch`, sha, 'sync-finished').map((e) => e.phase)).toEqual(['Succeeded']);
    expect(api(fleet).list('Job')).toEqual([]);
    expect(fleet.violations).toEqual([]);
  });

  it('fails the pools\' sync when the policies Application cannot sync the commit: each attempt\'s guard fails at its deadline and nothing of batch\'s pools is applied; the fix syncs both, the pool after its guard', () => {
    const fleet = convergedFleet();
    fleet.runUntil(TUESDAY);
    const before = api(fleet).get('NodePool', 'batch')!.appliedJson;
    const tree = synth(config((c) => { ADD_POOL(c); c.teams.batch.labels = { tier: 'batch' }; }));
    const broken = fleet.commit(withoutPolicies(tree), 'C1: pool batch-big and a label, the policies folder lost');
    fleet.runUntil(CLOSES - HOUR);

    expect(api(fleet).get('NodePool', 'batch-big')).toBeUndefined();
    expect(api(fleet).get('EC2NodeClass', 'batch-big')).toBeUndefined();
    expect(api(fleet).get('NodePool', 'batch')!.appliedJson).toBe(before);
    expect(liveDigest(fleet, 'batch')).toBe(digestOf(synth(config()), 'batch'));
    const op = fleet.argo.operation(`${CLUSTER}-pools-batch`)!;
    expect(op.phase).toBe('Failed');
    expect(op.message).toMatch(/^one or more synchronization tasks completed unsuccessfully: batch\/Job\/kube-system\/guard-gate-batch: Job was active longer than specified deadline \(retried 5 times\)\.$/);
    // Six attempts in the window, each a new Job that failed at its 10-minute deadline.
    const attempts = guardLooks(fleet, 'batch').filter((l) => !('forbidden' in l.verdict));
    expect(new Set(attempts.map((l) => `${l.job}@${l.at}`)).size).toBeGreaterThanOrEqual(6);
    expect(attempts.every((l) => l.at >= OPENS && 'done' in l.verdict && !l.verdict.done)).toBe(true);
    expect(fleet.violations.filter((v) => !/: prod-eu: Job guard-gate-batch failed$/.test(v) && !/: prod-eu-pools-batch: sync Failed: /.test(v))).toEqual([]);
    expect(fleet.violations.filter((v) => /Job guard-gate-batch failed$/.test(v))).toHaveLength(6);
    expect(syncs(fleet, `${CLUSTER}-policies`, broken)).toEqual([]);

    // The fix: the policies folder back. The policies sync at once, the pools (a new revision) in what is left of the window.
    const fixed = fleet.commit(tree, 'C2: the policies folder back');
    const fixedAt = fleet.now;
    expect(fleet.runUntilTrue(() => api(fleet).get('NodePool', 'batch-big') !== undefined, CLOSES)).toBe(true);
    const created = api(fleet).get('NodePool', 'batch-big')!.createdAt;
    expect(syncs(fleet, `${CLUSTER}-policies`, fixed, 'sync-finished').map((e) => e.phase)).toEqual(['Succeeded']);
    expect(liveDigest(fleet, 'batch')).toBe(digestOf(tree, 'batch'));
    const passed = guardDone(fleet, 'batch', fixedAt)!;
    expect(passed).toBeLessThanOrEqual(created);
    expect(created).toBeLessThan(CLOSES);
    expect(syncs(fleet, `${CLUSTER}-pools-batch`, fixed, 'sync-finished').map((e) => e.phase)).toEqual(['Succeeded']);
  });

  it('a policies Application later than the guard\'s deadline: the attempt fails, Argo CD retries the same commit, and the retry passes once the policy is live', () => {
    const fleet = convergedFleet();
    fleet.runUntil(OPENS + 30 * 60_000);
    const tree = synth(config(ADD_POOL));
    // In the window: the pools sync the commit at once; the policies, their folder lost in it, only with the next commit (the same policy).
    const late = fleet.commit(withoutPolicies(tree), 'C1: pool batch-big, the policies folder lost');
    const policyLive = firstTime(fleet, () => liveDigest(fleet, 'batch') === digestOf(tree, 'batch'));
    fleet.runUntil(fleet.now + 20 * 60_000);
    fleet.commit(tree, 'C2: the policies folder back');
    expect(fleet.runUntilTrue(() => api(fleet).get('NodePool', 'batch-big') !== undefined, CLOSES)).toBe(true);
    const created = api(fleet).get('NodePool', 'batch-big')!.createdAt;
    fleet.runUntil(fleet.now + 10 * 60_000);

    // The pool came with C1's sync, on a retry, after the policy C2 brought was live.
    const finished = syncs(fleet, `${CLUSTER}-pools-batch`, late, 'sync-finished');
    expect(finished.map((e) => e.phase)).toEqual(['Succeeded']);
    expect(fleet.argo.operation(`${CLUSTER}-pools-batch`)!.retryCount).toBeGreaterThanOrEqual(1);
    expect(created).toBeGreaterThanOrEqual(policyLive()!);
    expect(guardDone(fleet, 'batch', OPENS)).toBeLessThanOrEqual(created);
    // Only the attempts that ran out of time failed; no sync did.
    expect(fleet.violations.length).toBeGreaterThanOrEqual(1);
    expect(fleet.violations.filter((v) => !/: prod-eu: Job guard-gate-batch failed$/.test(v))).toEqual([]);
  });

  it('a commit that only changes who may use batch\'s pools holds no pool: the pools Application has nothing to sync; and a pool change whose guard is unchanged passes on the policy already live, even with the policies Application down', () => {
    const fleet = convergedFleet();
    fleet.runUntil(TUESDAY);
    const access = synth(config(MORE_NAMESPACES));
    expect(digestOf(access, 'batch')).toBe(digestOf(synth(config()), 'batch'));
    const sha = fleet.commit(access, 'C1: namespace batch-etl');
    fleet.runUntil(TUESDAY + HOUR);
    expect(liveNamespaces(fleet, 'batch')).toEqual(['batch', 'batch-etl', 'karpenter-smoke-tests']);
    expect(syncs(fleet, `${CLUSTER}-policies`, sha, 'sync-finished').map((e) => e.phase)).toEqual(['Succeeded']);
    // Through the whole window: the pools Application compares the commit, finds nothing to do, and runs no guard.
    fleet.runUntil(CLOSES);
    expect(syncs(fleet, `${CLUSTER}-pools-batch`, sha)).toEqual([]);
    expect(((fleet.inCluster.get('Application', `${CLUSTER}-pools-batch`, 'argocd')!.status ?? {}) as { sync?: { status?: string; revision?: string } }).sync).toMatchObject({ status: 'Synced', revision: sha });
    expect(guardLooks(fleet, 'batch')).toEqual([]);

    // Wednesday: the policies folder lost and batch's limits raised (capacity, not what the policy judges): the guard passes on Tuesday's policy.
    const limits = synth(config((c) => { MORE_NAMESPACES(c); BIGGER_LIMITS(c); }));
    expect(digestOf(limits, 'batch')).toBe(digestOf(access, 'batch'));
    const next = fleet.commit(withoutPolicies(limits), 'C2: batch limits, the policies folder lost');
    const wednesday = Date.parse('2027-01-13T21:00:00Z');
    const raised = () => (api(fleet).get('NodePool', 'batch')!.applied.spec as { limits?: { cpu?: string } }).limits?.cpu === '400';
    expect(fleet.runUntilTrue(raised, wednesday + 5 * HOUR)).toBe(true);
    expect(fleet.now).toBeGreaterThanOrEqual(wednesday);
    expect(syncs(fleet, `${CLUSTER}-pools-batch`, next, 'sync-finished').map((e) => e.phase)).toEqual(['Succeeded']);
    expect(syncs(fleet, `${CLUSTER}-policies`, next)).toEqual([]);
    expect(guardDone(fleet, 'batch')).toBeGreaterThanOrEqual(wednesday);
    expect(fleet.violations).toEqual([]);
  });
});

describe('the simulation\'s models catch what they are there to catch', () => {
  it('a pools Application without its guard gate: the new pool of guarded team batch is created before the policy that guards it is live (what the guard is for)', () => {
    // Outside any window (none set), the pools and policies Applications each sync the commit on their own refresh.
    const c = config((x) => { delete x.clusters[CLUSTER].window; ADD_POOL(x); });
    const unguarded = (tree: Synthesized): Synthesized => ({ platform: tree.platform, files: new Map([...tree.files].filter(([p]) => !p.endsWith('/_guard-gate.yaml'))) });
    const base = config((x) => { delete x.clusters[CLUSTER].window; });
    const fleet = new FleetSim(unguarded(synth(base)), { start: new Date(START), end: new Date(START + 2 * 86_400_000), initialNodeClaims: () => 2, windows: {} });
    expect(fleet.runUntilTrue(() => fleet.converged(), START + 12 * HOUR)).toBe(true);
    // The policies Application cannot render the commit: only the pool arrives.
    const tree = synth(c);
    fleet.commit(unguarded(withoutPolicies(tree)), 'C1: pool batch-big, no guard');
    expect(fleet.runUntilTrue(() => api(fleet).get('NodePool', 'batch-big') !== undefined, fleet.now + HOUR)).toBe(true);
    expect(liveDigest(fleet, 'batch')).not.toBe(digestOf(tree, 'batch'));
    // Its documents say so too: the generated tree carries the guard this test took away.
    expect(parseAllDocuments(tree.files.get(`dist/${CLUSTER}/nodepools/batch/_guard-gate.yaml`)!).map((d) => (d.toJS() as KubeObject).metadata.annotations?.['argocd.argoproj.io/hook'])).toEqual(['PreSync']);
  });
});
