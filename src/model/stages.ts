import { createHash } from 'node:crypto';
import type { Cluster, Platform } from '../config/platform';
import { APP_NAMES } from '../config/reserved';
import type { ApplicationModel, ProjectModel } from './applications';
import { clusterTeams, CLUSTER_KINDS, JOB_KIND, KARPENTER_CHART_REPO, NAMESPACED_KINDS } from './applications';
import { syncWindowModel, SyncWindowModel } from '../schedule/windows';

/** Branch prefix of the stage refs: a stage-N cluster's pools track `<prefix>N` (N ≥ 2). */
export const STAGE_REF_PREFIX = 'karpenter-gitops/stage-';
/**
 * Image of the drift gate Job: it runs `/bin/sh -c` with kubectl. A pinned tag, so the gate
 * never changes under a fleet; set `gitops.driftGateImage` to an image of your registry that
 * holds both (docs/windows.md).
 */
export const DRIFT_GATE_IMAGE = 'registry.k8s.io/kubectl:v1.34.1';
/** How long a gate waits for the drifted nodes of its pools before it fails (the Application turns Degraded). */
export const DRIFT_GATE_DEADLINE_SECONDS = 6 * 3600;
/** Seconds between two looks at the NodeClaims. Karpenter re-evaluates drift about every five minutes. */
export const DRIFT_GATE_POLL_SECONDS = 30;
/** The last sync wave inside a pool Application: after every NodePool and EC2NodeClass. */
export const DRIFT_GATE_WAVE = 10;

/** The git revision the pool Applications of a cluster track: the stage ref for stage 2 and later. */
export function poolRevision(platform: Platform, cluster: Cluster): string {
  if (cluster.stage === undefined || cluster.stage < 2) return platform.gitops.targetRevision;
  return `${platform.gitops.stageRefPrefix ?? STAGE_REF_PREFIX}${cluster.stage}`;
}

/** The AppProject of a cluster's pool Applications when it has a window: `<cluster>-pools`. */
export function poolProjectName(cluster: Cluster): string {
  return `${cluster.id}-pools`;
}

/** The Applications that follow a cluster's stage and window: one per team's pools, and the tenancy policy. */
export function stagedApplicationNames(cluster: Cluster): string[] {
  // The policy Application exists when a team of the cluster lists namespaces (model/applications.ts).
  const policies = cluster.pools.some((p) => p.namespaces !== undefined) ? [APP_NAMES.policies(cluster.id)] : [];
  return [...clusterTeams(cluster).map((t) => APP_NAMES.pools(cluster.id, t)), ...policies];
}

/**
 * A cluster Application as its stage and window want it: the pool and policy Applications
 * track the stage's revision and, with a window, sit in the cluster's own AppProject (which
 * carries the sync window). The CRDs, the controller and the smoke tests are left as they are.
 */
export function staged(platform: Platform, cluster: Cluster, app: ApplicationModel): ApplicationModel {
  if (!stagedApplicationNames(cluster).includes(app.name)) return app;
  const revision = poolRevision(platform, cluster);
  return {
    ...app,
    project: cluster.window ? poolProjectName(cluster) : app.project,
    sources: app.sources.map((s) => ('path' in s && s.path !== undefined ? { ...s, targetRevision: revision } : s)),
  };
}

/** An AppProject with the sync windows of a cluster's pools. */
export interface PoolProjectModel extends ProjectModel {
  readonly syncWindows: readonly SyncWindowModel[];
}

/**
 * The AppProject `<cluster>-pools` of a cluster with a window: the git repository, the
 * cluster's destination in the controller's namespace (where pools, policy and gate go), the
 * fleet project's kinds, and the window as an `allow` sync window for the pool Applications.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync_windows/
 */
export function poolProject(platform: Platform, cluster: Cluster): PoolProjectModel | undefined {
  if (!cluster.window) return undefined;
  return {
    name: poolProjectName(cluster),
    namespace: platform.gitops.argocdNamespace,
    sourceRepos: [platform.gitops.repoURL, KARPENTER_CHART_REPO],
    destinations: [{ ...cluster.destination, namespace: cluster.karpenter.namespace }],
    clusterResourceWhitelist: CLUSTER_KINDS,
    namespaceResourceWhitelist: isGated(platform, cluster) ? [...NAMESPACED_KINDS, JOB_KIND] : NAMESPACED_KINDS,
    syncWindows: [syncWindowModel(cluster.window, stagedApplicationNames(cluster))],
  };
}

/** The file of a cluster's pool project under `argocd/` (a dot: no cluster id can clash with it). */
export function poolProjectFile(cluster: Cluster): string {
  return `${cluster.id}.project`;
}

/** Whether a later stage waits for this cluster: some cluster is at its stage + 1. */
export function isGated(platform: Platform, cluster: Cluster): boolean {
  return cluster.stage !== undefined && platform.clusters.some((c) => c.stage === cluster.stage! + 1);
}

/** The drift gate Job of one team's pools, and what it needs. */
export interface DriftGateModel {
  /** `drift-gate-<team>-<hash>`: a new Job whenever the team's pools change. */
  readonly name: string;
  readonly namespace: string;
  readonly team: string;
  /** The NodePools whose NodeClaims it watches. */
  readonly nodePools: readonly string[];
  readonly image: string;
  readonly deadlineSeconds: number;
  readonly pollSeconds: number;
  /** The ServiceAccount, ClusterRole and ClusterRoleBinding: `karpenter-gitops-drift-gate-<team>`. */
  readonly rbacName: string;
}

/**
 * The gate of a team's pools in a cluster a later stage waits for: a regular Job (not a
 * hook, so it counts toward the Application's health) in the last sync wave, Progressing
 * until no NodeClaim of the team's pools is Drifted, Degraded when its deadline passes.
 * `pools` is what it gates (the rendered pool files): its hash names the Job, so a change
 * to the pools makes a new Job (a Job's template cannot change in place).
 * @see https://github.com/argoproj/gitops-engine/blob/master/pkg/health/health_job.go
 */
export function driftGateModel(platform: Platform, cluster: Cluster, team: string, pools: string): DriftGateModel {
  const hash = createHash('sha256').update(pools).digest('hex').slice(0, 8);
  return {
    name: `drift-gate-${team}-${hash}`.slice(0, 63),
    namespace: cluster.karpenter.namespace,
    team,
    nodePools: cluster.pools.filter((p) => p.team === team).map((p) => p.name),
    image: platform.gitops.driftGateImage ?? DRIFT_GATE_IMAGE,
    deadlineSeconds: DRIFT_GATE_DEADLINE_SECONDS,
    pollSeconds: DRIFT_GATE_POLL_SECONDS,
    rbacName: `karpenter-gitops-drift-gate-${team}`,
  };
}

/**
 * The gate's script: poll the team's NodeClaims until none has a `Drifted` condition with
 * status True (Karpenter sets it True with a reason and removes it, never sets it False).
 */
export function driftGateScript(gate: DriftGateModel): string {
  const selector = `karpenter.sh/nodepool in (${gate.nodePools.join(',')})`;
  const jsonpath = '{range .items[*]}{.metadata.name}{" "}{.status.conditions[?(@.type=="Drifted")].status}{"\\n"}{end}';
  return [
    'set -eu',
    'while true; do',
    // Assigned alone, so a failing kubectl (RBAC, API) fails the Job instead of reading as none drifted.
    `  claims=$(kubectl get nodeclaims.karpenter.sh -l '${selector}' -o jsonpath='${jsonpath}')`,
    '  drifted=$(printf \'%s\\n\' "$claims" | grep -c \' True$\' || true)',
    '  if [ "$drifted" = "0" ]; then echo "no drifted NodeClaim in ' + gate.nodePools.join(', ') + '"; exit 0; fi',
    `  echo "$drifted drifted NodeClaim(s) left; next look in ${gate.pollSeconds}s"`,
    `  sleep ${gate.pollSeconds}`,
    'done',
  ].join('\n');
}
