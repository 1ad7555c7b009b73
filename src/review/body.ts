/**
 * The few fields of generated objects the review reads beyond their diff: a NodePool's
 * EC2NodeClass and drift budgets, an object's Argo CD sync options. Tolerant of any shape:
 * the base side may be a hand edit.
 */
import type { Body, Resource } from './tree';

/** A value as a map, or an empty one when it is not a map. */
export function obj(v: unknown): Body {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Body) : {};
}

/** A value as a list, or an empty one when it is not a list. */
export function list<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** The EC2NodeClass a NodePool's template names. */
export function nodeClassOf(pool: Resource): string | undefined {
  const name = obj(obj(obj(obj(pool.body.spec).template).spec).nodeClassRef).name;
  return typeof name === 'string' ? name : undefined;
}

/** An object's `argocd.argoproj.io/sync-options` annotation (`Prune=confirm,Delete=confirm`). */
export function syncOptions(r: Resource): string {
  return String(obj(obj(r.body.metadata).annotations)['argocd.argoproj.io/sync-options'] ?? '');
}

/**
 * The disruption budgets of a NodePool that apply to drift (those without reasons, or with `Drifted`).
 * @see https://karpenter.sh/docs/concepts/disruption/#disruption-budgets
 */
export function driftBudgets(pool: Resource): string {
  type Budget = { nodes: string; schedule?: string; duration?: string; reasons?: string[] };
  const all = (obj(obj(pool.body.spec).disruption).budgets as Budget[] | undefined) ?? [{ nodes: '10%' }];
  const paced = all.filter((b) => !b.reasons || b.reasons.includes('Drifted'));
  if (paced.length === 0) return 'no budget limits drift';
  return paced.map((b) => (b.schedule ? `${b.nodes} at a time during "${b.schedule}" (UTC) for ${b.duration}` : `${b.nodes} at a time`)).join(', ');
}
