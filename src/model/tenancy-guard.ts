/**
 * The guard gate of a team's pools (docs/tenancy.md, "Delivery"): the tenancy policies are
 * delivered by their own Application, `<cluster>-policies`, which no maintenance window holds,
 * and each team's pools by `<cluster>-pools-<team>`. Sync waves order resources inside one
 * Application only, and each child Application auto-syncs a commit on its own, so nothing in
 * Argo CD keeps a new pool from being created before the policy that guards it. A guarded team's
 * pools Application therefore carries a PreSync hook Job that waits until the policies guarding the
 * team's pools as the commit has them are live, and fails after a deadline: a PreSync hook runs
 * before any resource of the sync is applied, and its Job's health decides whether the sync goes on
 * (argo-cd v3.5.1 gitops-engine/pkg/sync/sync_tasks.go l. 15-19, the phase order; sync_context.go
 * l. 348-371 getOperationPhase, l. 573-597 running hooks are waited for, l. 634-640 a failed one
 * fails the sync). A hook is never compared (controller/state.go l. 981-985), so the Job changing
 * alone syncs nothing, and a change of who may use the pools (which the digest leaves out) holds no pool.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/resource_hooks/
 */
import type { Cluster, Platform } from '../config/platform';
import { APP_NAMES, MANAGED_BY } from '../config/reserved';
import { GUARD_CLUSTER_ROLE, GuardSpec } from '../gate/guard-spec';
import { digestOf } from './digest';
import { DRIFT_GATE_IMAGE, DRIFT_GATE_MEMORY, driftGateNodeOptions } from './stages';
import type { GuardedPool } from './tenancy';

export { GUARD_ENV, GUARD_RBAC_RULES, GUARDS_ANNOTATION } from '../gate/guard-spec';

/** The label every policy of a cluster's tenancy set carries, as a selector: `app.kubernetes.io/managed-by=karpenter-gitops`. */
export const POLICY_SELECTOR = `app.kubernetes.io/managed-by=${MANAGED_BY}`;

/**
 * Seconds a guard gate's Job may run before Kubernetes fails it (`activeDeadlineSeconds`), and
 * with it the pools' sync; Argo CD then retries the sync (`retry`: 5 times, 10s doubling to 3m),
 * each retry with a new Job. Longer than the policies Application normally lags the pools one
 * after a commit: each sees the commit at its own refresh (a resync every 120s plus up to 60s of
 * jitter, the repo server's ref cache of 3 minutes), then applies its four waves, each waiting for
 * the one before to be healthy. A commit whose policies never arrive holds the team's pools for
 * about an hour of attempts (6 × 10 minutes, plus the backoff), then the sync is Failed and waits
 * for the next commit or a person.
 * @see https://kubernetes.io/docs/concepts/workloads/controllers/job/#job-termination-and-cleanup
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/controller/appcontroller.go#L2393-L2400 (a revision whose sync failed is not auto-synced again)
 */
export const GUARD_GATE_DEADLINE_SECONDS = 600;
/**
 * Seconds the policies must have been live before the gate passes: the API server's policy
 * source recompiles its policies and bindings at most once a second after its informers see a
 * change, on each API server of the control plane.
 * @see https://github.com/kubernetes/kubernetes/blob/03694666bdf4e2dcb6e65185237d1ee30ef10eaf/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/generic/policy_source.go (policyRefreshIntervalDefault = 1 * time.Second)
 */
export const GUARD_GATE_SETTLE_SECONDS = 10;
/** Seconds between two looks of a guard gate. */
export const GUARD_GATE_POLL_SECONDS = 5;

/**
 * The guard digest of each guarded team of a cluster: the digest of the team's guarded pools as
 * the policy judges them — each pool's name, the labels and taints of its nodes, whether it is
 * dedicated — in pool-name order. Not who may use them: a change of access alone (a namespace
 * gained or lost) leaves every digest as it is, so no pool waits for it. A policy object carries,
 * in its `karpenter-gitops.io/guards` annotation, the digest of each team whose pools it holds.
 */
export function teamGuardDigests(pools: readonly GuardedPool[]): Record<string, string> {
  const teams = new Map<string, GuardedPool[]>();
  for (const p of pools) teams.set(p.team, [...(teams.get(p.team) ?? []), p]);
  const byName = (a: { pool: string }, b: { pool: string }) => (a.pool < b.pool ? -1 : a.pool > b.pool ? 1 : 0);
  return Object.fromEntries([...teams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([team, own]) => [team, digestOf({
    team,
    pools: [...own].sort(byName).map((p) => ({
      pool: p.pool,
      dedicated: p.dedicated,
      labels: Object.fromEntries(Object.entries(p.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      taints: p.taints.map((t) => ({ key: t.key, value: t.value ?? '', effect: t.effect })),
    })),
  })]));
}

/** What a team's guard gate waits for: its pools guarded as the commit has them, by `parts` policy objects. */
export interface TeamGuard {
  readonly team: string;
  /** The team's guard digest ({@link teamGuardDigests}). */
  readonly digest: string;
  /** How many policy objects hold the team's pools: each carries the digest. */
  readonly parts: number;
}

/** The guard gate of one team's pools: its PreSync hook Job. */
export interface GuardGateModel {
  /** `guard-gate-<team>` (a long team id is shortened with a digest: a Job's name gives its pods a label of at most 63 characters). */
  readonly name: string;
  readonly namespace: string;
  readonly team: string;
  readonly image: string;
  /** The container's memory request and limit (`gitops.driftGateMemory`, as the drift gate's). */
  readonly memory: string;
  /** `NODE_OPTIONS`: V8's heap sized to {@link memory}. */
  readonly nodeOptions: string;
  /** The program `node -e` runs (src/gate/guard-main.ts). */
  readonly program: string;
  /** What it waits for, passed as JSON in the `GUARD` environment variable. */
  readonly spec: GuardSpec;
  /** Its ServiceAccount: the one of the cluster's {@link GuardGateRbacModel}. */
  readonly serviceAccount: string;
  /** `activeDeadlineSeconds`. @default GUARD_GATE_DEADLINE_SECONDS */
  readonly deadlineSeconds: number;
}

/** The RBAC of a cluster's guard gates, in the policies folder: a ServiceAccount, a ClusterRole and its binding. */
export interface GuardGateRbacModel {
  /** The name of all three: `karpenter-gitops-guard-gate`. */
  readonly name: string;
  /** The ServiceAccount's: the controller's namespace, where the pools' hooks run. */
  readonly namespace: string;
}

/** The Job name of a team's guard gate: `guard-gate-<team>`, at most 63 characters. */
function guardGateName(team: string): string {
  const name = `guard-gate-${team}`;
  return name.length <= 63 ? name : `${name.slice(0, 46).replace(/-+$/, '')}-${digestOf(team)}`;
}

/**
 * The guard gate of a team's pools on `cluster`: a Job that passes once at least `parts` live
 * policies carry `guards[team] == digest`, each with its binding. It runs in the image and memory
 * of the drift gate (`gitops.driftGateImage`, `gitops.driftGateMemory`), as the ServiceAccount of
 * {@link guardGateRbac}.
 * @param program the guard program (src/gate/guard-main.ts, bundled)
 */
export function guardGate(platform: Platform, cluster: Cluster, guard: TeamGuard, program: string): GuardGateModel {
  const { team, digest, parts } = guard;
  const memory = platform.gitops.driftGateMemory ?? DRIFT_GATE_MEMORY;
  return {
    name: guardGateName(team),
    namespace: cluster.karpenter.namespace,
    team,
    image: platform.gitops.driftGateImage ?? DRIFT_GATE_IMAGE,
    memory,
    nodeOptions: driftGateNodeOptions(memory),
    program,
    spec: {
      cluster: cluster.id, team, digest, parts, application: APP_NAMES.policies(cluster.id), policySelector: POLICY_SELECTOR,
      settleSeconds: GUARD_GATE_SETTLE_SECONDS, pollSeconds: GUARD_GATE_POLL_SECONDS,
    },
    serviceAccount: GUARD_CLUSTER_ROLE,
    deadlineSeconds: GUARD_GATE_DEADLINE_SECONDS,
  };
}

/**
 * The RBAC the guard gates of `cluster` run with, delivered with the policies (`<cluster>-policies`,
 * which no window holds and which the root syncs in a wave before the pools), so it exists before
 * any guarded pool syncs.
 */
export function guardGateRbac(cluster: Cluster): GuardGateRbacModel {
  return { name: GUARD_CLUSTER_ROLE, namespace: cluster.karpenter.namespace };
}
