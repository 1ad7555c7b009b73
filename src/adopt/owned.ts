/**
 * Whether an export is the cluster's: the values its Terraform outputs own, as a running
 * EC2NodeClass says them, must be the outputs' (docs/adopting.md, "An export of another cluster").
 * An export taken with the wrong kube-context names another cluster's node role and discovery
 * tags; adopted, every node class would drift to that cluster's role and subnets at the first
 * sync. Owned: the node role (`karpenter_node_role_name`) and the cluster's name (`cluster_name`)
 * wherever Karpenter's and EKS's conventions put it: the `karpenter.sh/discovery` tag of
 * subnet, security group and capacity reservation selector terms, and the `karpenter.sh/discovery`,
 * `eks:eks-cluster-name` and `kubernetes.io/cluster/<name>` tags.
 * @see https://karpenter.sh/docs/concepts/nodeclasses/ (subnetSelectorTerms, role, tags)
 */
import type { TerraformOutputs } from '../config/terraform';
import type { FieldPath, Problem } from '../input/problems';
import { isObject, LiveExport, LiveObject } from './live';

/** Tag keys whose value is the cluster's name. */
const CLUSTER_NAME_TAGS: readonly string[] = ['karpenter.sh/discovery', 'eks:eks-cluster-name'];
/** Tag keys that carry the cluster's name in the key itself. */
const CLUSTER_TAG_PREFIX = 'kubernetes.io/cluster/';
/** Selector terms whose tags may name the cluster. */
const TERMS = ['subnetSelectorTerms', 'securityGroupSelectorTerms', 'capacityReservationSelectorTerms'] as const;

/**
 * Every value of the export that a Terraform output of the cluster owns and that differs from
 * it, located at the export's line: the object, the field, the export's value and the output's.
 */
export function notTheClusters(live: LiveExport, tf: TerraformOutputs): Problem[] {
  return live.nodeClasses.flatMap((c) => classMismatches(c, tf));
}

function classMismatches(nodeClass: LiveObject, tf: TerraformOutputs): Problem[] {
  const out: Problem[] = [];
  const spec = nodeClass.spec;
  const differ = (path: FieldPath, given: string, output: string, want: string) => out.push(nodeClass.source.problem([...nodeClass.at, ...path],
    `EC2NodeClass ${nodeClass.name}: the export says ${JSON.stringify(given)}, the Terraform output ${output} of this cluster ${JSON.stringify(want)}: `
    + 'is the export of another cluster (kubectl --context)? Export this cluster\'s objects, or point the outputs at what runs'));
  if (typeof spec.role === 'string' && spec.role !== tf.nodeRoleName) differ(['spec', 'role'], spec.role, 'karpenter_node_role_name', tf.nodeRoleName);
  const tags = (path: FieldPath, value: unknown) => {
    if (!isObject(value)) return;
    for (const [key, v] of Object.entries(value)) {
      if (CLUSTER_NAME_TAGS.includes(key) && typeof v === 'string' && v !== '*' && v !== tf.clusterName) differ([...path, key], v, 'cluster_name', tf.clusterName);
      if (key.startsWith(CLUSTER_TAG_PREFIX) && key !== `${CLUSTER_TAG_PREFIX}${tf.clusterName}`) differ([...path, key], key, 'cluster_name', `${CLUSTER_TAG_PREFIX}${tf.clusterName}`);
    }
  };
  for (const key of TERMS) {
    const terms = spec[key];
    if (Array.isArray(terms)) terms.forEach((term, i) => tags(['spec', key, i, 'tags'], isObject(term) ? term.tags : undefined));
  }
  tags(['spec', 'tags'], spec.tags);
  return out;
}
