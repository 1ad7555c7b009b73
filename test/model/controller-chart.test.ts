/**
 * The generated controller values, rendered by the real Karpenter 1.14.1 chart: every setting
 * reaches the controller's environment as written, including the `false`, `0` and large
 * numbers the chart's templates would otherwise drop or mangle.
 */
import { loadPlatform } from '../../src/config/load';
import { synthesize } from '../../src/synth';
import { aConfig, aTerraform, removeProjects, writeProject } from '../builders';
import { containerEnv, findManifest, helmTemplate } from '../support/helm';

afterAll(removeProjects);

function rendered(karpenter: Record<string, unknown>, terraform = aTerraform()) {
  const { configPath } = writeProject({ config: aConfig({ karpenter: { version: '1.14.1', ...karpenter } }), terraform: { demo: terraform } });
  const values = synthesize(loadPlatform(configPath).platform).get('dist/demo/karpenter/values.yaml') ?? '';
  const deployment = findManifest(helmTemplate({}, { valuesYaml: values }), 'Deployment', 'karpenter');
  return { deployment, env: Object.fromEntries(containerEnv(deployment).filter((e) => e.value !== undefined).map((e) => [e.name, e.value])) };
}

describe('the generated values, rendered by the real chart', () => {
  it('passes false, 0 and a large number to the controller, which the chart would drop or turn into 1e+06', () => {
    const { env } = rendered({ controller: { settings: { vmMemoryOverheadPercent: 0, ignoreDRARequests: false, reservedENIs: 1000000, disableDryRun: false } } });
    expect(env).toMatchObject({ VM_MEMORY_OVERHEAD_PERCENT: '0', IGNORE_DRA_REQUESTS: 'false', RESERVED_ENIS: '1000000', DISABLE_DRY_RUN: 'false' });
  });

  it('passes every kind of setting and the feature gates as written', () => {
    const { env } = rendered({
      controller: {
        settings: { batchMaxDuration: '15s', preferencePolicy: 'Ignore', minValuesPolicy: 'BestEffort', isolatedVPC: true, amiRefreshInterval: '5m', vmMemoryOverheadPercent: 0.1 },
        featureGates: { spotToSpotConsolidation: true, reservedCapacity: false },
      },
    });
    expect(env).toMatchObject({
      BATCH_MAX_DURATION: '15s', PREFERENCE_POLICY: 'Ignore', MIN_VALUES_POLICY: 'BestEffort', ISOLATED_VPC: 'true', AMI_REFRESH_INTERVAL: '5m', VM_MEMORY_OVERHEAD_PERCENT: '0.1',
      CLUSTER_NAME: 'demo', INTERRUPTION_QUEUE: 'Karpenter-demo', CLUSTER_ENDPOINT: 'https://0123456789ABCDEF0123456789ABCDEF.gr7.ap-northeast-2.eks.amazonaws.com',
    });
    expect(env.FEATURE_GATES).toMatch(/(^|,)SpotToSpotConsolidation=true(,|$)/);
    expect(env.FEATURE_GATES).toMatch(/(^|,)ReservedCapacity=false(,|$)/);
  });

  it('keeps the controller off Karpenter nodes, and annotates the ServiceAccount for IRSA', () => {
    const { configPath } = writeProject();
    const values = synthesize(loadPlatform(configPath).platform).get('dist/demo/karpenter/values.yaml') ?? '';
    const objects = helmTemplate({}, { valuesYaml: values });
    const spec = (findManifest(objects, 'Deployment', 'karpenter').spec as { template: { spec: { affinity: { nodeAffinity: unknown } } } }).template.spec;
    expect(spec.affinity.nodeAffinity).toEqual({ requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }] } });
    expect(findManifest(objects, 'ServiceAccount', 'karpenter').metadata).toMatchObject({ annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::111122223333:role/KarpenterController-demo' } });
  });
});
