/**
 * A guard gate's hook Job in review (docs/tenancy.md, "Delivery"): the PreSync hook of a guarded
 * team's pools Application. Argo CD never compares a hook, so a change to it alone syncs nothing:
 * it runs as written at the next sync of the team's pools, and holds them until the policy guards
 * them as the commit has them. It touches no node.
 */
import { obj } from './body';
import type { FieldChange } from './risk';
import { Body, labelsOf, Resource } from './tree';

/** A guard gate's Job (its `app.kubernetes.io/component` label). */
export function isGuardGate(r: Resource): boolean {
  return r.kind === 'Job' && labelsOf(r.body)['app.kubernetes.io/component'] === 'guard-gate';
}

/** What the guard gates run as: their ServiceAccount, ClusterRole or ClusterRoleBinding, in the policies folder. */
export function isGuardGateRbac(r: Resource): boolean {
  return ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding'].includes(r.kind) && labelsOf(r.body)['app.kubernetes.io/component'] === 'guard-gate';
}

/** The guard gates' RBAC added or removed: it only reads. */
export function guardGateRbacWhy(action: 'added' | 'removed'): string {
  return action === 'added'
    ? 'what the guard gates run as: it may only get and list the tenancy policies and their bindings; no effect on nodes'
    : 'goes with the last guarded team: no guard gate runs any more; no effect on nodes';
}

/** A guard gate's container: its image and its `GUARD` spec (empty when it cannot be read: a hand-edited gate). */
function gateOf(body: Body): { readonly image: string; readonly program: string; readonly spec: Body } {
  const containers = obj(obj(obj(body.spec).template).spec).containers;
  const container = obj(Array.isArray(containers) ? containers[0] : undefined);
  const env = (Array.isArray(container.env) ? container.env : []).map(obj);
  const guard = env.find((e) => e.name === 'GUARD');
  let spec: Body = {};
  try {
    spec = obj(JSON.parse(typeof guard?.value === 'string' ? guard.value : '{}'));
  } catch {
    // A hand-edited gate: nothing of its spec to compare.
  }
  const command = Array.isArray(container.command) ? container.command : [];
  return { image: String(container.image ?? ''), program: String(command[2] ?? ''), spec };
}

/** The team a guard gate holds the pools of; its name when its spec cannot be read. */
function teamOf(r: Resource): string {
  const team = gateOf(r.body).spec.team;
  return typeof team === 'string' ? team : r.name;
}

/** A guard gate added, changed or removed: what it does, and when. */
export function guardGateWhy(r: Resource, action: 'added' | 'changed' | 'removed'): string {
  const team = teamOf(r);
  if (action === 'removed') return `team ${team}'s pools are no longer held for their tenancy policy (it no longer guards them): no node is touched`;
  const what = action === 'added' ? `the guard gate of team ${team}'s pools: a PreSync hook that holds` : `the guard gate of team ${team}'s pools, the PreSync hook that holds`;
  return `${what} every sync of them until the tenancy policy guards them as the commit has them; it runs at their next sync (a hook alone syncs nothing) and touches no node`;
}

/** What a reviewer reads for each field of the gate's `GUARD` spec that changed (the cluster and its policies Application never change alone). */
const GUARD_FIELDS: Readonly<Record<string, string>> = {
  digest: 'the pools it waits to see guarded (their guard digest)',
  parts: 'how many policy objects hold them',
  policySelector: 'how it finds the policies',
  settleSeconds: 'how long it settles',
  pollSeconds: 'how often it looks',
};

/**
 * A guard gate's changes as a reviewer reads them: what it waits for (from its `GUARD` spec), its
 * image, its program, anything else of the Job. None of them touches a node.
 */
export function guardGateFieldChanges(before: Body, after: Body): FieldChange[] {
  const [a, b] = [gateOf(before), gateOf(after)];
  const why = 'a hook: it runs at the next sync of the team\'s pools, no node is touched';
  const fields: FieldChange[] = Object.entries(GUARD_FIELDS).filter(([k]) => JSON.stringify(a.spec[k]) !== JSON.stringify(b.spec[k]))
    .map(([k, text]) => ({ risk: 'other', text: `${text}: ${String(a.spec[k] ?? '(none)')} -> ${String(b.spec[k] ?? '(none)')}`, why }));
  if (a.image !== b.image) fields.push({ risk: 'other', text: `image ${a.image} -> ${b.image}`, why });
  if (a.program !== b.program) fields.push({ risk: 'other', text: 'its program (src/gate/guard-main.ts)', why });
  if (fields.length === 0 && JSON.stringify(before) !== JSON.stringify(after)) fields.push({ risk: 'other', text: 'its Job', why });
  return fields;
}
