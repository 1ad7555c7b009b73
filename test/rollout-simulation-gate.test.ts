/**
 * The drift gate where it can wait for ever or fall over, in the staged fleet of the rollout
 * simulation (test/support/rollout-fleet.ts: `dev` stage 1, `staging` stage 2, `prod-eu` and
 * `prod-us` stage 3 with windows): a tenant's pod that blocks eviction on a drifted node of
 * staging, with and without `terminationGracePeriod` on its pool (Karpenter's disruption and
 * termination as test/support/karpenter-sim.ts models them from kubernetes-sigs/karpenter
 * v1.14.1), and a staging cluster of 3,000 NodeClaims, which the gate lists a page at a time
 * within the memory its Job gives it (test/support/gate-sim.ts, kube-sim.ts `listPage`).
 *
 * The invariants of every scenario are FleetSim's (`violations`, expected empty): among them no
 * Job fails and no stage-N Application syncs a commit a stage-(N-1) cluster has not finished.
 */
import { removeProjects } from './builders';
import type { SimCluster } from './support/fleet-sim';
import {
  AMI_BUMP, Config, convergedFleet, firstTime, fleetConfig, gateWaits, HOUR, NODECLAIMS, synth, TUESDAY,
} from './support/rollout-fleet';

afterAll(removeProjects);

const MINUTE = 60_000;
const STAGE_3 = 'karpenter-gitops/stage-3';

/** The first NodeClaim (by name) of `pool` on a cluster that is not being deleted. */
function aNodeClaimOf(cluster: SimCluster, pool: string): string {
  return cluster.api.list('NodeClaim').filter((c) => c.applied.metadata.labels?.['karpenter.sh/nodepool'] === pool && c.deletionAt === undefined)
    .map((c) => c.name).sort()[0];
}

/** A tenant's running pod on the node of NodeClaim `claim` (its `status.nodeName`), started `now`. */
function aTenantPod(cluster: SimCluster, claim: string, now: number, pod: { name: string; namespace: string; labels?: Record<string, string>; annotations?: Record<string, string> }): void {
  const node = (cluster.api.render(cluster.api.get('NodeClaim', claim)!).status as { nodeName: string }).nodeName;
  const live = cluster.api.apply({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: pod.name, namespace: pod.namespace, labels: pod.labels ?? {}, annotations: pod.annotations ?? {} },
    spec: { nodeName: node, terminationGracePeriodSeconds: 30, containers: [{ name: 'app', image: 'public.ecr.aws/nginx/nginx:1.27' }] },
  });
  cluster.api.setStatus(live, { phase: 'Running', startTime: new Date(now).toISOString() });
}

/** When commit `sha` was pushed to stage 3's ref, if it was. */
const stage3Push = (fleet: ReturnType<typeof convergedFleet>, sha: string) => fleet.git.pushes.find((p) => p.ref === STAGE_3 && p.to === sha)?.at;

describe('the drift gate and what holds it, in simulated time', () => {
  it('a tenant\'s do-not-disrupt pod, and a pod a PodDisruptionBudget allows no eviction, on drifted nodes of staging without terminationGracePeriod: the nodes are never replaced, the gate never passes and stage 3 never gets the change', () => {
    const fleet = convergedFleet();
    fleet.runUntil(TUESDAY);
    const staging = fleet.clusters.get('staging')!;
    const held = aNodeClaimOf(staging, 'web');
    aTenantPod(staging, held, fleet.now, { name: 'checkout-0', namespace: 'web', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    const guarded = aNodeClaimOf(staging, 'batch');
    aTenantPod(staging, guarded, fleet.now, { name: 'ledger-0', namespace: 'batch', labels: { app: 'ledger' } });
    const pdb = staging.api.apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'ledger', namespace: 'batch' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'ledger' } } } });
    // As the disruption controller of kube-controller-manager writes it: one healthy pod, one required.
    staging.api.setStatus(pdb, { currentHealthy: 1, desiredHealthy: 1, expectedPods: 1, disruptionsAllowed: 0 });
    const sha = fleet.commit(synth(fleetConfig(AMI_BUMP)), 'C1: AMI al2023@v20250610');
    fleet.runUntil(TUESDAY + 8 * HOUR);
    const drifted = (name: string) => {
      const claim = staging.api.get('NodeClaim', name);
      return claim === undefined ? 'gone' : JSON.stringify(claim.status).includes('"type":"Drifted","status":"True"') ? 'drifted' : 'not drifted';
    };
    expect([held, guarded].map(drifted)).toEqual(['drifted', 'drifted']);
    // Every other node of staging was replaced: only the two held ones stay.
    expect(staging.karpenter.disruptions.filter((d) => d.at >= TUESDAY).map((d) => d.nodeClaim)).not.toContain(held);
    expect(staging.karpenter.disruptions.filter((d) => d.at >= TUESDAY)).toHaveLength(NODECLAIMS.web + NODECLAIMS['ml-gpu'] + NODECLAIMS.batch - 2);
    expect(gateWaits(fleet, 'staging')).toBe(true);
    const last = fleet.gateLooks.filter((l) => l.cluster === 'staging').at(-1)!;
    expect(last.verdict.waiting).toEqual(expect.arrayContaining([`nodeclaim ${held}: Drifted (Drifted)`, `nodeclaim ${guarded}: Drifted (Drifted)`]));
    expect(fleet.finishedAt('staging', sha)).toBeUndefined();
    expect(stage3Push(fleet, sha)).toBeUndefined();
    expect(fleet.violations).toEqual([]);
  });

  it('with terminationGracePeriod set on the pool (in a change of its own, which drifts its nodes once), the node under a do-not-disrupt pod is drifted and replaced once the period has passed, and stage 3 gets the change', () => {
    const fleet = convergedFleet();
    fleet.runUntil(TUESDAY);
    const staging = fleet.clusters.get('staging')!;
    const grace = (c: Config) => { c.teams.web.terminationGracePeriod = '2h'; };
    const c1 = fleet.commit(synth(fleetConfig(grace)), 'C1: web terminationGracePeriod 2h');
    expect(fleet.runUntilTrue(() => fleet.finishedAt('staging', c1) !== undefined, TUESDAY + 12 * HOUR)).toBe(true);
    // It is in the NodePool hash: every web node of staging drifted once and was replaced, no other.
    const c1Replacements = staging.karpenter.disruptions.filter((d) => d.at >= TUESDAY);
    expect(c1Replacements.map((d) => d.pool)).toEqual(Array<string>(NODECLAIMS.web).fill('web'));

    const held = aNodeClaimOf(staging, 'web');
    aTenantPod(staging, held, fleet.now, { name: 'checkout-0', namespace: 'web', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    const deleted = firstTime(fleet, () => staging.api.get('NodeClaim', held)?.deletionAt !== undefined);
    const gone = firstTime(fleet, () => staging.api.get('NodeClaim', held) === undefined);
    const from = fleet.now;
    const c2 = fleet.commit(synth(fleetConfig((c) => { grace(c); AMI_BUMP(c); })), 'C2: AMI al2023@v20250610');
    expect(fleet.runUntilTrue(() => stage3Push(fleet, c2) !== undefined, from + 12 * HOUR)).toBe(true);
    // Drift is eventual: the node is a candidate despite the pod, and its drain waits for the
    // pod until the termination time less the pod's own 30s grace, then deletes it.
    expect(staging.karpenter.disruptions.filter((d) => d.at >= from).map((d) => d.nodeClaim)).toContain(held);
    expect(gone()! - deleted()!).toBeGreaterThanOrEqual(2 * HOUR - 30_000);
    expect(gone()! - deleted()!).toBeLessThanOrEqual(2 * HOUR + 2 * MINUTE);
    expect(fleet.finishedAt('staging', c2)).toBeLessThanOrEqual(stage3Push(fleet, c2)!);
    expect(fleet.violations).toEqual([]);
  });

  it('a staging cluster of 3,000 NodeClaims: its gate lists them a page at a time within its Job\'s memory, passes, and stage 3 gets the change', () => {
    const fleet = convergedFleet(fleetConfig(), { initialNodeClaims: (cluster, pool) => (cluster === 'staging' ? 1000 : NODECLAIMS[pool] ?? 2) });
    fleet.runUntil(TUESDAY);
    const staging = fleet.clusters.get('staging')!;
    expect(staging.api.list('NodeClaim')).toHaveLength(3000);
    // An overlay change: nothing drifts, so the gate's list is what this is about, not 3,000 replacements.
    const sha = fleet.commit(synth(fleetConfig((c) => { c.overlays['savings-plan'].priceAdjustment = '-30%'; })), 'C1: savings-plan -30%');
    expect(fleet.runUntilTrue(() => stage3Push(fleet, sha) !== undefined, TUESDAY + 6 * HOUR)).toBe(true);
    expect(fleet.finishedAt('staging', sha)).toBeLessThanOrEqual(stage3Push(fleet, sha)!);
    expect(staging.karpenter.disruptions.filter((d) => d.at >= TUESDAY)).toEqual([]);
    expect(fleet.gateLooks.filter((l) => l.verdict.waiting.some((w) => w.startsWith('OOMKilled')))).toEqual([]);
    expect(fleet.violations).toEqual([]);
  });
});
