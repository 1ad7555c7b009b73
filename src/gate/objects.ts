/**
 * The API objects the gate reads, as JSON from the API server: only the fields it looks at,
 * every one optional (a field Go omits when empty is absent).
 */

/**
 * A status condition of a Karpenter object: operatorpkg's `status.Condition`, a
 * `metav1.Condition` (`observedGeneration` is `omitempty`).
 * @see https://github.com/awslabs/operatorpkg/blob/7a138650b2d161ffd4147a2af28203f6f35cda71/status/condition.go#L30
 */
export interface Condition {
  readonly type?: string;
  /** `True`, `False` or `Unknown`. */
  readonly status?: string;
  readonly observedGeneration?: number;
  readonly reason?: string;
  readonly message?: string;
}

/** `metav1.ObjectMeta`, the fields the gate reads. */
export interface ObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly generation?: number;
  readonly deletionTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A Karpenter object with status conditions (NodePool, EC2NodeClass, NodeOverlay, NodeClaim). */
export interface KarpenterObject {
  readonly metadata?: ObjectMeta;
  readonly status?: { readonly conditions?: readonly Condition[] };
}

/**
 * A NodePool (`karpenter.sh/v1`): the annotations `karpenter.sh/nodepool-hash(-version)` and
 * the EC2NodeClass it points at.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/nodepool.go#L240 (nodeClassRef)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/nodepool_status.go#L35-L63
 */
export interface NodePool extends KarpenterObject {
  readonly spec?: { readonly template?: { readonly spec?: { readonly nodeClassRef?: { readonly name?: string } } } };
}

/**
 * An EC2NodeClass (`karpenter.k8s.aws/v1`), its status conditions and the annotations
 * `karpenter.k8s.aws/ec2nodeclass-hash(-version)`.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/v1/ec2nodeclass_status.go#L144-L182
 */
export type EC2NodeClass = KarpenterObject;

/**
 * A NodeOverlay (`karpenter.sh/v1alpha1`): its status condition ValidationSucceeded and Ready.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1alpha1/nodeoverlay_status.go#L29-L43
 */
export type NodeOverlay = KarpenterObject;

/**
 * A NodeClaim (`karpenter.sh/v1`): its label `karpenter.sh/nodepool`, its hash annotations and
 * its `Drifted` condition.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/nodeclaim_status.go#L25-L80
 */
export type NodeClaim = KarpenterObject;

/**
 * What the gate keeps of one NodeClaim, and all it reads of it: its name, whether it is being
 * deleted, its NodePool, its four hash annotations and its `Drifted` condition when True. A
 * NodeClaim as the API server serves it is some 10 to 15 KB of JSON (labels, up to 600 instance types
 * in its requirements, managed fields, status); these facts are a few hundred bytes, so the
 * gate's memory grows with one page of the list, not with the cluster.
 */
export interface NodeClaimFacts {
  readonly name: string;
  readonly deleting: boolean;
  /** Its `karpenter.sh/nodepool` label. @default - none */
  readonly pool?: string;
  /** Its annotations among `karpenter.sh/nodepool-hash(-version)` and `karpenter.k8s.aws/ec2nodeclass-hash(-version)`. */
  readonly hashes: Readonly<Record<string, string>>;
  /** The reason of its `Drifted` condition when that is True. @default - not drifted */
  readonly drifted?: { readonly reason?: string };
}

/**
 * A page of a list answer of the API server (`NodeClaimList`): its items and, when more
 * remain, the `continue` token of the next page.
 * @see https://github.com/kubernetes/apimachinery/blob/v0.34.9/pkg/apis/meta/v1/types.go#L75-L82 (ListMeta.continue)
 */
export interface ObjectList<T> {
  readonly metadata?: { readonly continue?: string; readonly resourceVersion?: string };
  readonly items?: readonly T[];
}

/**
 * An `apps/v1` Deployment: the fields `kubectl rollout status` reads, the chart label and the
 * pod template's annotations.
 * @see https://github.com/kubernetes/api/blob/master/apps/v1/types.go (DeploymentSpec, DeploymentStatus)
 */
export interface Deployment {
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    /** Defaulted to 1 by the API server when not given. */
    readonly replicas?: number;
    readonly template?: { readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> } };
  };
  readonly status?: {
    readonly observedGeneration?: number;
    readonly replicas?: number;
    readonly updatedReplicas?: number;
    readonly availableReplicas?: number;
    readonly conditions?: readonly Condition[];
  };
}
