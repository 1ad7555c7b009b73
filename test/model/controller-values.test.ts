import { chartValues, controllerValues } from '../../src/model/controller-values';
import { unknownChartKeys } from '../../src/config/chart-keys';
import { OWNED_VALUES } from '../../src/config/controller';
import type { Platform } from '../../src/config/platform';
import { aCluster, aTerraform } from '../pool-builders';

function aPlatform(karpenter: Partial<Platform['karpenter']> = {}, controller: Partial<Platform['karpenter']['controller']> = {}): Platform {
  return {
    gitops: { repoURL: 'https://github.com/acme/platform-gitops.git', targetRevision: 'main', argocdNamespace: 'argocd', project: 'default' },
    karpenter: {
      version: '1.14.1', namespace: 'kube-system', helmValues: {}, ...karpenter,
      controller: { replicas: 2, featureGates: {}, settings: {}, ...controller },
    },
    clusters: [],
  };
}

describe('controllerValues', () => {
  it('wires an IRSA cluster: role ARN annotation, queue, endpoint and name from Terraform', () => {
    const values = controllerValues(aPlatform(), aCluster([], { terraform: aTerraform() }));
    expect(values.serviceAccount).toEqual({ annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::111122223333:role/KarpenterController-demo' } });
    expect(values.settings).toEqual({ clusterName: 'demo', clusterEndpoint: 'https://example.eks.amazonaws.com', interruptionQueue: 'Karpenter-demo' });
  });

  it('leaves the ServiceAccount alone for a Pod Identity cluster (no controller role ARN)', () => {
    const values = controllerValues(aPlatform(), aCluster([], {
      terraform: aTerraform({ controllerRoleArn: undefined, clusterEndpoint: undefined, interruptionQueueName: undefined }),
    }));
    expect(values).not.toHaveProperty('serviceAccount');
    expect(values.settings).toEqual({ clusterName: 'demo' });
  });

  it('maps replicas, resources, logLevel, feature gates and settings from the config', () => {
    const values = controllerValues(aPlatform({}, {
      replicas: 3, logLevel: 'debug', resources: { requests: { cpu: '1', memory: '1Gi' } },
      featureGates: { spotToSpotConsolidation: true }, settings: { batchMaxDuration: '10s' },
    }), aCluster());
    expect(values).toMatchObject({
      replicas: 3, logLevel: 'debug', controller: { resources: { requests: { cpu: '1', memory: '1Gi' } } },
      settings: { batchMaxDuration: '10s', featureGates: { spotToSpotConsolidation: true } },
    });
  });

  it('keeps the controller off Karpenter-managed nodes', () => {
    expect(controllerValues(aPlatform(), aCluster()).affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms)
      .toEqual([{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }]);
  });

  it('only sets chart values that helmValues is forbidden to set again', () => {
    const full = controllerValues(aPlatform({}, {
      logLevel: 'debug', resources: { requests: { cpu: '1' } }, featureGates: { nodeRepair: true }, settings: { batchMaxDuration: '10s' },
    }), aCluster());
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
    const values = chartValues(aPlatform({}, {
      logLevel: 'debug', resources: { requests: { cpu: '1' } }, featureGates: { nodeRepair: true }, settings: { batchMaxDuration: '10s' },
    }), aCluster());
    expect(unknownChartKeys(values)).toEqual([]);
  });

  it('deep-merges helmValues last: maps key by key, lists replaced', () => {
    const values = chartValues(aPlatform({ helmValues: { settings: { batchIdleDuration: '2s' }, tolerations: [{ key: 'a', operator: 'Exists' }] } }), aCluster());
    expect(values.settings).toMatchObject({ clusterName: 'demo', batchIdleDuration: '2s' });
    expect(values.tolerations).toEqual([{ key: 'a', operator: 'Exists' }]);
  });
});
