/**
 * The review of a cluster that keeps EKS Auto Mode beside its own controller
 * (`karpenter.besideAutoMode`, docs/auto-mode.md "The shared CRDs"), through `diff` in a git
 * repository: turning it on says the CRDs' Application stops syncing and no pool changes; a new
 * Karpenter version there says the EC2NodeClass CRD is installed by hand first (an older one: that it
 * stays), with Argo CD's
 * selective sync (argo-cd cmd/argocd/commands/app.go l. 2062-2063: `--revision`, `--resource
 * GROUP:KIND:NAME`), and only there; turning it off says the chart's CRDs go over EKS's.
 */
import { aFleetConfig, Fleet, removeFleets } from './fleet';

afterAll(removeFleets);

const beside = { clusters: { prod: { karpenter: { besideAutoMode: true } } } };

describe('diff of besideAutoMode and of a release beside EKS Auto Mode', () => {
  let fleet: Fleet;
  beforeAll(async () => { fleet = await Fleet.create(aFleetConfig(['prod', 'lab'])); });

  it('turning it on: says the CRDs\' Application stops syncing and keeps the CRDs, and that no pool changes', async () => {
    fleet.configure(aFleetConfig(['prod', 'lab'], beside));
    const r = await fleet.diff('--fail-on', 'replaces-nodes');
    expect(r.code).toBe(0);
    expect(r.out).toContain('cluster prod: besideAutoMode: EKS Auto Mode runs beside its controller. Its CRDs\' Application prod-karpenter-crd stops syncing and loses its resources finalizer');
    expect(r.out).not.toMatch(/cluster lab: besideAutoMode/);
    await fleet.synth();
    fleet.commit('prod beside Auto Mode');
  });

  it('a new release: tells how to install the EC2NodeClass CRD by hand where the CRDs are held, and nowhere else; an older one: that the CRD stays', async () => {
    fleet.configure(aFleetConfig(['prod', 'lab'], { ...beside, karpenter: { version: '1.15.0' } }));
    const up = (await fleet.diff()).out.split('\n').filter((l) => /its CRDs' Application does not sync/.test(l));
    expect(up).toEqual([expect.stringContaining('cluster prod: Karpenter 1.14.1 -> 1.15.0, but its CRDs\' Application does not sync there (EKS Auto Mode manages the karpenter.sh CRDs): install the EC2NodeClass CRD of 1.15.0 by hand before its controller rolls (when this change reaches the cluster, said above): argocd app sync prod-karpenter-crd --revision 1.15.0 --resource apiextensions.k8s.io:CustomResourceDefinition:ec2nodeclasses.karpenter.k8s.aws')]);
    fleet.configure(aFleetConfig(['prod', 'lab'], { ...beside, karpenter: { version: '1.13.1' } }));
    const down = (await fleet.diff()).out.split('\n').filter((l) => /its CRDs' Application does not sync/.test(l));
    expect(down).toEqual([expect.stringContaining('cluster prod: Karpenter 1.14.1 -> 1.13.1, and its CRDs\' Application does not sync there (EKS Auto Mode manages the karpenter.sh CRDs): the EC2NodeClass CRD stays that of 1.14.1 unless someone syncs it by hand')]);
  });

  it('turning it off: says the chart\'s CRDs go over EKS\'s, and to merge once Auto Mode is off', async () => {
    fleet.configure(aFleetConfig(['prod', 'lab']));
    const r = await fleet.diff();
    expect(r.out).toContain('cluster prod: besideAutoMode off: its CRDs\' Application prod-karpenter-crd syncs the karpenter-crd chart again, over the CRDs EKS manages while Auto Mode runs there; merge only once Auto Mode is off on the cluster (its NodePools gone)');
  });

  it('refuses besideAutoMode on a cluster that already leaves the CRDs to EKS, at its line', async () => {
    fleet.configure(aFleetConfig(['prod', 'lab'], { clusters: { prod: { compute: 'both', karpenter: { besideAutoMode: true } } } }));
    const r = await fleet.diff();
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/config\/platform\.yaml:\d+:\d+: clusters\.prod\.karpenter\.besideAutoMode: cluster prod has compute: both, which already leaves the karpenter\.sh CRDs to EKS: .*remove it/);
  });
});
