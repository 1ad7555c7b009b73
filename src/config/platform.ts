import { PoolFields, TenancyAction } from './schema';
import type { FieldPath } from '../input/problems';
import type { Operator } from '../catalog/requirements';
import { TerraformOutputs } from './terraform';
import type { MaintenanceWindow } from '../schedule/windows';
import type { NodeOverlaySpec } from '../catalog/overlays';

export type { NodeOverlaySpec } from '../catalog/overlays';

/** The level of the inheritance chain that set a pool field (contract section 5.3). */
export type Level = 'built-in' | 'defaults' | 'team' | 'pool' | `group ${string}` | 'cluster-team' | 'cluster-pool' | 'overrides';

/** One resolved pool field, and where its value comes from. */
export interface FieldProvenance {
  /** The field, as the config writes it: `disruption.budgets`, `labels["example.com/role"]`. */
  readonly path: string;
  readonly value: unknown;
  readonly from: Level;
  /** `file:line:col` of the line that set it. @default - none (built-in) */
  readonly at?: string;
}

/** A NodePool requirement, as the CRD writes it. */
export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  readonly values?: readonly string[];
  readonly minValues?: number;
}

/** A requirement of a pool and the pool field it comes from (`['arch']`, `['requirements', 3]`). */
export interface SourcedRequirement {
  readonly requirement: Requirement;
  readonly field: FieldPath;
}

/** Built-in pool defaults: the lowest level of the inheritance chain (contract section 1.1). */
export const BUILT_IN_POOL_DEFAULTS = {
  dedicated: true,
  labels: {},
  taints: [],
  startupTaints: [],
  arch: ['amd64'],
  capacityTypes: ['on-demand'],
  requirements: [],
  expireAfter: '720h',
  disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '10%' }] },
  volume: { size: '20Gi', type: 'gp3', encrypted: true, deleteOnTermination: true },
  // IMDSv2 only, hop limit 1: pods must not reach the node's instance role through IMDS.
  metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
  tags: {},
  smokeTest: { replicas: 0, cpu: '1', memory: '1Gi', resources: {}, image: 'public.ecr.aws/eks-distro/kubernetes/pause:3.7' },
} as const satisfies PoolFields;

type Required<T> = { readonly [K in keyof T]-?: NonNullable<T[K]> };
type Defaulted = keyof typeof BUILT_IN_POOL_DEFAULTS;

/** A pool's fields after inheritance and built-in defaults: the fields with defaults are always set. */
export type PoolSettings = Omit<PoolFields, Defaulted | 'disruption' | 'volume' | 'metadataOptions' | 'smokeTest' | 'ami'> & {
  readonly [K in Exclude<Defaulted, 'disruption' | 'volume' | 'metadataOptions' | 'smokeTest'>]-?: NonNullable<PoolFields[K]>;
} & {
  readonly ami: NonNullable<PoolFields['ami']>;
  readonly disruption: Required<NonNullable<PoolFields['disruption']>>;
  readonly volume: NonNullable<PoolFields['volume']> & Required<Pick<NonNullable<PoolFields['volume']>, 'size' | 'type' | 'encrypted' | 'deleteOnTermination'>>;
  readonly metadataOptions: Required<NonNullable<PoolFields['metadataOptions']>>;
  readonly smokeTest: Required<NonNullable<PoolFields['smokeTest']>>;
};

/** One pool of one cluster: becomes a NodePool + EC2NodeClass pair of the same name. */
export interface Pool {
  /** `<team>` or `<team>-<key>`; the name of both objects. */
  readonly name: string;
  /** The owning team. */
  readonly team: string;
  /** EC2 tag `owner`. @default - no tag */
  readonly owner?: string;
  /** EC2 tag `cost-center`. @default - no tag */
  readonly costCenter?: string;
  /**
   * The namespaces whose pods may use the team's pools (the tenancy policy refuses others).
   * @default - any namespace: the team is not in the policy
   */
  readonly namespaces?: readonly string[];
  /** The pool's fields after inheritance. */
  readonly settings: PoolSettings;
  /** Its NodePool's requirements, each with the field it comes from. */
  readonly requirements: readonly SourcedRequirement[];
  /** Where a finding about the pool's limits is reported (its `limits`, or the pool where it sets none). */
  readonly limitsAt: ProblemLocation;
  /** Where a finding about its EC2NodeClass is reported (its `nodeClass`, or the pool where it sets none). @default - limitsAt */
  readonly nodeClassAt?: ProblemLocation;
  /**
   * Where each CEL expression of the pool's kubelet was set, by field (`maxPods`,
   * `kubeReserved.cpu`): the plan evaluates them per admitted instance type and reports there.
   * @default - none: the pool's kubelet has no expression
   */
  readonly kubeletExpressionsAt?: Readonly<Record<string, ProblemLocation>>;
  /** Every resolved field with the level and line that set it. @default - only when loaded for `explain` */
  readonly provenance?: readonly FieldProvenance[];
  /**
   * The pool runs on EKS Auto Mode (config/auto-mode.ts): its NodePool names an
   * `eks.amazonaws.com` NodeClass, and its nodes live `expireAfter` (Auto Mode's 336h unless set).
   * @default - self-managed Karpenter's pool, with an EC2NodeClass
   */
  readonly autoMode?: { readonly expireAfter: string };
}

/** Where in the config a problem is reported: a Problem without its message. */
export interface ProblemLocation {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly path: string;
}

/** Where a cluster's Applications are deployed, as in an Argo CD Application destination. */
export type Destination = { readonly server: string } | { readonly name: string };

/** One EKS cluster and the pools it runs. */
export interface Cluster {
  /** Cluster id: the key under `clusters`, and the folder `dist/<id>/`. */
  readonly id: string;
  /** The cluster's IAM and SQS wiring. */
  readonly terraform: TerraformOutputs;
  /** Argo CD destination. @default { server: https://kubernetes.default.svc } */
  readonly destination: Destination;
  /** Whether the smoke-test Application is generated. @default true */
  readonly smokeTests: boolean;
  /** The Karpenter release and controller of this cluster: `karpenter` with `clusters.<id>.karpenter` merged over it. */
  readonly karpenter: KarpenterConfig;
  /** The cluster's Kubernetes minor version (`1.33`). @default - unknown */
  readonly kubernetesVersion?: string;
  /**
   * Keep the single `<cluster>-karpenter-nodepools` Application of earlier releases, orphaned
   * (no finalizer, prune or automated sync), while the per-team Applications adopt its pools.
   * @default false
   */
  readonly legacyNodepoolsApp: boolean;
  /**
   * Argo CD syncs none of the cluster's Applications by itself (its root and children have no
   * automated sync): the first sync of an adopted cluster is a person's (docs/adopting.md).
   * @default false
   */
  readonly manualSync?: boolean;
  /**
   * What the tenancy policy's binding does with a pod it refuses: `tenancy.action`, with the
   * cluster's `tenancy.action` over it.
   * @default "Deny"
   */
  readonly tenancyAction?: TenancyAction;
  /**
   * Namespaces the tenancy policy never looks at beside `kube-system` and Karpenter's own:
   * `tenancy.exemptNamespaces`, the cluster's over the top-level one.
   * @default [] - none
   */
  readonly tenancyExemptNamespaces?: readonly string[];
  /**
   * Who runs Karpenter (docs/auto-mode.md): EKS Auto Mode (`autoMode`: no controller or CRDs of
   * ours, every pool on an Auto Mode NodeClass), or both while the cluster moves to it.
   * @default "karpenter" - its own controller
   */
  readonly compute?: 'autoMode' | 'both';
  /** The pools, in the order of `teams` then `pools`. */
  readonly pools: readonly Pool[];
  /** The maintenance window its pools are replaced and synced in (docs/windows.md). @default - none: any time */
  readonly window?: MaintenanceWindow;
  /** Rollout stage: its pools get a change after every cluster of the stage before. @default - none: no promotion, like stage 1 */
  readonly stage?: number;
  /** The Argo CD instance that deploys it (`gitops.argocd`). @default - the fleet's only instance */
  readonly argocd?: string;
  /** Its labels (`clusters.<id>.labels`), which groups match on. @default {} */
  readonly labels: Readonly<Record<string, string>>;
  /** The groups it is in (`groups` whose `match` it meets), in file order. @default [] */
  readonly groups: readonly string[];
  /**
   * The cluster's NodeOverlays: the fleet-wide `overlays` with `clusters.<id>.overlays` over
   * them, by name. @default [] - none (and no NodeOverlay gate)
   */
  readonly overlays: readonly NodeOverlaySpec[];
  /** The teams' CapacityBuffers on this cluster, in team order. @default [] - none (and no CapacityBuffer gate) */
  readonly buffers: readonly CapacityBufferSpec[];
}

/**
 * A team's CapacityBuffer on one cluster: placeholder pods kept ready on one of its pools.
 * @see https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/proposals/buffers.md
 */
export interface CapacityBufferSpec {
  readonly team: string;
  /** The pool the placeholder pods select and tolerate. */
  readonly pool: string;
  /** `<team>-buffer`, written with the buffer (config/overlays.ts resolveBuffers says why). */
  readonly namespace: string;
  readonly replicas: number;
  readonly cpu: string;
  readonly memory: string;
}

/** Where the controller runs: a managed node group, or Fargate (which needs IRSA: Pod Identity does not work there). */
export type ControllerHost = 'nodeGroup' | 'fargate';

/** The Karpenter release and controller of one cluster. */
export interface KarpenterConfig {
  /** Chart and CRD chart version, exact `x.y.z`. */
  readonly version: string;
  /** The controller's namespace. @default kube-system */
  readonly namespace: string;
  readonly controller: ControllerConfig;
  /** Deep-merged into the chart values last. @default {} */
  readonly helmValues: Readonly<Record<string, unknown>>;
  /** The controller and CRD Applications of a windowed cluster sync only in its window. @default false */
  readonly syncInWindow?: boolean;
  /**
   * EKS Auto Mode runs on the cluster beside its own controller (docs/auto-mode.md): EKS manages
   * the shared karpenter.sh CRDs there, so the CRDs' Application is held, not synced.
   * @default false
   */
  readonly besideAutoMode?: boolean;
}

/** Controller settings from `karpenter.controller`. */
export interface ControllerConfig {
  /** @default 2 */
  readonly replicas: number;
  /** @default nodeGroup */
  readonly host: ControllerHost;
  /** @default - the chart's */
  readonly resources?: { readonly requests?: Readonly<Record<string, string | number>>; readonly limits?: Readonly<Record<string, string | number>> };
  /** @default - the chart's (info) */
  readonly logLevel?: 'debug' | 'info' | 'error';
  /** @default {} */
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** The chart's `settings.awsFeatureGates` (1.15 and later). @default {} */
  readonly awsFeatureGates: Readonly<Record<string, boolean>>;
  /** @default {} */
  readonly settings: Readonly<Record<string, string | number | boolean>>;
}

/** The validated platform: everything the generator needs, frozen. */
export interface Platform {
  /** Where Argo CD reads the generated files. */
  readonly gitops: {
    readonly repoURL: string; readonly targetRevision: string; readonly argocdNamespace: string; readonly project: string;
    /** Branch prefix of the stage refs (`<prefix>N`). @default - model/stages.ts STAGE_REF_PREFIX */
    readonly stageRefPrefix?: string;
    /** Image of the drift gate Job. @default - model/stages.ts DRIFT_GATE_IMAGE */
    readonly driftGateImage?: string;
    /** Memory limit of the drift gate Job. @default - model/stages.ts DRIFT_GATE_MEMORY */
    readonly driftGateMemory?: string;
    /** The Argo CD instances the promote workflow reads. @default [] - one instance, read with the ARGOCD_KUBECONFIG secret */
    readonly argocdInstances?: readonly ArgocdInstance[];
    /** How each stage N ≥ 2 is promoted. @default [] - at once, by the workflow alone */
    readonly stages?: readonly StagePolicy[];
  };
  /** The clusters, in file order, each with its own Karpenter release and controller. */
  readonly clusters: readonly Cluster[];
  /** The teams' `budget.perHour`, in `teams` order. @default - none: no team has a budget */
  readonly budgets?: readonly TeamBudget[];
}

/** An Argo CD instance of the fleet (`gitops.argocd.<name>`), on an EKS cluster the promote workflow reaches through `roleArn`. */
export interface ArgocdInstance {
  readonly name: string;
  readonly eksCluster: string;
  readonly region: string;
  readonly roleArn: string;
  /** The runs-on labels of the promote workflow's jobs that read it (a runner that reaches its EKS endpoint). @default - the repository variable KARPENTER_GITOPS_RUNNER, else ubuntu-latest */
  readonly runner?: readonly string[];
}

/** How stage N (≥ 2) is promoted (`gitops.stages.<N>`). */
export interface StagePolicy {
  readonly stage: number;
  /** Minutes after stage N-1 finished before a change may reach stage N. @default 0 */
  readonly soakMinutes: number;
  /** The GitHub environment the push runs in (its reviewers approve). @default - none: no approval */
  readonly environment?: string;
}

/** A team's `budget.perHour` (docs/cost.md): the most its pools may cost per hour at their limits, in every cluster. */
export interface TeamBudget {
  readonly team: string;
  /**
   * A group's budget for the team (`groups.<group>.teams.<team>.budget`): it caps the team's
   * ceiling summed over the group's clusters only. @default - the team's own: every cluster
   */
  readonly group?: { readonly name: string; readonly clusters: readonly string[] };
  /** USD per hour, as written (`"40"`). */
  readonly perHour: string;
  /** Where `teams.<team>.budget.perHour` is, for problems about it. */
  readonly at: ProblemLocation;
}
