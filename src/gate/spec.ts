/**
 * What the drift gate checks (docs/windows.md): the contract between the plan, which writes it
 * into the gate Job's `GATE` environment variable as JSON, and the gate program, which reads it.
 */

/** The annotation the generator writes on every NodePool, EC2NodeClass and NodeOverlay: a digest of its manifest. */
export const DIGEST_ANNOTATION = 'karpenter-gitops.io/digest';
/** The pod-template annotation of the Karpenter controller: a digest of its chart values. */
export const VALUES_DIGEST_ANNOTATION = 'karpenter-gitops.io/values-digest';

/** One object of the revision the gate waits for, by name and digest. */
export interface GateObject {
  readonly name: string;
  readonly digest: string;
}

/** The gate's configuration: what "Karpenter has finished with this revision" means on one cluster. */
export interface GateSpec {
  readonly cluster: string;
  /** The Karpenter controller Deployment: it must run this chart version with these values, rolled out and available. */
  readonly controller: {
    readonly namespace: string;
    readonly deployment: string;
    /** The Deployment's `helm.sh/chart` label, e.g. `karpenter-1.14.1`. */
    readonly chart: string;
    /** The Deployment's `spec.template.metadata.annotations["karpenter-gitops.io/values-digest"]`. */
    readonly valuesDigest: string;
  };
  /** The objects of this revision, each with the digest annotation the generator wrote on it. */
  readonly nodePools: readonly GateObject[];
  readonly nodeClasses: readonly GateObject[];
  readonly nodeOverlays: readonly GateObject[];
  /** Seconds all conditions must hold without a break before the gate passes (at least one drift re-evaluation, 5 min). */
  readonly settleSeconds: number;
  /** Seconds between two looks. */
  readonly pollSeconds: number;
}
