/**
 * Review of issue 20's features (docs/newer-features.md): a pool turning static is blocked
 * (the API server refuses it) and destructive, lowering replicas names the nodes that go, and
 * an overlay change is reported. Two clusters on 1.13.1 and 1.14.1.
 */
import { aFleetConfig, Fleet } from './fleet';
import { removeProjects } from '../builders';

afterAll(removeProjects);

const teams = {
  web: { limits: { cpu: '10' } },
  ingest: { pools: { fixed: { replicas: 4, limits: { nodes: '6' } } } },
};
const config = (ingest: object, overlays?: object) => aFleetConfig(['old', 'new'], {
  karpenter: { version: '1.14.1' },
  clusters: { old: { karpenter: { version: '1.13.1' }, teams: ['web'] } },
  teams: { ...teams, ingest },
  ...(overlays ? { overlays } : {}),
});

describe('review of static pools and overlays', () => {
  it('blocks a dynamic pool turning static, and --fail-on destructive exits 3', async () => {
    const fleet = await Fleet.create(config({ pools: { fixed: { limits: { nodes: '6' } } } }));
    fleet.configure(config(teams.ingest));
    await fleet.synth();
    const r = await fleet.diff('--fail-on', 'destructive');
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/BLOCKED: the pool turns dynamic to static \(replicas: 4\)/);
    expect(r.out).toMatch(/ingest-fixed/);
  });

  it('names how many nodes go when replicas is lowered', async () => {
    const fleet = await Fleet.create(config(teams.ingest));
    fleet.configure(config({ pools: { fixed: { replicas: 1, limits: { nodes: '6' } } } }));
    await fleet.synth();
    const r = await fleet.diff('--fail-on', 'destructive');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/replicas: 4 → 1 \(3 node\(s\) go\)/);
  });
});

describe('review of overlays', () => {
  it('names the pools whose prices an overlay change touches', async () => {
    const overlay = (adj: string) => ({ 'savings-plan': { requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7i'] }], priceAdjustment: adj } });
    const base = (adj: string) => aFleetConfig(['new'], {
      karpenter: { version: '1.14.1' },
      teams: { web: { instanceFamilies: ['m7i'], limits: { cpu: '10' } }, ml: { instanceFamilies: ['c7i'], limits: { cpu: '10' } } },
      overlays: overlay(adj),
    });
    const fleet = await Fleet.create(base('-28%'));
    fleet.configure(base('-30%'));
    await fleet.synth();
    const r = await fleet.diff();
    expect(r.out).toMatch(/changes the prices or capacity Karpenter sees for NodePool web: no node is replaced/);
  });
});
