/**
 * The fleet's plan: every generated file's content as plain typed data, derived once from a
 * `Platform` before anything is rendered. Charts render it and decide nothing; `explain`,
 * `fit` and the summaries read it where they need a derived model.
 */
import type { Cluster, NodeOverlaySpec, Platform, Pool } from '../config/platform';
import { ApplicationModel, ARGOCD_FILES, bootstrapApplication, clusterApplications, overlaysDir, policiesDir, poolsDir, ProjectModel, projectModel, rootApplication, SMOKE_TEST_NAMESPACE } from './applications';
import { chartValues } from './controller-values';
import { CapacityBufferModel, capacityBufferModel } from './capacity-buffer';
import { NodeClassModel, nodeClassModel } from './node-class';
import { NodePoolModel, nodePoolModel } from './node-pool';
import { SmokeTestModel, smokeTestModel } from './smoke-test';
import { summaryMarkdown, summaryRows } from './summary';
import { withWindowBudgets, windowHeader } from '../schedule/windows';
import { DriftGateModel, driftGateModel, isGated, poolProject, poolProjectFile, staged } from './stages';
import { TenancyPolicyModel, tenancyPolicy } from './tenancy';

/** Options of {@link fleetPlan}. */
export interface PlanOptions {
  /**
   * The config the platform was read from, relative to the output root (`/`-separated):
   * `dist/SUMMARY.md` names it.
   * @default "config/platform.yaml"
   */
  readonly configFile?: string;
}

/** One generated file's content: where it goes (relative to the output root, `/`-separated) and what it holds. */
export interface Planned<T> {
  readonly path: string;
  readonly model: T;
}

/** One pool's smoke test: its file, its Deployment, and the namespace it runs in. */
export interface PlannedSmokeTest extends Planned<SmokeTestModel> {
  readonly namespace: string;
}

/** One pool of a cluster: its NodePool and EC2NodeClass file, and its smoke test. */
export interface PoolPlan {
  /** The pool's name: its NodePool's, its EC2NodeClass's and its smoke test's. */
  readonly name: string;
  readonly team: string;
  /** `dist/<cluster>/nodepools/<team>/<pool>.yaml`. */
  readonly path: string;
  readonly nodePool: NodePoolModel;
  readonly nodeClass: NodeClassModel;
  /** `dist/<cluster>/smoke-tests/<pool>.yaml`. @default - none: the cluster has no smoke tests */
  readonly smokeTest?: PlannedSmokeTest;
  /** Comment lines above the pool's file: its cluster's maintenance window. @default - none: the cluster has no window */
  readonly header?: string;
}

/** Everything generated for one cluster. */
export interface ClusterPlan {
  readonly id: string;
  /** The Karpenter release (chart version) the cluster runs. */
  readonly karpenterVersion: string;
  /** `dist/<cluster>/apps/<file>.yaml`, in wave order (see clusterApplications). */
  readonly applications: readonly Planned<ApplicationModel>[];
  /** `argocd/<cluster>.yaml`: the cluster's app of apps. */
  readonly root: Planned<ApplicationModel>;
  /** `dist/<cluster>/karpenter/values.yaml`: the controller chart's values. */
  readonly controllerValues: Planned<Record<string, unknown>>;
  /** `dist/<cluster>/policies/team-pools.yaml`. @default - none: no team of the cluster lists namespaces */
  readonly tenancyPolicy?: Planned<TenancyPolicyModel>;
  /** In the cluster's pool order. */
  readonly pools: readonly PoolPlan[];
  /** `dist/<cluster>/nodepools/<team>/_buffer.yaml`: a team's CapacityBuffer, with its team's pools. */
  readonly buffers: readonly Planned<CapacityBufferModel>[];
  /** `dist/<cluster>/overlays/<name>.yaml`: one NodeOverlay each. */
  readonly overlays: readonly Planned<NodeOverlaySpec>[];
  /** `dist/<cluster>/smoke-tests/_namespace.yaml`: the namespace's name. @default - none: the cluster has no smoke tests */
  readonly smokeTestNamespace?: Planned<string>;
  /** `dist/<cluster>/nodepools/<team>/_drift-gate.yaml`, per team. @default - none: no later stage waits for the cluster */
  readonly driftGates: readonly Planned<DriftGateModel>[];
  /** `argocd/<cluster>.project.yaml`: the AppProject of its pool Applications, with its sync window. @default - none: the cluster has no window or stage */
  readonly poolProject?: Planned<ProjectModel>;
}

/** The whole fleet's plan: per cluster, then the files of `argocd/` and `dist/SUMMARY.md`. */
export interface FleetPlan {
  readonly clusters: readonly ClusterPlan[];
  /** `argocd/bootstrap.yaml`. */
  readonly bootstrap: Planned<ApplicationModel>;
  /** `argocd/project.yaml`. @default - none: `gitops.project` is `default` */
  readonly project?: Planned<ProjectModel>;
  /** `argocd/helm-repository.yaml`: Argo CD's namespace. */
  readonly helmRepository: Planned<string>;
  /** `argocd/argocd-cm-patch.yaml`: Argo CD's namespace. */
  readonly healthPatch: Planned<string>;
  /** `dist/SUMMARY.md`. */
  readonly summary: Planned<string>;
  /** What synth prints after writing: a header row, then one row per pool (cluster, pool, arch, capacity, types, limits). */
  readonly summaryRows: readonly (readonly string[])[];
}

/** The plan of every generated file of a platform. Pure: it reads no file and builds no construct. */
export function fleetPlan(platform: Platform, options: PlanOptions = {}): FleetPlan {
  const clusters = platform.clusters.map((cluster) => clusterPlan(platform, cluster));
  const argocd = (file: string) => `argocd/${file}.yaml`;
  const project = projectModel(platform);
  const namespace = platform.gitops.argocdNamespace;
  return {
    clusters,
    bootstrap: { path: argocd(ARGOCD_FILES.bootstrap), model: bootstrapApplication(platform) },
    ...(project ? { project: { path: argocd(ARGOCD_FILES.project), model: project } } : {}),
    helmRepository: { path: argocd(ARGOCD_FILES.helmRepository), model: namespace },
    healthPatch: { path: argocd(ARGOCD_FILES.healthPatch), model: namespace },
    summary: { path: 'dist/SUMMARY.md', model: summaryMarkdown(platform, options.configFile ?? 'config/platform.yaml', clusters) },
    summaryRows: summaryRows(platform),
  };
}

/** The plan of one cluster's files. */
export function clusterPlan(platform: Platform, cluster: Cluster): ClusterPlan {
  const dir = `dist/${cluster.id}`;
  const root = rootApplication(platform, cluster);
  const policy = tenancyPolicy(cluster);
  const pools = cluster.pools.map((pool) => poolPlan(cluster, pool));
  const project = poolProject(platform, cluster);
  const teams = [...new Set(pools.map((p) => p.team))];
  // A gate is named by the hash of what it gates: the team's NodePool and EC2NodeClass models.
  const gate = (team: string) => driftGateModel(platform, cluster, team,
    JSON.stringify(pools.filter((p) => p.team === team).map((p) => [p.nodePool, p.nodeClass])));
  return {
    id: cluster.id,
    karpenterVersion: cluster.karpenter.version,
    applications: clusterApplications(platform, cluster).map((a) => staged(platform, cluster, a)).map((app) => ({ path: `${dir}/apps/${app.file}.yaml`, model: app })),
    root: { path: `argocd/${root.file}.yaml`, model: root },
    controllerValues: { path: `${dir}/karpenter/values.yaml`, model: chartValues(cluster) },
    ...(policy ? { tenancyPolicy: { path: `${policiesDir(cluster)}/team-pools.yaml`, model: policy } } : {}),
    pools,
    buffers: cluster.buffers.map((b) => ({ path: `${poolsDir(cluster, b.team)}/_buffer.yaml`, model: capacityBufferModel(cluster, b) })),
    overlays: cluster.overlays.map((overlay) => ({ path: `${overlaysDir(cluster)}/${overlay.name}.yaml`, model: overlay })),
    ...(cluster.smokeTests ? { smokeTestNamespace: { path: `${dir}/smoke-tests/_namespace.yaml`, model: SMOKE_TEST_NAMESPACE } } : {}),
    driftGates: isGated(platform, cluster) ? teams.map((team) => ({ path: `${poolsDir(cluster, team)}/_drift-gate.yaml`, model: gate(team) })) : [],
    ...(project ? { poolProject: { path: `argocd/${poolProjectFile(cluster)}.yaml`, model: project } } : {}),
  };
}

export function poolPlan(cluster: Cluster, pool: Pool): PoolPlan {
  return {
    name: pool.name,
    team: pool.team,
    path: `${poolsDir(cluster, pool.team)}/${pool.name}.yaml`,
    nodePool: withWindowBudgets(nodePoolModel(pool), cluster),
    nodeClass: nodeClassModel(pool, cluster),
    ...(cluster.window ? { header: windowHeader(cluster.window) } : {}),
    ...(cluster.smokeTests ? { smokeTest: { path: `dist/${cluster.id}/smoke-tests/${pool.name}.yaml`, model: smokeTestModel(pool), namespace: SMOKE_TEST_NAMESPACE } } : {}),
  };
}
