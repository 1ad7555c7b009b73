import { ApiObjectMetadata } from 'cdk8s';
import { Construct } from 'constructs';
import * as aws from '../../imports/karpenter.k8s.aws';
import * as karpenter from '../../imports/karpenter.sh';
import { MANAGED_BY, NodePoolModel, POOL_SYNC_OPTIONS, TEAM_LABEL } from '../model/node-pool';
import { NodeClassModel } from '../model/node-class';
import { escapeKeys } from './safe-keys';
import { DIGEST_ANNOTATION } from '../model/stages';

/** Properties of a {@link TeamNodePool}. */
export interface TeamNodePoolProps {
  /** The NodePool to render. */
  readonly nodePool: NodePoolModel;
  /** The EC2NodeClass to render; the NodePool points at it. */
  readonly nodeClass: NodeClassModel;
  /** The owning team, labelled on both objects. */
  readonly team: string;
  /**
   * The digests the drift gate waits for (annotation `karpenter-gitops.io/digest`; metadata of
   * the objects, which Karpenter's hashes leave out: no node drifts for it).
   * @default - none: no later stage waits for the cluster
   */
  readonly digests?: { readonly nodePool: string; readonly nodeClass: string };
}

/**
 * One pool: an EC2NodeClass and the NodePool that uses it, both named after the
 * pool and both guarded by Argo CD's `Prune=confirm`/`Delete=confirm`.
 * Every field the API server would default is written out, so Argo CD sees no drift.
 * @see https://karpenter.sh/docs/concepts/nodepools/
 * @see https://karpenter.sh/docs/concepts/nodeclasses/
 */
export class TeamNodePool extends Construct {
  /** The EC2NodeClass. */
  public readonly nodeClass: aws.Ec2NodeClass;
  /** The NodePool. */
  public readonly nodePool: karpenter.NodePool;

  public constructor(scope: Construct, id: string, props: TeamNodePoolProps) {
    super(scope, id);
    const nc = props.nodeClass;
    const np = props.nodePool;
    this.nodeClass = new aws.Ec2NodeClass(this, 'EC2NodeClass', escapeKeys({
      metadata: metadata(nc.name, props.team, props.digests?.nodeClass),
      spec: {
        role: nc.role,
        amiFamily: nc.amiFamily as aws.Ec2NodeClassSpecAmiFamily,
        amiSelectorTerms: nc.amiSelectorTerms.map((t) => ({ ...t })),
        subnetSelectorTerms: nc.subnetSelectorTerms.map((t) => ({ ...t })),
        securityGroupSelectorTerms: nc.securityGroupSelectorTerms.map((t) => ({ ...t })),
        capacityReservationSelectorTerms: nc.capacityReservationSelectorTerms?.map((t) => ({
          id: t.id,
          ownerId: t.ownerID,
          instanceMatchCriteria: t.instanceMatchCriteria as aws.Ec2NodeClassSpecCapacityReservationSelectorTermsInstanceMatchCriteria | undefined,
          tags: t.tags,
        })),
        blockDeviceMappings: nc.blockDeviceMappings.map((d) => ({
          deviceName: d.deviceName,
          rootVolume: d.rootVolume,
          ebs: {
            volumeSize: d.ebs.volumeSize,
            volumeType: d.ebs.volumeType as aws.Ec2NodeClassSpecBlockDeviceMappingsEbsVolumeType,
            encrypted: d.ebs.encrypted,
            deleteOnTermination: d.ebs.deleteOnTermination,
            kmsKeyId: d.ebs.kmsKeyID,
            iops: d.ebs.iops,
            throughput: d.ebs.throughput,
          },
        })),
        metadataOptions: {
          httpEndpoint: nc.metadataOptions.httpEndpoint as aws.Ec2NodeClassSpecMetadataOptionsHttpEndpoint,
          httpProtocolIPv6: nc.metadataOptions.httpProtocolIPv6 as aws.Ec2NodeClassSpecMetadataOptionsHttpProtocolIPv6,
          httpPutResponseHopLimit: nc.metadataOptions.httpPutResponseHopLimit,
          httpTokens: nc.metadataOptions.httpTokens as aws.Ec2NodeClassSpecMetadataOptionsHttpTokens,
        },
        kubelet: nc.kubelet && {
          clusterDns: nc.kubelet.clusterDNS,
          cpuCfsQuota: nc.kubelet.cpuCFSQuota,
          evictionHard: nc.kubelet.evictionHard as Record<string, string> | undefined,
          evictionSoft: nc.kubelet.evictionSoft as Record<string, string> | undefined,
          evictionSoftGracePeriod: nc.kubelet.evictionSoftGracePeriod as Record<string, string> | undefined,
          evictionMaxPodGracePeriod: nc.kubelet.evictionMaxPodGracePeriod,
          imageGcHighThresholdPercent: nc.kubelet.imageGCHighThresholdPercent,
          imageGcLowThresholdPercent: nc.kubelet.imageGCLowThresholdPercent,
          kubeReserved: nc.kubelet.kubeReserved as Record<string, string> | undefined,
          systemReserved: nc.kubelet.systemReserved as Record<string, string> | undefined,
          maxPods: nc.kubelet.maxPods,
          podsPerCore: nc.kubelet.podsPerCore,
        },
        userData: nc.userData,
        tags: nc.tags,
        associatePublicIpAddress: nc.associatePublicIPAddress,
        detailedMonitoring: nc.detailedMonitoring,
        instanceStorePolicy: nc.instanceStorePolicy as aws.Ec2NodeClassSpecInstanceStorePolicy | undefined,
      },
    }));

    this.nodePool = new karpenter.NodePool(this, 'NodePool', escapeKeys({
      metadata: metadata(np.name, props.team, props.digests?.nodePool),
      spec: {
        template: {
          metadata: { labels: np.labels },
          spec: {
            nodeClassRef: {
              group: aws.Ec2NodeClass.GVK.apiVersion.split('/')[0],
              kind: aws.Ec2NodeClass.GVK.kind,
              name: this.nodeClass.name,
            },
            requirements: np.requirements.map((r) => ({
              key: r.key,
              operator: r.operator as karpenter.NodePoolSpecTemplateSpecRequirementsOperator,
              values: r.values && [...r.values],
              minValues: r.minValues,
            })),
            taints: np.taints.length ? np.taints.map((t) => ({ ...t, effect: t.effect as karpenter.NodePoolSpecTemplateSpecTaintsEffect })) : undefined,
            startupTaints: np.startupTaints.length
              ? np.startupTaints.map((t) => ({ ...t, effect: t.effect as karpenter.NodePoolSpecTemplateSpecStartupTaintsEffect }))
              : undefined,
            expireAfter: np.expireAfter,
            terminationGracePeriod: np.terminationGracePeriod,
          },
        },
        disruption: {
          consolidationPolicy: np.consolidationPolicy as karpenter.NodePoolSpecDisruptionConsolidationPolicy,
          consolidateAfter: np.consolidateAfter,
          budgets: np.budgets.map((b) => ({
            nodes: b.nodes,
            schedule: b.schedule,
            duration: b.duration,
            reasons: b.reasons?.map((r) => r as karpenter.NodePoolSpecDisruptionBudgetsReasons),
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

function metadata(name: string, team: string, digest: string | undefined): ApiObjectMetadata {
  return {
    name,
    labels: { 'app.kubernetes.io/managed-by': MANAGED_BY, [TEAM_LABEL]: team },
    annotations: { 'argocd.argoproj.io/sync-options': POOL_SYNC_OPTIONS, ...(digest !== undefined ? { [DIGEST_ANNOTATION]: digest } : {}) },
  };
}
