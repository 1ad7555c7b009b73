/**
 * Pools a team cannot borrow (docs/tenancy.md): per cluster, a set of ValidatingAdmissionPolicies
 * with no parameter kind, each holding some teams' pools as literal data in its own
 * `spec.variables`, refuses any object a user creates in a namespace a pool's team does not list
 * that would make Karpenter launch, size or place a pod on that pool: a pod that selects a pool or
 * can run on a dedicated one, a DaemonSet whose pods can run on a pool (Karpenter sizes every node
 * of it for them), a pod template (PodTemplate, Deployment, ReplicaSet, StatefulSet, Job,
 * CronJob, ReplicationController) that would; and a pod whose controller reference someone other
 * than a built-in workload controller sets, by the DaemonSet rule (Karpenter takes any pod whose
 * controller reference carries a DaemonSet's UID for that DaemonSet's).
 *
 * Why no parameter kind: the API server resolves a `paramKind` through cached discovery, which
 * lags a new CRD and a restarted API server, and waits for a cold parameter informer; each is a
 * configuration error, and a configuration error denies under `failurePolicy: Fail` whatever
 * the binding's actions say (apiserver v0.34.0 pkg/admission/plugin/policy/validating/dispatcher.go
 * l. 76-114 `addConfigError`, l. 130-134, l. 140-175). A policy whose data are its own literals has
 * nothing to resolve: it is whole the moment it is stored, and one object is stored atomically.
 *
 * Why parts: the API server evaluates each policy once per request (no parameter: one
 * evaluation, dispatcher.go l. 182-214), with its own runtime budget, and the cost of one
 * evaluation grows with the pools it holds; client-side apply keeps the whole object in a 256 KiB
 * annotation, and cel-go parses at most 100,000 code points of an expression. So the pools are
 * packed, team by team, into parts of at most {@link MAX_POOLS_PER_PART} pools and
 * {@link MAX_PART_BYTES} bytes of data. A part is named after the digest of what it holds, and
 * Argo CD creates the new parts (and their bindings) in the earliest waves and prunes the old
 * ones last (PruneLast), so at every moment of a sync the live set judges at least as strictly
 * as one whole revision: never a half-installed set.
 *
 * Why a bounded cost: an object beyond sane sizes (tolerations, node selector entries, required
 * terms and their expressions) is refused by each part before any pool is looked at, so no
 * hostile object makes any part do more than a bounded amount of work per pool.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
 */
import type { Cluster, Pool } from '../config/platform';
import type { TenancyAction } from '../config/schema';
import { SMOKE_TEST_NAMESPACE } from './applications';
import { digestOf } from './digest';
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

/** How the cluster's tenancy policies are named: `<prefix>-<digest of the part>`; their bindings likewise. */
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
 * The built-in controllers that create pods with a controller reference to the object they
 * reconcile (a ReplicaSet, StatefulSet, Job or ReplicationController, by that object's own UID,
 * never one a user wrote): their pods' references are not a claim on a DaemonSet. Any other
 * user who creates a pod with a controller reference, or gives one to a pod, could name a
 * DaemonSet's UID under any kind (Karpenter matches by UID alone), so that pod is judged by the
 * DaemonSet rule.
 * @see https://github.com/kubernetes/kubernetes/blob/v1.34.0/cmd/kube-controller-manager/app/apps.go (replicaset-controller, statefulset-controller)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.34.0/cmd/kube-controller-manager/app/batch.go (job-controller)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.34.0/cmd/kube-controller-manager/app/core.go (replication-controller)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.34.0/pkg/controller/controller_utils.go (CreatePodsWithGenerateName: the controller reference is the controller's own object)
 */
export const WORKLOAD_CONTROLLER_USERS: readonly string[] = ['replicaset-controller', 'statefulset-controller', 'job-controller', 'replication-controller']
  .map((sa) => `system:serviceaccount:kube-system:${sa}`);

/**
 * Argo CD sync options of every tenancy policy and binding: a part whose content changes is
 * replaced by a part of another name, so the old one is pruned only after every wave of the sync
 * (the new parts included) is applied; deleting the Application still asks a person.
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/gitops-engine/pkg/sync/sync_context.go#L1127-L1143 (PruneLast: the sync phase's last wave + 1)
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/
 */
export const POLICY_SYNC_OPTIONS = 'PruneLast=true,Delete=confirm';

/**
 * The Argo CD sync waves of the parts within the policies Application: before anything else
 * there (waves of 0 and later, such as the objects of an earlier release being pruned, whose
 * prune waves are mirrored among themselves: argo-cd v3.5.1 gitops-engine/pkg/sync/sync_context.go l. 1097-1125), so the
 * new set is whole before any old object goes.
 */
export const POLICY_WAVES = { policy: -2, binding: -1 } as const;

/**
 * The most pools one policy holds, and the most bytes of data: a cluster with more is split into
 * parts. Each part then stays far below the 256 KiB that client-side apply's last-applied
 * annotation allows, each data variable below cel-go's 100,000 code points, and one evaluation
 * within the per-call cost limit at the sizes {@link SANE} allows (test/model/tenancy-limits.test.ts).
 * @see https://github.com/kubernetes/apimachinery/blob/v0.34.0/pkg/api/validation/objectmeta.go#L36 (TotalAnnotationSizeLimitB)
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/apis/cel/config.go (PerCallLimit, RuntimeCELCostBudget)
 */
export const MAX_POOLS_PER_PART = 500;
/** The most bytes of one part's data (JSON). */
export const MAX_PART_BYTES = 160 * 1024;
/** The most bytes of one data variable: below cel-go's 100,000 code points (a code point is at least one byte). */
const MAX_VARIABLE_BYTES = 90_000;

/**
 * The sizes an object's scheduling may have for the policies to judge it; an object beyond any
 * of them is refused (Deny) before any pool is looked at, so its cost stays bounded. Kubernetes
 * itself has no such limits; these are far beyond what a workload writes (the largest in the
 * tests: 40 tolerations, 8 selector entries, 10 terms of 10 expressions).
 * - `relevant`: expressions of one term on a label some guarded pool's nodes carry (its team,
 *   NodePool, EC2NodeClass and template labels): only those are compared with each pool;
 * - `relevantValues`: values of one such expression.
 */
export const SANE = { tolerations: 64, nodeSelector: 64, terms: 16, expressions: 64, fields: 16, relevant: 4, relevantValues: 32, ownerReferences: 32 } as const;

/** The Kubernetes resources the policy judges, by API group: what a pod is made from, or is. */
export const JUDGED_RESOURCES = {
  core: ['pods', 'podtemplates', 'replicationcontrollers'],
  apps: ['daemonsets', 'deployments', 'replicasets', 'statefulsets'],
  batch: ['jobs', 'cronjobs'],
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

/** One ValidatingAdmissionPolicy of the set, with its binding of the same name. */
export interface TenancyPolicyPart {
  /** `karpenter-gitops-team-pools-<digest>`: a change of what it holds is a new part. */
  readonly name: string;
  /** Its pools, in the cluster's pool order. */
  readonly pools: readonly GuardedPool[];
  /** The policy's spec, as the API server stores it. */
  readonly spec: PolicySpec;
  /** The binding's spec. */
  readonly binding: BindingSpec;
}

/** The tenancy policy of one cluster; the constructs only render it. */
export interface TenancyPolicyModel {
  /** The prefix of the parts' names. */
  readonly name: string;
  /** The pools of the teams that list namespaces, in the cluster's pool order. */
  readonly pools: readonly GuardedPool[];
  /** The policies (each with its binding), in pool order. */
  readonly parts: readonly TenancyPolicyPart[];
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
  const action = cluster.tenancyAction ?? 'Deny';
  const exemptNamespaces = [...new Set(['kube-system', cluster.karpenter.namespace, ...configured])].sort();
  return {
    name: TENANCY_POLICY_NAME,
    pools,
    parts: packParts(pools).map((held) => part(held, exemptNamespaces, action)),
    exemptNamespaces,
    configuredExemptions: [...configured],
    action,
  };
}

// ==== Data: a part's pools as literals

/**
 * A part's pools as the policy's data variables hold them: literals that are JSON too (the review
 * reads them back), each of one type as Kubernetes' CEL requires of a literal
 * (HomogeneousAggregateLiterals), looked up by pool name.
 */
export interface PartData {
  /** The pools, in the cluster's order (the order a refusal names them in). */
  readonly pools: readonly string[];
  /** Each pool's team. */
  readonly teams: Readonly<Record<string, string>>;
  /** Each team's namespaces: who may use its pools. */
  readonly namespaces: Readonly<Record<string, readonly string[]>>;
  /** Whether each pool is dedicated (its nodes carry `dedicated=<team>:NoSchedule`). */
  readonly dedicated: Readonly<Record<string, boolean>>;
  /** The labels of each pool's nodes. */
  readonly labels: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The distinct NoSchedule and NoExecute taints of the part's pools. */
  readonly taintSet: readonly { readonly key: string; readonly value: string; readonly effect: string }[];
  /** Each pool's taints, as indexes into {@link taintSet}. */
  readonly taintIds: Readonly<Record<string, readonly number[]>>;
  /** The label keys any of the part's pools carries (a requirement on another key holds on every pool). */
  readonly carried: readonly string[];
}

/** The names of the data variables, in the policy's order. */
const DATA_VARIABLES = ['pools', 'teams', 'namespaces', 'dedicated', 'labels', 'taintSet', 'taintIds', 'carried'] as const satisfies readonly (keyof PartData)[];

/** The data of some pools. */
export function partData(pools: readonly GuardedPool[]): PartData {
  const taintKey = (t: Taint) => JSON.stringify([t.key, t.value ?? '', t.effect]);
  const distinct = [...new Map(pools.flatMap((p) => p.taints).map((t) => [taintKey(t), t] as const)).values()];
  const index = new Map(distinct.map((t, i) => [taintKey(t), i]));
  return {
    pools: pools.map((p) => p.pool),
    teams: Object.fromEntries(pools.map((p) => [p.pool, p.team])),
    namespaces: Object.fromEntries(pools.map((p) => [p.team, p.namespaces])),
    dedicated: Object.fromEntries(pools.map((p) => [p.pool, p.dedicated])),
    labels: Object.fromEntries(pools.map((p) => [p.pool, p.labels])),
    taintSet: distinct.map((t) => ({ key: t.key, value: t.value ?? '', effect: t.effect })),
    taintIds: Object.fromEntries(pools.map((p) => [p.pool, p.taints.map((t) => index.get(taintKey(t)) ?? -1)])),
    carried: [...new Set([...NAMING_LABELS, ...pools.flatMap((p) => Object.keys(p.labels))])].sort(),
  };
}

/**
 * The pools packed into parts, in pool order: a part takes pools while it holds at most
 * {@link MAX_POOLS_PER_PART}, its data at most {@link MAX_PART_BYTES} and each data variable at
 * most {@link MAX_VARIABLE_BYTES}. Sizes are counted as the JSON of each variable grows (an entry
 * and its comma), so packing costs one pass.
 */
function packParts(pools: readonly GuardedPool[]): GuardedPool[][] {
  const json = (v: unknown) => Buffer.byteLength(JSON.stringify(v)) + 1;
  const parts: GuardedPool[][] = [];
  let current: GuardedPool[] = [];
  let sizes = new Map<string, number>();
  let seen = new Set<string>();
  const grow = (p: GuardedPool) => {
    const add = new Map<string, number>([
      ['pools', json(p.pool)], ['teams', json(p.pool) + json(p.team)], ['dedicated', json(p.pool) + 6], ['labels', json(p.pool) + json(p.labels)],
      ['taintIds', json(p.pool) + json(p.taints.map(() => 9999))],
      ['namespaces', seen.has(`team:${p.team}`) ? 0 : json(p.team) + json(p.namespaces)],
      ['taintSet', p.taints.filter((t) => !seen.has(`taint:${JSON.stringify(t)}`)).reduce((n, t) => n + json({ key: t.key, value: t.value ?? '', effect: t.effect }), 0)],
      ['carried', Object.keys(p.labels).filter((k) => !seen.has(`key:${k}`)).reduce((n, k) => n + json(k), 0)],
    ]);
    return new Map([...add].map(([k, v]) => [k, (sizes.get(k) ?? 2) + v]));
  };
  const note = (p: GuardedPool) => {
    seen.add(`team:${p.team}`);
    for (const t of p.taints) seen.add(`taint:${JSON.stringify(t)}`);
    for (const k of Object.keys(p.labels)) seen.add(`key:${k}`);
  };
  for (const p of pools) {
    let next = grow(p);
    const total = [...next.values()].reduce((a, b) => a + b, 0);
    if (current.length > 0 && (current.length + 1 > MAX_POOLS_PER_PART || total > MAX_PART_BYTES || Math.max(...next.values()) > MAX_VARIABLE_BYTES)) {
      parts.push(current);
      current = [];
      sizes = new Map();
      seen = new Set();
      next = grow(p);
    }
    current.push(p);
    sizes = next;
    note(p);
  }
  if (current.length > 0) parts.push(current);
  return parts;
}

// ==== The policy's spec and its binding

/** A ValidatingAdmissionPolicy's spec as the policy sets it (admissionregistration.k8s.io/v1). */
export interface PolicySpec {
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly matchConstraints: {
    readonly matchPolicy: 'Equivalent';
    readonly resourceRules: readonly { readonly apiGroups: readonly string[]; readonly apiVersions: readonly string[]; readonly operations: readonly string[]; readonly resources: readonly string[]; readonly scope: '*' }[];
    readonly namespaceSelector: { readonly matchExpressions: readonly { readonly key: string; readonly operator: 'NotIn'; readonly values: readonly string[] }[] };
    readonly objectSelector: Record<string, never>;
  };
  readonly matchConditions: readonly { readonly name: string; readonly expression: string }[];
  readonly variables: readonly CelVariable[];
  readonly validations: readonly (CelValidation & { readonly reason: 'Forbidden' })[];
}

/** A ValidatingAdmissionPolicyBinding's spec. */
export interface BindingSpec {
  readonly policyName: string;
  readonly validationActions: readonly string[];
}

/**
 * One part: its policy, named by the digest of its spec, and its binding. `Deny` fails closed
 * (an object the policy cannot judge, a cost limit hit, is refused); `Warn` and `Audit` fail open
 * (`Ignore`): neither ever refuses anything, a configuration error or a failed evaluation
 * included (dispatcher.go l. 86-89, validator.go l. 60-65).
 */
function part(pools: readonly GuardedPool[], exempt: readonly string[], action: TenancyAction): TenancyPolicyPart {
  const cel = tenancyCel(partData(pools));
  const spec: PolicySpec = {
    failurePolicy: action === 'Deny' ? 'Fail' : 'Ignore',
    // The API server's defaults written out (matchPolicy, objectSelector, scope), so Argo CD sees no diff.
    matchConstraints: {
      matchPolicy: 'Equivalent',
      resourceRules: [
        { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: [...JUDGED_RESOURCES.core], scope: '*' },
        { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: [...JUDGED_RESOURCES.apps], scope: '*' },
        { apiGroups: ['batch'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: [...JUDGED_RESOURCES.batch], scope: '*' },
      ],
      namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: [...exempt] }] },
      objectSelector: {},
    },
    matchConditions: [{ name: 'judged', expression: cel.matchCondition }],
    variables: cel.variables,
    validations: cel.validations.map((v) => ({ ...v, reason: 'Forbidden' as const })),
  };
  const name = `${TENANCY_POLICY_NAME}-${digestOf({ spec, action }).slice(0, 10)}`;
  return { name, pools, spec, binding: { policyName: name, validationActions: validationActions(action) } };
}

/** The binding's validationActions for an action (Deny and Warn never go together). */
export function validationActions(action: TenancyAction): string[] {
  return [action];
}

// ==== The rule
// An object of a namespace that a pool's team does not list is refused when:
//
// - a pod (created, or updated in what it tolerates or selects), by anyone but the DaemonSet
//   controller, selects the pool or can run on it while it is dedicated:
//   - it selects the pool: its nodeSelector, together with one of its required node affinity
//     terms (any one: the scheduler may use any, and Karpenter tries each in turn), holds on the
//     pool's nodes and asks for one of NAMING_LABELS with In (a nodeSelector entry is an In);
//   - it can run on the pool's nodes, when the pool is dedicated: its node selection holds on
//     them and it tolerates each of their NoSchedule and NoExecute taints; a pod created with
//     spec.nodeName skips the scheduler, and with it the NoSchedule taints (the kubelet checks
//     only NoExecute ones);
// - a pod template (PodTemplate, Deployment, ReplicaSet, StatefulSet, Job, CronJob,
//   ReplicationController: what a CapacityBuffer's podTemplateRef or scalableRef provisions from,
//   as virtual pods no admission sees, or what a controller makes pods from) by the same rule as
//   a pod, when it is applied rather than only when its pods are refused one by one;
// - a DaemonSet (created, or its template's scheduling changed) whose pods can run on the pool,
//   dedicated or not: Karpenter adds a DaemonSet's requests to every node of each pool its
//   template is compatible with, and the DaemonSet controller puts a pod on each node;
// - a pod the DaemonSet controller adopts, or a pod to which anyone but a built-in workload
//   controller (WORKLOAD_CONTROLLER_USERS) gives a controller reference (creating it so, or
//   adding or changing the reference; any apiVersion, any kind), by the DaemonSet rule on its
//   nodeSelector and tolerations: Karpenter takes any pod whose controller reference carries a
//   DaemonSet's UID for that DaemonSet's, the newest one standing for the DaemonSet, with the
//   DaemonSet's own required affinity in place of the pod's (so the pod's affinity is not read
//   for this rule); such a pod is judged by the pod rule too;
// - an object beyond the sizes of SANE, whatever it asks for, before any pool is looked at.
//
// The DaemonSet controller's other requests (creating a DaemonSet's pods, releasing them) are
// judged through the DaemonSet, which was judged when created or changed. Node selection holds on
// a pool's nodes when each requirement on a label the pool's nodes carry (GuardedPool.labels)
// holds for its value (Gt and Lt: when it is a number at all); a requirement on any other label
// (an instance type's, a zone's) or on a node's name (matchFields) is taken to hold: the policy
// cannot tell which pool those belong to, so only the requirements on carried labels are
// compared with each pool (`relevant`, computed once per request). An empty term holds: the
// scheduler matches no node by it, but Karpenter reads only a term's expressions and launches a
// node for it. Preferred node affinity never widens where a pod may run, so it is not read.
// Kubernetes runs validating admission after an object passed its own validation, so a
// toleration with an empty key has operator Exists, Gt and Lt carry one integer, and a
// NodeSelector has its terms; every optional field is still read behind has(): an absent field
// is an error in CEL, not a zero.
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/pod/scheduling.go#L102-L108 (IsProvisionable)
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/preferences.go#L74-L88 (each required term in turn)
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/provisioner.go#L534-L558 (getDaemonSetPods: the newest controlled pod, else the template)
// @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/state/cluster.go (daemonSetPods: metav1.IsControlledBy, by UID)
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

/** A CEL string literal of `text`. */
const celString = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** CEL: `field` of `x` if set, else ''. */
const orEmpty = (x: string, field: string) => `(has(${x}.${field}) ? ${x}.${field} : '')`;

/** CEL: the toleration `t` tolerates `taint` (a map of key, value and effect), as Kubernetes matches them. */
function tolerationCel(t: string, taint: string): string {
  const op = orEmpty(t, 'operator');
  return `(${orEmpty(t, 'effect')} == '' || ${t}.effect == ${taint}.effect) && (${orEmpty(t, 'key')} == '' || ${t}.key == ${taint}.key) && `
    + `(${op} == '' || ${op} == 'Equal' ? ${orEmpty(t, 'value')} == ${taint}.value : ${op} == 'Exists' || ((${op} == 'Lt' || ${op} == 'Gt') && ${taint}.value.matches('${INTEGER}')))`;
}

/** CEL: the node selector requirement `e` holds on nodes labelled `labels` (a label they do not carry: taken to hold). */
function holdsCel(e: string, labels: string): string {
  const value = `${labels}[${e}.key]`;
  const listed = `(has(${e}.values) && ${value} in ${e}.values)`;
  return `(!(${e}.key in ${labels}) || (${e}.operator == 'In' ? ${listed} : ${e}.operator == 'NotIn' ? !${listed} : ${e}.operator == 'DoesNotExist' ? false `
    + `: (${e}.operator != 'Gt' && ${e}.operator != 'Lt') || ${value}.matches('${INTEGER}')))`;
}

/** CEL: the labels of pool `p`'s nodes. */
const labelsOf = (p: string) => `variables.labels[${p}]`;

/** CEL: the nodeSelector's entries on carried labels hold on the nodes of pool `p`. */
const selectorHoldsCel = (p: string) => `variables.relSelector.all(k, !(k in ${labelsOf(p)}) || ${labelsOf(p)}[k] == variables.nodeSelector[k])`;

/** CEL: one of the terms `terms` (each a list of relevant expressions, or none at all) holds on the nodes of pool `p`. */
const termsHoldCel = (terms: string, p: string) => `(size(${terms}) == 0 || ${terms}.exists(t, t.all(e, ${holdsCel('e', labelsOf(p))})))`;

/** CEL: term `t` (its relevant expressions) asks for a naming label with In. */
const termNamesCel = (t: string) => `${t}.exists(e, e.operator == 'In' && e.key in ${JSON.stringify(NAMING_LABELS)})`;

/** CEL: the object selects pool `p` (by the pod rule). */
function selectsCel(p: string): string {
  return `(${selectorHoldsCel(p)} && (size(variables.relTerms) == 0 ? variables.selectorNames : variables.relTerms.exists(t, t.all(e, ${holdsCel('e', labelsOf(p))}) && (variables.selectorNames || ${termNamesCel('t')}))))`;
}

/** CEL: the object tolerates each taint of pool `p`; `skipNoSchedule` when it names its node. */
const toleratesCel = (p: string, skipNoSchedule: string) => `variables.taintIds[${p}].all(i, variables.tolerated[i] || (${skipNoSchedule} && variables.taintSet[i].effect == 'NoSchedule'))`;

/** What the policy judges an object as, per {@link JudgedAs}. */
export const JUDGED_AS = { pod: 'pod', template: 'template', daemonSet: 'daemonSet', adopted: 'adopted', owned: 'owned', none: 'none' } as const;
/**
 * `pod`: by the pod rule; `template`: a pod template, by the pod rule; `daemonSet`: by where its
 * pods can run; `adopted`: a pod the DaemonSet controller adopts, by the DaemonSet rule; `owned`:
 * a pod given a controller reference by someone else, by both rules; `none`: judged through its
 * controller.
 */
export type JudgedAs = (typeof JUDGED_AS)[keyof typeof JUDGED_AS];

/** The names of the policy's variables that fit, the review and tests read. */
export const TENANCY_VARIABLES = { borrowed: 'borrowed', judgedAs: 'judgedAs', sane: 'sane' } as const;

/** One CEL variable of the policy (`variables.<name>`), evaluated lazily and at most once per request. */
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

/** The CEL of a tenancy policy part: its variables, validations and match condition. */
export interface TenancyCel {
  /** In order: each may read the ones before it; the part's data first. */
  readonly variables: readonly CelVariable[];
  /** In order: an object beyond the sane sizes, then the pools the object would borrow. */
  readonly validations: readonly CelValidation[];
  /**
   * Which requests the policy looks at: an object being created, or updated in what it tolerates
   * or selects (a pod's owners too: a new controller reference makes it what Karpenter may size
   * nodes by). A pod's other updates (labels, finalizers, status) and the scaling of a workload
   * are never refused.
   */
  readonly matchCondition: string;
}

/** The pod spec's fields that decide where a pod may run. */
const SCHEDULING_FIELDS = ['tolerations', 'nodeSelector', 'affinity'];

/** Where each judged resource keeps its pods' spec, below the object. */
const POD_SPEC_PATH: Readonly<Record<string, readonly string[]>> = {
  pods: ['spec'],
  podtemplates: ['template', 'spec'],
  cronjobs: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
  // deployments, replicasets, statefulsets, daemonsets, jobs, replicationcontrollers
  '*': ['spec', 'template', 'spec'],
};

/** CEL: the pod spec of `o` for the request's resource (`{}` where an optional level is absent). */
function podSpecCel(o: string): string {
  const at = (path: readonly string[]) => {
    const levels = path.map((_, i) => `${o}.${path.slice(0, i + 1).join('.')}`);
    return `(${levels.map((l) => `has(${l})`).join(' && ')} ? ${levels[levels.length - 1]} : {})`;
  };
  const r = 'request.resource.resource';
  return `(${r} == 'pods' ? ${o}.spec : ${r} == 'podtemplates' ? ${at(POD_SPEC_PATH.podtemplates)} : ${r} == 'cronjobs' ? ${at(POD_SPEC_PATH.cronjobs)} : ${at(POD_SPEC_PATH['*'])})`;
}

/** CEL: the controller references of `o` (a pod's): those with `controller: true`. */
const controllerOf = (o: string) => `(has(${o}.metadata.ownerReferences) ? ${o}.metadata.ownerReferences.filter(r, has(r.controller) && r.controller) : [])`;

/**
 * The policy's CEL for one part (its pools' data as literals). Of the part's pools, `borrowed`
 * are those the object may not use by the rule it is judged by (see "The rule" above).
 */
export function tenancyCel(data: PartData): TenancyCel {
  const r = 'request.resource.resource';
  // Per resource, whether a scheduling field of its pods' spec differs between the object and the old one (absent on one side counts).
  const present = (o: string, path: readonly string[]) => path.map((_, i) => `has(${o}.${path.slice(0, i + 1).join('.')})`).join(' && ');
  const changedAt = (spec: readonly string[]) => SCHEDULING_FIELDS.map((f) => {
    const path = [...spec, f];
    const [now, was] = [present('object', path), present('oldObject', path)];
    return `(${now}) != (${was}) || ((${now}) && object.${path.join('.')} != oldObject.${path.join('.')})`;
  }).join(' || ');
  const changed = `(${r} == 'pods' ? (${changedAt(POD_SPEC_PATH.pods)}) : ${r} == 'podtemplates' ? (${changedAt(POD_SPEC_PATH.podtemplates)})`
    + ` : ${r} == 'cronjobs' ? (${changedAt(POD_SPEC_PATH.cronjobs)}) : (${changedAt(POD_SPEC_PATH['*'])}))`;
  const ownersChanged = `${controllerOf('object')} != ${controllerOf('oldObject')}`;
  const judged = (...as: JudgedAs[]) => `(${as.map((a) => `variables.${TENANCY_VARIABLES.judgedAs} == '${a}'`).join(' || ')})`;
  const podRule = judged('pod', 'template', 'owned');
  const daemonRule = judged('daemonSet', 'adopted', 'owned');
  const field = (name: string, empty: string) => `has(variables.podSpec.${name}) ? variables.podSpec.${name} : ${empty}`;
  const affinity = 'variables.podSpec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution';
  const s = SANE;
  const podBorrows = (p: string) => `(${podRule} && ((variables.dedicated[${p}] && ${toleratesCel(p, 'variables.namesNode')} && ${selectorHoldsCel(p)} && ${termsHoldCel('variables.relTerms', p)})`
    + ` || (variables.names && ${selectsCel(p)})))`;
  const daemonBorrows = (p: string) => `(${daemonRule} && ${toleratesCel(p, 'false')} && ${selectorHoldsCel(p)} && ${termsHoldCel('variables.daemonTerms', p)})`;
  return {
    matchCondition: `request.operation == 'CREATE' || ${changed} || (${r} == 'pods' && ${ownersChanged})`,
    variables: [
      ...DATA_VARIABLES.map((name) => ({ name, expression: JSON.stringify(data[name]) })),
      { name: 'podSpec', expression: podSpecCel('object') },
      { name: 'tolerations', expression: field('tolerations', '[]') },
      { name: 'nodeSelector', expression: field('nodeSelector', '{}') },
      {
        name: 'affinityTerms',
        expression: `has(variables.podSpec.affinity) && has(variables.podSpec.affinity.nodeAffinity) && has(${affinity}) && has(${affinity}.nodeSelectorTerms) ? ${affinity}.nodeSelectorTerms : []`,
      },
      // Sizes first, each read in constant time, so nothing below iterates an unbounded list.
      {
        name: TENANCY_VARIABLES.sane,
        expression: `size(variables.tolerations) <= ${s.tolerations} && size(variables.nodeSelector) <= ${s.nodeSelector} && size(variables.affinityTerms) <= ${s.terms}`
          + ` && (!has(object.metadata.ownerReferences) || size(object.metadata.ownerReferences) <= ${s.ownerReferences})`
          + ` && variables.affinityTerms.all(t, (!has(t.matchExpressions) || size(t.matchExpressions) <= ${s.expressions}) && (!has(t.matchFields) || size(t.matchFields) <= ${s.fields}))`,
      },
      // The requirements on labels some pool's nodes carry: the only ones compared with each pool.
      { name: 'relSelector', expression: 'variables.nodeSelector.filter(k, k in variables.carried)' },
      { name: 'relTerms', expression: 'variables.affinityTerms.map(t, has(t.matchExpressions) ? t.matchExpressions.filter(e, e.key in variables.carried) : [])' },
      { name: 'saneRelevant', expression: `variables.${TENANCY_VARIABLES.sane} && variables.relTerms.all(t, size(t) <= ${s.relevant} && t.all(e, !has(e.values) || size(e.values) <= ${s.relevantValues}))` },
      { name: 'daemonSetController', expression: `has(request.userInfo.username) && request.userInfo.username == '${DAEMON_SET_CONTROLLER_USER}'` },
      { name: 'workloadController', expression: `has(request.userInfo.username) && request.userInfo.username in ${JSON.stringify(WORKLOAD_CONTROLLER_USERS)}` },
      // A pod is given a controller reference: created with one, or one added or changed.
      { name: 'claims', expression: `${r} == 'pods' && size(${controllerOf('object')}) > 0 && (request.operation == 'CREATE' || ${ownersChanged})` },
      {
        name: TENANCY_VARIABLES.judgedAs,
        expression: `${r} == 'daemonsets' ? '${JUDGED_AS.daemonSet}' : ${r} != 'pods' ? '${JUDGED_AS.template}'`
          + ` : variables.claims && variables.daemonSetController ? (request.operation == 'UPDATE' ? '${JUDGED_AS.adopted}' : '${JUDGED_AS.none}')`
          + ` : variables.claims && !variables.workloadController ? '${JUDGED_AS.owned}'`
          + ` : variables.daemonSetController ? '${JUDGED_AS.none}'`
          + ` : request.operation == 'CREATE' || ${changed} ? '${JUDGED_AS.pod}' : '${JUDGED_AS.none}'`,
      },
      // Karpenter replaces an adopted or claimed pod's required affinity with its DaemonSet's: not read by the DaemonSet rule.
      { name: 'daemonTerms', expression: `${judged('daemonSet')} ? variables.relTerms : []` },
      // Only a pod being created chooses its node by name (an update finds the scheduler's); a template's pods are created with it.
      { name: 'namesNode', expression: `(${r} != 'pods' || request.operation == 'CREATE') && has(variables.podSpec.nodeName) && variables.podSpec.nodeName != ''` },
      { name: 'selectorNames', expression: `variables.relSelector.exists(k, k in ${JSON.stringify(NAMING_LABELS)})` },
      { name: 'names', expression: `variables.selectorNames || variables.relTerms.exists(t, ${termNamesCel('t')})` },
      // Each distinct taint of the part, tolerated or not: once per request, not once per pool.
      { name: 'tolerated', expression: `variables.taintSet.map(s, variables.tolerations.exists(t, ${tolerationCel('t', 's')}))` },
      {
        name: TENANCY_VARIABLES.borrowed,
        expression: `variables.saneRelevant ? variables.pools.filter(p, !(request.namespace in variables.namespaces[variables.teams[p]]) && (${daemonBorrows('p')} || ${podBorrows('p')})) : []`,
      },
    ],
    validations: [saneValidation(), borrowedValidation(daemonBorrows)],
  };
}

/** The validation that refuses an object beyond the sane sizes, naming its sizes (read in constant time). */
function saneValidation(): CelValidation {
  const s = SANE;
  const limits = `at most ${s.tolerations} tolerations, ${s.nodeSelector} node selector entries, ${s.terms} required node affinity terms of ${s.expressions} expressions and ${s.fields} fields, `
    + `${s.ownerReferences} owner references, and per term ${s.relevant} expressions of at most ${s.relevantValues} values on the labels of the cluster's pools (team, ${NODEPOOL_LABEL}, ...)`;
  return {
    expression: `variables.saneRelevant`,
    messageExpression: `'namespace ' + request.namespace + ': the ' + request.kind.kind + ' has ' + string(size(variables.tolerations)) + ' tolerations, '`
      + ` + string(size(variables.nodeSelector)) + ' node selector entries and ' + string(size(variables.affinityTerms)) + ' required node affinity terms;'`
      + ` + ${celString(` the tenancy policy judges objects of ${limits}, and refuses larger ones (docs/tenancy.md)`)}`,
    message: `the object is larger than the tenancy policy judges: ${limits} (see docs/tenancy.md)`,
  };
}

/** The validation that refuses an object that borrows a pool, naming the first, its team, how, and the others. */
function borrowedValidation(daemonBorrows: (p: string) => string): CelValidation {
  const first = 'variables.borrowed[0]';
  const team = `variables.teams[${first}]`;
  const ns = `variables.namespaces[${team}]`;
  const byDaemonRule = daemonBorrows(first);
  const kind = `request.kind.kind`;
  const judged = (a: JudgedAs) => `variables.${TENANCY_VARIABLES.judgedAs} == '${a}'`;
  const what = `(${judged('template')} ? 'the ' + ${kind} + '\\'s pod template' : ${judged('daemonSet')} ? 'the DaemonSet\\'s pods'`
    + ` : ${judged('adopted')} ? 'the pod the DaemonSet controller adopts' : ${judged('owned')} ? 'the pod, whose controller reference Karpenter may take for a DaemonSet\\'s,' : 'the pod')`;
  const taint = `'${DEDICATED_TAINT_KEY}=' + ${team} + ':NoSchedule'`;
  const dedicatedTolerated = `variables.taintSet.exists(s, s.key == '${DEDICATED_TAINT_KEY}' && s.value == ${team} && variables.tolerations.exists(t, ${tolerationCel('t', 's')}))`;
  const how = `(${byDaemonRule} ? 'can run on its nodes, and Karpenter adds their requests to every node of the pool'`
    + ` : !(variables.dedicated[${first}] && ${toleratesCel(first, 'variables.namesNode')}) ? 'selects it by ${NODEPOOL_LABEL}, ${NODECLASS_LABEL} or ${TEAM_LABEL}'`
    + ` : ${dedicatedTolerated} ? 'tolerates its taint ' + ${taint} : 'names its node (spec.nodeName), which skips its taint ' + ${taint})`;
  const namespaces = `(size(${ns}) <= ${LISTED} ? 'namespaces ' + ${ns}.join(', ') : string(size(${ns})) + ' namespaces of team ' + ${team})`;
  const more = `(size(variables.borrowed) > 1 ? '; in all, ' + string(size(variables.borrowed)) + ' pools it may not use'`
    + ` + (size(variables.borrowed) <= ${LISTED} ? ': ' + variables.borrowed.join(', ') : '') : '')`;
  const fix = `(${byDaemonRule} ? ' (confine it to the namespace\\'s pools with a nodeSelector, or run it in an exempt namespace)' : '')`;
  return {
    expression: `size(variables.${TENANCY_VARIABLES.borrowed}) == 0`,
    messageExpression: `'namespace ' + request.namespace + ' may not use team ' + ${team} + '\\'s pool ' + ${first} + ' (' + ${what} + ' ' + ${how} + '): only pods of '`
      + ` + ${namespaces} + ' may' + ${more} + ${fix}`,
    message: 'the object selects or can run on a team\'s pool that its namespace may not use (see docs/tenancy.md)',
  };
}
