/**
 * A guard gate's hook Job in review (docs/tenancy.md, "Delivery"): the PreSync hook of a guarded
 * team's pools Application. Argo CD never compares a hook, so a change to it alone syncs nothing:
 * it runs as written at the next sync of the team's pools, and holds them until the policy guards
 * them as the commit has them. It touches no node.
 */
import { obj } from './body';
import { labelsOf, Resource } from './tree';

/** A guard gate's Job (its `app.kubernetes.io/component` label). */
export function isGuardGate(r: Resource): boolean {
  return r.kind === 'Job' && labelsOf(r.body)['app.kubernetes.io/component'] === 'guard-gate';
}

/** The team a guard gate holds the pools of, from its `GUARD` spec; its name when that cannot be read (a hand-edited gate). */
function teamOf(r: Resource): string {
  const containers = obj(obj(obj(r.body.spec).template).spec).containers;
  const env = obj(Array.isArray(containers) ? containers[0] : undefined).env;
  const guard = (Array.isArray(env) ? env : []).map(obj).find((e) => e.name === 'GUARD');
  try {
    const team = obj(JSON.parse(typeof guard?.value === 'string' ? guard.value : '{}')).team;
    return typeof team === 'string' ? team : r.name;
  } catch {
    return r.name;
  }
}

/** A guard gate added, changed or removed: what it does, and when. */
export function guardGateWhy(r: Resource, action: 'added' | 'changed' | 'removed'): string {
  const team = teamOf(r);
  if (action === 'removed') return `team ${team}'s pools are no longer held for their tenancy policy (it no longer guards them): no node is touched`;
  const what = action === 'added' ? `the guard gate of team ${team}'s pools: a PreSync hook` : `changes the guard gate of team ${team}'s pools, which`;
  return `${what} that holds every sync of them until the tenancy policy guards them as the commit has them; it runs at their next sync (a hook alone syncs nothing) and touches no node`;
}
