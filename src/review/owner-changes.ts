/**
 * Resources whose Argo CD Application changes while they stay: the old Application may prune
 * them before the new one adopts them.
 */
import { syncOptions } from './body';
import type { Change } from './change';
import type { ReviewContext } from './context';
import { prunes } from './fields';
import { POOL_KINDS } from './removal';
import { FieldChange, RISKS } from './risk';
import { FolderIndex, Resource, sourcePaths } from './tree';

/**
 * Resources whose Application changes while they stay: a file moved to another
 * folder (pools moving to per-team folders), or an Application added, removed or
 * pointed elsewhere. The old Application matters: if it still prunes, Argo CD may
 * delete the resource before the new one adopts it.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/auto_sync/#automatic-pruning
 */
export function ownerChanges(context: ReviewContext): Change[] {
  const out: Change[] = [];
  for (const [b, a] of movedOrRepointed(context).values()) {
    const was = context.ownersOf(context.base, b.file);
    const now = context.ownersOf(context.head, a.file);
    const names = (apps: Resource[]) => apps.map((x) => x.name).sort();
    if (names(was).join() === names(now).join()) continue;
    const who = (apps: Resource[]) => (apps.length ? `Application ${names(apps).join(', ')}` : 'no Application');
    const text = `synced by ${who(now)} (before: ${who(was)})`;
    const nowNames = new Set(names(now));
    const lost = was.filter((o) => !nowNames.has(o.name));
    const adopter = now.length ? `Application ${names(now).join(', ')} adopts it` : 'no Application syncs it any more: Argo CD leaves it as it is';
    // An Application removed with nothing taking over: its own line says what becomes of what it deployed.
    if (now.length === 0 && lost.every((o) => !context.headVersion(o))) continue;
    const fields = lost.length === 0 ? [{ risk: 'other' as const, text, why: adopter }] : lost.map((o) => ownerLoss(o, a, { text, adopter }, context));
    const risk = RISKS.find((r) => fields.some((f) => f.risk === r)) ?? 'other';
    out.push({ risk, resource: a, action: 'changed', fields, why: risk === 'destructive' ? fields.find((f) => f.risk === 'destructive')?.why ?? '' : adopter });
  }
  return out;
}

/**
 * Resources on both sides, base and head version by key, whose Application may have changed:
 * those whose file moved, and those in the folders of an Application added, removed or repointed.
 */
function movedOrRepointed(context: ReviewContext): Map<string, [Resource, Resource]> {
  const { base, head, before, after } = context;
  const candidates = new Map<string, [Resource, Resource]>();
  for (const a of after.values()) {
    const b = before.get(a.key);
    if (b && b.file !== a.file) candidates.set(a.key, [b, a]);
  }
  const repointed = [...new Set([...before.keys(), ...after.keys()])]
    .map((k) => [before.get(k), after.get(k)] as const)
    .filter(([b, a]) => (b ?? a)?.kind === 'Application' && JSON.stringify(b && sourcePaths(b.body)) !== JSON.stringify(a && sourcePaths(a.body)));
  if (repointed.length > 0) {
    const index = new FolderIndex(repointed.map(([b, a]) => ({ owner: true, paths: [...(b ? sourcePaths(b.body) : []), ...(a ? sourcePaths(a.body) : [])] })));
    const files = new Set([...base.files.keys(), ...head.files.keys()].filter((f) => index.ownersOf(f).length > 0));
    const inBase = new Map([...files].flatMap((f) => base.resourcesIn(f)).map((r) => [r.key, r]));
    for (const a of [...files].flatMap((f) => head.resourcesIn(f))) {
      const b = inBase.get(a.key);
      if (b) candidates.set(a.key, [b, a]);
    }
  }
  return candidates;
}

/** What losing one old Application does to a resource another now syncs (or none does). */
function ownerLoss(old: Resource, r: Resource, { text, adopter }: { readonly text: string; readonly adopter: string }, context: ReviewContext): FieldChange {
  const current = context.headVersion(old);
  if (!current) return { risk: 'other', text, why: `Application ${old.name} is removed (see its own line); ${adopter}` };
  if (!prunes(current.body)) return { risk: 'other', text, why: `Application ${old.name} does not prune: it leaves the object alone, and ${adopter}` };
  const drains = POOL_KINDS.has(r.kind);
  const why = `Application ${old.name} still prunes and no longer holds it: Argo CD may delete it before the new Application adopts it`
    + `${drains ? ', and every node of the pool drains' : ''}${/Prune=confirm/.test(syncOptions(r)) ? ' (Prune=confirm asks a person first)' : ''}`
    + `; turn off prune on ${old.name} for this release`;
  return { risk: drains ? 'destructive' : 'other', text, why };
}
