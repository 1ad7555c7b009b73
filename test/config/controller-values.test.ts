import { removeProjects } from '../builders';
import { aConfig } from '../builders';
import { aProblem, load, problemsOf } from './helpers';

afterAll(removeProjects);

const withKarpenter = (karpenter: Record<string, unknown>) => ({ config: aConfig({ karpenter }) });

describe('karpenter.controller and karpenter.helmValues', () => {
  it('accepts settings and feature gates the chart knows, and free-form chart values', () => {
    const { platform } = load(withKarpenter({
      controller: { settings: { batchMaxDuration: '10s' }, featureGates: { spotToSpotConsolidation: true } },
      helmValues: { podAnnotations: { 'example.com/any': 'x' }, tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }], controller: { image: { digest: 'sha256:abc' } } },
    }));
    expect(platform.clusters[0].karpenter.controller.featureGates).toEqual({ spotToSpotConsolidation: true });
  });

  it('fails when helmValues has a key the chart does not know, suggesting the closest', () => {
    expect(problemsOf(withKarpenter({ helmValues: { replicaCount: 3 } })))
      .toEqual(aProblem(/platform\.yaml:\d+:\d+: karpenter\.helmValues\.replicaCount: unknown chart key "replicaCount" \(did you mean "replicas"\?\): Helm would silently ignore it/));
  });

  it('fails when a nested helmValues key is unknown', () => {
    expect(problemsOf(withKarpenter({ helmValues: { controller: { image: { tagg: 'x' } } } })))
      .toEqual(aProblem(/karpenter\.helmValues\.controller\.image\.tagg: unknown chart key "tagg" \(did you mean "tag"\?\)/));
  });

  it('fails when helmValues sets what karpenter.controller already sets', () => {
    expect(problemsOf(withKarpenter({ controller: { logLevel: 'debug' }, helmValues: { logLevel: 'info', replicas: 3 } }))).toEqual(expect.arrayContaining([
      expect.stringMatching(/karpenter\.helmValues\.logLevel: already set by karpenter\.controller\.logLevel: set it there, not in helmValues/),
      expect.stringMatching(/karpenter\.helmValues\.replicas: already set by karpenter\.controller\.replicas/),
    ]));
  });

  it('fails when helmValues sets what the Terraform outputs set', () => {
    expect(problemsOf(withKarpenter({ helmValues: { settings: { clusterName: 'x' }, serviceAccount: { annotations: { 'eks.amazonaws.com/role-arn': 'arn' } } } })))
      .toEqual(expect.arrayContaining([
        expect.stringMatching(/karpenter\.helmValues\.settings\.clusterName: already set by the terraform output cluster_name/),
        expect.stringMatching(/karpenter\.helmValues\.serviceAccount\.annotations\["eks\.amazonaws\.com\/role-arn"\]: already set by the terraform output karpenter_controller_role_arn/),
      ]));
  });

  it('fails when helmValues would move the controller onto the nodes it manages', () => {
    expect(problemsOf(withKarpenter({ helmValues: { affinity: { nodeAffinity: {} } } })))
      .toEqual(aProblem(/karpenter\.helmValues\.affinity\.nodeAffinity: already set by karpenter-gitops \(the controller must not run on nodes it manages\)/));
  });

  it('fails when a helmValues node affinity has a required term that lets the controller onto the nodes it manages', () => {
    const nodeGroup = { key: 'eks.amazonaws.com/nodegroup', operator: 'In', values: ['system'] };
    const doesNotExist = { key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' };
    const affinity = (...terms: unknown[]) => ({ helmValues: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } } });
    expect(problemsOf(withKarpenter(affinity({ matchExpressions: [doesNotExist, nodeGroup] }, { matchExpressions: [nodeGroup] }))))
      .toEqual(aProblem(/karpenter\.helmValues\.affinity\.nodeAffinity: already set by karpenter-gitops .*or give every nodeSelectorTerms entry the expression/));
    // Karpenter's migration guide (v1.14.1 migrating-from-cas/_index.md L113-L127): kept as it is.
    expect(load(withKarpenter(affinity({ matchExpressions: [doesNotExist, nodeGroup] }))).platform).toBeDefined();
  });

  it('fails when a feature gate is set in both places', () => {
    expect(problemsOf(withKarpenter({
      controller: { featureGates: { nodeRepair: true } },
      helmValues: { settings: { featureGates: { nodeRepair: false } } },
    }))).toEqual(aProblem(/karpenter\.helmValues\.settings\.featureGates\.nodeRepair: already set by karpenter\.controller\.featureGates\.nodeRepair/));
  });

  it('fails when a controller setting is unknown to the chart', () => {
    expect(problemsOf(withKarpenter({ controller: { settings: { batchMaxDuraton: '10s' } } })))
      .toEqual(aProblem(/karpenter\.controller\.settings\.batchMaxDuraton: unknown chart setting "batchMaxDuraton" \(did you mean "batchMaxDuration"\?\)/));
  });

  it('fails when a controller setting comes from Terraform', () => {
    expect(problemsOf(withKarpenter({ controller: { settings: { clusterName: 'x' } } })))
      .toEqual(aProblem(/karpenter\.controller\.settings\.clusterName: setting "clusterName" is not set here: it comes from the terraform output cluster_name/));
  });

  it('fails when a feature gate is unknown to the chart', () => {
    expect(problemsOf(withKarpenter({ controller: { featureGates: { spotToSpotConsolidaton: true } } })))
      .toEqual(aProblem(/karpenter\.controller\.featureGates\.spotToSpotConsolidaton: unknown feature gate "spotToSpotConsolidaton" \(did you mean "spotToSpotConsolidation"\?\)/));
  });
});

describe('karpenter.controller.awsFeatureGates', () => {
  it('fails once, at the gate, on a release whose chart has none (1.14.1), naming the release', () => {
    expect(problemsOf(withKarpenter({ version: '1.14.1', controller: { awsFeatureGates: { rebootForRepair: true } } })))
      .toEqual(aProblem(/karpenter\.controller\.awsFeatureGates\.rebootForRepair: cluster demo runs Karpenter 1\.14\.1, whose chart has no settings\.awsFeatureGates: upgrade this cluster's Karpenter first, or remove it/));
  });
});
