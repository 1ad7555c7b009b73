import { Testing } from 'cdk8s';
import { PolicyChart, TeamTenancyDefinitionChart } from '../../src/charts/policy-chart';
import { aCluster, aPool, planPolicy } from '../pool-builders';

describe('PolicyChart', () => {
  it('renders each team\'s parameter, the tenancy policy and its binding', () => {
    const policy = planPolicy(aCluster([aPool({}, { name: 'vision', team: 'vision', namespaces: ['vision'] })], { smokeTests: false }));
    if (!policy) throw new Error('no policy');
    const manifests = Testing.synth(new PolicyChart(Testing.app(), 'team-pools', { policy })) as { kind: string }[];
    expect(manifests.map((m) => m.kind)).toEqual(['TeamTenancy', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
    expect(manifests).toMatchSnapshot();
  });

  it('renders the CRD of the parameters', () => {
    const manifests = Testing.synth(new TeamTenancyDefinitionChart(Testing.app(), 'team-tenancy-crd')) as { kind: string }[];
    expect(manifests.map((m) => m.kind)).toEqual(['CustomResourceDefinition']);
    expect(manifests).toMatchSnapshot();
  });
});
