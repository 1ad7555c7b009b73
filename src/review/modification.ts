/**
 * A resource on both sides whose fields changed: one change under the loudest class its
 * fields fall in, and for drift, which NodePools' nodes are replaced and what paces them.
 */
import { driftBudgets } from './body';
import type { Change } from './change';
import type { ReviewContext } from './context';
import { fieldChanges } from './fields';
import { guardGateWhy, isGuardGate } from './guard-gate';
import { FieldChange, Risk, RISKS } from './risk';
import { isSmokeTest, Resource } from './tree';

/**
 * A resource on both sides: one change, under the loudest class its fields fall in, listing
 * every changed field (loudest first) with its own class and why. Drift of a class no
 * NodePool uses replaces no node, so those fields count as `other`.
 */
export function modification(before: Resource, after: Resource, context: ReviewContext): Change[] {
  let fields = loudestFirst(fieldChanges(before, after));
  if (fields.length === 0) return [];
  const drifts = fields.some((f) => f.risk === 'replaces-nodes');
  const pools = !drifts ? [] : after.kind === 'NodePool' ? [after] : context.poolsUsing(after);
  const unused = drifts && pools.length === 0;
  if (unused) fields = loudestFirst(fields.map((f) => (f.risk === 'replaces-nodes' ? { ...f, risk: 'other' as Risk } : f)));
  const risk = fields[0].risk;
  if (risk === 'replaces-nodes') {
    const every = fields.some((f) => f.risk === risk && f.scope === 'every');
    const which = after.kind === 'NodePool' ? 'of the pool' : `of NodePool ${pools.map((p) => p.name).join(', ')}`;
    return [{
      risk, resource: after, action: 'changed', fields,
      why: every ? `Karpenter replaces every node ${which} (drift)` : `Karpenter may replace some nodes ${which}: those that no longer match (drift)`,
      pacedBy: pools.map((p) => `NodePool ${p.name}: ${driftBudgets(p)}`).join('; '),
    }];
  }
  const why = unused && risk === 'other' ? 'no NodePool uses it: no node is replaced' : isGuardGate(after) && risk === 'other' ? guardGateWhy(after, 'changed') : summary(risk, after);
  return [{ risk, resource: after, action: 'changed', fields, why }];
}

/** Fields sorted loudest class first, in their own order within a class. */
function loudestFirst(fields: readonly FieldChange[]): FieldChange[] {
  return fields.map((f, i) => [f, i] as const)
    .sort(([a, i], [b, j]) => RISKS.indexOf(a.risk) - RISKS.indexOf(b.risk) || i - j).map(([f]) => f);
}

/** What a changed resource of a class does, in a few words. */
function summary(risk: Risk, r: Resource): string {
  switch (risk) {
    case 'capacity': return 'no node is replaced: changes how much Karpenter launches, or when it consolidates';
    case 'controller': return 'changes the Karpenter controller (chart version or values)';
    case 'access': return 'changes which namespaces may use which teams\' pools; no node is replaced';
    case 'destructive': return 'deletes nodes';
    case 'replaces-nodes': return 'replaces nodes';
    default: return isSmokeTest(r) ? 'a smoke test: no effect on nodes' : 'no effect on nodes';
  }
}
