import type { Pool } from '../config/platform';
import type { Requirement } from '../config/platform';
import { COST_CENTER_LABEL, costCenterLabel, DEDICATED_TAINT_KEY, TEAM_LABEL } from '../config/reserved';

export { DEDICATED_TAINT_KEY, MANAGED_BY, TEAM_LABEL } from '../config/reserved';

/**
 * Argo CD sync options of every NodePool and EC2NodeClass: their CRDs arrive in
 * an earlier wave, and deleting either drains every node of the pool, so a
 * person must confirm it in Argo CD.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/
 */
export const POOL_SYNC_OPTIONS = 'SkipDryRunOnMissingResource=true,Prune=confirm,Delete=confirm';

/** A node taint. */
export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export type { Requirement } from '../config/platform';

/** A disruption budget. */
export interface Budget {
  readonly nodes: string;
  readonly schedule?: string;
  readonly duration?: string;
  readonly reasons?: readonly ('Underutilized' | 'Empty' | 'Drifted' | 'Repair')[];
}

/** Everything a NodePool says, derived from one pool; the construct only renders it. */
export interface NodePoolModel {
  readonly name: string;
  /** Node labels: `team`, `cost-center` when the team has one, plus the pool's labels, sorted by key (an adopted pool: its own only). */
  readonly labels: Readonly<Record<string, string>>;
  /** The template's annotations (the nodes'). @default - none */
  readonly annotations?: Readonly<Record<string, string>>;
  /** The name of the EC2NodeClass it uses (shared by the pools that name it). */
  readonly nodeClass: string;
  readonly taints: readonly Taint[];
  readonly startupTaints: readonly Taint[];
  readonly requirements: readonly Requirement[];
  readonly expireAfter: string;
  readonly terminationGracePeriod?: string;
  readonly consolidationPolicy: 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';
  readonly consolidateAfter: string;
  readonly budgets: readonly Budget[];
  readonly limits?: Readonly<Record<string, string | number>>;
  readonly weight?: number;
  /**
   * A static pool's node count (StaticCapacity): Karpenter keeps exactly this many nodes.
   * @default - a dynamic pool, sized by pod demand
   * @see https://karpenter.sh/docs/concepts/nodepools/#specreplicas
   */
  readonly replicas?: number;
}

/** Derives the NodePool of a pool. */
export function nodePoolModel(pool: Pool): NodePoolModel {
  const s = pool.settings;
  return {
    name: pool.name,
    // team and cost-center: the labels OpenCost and Kubecost allocate node cost by (docs/cost.md);
    // cost-center only when set (and a label value), so a team without one keeps its NodePool hash (no drift).
    // An adopted pool (docs/adopting.md) gets nothing of the generator's own.
    labels: s.adopted ? sortKeys(s.labels)
      : sortKeys({ ...s.labels, [TEAM_LABEL]: pool.team, ...(costCenterLabel(pool.costCenter) !== undefined ? { [COST_CENTER_LABEL]: pool.costCenter } : {}) }),
    ...(s.annotations !== undefined ? { annotations: sortKeys(s.annotations) } : {}),
    nodeClass: nodeClassName(pool),
    taints: taints(pool),
    startupTaints: s.startupTaints,
    requirements: requirements(pool),
    expireAfter: s.expireAfter,
    terminationGracePeriod: s.terminationGracePeriod,
    consolidationPolicy: s.disruption.consolidationPolicy,
    consolidateAfter: s.disruption.consolidateAfter,
    // The API server defaults each budget's nodes to 10%; the schema requires it, so it is always written.
    budgets: s.disruption.budgets,
    // A static pool takes only limits.nodes: the config refused others set at its level, and
    // leaves out those it inherits (a pool cannot unset a limit of defaults).
    limits: s.replicas !== undefined && s.limits ? staticLimits(s.limits) : s.limits,
    weight: s.weight,
    replicas: s.replicas,
  };
}

function staticLimits(limits: Readonly<Record<string, string | number>>): Readonly<Record<string, string | number>> | undefined {
  return limits.nodes === undefined ? undefined : { nodes: limits.nodes };
}

/** The name of the pool's EC2NodeClass: `nodeClass`, else the pool's own. */
export function nodeClassName(pool: Pool): string {
  return pool.settings.nodeClass ?? pool.name;
}

/** The pool's node taints: `dedicated=<team>:NoSchedule` when dedicated, then its own. */
export function taints(pool: Pool): Taint[] {
  const s = pool.settings;
  return [
    ...(s.dedicated ? [{ key: DEDICATED_TAINT_KEY, value: pool.team, effect: 'NoSchedule' as const }] : []),
    ...s.taints,
  ];
}

/** The pool's requirements, as the config resolved them (see poolRequirements). */
export function requirements(pool: Pool): Requirement[] {
  return pool.requirements.map((r) => r.requirement);
}

/** A copy of a map with its keys sorted, so reordering the config never changes the output. */
export function sortKeys<T>(map: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
