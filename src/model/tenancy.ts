/**
 * Pools a team cannot borrow (docs/tenancy.md): per cluster, one ValidatingAdmissionPolicy,
 * evaluated once per team against that team's `TeamTenancy` parameter object, refuses any object a
 * user creates in a namespace the team does not list that would make Karpenter launch, size or
 * place a pod on one of the team's pools: a pod that selects a pool or can run on a dedicated
 * one, a DaemonSet whose pods can run on a pool (Karpenter sizes every node of it for them), a
 * pod template (PodTemplate, Deployment, ReplicaSet, StatefulSet: what a CapacityBuffer
 * provisions from) that would; and a pod that claims a DaemonSet as its controller unless the
 * DaemonSet controller made it. The DaemonSet controller's own pods are judged through their
 * DaemonSet, by the request's user, never by ownerReferences. This file holds the plan (which
 * pools, what their nodes carry, which namespaces, how they split into parameter objects), the
 * policy's CEL, and the same rule in TypeScript for `fit` (the tests hold the two to the same
 * answers, and both to a model of Kubernetes and Karpenter).
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
 * The user the DaemonSet controller creates and adopts pods as: kube-controller-manager with
 * `--use-service-account-credentials=true` (kubeadm's default, and what EKS runs: its API server
 * logs show controllers by their service accounts) gives each controller its own service account
 * in kube-system. Pods this user creates are judged through their DaemonSet.
 * @see https://github.com/kubernetes/kubernetes/blob/v1.34.0/cmd/kube-controller-manager/app/apps.go (ClientOrDie("daemon-set-controller"))
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/authentication/serviceaccount/util.go#L29-L56 (MakeUsername)
 */
export const DAEMON_SET_CONTROLLER_USER = 'system:serviceaccount:kube-system:daemon-set-controller';

/**
 * Argo CD sync options of the policy, its binding and the parameters' CRD: removing any of them
 * opens every team's pools to every namespace, so a person confirms it, as for a pool.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/
 */
export const POLICY_SYNC_OPTIONS = 'Prune=confirm,Delete=confirm';

/**
 * The kind of the policy's parameter objects: one per team (or per part of a team with many
 * pools), cluster-scoped, defined by a CRD the policies Application installs first.
 */
export const TEAM_TENANCY = {
  group: 'karpenter-gitops.io',
  version: 'v1',
  kind: 'TeamTenancy',
  plural: 'teamtenancies',
  singular: 'teamtenancy',
  listKind: 'TeamTenancyList',
} as const;

/** `karpenter-gitops.io/v1`. */
export const TEAM_TENANCY_API_VERSION = `${TEAM_TENANCY.group}/${TEAM_TENANCY.version}`;

/**
 * The most pools one parameter object holds, and the most bytes its pools take as JSON: a team
 * with more is split (`<team>`, `<team>.2`, ...). Each object then stays far below the 256 KiB
 * that client-side apply's last-applied annotation allows, and one evaluation of the policy
 * (one team's part) far below the API server's cost limits, at any fleet size.
 * @see https://github.com/kubernetes/apimachinery/blob/v0.34.0/pkg/api/validation/objectmeta.go#L36 (TotalAnnotationSizeLimitB)
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/apis/cel/config.go (PerCallLimit, RuntimeCELCostBudget)
 */
export const MAX_POOLS_PER_PARAM = 50;
const MAX_PARAM_POOL_BYTES = 64 * 1024;

/** The Kubernetes resources the policy judges, by API group: what a pod is made from, or is. */
export const JUDGED_RESOURCES = {
  core: ['pods', 'podtemplates'],
  apps: ['daemonsets', 'deployments', 'replicasets', 'statefulsets'],
} as const;

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
  /** The namespaces whose pods may use it: the team's, its buffer's, then the smoke tests' (when the cluster has them). */
  readonly namespaces: readonly string[];
}

/** One parameter object of the policy: a team's pools (all, or one part) and who may use them. */
export interface TeamTenancyParam {
  /** `<team>`, or `<team>.<n>` for the n-th part of a team with many pools (a team id has no dot). */
  readonly name: string;
  readonly team: string;
  readonly namespaces: readonly string[];
  readonly pools: readonly GuardedPool[];
}

/** The tenancy policy of one cluster; the constructs only render it. */
export interface TenancyPolicyModel {
  /** Name of the ValidatingAdmissionPolicy and of its binding. */
  readonly name: string;
  /** The pools of the teams that list namespaces, in the cluster's pool order. */
  readonly pools: readonly GuardedPool[];
  /** The parameter objects, one per team, split when large, in name order. */
  readonly params: readonly TeamTenancyParam[];
  /**
   * Namespaces the policy never looks at: kube-system, Karpenter's own and the cluster's
   * `tenancy.exemptNamespaces`. Only cluster administrators create pods there, and a mistake in
   * the policy must never keep the cluster's own components (or Karpenter) from starting.
   */
  readonly exemptNamespaces: readonly string[];
  /** The namespaces of {@link exemptNamespaces} the config named (beside kube-system and Karpenter's). @default [] */
  readonly configuredExemptions: readonly string[];
  /** What the binding does with a refused object. @default "Deny" */
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
    const buffer = cluster.buffers.find((b) => b.team === p.team);
    return {
      pool: p.name,
      team: p.team,
      dedicated: nodePool.taints.some((t) => t.key === DEDICATED_TAINT_KEY && t.value === p.team && t.effect === 'NoSchedule'),
      labels: sortKeys({ ...nodePool.labels, [NODEPOOL_LABEL]: nodePool.name, [NODECLASS_LABEL]: nodeClass.name }),
      taints: nodePool.taints.filter((t) => t.effect !== 'PreferNoSchedule'),
      // The team's buffer PodTemplate lives in its own namespace, and the smoke tests tolerate
      // and select every pool by design (contract section 4): both are judged like the team's.
      namespaces: [...new Set([...(p.namespaces ?? []), ...(buffer ? [buffer.namespace] : []), ...(cluster.smokeTests ? [SMOKE_TEST_NAMESPACE] : [])])],
    };
  });
  if (pools.length === 0) return undefined;
  const configured = cluster.tenancyExemptNamespaces ?? [];
  return {
    name: TENANCY_POLICY_NAME,
    pools,
    params: teamParams(pools),
    exemptNamespaces: [...new Set(['kube-system', cluster.karpenter.namespace, ...configured])].sort(),
    configuredExemptions: [...configured],
    action: cluster.tenancyAction ?? 'Deny',
  };
}

/** The parameter objects of the guarded pools: per team, in parts of at most MAX_POOLS_PER_PARAM pools and MAX_PARAM_POOL_BYTES. */
function teamParams(pools: readonly GuardedPool[]): TeamTenancyParam[] {
  const teams = new Map<string, GuardedPool[]>();
  for (const p of pools) teams.set(p.team, [...(teams.get(p.team) ?? []), p]);
  return [...teams].flatMap(([team, own]) => {
    const parts: GuardedPool[][] = [[]];
    let bytes = 0;
    for (const p of own) {
      const size = JSON.stringify(paramPool(p)).length;
      const part = parts[parts.length - 1];
      if (part.length > 0 && (part.length >= MAX_POOLS_PER_PARAM || bytes + size > MAX_PARAM_POOL_BYTES)) {
        parts.push([p]);
        bytes = size;
      } else {
        part.push(p);
        bytes += size;
      }
    }
    return parts.map((part, i) => ({ name: i === 0 ? team : `${team}.${i + 1}`, team, namespaces: own[0].namespaces, pools: part }));
  }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A pool as its parameter object holds it (the shape the CRD's schema gives). */
export interface ParamPool {
  readonly name: string;
  readonly dedicated: boolean;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly { readonly key: string; readonly value: string; readonly effect: string }[];
}

/** The `spec` of a TeamTenancy parameter object. */
export interface TeamTenancySpec {
  readonly team: string;
  readonly namespaces: readonly string[];
  readonly pools: readonly ParamPool[];
}

/** One pool of a parameter object's spec. */
export function paramPool(g: GuardedPool): ParamPool {
  return { name: g.pool, dedicated: g.dedicated, labels: g.labels, taints: g.taints.map((t) => ({ key: t.key, value: t.value ?? '', effect: t.effect })) };
}

/** The spec of a parameter object. */
export function teamTenancySpec(param: TeamTenancyParam): TeamTenancySpec {
  return { team: param.team, namespaces: param.namespaces, pools: param.pools.map(paramPool) };
}

/** The binding's validationActions for an action (Deny and Warn never go together). */
export function validationActions(action: TenancyAction): string[] {
  return [action];
}

// ==== The rule
// Per team (each parameter object), an object of a namespace the team does not list is refused:
//
// - a pod (created, or updated in what it tolerates or selects), by anyone but the DaemonSet
//   controller, when it selects one of the team's pools or can run on a dedicated one:
//   - it selects the pool: its nodeSelector, together with one of its required node affinity
//     terms (any one: the scheduler may use any, and Karpenter tries each in turn), holds on the
//     pool's nodes and asks for one of NAMING_LABELS with In (a nodeSelector entry is an In);
//   - it can run on the pool's nodes, when the pool is dedicated: its node selection holds on
//     them and it tolerates each of their NoSchedule and NoExecute taints; a pod created with
//     spec.nodeName skips the scheduler, and with it the NoSchedule taints (the kubelet checks
//     only NoExecute ones);
// - a pod template (PodTemplate, Deployment, ReplicaSet, StatefulSet: what a CapacityBuffer's
//   podTemplateRef or scalableRef provisions from, as virtual pods no admission sees) by the
//   same rule as a pod;
// - a DaemonSet (created, or its template's scheduling changed) whose pods can run on one of the
//   team's pools, dedicated or not: Karpenter adds a DaemonSet's requests to every node of each
//   pool its template is compatible with, and the DaemonSet controller puts a pod on each node;
// - a pod the DaemonSet controller adopts (it becomes a DaemonSet's) whose nodeSelector and
//   tolerations let it run on one of the team's pools: Karpenter may take the newest pod a
//   DaemonSet controls for its template, with the DaemonSet's own required affinity, which the
//   policy cannot see (so the pod's affinity is not read);
// - a pod that names an apps/v1 DaemonSet as its controller, created or made so by anyone but
//   the DaemonSet controller, whatever it asks for.
//
// The DaemonSet controller's other requests (creating a DaemonSet's pods, releasing them) are
// judged through the DaemonSet, which was judged when created or changed; an ownerReference
// alone exempts nothing. Node selection holds on a pool's nodes when each requirement on a label
// the pool's nodes carry (GuardedPool.labels) holds for its value (Gt and Lt: when it is a number
// at all); a requirement on any other label (an instance type's, a zone's) or on a node's name
// (matchFields) is taken to hold: the policy cannot tell which pool those belong to. An empty
// term holds: the scheduler matches no node by it, but Karpenter reads only a term's expressions
// and launches a node for it. Preferred node affinity never widens where a pod may run, so it is
// not read. Kubernetes runs validating admission after an object passed its own validation, so
// a toleration with an empty key has operator Exists, Gt and Lt carry one integer, and a
// NodeSelector has its terms; every optional field is still read behind has(): an absent field is
// an error in CEL, not a zero.
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/pod/scheduling.go#L102-L108 (IsProvisionable)
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/preferences.go#L74-L88 (each required term in turn)
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/provisioner.go#L534-L558 (getDaemonSetPods: the newest controlled pod, else the template)
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go#L969-L1041 (buildDaemonOverheadGroups, isDaemonPodCompatible)
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/apps/resolve.go#L78-L136 (ResolveCapacityBuffer)
// @see test/support/karpenter-provisioning.ts, the model of Kubernetes and Karpenter the tests hold this rule to

/**
 * A label or taint value that `Gt` and `Lt` can compare (tolerations may use them too: Karpenter
 * allows them); the policy takes any such number to match. Label and taint values of the config
 * never carry a sign.
 */
const INTEGER = '^[0-9]+$';

/** How many pool or namespace names a refusal lists before it only counts them (the API server caps a message at 5 KiB). */
const LISTED = 10;

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

/** CEL: the nodeSelector holds on the nodes of pool `p` (a parameter's pool). */
const selectorHoldsCel = (p: string) => `variables.nodeSelector.all(k, !(k in ${p}.labels) || ${p}.labels[k] == variables.nodeSelector[k])`;

/** CEL: the object's node selection (nodeSelector, then one required term) holds on the nodes of pool `p`. */
const selectionHoldsCel = (p: string) => `${selectorHoldsCel(p)} && (size(variables.terms) == 0 || variables.terms.exists(t, ${termHoldsCel('t', `${p}.labels`)}))`;

/** CEL: the object selects pool `p`. @see selects */
function selectsCel(p: string): string {
  const names = `(variables.selectorNames || (has(t.matchExpressions) && t.matchExpressions.exists(e, e.operator == 'In' && e.key in ${JSON.stringify(NAMING_LABELS)})))`;
  return `(${selectorHoldsCel(p)} && (size(variables.terms) == 0 ? variables.selectorNames : variables.terms.exists(t, ${termHoldsCel('t', `${p}.labels`)} && ${names})))`;
}

/** CEL: the object tolerates each taint of pool `p`; `skipNoSchedule` when it names its node. */
const toleratesCel = (p: string, skipNoSchedule: string) => `${p}.taints.all(taint, (${skipNoSchedule} && taint.effect == 'NoSchedule') || variables.tolerations.exists(t, ${tolerationCel('t', 'taint')}))`;

/** What the policy judges an object as, per {@link JudgedAs}. */
export const JUDGED_AS = { pod: 'pod', template: 'template', daemonSet: 'daemonSet', adopted: 'adopted', none: 'none' } as const;
/** `pod`: by the pod rule; `template`: a pod template, by the pod rule; `daemonSet`: by where its pods can run; `adopted`: a pod the DaemonSet controller adopts; `none`: judged through its DaemonSet. */
export type JudgedAs = (typeof JUDGED_AS)[keyof typeof JUDGED_AS];

/** The names of the policy's variables that the review and tests read. */
export const TENANCY_VARIABLES = { borrowed: 'borrowed', forged: 'forged', judgedAs: 'judgedAs' } as const;

/** One CEL variable of the policy (`variables.<name>`), evaluated lazily and at most once per request and parameter. */
export interface CelVariable {
  readonly name: string;
  readonly expression: string;
}

/** One validation of the policy. */
export interface CelValidation {
  /** True when the object is allowed. */
  readonly expression: string;
  /** The refusal, naming the team, the pool and the namespaces that may use it. */
  readonly messageExpression: string;
  /** Static message, for when the message expression fails. */
  readonly message: string;
}

/** The CEL of a tenancy policy: its variables, validations and match condition. */
export interface TenancyCel {
  /** In order: each may read the ones before it. */
  readonly variables: readonly CelVariable[];
  /** In order: a forged DaemonSet pod, then the pools the object would borrow. */
  readonly validations: readonly CelValidation[];
  /**
   * Which requests the policy looks at, per parameter: an object of a namespace the team does
   * not list, being created, or updated in what it tolerates or selects (a pod's owners too:
   * becoming a DaemonSet's makes it what Karpenter may size nodes by). A pod's other updates
   * (labels, finalizers, status) and the scaling of a workload are never refused.
   */
  readonly matchCondition: string;
}

/** CEL: `field` of `object` differs from `oldObject`'s (absent on one side counts). */
const changed = (field: string) => `has(object.${field}) != has(oldObject.${field}) || (has(object.${field}) && object.${field} != oldObject.${field})`;
/** The pod spec's fields that decide where a pod may run. */
const SCHEDULING_FIELDS = ['tolerations', 'nodeSelector', 'affinity'];
/** CEL: an apps/v1 DaemonSet is the controller of `o`. */
const controlledByDaemonSet = (o: string) => `has(${o}.metadata.ownerReferences) && ${o}.metadata.ownerReferences.exists(r, r.apiVersion == 'apps/v1' && r.kind == 'DaemonSet' && has(r.controller) && r.controller)`;

/**
 * The policy's CEL, evaluated per parameter (`params`: one TeamTenancy object, `params.spec`:
 * its team, namespaces and pools). Of the team's pools, `selected` are those a pod or pod
 * template selects, `runsOn` the dedicated ones it can run on, `compatible` those a DaemonSet's
 * pods can run on, and `borrowed` those the object may not use by the rule it is judged by (see
 * "The rule" above); `forged` is a pod that claims a DaemonSet it was not made by.
 */
export function tenancyCel(): TenancyCel {
  const resource = 'request.resource.resource';
  const specOf = `${resource} == 'pods' ? object.spec : ${resource} == 'podtemplates' ? (has(object.template) && has(object.template.spec) ? object.template.spec : {}) `
    + ': (has(object.spec.template) && has(object.spec.template.spec) ? object.spec.template.spec : {})';
  const field = (name: string, empty: string) => `has(variables.podSpec.${name}) ? variables.podSpec.${name} : ${empty}`;
  const affinity = 'variables.podSpec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution';
  const podChanged = [...SCHEDULING_FIELDS.map((f) => changed(`spec.${f}`))].join(' || ');
  const first = 'variables.borrowed[0]';
  const team = 'params.spec.team';
  const judged = (as: JudgedAs) => `variables.${TENANCY_VARIABLES.judgedAs} == '${as}'`;
  const podLike = `(${judged('pod')} || ${judged('template')})`;
  const daemonLike = `(${judged('daemonSet')} || ${judged('adopted')})`;
  const what = `(${judged('template')} ? 'the ' + request.kind.kind + '\\'s pod template' : ${judged('daemonSet')} ? 'the DaemonSet\\'s pods' : ${judged('adopted')} ? 'the pod the DaemonSet controller adopts' : 'the pod')`;
  const taint = `'${DEDICATED_TAINT_KEY}=' + ${team} + ':NoSchedule'`;
  const how = `(${daemonLike} ? 'can run on its nodes, and Karpenter adds their requests to every node of the pool'`
    + ` : !variables.runsOn.exists(q, q.name == ${first}.name) ? 'selects it by ${NODEPOOL_LABEL}, ${NODECLASS_LABEL} or ${TEAM_LABEL}'`
    + ` : ${first}.taints.exists(taint, taint.key == '${DEDICATED_TAINT_KEY}' && variables.tolerations.exists(t, ${tolerationCel('t', 'taint')}))`
    + ` ? 'tolerates its taint ' + ${taint} : 'names its node (spec.nodeName), which skips its taint ' + ${taint})`;
  const namespaces = `(size(params.spec.namespaces) <= ${LISTED} ? 'namespaces ' + params.spec.namespaces.join(', ') : string(size(params.spec.namespaces)) + ' namespaces of team ' + ${team})`;
  const more = `(size(variables.borrowed) > 1 ? '; in all, ' + string(size(variables.borrowed)) + ' of team ' + ${team} + '\\'s pools'`
    + ` + (size(variables.borrowed) <= ${LISTED} ? ': ' + variables.borrowed.map(p, p.name).join(', ') : '') : '')`;
  const fix = `(${daemonLike} ? ' (confine it to the namespace\\'s pools with a nodeSelector, or run it in an exempt namespace)' : '')`;
  return {
    matchCondition: `!(request.namespace in params.spec.namespaces) && (request.operation == 'CREATE' || (${resource} == 'pods' ? (${podChanged} || ${changed('metadata.ownerReferences')})`
      + ` : ${resource} == 'podtemplates' ? (${SCHEDULING_FIELDS.map((f) => changed(`template.spec.${f}`)).join(' || ')})`
      + ` : (${SCHEDULING_FIELDS.map((f) => changed(`spec.template.spec.${f}`)).join(' || ')})))`,
    variables: [
      { name: 'podSpec', expression: specOf },
      { name: 'tolerations', expression: field('tolerations', '[]') },
      { name: 'nodeSelector', expression: field('nodeSelector', '{}') },
      {
        name: 'affinityTerms',
        expression: `has(variables.podSpec.affinity) && has(variables.podSpec.affinity.nodeAffinity) && has(${affinity}) && has(${affinity}.nodeSelectorTerms) ? ${affinity}.nodeSelectorTerms : []`,
      },
      { name: 'daemonSetController', expression: `has(request.userInfo.username) && request.userInfo.username == '${DAEMON_SET_CONTROLLER_USER}'` },
      // A pod becomes a DaemonSet's: created so, or its owners changed to name one as controller.
      { name: 'becomesDaemonSets', expression: `${resource} == 'pods' && ${controlledByDaemonSet('object')} && !(request.operation == 'UPDATE' && ${controlledByDaemonSet('oldObject')})` },
      { name: TENANCY_VARIABLES.forged, expression: 'variables.becomesDaemonSets && !variables.daemonSetController' },
      {
        name: TENANCY_VARIABLES.judgedAs,
        expression: `${resource} == 'daemonsets' ? '${JUDGED_AS.daemonSet}' : ${resource} != 'pods' ? '${JUDGED_AS.template}'`
          + ` : variables.daemonSetController ? (variables.becomesDaemonSets && request.operation == 'UPDATE' ? '${JUDGED_AS.adopted}' : '${JUDGED_AS.none}')`
          + ` : variables.becomesDaemonSets ? '${JUDGED_AS.none}'`
          + ` : request.operation == 'CREATE' || ${podChanged} ? '${JUDGED_AS.pod}' : '${JUDGED_AS.none}'`,
      },
      // Karpenter may replace an adopted pod's required affinity with its DaemonSet's: not read.
      { name: 'terms', expression: `${judged('adopted')} ? [] : variables.affinityTerms` },
      // Only a pod being created chooses its node by name (an update finds the scheduler's); a template's pods are created with it.
      { name: 'namesNode', expression: `(${resource} != 'pods' || request.operation == 'CREATE') && has(variables.podSpec.nodeName) && variables.podSpec.nodeName != ''` },
      { name: 'selectorNames', expression: `variables.nodeSelector.exists(k, k in ${JSON.stringify(NAMING_LABELS)})` },
      { name: 'selected', expression: `${podLike} ? params.spec.pools.filter(p, ${selectsCel('p')}) : []` },
      { name: 'runsOn', expression: `${podLike} ? params.spec.pools.filter(p, p.dedicated && ${selectionHoldsCel('p')} && ${toleratesCel('p', 'variables.namesNode')}) : []` },
      { name: 'compatible', expression: `${daemonLike} ? params.spec.pools.filter(p, ${selectionHoldsCel('p')} && ${toleratesCel('p', 'false')}) : []` },
      {
        name: TENANCY_VARIABLES.borrowed,
        expression: `${daemonLike} ? variables.compatible : params.spec.pools.filter(p, variables.selected.exists(q, q.name == p.name) || variables.runsOn.exists(q, q.name == p.name))`,
      },
    ],
    validations: [
      {
        expression: `!variables.${TENANCY_VARIABLES.forged}`,
        messageExpression: `'namespace ' + request.namespace + ': only the DaemonSet controller (${DAEMON_SET_CONTROLLER_USER}) may create a pod that names a DaemonSet as its controller, or make a pod one'`
          + ' + \' (Karpenter may size every node for the DaemonSet by such a pod; the policy guards team \' + params.spec.team + \'\\\'s pools)\'',
        message: 'only the DaemonSet controller may create a pod that names a DaemonSet as its controller (see docs/tenancy.md)',
      },
      {
        expression: `size(variables.${TENANCY_VARIABLES.borrowed}) == 0`,
        messageExpression: `'namespace ' + request.namespace + ' may not use team ' + ${team} + '\\'s pool ' + ${first}.name + ' (' + ${what} + ' ' + ${how} + '): only pods of '`
          + ` + ${namespaces} + ' may' + ${more} + ${fix}`,
        message: 'the object selects or can run on a team\'s pool that its namespace may not use (see docs/tenancy.md)',
      },
    ],
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

/** What the policy reads of an object being created. */
export interface PodAdmissionFacts {
  /** The object's namespace. */
  readonly namespace: string;
  /**
   * What the object is: a pod, a pod template (`PodTemplate`, `Deployment`, `ReplicaSet`,
   * `StatefulSet`; a workload of another kind is judged by its pods), or a DaemonSet.
   * @default "Pod"
   */
  readonly kind?: string;
  readonly tolerations: readonly TolerationFacts[];
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Required node affinity terms. @default - none */
  readonly nodeSelectorTerms?: readonly { readonly matchExpressions: readonly RequirementFacts[]; readonly matchFields?: readonly RequirementFacts[] }[];
  /** `spec.nodeName`: the pod names its node. @default - none */
  readonly nodeName?: string;
  /** A pod whose controller (its ownerReference with `controller: true`) is an `apps/v1` DaemonSet. @default false */
  readonly ownedByDaemonSet?: boolean;
  /** The request's user is the DaemonSet controller ({@link DAEMON_SET_CONTROLLER_USER}). @default false */
  readonly byDaemonSetController?: boolean;
  /**
   * `UPDATE`: the request makes an existing pod the object (with `ownedByDaemonSet`: it
   * becomes a DaemonSet's, an adoption); fit only ever creates. @default "CREATE"
   */
  readonly operation?: 'CREATE' | 'UPDATE';
}

/** Why the policy refuses an object: the first pool it borrows, how, and how many of that team's it borrows; or a forged DaemonSet pod. */
export interface Refusal {
  /** The team whose parameter refused it. */
  readonly param: TeamTenancyParam;
  readonly judgedAs: JudgedAs;
  /** A pod that claims a DaemonSet it was not made by. */
  readonly forged: boolean;
  /** The first pool it borrows. @default - none: only forged */
  readonly pool?: GuardedPool;
  readonly how?: 'selects' | 'tolerates' | 'names its node' | 'can run';
  /** Every pool of the parameter it borrows, the first included. */
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

const selectorHolds = (o: PodAdmissionFacts, g: GuardedPool) => Object.entries(o.nodeSelector).every(([k, v]) => !(k in g.labels) || g.labels[k] === v);

/** Whether the node selection (nodeSelector, then one of `terms`) holds on the pool's nodes (mirrors selectionHoldsCel). */
function selectionHolds(o: PodAdmissionFacts, terms: readonly Term[], g: GuardedPool): boolean {
  return selectorHolds(o, g) && (terms.length === 0 || terms.some((t) => termHolds(t, g.labels)));
}

/** Whether the object selects the pool (mirrors selectsCel). */
function selects(o: PodAdmissionFacts, terms: readonly Term[], g: GuardedPool): boolean {
  const selectorNames = Object.keys(o.nodeSelector).some((k) => NAMING_LABELS.includes(k));
  if (!selectorHolds(o, g)) return false;
  if (terms.length === 0) return selectorNames;
  return terms.some((t) => termHolds(t, g.labels) && (selectorNames || t.matchExpressions.some((e) => e.operator === 'In' && NAMING_LABELS.includes(e.key))));
}

/** Whether the object tolerates each taint of the pool (mirrors toleratesCel). */
function toleratesPool(o: PodAdmissionFacts, g: GuardedPool, skipNoSchedule: boolean): boolean {
  return g.taints.every((taint) => (skipNoSchedule && taint.effect === 'NoSchedule') || o.tolerations.some((t) => tolerates(t, taint)));
}

/** What the policy judges the object as (mirrors the `judgedAs` variable, for a request that creates it). */
export function judgedAs(o: PodAdmissionFacts): JudgedAs {
  const kind = o.kind ?? 'Pod';
  if (kind === 'DaemonSet') return JUDGED_AS.daemonSet;
  if (kind !== 'Pod') return JUDGED_AS.template;
  if (o.byDaemonSetController === true) return o.ownedByDaemonSet === true && o.operation === 'UPDATE' ? JUDGED_AS.adopted : JUDGED_AS.none;
  return o.ownedByDaemonSet === true ? JUDGED_AS.none : JUDGED_AS.pod;
}

/** Why one parameter refuses the object being created, or undefined (mirrors {@link tenancyCel}). */
function paramRefusal(o: PodAdmissionFacts, param: TeamTenancyParam): Refusal | undefined {
  if (param.namespaces.includes(o.namespace)) return undefined;
  const as = judgedAs(o);
  const forged = o.ownedByDaemonSet === true && o.byDaemonSetController !== true && (o.kind ?? 'Pod') === 'Pod';
  const daemon = as === JUDGED_AS.daemonSet || as === JUDGED_AS.adopted;
  const podLike = as === JUDGED_AS.pod || as === JUDGED_AS.template;
  const terms = as === JUDGED_AS.adopted ? [] : o.nodeSelectorTerms ?? [];
  const namesNode = o.nodeName !== undefined && o.nodeName !== '';
  const runsOn = (g: GuardedPool) => podLike && g.dedicated && selectionHolds(o, terms, g) && toleratesPool(o, g, namesNode);
  const borrowed = daemon ? param.pools.filter((g) => selectionHolds(o, terms, g) && toleratesPool(o, g, false))
    : podLike ? param.pools.filter((g) => selects(o, terms, g) || runsOn(g)) : [];
  if (borrowed.length === 0 && !forged) return undefined;
  const first = borrowed[0] as GuardedPool | undefined;
  const toleratesDedicated = first?.taints.some((taint) => taint.key === DEDICATED_TAINT_KEY && o.tolerations.some((t) => tolerates(t, taint)));
  const how = first === undefined ? undefined : daemon ? 'can run' : !runsOn(first) ? 'selects' : toleratesDedicated ? 'tolerates' : 'names its node';
  return { param, judgedAs: as, forged, ...(first ? { pool: first, how } : {}), pools: borrowed };
}

/**
 * Why the cluster's tenancy policy refuses the object, or undefined when it admits it (mirrors
 * {@link tenancyCel}): the first parameter, in the policy's order, that refuses it. The API
 * server evaluates every parameter and reports one refusal; which one first is not fixed.
 */
export function tenancyRefusal(o: PodAdmissionFacts, policy: TenancyPolicyModel): Refusal | undefined {
  if (policy.exemptNamespaces.includes(o.namespace)) return undefined;
  for (const param of policy.params) {
    const r = paramRefusal(o, param);
    if (r) return r;
  }
  return undefined;
}

/** Every parameter's refusal of the object (what the API server evaluates; it reports the first). */
export function tenancyRefusals(o: PodAdmissionFacts, policy: TenancyPolicyModel): Refusal[] {
  if (policy.exemptNamespaces.includes(o.namespace)) return [];
  return policy.params.map((param) => paramRefusal(o, param)).filter((r): r is Refusal => r !== undefined);
}

/** The refusals as the policy's messages word them, forged first (the policy's validations run in that order). */
export function refusalMessages(namespace: string, r: Refusal, kind = 'Pod'): string[] {
  const team = r.param.team;
  const out: string[] = [];
  if (r.forged) {
    out.push(`namespace ${namespace}: only the DaemonSet controller (${DAEMON_SET_CONTROLLER_USER}) may create a pod that names a DaemonSet as its controller, or make a pod one `
      + `(Karpenter may size every node for the DaemonSet by such a pod; the policy guards team ${team}'s pools)`);
  }
  if (r.pool === undefined) return out;
  const taint = `${DEDICATED_TAINT_KEY}=${team}:NoSchedule`;
  const daemon = r.judgedAs === JUDGED_AS.daemonSet || r.judgedAs === JUDGED_AS.adopted;
  const what = r.judgedAs === JUDGED_AS.template ? `the ${kind}'s pod template` : r.judgedAs === JUDGED_AS.daemonSet ? 'the DaemonSet\'s pods'
    : r.judgedAs === JUDGED_AS.adopted ? 'the pod the DaemonSet controller adopts' : 'the pod';
  const how = r.how === 'can run' ? 'can run on its nodes, and Karpenter adds their requests to every node of the pool'
    : r.how === 'selects' ? `selects it by ${NODEPOOL_LABEL}, ${NODECLASS_LABEL} or ${TEAM_LABEL}`
      : r.how === 'tolerates' ? `tolerates its taint ${taint}` : `names its node (spec.nodeName), which skips its taint ${taint}`;
  const ns = r.param.namespaces;
  const namespaces = ns.length <= LISTED ? `namespaces ${ns.join(', ')}` : `${ns.length} namespaces of team ${team}`;
  const more = r.pools.length > 1 ? `; in all, ${r.pools.length} of team ${team}'s pools${r.pools.length <= LISTED ? `: ${r.pools.map((p) => p.pool).join(', ')}` : ''}` : '';
  const fix = daemon ? ' (confine it to the namespace\'s pools with a nodeSelector, or run it in an exempt namespace)' : '';
  out.push(`namespace ${namespace} may not use team ${team}'s pool ${r.pool.pool} (${what} ${how}): only pods of ${namespaces} may${more}${fix}`);
  return out;
}

/** The first message of a refusal, as the API server reports it. */
export function refusalMessage(namespace: string, r: Refusal, kind = 'Pod'): string {
  return refusalMessages(namespace, r, kind)[0];
}
