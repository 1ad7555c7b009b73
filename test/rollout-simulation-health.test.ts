/**
 * What the Application health check says of a fleet in trouble, simulated minute by minute
 * (test/support/fleet-sim.ts, the staged fleet of test/support/rollout-fleet.ts): a child that
 * may wait on its window must not hide a repository error from its root and the bootstrap.
 *
 * The simulated Argo CD (test/support/argocd-sim.ts) fails a directory source whose folder is
 * not in the commit as Argo CD 3.5.1's repo server does ("<path>: app path does not exist",
 * reposerver/repository/repository.go l. 540-543, util/app/path/path.go l. 25-27) and writes
 * the ComparisonError the controller writes (controller/state.go l. 377, l. 698); a root's and
 * the bootstrap's health is the worst of their children's (controller/health.go l. 20-104),
 * each child read by the generated `argocd/argocd-cm-patch.yaml`.
 */
import { removeProjects } from './builders';
import { FleetSim } from './support/fleet-sim';
import { CLUSTERS, fleetConfig, HOUR, NODECLAIMS, START, synth, WINDOWS } from './support/rollout-fleet';

afterAll(removeProjects);

const healthOf = (fleet: FleetSim, name: string) => ((fleet.inCluster.get('Application', name, 'argocd')?.status ?? {}) as { health?: { status?: string } }).health?.status;

describe('a staged fleet whose prod-eu pools Application cannot be rendered', () => {
  it('a ComparisonError under a waiting child: prod-eu-pools-web waits on its closed window, its folder missing from the commit; its root and the bootstrap are Degraded, not Healthy', () => {
    // The fleet's first commit with prod-eu's pools-web Application pointing at a folder the commit does not have.
    const tree = synth(fleetConfig());
    const path = 'dist/prod-eu/apps/pools-web.yaml';
    const broken = tree.files.get(path)!.replace('path: dist/prod-eu/nodepools/web\n', 'path: dist/prod-eu/nodepools/wbe\n');
    expect(broken).not.toBe(tree.files.get(path));
    const fleet = new FleetSim({ files: new Map(tree.files).set(path, broken), platform: tree.platform }, {
      start: new Date(START), end: new Date(START + 86_400_000),
      initialNodeClaims: (_cluster, pool) => NODECLAIMS[pool] ?? 2,
      windows: { 'prod-eu': WINDOWS.eu, 'prod-us': WINDOWS.us },
      refsAtStart: ['karpenter-gitops/stage-2', 'karpenter-gitops/stage-3'],
      // The drift gates pass at once: nothing but the broken Application holds any health.
      assess: () => ({ done: true, waiting: [] }),
    });
    // Monday from 00:00 UTC: prod-eu's window opens at 21:00 UTC. The invariants are checked once every
    // Application has started its first sync (with the stage refs set by hand, later stages start at once).
    fleet.runUntil(START + HOUR);
    fleet.check();
    fleet.runUntil(START + 3 * HOUR);

    const child = fleet.inCluster.get('Application', 'prod-eu-pools-web', 'argocd')!;
    const status = child.status as { sync: { status: string }; conditions?: { type: string; message: string }[] };
    expect(child.applied.metadata.annotations?.['karpenter-gitops.io/waits-for']).toMatch(/^its sync window eu /);
    expect(fleet.argo.canSync(child)).toBe(false);
    expect(status.sync.status).toBe('Unknown');
    expect(status.conditions).toEqual([{
      type: 'ComparisonError',
      message: 'Failed to load target state: failed to generate manifest for source 1 of 1: rpc error: code = Unknown desc = dist/prod-eu/nodepools/wbe: app path does not exist',
      lastTransitionTime: expect.any(String),
    }]);
    expect(fleet.argo.liveHealth(fleet.inCluster, child)).toEqual({ status: 'Degraded', message: `sync status Unknown: ComparisonError: ${status.conditions![0].message}` });
    expect(healthOf(fleet, 'prod-eu-karpenter-root')).toBe('Degraded');
    expect(healthOf(fleet, 'karpenter-gitops-bootstrap')).toBe('Degraded');
    // Nothing else: every other root is Healthy (prod-us, the same stage, its window closed too), and prod-eu's root
    // finished its sync (the pools are its last wave), so a later commit syncs.
    expect(CLUSTERS.filter((c) => c !== 'prod-eu').map((c) => healthOf(fleet, `${c}-karpenter-root`))).toEqual(['Healthy', 'Healthy', 'Healthy']);
    expect(fleet.argo.operation('prod-eu-karpenter-root')?.phase).toBe('Succeeded');
    expect(fleet.violations).toEqual([]);
  });
});
