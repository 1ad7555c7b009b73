import { Testing } from 'cdk8s';
import { PolicyChart } from '../../src/charts/policy-chart';
import { aCluster, aPool, planPolicy } from '../pool-builders';

describe('PolicyChart', () => {
  it('renders each part of the tenancy policy with its binding, of the same name', () => {
    const policy = planPolicy(aCluster([aPool({}, { name: 'vision', team: 'vision', namespaces: ['vision'] })], { smokeTests: false }));
    if (!policy) throw new Error('no policy');
    const manifests = Testing.synth(new PolicyChart(Testing.app(), 'team-pools', { policy })) as { kind: string; metadata: { name: string } }[];
    expect(manifests.map((m) => m.kind)).toEqual(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
    expect(new Set(manifests.map((m) => m.metadata.name)).size).toBe(1);
    expect(manifests).toMatchSnapshot();
  });

  it('writes on each policy the guard digests of the teams whose pools it holds, and on nothing else', () => {
    const pools = Array.from({ length: 501 }, (_, i) => aPool({}, { name: `p${i}`, team: i < 500 ? 'web' : 'ml', namespaces: ['x'] }));
    const policy = planPolicy(aCluster(pools, { smokeTests: false }));
    if (!policy) throw new Error('no policy');
    const manifests = Testing.synth(new PolicyChart(Testing.app(), 'team-pools', { policy, guards: { web: 'w1', ml: 'm1', other: 'o1' } })) as { kind: string; metadata: { annotations: Record<string, string> } }[];
    expect(manifests.filter((m) => m.kind === 'ValidatingAdmissionPolicy').map((m) => m.metadata.annotations['karpenter-gitops.io/guards'])).toEqual(['{"web":"w1"}', '{"ml":"m1"}']);
    expect(manifests.filter((m) => m.kind !== 'ValidatingAdmissionPolicy').map((m) => m.metadata.annotations['karpenter-gitops.io/guards'])).toEqual([undefined, undefined]);
  });
});
