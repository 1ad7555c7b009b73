/**
 * Likely renames: a pool (or its team) renamed deletes the old NodePool and EC2NodeClass and
 * creates new ones, which a reviewer should see as one move, not as an unrelated removal.
 */
import { nodeClassOf, obj } from './body';
import { Body, labelsOf, Resource } from './tree';

/**
 * A NodePool removed and one added in the same cluster with the same spec apart
 * from its name and team is likely a rename (of the pool, or of its team); their
 * EC2NodeClasses are renamed with them. Both sides get a note.
 */
export function likelyRenames(removed: readonly Resource[], added: readonly Resource[]): Map<Resource, string> {
  const notes = new Map<Resource, string>();
  const pairs = pairUp(removed.filter((r) => r.kind === 'NodePool'), added.filter((r) => r.kind === 'NodePool'));
  const classes = (rs: readonly Resource[]) => new Map(rs.filter((r) => r.kind === 'EC2NodeClass').map((r) => [`${r.cluster}\0${r.name}`, r]));
  const [removedClasses, addedClasses] = [classes(removed), classes(added)];
  const poolOfClass = new Map(removed.filter((r) => r.kind === 'NodePool').map((p) => [`${p.cluster}\0${nodeClassOf(p)}`, p]));
  for (const [old, { to, others }] of pairs) {
    note(old, to, others);
    const [oldClass, newClass] = [removedClasses.get(`${old.cluster}\0${nodeClassOf(old)}`), addedClasses.get(`${to.cluster}\0${nodeClassOf(to)}`)];
    if (oldClass && newClass && signature(oldClass) === signature(newClass)) note(oldClass, newClass, []);
  }
  // A class removed without its NodePool: matched on its own.
  const alone = [...removedClasses.values()].filter((c) => !poolOfClass.has(`${c.cluster}\0${c.name}`));
  for (const [old, { to, others }] of pairUp(alone, [...addedClasses.values()])) note(old, to, others);
  return notes;

  function note(old: Resource, to: Resource, others: readonly Resource[]): void {
    const [team, newTeam] = [labelsOf(old.body).team, labelsOf(to.body).team];
    const teamNote = newTeam !== undefined && newTeam !== team ? ` of team ${newTeam} (team ${team} renamed?)` : '';
    const more = others.length ? ` (or ${others.slice(0, 3).map((m) => m.name).join(', ')}${others.length > 3 ? ', ...' : ''})` : '';
    notes.set(old, `likely renamed to ${to.name}${teamNote}${more}: a rename deletes the old ${old.kind} and creates a new one`);
    if (!notes.has(to)) notes.set(to, `likely the new name of ${old.name}${teamNote}`);
  }
}

/** Each removed resource with the added one of the same signature (the same team first), and the other candidates. */
function pairUp(removed: readonly Resource[], added: readonly Resource[]): Map<Resource, { to: Resource; others: Resource[] }> {
  const bySignature = new Map<string, Resource[]>();
  for (const r of added) {
    const sig = signature(r);
    bySignature.set(sig, [...(bySignature.get(sig) ?? []), r]);
  }
  const out = new Map<Resource, { to: Resource; others: Resource[] }>();
  for (const r of removed) {
    const matches = bySignature.get(signature(r)) ?? [];
    if (matches.length === 0) continue;
    const to = matches.find((m) => labelsOf(m.body).team === labelsOf(r.body).team) ?? matches[0];
    out.set(r, { to, others: matches.filter((m) => m !== to) });
  }
  return out;
}

/**
 * A resource's body with its own name and its team replaced by one placeholder, as
 * canonical JSON: a pool `web` that becomes `web-v2` of team `web`, or `ml-gpu` that
 * becomes `ai-gpu` of team `ai`, keeps its signature.
 */
function signature(r: Resource): string {
  const team = labelsOf(r.body).team;
  const own = (v: string) => v === r.name || (team !== undefined && v === team);
  const swap = (v: unknown): unknown => {
    if (typeof v === 'string') return v.split('/').map((part) => (own(part) ? '\0' : part)).join('/');
    if (Array.isArray(v)) return v.map(swap);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, swap((v as Body)[k])]));
    return v;
  };
  return `${r.cluster}\0${r.kind}\0${JSON.stringify(swap({ ...r.body, metadata: { ...obj(r.body.metadata), name: undefined } }))}`;
}
