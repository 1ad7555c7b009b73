import { BUILT_IN_POOL_DEFAULTS, Cluster, KarpenterConfig, Platform, Pool, PoolSettings } from '../src/config/platform';
import { poolRequirements } from '../src/config/requirements';
import { TerraformOutputs } from '../src/config/terraform';
import { clusterPlan } from '../src/model/plan';
import type { TenancyPolicyModel } from '../src/model/tenancy';

/** Pool settings as resolved by the config layer: built-in defaults, an AL2023 alias, then `overrides`. */
export function aPool(overrides: Partial<PoolSettings> = {}, identity: Partial<Omit<Pool, 'settings'>> = {}): Pool {
  const settings = {
    ...BUILT_IN_POOL_DEFAULTS,
    ami: { alias: 'al2023@v20250505' },
    ...overrides,
  } as PoolSettings;
  return { name: 'web', team: 'web', requirements: poolRequirements(settings), limitsAt: { file: 'config/platform.yaml', line: 1, col: 1, path: 'teams.web' }, ...identity, settings };
}

/** Terraform outputs of a cluster named demo, with every optional output set. */
export function aTerraform(overrides: Partial<TerraformOutputs> = {}): TerraformOutputs {
  return {
    clusterName: 'demo',
    nodeRoleName: 'KarpenterNodeRole-demo',
    interruptionQueueName: 'Karpenter-demo',
    controllerRoleArn: 'arn:aws:iam::111122223333:role/KarpenterController-demo',
    clusterEndpoint: 'https://example.eks.amazonaws.com',
    ...overrides,
  };
}

/** A cluster's Karpenter: 1.14.1 in kube-system, two replicas on a node group, nothing else set. */
export function aKarpenter(overrides: Partial<KarpenterConfig> = {}, controller: Partial<KarpenterConfig['controller']> = {}): KarpenterConfig {
  return {
    version: '1.14.1',
    namespace: 'kube-system',
    helmValues: {},
    ...overrides,
    controller: { replicas: 2, host: 'nodeGroup', featureGates: {}, awsFeatureGates: {}, settings: {}, ...controller },
  };
}

/** A cluster holding `pools`. */
export function aCluster(pools: Pool[] = [aPool()], overrides: Partial<Cluster> = {}): Cluster {
  return {
    id: 'demo',
    terraform: aTerraform(),
    destination: { server: 'https://kubernetes.default.svc' },
    smokeTests: true,
    karpenter: aKarpenter(),
    legacyNodepoolsApp: false,
    labels: {},
    groups: [],
    overlays: [],
    buffers: [],
    pools,
    ...overrides,
  };
}

/** A platform of `clusters`, its Applications in project `project`. */
export function aPlatform(clusters: Cluster[] = [aCluster()], project = 'default'): Platform {
  return {
    gitops: { repoURL: 'https://github.com/acme/platform-gitops.git', targetRevision: 'main', argocdNamespace: 'argocd', project },
    clusters,
  };
}

/** A cluster's tenancy policy as its plan holds it (built from the plan's own pool models). */
export function planPolicy(cluster: Cluster): TenancyPolicyModel | undefined {
  return clusterPlan(aPlatform([cluster]), cluster).tenancyPolicy?.model;
}
