/**
 * Pools a team cannot borrow (docs/tenancy.md): per cluster, one ValidatingAdmissionPolicy
 * refuses a pod that tolerates a team's dedicated taint, or selects one of its pools by
 * `karpenter.sh/nodepool` or by the `team` label, unless the pod's namespace is one of the
 * team's. This file holds the plan (which pools, which namespaces), the policy's CEL, and
 * the same rule in TypeScript for `fit` (the tests hold the two to the same answers).
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
 */
import type { Cluster } from '../config/platform';
import type { TenancyAction } from '../config/schema';
import { SMOKE_TEST_NAMESPACE } from './applications';
import { DEDICATED_TAINT_KEY, TEAM_LABEL, taints } from './node-pool';

/** The label Karpenter puts on every node with the name of its NodePool. */
export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';

/** Name of the policy and of its binding, on every cluster. */
export const TENANCY_POLICY_NAME = 'karpenter-gitops-team-pools';

/**
 * Argo CD sync options of the policy and its binding: removing either opens every team's
 * pools to every namespace, so a person confirms it, as for a pool.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/
 */
export const POLICY_SYNC_OPTIONS = 'Prune=confirm,Delete=confirm';

/** One pool the policy guards: whose it is, whether its nodes carry the team's taint, who may use it. */
export interface GuardedPool {
  readonly pool: string;
  readonly team: string;
  /** Its nodes carry the taint `dedicated=<team>:NoSchedule`. */
  readonly dedicated: boolean;
  /** The namespaces whose pods may use it: the team's, then the smoke tests' (when the cluster has them). */
  readonly namespaces: readonly string[];
}

/** The tenancy policy of one cluster; the construct only renders it. */
export interface TenancyPolicyModel {
  /** Name of the ValidatingAdmissionPolicy and of its binding. */
  readonly name: string;
  /** The pools of the teams that list namespaces, in the cluster's pool order. */
  readonly pools: readonly GuardedPool[];
  /**
   * Namespaces the policy never looks at: kube-system and Karpenter's own. Only cluster
   * administrators create pods there, and a mistake in the policy must never keep the
   * cluster's own components (or Karpenter) from starting.
   */
  readonly exemptNamespaces: readonly string[];
  /** What the binding does with a refused pod. @default "Deny" */
  readonly action: TenancyAction;
}

/** The tenancy policy of a cluster, or undefined when none of its teams lists namespaces. */
export function tenancyPolicy(cluster: Cluster): TenancyPolicyModel | undefined {
  const pools: GuardedPool[] = cluster.pools.filter((p) => p.namespaces !== undefined).map((p) => ({
    pool: p.name,
    team: p.team,
    dedicated: taints(p).some((t) => t.key === DEDICATED_TAINT_KEY && t.value === p.team && t.effect === 'NoSchedule'),
    // The smoke tests tolerate and select every pool by design (contract section 4).
    namespaces: [...new Set([...(p.namespaces ?? []), ...(cluster.smokeTests ? [SMOKE_TEST_NAMESPACE] : [])])],
  }));
  if (pools.length === 0) return undefined;
  return {
    name: TENANCY_POLICY_NAME,
    pools,
    exemptNamespaces: [...new Set(['kube-system', cluster.karpenter.namespace])].sort(),
    action: cluster.tenancyAction ?? 'Deny',
  };
}

/** The binding's validationActions for an action (Deny and Warn never go together). */
export function validationActions(action: TenancyAction): string[] {
  return [action];
}

// ==== The policy's CEL
// Kubernetes runs validating admission after the pod passed its own validation, so a
// toleration with an empty key has operator Exists and a NodeSelector has its terms; every
// optional field is still read behind has(): an absent field is an error in CEL, not a zero.

/** One CEL variable of the policy (`variables.<name>`), evaluated lazily and at most once per request. */
export interface CelVariable {
  readonly name: string;
  readonly expression: string;
}

/** The CEL of a tenancy policy: its variables, validation, message and match condition. */
export interface TenancyCel {
  /** In order: each may read the ones before it. */
  readonly variables: readonly CelVariable[];
  /** True when the pod is allowed. */
  readonly validation: string;
  /** The refusal, naming the team, the pool and the namespaces that may use it. */
  readonly message: string;
  /** Static message, for when the message expression fails. */
  readonly fallbackMessage: string;
  /**
   * Which requests the policy looks at: every CREATE, and an UPDATE that changes the pod's
   * tolerations, nodeSelector or affinity (the only scheduling fields an update may add to);
   * a pod's other updates (labels, finalizers, status) are never refused.
   */
  readonly matchCondition: string;
}

/** A CEL string literal of a label key or taint key (no quotes or backslashes in them). */
const q = (s: string) => `'${s}'`;

/** CEL for the team of the pool named by `p`, and whether its nodes carry the team's taint. */
const teamOf = (p: string) => `variables.teams[${p}]`;
const dedicatedOf = (p: string) => `variables.dedicated[${p}]`;

/** CEL that is true when the pod tolerates the dedicated taint of the pool named by `p`. @see tolerates in src/fit/tolerations.ts */
function tolerates(p: string): string {
  return `${dedicatedOf(p)} && variables.tolerations.exists(t, `
    + `(!has(t.effect) || t.effect == '' || t.effect == 'NoSchedule') && (!has(t.key) || t.key == '' || t.key == ${q(DEDICATED_TAINT_KEY)}) && `
    + `((has(t.operator) && t.operator == 'Exists') || ((!has(t.operator) || t.operator == '' || t.operator == 'Equal') && (has(t.value) ? t.value : '') == ${teamOf(p)})))`;
}

/** CEL that is true when the nodeSelector, or any required node affinity term, selects the pool named by `p` or its team's label. */
function selects(p: string): string {
  return `(${q(NODEPOOL_LABEL)} in variables.nodeSelector && variables.nodeSelector[${q(NODEPOOL_LABEL)}] == ${p}) || `
    + `(${q(TEAM_LABEL)} in variables.nodeSelector && variables.nodeSelector[${q(TEAM_LABEL)}] == ${teamOf(p)}) || `
    + 'variables.terms.exists(term, has(term.matchExpressions) && term.matchExpressions.exists(e, e.operator == \'In\' && has(e.values) && '
    + `((e.key == ${q(NODEPOOL_LABEL)} && ${p} in e.values) || (e.key == ${q(TEAM_LABEL)} && ${teamOf(p)} in e.values))))`;
}

/** The names of the policy's variables that hold its data, each a CEL literal that is JSON too (review reads them back). */
export const TENANCY_DATA = { pools: 'pools', teams: 'teams', dedicated: 'dedicated', namespaces: 'namespaces' } as const;

/**
 * The policy's CEL. Its data are four literals that are JSON as well: `pools` (the guarded
 * pools' names, in order), and by pool name its `teams`, whether it is `dedicated` and the
 * `namespaces` that may use it. Kubernetes' CEL requires list and map literals to hold values
 * of one type (HomogeneousAggregateLiterals), so a pool is not one map of mixed values.
 * `borrowed` is the pools the pod touches outside their namespaces; a DaemonSet's pod with a
 * key-less Exists toleration passes without `borrowed` ever being evaluated.
 */
export function tenancyCel(policy: TenancyPolicyModel): TenancyCel {
  const byPool = <T>(value: (g: GuardedPool) => T) => JSON.stringify(Object.fromEntries(policy.pools.map((g) => [g.pool, value(g)])));
  const first = 'variables.borrowed[0]';
  const spec = (field: string, empty: string) => `has(object.spec.${field}) ? object.spec.${field} : ${empty}`;
  const affinity = 'object.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution';
  return {
    variables: [
      { name: TENANCY_DATA.pools, expression: JSON.stringify(policy.pools.map((g) => g.pool)) },
      { name: TENANCY_DATA.teams, expression: byPool((g) => g.team) },
      { name: TENANCY_DATA.dedicated, expression: byPool((g) => g.dedicated) },
      { name: TENANCY_DATA.namespaces, expression: byPool((g) => g.namespaces) },
      { name: 'tolerations', expression: spec('tolerations', '[]') },
      { name: 'nodeSelector', expression: spec('nodeSelector', '{}') },
      {
        name: 'terms',
        expression: `has(object.spec.affinity) && has(object.spec.affinity.nodeAffinity) && has(${affinity}) && has(${affinity}.nodeSelectorTerms) ? ${affinity}.nodeSelectorTerms : []`,
      },
      {
        name: 'daemonSetTolerateAll',
        expression: 'has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(r, r.kind == \'DaemonSet\' && has(r.controller) && r.controller) && '
          + 'variables.tolerations.exists(t, (!has(t.key) || t.key == \'\') && has(t.operator) && t.operator == \'Exists\' && (!has(t.effect) || t.effect == \'\' || t.effect == \'NoSchedule\'))',
      },
      { name: 'borrowed', expression: `variables.pools.filter(p, !(request.namespace in variables.namespaces[p]) && ((${tolerates('p')}) || ${selects('p')}))` },
    ],
    validation: 'variables.daemonSetTolerateAll || variables.borrowed.size() == 0',
    message: `'namespace ' + request.namespace + ' may not use team ' + ${teamOf(first)} + '\\'s pool ' + ${first} + ' (the pod '`
      + ` + (${tolerates(first)} ? 'tolerates its taint ${DEDICATED_TAINT_KEY}=' + ${teamOf(first)} + ':NoSchedule' : 'selects it by ${NODEPOOL_LABEL} or ${TEAM_LABEL}')`
      + ` + '): only pods of namespaces ' + variables.namespaces[${first}].join(', ') + ' may'`
      + ' + (variables.borrowed.size() > 1 ? \'; in all, \' + string(variables.borrowed.size()) + \' pools it may not use: \' + variables.borrowed.join(\', \') : \'\')',
    fallbackMessage: 'the pod tolerates or selects a team\'s pool that its namespace may not use (see docs/tenancy.md)',
    matchCondition: 'request.operation == \'CREATE\' || '
      + ['tolerations', 'nodeSelector', 'affinity'].map((f) => `has(object.spec.${f}) != has(oldObject.spec.${f}) || (has(object.spec.${f}) && object.spec.${f} != oldObject.spec.${f})`).join(' || '),
  };
}

// ==== The same rule in TypeScript, for `fit`

/** What the policy reads of a pod. */
export interface PodAdmissionFacts {
  /** The pod's namespace. */
  readonly namespace: string;
  readonly tolerations: readonly { readonly key?: string; readonly operator?: string; readonly value?: string; readonly effect?: string }[];
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Required node affinity terms. @default - none */
  readonly nodeSelectorTerms?: readonly { readonly matchExpressions: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[] }[];
  /** The pod's controller is a DaemonSet. */
  readonly ownedByDaemonSet: boolean;
}

/** Why the policy refuses a pod: the first pool it borrows, how, and how many it borrows. */
export interface Refusal {
  readonly pool: GuardedPool;
  readonly how: 'tolerates' | 'selects';
  /** Every pool the pod borrows, the first included. */
  readonly pools: readonly GuardedPool[];
}

/** Why the cluster's tenancy policy refuses the pod, or undefined when it admits it (mirrors {@link tenancyCel}). */
export function tenancyRefusal(pod: PodAdmissionFacts, policy: TenancyPolicyModel): Refusal | undefined {
  if (policy.exemptNamespaces.includes(pod.namespace)) return undefined;
  const tolerating = (g: GuardedPool) => g.dedicated && pod.tolerations.some((t) => (!t.effect || t.effect === 'NoSchedule')
    && (!t.key || t.key === DEDICATED_TAINT_KEY)
    && (t.operator === 'Exists' || ((!t.operator || t.operator === 'Equal') && (t.value ?? '') === g.team)));
  const selecting = (g: GuardedPool) => pod.nodeSelector[NODEPOOL_LABEL] === g.pool || pod.nodeSelector[TEAM_LABEL] === g.team
    || (pod.nodeSelectorTerms ?? []).some((term) => term.matchExpressions.some((e) => e.operator === 'In'
      && ((e.key === NODEPOOL_LABEL && (e.values ?? []).includes(g.pool)) || (e.key === TEAM_LABEL && (e.values ?? []).includes(g.team)))));
  if (daemonSetTolerateAll(pod)) return undefined;
  const pools = policy.pools.filter((g) => !g.namespaces.includes(pod.namespace) && (tolerating(g) || selecting(g)));
  if (pools.length === 0) return undefined;
  return { pool: pools[0], how: tolerating(pools[0]) ? 'tolerates' : 'selects', pools };
}

/** A DaemonSet's pod that tolerates every (NoSchedule) taint by a key-less Exists: the policy lets it pass. */
export function daemonSetTolerateAll(pod: Pick<PodAdmissionFacts, 'tolerations' | 'ownedByDaemonSet'>): boolean {
  return pod.ownedByDaemonSet && pod.tolerations.some((t) => !t.key && t.operator === 'Exists' && (!t.effect || t.effect === 'NoSchedule'));
}

/** A refusal as the policy's message words it. */
export function refusalMessage(namespace: string, r: Refusal): string {
  const how = r.how === 'tolerates' ? `tolerates its taint ${DEDICATED_TAINT_KEY}=${r.pool.team}:NoSchedule` : `selects it by ${NODEPOOL_LABEL} or ${TEAM_LABEL}`;
  const more = r.pools.length > 1 ? `; in all, ${r.pools.length} pools it may not use: ${r.pools.map((p) => p.pool).join(', ')}` : '';
  return `namespace ${namespace} may not use team ${r.pool.team}'s pool ${r.pool.pool} (the pod ${how}): only pods of namespaces ${r.pool.namespaces.join(', ')} may${more}`;
}
