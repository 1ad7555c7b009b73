/**
 * A pool's objects on EKS Auto Mode (docs/auto-mode.md): its NodeClass, and the label keys its
 * NodePool's requirements use there. The pool is matched, priced and explained as any other
 * (Auto Mode launches the same EC2 instance types, whose attributes Karpenter's catalog holds);
 * only what is written differs.
 * @see https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html#auto-supported-labels (the eks.amazonaws.com/instance-* labels; kubernetes.io/os and node.kubernetes.io/windows-build are not supported: Auto Mode runs Linux only)
 */
import type { Cluster, Pool } from '../config/platform';
import type { Requirement } from '../config/platform';
import type { AutoModeNodeClassSpec } from '../constructs/auto-mode-node-class';
import { nodeClassName } from './node-pool';

/** The NodeClass of a pool on Auto Mode. */
export interface AutoModeNodeClassModel extends AutoModeNodeClassSpec {
  readonly name: string;
}

/** Auto Mode's own defaults, written out so the API server has nothing to add (no drift under Argo CD). */
const DEFAULTS = {
  ephemeralStorage: { size: '80Gi', iops: 3000, throughput: 125 },
  snatPolicy: 'Random', networkPolicy: 'DefaultAllow', networkPolicyEventLogs: 'Disabled',
} as const;

/** The Auto Mode NodeClass of a pool: the cluster's node role, its subnets and security groups by the discovery tag, the pool's tags. */
export function autoModeNodeClassModel(pool: Pool, cluster: Cluster): AutoModeNodeClassModel {
  const discovery = [{ tags: { 'karpenter.sh/discovery': cluster.terraform.clusterName } }];
  const tags = pool.settings.tags ?? {};
  return {
    name: nodeClassName(pool),
    role: cluster.terraform.autoModeNodeRoleName ?? cluster.terraform.nodeRoleName,
    subnetSelectorTerms: pool.settings.subnetSelectorTerms ?? discovery,
    securityGroupSelectorTerms: pool.settings.securityGroupSelectorTerms ?? discovery,
    ...DEFAULTS,
    ...(Object.keys(tags).length ? { tags } : {}),
  };
}

/** The prefix of Karpenter's AWS provider's well-known labels, and Auto Mode's. */
const PROVIDER = 'karpenter.k8s.aws/';
const AUTO_MODE = 'eks.amazonaws.com/';

/** Labels Auto Mode does not support (it runs Linux only): a requirement on them is left out. */
const UNSUPPORTED = new Set(['kubernetes.io/os', 'node.kubernetes.io/windows-build']);

/** A NodePool's requirements as Auto Mode reads them: `karpenter.k8s.aws/instance-*` as `eks.amazonaws.com/instance-*`, no OS. */
export function autoModeRequirements(requirements: readonly Requirement[]): Requirement[] {
  return requirements.filter((r) => !UNSUPPORTED.has(r.key))
    .map((r) => (r.key.startsWith(PROVIDER) ? { ...r, key: `${AUTO_MODE}${r.key.slice(PROVIDER.length)}` } : r));
}
