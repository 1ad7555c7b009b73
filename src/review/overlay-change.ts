/** A NodeOverlay in review: which NodePools see other prices or capacity through it. */
import { list, obj } from './body';
import type { Change } from './change';
import type { ReviewContext } from './context';
import type { Resource } from './tree';
import { catalogMatcher } from '../catalog/match';
import type { NodeSelectorRequirement } from '../catalog/requirements';

/**
 * A NodeOverlay added, changed or removed: it replaces no node, but changes the price or
 * capacity Karpenter sees for the instance types it picks, and so what consolidation and new
 * launches choose. The change names the head NodePools of its cluster that admit one of those
 * types (before or after the change), by the catalog's requirement semantics.
 * @see https://karpenter.sh/docs/concepts/nodeoverlays/
 */
export function overlayChange(c: Change, context: ReviewContext): Change {
  const before = context.before.get(c.resource.key);
  const after = context.after.get(c.resource.key);
  const matcher = catalogMatcher();
  const picked = new Set([before, after].flatMap((o) => (o ? matcher.match(overlayRequirements(o)).admitted.map((t) => t.name) : [])));
  const poolNames = new Set([before, after].flatMap((o) => (o ? overlayRequirements(o) : []))
    .filter((r) => r.key === 'karpenter.sh/nodepool' && r.operator === 'In').flatMap((r) => r.values ?? []));
  const pools = context.headPools(c.resource.cluster).filter((p) => (poolNames.size === 0 || poolNames.has(p.name))
    && matcher.match(list<NodeSelectorRequirement>(obj(obj(obj(p.body.spec).template).spec).requirements)).admitted.some((t) => picked.has(t.name)));
  const which = pools.length ? `NodePool ${pools.map((p) => p.name).join(', ')}` : 'no NodePool of the cluster';
  return {
    ...c,
    risk: pools.length ? 'capacity' : 'other',
    why: `changes the prices or capacity Karpenter sees for ${which}: no node is replaced, but consolidation and new launches may pick other instance types`,
  };
}

function overlayRequirements(o: Resource): NodeSelectorRequirement[] {
  return list<NodeSelectorRequirement>(obj(o.body.spec).requirements);
}
