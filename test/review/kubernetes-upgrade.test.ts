/**
 * A Kubernetes upgrade in review (issue 19, contract 6.3): every AMI alias resolves through
 * the SSM parameter of the cluster's Kubernetes version, so a cluster whose version changes
 * names every alias-based pool as replacing nodes once the control plane runs the new
 * version; a pool pinned by AMI id does not re-resolve. The review reads each cluster's
 * version from SUMMARY.md at both refs.
 */
import { aFleetConfig, Fleet, removeFleets } from './fleet';

afterAll(removeFleets);

const ML_BY_ID = {
  web: { owner: 'web@acme.example', arch: ['amd64'], instanceCategories: ['c', 'm'], limits: { cpu: '10' } },
  ml: {
    owner: 'ml@acme.example', defaultPool: false,
    pools: { cpu: { ami: { family: 'AL2023', selectorTerms: [{ id: 'ami-0123456789abcdef0' }] }, instanceCategories: ['c'] } },
  },
};

const fleetAt = (prod: string, more: Record<string, unknown> = {}) => aFleetConfig(['prod', 'staging'], {
  clusters: { prod: { kubernetesVersion: prod }, staging: { kubernetesVersion: '1.34' } },
  defaults: { ami: { alias: 'al2023@v20260409' } },
  teams: ML_BY_ID,
  ...more,
});

describe('a Kubernetes upgrade in review', () => {
  it('names every alias-based pool of the cluster as replacing nodes once the control plane runs the new version, with the order, and not a pool pinned by id', async () => {
    const fleet = await Fleet.create(fleetAt('1.34'));
    fleet.configure(fleetAt('1.35'));
    await fleet.synth();
    const r = await fleet.diff();
    expect(r.out).not.toMatch(/no changes to the generated resources/);
    const lines = r.out.split('\n');
    expect(lines[1]).toBe('0 destructive, 1 replaces-nodes, 0 capacity, 0 access, 0 controller, 0 other');
    expect(r.out).toMatch(/^cluster prod: 1 replaces-nodes$/m);
    expect(r.out).toMatch(/^ {2}♻️ NodePool web changed: Karpenter replaces every node of the pool once the control plane runs Kubernetes 1\.35 \(AMI drift\)$/m);
    expect(r.out).toMatch(/^ {6}Kubernetes 1\.34 -> 1\.35: AMI alias al2023@v20260409 \(EC2NodeClass web\) re-resolves for 1\.35 — .*AMIDrift.*order: 1\. pin AMIs that exist for both 1\.34 and 1\.35.*2\. upgrade the control plane/m);
    expect(r.out).not.toMatch(/ml-cpu/);
    expect(r.out).not.toMatch(/cluster staging/);
  });

  it('lists the upgrade in the same entry as the pool\'s other changes', async () => {
    const fleet = await Fleet.create(fleetAt('1.34'));
    fleet.configure(fleetAt('1.35', { clusters: { prod: { kubernetesVersion: '1.35', overrides: { limits: { cpu: '20' } } }, staging: { kubernetesVersion: '1.34' } } }));
    await fleet.synth();
    const r = await fleet.diff();
    expect(r.out.match(/NodePool web changed/g)).toHaveLength(1);
    expect(r.out).toMatch(/♻️ NodePool web changed: .*\n.*paced by.*\n {6}Kubernetes 1\.34 -> 1\.35: .*\n {6}limit cpu: 10 -> 20/);
  });
});
