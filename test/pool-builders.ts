import { BUILT_IN_POOL_DEFAULTS, Cluster, Pool, PoolSettings } from '../src/config/platform';
import { TerraformOutputs } from '../src/config/terraform';

/** Pool settings as resolved by the config layer: built-in defaults, an AL2023 alias, then `overrides`. */
export function aPool(overrides: Partial<PoolSettings> = {}, identity: Partial<Omit<Pool, 'settings'>> = {}): Pool {
  const settings = {
    ...BUILT_IN_POOL_DEFAULTS,
    ami: { alias: 'al2023@v20250505' },
    ...overrides,
  } as PoolSettings;
  return { name: 'web', team: 'web', ...identity, settings };
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

/** A cluster holding `pools`. */
export function aCluster(pools: Pool[] = [aPool()], overrides: Partial<Cluster> = {}): Cluster {
  return {
    id: 'demo',
    terraform: aTerraform(),
    destination: { server: 'https://kubernetes.default.svc' },
    smokeTests: true,
    pools,
    ...overrides,
  };
}
