/**
 * Where a workload's pods can run: every pool of every cluster, each a fit, refused by the
 * cluster's tenancy policy, or rejected with the first reason, checked in Karpenter's order
 * against the fleet's plan (each pool's NodePool and EC2NodeClass models, the instance types it
 * admits after overlays, a static pool's nodes).
 */
import type { InstanceType } from '../catalog/catalog';
import { catalogMatcher, describe, Matcher, priceRange, PriceRange } from '../catalog/match';
import type { Cluster, Platform } from '../config/platform';
import type { FleetPlan, PoolPlan } from '../model/plan';
import { nodeAllocatable } from './allocatable';
import type { PodConstraints, Workload, WorkloadKind } from './manifest';
import { expressionRequirements, nodeSelectorRequirements, poolTemplate, PoolTemplate, selectNodes, Selection } from './node-selection';
import { poolBounds, poolLimitReason, resourceReason, typesThatHold } from './resources';
import { formatTaint, untoleratedTaints } from './tolerations';
import type { TenancyPolicyModel } from '../model/tenancy';
import { evaluateTenancy, KIND_RESOURCES } from './admission';

/** A pool of a cluster. */
export interface PoolRef {
  readonly cluster: string;
  readonly pool: string;
  /**
   * Whether the cluster's tenancy policy lets the workload's namespace use the pool
   * (docs/tenancy.md). @default - the cluster has no tenancy policy
   */
  readonly admission?: Admission;
}

/** What the cluster's tenancy policy says about the workload and one pool. */
export interface Admission {
  /**
   * The policy does not refuse the pod as written, and its namespace may use the pool (what
   * action Deny enforces; Warn and Audit admit a pod all the same, see the reason).
   */
  readonly allowed: boolean;
  /** Why not. @default - allowed */
  readonly reason?: string;
}

/** A pool the workload can run on. */
export interface Fit extends PoolRef {
  /** How many instance types the pool could launch for it (on a static pool: that its nodes may be of). */
  readonly instanceTypes: number;
  /** Their on-demand list price range per hour, after the cluster's overlays. @default - none is priced */
  readonly prices?: PriceRange;
  /**
   * A static pool: Karpenter launches no node for the pod and keeps `nodes` nodes, each of one
   * of the `admittedTypes` instance types the pool admits; the pod fits on them if they are of a
   * type that can hold it. @default - a dynamic pool: a new node is launched for it
   */
  readonly static?: StaticNodes;
}

/** Where a pod can run on a pool: what {@link Fit} says besides the pool. */
export type Placement = Pick<Fit, 'instanceTypes' | 'prices' | 'static'>;

/** What a static pool keeps. */
export interface StaticNodes {
  /** Its nodes: replicas, at most limits.nodes (the plan's). */
  readonly nodes: number;
  /** How many instance types it admits, after overlays: its nodes are of those. */
  readonly admittedTypes: number;
}

/**
 * A pool Karpenter could place the workload on, where it still does not run: the cluster's
 * tenancy policy (action Deny) refuses its pods when they are created.
 */
export interface Refusal extends PoolRef {
  /** Why admission refuses the pods (the same on every pool of the cluster). */
  readonly reason: string;
  /** How many instance types the pool could launch for it, were it admitted. */
  readonly instanceTypes: number;
}

/** A pool the workload cannot run on, and the first reason. */
export interface Rejection extends PoolRef {
  readonly reason: string;
}

/** Where one workload can run. Each pool is in exactly one of the lists. */
export interface WorkloadFit {
  readonly kind: WorkloadKind;
  readonly namespace: string;
  readonly name: string;
  /** The pools it runs on. In the platform's order of clusters and pools. */
  readonly fits: readonly Fit[];
  /** The pools it would fit but admission refuses it. In the platform's order of clusters and pools. */
  readonly refused: readonly Refusal[];
  /** The pools it cannot run on. In the platform's order of clusters and pools. */
  readonly rejected: readonly Rejection[];
}

/**
 * Every workload against every pool of the platform's clusters (or of `clusters` only), as the
 * plan has them.
 * @param plan the platform's plan (model/checks.ts loadPlan): each pool's models, admitted types and the tenancy policies
 * @param clusters the ids of the clusters to place on (`fit --cluster`, `--stage`, `--group`). @default - every cluster
 */
export function fitWorkloads(workloads: readonly Workload[], platform: Platform, plan: FleetPlan, matcher: Matcher = catalogMatcher(), clusters?: readonly string[]): WorkloadFit[] {
  return workloads.map((w) => {
    const fits: Fit[] = [];
    const refused: Refusal[] = [];
    const rejected: Rejection[] = [];
    for (const [i, cluster] of platform.clusters.entries()) {
      if (clusters !== undefined && !clusters.includes(cluster.id)) continue;
      const planned = plan.clusters[i];
      const policy = planned.tenancyPolicy?.model;
      const admit = policy ? admissionOf(w, policy) : undefined;
      for (const pool of planned.pools) {
        const placed = placePod(w.pod, pool, cluster, matcher);
        const at = { cluster: cluster.id, pool: pool.name, ...(admit ? { admission: admit.of(pool) } : {}) };
        if ('reason' in placed) rejected.push({ ...at, reason: placed.reason });
        else if (admit?.refused !== undefined) refused.push({ ...at, reason: admit.refused, instanceTypes: placed.instanceTypes });
        else fits.push({ ...at, ...placed });
      }
    }
    return { kind: w.kind, namespace: w.namespace, name: w.name, fits, refused, rejected };
  });
}

/** What the cluster's tenancy policy says about a workload's pods. */
interface WorkloadAdmission {
  /** Why the policy refuses the pods as written, with action Deny: they run on no pool of the cluster. @default - they are admitted */
  readonly refused?: string;
  /** What it says about each pool. */
  readonly of: (pool: PoolPlan) => Admission;
}

/**
 * What the cluster's tenancy policy says about a workload and each pool: it refuses the
 * workload as written when it (a Deployment's or StatefulSet's pod template, a Job's pods, a
 * Pod) selects or can run on a pool its namespace may not use, or (a DaemonSet) when its pods
 * can run on such a pool at all, or (a Pod) when it claims a DaemonSet as its controller (then
 * every pool of the cluster says so, and with action Deny it runs on none; Warn and Audit admit
 * it); otherwise the pool is open to the namespace when the pool is not guarded (the plan's
 * facts.admission), its team lists the namespace, or the namespace is exempt.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/#validation-actions
 */
function admissionOf(w: Workload, policy: TenancyPolicyModel): WorkloadAdmission {
  const allowed = { of: () => ({ allowed: true }) };
  if (policy.exemptNamespaces.includes(w.namespace)) return allowed;
  const refusal = evaluateTenancy(policy, { operation: 'CREATE', namespace: w.namespace, object: w.object, resource: KIND_RESOURCES[w.kind] })
    .flatMap((v) => v.refusals)[0];
  if (refusal !== undefined) {
    const message = refusal;
    if (policy.action === 'Deny') {
      const refused = { allowed: false, reason: `admission refuses the ${w.kind === 'Pod' ? 'pod' : w.kind}: ${message}` };
      return { refused: refused.reason, of: () => refused };
    }
    const admitted = {
      allowed: false,
      reason: policy.action === 'Warn'
        ? `admission admits it with a warning (tenancy action Warn): ${message}`
        : `admission admits it and records the refusal in the audit log (tenancy action Audit): ${message}`,
    };
    return { of: () => admitted };
  }
  return {
    of: (pool) => {
      const g = pool.facts.admission;
      if (!g || g.namespaces.includes(w.namespace)) return { allowed: true };
      const chance = g.dedicated ? '' : ' (the pool is not dedicated: a pod that neither tolerates nor selects it may still land on it)';
      return {
        allowed: false,
        reason: `namespace ${w.namespace} may not use team ${g.team}'s pools (only ${g.namespaces.join(', ')}): admission refuses the pod once it tolerates or selects this pool${chance}`,
      };
    },
  };
}

/**
 * Whether a pod can run on a new node of the pool (a static pool: on its nodes): how many
 * instance types could hold it, or the first reason it cannot. The pool is its plan: its
 * NodePool (taints, labels, requirements, limits), its EC2NodeClass (volumes, kubelet), the
 * instance types it admits after the cluster's overlays and a static pool's nodes; the cluster
 * gives the controller's settings. The checks, in Karpenter's order:
 *
 * 1. the pool's limits must allow a node at all (a static pool must keep one);
 * 2. taints: the pod tolerates every NoSchedule and NoExecute taint of the pool;
 * 3. node selection: `spec.nodeName` names no node yet to be made; the nodeSelector,
 *    then one of the required node affinity terms, holds on the pool's nodes;
 * 4. resources: an instance type that selection left, within the pool's limits, holds
 *    the pod's requests in what a node of the pool can allocate (see nodeAllocatable),
 *    and the pool's minValues are still met.
 *
 * A static pool (replicas) launches no node for a pod: Karpenter's provisioner leaves static
 * NodePools out, and the static controller keeps exactly their replicas (at most limits.nodes),
 * of any type the pool admits. So there the answer is the pool's nodes, which hold the pod if
 * they are of one of the types counted.
 *
 * Preferences never reject (Karpenter relaxes them); pod (anti-)affinity, topology
 * spread, volumes and DaemonSet overhead depend on the running cluster and are not checked.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go (addToNewNodeClaim)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaim.go (CanAdd)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/provisioner.go (NewScheduler: static NodePools are left out)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/static/provisioning/controller.go (Reconcile: replicas NodeClaims, up to limits.nodes)
 */
export function placePod(pod: PodConstraints, pool: PoolPlan, cluster: Cluster, matcher: Matcher): Placement | { reason: string } {
  const kept = pool.facts.nodes;
  if (kept === 0) return { reason: `the pool is static and keeps no node (${staticSize(pool)})` };
  const template = poolTemplate(pool);
  const bounds = poolBounds(pool.nodePool, cluster, matcher);
  const nodes = (types: readonly InstanceType[]) => types.map((t) => nodeAllocatable(t, pool.nodeClass, bounds.vmMemoryOverhead));
  const limited = poolLimitReason(nodes(template.admitted), bounds);
  if (limited) return { reason: limited };
  const untolerated = untoleratedTaints(template.taints, pod.tolerations);
  if (untolerated.length > 0) return { reason: `untolerated taint${untolerated.length > 1 ? 's' : ''} ${untolerated.map(formatTaint).join(', ')}` };
  if (pod.nodeName) return { reason: `spec.nodeName binds it to node ${pod.nodeName}; ${template.unnamed}` };

  const selections = termSelections(pod, template, matcher);
  const passed = selections.flatMap((s) => ('admitted' in s ? [nodes(s.admitted)] : []));
  if (passed.length === 0) return { reason: selectionReason(selections) };
  const holding = new Set(passed.flatMap((admitted) => typesThatHold(admitted, pod.requests, bounds)));
  const reasons = passed.map((admitted) => resourceReason(admitted, pod.requests, bounds));
  if (reasons.some((r) => r === undefined)) {
    const prices = priceRange([...holding]);
    return {
      instanceTypes: holding.size,
      ...(prices ? { prices } : {}),
      ...(kept !== undefined ? { static: { nodes: kept, admittedTypes: template.admitted.length } } : {}),
    };
  }
  return { reason: reasons[0] as string };
}

/** `replicas: 0`, or `replicas: 4, limits.nodes: 0`. */
function staticSize(pool: PoolPlan): string {
  const limit = pool.nodePool.limits?.nodes;
  return `replicas: ${pool.facts.replicas}${limit !== undefined ? `, limits.nodes: ${limit}` : ''}`;
}

/**
 * The node selection of the nodeSelector alone when it fails (every term would fail
 * with it), else of the nodeSelector with each required affinity term. Terms are ORed
 * (Karpenter tries the next when one cannot schedule); an empty term matches no node,
 * and one whose matchFields ask for a node by name cannot be a new node.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/preferences.go (removeRequiredNodeAffinityTerm)
 * @see https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#node-affinity
 */
function termSelections(pod: PodConstraints, template: PoolTemplate, matcher: Matcher): Selection[] {
  const selector = nodeSelectorRequirements(pod.nodeSelector);
  const alone = selectNodes(selector, template, matcher);
  if (pod.nodeSelectorTerms === undefined || 'reason' in alone) return [alone];
  return pod.nodeSelectorTerms.map((term, i): Selection => {
    const byName = (term.matchFields ?? []).find((f) => f.operator === 'In');
    if (byName) return { reason: `nodeSelectorTerms[${i}] selects nodes by name (matchFields ${describe(byName)}); ${template.unnamed}` };
    if (term.matchExpressions.length === 0 && (term.matchFields ?? []).length === 0) return { reason: `nodeSelectorTerms[${i}] is empty and matches no node` };
    return selectNodes([...selector, ...expressionRequirements(term.matchExpressions)], template, matcher);
  });
}

/** The reason of the one selection, or of each term. */
function selectionReason(selections: readonly Selection[]): string {
  const reasons = selections.map((s) => ('reason' in s ? s.reason : ''));
  if (reasons.length === 1) return reasons[0];
  return `none of the ${reasons.length} nodeSelectorTerms holds: ${reasons.map((r, i) => `[${i}] ${r}`).join('; ')}`;
}
