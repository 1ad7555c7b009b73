import type { Cluster, Pool } from '../config/platform';
import { aliasFamily, AmiFamily } from '../config/schema';
import { MANAGED_BY, TEAM_LABEL } from '../config/reserved';
import { nodeClassName, sortKeys } from './node-pool';

/** Device of the root volume (AL2023, AL2, Custom) and of Bottlerocket's OS volume. */
export const ROOT_DEVICE = '/dev/xvda';
/** Device of Bottlerocket's data volume, where images and pod storage live. */
export const BOTTLEROCKET_DATA_DEVICE = '/dev/xvdb';
/** Size of Bottlerocket's OS volume, as Karpenter's own default. */
export const BOTTLEROCKET_OS_VOLUME_SIZE = '4Gi';

/** An EBS block device mapping, as the CRD writes it. */
export interface BlockDevice {
  readonly deviceName: string;
  readonly rootVolume?: boolean;
  readonly ebs?: {
    readonly volumeSize?: string;
    readonly volumeType?: Settings['volume']['type'];
    readonly encrypted?: boolean;
    readonly deleteOnTermination?: boolean;
    readonly kmsKeyID?: string;
    readonly snapshotID?: string;
    readonly iops?: number;
    readonly throughput?: number;
    readonly volumeInitializationRate?: number;
  };
}

type Settings = Pool['settings'];
type Tags = Readonly<Record<string, string>>;
/** An AMI selector term: an alias, or the config's custom terms. */
export type AmiSelectorTerm = { readonly alias: string } | NonNullable<Settings['ami']['selectorTerms']>[number];
/** A subnet selector term. */
export type SubnetSelectorTerm = { readonly id?: string; readonly tags?: Tags };
/** A security group selector term. */
export type SecurityGroupSelectorTerm = { readonly id?: string; readonly name?: string; readonly tags?: Tags };
/** A capacity reservation selector term. */
export type CapacityReservationSelectorTerm = NonNullable<Settings['capacityReservationSelectorTerms']>[number];

/** Everything an EC2NodeClass says, derived from one pool and its cluster. */
export interface NodeClassModel {
  readonly name: string;
  /** The nodes' IAM role. @default - none: `instanceProfile` is set */
  readonly role?: string;
  /** An existing instance profile, in place of a role. @default - none: `role` is set */
  readonly instanceProfile?: string;
  /** @default - none: an adopted pool whose alias implies it (Karpenter infers it) */
  readonly amiFamily?: AmiFamily;
  readonly amiSelectorTerms: readonly AmiSelectorTerm[];
  readonly subnetSelectorTerms: readonly SubnetSelectorTerm[];
  readonly securityGroupSelectorTerms: readonly SecurityGroupSelectorTerm[];
  readonly capacityReservationSelectorTerms?: readonly CapacityReservationSelectorTerm[];
  /** @default - none: an adopted pool that names none (the AMI's own devices) */
  readonly blockDeviceMappings?: readonly BlockDevice[];
  /** The EC2NodeClass fields only some pools set (`ipPrefixCount`, `context`, ...), as the CRD writes them. @default {} */
  readonly extras?: Readonly<Record<string, unknown>>;
  readonly metadataOptions: {
    readonly httpEndpoint: 'enabled' | 'disabled';
    readonly httpProtocolIPv6: 'enabled' | 'disabled';
    readonly httpPutResponseHopLimit: number;
    readonly httpTokens: 'required' | 'optional';
  };
  readonly kubelet?: Settings['kubelet'];
  readonly userData?: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly associatePublicIPAddress?: boolean;
  readonly detailedMonitoring?: boolean;
  readonly instanceStorePolicy?: 'RAID0';
}

/** Derives the EC2NodeClass of a pool in a cluster. */
export function nodeClassModel(pool: Pool, cluster: Cluster): NodeClassModel {
  const s = pool.settings;
  const family = amiFamily(pool);
  const discovery = [{ tags: { 'karpenter.sh/discovery': cluster.terraform.clusterName } }];
  const extras = Object.fromEntries(NODE_CLASS_EXTRAS.filter((k) => s[k] !== undefined).map((k) => [k, s[k]]));
  return {
    name: nodeClassName(pool),
    ...(s.instanceProfile !== undefined ? { instanceProfile: s.instanceProfile } : { role: s.role ?? cluster.terraform.nodeRoleName }),
    // An adopted class says its family only if it did: Karpenter infers it from an alias.
    ...(s.adopted && s.ami.family === undefined ? {} : { amiFamily: family }),
    amiSelectorTerms: s.ami.alias !== undefined ? [{ alias: s.ami.alias }] : s.ami.selectorTerms ?? [],
    subnetSelectorTerms: s.subnetSelectorTerms ?? discovery,
    securityGroupSelectorTerms: s.securityGroupSelectorTerms ?? discovery,
    capacityReservationSelectorTerms: s.capacityReservationSelectorTerms,
    ...(s.blockDeviceMappings !== undefined ? { blockDeviceMappings: s.blockDeviceMappings } : s.adopted ? {} : { blockDeviceMappings: blockDevices(pool) }),
    metadataOptions: s.metadataOptions,
    kubelet: s.kubelet,
    userData: s.userData,
    tags: s.adopted ? sortKeys(s.tags) : tags(pool, cluster),
    ...(Object.keys(extras).length > 0 ? { extras } : {}),
    associatePublicIPAddress: s.associatePublicIPAddress,
    detailedMonitoring: s.detailedMonitoring,
    instanceStorePolicy: s.instanceStorePolicy,
  };
}

/** The EC2NodeClass fields of a pool the model passes through as the CRD writes them. */
const NODE_CLASS_EXTRAS = ['ipPrefixCount', 'context', 'placementGroupSelector', 'connectionTracking', 'cpuOptions', 'networkInterfaces'] as const;

/** The AMI family Karpenter uses for a class: the one it says, else the one its alias implies (Custom when neither). */
export function resolvedAmiFamily(nodeClass: Pick<NodeClassModel, 'amiFamily' | 'amiSelectorTerms'>): AmiFamily {
  const alias = nodeClass.amiSelectorTerms.find((t): t is { alias: string } => 'alias' in t && typeof t.alias === 'string');
  return nodeClass.amiFamily ?? (alias ? aliasFamily(alias.alias) : undefined) ?? 'Custom';
}

/** The pool's AMI family: the one set, else the one its alias implies. */
export function amiFamily(pool: Pool): AmiFamily {
  const ami = pool.settings.ami;
  // The config layer guarantees one of the two: family is required without an alias.
  return ami.family ?? aliasFamily(ami.alias ?? '') ?? 'Custom';
}

/**
 * EBS volumes, encrypted by default. AL2023, AL2 and Custom get one root volume;
 * Bottlerocket gets its small OS volume plus the data volume the pool sizes.
 */
export function blockDevices(pool: Pool): BlockDevice[] {
  const v = pool.settings.volume;
  const ebs = {
    volumeSize: v.size,
    volumeType: v.type,
    encrypted: v.encrypted,
    deleteOnTermination: v.deleteOnTermination,
    ...(v.kmsKeyID !== undefined ? { kmsKeyID: v.kmsKeyID } : {}),
    ...(v.iops !== undefined ? { iops: v.iops } : {}),
    ...(v.throughput !== undefined ? { throughput: v.throughput } : {}),
  };
  if (amiFamily(pool) !== 'Bottlerocket') return [{ deviceName: ROOT_DEVICE, rootVolume: true, ebs }];
  return [
    {
      deviceName: ROOT_DEVICE,
      ebs: {
        volumeSize: BOTTLEROCKET_OS_VOLUME_SIZE, volumeType: 'gp3', encrypted: v.encrypted, deleteOnTermination: true,
        ...(v.kmsKeyID !== undefined ? { kmsKeyID: v.kmsKeyID } : {}),
      },
    },
    { deviceName: BOTTLEROCKET_DATA_DEVICE, ebs },
  ];
}

/** EC2 tags: the pool's own, then the ones the generator always sets. */
export function tags(pool: Pool, cluster: Cluster): Record<string, string> {
  return sortKeys({
    ...pool.settings.tags,
    [TEAM_LABEL]: pool.team,
    ...(pool.owner !== undefined ? { owner: pool.owner } : {}),
    ...(pool.costCenter !== undefined ? { 'cost-center': pool.costCenter } : {}),
    'managed-by': MANAGED_BY,
    'Name': `${cluster.terraform.clusterName}/${nodeClassName(pool)}`,
  });
}
