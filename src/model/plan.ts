/**
 * The fleet's plan: every generated file's content as plain typed data, derived once from a
 * `Platform` before anything is rendered. Charts render it and decide nothing; `explain`,
 * `fit` and the summaries read it where they need a derived model.
 */
import { AutoModeNodeClassModel, autoModeNodeClassModel } from './auto-mode';
import type { InstanceType } from '../catalog/catalog';
import { catalogMatcher, Matcher, priceRange, PriceRange } from '../catalog/match';
import { overlaidAdmitted } from '../catalog/overlays';
import type { Cluster, NodeOverlaySpec, Platform, Pool } from '../config/platform';
import { ApplicationModel, argocdScopes, bootstrapApplication, ProjectModel, projectModel, SMOKE_TEST_NAMESPACE } from './applications';
import { ARGOCD_FILES, argocdFile, clusterLayout, FLEET_FILES, instanceFile } from '../output/layout';
import { chartValues, controllerDeploymentName } from './controller-values';
import { staticDriftDips } from '../config/static-pools';
import { clusterCeilings, PoolCeiling, poolCeiling, PoolCost, staticNodes, TeamCeiling, teamCeilings } from './cost';
import { digestOf } from './digest';
import { DRIFT_GATE_PROGRAM, GUARD_GATE_PROGRAM } from '../gate/program.generated';
import { GateSpec, VALUES_DIGEST_ANNOTATION } from '../gate/spec';
import { CapacityBufferModel, capacityBufferModel } from './capacity-buffer';
import { NodeClassModel, nodeClassModel } from './node-class';
import { NodePoolModel, nodePoolModel } from './node-pool';
import { SmokeTestModel, smokeTestModel } from './smoke-test';
import { clusterSummaryMarkdown } from './cluster-summary';
import { summaryMarkdown, summaryRows } from './summary';
import { withWindowBudgets, windowHeader } from '../schedule/windows';
import { DRIFT_GATE_POLL_SECONDS, DRIFT_GATE_SETTLE_SECONDS, DriftGateModel, driftGateModel, DriftGateProgramModel, driftGateProgramModel, isGated, poolProject, clusterApplicationModels } from './stages';
import { GuardedPool, TenancyPolicyModel, tenancyPolicy } from './tenancy';
import { GuardGateModel, guardGate, GuardGateRbacModel, guardGateRbac, teamGuardDigests } from './tenancy-guard';
import { ClusterSummaryData, clusterSummaryData, SummaryData, summaryData } from './summary-data';

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

/**
 * Everything a page says about one pool on its cluster, derived once here (STYLE.md, one
 * derivation): SUMMARY, the synth table, explain, fit, budgets and the review read it.
 */
export interface PoolFacts {
  /** The instance types its NodePool admits, as Karpenter sees them: matched with the NodePool's requirements, then the cluster's NodeOverlays applied. */
  readonly admitted: readonly InstanceType[];
  /** Their on-demand list price range per hour, after overlays. @default - none priced */
  readonly prices?: PriceRange;
  /** What it can cost per hour at its limits, and what bounds it. */
  readonly ceiling: PoolCeiling;
  /** A static pool's `replicas`. @default - a dynamic pool */
  readonly replicas?: number;
  /**
   * How many nodes a static pool keeps: its replicas, at most `limits.nodes`. Karpenter launches
   * no node for a pod on it. @default - a dynamic pool, sized by pod demand
   */
  readonly nodes?: number;
  /**
   * How many nodes a static pool keeps while drift replaces one, when drift deletes first
   * (`limits.nodes` at or below replicas on a cluster with featureGates.terminateFirstDrift,
   * src/config/static-pools.ts): one node fewer per replacement. @default - a dynamic pool, or
   * one that launches the replacement first (no dip)
   */
  readonly nodesWhileDrifting?: number;
  /** Who may use it, when its team lists namespaces (the tenancy policy's entry). @default - any namespace */
  readonly admission?: GuardedPool;
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
  /**
   * The pool runs on EKS Auto Mode (docs/auto-mode.md): this NodeClass is written instead of
   * `nodeClass` (which stays the catalog's view of the pool), and its NodePool names it.
   * @default - a self-managed pool: its EC2NodeClass is written
   */
  readonly autoModeClass?: AutoModeNodeClassModel;
  /** What every page says about it. */
  readonly facts: PoolFacts;
  /** `dist/<cluster>/smoke-tests/<pool>.yaml`. @default - none: the cluster has no smoke tests */
  readonly smokeTest?: PlannedSmokeTest;
  /** Comment lines above the pool's file: its cluster's maintenance window. @default - none: the cluster has no window */
  readonly header?: string;
  /**
   * The digests of the NodePool and the EC2NodeClass (annotation `karpenter-gitops.io/digest`),
   * which the cluster's drift gate waits for. @default - none: no later stage waits for the cluster
   */
  readonly digests?: { readonly nodePool: string; readonly nodeClass: string };
  /**
   * Its file holds its EC2NodeClass: false for a pool that shares the class of a pool before it
   * in the cluster's order (whose file holds it). @default true
   */
  readonly rendersNodeClass?: boolean;
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
  /** `dist/<cluster>/karpenter/values.yaml`: the controller chart's values. @default - none: EKS Auto Mode runs the controller (docs/auto-mode.md) */
  readonly controllerValues?: Planned<Record<string, unknown>>;
  /** `dist/<cluster>/policies/team-pools.yaml`. @default - none: no team of the cluster lists namespaces */
  readonly tenancyPolicy?: Planned<TenancyPolicyModel>;
  /**
   * The guard digest of each guarded team (model/tenancy-guard.ts), which the policy objects carry
   * in their `karpenter-gitops.io/guards` annotation. @default - none: no policy
   */
  readonly policyGuards?: Readonly<Record<string, string>>;
  /** `dist/<cluster>/policies/guard-gate.yaml`: what the guard gates run as. @default - none: no policy */
  readonly guardGateRbac?: Planned<GuardGateRbacModel>;
  /** `dist/<cluster>/nodepools/<team>/_guard-gate.yaml`: one per guarded team, in team order. @default [] */
  readonly guardGates: readonly Planned<GuardGateModel>[];
  /** In the cluster's pool order. */
  readonly pools: readonly PoolPlan[];
  /** `dist/<cluster>/nodepools/<team>/_buffer.yaml`: a team's CapacityBuffer, with its team's pools. */
  readonly buffers: readonly Planned<CapacityBufferModel>[];
  /** `dist/<cluster>/overlays/<name>.yaml`: one NodeOverlay each, with its digest when the cluster is gated. */
  readonly overlays: readonly Planned<NodeOverlaySpec & { readonly digest?: string }>[];
  /** `dist/<cluster>/smoke-tests/_namespace.yaml`: the namespace's name. @default - none: the cluster has no smoke tests */
  readonly smokeTestNamespace?: Planned<string>;
  /** `dist/<cluster>/drift-gate/gate.yaml`. @default - none: no later stage waits for the cluster */
  readonly driftGate?: Planned<DriftGateModel>;
  /** `dist/<cluster>/drift-gate/program.yaml`: the gate's program, with the gate. */
  readonly driftGateProgram?: Planned<DriftGateProgramModel>;
  /** `dist/<cluster>/apps/project.yaml`: the AppProject of its pool Applications, with its sync windows, created by its root. @default - none: the cluster has no window */
  readonly poolProject?: Planned<ProjectModel>;
}

/** The whole fleet's plan: per cluster, then the files of `argocd/`, `dist/SUMMARY.md` and each cluster's page. */
export interface FleetPlan {
  readonly clusters: readonly ClusterPlan[];
  /** `argocd/bootstrap.yaml`; in a fleet of several Argo CD instances one `argocd/bootstrap.<instance>.yaml` each (applications.ts argocdScopes). */
  readonly bootstraps: readonly Planned<ApplicationModel>[];
  /** `argocd/project.yaml`, or one `argocd/project.<instance>.yaml` per instance likewise. @default [] - none: `gitops.project` is `default` */
  readonly projects: readonly Planned<ProjectModel>[];
  /** `argocd/helm-repository.yaml`: Argo CD's namespace. */
  readonly helmRepository: Planned<string>;
  /** `argocd/argocd-cm-patch.yaml`: Argo CD's namespace. */
  readonly healthPatch: Planned<string>;
  /** `dist/SUMMARY.md`: the fleet at a glance. */
  readonly summary: Planned<string>;
  /** `dist/<cluster>/SUMMARY.md`: each cluster's page, in the platform's order. */
  readonly clusterSummaries: readonly Planned<string>[];
  /** `dist/summary.json`: the plan as versioned data, for the review and other tools (docs/review.md). */
  readonly summaryData: Planned<SummaryData>;
  /** `dist/<cluster>/summary.json`: each cluster's pools as data, in the platform's order. */
  readonly clusterSummaryData: readonly Planned<ClusterSummaryData>[];
  /** What synth prints with `--verbose`: a header row, then one row per pool (cluster, pool, arch, capacity, types, replicas, limits). */
  readonly summaryRows: readonly (readonly string[])[];
  /** Each team's ceiling per cluster and in total, with its budget, from the pools' ceilings. */
  readonly teamCeilings: readonly TeamCeiling[];
  /** Each cluster's ceiling. */
  readonly clusterCeilings: readonly { readonly cluster: string; readonly perHour: number | null }[];
}

/** The plan of every generated file of a platform. Pure: it reads no file and builds no construct. */
export function fleetPlan(platform: Platform, options: PlanOptions = {}): FleetPlan {
  const matcher = catalogMatcher();
  const clusters = platform.clusters.map((cluster) => clusterPlan(platform, cluster, matcher));
  const costs = clusters.flatMap((c) => c.pools.map((p): PoolCost => ({ cluster: c.id, pool: p.name, team: p.team, perHour: p.facts.ceiling.perHour })));
  const ids = clusters.map((c) => c.id);
  const ceilings = teamCeilings(costs, ids, platform.budgets);
  const totals = clusterCeilings(costs, ids);
  const scopes = argocdScopes(platform);
  const namespace = platform.gitops.argocdNamespace;
  const configFile = options.configFile ?? 'config/platform.yaml';
  return {
    clusters,
    bootstraps: scopes.map((scope) => ({ path: argocdFile(instanceFile(ARGOCD_FILES.bootstrap, scope.instance)), model: bootstrapApplication(platform, scope) })),
    projects: scopes.flatMap((scope) => {
      const model = projectModel(platform, scope.clusters);
      return model ? [{ path: argocdFile(instanceFile(ARGOCD_FILES.project, scope.instance)), model }] : [];
    }),
    helmRepository: { path: argocdFile(ARGOCD_FILES.helmRepository), model: namespace },
    healthPatch: { path: argocdFile(ARGOCD_FILES.healthPatch), model: namespace },
    summary: { path: FLEET_FILES.summary, model: summaryMarkdown(platform, configFile, { teams: ceilings, clusters: totals }) },
    clusterSummaries: platform.clusters.map((c, i) => ({ path: clusterLayout(c).summary, model: clusterSummaryMarkdown(platform, c, clusters[i], configFile, ceilings) })),
    summaryData: { path: FLEET_FILES.summaryData, model: summaryData(platform, ceilings) },
    clusterSummaryData: platform.clusters.map((c, i) => ({ path: clusterLayout(c).summaryData, model: clusterSummaryData(c, clusters[i]) })),
    summaryRows: summaryRows(platform, clusters),
    teamCeilings: ceilings,
    clusterCeilings: totals,
  };
}

/** The plan of one cluster's files. */
export function clusterPlan(platform: Platform, cluster: Cluster, matcher: Matcher = catalogMatcher()): ClusterPlan {
  const layout = clusterLayout(cluster);
  const gated = isGated(platform, cluster);
  const { root, children } = clusterApplicationModels(platform, cluster);
  // Pools that name the same EC2NodeClass share it: the first one's file holds it.
  const classOwners = new Map<string, string>();
  const planned = cluster.pools.map((pool) => {
    const plan = poolPlan(cluster, pool, { gated, matcher });
    // An Auto Mode NodeClass and an EC2NodeClass of one name are two objects (two API groups).
    const classKey = plan.autoModeClass ? `eks.amazonaws.com/${plan.autoModeClass.name}` : plan.nodeClass.name;
    const owner = classOwners.get(classKey);
    if (owner === undefined) classOwners.set(classKey, pool.name);
    return owner === undefined ? plan : { ...plan, rendersNodeClass: false };
  });
  // The policy reads the pools' own models; each pool's facts then say who may use it.
  const policy = tenancyPolicy(cluster, planned.map((p, i) => ({ pool: cluster.pools[i], nodePool: p.nodePool, nodeClass: p.nodeClass })));
  const pools = planned.map((p) => {
    const admission = policy?.pools.find((g) => g.pool === p.name);
    return admission ? { ...p, facts: { ...p.facts, admission } } : p;
  });
  // One policy object holds every guarded team's pools (model/tenancy.ts): each team's pools are in 1 part.
  const guards = policy ? teamGuardDigests(policy.pools) : {};
  // A team's pools may be spread over several policies: its gate waits for every one that holds some.
  const partsOf = (team: string) => policy?.parts.filter((p) => p.pools.some((g) => g.team === team)).length ?? 0;
  const guardGates = Object.entries(guards).map(([team, digest]) => ({ path: layout.guardGate(team), model: guardGate(platform, cluster, { team, digest, parts: partsOf(team) }, GUARD_GATE_PROGRAM) }));
  const project = poolProject(platform, cluster);
  const overlays = cluster.overlays.map((overlay) => ({ ...overlay, ...(gated ? { digest: digestOf(overlay) } : {}) }));
  const values = chartValues(cluster);
  // The gate knows the controller runs this revision's values by a digest on its pods.
  const controllerValues = gated ? withValuesDigest(values) : values;
  const spec: GateSpec | undefined = gated ? {
    cluster: cluster.id,
    controller: {
      namespace: cluster.karpenter.namespace,
      deployment: controllerDeploymentName(values),
      chart: `karpenter-${cluster.karpenter.version}`,
      valuesDigest: digestOf(values),
    },
    nodePools: pools.map((p) => ({ name: p.nodePool.name, digest: p.digests!.nodePool })),
    // The gate reads EC2NodeClasses: an Auto Mode twin's NodeClass is EKS's to reconcile.
    nodeClasses: pools.filter((p) => p.rendersNodeClass !== false && !p.autoModeClass).map((p) => ({ name: p.nodeClass.name, digest: p.digests!.nodeClass })),
    nodeOverlays: overlays.map((o) => ({ name: o.name, digest: o.digest! })),
    settleSeconds: DRIFT_GATE_SETTLE_SECONDS,
    pollSeconds: DRIFT_GATE_POLL_SECONDS,
  } : undefined;
  const gateProgram = spec ? driftGateProgramModel(cluster, DRIFT_GATE_PROGRAM) : undefined;
  return {
    id: cluster.id,
    karpenterVersion: cluster.karpenter.version,
    applications: children.map((app) => ({ path: layout.app(app.file), model: app })),
    root: { path: layout.root, model: root },
    ...(cluster.compute === 'autoMode' ? {} : { controllerValues: { path: layout.controllerValues, model: controllerValues } }),
    ...(policy ? {
      tenancyPolicy: { path: layout.tenancyPolicy, model: policy },
      policyGuards: guards,
      guardGateRbac: { path: layout.guardGateRbac, model: guardGateRbac(cluster) },
    } : {}),
    guardGates,
    pools,
    buffers: cluster.buffers.map((b) => ({ path: layout.buffer(b.team), model: capacityBufferModel(cluster, b) })),
    overlays: overlays.map((overlay) => ({ path: layout.overlay(overlay.name), model: overlay })),
    ...(cluster.smokeTests ? { smokeTestNamespace: { path: layout.smokeTestNamespace, model: SMOKE_TEST_NAMESPACE } } : {}),
    ...(gateProgram && spec ? {
      driftGate: { path: layout.driftGate, model: driftGateModel(platform, cluster, spec, gateProgram) },
      driftGateProgram: { path: layout.driftGateProgram, model: gateProgram },
    } : {}),
    ...(project ? { poolProject: { path: layout.poolProject, model: project } } : {}),
  };
}

/** Chart values with the digest of the rest on the controller's pods (`podAnnotations`), which the drift gate reads. */
function withValuesDigest(values: Record<string, unknown>): Record<string, unknown> {
  const podAnnotations = (values.podAnnotations ?? {}) as Record<string, string>;
  return { ...values, podAnnotations: { ...podAnnotations, [VALUES_DIGEST_ANNOTATION]: digestOf(values) } };
}

/** How {@link poolPlan} plans a pool. */
export interface PoolPlanOptions {
  /** A later stage waits for the cluster: the pool's objects carry digests. @default false */
  readonly gated?: boolean;
  /** The catalog's matcher. @default - catalogMatcher() */
  readonly matcher?: Matcher;
}

/** The plan of one pool of a cluster: its models, file and facts. */
export function poolPlan(cluster: Cluster, pool: Pool, options: PoolPlanOptions = {}): PoolPlan {
  const own = nodePoolModel(pool);
  const nodePool = withWindowBudgets(pool.autoMode ? { ...own, expireAfter: pool.autoMode.expireAfter } : own, cluster);
  const nodeClass = nodeClassModel(pool, cluster);
  const autoModeClass = pool.autoMode ? autoModeNodeClassModel(pool, cluster) : undefined;
  const matcher = options.matcher ?? catalogMatcher();
  // As Karpenter sees the pool: its NodePool's requirements against the catalog, then the cluster's overlays.
  const admitted = overlaidAdmitted(matcher.match(nodePool.requirements), cluster.overlays, matcher);
  const prices = priceRange(admitted);
  const nodes = staticNodes(pool);
  const facts: PoolFacts = {
    admitted,
    ...(prices ? { prices } : {}),
    ceiling: poolCeiling(cluster, pool, admitted, nodes),
    ...(pool.settings.replicas !== undefined && nodes !== undefined ? { replicas: pool.settings.replicas, nodes } : {}),
    ...(nodes !== undefined && staticDriftDips(pool.settings, cluster.karpenter) ? { nodesWhileDrifting: nodes - 1 } : {}),
  };
  const gated = options.gated ?? false;
  return {
    name: pool.name,
    team: pool.team,
    path: clusterLayout(cluster).pool(pool.team, pool.name),
    nodePool,
    nodeClass,
    facts,
    ...(autoModeClass ? { autoModeClass } : {}),
    ...(gated ? { digests: { nodePool: digestOf(nodePool), nodeClass: digestOf(autoModeClass ?? nodeClass) } } : {}),
    ...(cluster.window ? { header: windowHeader(cluster.window) } : {}),
    ...(cluster.smokeTests ? { smokeTest: { path: clusterLayout(cluster).smokeTest(pool.name), model: smokeTestModel(pool), namespace: SMOKE_TEST_NAMESPACE } } : {}),
  };
}
