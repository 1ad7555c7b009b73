/**
 * What removing a resource does on the cluster: a pool drains, a class stops launching, the
 * tenancy policy opens pools, an Application takes what it deployed with it (or leaves it),
 * and whether Argo CD asks a person first.
 */
import { syncOptions } from './body';
import type { Change } from './change';
import type { ReviewContext } from './context';
import { driftGateRemovalWhy, isDriftGate } from './drift-gate';
import { chartsOf, hasResourcesFinalizer, isControllerApp } from './fields';
import { guardGateRbacWhy, guardGateWhy, isGuardGate, isGuardGateRbac } from './guard-gate';
import type { Risk } from './risk';
import { isTenancy, tenancyRemoval } from './tenancy';
import { FolderIndex, isSmokeTest, Resource, sourcePaths } from './tree';

/** The kinds whose removal drains nodes. */
export const POOL_KINDS: ReadonlySet<string> = new Set(['NodePool', 'EC2NodeClass']);

/**
 * A resource of the base that the head no longer has.
 * @param rename the note of a likely rename, when the resource seems to live on under another name
 */
export function removal(r: Resource, context: ReviewContext, rename?: string): Change {
  const change = (risk: Risk, why: string): Change => ({ risk, resource: r, action: 'removed', fields: [], why });
  const renamed = rename ? `; ${rename}` : '';
  if (r.kind === 'NodePool') return change('destructive', `every node of the pool drains, whatever the disruption budgets say${confirmation(r, context)}${renamed}`);
  if (r.kind === 'EC2NodeClass') {
    const pool = context.basePoolUsing(r);
    const gone = pool && !context.after.has(pool.key) ? `; NodePool ${pool.name} goes with it` : '';
    return change('destructive', `the NodePools using it can no longer launch nodes (Karpenter deletes it once no node uses it)${gone}${renamed}`);
  }
  if (isTenancy(r)) {
    // The policy, its binding or its CRD: as loud as a removed pool, every pool it guarded opens to every namespace.
    const policyGoes = ![...context.after.values()].some((x) => x.cluster === r.cluster && x.kind === 'ValidatingAdmissionPolicy');
    const { risk, why } = tenancyRemoval(r, context.tenancyOf('before', r.cluster), context.tenancyOf('after', r.cluster), policyGoes);
    return change(risk, `${why}${confirmation(r, context)}`);
  }
  if (r.kind === 'Application') return applicationRemoval(r, context);
  if (isDriftGate(r)) return change('other', driftGateRemovalWhy(r, context));
  if (isGuardGate(r)) return change('other', guardGateWhy(r, 'removed'));
  if (isGuardGateRbac(r)) return change('other', guardGateRbacWhy('removed'));
  if (isSmokeTest(r)) return change('other', 'a smoke test: no effect on nodes');
  if (r.kind === 'HelmValues') return change('controller', 'the Karpenter controller loses its values');
  return change('other', 'no effect on nodes');
}

/** `; Argo CD asks a person to confirm (…)` when the object's sync options hold its deletion, else nothing. */
function confirmation(r: Resource, context: ReviewContext): string {
  const option = goesWithItsApplication(r, context) ? 'Delete=confirm' : 'Prune=confirm';
  return syncOptions(r).split(',').map((o) => o.trim()).includes(option) ? `; Argo CD asks a person to confirm (${option})` : '';
}

/**
 * Whether a removed object goes with the Application that synced it: every Application
 * of the base that synced its file is removed too, one of them with the resources
 * finalizer. Argo CD then deletes it as part of deleting that Application, which the
 * object's `Delete=confirm` holds for a person; `Prune=confirm` only holds a prune by an
 * Application that stays (a pool removed from a team that keeps others).
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/#resource-deletion-with-confirmation
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/#resource-pruning-with-confirmation
 */
function goesWithItsApplication(r: Resource, context: ReviewContext): boolean {
  const owners = context.ownersOf(context.base, r.file);
  return owners.length > 0 && owners.every((o) => !context.headVersion(o)) && owners.some((o) => hasResourcesFinalizer(o.body));
}

/**
 * An Application removed: with the resources finalizer, Argo CD deletes everything
 * it deployed (cascading through child Applications); without it, what it deployed stays.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/app_deletion/
 */
function applicationRemoval(app: Resource, context: ReviewContext): Change {
  const paths = sourcePaths(app.body);
  const index = new FolderIndex([{ owner: app, paths }]);
  const deployed = paths.length === 0 ? [] : [...context.base.files.keys()].filter((f) => index.ownersOf(f).length > 0).flatMap((f) => context.base.resourcesIn(f));
  const what = [...chartsOf(app.body).map((c) => `chart ${c}`), ...countKinds(deployed)].join(', ') || 'nothing in this tree';
  const change = (risk: Risk, why: string): Change => ({ risk, resource: app, action: 'removed', fields: [], why });
  if (!hasResourcesFinalizer(app.body)) {
    return change(isControllerApp(app.body) ? 'controller' : 'other', `no resources finalizer: Argo CD removes the Application and keeps what it deployed (${what})`);
  }
  const consequence = finalizerConsequence(app, deployed);
  if (consequence === undefined) return change('other', `its resources finalizer deletes what it deployed (${what}); no node drains`);
  return change('destructive', `its resources finalizer deletes what it deployed (${what}) — ${consequence}`);
}

/** What deleting everything an Application deployed does to nodes and tenancy, or undefined for nothing that matters. */
function finalizerConsequence(app: Resource, deployed: readonly Resource[]): string | undefined {
  if (chartsOf(app.body).some((c) => c.startsWith('karpenter-crd'))) return 'deleting the Karpenter CRDs deletes every NodePool, EC2NodeClass and NodeClaim: every Karpenter node drains';
  if (isControllerApp(app.body)) return 'the Karpenter controller is uninstalled, and nothing launches or replaces nodes until it is back';
  if (deployed.some((d) => POOL_KINDS.has(d.kind))) return 'every node of those pools drains';
  if (deployed.some(isTenancy)) return 'the tenancy policy goes: pods of any namespace may use every team\'s pools again';
  if (deployed.some((d) => d.kind === 'Application')) return 'their finalizers delete what they deployed in turn';
  return undefined;
}

/** `2 NodePools, 1 smoke test`: resources counted by kind, kinds sorted. */
function countKinds(rs: readonly Resource[]): string[] {
  const counts = new Map<string, number>();
  for (const r of rs) {
    const kind = isSmokeTest(r) ? 'smoke test' : r.kind;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([kind, n]) => `${n} ${kind}${n === 1 ? '' : kind.endsWith('s') ? 'es' : 's'}`);
}
