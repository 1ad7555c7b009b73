/**
 * Names the generator sets on every pool. The config layer rejects them in user
 * input and the model writes them, both from here, so the two never disagree.
 */

/** Node label holding the owning team. */
export const TEAM_LABEL = 'team';
/** The node label with the team's cost center (`costCenter`), for OpenCost and Kubecost (docs/cost.md). */
export const COST_CENTER_LABEL = 'cost-center';

/**
 * The `cost-center` node label's value for a team's `costCenter`: the cost center when it is a
 * label value (at most 63 letters, digits, `-`, `_`, `.`), else none (load warns: the EC2 tag
 * takes any text, a label does not).
 */
export function costCenterLabel(costCenter: string | undefined): string | undefined {
  return costCenter !== undefined && costCenter.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(costCenter) ? costCenter : undefined;
}
/** Taint key of a dedicated pool; its value is the team. */
export const DEDICATED_TAINT_KEY = 'dedicated';
/** Value of `app.kubernetes.io/managed-by` and of the EC2 tag `managed-by`. */
export const MANAGED_BY = 'karpenter-gitops';
/** EC2 tag keys the generator sets (see the model's `tags()`). */
export const GENERATED_TAG_KEYS: readonly string[] = [TEAM_LABEL, 'owner', 'cost-center', 'managed-by', 'Name'];

/**
 * The names of the Applications the generator writes. All live in Argo CD's one namespace,
 * so they are checked to be distinct across the fleet (a cluster `a-pools-b` and a team
 * `b-karpenter-root` of cluster `a` would collide).
 */
export const APP_NAMES = {
  crds: (cluster: string) => `${cluster}-karpenter-crd`,
  controller: (cluster: string) => `${cluster}-karpenter`,
  pools: (cluster: string, team: string) => `${cluster}-pools-${team}`,
  legacyPools: (cluster: string) => `${cluster}-karpenter-nodepools`,
  smokeTests: (cluster: string) => `${cluster}-karpenter-smoke-tests`,
  policies: (cluster: string) => `${cluster}-policies`,
  overlays: (cluster: string) => `${cluster}-overlays`,
  driftGate: (cluster: string) => `${cluster}-drift-gate`,
  root: (cluster: string) => `${cluster}-karpenter-root`,
  bootstrap: 'karpenter-gitops-bootstrap',
} as const;
