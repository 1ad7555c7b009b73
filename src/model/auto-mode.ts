/**
 * A pool's objects on EKS Auto Mode (docs/auto-mode.md): its NodeClass, and the label keys its
 * NodePool's requirements use there. The pool is matched, priced and explained as any other
 * (Auto Mode launches the same EC2 instance types, whose attributes Karpenter's catalog holds);
 * only what is written differs.
 * @see https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html#auto-supported-labels (the eks.amazonaws.com/instance-* labels; kubernetes.io/os and node.kubernetes.io/windows-build are not supported: Auto Mode runs Linux only)
 */
import type { Cluster, Pool } from '../config/platform';
import type { Requirement } from '../config/platform';
import { nodeClassName } from './node-pool';

// The spec of EKS Auto Mode's NodeClass, typed BY HAND (AWS publishes no CRD for it; not generated
// by cdk8s import): https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html and
// https://github.com/awslabs/cdk-eks-blueprints/blob/05d3dbd0a462409bf002c989750d0de13bf83af2/lib/cluster-providers/types.ts#L161-L281
/** A subnet or security group chosen by tags or by id (subnets have no name term). */
export interface AutoModeSelectorTerm {
  readonly tags?: Readonly<Record<string, string>>;
  readonly id?: string;
}

/** `spec.ephemeralStorage`: the node's disk. */
export interface AutoModeEphemeralStorage {
  /** A quantity: 1-59000Gi (or 64000G, 58Ti, 64T). @default "80Gi" */
  readonly size: string;
  /** 3000-16000. @default 3000 */
  readonly iops: number;
  /** MiB/s, 125-1000. @default 125 */
  readonly throughput: number;
  /** A KMS key (id, ARN, alias or alias ARN) the volume is encrypted with. @default - the account's default EBS key */
  readonly kmsKeyID?: string;
}

/** `spec` of an `eks.amazonaws.com/v1` NodeClass, as far as this tool writes it. */
export interface AutoModeNodeClassSpec {
  /** The nodes' IAM role, by name (it needs an EKS access entry of type EC2). */
  readonly role: string;
  readonly subnetSelectorTerms: readonly AutoModeSelectorTerm[];
  readonly securityGroupSelectorTerms: readonly AutoModeSelectorTerm[];
  readonly ephemeralStorage: AutoModeEphemeralStorage;
  readonly snatPolicy: 'Random' | 'Disabled';
  readonly networkPolicy: 'DefaultAllow' | 'DefaultDeny';
  readonly networkPolicyEventLogs: 'Disabled' | 'Enabled';
  /** EC2 tags of the nodes (none of the reserved keys). @default - none */
  readonly tags?: Readonly<Record<string, string>>;
}

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
