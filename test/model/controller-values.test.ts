import { chartValues, controllerValues } from '../../src/model/controller-values';
import { unknownChartKeys } from '../../src/release/chart-keys';
import { OWNED_VALUES } from '../../src/config/controller';
import type { KarpenterConfig } from '../../src/config/platform';
import { aCluster, aKarpenter, aTerraform } from '../pool-builders';

/** Cluster demo with its Karpenter set as given. */
function withKarpenter(karpenter: Partial<KarpenterConfig> = {}, controller: Partial<KarpenterConfig['controller']> = {}) {
  return aCluster([], { karpenter: aKarpenter(karpenter, controller) });
}

describe('controllerValues', () => {
  it('wires an IRSA cluster: role ARN annotation, queue, endpoint and name from Terraform', () => {
    const values = controllerValues(aCluster([], { terraform: aTerraform() }));
    expect(values.serviceAccount).toEqual({ annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::111122223333:role/KarpenterController-demo' } });
    expect(values.settings).toEqual({ clusterName: 'demo', clusterEndpoint: 'https://example.eks.amazonaws.com', interruptionQueue: 'Karpenter-demo' });
  });

  it('leaves the ServiceAccount alone for a Pod Identity cluster (no controller role ARN)', () => {
    const values = controllerValues(aCluster([], {
      terraform: aTerraform({ controllerRoleArn: undefined, clusterEndpoint: undefined, interruptionQueueName: undefined }),
    }));
    expect(values).not.toHaveProperty('serviceAccount');
    expect(values.settings).toEqual({ clusterName: 'demo' });
  });

  it('maps replicas, resources, logLevel, feature gates and settings from the config', () => {
    const values = controllerValues(withKarpenter({}, {
      replicas: 3, logLevel: 'debug', resources: { requests: { cpu: '1', memory: '1Gi' } },
      featureGates: { spotToSpotConsolidation: true }, settings: { batchMaxDuration: '10s' },
    }));
    expect(values).toMatchObject({
      replicas: 3, logLevel: 'debug', controller: { resources: { requests: { cpu: '1', memory: '1Gi' } } },
      settings: { batchMaxDuration: '10s', featureGates: { spotToSpotConsolidation: true } },
    });
  });

  it('keeps the controller off Karpenter-managed nodes', () => {
    expect(controllerValues(aCluster()).affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms)
      .toEqual([{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }]);
  });

  it('only sets chart values that helmValues is forbidden to set again', () => {
    const full = controllerValues(withKarpenter({}, {
      logLevel: 'debug', resources: { requests: { cpu: '1' } }, featureGates: { nodeRepair: true }, settings: { batchMaxDuration: '10s' },
    }));
    const owned = OWNED_VALUES.map((o) => o.path.join('.'));
    const leaves = (v: unknown, path: string[]): string[] => (v && typeof v === 'object' && !Array.isArray(v)
      ? Object.entries(v).flatMap(([k, c]) => leaves(c, [...path, k])) : [path.join('.')]);
    for (const leaf of leaves(full, [])) {
      const byController = /^settings\.(featureGates\.)?[a-zA-Z]+$/.test(leaf);
      expect(byController || owned.some((o) => leaf === o || leaf.startsWith(`${o}.`))).toBe(true);
    }
  });
});

describe('chartValues', () => {
  it('uses only keys the 1.14.1 chart has (Helm would silently ignore any other)', () => {
    const values = chartValues(withKarpenter({}, {
      logLevel: 'debug', resources: { requests: { cpu: '1' } }, featureGates: { nodeRepair: true }, settings: { batchMaxDuration: '10s' },
    }));
    expect(unknownChartKeys(values)).toEqual([]);
  });

  it('deep-merges helmValues last: maps key by key, lists replaced', () => {
    const values = chartValues(withKarpenter({ helmValues: { podAnnotations: { a: 'b' }, tolerations: [{ key: 'a', operator: 'Exists' }] } }));
    expect(values.podAnnotations).toEqual({ a: 'b' });
    expect(values.settings).toMatchObject({ clusterName: 'demo' });
    expect(values.tolerations).toEqual([{ key: 'a', operator: 'Exists' }]);
  });
});

describe('settings as the chart must be given them', () => {
  it('writes every setting the chart guards with `with` as a string, so false, 0 and large numbers reach the controller', () => {
    const values = controllerValues(withKarpenter({}, { settings: { vmMemoryOverheadPercent: 0, ignoreDRARequests: false, reservedENIs: 1000000, batchMaxDuration: '10s' } }));
    expect(values.settings).toMatchObject({ vmMemoryOverheadPercent: '0', ignoreDRARequests: 'false', reservedENIs: '1000000', batchMaxDuration: '10s' });
  });
});
