import type { Cluster, Pool } from '../config/platform';
import { aliasFamily, AmiFamily } from '../config/schema';
import { MANAGED_BY, TEAM_LABEL } from '../config/reserved';
import { sortKeys } from './node-pool';

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
  readonly ebs: {
    readonly volumeSize: string;
    readonly volumeType: Settings['volume']['type'];
    readonly encrypted: boolean;
    readonly deleteOnTermination: boolean;
    readonly kmsKeyID?: string;
    readonly iops?: number;
    readonly throughput?: number;
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
  readonly role: string;
  readonly amiFamily: AmiFamily;
  readonly amiSelectorTerms: readonly AmiSelectorTerm[];
  readonly subnetSelectorTerms: readonly SubnetSelectorTerm[];
  readonly securityGroupSelectorTerms: readonly SecurityGroupSelectorTerm[];
  readonly capacityReservationSelectorTerms?: readonly CapacityReservationSelectorTerm[];
  readonly blockDeviceMappings: readonly BlockDevice[];
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
  return {
    name: pool.name,
    role: cluster.terraform.nodeRoleName,
    amiFamily: family,
    amiSelectorTerms: s.ami.alias !== undefined ? [{ alias: s.ami.alias }] : s.ami.selectorTerms ?? [],
    subnetSelectorTerms: s.subnetSelectorTerms ?? discovery,
    securityGroupSelectorTerms: s.securityGroupSelectorTerms ?? discovery,
    capacityReservationSelectorTerms: s.capacityReservationSelectorTerms,
    blockDeviceMappings: blockDevices(pool),
    metadataOptions: s.metadataOptions,
    kubelet: s.kubelet,
    userData: s.userData,
    tags: tags(pool, cluster),
    associatePublicIPAddress: s.associatePublicIPAddress,
    detailedMonitoring: s.detailedMonitoring,
    instanceStorePolicy: s.instanceStorePolicy,
  };
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
    'Name': `${cluster.terraform.clusterName}/${pool.name}`,
  });
}
