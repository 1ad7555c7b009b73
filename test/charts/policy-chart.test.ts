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
});
