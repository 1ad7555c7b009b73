/** A cluster's Kubernetes upgrade in review: the pools whose AMI alias re-resolves, and so drift. */
import { driftBudgets, nodeClassOf, obj } from './body';
import type { Change } from './change';
import type { ReviewContext } from './context';
import { atLeast, FieldChange, RISKS } from './risk';
import { summaryDataOf } from './summary-data';
import type { GeneratedTree, Resource } from './tree';
import { clusterOfPath } from '../output/layout';

/**
 * A cluster whose Kubernetes version changes: every AMI alias of it resolves through the SSM
 * parameter of its Kubernetes version, so once the control plane runs the new version every
 * node of a pool whose EC2NodeClass selects by alias drifts (AMIDrift). Pinned AMI ids do not
 * re-resolve. Each such pool gets the field, merged into its own entry when it has one.
 * @see https://karpenter.sh/docs/concepts/nodeclasses/#specamiselectorterms (alias resolution through SSM)
 * @see https://karpenter.sh/docs/concepts/disruption/#drift
 */
export function withKubernetesUpgrades(changes: Change[], context: ReviewContext): Change[] {
  const was = kubernetesVersions(context.base);
  const now = kubernetesVersions(context.head);
  const out = [...changes];
  for (const [cluster, to] of now) {
    const from = was.get(cluster);
    // Kubernetes minors ("1.33") are compared as the summary data writes them, one spelling each.
    if (from === undefined || from === to) continue;
    for (const { pool, nodeClass, aliases } of aliasedPools(cluster, context)) {
      const field: FieldChange = {
        risk: 'replaces-nodes', scope: 'every',
        text: `Kubernetes ${from} -> ${to}: AMI alias ${aliases.join(', ')} (EC2NodeClass ${nodeClass}) re-resolves for ${to}`,
        why: `an alias resolves through the SSM parameter of the cluster's Kubernetes version: once the control plane runs ${to}, every node of the pool drifts (AMIDrift) and is replaced; `
          + `order: 1. pin AMIs that exist for both ${from} and ${to} (synth checks the pins against ${to}) and let Argo CD sync them, 2. upgrade the control plane, 3. Karpenter replaces the nodes, paced by the budgets`,
      };
      const i = out.findIndex((c) => c.resource.key === pool.key && c.action === 'changed');
      const merged = withField(i >= 0 ? out[i] : undefined, pool, field, `Karpenter replaces every node of the pool once the control plane runs Kubernetes ${to} (AMI drift)`);
      if (i >= 0) out[i] = merged;
      else out.push(merged);
    }
  }
  return out;
}

/** The head NodePools of a cluster (but those this change adds) whose EC2NodeClass selects AMIs by alias. */
function aliasedPools(cluster: string, context: ReviewContext): { pool: Resource; nodeClass: string; aliases: string[] }[] {
  const files = [...context.head.files.keys()].filter((f) => clusterOfPath(f) === cluster && f.endsWith('.yaml'));
  const all = files.filter((f) => /EC2NodeClass|NodePool/.test(context.head.files.get(f) ?? '')).flatMap((f) => context.head.resourcesIn(f));
  const aliases = new Map<string, string[]>();
  for (const c of all) {
    if (c.kind !== 'EC2NodeClass') continue;
    const terms = obj(c.body.spec).amiSelectorTerms;
    const found = (Array.isArray(terms) ? terms : []).map((t) => obj(t).alias).filter((a): a is string => typeof a === 'string');
    if (found.length) aliases.set(c.name, found);
  }
  return all.flatMap((pool) => {
    // A pool this change adds has its own entry, and no node yet to replace.
    if (pool.kind !== 'NodePool' || (context.after.has(pool.key) && !context.before.has(pool.key))) return [];
    const nodeClass = nodeClassOf(pool);
    const alias = nodeClass !== undefined ? aliases.get(nodeClass) : undefined;
    return nodeClass !== undefined && alias ? [{ pool, nodeClass, aliases: alias }] : [];
  });
}

/** A pool's change with the Kubernetes field added (loudest first), or a new change of the pool with it alone. */
function withField(existing: Change | undefined, pool: Resource, field: FieldChange, why: string): Change {
  const pacedBy = `NodePool ${pool.name}: ${driftBudgets(pool)}`;
  if (!existing) return { risk: 'replaces-nodes', resource: pool, action: 'changed', fields: [field], why, pacedBy };
  const louder = atLeast(existing.risk, 'replaces-nodes');
  return {
    ...existing,
    risk: louder ? existing.risk : 'replaces-nodes',
    fields: [field, ...existing.fields].sort((a, b) => RISKS.indexOf(a.risk) - RISKS.indexOf(b.risk)),
    why: louder ? existing.why : why,
    pacedBy: existing.pacedBy ?? pacedBy,
  };
}

/** Each cluster's Kubernetes minor version, as a tree's summary data states it (`dist/summary.json`; none without it). */
function kubernetesVersions(tree: GeneratedTree): Map<string, string> {
  const read = summaryDataOf(tree);
  if (!('data' in read)) return new Map();
  return new Map(read.data.clusters.flatMap((c) => (c.kubernetesVersion !== null ? [[c.id, c.kubernetesVersion] as [string, string]] : [])));
}
