/**
 * Pools a team cannot borrow (docs/tenancy.md): per cluster, one ValidatingAdmissionPolicy
 * refuses a pod that selects a team's pool, or can run on a dedicated one (Karpenter would
 * launch a node of it for the pod, or the scheduler or kubelet put it on one), unless the pod's
 * namespace is one of the team's. This file holds the plan (which pools, what their nodes carry,
 * which namespaces), the policy's CEL, and the same rule in TypeScript for `fit` (the tests hold
 * the two to the same answers, and both to a model of Kubernetes and Karpenter).
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
 */
import type { Cluster, Pool } from '../config/platform';
import type { TenancyAction } from '../config/schema';
import { SMOKE_TEST_NAMESPACE } from './applications';
import { DEDICATED_TAINT_KEY, NodePoolModel, sortKeys, Taint, TEAM_LABEL } from './node-pool';

/** The label Karpenter puts on every node with the name of its NodePool. */
export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';

/**
 * The label Karpenter puts on every node with the name of its EC2NodeClass (one per pool,
 * named after it). Karpenter puts it in the NodeClaim template's labels, which become its
 * requirements, so a pod that selects it is compatible with the pool (and the scheduler places
 * it on the pool's running nodes by it): the policy treats it as a naming label.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go#L79-L84
 */
export const NODECLASS_LABEL = 'karpenter.k8s.aws/ec2nodeclass';

/** The labels that name a pool or its team: a pod that asks for one of them with `In` selects the pool. */
const NAMING_LABELS: readonly string[] = [NODEPOOL_LABEL, NODECLASS_LABEL, TEAM_LABEL];

/** Name of the policy and of its binding, on every cluster. */
export const TENANCY_POLICY_NAME = 'karpenter-gitops-team-pools';

/**
 * Argo CD sync options of the policy and its binding: removing either opens every team's
 * pools to every namespace, so a person confirms it, as for a pool.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/
 */
export const POLICY_SYNC_OPTIONS = 'Prune=confirm,Delete=confirm';

/** One pool the policy guards: whose it is, what its nodes carry, who may use it. */
export interface GuardedPool {
  readonly pool: string;
  readonly team: string;
  /** Its nodes carry the taint `dedicated=<team>:NoSchedule`. */
  readonly dedicated: boolean;
  /**
   * The labels every node of the pool carries, as Karpenter sets them from the NodePool:
   * `karpenter.sh/nodepool`, `karpenter.k8s.aws/ec2nodeclass` and the template's labels
   * (`team`, `cost-center`, the pool's `labels`).
   * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go#L79-L84
   */
  readonly labels: Readonly<Record<string, string>>;
  /** The NoSchedule and NoExecute taints of its nodes (PreferNoSchedule keeps no pod off a node). */
  readonly taints: readonly Taint[];
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

/** A pool as the plan models it: what the policy reads of its NodePool and EC2NodeClass. */
export interface ModelledPool {
  readonly pool: Pool;
  readonly nodePool: Pick<NodePoolModel, 'name' | 'labels' | 'taints'>;
  readonly nodeClass: { readonly name: string };
}

/**
 * The tenancy policy of a cluster, or undefined when none of its teams lists namespaces. It
 * reads the plan's models of the cluster's pools (`clusterPlan`), never derives them again.
 */
export function tenancyPolicy(cluster: Cluster, modelled: readonly ModelledPool[]): TenancyPolicyModel | undefined {
  const pools: GuardedPool[] = modelled.filter(({ pool: p }) => p.namespaces !== undefined).map(({ pool: p, nodePool, nodeClass }) => {
    return {
      pool: p.name,
      team: p.team,
      dedicated: nodePool.taints.some((t) => t.key === DEDICATED_TAINT_KEY && t.value === p.team && t.effect === 'NoSchedule'),
      labels: sortKeys({ ...nodePool.labels, [NODEPOOL_LABEL]: nodePool.name, [NODECLASS_LABEL]: nodeClass.name }),
      taints: nodePool.taints.filter((t) => t.effect !== 'PreferNoSchedule'),
      // The smoke tests tolerate and select every pool by design (contract section 4).
      namespaces: [...new Set([...(p.namespaces ?? []), ...(cluster.smokeTests ? [SMOKE_TEST_NAMESPACE] : [])])],
    };
  });
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

// ==== The rule
// A pod is refused, outside the namespaces that may use a guarded pool, when it
//
// - selects the pool: its nodeSelector, together with one of its required node affinity terms
//   (any one: the scheduler may use any, and Karpenter tries each in turn), holds on the pool's
//   nodes and asks for one of NAMING_LABELS with In (a nodeSelector entry is an In); or
// - can run on the pool's nodes, when the pool is dedicated: its node selection holds on them
//   and it tolerates each of their NoSchedule and NoExecute taints; a pod created with
//   spec.nodeName skips the scheduler, and with it the NoSchedule taints (the kubelet checks
//   only NoExecute ones).
//
// Node selection holds on a pool's nodes when each requirement on a label the pool's nodes carry
// (GuardedPool.labels) holds for its value (Gt and Lt: when it is a number at all); a requirement
// on any other label (an instance type's, a zone's) or on a node's name (matchFields) is taken to
// hold: the policy cannot tell which pool those belong to. An empty term holds: the scheduler
// matches no node by it, but Karpenter reads only a term's expressions and launches a node for it.
// Preferred node affinity never widens where a pod may run, so it is not read.
// A DaemonSet agent (its controller an apps/v1 DaemonSet, it tolerates every NoSchedule taint and
// names no node) may run on any pool's nodes, but never select one: Karpenter never launches a node
// for a pod with an apps/v1 DaemonSet owner, and the DaemonSet controller always writes that owner
// as the controller (another API group's DaemonSet is someone else's kind).
// Kubernetes runs validating admission after the pod passed its own validation, so a toleration
// with an empty key has operator Exists, Gt and Lt carry one integer, and a NodeSelector has its
// terms; every optional field is still read behind has(): an absent field is an error in CEL, not
// a zero.
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/pod/scheduling.go#L102-L108 (IsProvisionable)
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/pod/scheduling.go#L168-L190 (IsOwnedByDaemonSet)
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/preferences.go#L74-L88 (each required term in turn)
// @see test/support/karpenter-provisioning.ts, the model of Kubernetes and Karpenter the tests hold this rule to

/**
 * A label or taint value that `Gt` and `Lt` can compare (tolerations may use them too: Karpenter
 * allows them); the policy takes any such number to match. Label and taint values of the config
 * never carry a sign.
 */
const INTEGER = '^[0-9]+$';

/** A CEL string literal of a label key or taint key (no quotes or backslashes in them). */
const q = (s: string) => `'${s}'`;

/** CEL: `field` of `x` if set, else ''. */
const orEmpty = (x: string, field: string) => `(has(${x}.${field}) ? ${x}.${field} : '')`;

/** CEL: the toleration `t` tolerates `taint` (a map of key, value and effect), as Kubernetes matches them. @see tolerates */
function tolerationCel(t: string, taint: string): string {
  const op = orEmpty(t, 'operator');
  return `(${orEmpty(t, 'effect')} == '' || ${t}.effect == ${taint}.effect) && (${orEmpty(t, 'key')} == '' || ${t}.key == ${taint}.key) && `
    + `(${op} == '' || ${op} == 'Equal' ? ${orEmpty(t, 'value')} == ${taint}.value : ${op} == 'Exists' || ((${op} == 'Lt' || ${op} == 'Gt') && ${taint}.value.matches('${INTEGER}')))`;
}

/** CEL: the node selector requirement `e` holds on nodes labelled `labels` (a label they do not carry: taken to hold). @see holds */
function holdsCel(e: string, labels: string): string {
  const value = `${labels}[${e}.key]`;
  const listed = `(has(${e}.values) && ${value} in ${e}.values)`;
  return `(!(${e}.key in ${labels}) || (${e}.operator == 'In' ? ${listed} : ${e}.operator == 'NotIn' ? !${listed} : ${e}.operator == 'DoesNotExist' ? false `
    + `: (${e}.operator != 'Gt' && ${e}.operator != 'Lt') || ${value}.matches('${INTEGER}')))`;
}

/**
 * CEL: the required node affinity term `term` holds on nodes labelled `labels`. An empty term
 * holds: the scheduler matches no node by it, but Karpenter reads only a term's expressions and
 * launches a node for it. @see termHolds
 */
function termHoldsCel(term: string, labels: string): string {
  return `(!has(${term}.matchExpressions) || ${term}.matchExpressions.all(e, ${holdsCel('e', labels)}))`;
}

/** CEL for the labels and taints of the pool named by `p`. */
const labelsOf = (p: string) => `variables.labels[${p}]`;
const teamOf = (p: string) => `variables.teams[${p}]`;

/** CEL: the nodeSelector holds on the nodes of the pool named by `p`. */
const selectorHoldsCel = (p: string) => `variables.nodeSelector.all(k, !(k in ${labelsOf(p)}) || ${labelsOf(p)}[k] == variables.nodeSelector[k])`;

/** CEL: the pod selects the pool named by `p`. @see selects */
function selectsCel(p: string): string {
  const names = `(variables.selectorNames || (has(t.matchExpressions) && t.matchExpressions.exists(e, e.operator == 'In' && e.key in ${JSON.stringify(NAMING_LABELS)})))`;
  return `(${selectorHoldsCel(p)} && (size(variables.terms) == 0 ? variables.selectorNames : variables.terms.exists(t, ${termHoldsCel('t', labelsOf(p))} && ${names})))`;
}

/** CEL: the pod can run on the nodes of the pool named by `p`. @see canRun */
function canRunCel(p: string): string {
  const selection = `${selectorHoldsCel(p)} && (size(variables.terms) == 0 || variables.terms.exists(t, ${termHoldsCel('t', labelsOf(p))}))`;
  return `(${selection} && variables.taints[${p}].all(taint, (variables.namesNode && taint.effect == 'NoSchedule') || variables.tolerations.exists(t, ${tolerationCel('t', 'taint')})))`;
}

/** The names of the policy's variables that hold its data, each a CEL literal that is JSON too (review reads them back). */
export const TENANCY_DATA = { pools: 'pools', teams: 'teams', dedicated: 'dedicated', labels: 'labels', taints: 'taints', namespaces: 'namespaces' } as const;

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
   * Which requests the policy looks at: every CREATE; an UPDATE that changes the pod's
   * tolerations, nodeSelector or affinity (the only scheduling fields an update may add to);
   * and an UPDATE that changes the ownerReferences of a pod not yet on a node (one that drops
   * its DaemonSet owner becomes a pod Karpenter launches nodes for). A pod's other updates
   * (labels, finalizers, status) are never refused.
   */
  readonly matchCondition: string;
}

/**
 * The policy's CEL. Its data are six literals that are JSON as well: `pools` (the guarded
 * pools' names, in order), and by pool name its `teams`, whether it is `dedicated`, the
 * `labels` and `taints` of its nodes and the `namespaces` that may use it. Kubernetes' CEL
 * requires list and map literals to hold values of one type (HomogeneousAggregateLiterals),
 * so a pool is not one map of mixed values. Of the guarded pools, `selected` are those the pod
 * selects, `runsOn` the dedicated ones it can run on (none for a DaemonSet agent), and
 * `borrowed` those of either outside their namespaces (see "The rule" above).
 */
export function tenancyCel(policy: TenancyPolicyModel): TenancyCel {
  const byPool = <T>(value: (g: GuardedPool) => T) => JSON.stringify(Object.fromEntries(policy.pools.map((g) => [g.pool, value(g)])));
  const first = 'variables.borrowed[0]';
  const spec = (field: string, empty: string) => `has(object.spec.${field}) ? object.spec.${field} : ${empty}`;
  const affinity = 'object.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution';
  const changed = (field: string) => `has(object.${field}) != has(oldObject.${field}) || (has(object.${field}) && object.${field} != oldObject.${field})`;
  return {
    variables: [
      { name: TENANCY_DATA.pools, expression: JSON.stringify(policy.pools.map((g) => g.pool)) },
      { name: TENANCY_DATA.teams, expression: byPool((g) => g.team) },
      { name: TENANCY_DATA.dedicated, expression: byPool((g) => g.dedicated) },
      { name: TENANCY_DATA.labels, expression: byPool((g) => g.labels) },
      { name: TENANCY_DATA.taints, expression: byPool((g) => g.taints.map((t) => ({ key: t.key, value: t.value ?? '', effect: t.effect }))) },
      { name: TENANCY_DATA.namespaces, expression: byPool((g) => g.namespaces) },
      { name: 'tolerations', expression: spec('tolerations', '[]') },
      { name: 'nodeSelector', expression: spec('nodeSelector', '{}') },
      {
        name: 'terms',
        expression: `has(object.spec.affinity) && has(object.spec.affinity.nodeAffinity) && has(${affinity}) && has(${affinity}.nodeSelectorTerms) ? ${affinity}.nodeSelectorTerms : []`,
      },
      // Only a pod being created chooses its node by name: an update finds spec.nodeName set by the scheduler.
      { name: 'namesNode', expression: 'request.operation == \'CREATE\' && has(object.spec.nodeName) && object.spec.nodeName != \'\'' },
      { name: 'selectorNames', expression: `variables.nodeSelector.exists(k, k in ${JSON.stringify(NAMING_LABELS)})` },
      {
        name: 'daemonSetAgent',
        expression: '!variables.namesNode && has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(r, r.apiVersion == \'apps/v1\' && r.kind == \'DaemonSet\' && has(r.controller) && r.controller) && '
          + `variables.tolerations.exists(t, ${orEmpty('t', 'key')} == '' && ${orEmpty('t', 'operator')} == 'Exists' && (${orEmpty('t', 'effect')} == '' || t.effect == 'NoSchedule'))`,
      },
      { name: 'selected', expression: `variables.pools.filter(p, ${selectsCel('p')})` },
      { name: 'runsOn', expression: `variables.daemonSetAgent ? [] : variables.pools.filter(p, variables.dedicated[p] && ${canRunCel('p')})` },
      { name: 'borrowed', expression: 'variables.pools.filter(p, !(request.namespace in variables.namespaces[p]) && (p in variables.selected || p in variables.runsOn))' },
    ],
    validation: 'variables.borrowed.size() == 0',
    message: `'namespace ' + request.namespace + ' may not use team ' + ${teamOf(first)} + '\\'s pool ' + ${first} + ' (the pod '`
      + ` + (!(${first} in variables.runsOn) ? 'selects it by ${NODEPOOL_LABEL}, ${NODECLASS_LABEL} or ${TEAM_LABEL}'`
      + ` : variables.taints[${first}].exists(taint, taint.key == ${q(DEDICATED_TAINT_KEY)} && variables.tolerations.exists(t, ${tolerationCel('t', 'taint')}))`
      + ` ? 'tolerates its taint ${DEDICATED_TAINT_KEY}=' + ${teamOf(first)} + ':NoSchedule'`
      + ` : 'names its node (spec.nodeName), which skips its taint ${DEDICATED_TAINT_KEY}=' + ${teamOf(first)} + ':NoSchedule')`
      + ` + '): only pods of namespaces ' + variables.namespaces[${first}].join(', ') + ' may'`
      + ' + (variables.borrowed.size() > 1 ? \'; in all, \' + string(variables.borrowed.size()) + \' pools it may not use: \' + variables.borrowed.join(\', \') : \'\')',
    fallbackMessage: 'the pod selects or can run on a team\'s pool that its namespace may not use (see docs/tenancy.md)',
    matchCondition: `request.operation == 'CREATE' || ${['spec.tolerations', 'spec.nodeSelector', 'spec.affinity'].map(changed).join(' || ')}`
      + ` || ((!has(object.spec.nodeName) || object.spec.nodeName == '') && (${changed('metadata.ownerReferences')}))`,
  };
}

// ==== The same rule in TypeScript, for `fit`

/** A node selector requirement as a pod spec writes it. */
interface RequirementFacts {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

/** A toleration as a pod spec writes it. */
interface TolerationFacts {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
}

/** What the policy reads of a pod being created. */
export interface PodAdmissionFacts {
  /** The pod's namespace. */
  readonly namespace: string;
  readonly tolerations: readonly TolerationFacts[];
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Required node affinity terms. @default - none */
  readonly nodeSelectorTerms?: readonly { readonly matchExpressions: readonly RequirementFacts[]; readonly matchFields?: readonly RequirementFacts[] }[];
  /** `spec.nodeName`: the pod names its node. @default - none */
  readonly nodeName?: string;
  /** The pod's controller (its ownerReference with `controller: true`) is an `apps/v1` DaemonSet. */
  readonly ownedByDaemonSet: boolean;
}

/** Why the policy refuses a pod: the first pool it borrows, how, and how many it borrows. */
export interface Refusal {
  readonly pool: GuardedPool;
  readonly how: 'selects' | 'tolerates' | 'names its node';
  /** Every pool the pod borrows, the first included. */
  readonly pools: readonly GuardedPool[];
}

/** Whether a toleration tolerates a taint, as the policy matches them (mirrors tolerationCel). */
function tolerates(t: TolerationFacts, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  const op = t.operator ?? '';
  if (op === '' || op === 'Equal') return (t.value ?? '') === (taint.value ?? '');
  return op === 'Exists' || ((op === 'Lt' || op === 'Gt') && new RegExp(INTEGER).test(taint.value ?? ''));
}

/** Whether a requirement holds on nodes with these labels; one on a label they do not carry is taken to hold (mirrors holdsCel). */
function holds(e: RequirementFacts, labels: Readonly<Record<string, string>>): boolean {
  if (!(e.key in labels)) return true;
  const value = labels[e.key];
  switch (e.operator) {
    case 'In': return (e.values ?? []).includes(value);
    case 'NotIn': return !(e.values ?? []).includes(value);
    case 'DoesNotExist': return false;
    case 'Gt':
    case 'Lt': return new RegExp(INTEGER).test(value);
    default: return true;
  }
}

type Term = NonNullable<PodAdmissionFacts['nodeSelectorTerms']>[number];

/** Whether a required term holds on nodes with these labels; an empty one does (mirrors termHoldsCel). */
function termHolds(term: Term, labels: Readonly<Record<string, string>>): boolean {
  return term.matchExpressions.every((e) => holds(e, labels));
}

/** Whether the pod selects the pool (mirrors selectsCel). */
function selects(pod: PodAdmissionFacts, g: GuardedPool): boolean {
  const selectorNames = Object.keys(pod.nodeSelector).some((k) => NAMING_LABELS.includes(k));
  if (!Object.entries(pod.nodeSelector).every(([k, v]) => !(k in g.labels) || g.labels[k] === v)) return false;
  const terms = pod.nodeSelectorTerms ?? [];
  if (terms.length === 0) return selectorNames;
  return terms.some((t) => termHolds(t, g.labels) && (selectorNames || t.matchExpressions.some((e) => e.operator === 'In' && NAMING_LABELS.includes(e.key))));
}

/** Whether the pod can run on the pool's nodes (mirrors canRunCel). */
function canRun(pod: PodAdmissionFacts, g: GuardedPool): boolean {
  const terms = pod.nodeSelectorTerms ?? [];
  const selection = Object.entries(pod.nodeSelector).every(([k, v]) => !(k in g.labels) || g.labels[k] === v)
    && (terms.length === 0 || terms.some((t) => termHolds(t, g.labels)));
  return selection && g.taints.every((taint) => (pod.nodeName && taint.effect === 'NoSchedule') || pod.tolerations.some((t) => tolerates(t, taint)));
}

/** Why the cluster's tenancy policy refuses the pod, or undefined when it admits it (mirrors {@link tenancyCel}). */
export function tenancyRefusal(pod: PodAdmissionFacts, policy: TenancyPolicyModel): Refusal | undefined {
  if (policy.exemptNamespaces.includes(pod.namespace)) return undefined;
  const agent = daemonSetAgent(pod);
  const runsOn = (g: GuardedPool) => g.dedicated && !agent && canRun(pod, g);
  const pools = policy.pools.filter((g) => !g.namespaces.includes(pod.namespace) && (selects(pod, g) || runsOn(g)));
  if (pools.length === 0) return undefined;
  const first = pools[0];
  const toleratesDedicated = first.taints.some((taint) => taint.key === DEDICATED_TAINT_KEY && pod.tolerations.some((t) => tolerates(t, taint)));
  const how = !runsOn(first) ? 'selects' : toleratesDedicated ? 'tolerates' : 'names its node';
  return { pool: first, how, pools };
}

/**
 * A DaemonSet's pod the policy lets run on any pool's nodes: its controller is an `apps/v1`
 * DaemonSet (Karpenter never launches a node for it), it tolerates every NoSchedule taint by a
 * key-less Exists, and it names no node. It may still not select a pool of another team.
 */
export function daemonSetAgent(pod: Pick<PodAdmissionFacts, 'tolerations' | 'ownedByDaemonSet' | 'nodeName'>): boolean {
  return pod.ownedByDaemonSet && !pod.nodeName
    && pod.tolerations.some((t) => !t.key && t.operator === 'Exists' && (!t.effect || t.effect === 'NoSchedule'));
}

/** A refusal as the policy's message words it. */
export function refusalMessage(namespace: string, r: Refusal): string {
  const taint = `${DEDICATED_TAINT_KEY}=${r.pool.team}:NoSchedule`;
  const how = r.how === 'selects' ? `selects it by ${NODEPOOL_LABEL}, ${NODECLASS_LABEL} or ${TEAM_LABEL}`
    : r.how === 'tolerates' ? `tolerates its taint ${taint}`
      : `names its node (spec.nodeName), which skips its taint ${taint}`;
  const more = r.pools.length > 1 ? `; in all, ${r.pools.length} pools it may not use: ${r.pools.map((p) => p.pool).join(', ')}` : '';
  return `namespace ${namespace} may not use team ${r.pool.team}'s pool ${r.pool.pool} (the pod ${how}): only pods of namespaces ${r.pool.namespaces.join(', ')} may${more}`;
}
