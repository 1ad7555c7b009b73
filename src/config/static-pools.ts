/**
 * The rules on a static pool (`replicas` set): the NodePool CRD's (only `limits.nodes`, no
 * `weight`), the StaticCapacity gate's, and how drift replaces its nodes, which depends on the
 * cluster's release and its `terminateFirstDrift` gate.
 */
import type { PoolSettings } from './platform';
import type { FieldPath, Problem } from '../input/problems';
import type { ReleaseFacts } from '../release/types';
import { compareRelease } from '../release/versions';

/** What the rules here need of a pool: its name, its cluster and where a field was set. */
export interface StaticPoolContext {
  /** The pool's name (its NodePool's). */
  readonly name: string;
  /** The cluster's id. */
  readonly cluster: string;
  /** A problem at the line that set `path`. */
  problem(path: FieldPath, message: string): Problem;
  /** The index in the inheritance chain of the level that set `path` (-1: the built-in default). */
  levelOf(path: FieldPath): number;
}

/** The cluster's release and gates, as the pool's checks see them. */
export interface StaticPoolRelease {
  /** Its Karpenter release (`karpenter.version`). */
  readonly version: string;
  /** Its release's facts. */
  readonly facts: ReleaseFacts;
  /** Its `karpenter.controller.featureGates`, merged. @default - none set */
  readonly featureGates?: Readonly<Record<string, boolean>>;
}

/**
 * The first release with the `terminateFirstDrift` feature gate ("lets drift terminate a node
 * before launching its replacement on a capacity-constrained NodePool").
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.15.0/charts/karpenter/values.yaml#L262-L264 (../shared/upstream/karpenter-v1.15.0/chart-values.yaml L262-L264)
 */
export const TERMINATE_FIRST_DRIFT_SINCE = '1.15.0';

/**
 * Whether drift on cluster release `version` with these gates deletes a node before launching
 * its replacement: from {@link TERMINATE_FIRST_DRIFT_SINCE}, with `featureGates.terminateFirstDrift`
 * true (ALPHA, off by default). Before, and with the gate off, it launches first.
 */
export function driftTerminatesFirst(version: string, featureGates: Readonly<Record<string, boolean>> | undefined): boolean {
  return version !== '' && compareRelease(version, TERMINATE_FIRST_DRIFT_SINCE) >= 0 && featureGates?.terminateFirstDrift === true;
}

/**
 * Whether drift makes a static pool dip: it deletes a node before its replacement, on a cluster
 * where drift terminates first ({@link driftTerminatesFirst}), when `limits.nodes` (set, not 0)
 * leaves no room above `replicas` (capacity-constrained: with room Karpenter launches first).
 */
export function staticDriftDips(s: PoolSettings, karpenter: { readonly version: string; readonly controller: { readonly featureGates: Readonly<Record<string, boolean>> } }): boolean {
  const limit = s.limits?.nodes;
  if (s.replicas === undefined || limit === undefined) return false;
  const nodes = Number(limit);
  return nodes > 0 && nodes <= s.replicas && driftTerminatesFirst(karpenter.version, karpenter.controller.featureGates);
}

/**
 * The NodePool CRD's rules on a static pool: only `limits.nodes`, no `weight`.
 * @see https://karpenter.sh/docs/concepts/nodepools/#specreplicas
 */
export function checkStaticPool(ctx: StaticPoolContext, s: PoolSettings, add: (path: FieldPath, message: string) => void): void {
  if (s.replicas === undefined) return;
  // Limits merge key by key, so a pool cannot unset the cpu limit of defaults: inherited from a
  // less specific level than replicas they are left out of the NodePool (nodePoolModel); set at
  // replicas' level or below they are a mistake the CRD would refuse.
  const level = ctx.levelOf(['replicas']);
  for (const key of Object.keys(s.limits ?? {}).filter((k) => k !== 'nodes')) {
    if (ctx.levelOf(['limits', key]) < level) continue;
    add(['limits', key], `pool ${ctx.name} is static (replicas: ${s.replicas}), and a static NodePool may only limit nodes: remove limits.${key} (or use limits.nodes)`);
  }
  if (s.weight !== undefined) {
    add(['weight'], `pool ${ctx.name} is static (replicas: ${s.replicas}), and a static NodePool takes no weight: remove weight`);
  }
}

/**
 * The release's rules on a static pool: it needs the controller's StaticCapacity gate (its
 * release must have it, and the cluster must not turn it off: the generator turns it on wherever
 * a pool sets replicas), and room to replace a drifted node ({@link staticDriftProblems}).
 * @see https://karpenter.sh/docs/reference/settings/#feature-gates
 */
export function staticPoolReleaseProblems(ctx: StaticPoolContext, s: PoolSettings, release: StaticPoolRelease): Problem[] {
  if (!release.facts.featureGates.includes('staticCapacity')) {
    return [ctx.problem(['replicas'], `cluster ${ctx.cluster} runs Karpenter ${release.version}, which has no StaticCapacity feature gate, so pool ${ctx.name} cannot set replicas: `
      + `upgrade this cluster's Karpenter first (clusters.${ctx.cluster}.karpenter.version), or remove replicas`)];
  }
  if (release.featureGates?.staticCapacity === false) {
    return [ctx.problem(['replicas'], `pool ${ctx.name} sets replicas on cluster ${ctx.cluster}, whose karpenter.controller.featureGates.staticCapacity is false: `
      + 'remove that setting (the generator turns the gate on where a pool is static), or remove replicas')];
  }
  return staticDriftProblems(ctx, s, release);
}

/**
 * A static pool whose `limits.nodes` leaves no room above `replicas` never has a drifted node
 * replaced, unless drift terminates first. Karpenter's StaticDrift launches the replacement
 * first: it reserves one node per replacement under `limits.nodes`, counting the active,
 * deleting and pending-disruption nodes, and skips the pool when nothing is left, so with
 * `limits.nodes <= replicas` a drifted node waits for ever, whatever the budgets allow. With
 * `featureGates.terminateFirstDrift` (1.15.0 and later) drift deletes the node first and the
 * static controller refills it: valid, the pool one node short while each node is replaced.
 * `limits.nodes: 0` keeps no node, so nothing drifts.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/disruption/staticdrift.go#L68-L89 (nodeLimit, ReserveNodeCount, maxAllowedDrifts == 0: continue)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/state/statenodepool.go#L134-L157 (ReserveNodeCount: limit - (active + deleting + pendingdisruption) - reserved)
 * @see https://github.com/aws/karpenter-provider-aws/issues/8873 (drift deadlocks on a static NodePool when limits.nodes == replicas)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.15.0/charts/karpenter/values.yaml#L262-L264 (terminateFirstDrift)
 */
export function staticDriftProblems(ctx: StaticPoolContext, s: PoolSettings, release: Pick<StaticPoolRelease, 'version' | 'featureGates'>): Problem[] {
  const limit = s.limits?.nodes;
  if (s.replicas === undefined || s.replicas === 0 || limit === undefined) return [];
  const nodes = Number(limit);
  if (!Number.isFinite(nodes) || nodes === 0 || nodes > s.replicas || driftTerminatesFirst(release.version, release.featureGates)) return [];
  const gate = compareRelease(release.version, TERMINATE_FIRST_DRIFT_SINCE) >= 0
    ? `, or set clusters.${ctx.cluster}.karpenter.controller.featureGates.terminateFirstDrift: true (drift then deletes a node before its replacement: the pool is one node short while each is replaced)`
    : ` (Karpenter ${TERMINATE_FIRST_DRIFT_SINCE} and later can delete first, with featureGates.terminateFirstDrift)`;
  return [{
    ...ctx.problem(['limits', 'nodes'], `pool ${ctx.name} is static (replicas: ${s.replicas}) with limits.nodes: ${limit}: Karpenter ${release.version} replaces a drifted static node `
      + 'by launching its replacement first, within limits.nodes, so with no room above replicas no drifted node is ever replaced (aws/karpenter-provider-aws#8873): '
      + `set limits.nodes to at least ${s.replicas + 1} (each node above replicas is one replacement at a time), or remove it${gate}`),
    // The CRD accepts it: a cluster may run it, and adopt says so.
    refusesRunningState: true,
  }];
}
