/**
 * How a change lands on a cluster, loudest first. `access`: who may use which team's pools
 * (the tenancy policy, docs/tenancy.md); removing the policy is `destructive`, like a pool.
 * @see https://karpenter.sh/docs/concepts/disruption/#drift
 */
export const RISKS = ['destructive', 'replaces-nodes', 'capacity', 'access', 'controller', 'other'] as const;

/** One of {@link RISKS}. */
export type Risk = (typeof RISKS)[number];

/** Whether `a` is at least as loud as `b`. */
export function atLeast(a: Risk, b: Risk): boolean {
  return RISKS.indexOf(a) <= RISKS.indexOf(b);
}

/** One changed field of a resource, with the class it falls in and why. */
export interface FieldChange {
  readonly risk: Risk;
  /** What changed, for a reviewer: `taint dedicated=web:NoSchedule removed`, `capacity type: added spot`. */
  readonly text: string;
  /** Why it falls in its class, from Karpenter's and Argo CD's rules. */
  readonly why: string;
  /**
   * For node replacements: `every` node of the pools drifts, or only `some` (those
   * that no longer match requirements or selector terms).
   * @default - not a node replacement
   */
  readonly scope?: 'every' | 'some';
}
