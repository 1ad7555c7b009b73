/**
 * EKS Auto Mode beside self-managed Karpenter, as adoption meets it. Auto Mode runs a
 * Karpenter of its own, managed by EKS: its NodePools are `karpenter.sh/v1` NodePools like any
 * other, told apart by their `nodeClassRef`, which names a NodeClass of group
 * `eks.amazonaws.com` (kind `NodeClass`) instead of an EC2NodeClass of `karpenter.k8s.aws`. Both
 * run side by side on one cluster, and the NodePool and NodeClaim CRDs (`nodepools.karpenter.sh`,
 * `nodeclaims.karpenter.sh`) are then shared: AWS says not to update or modify them while both run.
 * So adoption leaves such pools to EKS (one line each), adopts the self-managed pools beside them
 * as usual, and refuses to write a config under which the cluster's `karpenter-crd` Application
 * would install the `karpenter.sh` CRDs there. The config's `compute: both` (docs/auto-mode.md) is
 * a move, with an Auto Mode pool beside each of its own, not such a cluster as it runs: until one is,
 * an Auto Mode cluster is refused, and said so.
 * @see https://docs.aws.amazon.com/eks/latest/userguide/auto-migrate-karpenter.html (Karpenter and Auto Mode side by side; the shared CRDs not to be modified; an Auto Mode NodePool's `nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass}`)
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
  /** Why the config cannot be written: it would install the `karpenter.sh` CRDs on the cluster. */
  readonly problems: readonly string[];
}

/**
 * The verdict on cluster `clusterId`, whose export has the Auto Mode NodePools `pools`, given
 * whether the config adoption would write gives it the CRD Application (`<cluster>-karpenter-crd`,
 * read from the plan by the command): nothing to say when it has no such pool.
 */
export function autoModeVerdict(clusterId: string, pools: readonly AutoModePool[], installsCrds: boolean): AutoModeVerdict {
  if (pools.length === 0) return { notes: [], problems: [] };
  const notes = pools.map((p) => `left to EKS: NodePool ${p.name} uses EKS Auto Mode's NodeClass ${nodeClassName(p)} (${AUTO_MODE_GROUP}): EKS runs it, adopt writes nothing for it`);
  notes.push(`cluster ${clusterId} runs EKS Auto Mode beside self-managed Karpenter: never touch the shared karpenter.sh CRDs there `
    + '(nodepools.karpenter.sh, nodeclaims.karpenter.sh): EKS owns them while Auto Mode runs');
  const crds = APP_NAMES.crds(clusterId);
  const problems = installsCrds
    ? [`cluster ${clusterId} runs EKS Auto Mode (NodePool ${pools.map((p) => p.name).join(', ')}), and the config would install the karpenter.sh CRDs there with Application ${crds}: `
      + 'the config cannot skip that Application yet for a cluster that keeps both (compute: both, docs/auto-mode.md, is a move: it runs an Auto Mode pool <pool>-auto beside each of the config\'s own, which is not what this cluster runs), so adopt does not write it; '
      + 'adopt the cluster once Auto Mode is off, or write it as compute: both or autoMode by hand']
    : [];
  return { notes, problems };
}

/** The name of the NodeClass an Auto Mode NodePool names. */
function nodeClassName(pool: AutoModePool): string {
  const template = pool.spec.template;
  const spec = typeof template === 'object' && template !== null && 'spec' in template ? template.spec : undefined;
  const ref = typeof spec === 'object' && spec !== null && 'nodeClassRef' in spec ? spec.nodeClassRef : undefined;
  return typeof ref === 'object' && ref !== null && 'name' in ref ? String(ref.name) : '(no name)';
}
