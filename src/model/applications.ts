import type { Cluster, Destination, Platform } from '../config/platform';
import { APP_NAMES } from '../config/reserved';
import type { SyncWindowModel } from '../schedule/windows';
import { ARGOCD_FILES, argocdFile, clusterLayout, instanceFile, LEGACY_POOLS_APP_FILE, OUTPUT_FOLDERS } from '../output/layout';
import { KARPENTER_RELEASE_NAME } from './controller-values';

/** Where the Karpenter Helm charts live (an OCI registry; Argo CD takes it without `oci://`, as a Helm repository with OCI enabled). */
export const KARPENTER_CHART_REPO = 'public.ecr.aws/karpenter';
/** Namespace of the smoke-test Deployments. */
export const SMOKE_TEST_NAMESPACE = 'karpenter-smoke-tests';
/** The in-cluster API server: where the roots and the bootstrap create Applications (in Argo CD's own cluster). */
export const IN_CLUSTER = 'https://kubernetes.default.svc';

/**
 * The sync waves, in order: each waits for the previous to be healthy (see APPLICATION_HEALTH_LUA).
 * The tenancy policy goes beside the controller (which it never looks at), so it is in place before any pool.
 * The pools are the root's last wave, with the overlays, the drift gate and the smoke tests: a
 * sync operation succeeds once its last wave is applied, without waiting for its health
 * (argo-cd v3.5.1 gitops-engine/pkg/sync/sync_context.go l. 703-712), so a root's sync (an
 * emergency controller revert) never waits for a pool held by its window or a gate that waits
 * for Karpenter.
 */
export const WAVES = { crds: 0, controller: 1, policies: 1, nodePools: 2, driftGate: 2, smokeTests: 2 } as const;

/** A Helm chart source. */
export interface ChartSource {
  readonly repoURL: string;
  readonly chart: string;
  readonly targetRevision: string;
  readonly helm: { readonly releaseName: string; readonly skipCrds?: boolean; readonly valueFiles?: readonly string[] };
}

/** A git source: a folder, or a `ref` other sources read files from. */
export interface GitSource {
  readonly repoURL: string;
  readonly targetRevision: string;
  readonly path?: string;
  readonly ref?: string;
  /** Only these files of the folder, as an Argo CD glob (`{a.yaml,b.yaml}`). @default - every manifest of the folder */
  readonly include?: string;
}

/** One Argo CD Application, derived from the platform; the construct only renders it. */
export interface ApplicationModel {
  /** File name under `dist/<cluster>/apps/` (or `argocd/` for roots and the bootstrap), without `.yaml`. */
  readonly file: string;
  /** Application name: unique across the fleet (see APP_NAMES). */
  readonly name: string;
  readonly namespace: string;
  readonly project: string;
  /** Sync wave. @default - none */
  readonly wave?: number;
  readonly sources: readonly (ChartSource | GitSource)[];
  readonly destination: Destination & { readonly namespace: string };
  /** Automated sync with self-heal. @default false - manual sync */
  readonly automated: boolean;
  /** Prune during automated sync. */
  readonly prune: boolean;
  readonly syncOptions: readonly string[];
  /** Retry failed syncs with backoff. */
  readonly retry: boolean;
  /** Use server-side diff (removes false drift from defaulted fields). */
  readonly serverSideDiff: boolean;
  /**
   * The resources finalizer: deleting the Application deletes what it deployed (each pool
   * still subject to its `Delete=confirm`). @default true
   */
  readonly finalizer: boolean;
  /**
   * What it may wait on (its sync window, its stage ref), as the annotation
   * `karpenter-gitops.io/waits-for`: the health check then calls it Healthy while it waits,
   * so no root or bootstrap waits on it (model/application-health.ts).
   * @default - none: it never waits on anything but Argo CD
   */
  readonly waitsFor?: string;
}

/** Whether a later stage waits for this cluster (some cluster is at its stage + 1): it then has a drift gate (model/stages.ts). */
export function isGated(platform: Platform, cluster: Cluster): boolean {
  // On EKS Auto Mode, EKS runs the controller the gate watches: the next stage waits on the cluster's Applications alone (docs/auto-mode.md).
  if (cluster.compute === 'autoMode') return false;
  return cluster.stage !== undefined && stagesOf(platform).has(cluster.stage + 1);
}

/** The stages some cluster of the fleet is at, once per platform: every cluster and pool asks (a scan each would cost the fleet's size squared). */
function stagesOf(platform: Platform): ReadonlySet<number> {
  let stages = fleetStages.get(platform);
  if (!stages) {
    stages = new Set(platform.clusters.flatMap((c) => (c.stage === undefined ? [] : [c.stage])));
    fleetStages.set(platform, stages);
  }
  return stages;
}

const fleetStages = new WeakMap<Platform, ReadonlySet<number>>();

/**
 * Whether the cluster's CRDs' Application holds the karpenter.sh CRDs without syncing them or
 * deleting them when it goes: EKS Auto Mode runs on the cluster beside its own controller, moving
 * (`compute: both`) or for good (`karpenter.besideAutoMode`), and EKS manages those CRDs there:
 * AWS's AmazonEKSComputeClusterPolicy "Manage[s] specific CRDs related to node management
 * (NodeClasses, NodePools, NodeClaims, and NodeDiagnostics)", so an automated sync of the chart's
 * would fight EKS's, and the Application's resources finalizer would delete them when it goes.
 * @see https://docs.aws.amazon.com/eks/latest/userguide/access-policy-permissions.html ("AmazonEKSComputeClusterPolicy", awsdocs/amazon-eks-user-guide latest/ug/manage-access/k8s-access/access-policy-reference.adoc l. 431-465)
 */
export function crdsHeld(cluster: Cluster): boolean {
  return cluster.compute === 'both' || (cluster.compute === undefined && cluster.karpenter.besideAutoMode === true);
}

/** The teams of a cluster that have pools, in pool order. */
export function clusterTeams(cluster: Cluster): string[] {
  return [...new Set(cluster.pools.map((p) => p.team))];
}

/**
 * The Applications of one cluster, in wave order: the CRDs, the controller, the tenancy policy
 * (when a team of the cluster lists namespaces, see docs/tenancy.md), one per team for
 * its pools (a pending `Prune=confirm` of one team's pool then holds back only that team),
 * the overlays, the drift gate when a later stage waits for the cluster (`gated`), the
 * orphaned pools Application of earlier releases while it is kept, and the smoke tests.
 */
export function clusterApplications(platform: Platform, cluster: Cluster): ApplicationModel[] {
  const gated = isGated(platform, cluster);
  const { gitops } = platform;
  const { karpenter } = cluster;
  const base = { namespace: gitops.argocdNamespace, project: gitops.project, retry: true, serverSideDiff: true, finalizer: true };
  const git = { repoURL: gitops.repoURL, targetRevision: gitops.targetRevision };
  const at = (namespace: string) => ({ ...cluster.destination, namespace });
  const layout = clusterLayout(cluster);
  // EKS Auto Mode runs Karpenter and manages the karpenter.sh CRDs: no controller or CRDs of ours there;
  // while a cluster moves (both), or keeps Auto Mode beside its own controller (besideAutoMode), the
  // CRDs' Application holds them without syncing or deleting them (docs/auto-mode.md, "The shared CRDs").
  const compute = cluster.compute ?? 'karpenter';
  const held = crdsHeld(cluster);
  const selfManaged: ApplicationModel[] = compute === 'autoMode' ? [] : [
    {
      ...base,
      ...(held ? { finalizer: false } : {}),
      file: 'karpenter-crd',
      name: APP_NAMES.crds(cluster.id),
      wave: WAVES.crds,
      sources: [{ repoURL: KARPENTER_CHART_REPO, chart: 'karpenter-crd', targetRevision: karpenter.version, helm: { releaseName: 'karpenter-crd' } }],
      destination: at(karpenter.namespace),
      automated: !held,
      // Never prune CRDs: deleting one deletes every NodePool and EC2NodeClass with it.
      prune: false,
      // The CRDs exceed the 256 KiB last-applied annotation of client-side apply.
      syncOptions: ['ServerSideApply=true', ...createNamespace(karpenter.namespace)],
    },
    {
      ...base,
      file: 'karpenter',
      name: APP_NAMES.controller(cluster.id),
      wave: WAVES.controller,
      sources: [
        {
          repoURL: KARPENTER_CHART_REPO, chart: 'karpenter', targetRevision: karpenter.version,
          helm: { releaseName: KARPENTER_RELEASE_NAME, skipCrds: true, valueFiles: [`$values/${layout.controllerValues}`] },
        },
        { ...git, ref: 'values' },
      ],
      destination: at(karpenter.namespace),
      automated: true,
      prune: true,
      syncOptions: createNamespace(karpenter.namespace),
    },
  ];
  const apps: ApplicationModel[] = [
    ...selfManaged,
    // The clusters tenancyPolicy (model/tenancy.ts) gives a policy: a team of theirs lists namespaces.
    // No window holds it (model/stages.ts): each guarded team's pools wait for it with a hook instead.
    ...(hasPolicies(cluster) ? [{
      ...base,
      file: 'policies',
      name: APP_NAMES.policies(cluster.id),
      wave: WAVES.policies,
      sources: [{ ...git, path: layout.policiesDir }],
      destination: at(karpenter.namespace),
      // Prune stays on: the policy and its binding carry Prune=confirm/Delete=confirm, as the pools do.
      automated: true,
      prune: true,
      syncOptions: [],
    }] : []),
    ...clusterTeams(cluster).map((team): ApplicationModel => ({
      ...base,
      file: `pools-${team}`,
      name: APP_NAMES.pools(cluster.id, team),
      wave: WAVES.nodePools,
      sources: [{ ...git, path: layout.poolsDir(team) }],
      destination: at(karpenter.namespace),
      // Prune stays on: each NodePool and EC2NodeClass carries Prune=confirm/Delete=confirm.
      automated: true,
      prune: true,
      syncOptions: [],
    })),
  ];
  // In the pools' wave (contract 6.4): Argo CD applies one wave's resources sorted by kind, then
  // name, so `<cluster>-overlays` is created before every `<cluster>-pools-<team>`; and an
  // overlay only changes the price or capacity Karpenter sees, which it re-reads at once for
  // every pool, so a pool never goes on with an overlay it was meant to have.
  if (cluster.overlays.length > 0) {
    apps.push({
      ...base,
      file: 'overlays',
      name: APP_NAMES.overlays(cluster.id),
      wave: WAVES.nodePools,
      sources: [{ ...git, path: layout.overlaysDir }],
      destination: at(karpenter.namespace),
      automated: true,
      prune: true,
      syncOptions: [],
    });
  }
  if (gated) {
    // The drift gate (model/stages.ts): its own Application, so no pool's sync waits for it.
    apps.push({
      ...base,
      file: 'drift-gate',
      name: APP_NAMES.driftGate(cluster.id),
      wave: WAVES.driftGate,
      sources: [{ ...git, path: layout.driftGateDir }],
      destination: at(karpenter.namespace),
      automated: true,
      prune: true,
      syncOptions: [],
    });
  }
  if (cluster.legacyNodepoolsApp) {
    // The single pools Application of earlier releases, orphaned: no finalizer (removing it
    // later deletes nothing), no automated sync and no prune (its folder now holds only the
    // teams' folders, so it would want to prune every pool), until the teams' own
    // Applications have taken each pool over (Argo CD's tracking annotation moves to them).
    apps.push({
      ...base,
      file: LEGACY_POOLS_APP_FILE,
      name: APP_NAMES.legacyPools(cluster.id),
      wave: WAVES.nodePools,
      sources: [{ ...git, path: layout.poolsRoot }],
      destination: at(karpenter.namespace),
      automated: false,
      prune: false,
      retry: false,
      syncOptions: [],
      finalizer: false,
    });
  }
  if (cluster.smokeTests) {
    apps.push({
      ...base,
      file: 'karpenter-smoke-tests',
      name: APP_NAMES.smokeTests(cluster.id),
      wave: WAVES.smokeTests,
      sources: [{ ...git, path: layout.smokeTestsDir }],
      destination: at(SMOKE_TEST_NAMESPACE),
      // Never auto-synced: a person scales a smoke test up to watch Karpenter launch a node.
      automated: false,
      prune: false,
      retry: false,
      syncOptions: [],
    });
  }
  return apps;
}

/** The root Application (app of apps) of a cluster: it syncs `dist/<cluster>/apps` into Argo CD's namespace. */
export function rootApplication(platform: Platform, cluster: Cluster): ApplicationModel {
  const { gitops } = platform;
  return {
    file: cluster.id,
    name: APP_NAMES.root(cluster.id),
    namespace: gitops.argocdNamespace,
    project: gitops.project,
    sources: [{ repoURL: gitops.repoURL, targetRevision: gitops.targetRevision, path: clusterLayout(cluster).appsDir }],
    // The child Applications live in Argo CD's own cluster, whatever cluster they deploy to.
    destination: { server: IN_CLUSTER, namespace: gitops.argocdNamespace },
    automated: true,
    prune: true,
    syncOptions: [],
    retry: true,
    serverSideDiff: false,
    finalizer: true,
  };
}


/**
 * One Argo CD installation of the fleet and the clusters it deploys: each applies its own
 * bootstrap by hand, and its bootstrap syncs only those clusters' roots.
 */
export interface ArgocdScope {
  /** The instance (`gitops.argocd.<name>`). @default - the fleet's one Argo CD: its files keep their plain names */
  readonly instance?: string;
  /** Its clusters, in config order. */
  readonly clusters: readonly Cluster[];
}

/**
 * The fleet's Argo CD installations: one per instance of `gitops.argocd` when it names two or
 * more, each with the clusters it deploys (`cluster.argocd`), else one with every cluster (so a
 * fleet that names its one instance, for the promote workflow's role, keeps `argocd/bootstrap.yaml`).
 */
export function argocdScopes(platform: Platform): ArgocdScope[] {
  const instances = platform.gitops.argocdInstances ?? [];
  if (instances.length < 2) return [{ clusters: platform.clusters }];
  return instances.map((i) => ({ instance: i.name, clusters: platform.clusters.filter((c) => c.argocd === i.name) }));
}

/**
 * `argocd/bootstrap.yaml` (`argocd/bootstrap.<instance>.yaml` in a fleet of several Argo CD
 * instances): the one Application applied by hand in an Argo CD. It syncs the roots of the
 * clusters that instance deploys, the OCI Helm repository of the Karpenter charts (every
 * instance needs the same declaration) and, with a `gitops.project` other than `default`, the
 * instance's AppProject, so adding a cluster is a commit. It lives in the `default` project: the
 * project it creates cannot hold it.
 */
export function bootstrapApplication(platform: Platform, scope: ArgocdScope = { clusters: platform.clusters }): ApplicationModel {
  const { gitops } = platform;
  const fileOf = (path: string) => path.slice(`${OUTPUT_FOLDERS.argocd}/`.length);
  const files = [
    ...scope.clusters.map((c) => fileOf(clusterLayout(c).root)),
    fileOf(argocdFile(ARGOCD_FILES.helmRepository)),
    ...(gitops.project === 'default' ? [] : [fileOf(argocdFile(instanceFile(ARGOCD_FILES.project, scope.instance)))]),
  ];
  return {
    file: instanceFile(ARGOCD_FILES.bootstrap, scope.instance),
    name: APP_NAMES.bootstrap,
    namespace: gitops.argocdNamespace,
    project: 'default',
    sources: [{ repoURL: gitops.repoURL, targetRevision: gitops.targetRevision, path: OUTPUT_FOLDERS.argocd, include: `{${files.sort().join(',')}}` }],
    destination: { server: IN_CLUSTER, namespace: gitops.argocdNamespace },
    automated: true,
    // A cluster removed from the config: its root is pruned and, by the root's resources
    // finalizer, everything it deployed (npm run diff calls that destructive).
    prune: true,
    syncOptions: [],
    retry: true,
    serverSideDiff: false,
    finalizer: false,
  };
}

/** A group and kind an AppProject allows. */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/**
 * The cluster-scoped kinds the generated Applications create: the CRDs (karpenter-crd
 * chart), NodePools and EC2NodeClasses (pool files), Namespaces (smoke tests,
 * CreateNamespace), the controller chart's ClusterRoles and ClusterRoleBindings, and the
 * tenancy policies and their bindings; and `TeamTenancy`, the parameters of the release before,
 * which no release writes any more but which the policies Application must be allowed to prune.
 * test/model/project.test.ts renders the chart and the pool files to keep this exact.
 */
export const CLUSTER_KINDS: readonly GroupKind[] = [
  { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' },
  { group: 'karpenter.sh', kind: 'NodePool' },
  { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass' },
  { group: '', kind: 'Namespace' },
  { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' },
  { group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding' },
  { group: 'admissionregistration.k8s.io', kind: 'ValidatingAdmissionPolicy' },
  { group: 'admissionregistration.k8s.io', kind: 'ValidatingAdmissionPolicyBinding' },
  { group: 'karpenter.sh', kind: 'NodeOverlay' },
  { group: 'karpenter-gitops.io', kind: 'TeamTenancy' },
];

/**
 * The namespaced kinds: the controller chart's (its ServiceMonitor only when enabled), the
 * smoke-test Deployments, and the Applications the roots create.
 */
export const NAMESPACED_KINDS: readonly GroupKind[] = [
  { group: 'apps', kind: 'Deployment' },
  { group: '', kind: 'Service' },
  { group: '', kind: 'ServiceAccount' },
  { group: 'rbac.authorization.k8s.io', kind: 'Role' },
  { group: 'rbac.authorization.k8s.io', kind: 'RoleBinding' },
  { group: 'policy', kind: 'PodDisruptionBudget' },
  { group: 'monitoring.coreos.com', kind: 'ServiceMonitor' },
  { group: 'argoproj.io', kind: 'Application' },
  { group: '', kind: 'PodTemplate' },
  { group: 'autoscaling.x-k8s.io', kind: 'CapacityBuffer' },
];

/** A windowed cluster's own AppProject, which its root creates (model/stages.ts poolProject): allowed only when a cluster has a window. */
const APP_PROJECT_KIND: GroupKind = { group: 'argoproj.io', kind: 'AppProject' };

/**
 * A Job: the drift gate's (docs/windows.md), allowed only where a cluster a later stage waits for
 * deploys one, and the guard gates' hooks (docs/tenancy.md), allowed only where a team's pools are
 * guarded. Argo CD checks a hook against the project's kinds as any resource of the sync
 * (argo-cd v3.5.1 gitops-engine/pkg/sync/sync_context.go l. 1044-1095: every task, hooks
 * included, goes through the permission validator).
 */
export const JOB_KIND: GroupKind = { group: 'batch', kind: 'Job' };

/** A ConfigMap: the drift gate's program (model/stages.ts `DriftGateProgramModel`), allowed only where a cluster deploys a drift gate. */
const CONFIG_MAP_KIND: GroupKind = { group: '', kind: 'ConfigMap' };

/** Whether a cluster has a tenancy policy, and so guard gates on its guarded teams' pools (model/tenancy-guard.ts). */
export function hasPolicies(cluster: Cluster): boolean {
  return cluster.pools.some((p) => p.namespaces !== undefined);
}

/** An AppProject, derived from the platform. */
export interface ProjectModel {
  readonly name: string;
  readonly namespace: string;
  readonly sourceRepos: readonly string[];
  readonly destinations: readonly (Destination & { readonly namespace: string })[];
  readonly clusterResourceWhitelist: readonly GroupKind[];
  readonly namespaceResourceWhitelist: readonly GroupKind[];
  /** Argo CD sync windows (docs/windows.md). @default - none */
  readonly syncWindows?: readonly SyncWindowModel[];
}

/**
 * `argocd/project.yaml` when `gitops.project` is not `default`: exactly the git repository
 * and the Karpenter chart registry, each cluster's destination with the namespaces the
 * Applications deploy to (the controller's, kube-system for the chart's DNS Role, the smoke
 * tests'), Argo CD's own namespace in its own cluster for the roots, and the kinds above.
 * In a fleet of several Argo CD instances each has its own (`clusters`: the instance's): a
 * destination names a cluster as that instance registered it, so another instance's
 * destinations are not this one's to allow.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/projects/
 */
export function projectModel(platform: Platform, clusters: readonly Cluster[] = platform.clusters): ProjectModel | undefined {
  const gated = clusters.some((c) => isGated(platform, c));
  const { gitops } = platform;
  if (gitops.project === 'default') return undefined;
  const destinations = new Map<string, Destination & { namespace: string }>();
  const add = (d: Destination, namespace: string) => destinations.set(JSON.stringify([d, namespace]), { ...d, namespace });
  add({ server: IN_CLUSTER }, gitops.argocdNamespace);
  for (const c of clusters) {
    add(c.destination, c.karpenter.namespace);
    add(c.destination, 'kube-system');
    if (c.smokeTests) add(c.destination, SMOKE_TEST_NAMESPACE);
    for (const b of c.buffers) add(c.destination, b.namespace);
  }
  return {
    name: gitops.project,
    namespace: gitops.argocdNamespace,
    sourceRepos: [gitops.repoURL, KARPENTER_CHART_REPO],
    destinations: [...destinations.values()],
    clusterResourceWhitelist: CLUSTER_KINDS,
    // A drift gate Job and its program's ConfigMap where a later stage waits for a cluster (model/stages.ts isGated), a guard gate's hook where a team's pools are guarded.
    namespaceResourceWhitelist: [
      ...NAMESPACED_KINDS, ...(clusters.some((c) => c.window) ? [APP_PROJECT_KIND] : []),
      ...(gated || clusters.some(hasPolicies) ? [JOB_KIND] : []), ...(gated ? [CONFIG_MAP_KIND] : []),
    ],
  };
}

function createNamespace(namespace: string): string[] {
  return namespace === 'kube-system' ? [] : ['CreateNamespace=true'];
}
