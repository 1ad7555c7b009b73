/**
 * The tenancy policy in review (docs/tenancy.md): who gains or loses which pools when a
 * team's namespaces, its pools or the policy change, read back from the generated policy
 * (its `pools` variable is a CEL literal that is JSON too); a policy or binding removed opens
 * every pool it guarded, and is flagged as loudly as a removed pool.
 */
import type { FieldChange } from './risk';
import type { Body } from './tree';
import { TENANCY_DATA } from '../model/tenancy';

/** The two kinds the tenancy policy is made of. */
export const TENANCY_KINDS: ReadonlySet<string> = new Set(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);

/** One guarded pool, as the policy lists it. */
interface Guarded {
  readonly pool: string;
  readonly team: string;
  readonly namespaces: readonly string[];
}

/**
 * The pools a generated policy guards, or undefined when the body is not one (a hand-written
 * policy): its variables `pools`, `teams` and `namespaces` are literals that are JSON too
 * (see tenancyCel in src/model/tenancy.ts).
 */
export function guardedPools(policy: Body): Guarded[] | undefined {
  const variables = obj(policy.spec).variables;
  const literal = (name: string): unknown => {
    const found = Array.isArray(variables) ? (variables as unknown[]).map(obj).find((v) => v.name === name) : undefined;
    if (typeof found?.expression !== 'string') return undefined;
    try {
      return JSON.parse(found.expression) as unknown;
    } catch {
      return undefined;
    }
  };
  const [pools, teams, namespaces] = [literal(TENANCY_DATA.pools), obj(literal(TENANCY_DATA.teams)), obj(literal(TENANCY_DATA.namespaces))];
  if (!Array.isArray(pools)) return undefined;
  return pools.filter((p): p is string => typeof p === 'string' && typeof teams[p] === 'string' && Array.isArray(namespaces[p]))
    .map((pool) => ({ pool, team: teams[pool] as string, namespaces: (namespaces[pool] as unknown[]).map(String) }));
}

/** `vision, vision-gpu (team vision); web (team web)`: pools grouped by team. */
function byTeam(pools: readonly Guarded[]): string {
  const teams = new Map<string, string[]>();
  for (const p of pools) teams.set(p.team, [...(teams.get(p.team) ?? []), p.pool]);
  return [...teams].map(([team, names]) => `${names.join(', ')} (team ${team})`).join('; ');
}

/** Why removing the policy or its binding matters: the pools it guarded, open to every namespace. */
export function tenancyRemovalWhy(r: { readonly kind: string; readonly body: Body }, policy: Body | undefined): string {
  const pools = policy ? guardedPools(policy) : undefined;
  const which = pools && pools.length > 0 ? `pools ${byTeam(pools)}` : 'every pool the policy guarded';
  const what = r.kind === 'ValidatingAdmissionPolicy' ? 'the tenancy policy goes' : 'the tenancy policy\'s binding goes, and the policy refuses nothing without it';
  return `${what}: pods of any namespace may use ${which} again`;
}

/** Why adding the policy or its binding matters. */
export function tenancyAdditionWhy(r: { readonly kind: string; readonly body: Body }): string {
  if (r.kind === 'ValidatingAdmissionPolicyBinding') {
    const actions = obj(r.body.spec).validationActions;
    return `the tenancy policy takes effect (${Array.isArray(actions) ? actions.join(', ') : 'no action'}); running pods stay, new pods are checked`;
  }
  const pools = guardedPools(r.body) ?? [];
  const guarded = pools.map((p) => `${p.pool} (team ${p.team}): ${p.namespaces.join(', ')}`).join('; ');
  return `pods that tolerate or select a team's pool are refused outside the team's namespaces: ${guarded || 'no pool'}`;
}

const WHY = {
  gains: 'pods of this namespace may now tolerate and select these pools',
  loses: 'new pods of this namespace that tolerate or select these pools are refused; pods already running stay until they are replaced',
  guarded: 'the pool was open to every namespace; pods outside these namespaces that tolerate or select it are refused from now on',
  opened: 'pods of any namespace may use the pool again',
  rules: 'what the policy checks changed: see docs/tenancy.md',
  action: 'what the API server does with a pod the policy refuses',
} as const;

/** The access changes between two versions of the policy or of its binding, each its own line. */
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
  const [was, now] = [guardedPools(before), guardedPools(after)];
  if (was === undefined || now === undefined) {
    add('policy changed', WHY.rules);
    return out;
  }
  const [wasBy, nowBy] = [new Map(was.map((p) => [p.pool, p])), new Map(now.map((p) => [p.pool, p]))];
  // Per namespace, the pools it gains and loses (of pools guarded on both sides).
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
  const data = (b: Body, name: string): Record<string, unknown> => {
    const v = ((obj(b.spec).variables as Body[] | undefined) ?? []).find((x) => x.name === name);
    try {
      return obj(JSON.parse(String(v?.expression)));
    } catch {
      return {};
    }
  };
  const [dedicatedBefore, dedicatedAfter] = [data(before, 'dedicated'), data(after, 'dedicated')];
  for (const p of now) {
    if (!wasBy.has(p.pool) || dedicatedBefore[p.pool] === dedicatedAfter[p.pool]) continue;
    add(`pool ${p.pool} (team ${p.team}): ${dedicatedAfter[p.pool] === true ? 'dedicated: pods that tolerate its taint are checked' : 'no longer dedicated: only selecting it is checked'}`, WHY.rules);
  }
  // The labels and taints of a pool's nodes decide which pods select it or can run on it.
  const nodes = (b: Body, pool: string) => JSON.stringify([data(b, TENANCY_DATA.labels)[pool], data(b, TENANCY_DATA.taints)[pool]]);
  for (const p of now) {
    if (wasBy.has(p.pool) && nodes(before, p.pool) !== nodes(after, p.pool)) add(`pool ${p.pool} (team ${p.team}): the labels or taints its pods are judged by changed`, WHY.rules);
  }
  for (const p of was) if (!nowBy.has(p.pool)) add(`pool ${p.pool} (team ${p.team}) no longer guarded (was: ${p.namespaces.join(', ')})`, WHY.opened);
  // Anything else of the policy (its CEL, what it matches, the exempt namespaces).
  const literals = new Set<string>(Object.values(TENANCY_DATA));
  const rest = (b: Body) => JSON.stringify({ ...obj(b.spec), variables: (obj(b.spec).variables as Body[] | undefined)?.filter((v) => !literals.has(String(v.name))) });
  if (rest(before) !== rest(after)) add('policy rules changed (CEL, match constraints or exempt namespaces)', WHY.rules);
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
