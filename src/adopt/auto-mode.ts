/**
 * EKS Auto Mode beside self-managed Karpenter, as adoption meets it. Auto Mode runs a
 * Karpenter of its own, managed by EKS: its NodePools are `karpenter.sh/v1` NodePools like any
 * other, told apart by their `nodeClassRef`, which names a NodeClass of group
 * `eks.amazonaws.com` (kind `NodeClass`) instead of an EC2NodeClass of `karpenter.k8s.aws`. Each
 * controller takes only the NodePools whose `nodeClassRef` group and kind are its cloud
 * provider's (kubernetes-sigs/karpenter pkg/utils/nodepool/nodepool.go `IsManaged`, l. 37-41), so
 * both run side by side on one cluster ("You can install both during a migration or in an
 * advanced configuration": EKS user guide, automode-learn-instances.adoc l. 31), and EKS manages the
 * NodePool and NodeClaim CRDs they share (the AmazonEKSComputeClusterPolicy, model/applications.ts
 * `crdsHeld`). So adoption leaves such pools to EKS (one line each), adopts the self-managed pools
 * beside them as usual, and writes `karpenter.besideAutoMode: true` (adopt.ts), under which the
 * cluster's CRDs' Application holds the CRDs without syncing or deleting them; it refuses to write
 * a config under which that Application would still sync them there.
 * @see https://docs.aws.amazon.com/eks/latest/userguide/auto-migrate-karpenter.html (an Auto Mode NodePool's `nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass}`)
 * @see https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html (Auto Mode NodePools)
 */
import { APP_NAMES } from '../config/reserved';

/** The API group of EKS Auto Mode's node classes. */
const AUTO_MODE_GROUP = 'eks.amazonaws.com';

/** The `apiVersion kind` of EKS Auto Mode's node class, as an export holds it. */
export const AUTO_MODE_NODE_CLASS_KIND = `${AUTO_MODE_GROUP}/v1 NodeClass`;

/** Whether a NodePool's `nodeClassRef` names an EKS Auto Mode NodeClass. */
export function isAutoModeRef(ref: Readonly<Record<string, unknown>>): boolean {
  return ref.group === AUTO_MODE_GROUP && ref.kind === 'NodeClass';
}

/** An Auto Mode NodePool of an export: its name and the NodeClass it names. */
interface AutoModePool {
  readonly name: string;
  readonly spec: Readonly<Record<string, unknown>>;
}

/** What adoption says, and refuses, of a cluster whose export has Auto Mode NodePools. */
export interface AutoModeVerdict {
  /** One line per Auto Mode NodePool (left to EKS), then the line about the shared CRDs. */
  readonly notes: readonly string[];
  /** Why the config cannot be written: its CRDs' Application would sync the `karpenter.sh` CRDs EKS manages. */
  readonly problems: readonly string[];
  /** What the first sync by hand (adopt's next steps) must leave out. */
  readonly firstSync: readonly string[];
}

/**
 * The verdict on cluster `clusterId`, whose export has the Auto Mode NodePools `pools`, given
 * whether the config adoption would write syncs the CRDs there (its `<cluster>-karpenter-crd`
 * Application automated, read from the plan by the command): nothing to say when it has no such pool.
 */
export function autoModeVerdict(clusterId: string, pools: readonly AutoModePool[], syncsCrds: boolean): AutoModeVerdict {
  if (pools.length === 0) return { notes: [], problems: [], firstSync: [] };
  const notes = pools.map((p) => `left to EKS: NodePool ${p.name} uses EKS Auto Mode's NodeClass ${nodeClassName(p)} (${AUTO_MODE_GROUP}): EKS runs it, adopt writes nothing for it`);
  const crds = APP_NAMES.crds(clusterId);
  notes.push(`cluster ${clusterId} runs EKS Auto Mode beside self-managed Karpenter: wrote karpenter.besideAutoMode: true, so its CRDs' Application ${crds} holds the shared karpenter.sh CRDs `
    + '(nodepools.karpenter.sh, nodeclaims.karpenter.sh, which EKS manages while Auto Mode runs) without syncing or deleting them; a new Karpenter version\'s EC2NodeClass CRD is then synced by hand (docs/auto-mode.md, "The shared CRDs")');
  const problems = syncsCrds
    ? [`cluster ${clusterId} runs EKS Auto Mode (NodePool ${pools.map((p) => p.name).join(', ')}), and the config would still sync the karpenter.sh CRDs there with Application ${crds}: `
      + 'adopt does not write it (a bug of adopt, please report it)']
    : [];
  const firstSync = [`     but never ${crds}: it holds the karpenter.sh CRDs EKS Auto Mode manages on ${clusterId} (docs/auto-mode.md, "The shared CRDs")`];
  return { notes, problems, firstSync };
}

/** The name of the NodeClass an Auto Mode NodePool names. */
function nodeClassName(pool: AutoModePool): string {
  const template = pool.spec.template;
  const spec = typeof template === 'object' && template !== null && 'spec' in template ? template.spec : undefined;
  const ref = typeof spec === 'object' && spec !== null && 'nodeClassRef' in spec ? spec.nodeClassRef : undefined;
  return typeof ref === 'object' && ref !== null && 'name' in ref ? String(ref.name) : '(no name)';
}
