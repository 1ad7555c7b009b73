/**
 * The tenancy policy in review (docs/tenancy.md): who gains or loses which pools when a team's
 * namespaces, its pools or the policy change, read back from the generated objects: the
 * policy's `TeamTenancy` parameters (one per team), or, in a tree written by a release before
 * them, the policy's own data variables (literals that are JSON too). The policy, its binding or
 * the parameters' CRD removed opens every pool it guarded, and is flagged as loudly as a removed
 * pool; a parameter removed opens that team's pools.
 */
import type { FieldChange } from './risk';
import type { Body } from './tree';
import { TEAM_TENANCY } from '../model/tenancy';

/** The kinds the tenancy policy is made of (its CRD is a CustomResourceDefinition of {@link TEAM_TENANCY_CRD}). */
const TENANCY_KINDS: ReadonlySet<string> = new Set(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', TEAM_TENANCY.kind]);

/** The name of the parameters' CRD. */
const TEAM_TENANCY_CRD = `${TEAM_TENANCY.plural}.${TEAM_TENANCY.group}`;

/** Whether a resource is part of the tenancy policy: the policy, its binding, a parameter, the parameters' CRD. */
export function isTenancy(r: { readonly kind: string; readonly name: string }): boolean {
  return TENANCY_KINDS.has(r.kind) || (r.kind === 'CustomResourceDefinition' && r.name === TEAM_TENANCY_CRD);
}

/** One guarded pool, as the policy's objects list it. */
export interface Guarded {
  readonly pool: string;
  readonly team: string;
  readonly namespaces: readonly string[];
  readonly dedicated?: boolean;
  /** The labels and taints its nodes carry, as JSON (what its pods are judged by). */
  readonly nodes: string;
}

/**
 * The pools a tenancy object guards, or undefined when it holds none we can read: a
 * `TeamTenancy` parameter's `spec`, or a policy of an earlier release whose variables `pools`,
 * `teams`, `namespaces`, `dedicated`, `labels` and `taints` are literals that are JSON too.
 */
export function guardedPools(kind: string, body: Body): Guarded[] | undefined {
  if (kind === TEAM_TENANCY.kind) {
    const spec = obj(body.spec);
    if (typeof spec.team !== 'string' || !Array.isArray(spec.namespaces) || !Array.isArray(spec.pools)) return undefined;
    const namespaces = (spec.namespaces as unknown[]).map(String);
    return (spec.pools as unknown[]).map(obj).map((p) => ({
      pool: String(p.name), team: spec.team as string, namespaces, dedicated: p.dedicated === true, nodes: JSON.stringify([p.labels ?? {}, p.taints ?? []]),
    }));
  }
  if (kind !== 'ValidatingAdmissionPolicy') return undefined;
  const variables = obj(body.spec).variables;
  const literal = (name: string): unknown => {
    const found = Array.isArray(variables) ? (variables as unknown[]).map(obj).find((v) => v.name === name) : undefined;
    if (typeof found?.expression !== 'string') return undefined;
    try {
      return JSON.parse(found.expression) as unknown;
    } catch {
      return undefined;
    }
  };
  const [pools, teams, namespaces] = [literal('pools'), obj(literal('teams')), obj(literal('namespaces'))];
  if (!Array.isArray(pools)) return undefined;
  const [dedicated, labels, taints] = [obj(literal('dedicated')), obj(literal('labels')), obj(literal('taints'))];
  return pools.filter((p): p is string => typeof p === 'string' && typeof teams[p] === 'string' && Array.isArray(namespaces[p]))
    .map((pool) => ({
      pool, team: teams[pool] as string, namespaces: (namespaces[pool] as unknown[]).map(String), dedicated: dedicated[pool] === true,
      nodes: JSON.stringify([labels[pool] ?? {}, (taints[pool] as Body[] | undefined) ?? []]),
    }));
}

/** Every pool guarded by the given tenancy objects (of one cluster), by pool name. */
export function guardedByPool(resources: Iterable<{ readonly kind: string; readonly body: Body }>): Map<string, Guarded> {
  const out = new Map<string, Guarded>();
  for (const r of resources) for (const g of guardedPools(r.kind, r.body) ?? []) out.set(g.pool, g);
  return out;
}

/** `vision, vision-gpu (team vision); web (team web)`: pools grouped by team. */
function byTeam(pools: readonly Guarded[]): string {
  const teams = new Map<string, string[]>();
  for (const p of pools) teams.set(p.team, [...(teams.get(p.team) ?? []), p.pool]);
  return [...teams].map(([team, names]) => `${names.join(', ')} (team ${team})`).join('; ');
}

/** The risk of a tenancy object removed, and why: the policy, its binding or the CRD open every pool (destructive); a parameter its team's (access). */
export function tenancyRemoval(
  r: { readonly kind: string; readonly body: Body }, guarded: ReadonlyMap<string, Guarded>, kept: ReadonlyMap<string, Guarded>, policyGoes: boolean,
): { risk: 'destructive' | 'access' | 'other'; why: string } {
  if (r.kind === TEAM_TENANCY.kind && policyGoes) return { risk: 'other', why: 'goes with the tenancy policy (see its removal)' };
  if (r.kind === TEAM_TENANCY.kind) {
    const own = guardedPools(r.kind, r.body) ?? [];
    const opened = own.filter((g) => kept.get(g.pool)?.namespaces.join() !== g.namespaces.join());
    if (own.length > 0 && opened.length === 0) return { risk: 'other', why: `who may use pools ${byTeam(own)} is unchanged: another object of the policy holds them` };
    return { risk: 'access', why: `pods of any namespace may use pools ${byTeam(opened.length ? opened : own)} again (they were only for ${(own[0]?.namespaces ?? []).join(', ')})` };
  }
  const pools = [...guarded.values()];
  const which = pools.length > 0 ? `pools ${byTeam(pools)}` : 'every pool the policy guarded';
  const what = r.kind === 'ValidatingAdmissionPolicy' ? 'the tenancy policy goes'
    : r.kind === 'ValidatingAdmissionPolicyBinding' ? 'the tenancy policy\'s binding goes, and the policy refuses nothing without it'
      : 'the CRD of the tenancy policy\'s parameters goes, and every parameter with it';
  return { risk: 'destructive', why: `${what}: pods of any namespace may use ${which} again` };
}

/** The risk of a tenancy object added, and why. */
export function tenancyAddition(r: { readonly kind: string; readonly body: Body }, was: ReadonlyMap<string, Guarded>): { risk: 'access' | 'other'; why: string } {
  if (r.kind === 'ValidatingAdmissionPolicyBinding') {
    const actions = obj(r.body.spec).validationActions;
    return { risk: 'access', why: `the tenancy policy takes effect (${Array.isArray(actions) ? actions.join(', ') : 'no action'}); running pods stay, new pods, DaemonSets and pod templates are checked` };
  }
  if (r.kind === 'CustomResourceDefinition') return { risk: 'other', why: 'the kind of the tenancy policy\'s parameters (TeamTenancy): on its own it refuses nothing' };
  if (r.kind === 'ValidatingAdmissionPolicy') {
    return { risk: 'access', why: 'objects that would use a team\'s pools from outside the team\'s namespaces are refused: pods that tolerate or select them, DaemonSets whose pods can run there, pod templates (see each team\'s TeamTenancy)' };
  }
  const own = guardedPools(r.kind, r.body) ?? [];
  const fresh = own.filter((g) => was.get(g.pool)?.namespaces.join() !== g.namespaces.join());
  if (own.length > 0 && fresh.length === 0) return { risk: 'other', why: `who may use pools ${byTeam(own)} is unchanged (the policy held them before in ${was.size > 0 ? 'its own variables or another parameter' : 'another object'})` };
  const namespaces = own[0]?.namespaces ?? [];
  const before = [...new Set(fresh.flatMap((g) => was.get(g.pool)?.namespaces ?? []))];
  const lost = before.filter((ns) => !namespaces.includes(ns));
  const gained = before.length > 0 ? namespaces.filter((ns) => !before.includes(ns)) : [];
  const moves = [...lost.map((ns) => `namespace ${ns} loses them`), ...gained.map((ns) => `namespace ${ns} gains them`)];
  return { risk: 'access', why: `pools ${byTeam(fresh.length ? fresh : own)} guarded: only namespaces ${namespaces.join(', ')}${moves.length ? ` (${moves.join(', ')})` : ''}` };
}

const WHY = {
  gains: 'objects of this namespace may now tolerate and select these pools',
  loses: 'new pods of this namespace that tolerate or select these pools are refused; pods already running stay until they are replaced',
  guarded: 'the pool was open to every namespace; pods outside these namespaces that tolerate or select it are refused from now on',
  opened: 'pods of any namespace may use the pool again',
  rules: 'what the policy checks changed: see docs/tenancy.md',
  action: 'what the API server does with an object the policy refuses',
} as const;

/** The access changes between two versions of the policy, its binding or a parameter, each its own line. */
export function tenancyFieldChanges(kind: string, before: Body, after: Body): FieldChange[] {
  const out: FieldChange[] = [];
  const add = (text: string, why: string) => out.push({ risk: 'access', text, why });
  if (kind === 'ValidatingAdmissionPolicyBinding') {
    const [a, b] = [obj(before.spec), obj(after.spec)];
    if (JSON.stringify(a.validationActions) !== JSON.stringify(b.validationActions)) {
      add(`validationActions: ${show(a.validationActions)} -> ${show(b.validationActions)}`, WHY.action);
    }
    if (JSON.stringify(omit(a, 'validationActions')) !== JSON.stringify(omit(b, 'validationActions'))) add('binding changed', WHY.rules);
    return out;
  }
  if (kind === 'CustomResourceDefinition') {
    if (JSON.stringify(before.spec) !== JSON.stringify(after.spec)) add('the parameters\' schema changed', WHY.rules);
    return out;
  }
  const [was, now] = [guardedPools(kind, before), guardedPools(kind, after)];
  if (kind === 'ValidatingAdmissionPolicy') {
    if (was !== undefined && now === undefined && obj(after.spec).paramKind !== undefined) {
      add('the policy now reads each team\'s pools from its TeamTenancy parameter, and judges DaemonSets, pod templates and a DaemonSet\'s pods by who created them', WHY.rules);
      return out;
    }
    if (was === undefined && now === undefined) {
      if (JSON.stringify(before.spec) !== JSON.stringify(after.spec)) add('policy rules changed (CEL, match constraints or exempt namespaces)', WHY.rules);
      return out;
    }
  }
  if (was === undefined || now === undefined) {
    add('policy changed', WHY.rules);
    return out;
  }
  out.push(...accessChanges(was, now));
  if (kind === 'ValidatingAdmissionPolicy') {
    // Anything else of a policy of an earlier release (its CEL, what it matches, the exempt namespaces).
    const literals = new Set(['pools', 'teams', 'dedicated', 'labels', 'taints', 'namespaces']);
    const rest = (b: Body) => JSON.stringify({ ...obj(b.spec), variables: (obj(b.spec).variables as Body[] | undefined)?.filter((v) => !literals.has(String(v.name))) });
    if (rest(before) !== rest(after)) add('policy rules changed (CEL, match constraints or exempt namespaces)', WHY.rules);
  }
  return out;
}

/** Per namespace, the pools it gains and loses; pools newly guarded, opened, and whose nodes or dedication changed. */
function accessChanges(was: readonly Guarded[], now: readonly Guarded[]): FieldChange[] {
  const out: FieldChange[] = [];
  const add = (text: string, why: string) => out.push({ risk: 'access', text, why });
  const [wasBy, nowBy] = [new Map(was.map((p) => [p.pool, p])), new Map(now.map((p) => [p.pool, p]))];
  const gains = new Map<string, Guarded[]>();
  const losses = new Map<string, Guarded[]>();
  const push = (m: Map<string, Guarded[]>, ns: string, p: Guarded) => m.set(ns, [...(m.get(ns) ?? []), p]);
  for (const p of now) {
    const old = wasBy.get(p.pool);
    if (!old) continue;
    for (const ns of p.namespaces) if (!old.namespaces.includes(ns)) push(gains, ns, p);
    for (const ns of old.namespaces) if (!p.namespaces.includes(ns)) push(losses, ns, p);
  }
  for (const [ns, pools] of [...losses].sort(([x], [y]) => cmp(x, y))) add(`namespace ${ns} loses pools ${byTeam(pools)}`, WHY.loses);
  for (const [ns, pools] of [...gains].sort(([x], [y]) => cmp(x, y))) add(`namespace ${ns} gains pools ${byTeam(pools)}`, WHY.gains);
  for (const p of now) if (!wasBy.has(p.pool)) add(`pool ${p.pool} (team ${p.team}) guarded: only namespaces ${p.namespaces.join(', ')}`, WHY.guarded);
  for (const p of now) {
    const old = wasBy.get(p.pool);
    if (!old) continue;
    if (old.dedicated !== p.dedicated) {
      add(`pool ${p.pool} (team ${p.team}): ${p.dedicated ? 'dedicated: pods that tolerate its taint are checked' : 'no longer dedicated: only selecting it is checked'}`, WHY.rules);
    }
    // The labels and taints of a pool's nodes decide which objects select it or can run on it.
    if (old.nodes !== p.nodes) add(`pool ${p.pool} (team ${p.team}): the labels or taints its pods are judged by changed`, WHY.rules);
  }
  for (const p of was) if (!nowBy.has(p.pool)) add(`pool ${p.pool} (team ${p.team}) no longer guarded (was: ${p.namespaces.join(', ')})`, WHY.opened);
  return out;
}

function show(v: unknown): string {
  return Array.isArray(v) ? `[${v.join(', ')}]` : JSON.stringify(v);
}

function omit(b: Body, ...keys: string[]): Body {
  return Object.fromEntries(Object.entries(b).filter(([k]) => !keys.includes(k)));
}

function obj(v: unknown): Body {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Body) : {};
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
