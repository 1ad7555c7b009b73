/**
 * The review of staged fleets (issue 27): a cluster moving onto a stage ref, checked against git;
 * a drift gate replaced by another (its image or what it waits for).
 */
import { aFleetConfig, Fleet, removeFleets } from './fleet';

afterAll(removeFleets);

describe('adding stage to a cluster in review', () => {
  const staged = (prod: Record<string, unknown>) => aFleetConfig(['dev', 'prod'], { clusters: { dev: { stage: 1 }, prod } });

  it('says the cluster keeps what it runs when its stage ref does not exist yet', async () => {
    const fleet = await Fleet.create(aFleetConfig(['dev', 'prod']));
    fleet.configure(staged({ stage: 2 }));
    await fleet.synth();
    const r = await fleet.diff();
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/cluster prod: its root now tracks karpenter-gitops\/stage-2 \(was HEAD\), which does not exist yet: the cluster keeps what it runs until npm run promote creates the ref/);
  });

  it('warns, with the fix, when the stage ref is at an older commit than the base (the cluster would roll back)', async () => {
    const fleet = await Fleet.create(aFleetConfig(['dev', 'prod']));
    const old = fleet.git('rev-parse', 'HEAD').trim();
    fleet.git('branch', 'karpenter-gitops/stage-2', old);
    fleet.configure(aFleetConfig(['dev', 'prod'], { teams: { web: { expireAfter: '360h' } } }));
    await fleet.synth();
    fleet.commit('web nodes expire sooner');
    const base = fleet.git('rev-parse', 'HEAD').trim();
    fleet.configure({ ...staged({ stage: 2 }), teams: { web: { expireAfter: '360h' } } });
    await fleet.synth();
    const r = await fleet.diff();
    expect(r.out).toContain(`WARNING: cluster prod: its root now tracks karpenter-gitops/stage-2 (was HEAD), which is at ${old.slice(0, 12)}, not the base ${base.slice(0, 12)}: `
      + `at merge the cluster syncs that commit's files, rolling back what it runs; first move the ref: git push origin ${base}:refs/heads/karpenter-gitops/stage-2`);
  });

  it('speaks of clusters only: a new gitops.targetRevision moves every root and the bootstrap, and no line names the bootstrap as a cluster', async () => {
    const config = aFleetConfig(['dev', 'prod']);
    const fleet = await Fleet.create(config);
    fleet.configure({ ...config, gitops: { ...(config.gitops as object), targetRevision: 'release' } });
    await fleet.synth();
    const r = await fleet.diff();
    expect(r.out).toMatch(/cluster dev: its root now tracks release \(was HEAD\), which does not exist yet/);
    expect(r.out).toMatch(/cluster prod: its root now tracks release \(was HEAD\), which does not exist yet/);
    expect(r.out).not.toMatch(/cluster bootstrap/);
  });

  it('says nothing rolls back when the stage ref is at the base commit', async () => {
    const fleet = await Fleet.create(aFleetConfig(['dev', 'prod']));
    fleet.git('branch', 'karpenter-gitops/stage-2', 'HEAD');
    fleet.configure(staged({ stage: 2 }));
    await fleet.synth();
    expect((await fleet.diff()).out).toMatch(/cluster prod: its root now tracks karpenter-gitops\/stage-2 \(was HEAD\), at the base commit [0-9a-f]{12}: nothing rolls back/);
  });
});

describe('a drift gate in review', () => {
  it('says a gate image change replaces the Job (never an edit) and touches no node', async () => {
    const config = aFleetConfig(['dev', 'prod'], { clusters: { dev: { stage: 1 }, prod: { stage: 2 } } });
    const fleet = await Fleet.create(config);
    fleet.configure({ ...config, gitops: { ...(config.gitops as object), driftGateImage: 'registry.example/node:22.21.0-alpine' } });
    await fleet.synth();
    const r = await fleet.diff('--full');
    expect(r.out).toMatch(/replaces drift gate drift-gate-[0-9a-f]{16} of cluster dev \(image docker\.io\/library\/node:[^ ]+ -> registry\.example\/node:22\.21\.0-alpine changed\): a new Job, never an edit of the old one \(a Job's template cannot change\); it touches no node and no sync waits for it; the next stage is promoted once it sees Karpenter finish with this revision/);
    expect(r.out).toMatch(/replaced by drift gate drift-gate-[0-9a-f]{16} \(see there\): no node is touched/);
    expect(r.out).toMatch(/^0 destructive, 0 replaces-nodes, 0 capacity, 0 access, 0 controller, 2 other$/m);
  });
});

describe('the rollout\'s pacing on a windowed cluster', () => {
  it('keeps the pool\'s own Drifted freeze (nodes "0" on a schedule) and leaves out only the window\'s budgets, which the plan marks', async () => {
    const freeze = { nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h', reasons: ['Drifted'] };
    const windows = { nights: { timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu'], start: '22:00', duration: '6h' } };
    const config = (alias: string) => aFleetConfig(['prod'], {
      windows, clusters: { prod: { window: 'nights' } }, defaults: { ami: { alias } },
      teams: { web: { owner: 'web@acme.example', disruption: { budgets: [{ nodes: '20%' }, freeze] } } },
    });
    const fleet = await Fleet.create(config('al2023@v20250505'));
    fleet.configure(config('al2023@v20260409'));
    await fleet.synth();
    const r = await fleet.diff();
    expect(r.out).toMatch(/paced by 20% of the pool's nodes at a time, no node during "0 9 \* \* mon-fri" \(UTC\) for 8h/);
  });
});
