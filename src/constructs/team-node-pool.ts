import { ApiObjectMetadata } from 'cdk8s';
import { Construct } from 'constructs';
import * as aws from '../../imports/karpenter.k8s.aws';
import * as karpenter from '../../imports/karpenter.sh';
import { MANAGED_BY, NodePoolModel, POOL_SYNC_OPTIONS, TEAM_LABEL } from '../model/node-pool';
import { NodeClassModel } from '../model/node-class';
import { AutoModeNodeClassModel, autoModeRequirements } from '../model/auto-mode';
import { AutoModeNodeClass } from './auto-mode-node-class';
import { crdEnumValue, crdValue } from './crd-value';
import { escapeKeys } from './safe-keys';
import { DIGEST_ANNOTATION } from '../model/stages';

/** Properties of a {@link TeamNodePool}. */
export interface TeamNodePoolProps {
  /** The NodePool to render. */
  readonly nodePool: NodePoolModel;
  /** The EC2NodeClass the NodePool points at. */
  readonly nodeClass: NodeClassModel;
  /**
   * Render the EC2NodeClass here: the first pool (in the cluster's order) of those sharing a
   * class renders it, the others only point at it by name.
   * @default true
   */
  readonly rendersNodeClass?: boolean;
  /** The owning team, labelled on both objects. */
  readonly team: string;
  /**
   * The digests the drift gate waits for (annotation `karpenter-gitops.io/digest`; metadata of
   * the objects, which Karpenter's hashes leave out: no node drifts for it).
   * @default - none: no later stage waits for the cluster
   */
  readonly digests?: { readonly nodePool: string; readonly nodeClass: string };
  /**
   * The pool runs on EKS Auto Mode: this NodeClass (`eks.amazonaws.com/v1`) is written instead of
   * the EC2NodeClass, the NodePool names it, and its requirements use Auto Mode's label keys
   * (model/auto-mode.ts). @default - a self-managed pool
   */
  readonly autoModeClass?: AutoModeNodeClassModel;
}

/**
 * The generated EC2NodeClass with \`spec.kubelet\` written in the CRD's own field names, whatever
 * shape the release's generated class gives it: typed (1.13, 1.14, whose class renames
 * clusterDns to clusterDNS on the way out and drops any other key) or an open map (1.15, which
 * would write clusterDns as given: a field the controller refuses). Set after the class's own
 * conversion, so neither shape changes what is written.
 */
class NodeClassObject extends aws.Ec2NodeClass {
  public constructor(scope: Construct, id: string, private readonly kubelet: NodeClassModel['kubelet'], props: aws.Ec2NodeClassProps) {
    super(scope, id, props);
  }

  public override toJson(): any {
    const json = super.toJson() as { spec: Record<string, unknown> };
    if (this.kubelet) json.spec.kubelet = escapeKeys(JSON.parse(JSON.stringify(this.kubelet)) as unknown);
    return json;
  }
}

/**
 * One pool: an EC2NodeClass and the NodePool that uses it, both named after the
 * pool and both guarded by Argo CD's `Prune=confirm`/`Delete=confirm`.
 * Every field the API server would default is written out, so Argo CD sees no drift.
 * @see https://karpenter.sh/docs/concepts/nodepools/
 * @see https://karpenter.sh/docs/concepts/nodeclasses/
 */
export class TeamNodePool extends Construct {
  /** The EC2NodeClass. @default - none: another pool's file holds the class it shares */
  public readonly nodeClass?: aws.Ec2NodeClass;
  /** The NodePool. */
  public readonly nodePool: karpenter.NodePool;

  public constructor(scope: Construct, id: string, props: TeamNodePoolProps) {
    super(scope, id);
    const nc = props.nodeClass;
    const np = props.nodePool;
    const auto = props.autoModeClass;
    if (auto && (props.rendersNodeClass ?? true)) {
      const { name, ...spec } = auto;
      new AutoModeNodeClass(this, 'NodeClass', { metadata: metadata(name, props.team, props.digests?.nodeClass), spec });
    }
    this.nodeClass = !auto && (props.rendersNodeClass ?? true) ? new NodeClassObject(this, 'EC2NodeClass', nc.kubelet, escapeKeys({
      metadata: metadata(nc.name, props.team, props.digests?.nodeClass),
      spec: {
        role: nc.role,
        instanceProfile: nc.instanceProfile,
        amiFamily: nc.amiFamily && crdValue(aws.Ec2NodeClassSpecAmiFamily, nc.amiFamily),
        amiSelectorTerms: nc.amiSelectorTerms.map((t) => ({ ...t })),
        subnetSelectorTerms: nc.subnetSelectorTerms.map((t) => ({ ...t })),
        securityGroupSelectorTerms: nc.securityGroupSelectorTerms.map((t) => ({ ...t })),
        capacityReservationSelectorTerms: nc.capacityReservationSelectorTerms?.map((t) => ({
          id: t.id,
          ownerId: t.ownerID,
          instanceMatchCriteria: t.instanceMatchCriteria && crdValue(aws.Ec2NodeClassSpecCapacityReservationSelectorTermsInstanceMatchCriteria, t.instanceMatchCriteria),
          tags: t.tags,
        })),
        blockDeviceMappings: nc.blockDeviceMappings?.map((d) => ({
          deviceName: d.deviceName,
          rootVolume: d.rootVolume,
          ebs: d.ebs && {
            volumeSize: d.ebs.volumeSize,
            volumeType: d.ebs.volumeType && crdValue(aws.Ec2NodeClassSpecBlockDeviceMappingsEbsVolumeType, d.ebs.volumeType),
            encrypted: d.ebs.encrypted,
            deleteOnTermination: d.ebs.deleteOnTermination,
            kmsKeyId: d.ebs.kmsKeyID,
            snapshotId: d.ebs.snapshotID,
            iops: d.ebs.iops,
            throughput: d.ebs.throughput,
            volumeInitializationRate: d.ebs.volumeInitializationRate,
          },
        })),
        metadataOptions: {
          httpEndpoint: crdValue(aws.Ec2NodeClassSpecMetadataOptionsHttpEndpoint, nc.metadataOptions.httpEndpoint),
          httpProtocolIPv6: crdValue(aws.Ec2NodeClassSpecMetadataOptionsHttpProtocolIPv6, nc.metadataOptions.httpProtocolIPv6),
          httpPutResponseHopLimit: nc.metadataOptions.httpPutResponseHopLimit,
          httpTokens: crdValue(aws.Ec2NodeClassSpecMetadataOptionsHttpTokens, nc.metadataOptions.httpTokens),
        },
        userData: nc.userData,
        // An adopted class without tags has none, as it runs (an empty map would be a field the live object lacks).
        tags: Object.keys(nc.tags).length > 0 ? nc.tags : undefined,
        associatePublicIpAddress: nc.associatePublicIPAddress,
        detailedMonitoring: nc.detailedMonitoring,
        instanceStorePolicy: nc.instanceStorePolicy && crdValue(aws.Ec2NodeClassSpecInstanceStorePolicy, nc.instanceStorePolicy),
        ...extras(nc.extras ?? {}),
      },
    })) : undefined;

    this.nodePool = new karpenter.NodePool(this, 'NodePool', escapeKeys({
      metadata: metadata(np.name, props.team, props.digests?.nodePool),
      spec: {
        template: {
          // An adopted pool without labels or annotations has no template metadata at all, as it runs.
          metadata: Object.keys(np.labels).length > 0 || np.annotations !== undefined
            ? { labels: Object.keys(np.labels).length > 0 ? np.labels : undefined, annotations: np.annotations && { ...np.annotations } } : undefined,
          spec: {
            nodeClassRef: auto ? { group: AutoModeNodeClass.GVK.apiVersion.split('/')[0], kind: AutoModeNodeClass.GVK.kind, name: auto.name } : {
              group: aws.Ec2NodeClass.GVK.apiVersion.split('/')[0],
              kind: aws.Ec2NodeClass.GVK.kind,
              name: this.nodeClass?.name ?? np.nodeClass,
            },
            requirements: (auto ? autoModeRequirements(np.requirements) : np.requirements).map((r) => ({
              key: r.key,
              operator: crdValue(karpenter.NodePoolSpecTemplateSpecRequirementsOperator, r.operator),
              values: r.values && [...r.values],
              minValues: r.minValues,
            })),
            taints: np.taints.length ? np.taints.map((t) => ({ ...t, effect: crdValue(karpenter.NodePoolSpecTemplateSpecTaintsEffect, t.effect) })) : undefined,
            startupTaints: np.startupTaints.length
              ? np.startupTaints.map((t) => ({ ...t, effect: crdValue(karpenter.NodePoolSpecTemplateSpecStartupTaintsEffect, t.effect) }))
              : undefined,
            expireAfter: np.expireAfter,
            terminationGracePeriod: np.terminationGracePeriod,
          },
        },
        disruption: {
          consolidationPolicy: crdValue(karpenter.NodePoolSpecDisruptionConsolidationPolicy, np.consolidationPolicy),
          consolidateAfter: np.consolidateAfter,
          budgets: np.budgets.map((b) => ({
            nodes: b.nodes,
            schedule: b.schedule,
            duration: b.duration,
            reasons: b.reasons?.map((r) => crdEnumValue(karpenter.NodePoolSpecDisruptionBudgetsReasons, r)),
          })),
        },
        limits: np.limits && Object.fromEntries(Object.entries(np.limits).map(([k, v]) => [
          k, typeof v === 'number' ? karpenter.NodePoolSpecLimits.fromNumber(v) : karpenter.NodePoolSpecLimits.fromString(v),
        ])),
        weight: np.weight,
        replicas: np.replicas,
      },
    }));
  }
}

/**
 * The EC2NodeClass fields a pool passes through as the CRD writes them, in the generated class's
 * own property names (which `toJson` turns back into the CRD's).
 */
function extras(e: Readonly<Record<string, unknown>>): Partial<aws.Ec2NodeClassSpec> {
  const network = e.networkInterfaces as { networkCardIndex: number; deviceIndex: number; interfaceType: string }[] | undefined;
  const cpu = e.cpuOptions as { nestedVirtualization?: string } | undefined;
  return {
    ipPrefixCount: e.ipPrefixCount as number | undefined,
    context: e.context as string | undefined,
    placementGroupSelector: e.placementGroupSelector as aws.Ec2NodeClassSpecPlacementGroupSelector | undefined,
    connectionTracking: e.connectionTracking as aws.Ec2NodeClassSpecConnectionTracking | undefined,
    cpuOptions: cpu && {
      nestedVirtualization: cpu.nestedVirtualization === undefined ? undefined : crdValue(aws.Ec2NodeClassSpecCpuOptionsNestedVirtualization, cpu.nestedVirtualization as 'enabled' | 'disabled'),
    },
    networkInterfaces: network?.map((n) => ({
      networkCardIndex: n.networkCardIndex, deviceIndex: n.deviceIndex,
      interfaceType: crdValue(aws.Ec2NodeClassSpecNetworkInterfacesInterfaceType, n.interfaceType as 'interface' | 'efa-only'),
    })),
  };
}

function metadata(name: string, team: string, digest: string | undefined): ApiObjectMetadata {
  return {
    name,
    labels: { 'app.kubernetes.io/managed-by': MANAGED_BY, [TEAM_LABEL]: team },
    annotations: { 'argocd.argoproj.io/sync-options': POOL_SYNC_OPTIONS, ...(digest !== undefined ? { [DIGEST_ANNOTATION]: digest } : {}) },
  };
}
