/**
 * The tenancy policy in review (docs/tenancy.md): who gains or loses which pools when a team's
 * namespaces, its pools or the policy change, read back from the generated objects: the
 * policies' own data variables (literals that are JSON too: the parts of today, and the single
 * policy of an earlier release), or a `TeamTenancy` parameter of the release that had them. A
 * part is named after its content, so every change replaces parts: a part removed whose pools
 * another part holds with the same namespaces opens nothing; the whole set removed opens every
 * pool it guarded, and is flagged as loudly as a removed pool.
 */
import type { FieldChange } from './risk';
import { resourceKey, type Body, type Resource } from './tree';
import { TENANCY_POLICY_NAME } from '../model/tenancy';

/** The parameter kind of the release before the parts (its objects are only ever removed now). */
const LEGACY_PARAM_KIND = 'TeamTenancy';
/** The name of that release's parameters' CRD. */
const LEGACY_PARAM_CRD = 'teamtenancies.karpenter-gitops.io';
/** The kinds the tenancy policy is made of. */
const TENANCY_KINDS: ReadonlySet<string> = new Set(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', LEGACY_PARAM_KIND]);

/** Whether a resource is part of the tenancy policy: a policy, a binding, or an earlier release's parameter or its CRD. */
export function isTenancy(r: { readonly kind: string; readonly name: string }): boolean {
  return TENANCY_KINDS.has(r.kind) || (r.kind === 'CustomResourceDefinition' && r.name === LEGACY_PARAM_CRD);
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
  if (kind === LEGACY_PARAM_KIND) {
    const spec = obj(body.spec);
    if (typeof spec.team !== 'string' || !Array.isArray(spec.namespaces) || !Array.isArray(spec.pools)) return undefined;
    const namespaces = list(spec.namespaces).map(String);
    return list(spec.pools).map(obj).map((p) => ({
      pool: String(p.name), team: String(spec.team), namespaces, dedicated: p.dedicated === true, nodes: JSON.stringify([p.labels ?? {}, p.taints ?? []]),
    }));
  }
  if (kind !== 'ValidatingAdmissionPolicy') return undefined;
  const variables = obj(body.spec).variables;
  const literal = (name: string): unknown => {
    const found = list(variables).map(obj).find((v) => v.name === name);
    if (typeof found?.expression !== 'string') return undefined;
    try {
      return parseJson(found.expression);
    } catch {
      return undefined;
    }
  };
  const [pools, teams, namespaces] = [literal('pools'), obj(literal('teams')), obj(literal('namespaces'))];
  if (!Array.isArray(pools)) return undefined;
  const [dedicated, labels, taints, taintIds, taintSet] = [obj(literal('dedicated')), obj(literal('labels')), obj(literal('taints')), obj(literal('taintIds')), literal('taintSet')];
  // Namespaces by pool (an earlier release) or by team (the parts); taints by pool, or by index into the part's distinct taints.
  const namespacesOf = (pool: string): unknown => namespaces[pool] ?? namespaces[String(teams[pool])];
  const taintsOf = (pool: string): unknown[] => (Array.isArray(taints[pool]) ? taints[pool]
    : Array.isArray(taintIds[pool]) && Array.isArray(taintSet) ? taintIds[pool].map((i) => list(taintSet)[Number(i)]) : []);
  return pools.filter((p): p is string => typeof p === 'string' && typeof teams[p] === 'string' && Array.isArray(namespacesOf(p)))
    .map((pool) => ({
      pool, team: String(teams[pool]), namespaces: list(namespacesOf(pool)).map(String), dedicated: dedicated[pool] === true,
      nodes: JSON.stringify([labels[pool] ?? {}, taintsOf(pool)]),
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

/** The risk of a tenancy object removed, and why: the whole set opens every pool (destructive); a part or parameter only the pools no other object holds alike (access). */
export function tenancyRemoval(
  r: { readonly kind: string; readonly body: Body }, guarded: ReadonlyMap<string, Guarded>, kept: ReadonlyMap<string, Guarded>, policyGoes: boolean,
): { risk: 'destructive' | 'access' | 'other'; why: string } {
  if (r.kind === LEGACY_PARAM_KIND && policyGoes) return { risk: 'other', why: 'goes with the tenancy policy (see its removal)' };
  const own = guardedPools(r.kind, r.body);
  if (kept.size > 0 && (r.kind === 'ValidatingAdmissionPolicyBinding' || r.kind === 'CustomResourceDefinition' || (r.kind === 'ValidatingAdmissionPolicy' && own === undefined))) {
    return { risk: 'other', why: 'replaced: the policies of this revision judge every guarded pool (see their lines)' };
  }
  if (own !== undefined && (kept.size > 0 || r.kind === LEGACY_PARAM_KIND)) {
    const opened = own.filter((g) => kept.get(g.pool)?.namespaces.join() !== g.namespaces.join());
    if (own.length > 0 && opened.length === 0) return { risk: 'other', why: `who may use pools ${byTeam(own)} is unchanged: another object of the policy holds them` };
    const gone = opened.filter((g) => !kept.has(g.pool));
    if (gone.length === 0) {
      const moves = accessChanges(own, opened.map((g) => kept.get(g.pool) ?? g)).map((c) => c.text);
      return { risk: 'access', why: `its pools are held by the policies of this revision: ${moves.join('; ')}` };
    }
    return { risk: 'access', why: `pods of any namespace may use pools ${byTeam(gone)} again (they were only for ${(gone[0]?.namespaces ?? []).join(', ')}), unless the pool goes too` };
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
    if (was.size > 0) return { risk: 'other', why: `binds the policy of the same name (${Array.isArray(actions) ? actions.join(', ') : 'no action'}); the set it replaces was in force until now` };
    return { risk: 'access', why: `the tenancy policy takes effect (${Array.isArray(actions) ? actions.join(', ') : 'no action'}); running pods stay, new pods, DaemonSets and pod templates are checked` };
  }
  if (r.kind === 'CustomResourceDefinition') return { risk: 'other', why: 'the kind of the tenancy policy\'s parameters (TeamTenancy): on its own it refuses nothing' };
  if (r.kind === 'ValidatingAdmissionPolicy' && was.size === 0) {
    const held = guardedPools(r.kind, r.body) ?? [];
    return { risk: 'access', why: `objects that would use pools ${byTeam(held)} from outside their teams' namespaces are refused: pods that tolerate or select them, DaemonSets whose pods can run there, pod templates` };
  }
  const own = guardedPools(r.kind, r.body) ?? [];
  const fresh = own.filter((g) => was.get(g.pool)?.namespaces.join() !== g.namespaces.join());
  if (own.length > 0 && fresh.length === 0) return { risk: 'other', why: `who may use pools ${byTeam(own)} is unchanged (a policy of the revision before held them alike)` };
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
  ignore: 'an object the policy cannot judge (an error, a cost limit) is admitted: Audit and Warn never refuse',
  fail: 'an object the policy cannot judge (an error, a cost limit) is refused: Deny fails closed',
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
    if (was === undefined && now !== undefined && obj(before.spec).paramKind !== undefined) {
      add('the policies now hold each team\'s pools themselves, with no parameter kind: an API server whose discovery lags can no longer refuse every pod', WHY.rules);
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
    const literals = new Set(['pools', 'teams', 'dedicated', 'labels', 'taints', 'namespaces', 'taintSet', 'taintIds', 'carried']);
    const [was, now] = [obj(before.spec).failurePolicy, obj(after.spec).failurePolicy];
    if (was !== now) add(`failurePolicy: ${String(was)} -> ${String(now)}`, now === 'Ignore' ? WHY.ignore : WHY.fail);
    const rest = (b: Body) => JSON.stringify({ ...obj(b.spec), failurePolicy: undefined, variables: list(obj(b.spec).variables).map(obj).filter((v) => !literals.has(String(v.name))) });
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

/** A part of a cluster's tenancy set: `karpenter-gitops-team-pools-<digest>`, a policy or its binding. */
const PART = new RegExp(`^${TENANCY_POLICY_NAME}-[0-9a-f]{10}$`);

/**
 * A cluster's tenancy policies (and bindings) read as one set, named `karpenter-gitops-team-pools`
 * as the single policy of earlier releases was: every change renames the parts it touches (their
 * names are digests of what they hold), so part by part a review would read as removals and
 * additions; as a set, it reads as who gains or loses which pools. The set's data are the parts'
 * literals merged, in the layout `guardedPools` reads (taints by pool); its rules, the first part's.
 */
export function tenancySets(resources: readonly Resource[]): Resource[] {
  const parts = resources.filter((r) => (r.kind === 'ValidatingAdmissionPolicy' || r.kind === 'ValidatingAdmissionPolicyBinding') && PART.test(r.name));
  if (parts.length === 0) return [...resources];
  const merged = new Map<string, Resource>();
  for (const r of parts) {
    const k = resourceKey(r.cluster, r.kind, '', TENANCY_POLICY_NAME);
    const was = merged.get(k);
    const body = r.kind === 'ValidatingAdmissionPolicy' ? mergePolicies(was?.body, r.body) : { ...r.body, spec: { ...obj(r.body.spec), policyName: TENANCY_POLICY_NAME } };
    merged.set(k, { ...r, key: k, name: TENANCY_POLICY_NAME, body: { ...body, metadata: { ...obj(body.metadata), name: TENANCY_POLICY_NAME } } });
  }
  return [...resources.filter((r) => !parts.includes(r)), ...merged.values()];
}

/** Two policies' bodies as one: the data literals merged (taints resolved by pool), the rest the first's. */
function mergePolicies(into: Body | undefined, part: Body): Body {
  const literalsOf = (b: Body) => {
    const vars = list(obj(b.spec).variables).map(obj);
    const value = (name: string): unknown => {
      const v = vars.find((x) => x.name === name);
      try {
        return typeof v?.expression === 'string' ? parseJson(v.expression) : undefined;
      } catch {
        return undefined;
      }
    };
    return { vars, value };
  };
  const own = literalsOf(part);
  const taintSet = own.value('taintSet');
  const taintIds = obj(own.value('taintIds'));
  const taints = Object.fromEntries(Object.entries(taintIds).map(([pool, ids]) => [pool, Array.isArray(ids) && Array.isArray(taintSet) ? ids.map((i) => list(taintSet)[Number(i)]) : []]));
  const mine: Record<string, unknown> = {
    pools: own.value('pools'), teams: own.value('teams'), namespaces: own.value('namespaces'), dedicated: own.value('dedicated'), labels: own.value('labels'), taints,
  };
  const before = into ? literalsOf(into) : undefined;
  const data = Object.fromEntries(Object.entries(mine).map(([name, v]) => {
    const was = before?.value(name);
    return [name, Array.isArray(v) ? [...(Array.isArray(was) ? was : []), ...v] : { ...obj(was), ...obj(v) }];
  }));
  const rules = (before?.vars ?? own.vars).filter((v) => !(String(v.name) in data) && !['taintSet', 'taintIds', 'carried'].includes(String(v.name)));
  const base = into ?? part;
  return { ...base, spec: { ...obj(base.spec), variables: [...Object.entries(data).map(([name, v]) => ({ name, expression: JSON.stringify(v) })), ...rules] } };
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** A JSON text's value. */
function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return value;
}
