import type { Cluster, Platform } from '../config/platform';
import { APP_NAMES } from '../config/reserved';
import { DRIFT_GATE_MIN_MEMORY } from '../config/schema/gitops';
import { GATE_CLUSTER_ROLE, GateSpec } from '../gate/spec';
import type { ApplicationModel, ProjectModel } from './applications';
import { clusterApplications, clusterTeams, CLUSTER_KINDS, hasPolicies, JOB_KIND, KARPENTER_CHART_REPO, NAMESPACED_KINDS, rootApplication } from './applications';
export { isGated } from './applications';
export { DIGEST_ANNOTATION, GATE_ENV, GATE_RBAC_RULES } from '../gate/spec';
export type { GateRbacRule } from '../gate/spec';
import { digestOf } from './digest';
import { describeRuns, syncWindowModels, SyncWindowModel, windowPlan } from '../schedule/windows';
import { Quantity, UNITS } from '../quantity/quantity';

/** Branch prefix of the stage refs: everything of a stage-N cluster tracks `<prefix>N` (N ≥ 2). */
export const STAGE_REF_PREFIX = 'karpenter-gitops/stage-';

/**
 * Image of the drift gate Job: the Docker official Node.js image, pinned by digest. The gate
 * runs `node /gate/gate.js`, its program (src/gate/) mounted from a ConfigMap: no shell, no package, nothing but the image's own
 * `node`. Set `gitops.driftGateImage` to a mirror of it in your registry.
 * @see https://github.com/nodejs/docker-node (the image's Dockerfile: node on PATH, no entrypoint needed with `command`)
 */
export const DRIFT_GATE_IMAGE = 'docker.io/library/node:22.21.0-alpine@sha256:bd26af08779f746650d95a2e4d653b0fd3c8030c44284b6b98d701c9b5eb66b9';
/**
 * Seconds every condition must hold, without a break, before a gate passes: two of
 * Karpenter's drift re-evaluations (each NodeClaim is looked at again every 5 minutes,
 * kubernetes-sigs/karpenter v1.14.1 pkg/controllers/nodeclaim/disruption/drift.go l. 74 and 82).
 */
export const DRIFT_GATE_SETTLE_SECONDS = 600;
/** Seconds between two looks of the gate at the API server. */
export const DRIFT_GATE_POLL_SECONDS = 30;
/**
 * Memory limit of the drift gate's container, the default of `gitops.driftGateMemory`. The gate
 * reads NodeClaims a page at a time (src/gate/run.ts NODECLAIM_PAGE_SIZE) and keeps a few hundred
 * bytes of each, so what it needs does not grow with the cluster: measured with the gate program
 * under {@link driftGateNodeOptions} of this limit (test/gate/memory.test.ts, Node 20), its peak
 * resident memory is about 50 MiB with no NodeClaim, 77 MiB with 1,000 or 3,000 and 81 MiB with
 * 6,000 (NodeClaims of some 14 KB each, as Karpenter writes them); the whole list of 3,000 in one
 * answer does not fit (the reason for paging).
 */
export const DRIFT_GATE_MEMORY = DRIFT_GATE_MIN_MEMORY;
/**
 * MiB of the container's limit left outside V8's old space: node itself (about 50 MiB resident
 * with nothing read, measured as above), its young generation (three semi-spaces of
 * {@link DRIFT_GATE_SEMI_SPACE_MIB}) and the buffers of the page being read.
 */
const DRIFT_GATE_NON_HEAP_MIB = 64;
/** V8's semi-space, in MiB: the young generation is three of them (16 MiB each by default on 64-bit). */
const DRIFT_GATE_SEMI_SPACE_MIB = 1;
/** The least old space the gate is given, in MiB, whatever the limit: a page of NodeClaims needs about 8. */
const DRIFT_GATE_MIN_HEAP_MIB = 16;
/** The annotation of an Application that may wait on its window or stage: why, for the health check (model/application-health.ts). */
export const WAITS_FOR_ANNOTATION = 'karpenter-gitops.io/waits-for';
/**
 * How the waits-for annotation of a stage-N cluster's root begins; its stage ref and a space
 * follow. The health check reads the ref there, to tell its own stage ref not existing yet (a
 * wait for the first promotion) from any other repository error (model/application-health.ts).
 */
export const STAGE_REF_WAIT = 'its stage ref ';

/**
 * The git revision everything of a cluster tracks: its stage ref for stage 2 and later (the
 * root, and so every Application it creates, the controller's values, the pools, overlays,
 * policies and the drift gate), else `gitops.targetRevision`.
 */
export function clusterRevision(platform: Platform, cluster: Cluster): string {
  return isStaged(cluster) ? stageRef(platform, cluster.stage!) : platform.gitops.targetRevision;
}

/** The stage ref of stage `stage`: `<gitops.stageRefPrefix>N`. */
export function stageRef(platform: Platform, stage: number): string {
  return `${platform.gitops.stageRefPrefix ?? STAGE_REF_PREFIX}${stage}`;
}

/** Whether a cluster tracks a stage ref (stage 2 or later). */
export function isStaged(cluster: Cluster): boolean {
  return cluster.stage !== undefined && cluster.stage >= 2;
}

/** The AppProject of a cluster's pool Applications when it has a window: `<cluster>-pools`. */
export function poolProjectName(cluster: Cluster): string {
  return `${cluster.id}-pools`;
}

/**
 * Whether a cluster's controller and CRD Applications sync only in its window
 * (`karpenter.syncInWindow` on a cluster with a window): the controller then rolls, and the
 * CRDs change, in the same UTC minutes its pools sync and its drifted nodes are replaced.
 * @default false - they sync at once, whatever the window
 */
export function controllerSyncsInWindow(cluster: Cluster): boolean {
  return cluster.window !== undefined && cluster.karpenter.syncInWindow === true;
}

/**
 * The Applications a cluster's window holds: one per team's pools, and with
 * `karpenter.syncInWindow` the CRDs and the controller. Never the tenancy policy's
 * (`<cluster>-policies`): access is not node churn, so a namespace gains or loses a team's pools,
 * and a policy object deleted by hand comes back, at merge (or at its stage's promotion), not
 * days later in the window; each guarded team's pools wait for their policy with a PreSync hook
 * instead (model/tenancy-guard.ts). Argo CD picks the sync windows of an
 * Application by its name, its destination's cluster and its namespace only
 * (argo-cd v3.5.1 pkg/apis/application/v1alpha1/types.go `SyncWindows.Matches` l. 3101-3178),
 * both where auto-sync is decided (controller/appcontroller.go l. 1947) and where a sync runs
 * (controller/sync.go l. 123, `syncWindowPreventsSync` l. 624-641): never by its sources or
 * sync options, so the controller (a chart and a `$values` git source) and the CRDs
 * (`ServerSideApply=true`) are held exactly as a pools Application is.
 */
function windowedApplicationNames(cluster: Cluster): string[] {
  const controller = controllerSyncsInWindow(cluster) ? [APP_NAMES.crds(cluster.id), APP_NAMES.controller(cluster.id)] : [];
  return [...controller, ...clusterTeams(cluster).map((t) => APP_NAMES.pools(cluster.id, t))];
}

/** Why a windowed Application may stay OutOfSync: its window, in the UTC minutes Argo CD and Karpenter share. */
function windowWait(cluster: Cluster): string {
  const w = cluster.window!;
  return `its sync window ${w.name} (${describeRuns(windowPlan(w).kept).join(', ')} UTC)`;
}

/**
 * A cluster's Applications as synth writes them and `promote` checks them: its root and the
 * children the root creates, each tracking the cluster's ref.
 */
export function clusterApplicationModels(platform: Platform, cluster: Cluster): { readonly root: ApplicationModel; readonly children: readonly ApplicationModel[] } {
  // A cluster being taken over syncs only when a person says so (docs/adopting.md).
  const sync = (a: ApplicationModel): ApplicationModel => (cluster.manualSync ? { ...a, automated: false } : a);
  return {
    root: sync(stagedRoot(platform, cluster, rootApplication(platform, cluster))),
    children: clusterApplications(platform, cluster).map((a) => sync(staged(platform, cluster, a))),
  };
}

/**
 * A cluster Application as its stage and window want it: every git source tracks the
 * cluster's revision (so a stage-N cluster gets pools, overlays, policies, the controller's
 * values and the gate only through its stage ref), and with a window the pool Applications (and
 * the CRD and controller ones with `karpenter.syncInWindow`) sit in the cluster's own AppProject,
 * which carries the sync window, and say so to the health check (a root never waits on a child
 * held by its window). The tenancy policy's Application stays in the fleet's project: no window
 * holds it.
 */
export function staged(platform: Platform, cluster: Cluster, app: ApplicationModel): ApplicationModel {
  const sources = tracking(app, clusterRevision(platform, cluster));
  if (!cluster.window || !windowedApplicationNames(cluster).includes(app.name)) return { ...app, sources };
  return { ...app, sources, project: poolProjectName(cluster), waitsFor: windowWait(cluster) };
}

/**
 * The root of a stage-N cluster tracks its stage ref (the Applications it creates then come
 * from that ref too). Until the ref exists, or holds the cluster's folder, the root cannot
 * compare; it says so, and the bootstrap does not wait on it.
 */
export function stagedRoot(platform: Platform, cluster: Cluster, root: ApplicationModel): ApplicationModel {
  if (!isStaged(cluster)) return root;
  const ref = clusterRevision(platform, cluster);
  return {
    ...root,
    sources: tracking(root, ref),
    waitsFor: `${STAGE_REF_WAIT}${ref} (moved by npm run promote once stage ${cluster.stage! - 1} is done)`,
  };
}

/** An Application's sources with every git source tracking `revision` (a chart keeps its version). */
function tracking(app: ApplicationModel, revision: string): ApplicationModel['sources'] {
  return app.sources.map((s) => ('chart' in s ? s : { ...s, targetRevision: revision }));
}

/** An AppProject with the sync windows of a cluster's pools. */
export interface PoolProjectModel extends ProjectModel {
  readonly syncWindows: readonly SyncWindowModel[];
}

/**
 * The AppProject `<cluster>-pools` of a cluster with a window, created by the cluster's root
 * before its Applications (sync wave -1): the git repository, the
 * cluster's destination in the controller's namespace (pools, and their guards' hook Jobs) and in its buffers'
 * namespaces, the fleet project's kinds, and the window as `allow` sync windows in exactly the
 * UTC minutes Karpenter may replace drifted nodes (one clock for syncs and drift). With
 * `karpenter.syncInWindow` it holds the controller too, so it also allows `kube-system`, where
 * the controller chart puts its DNS Role and RoleBinding (as the fleet project does; chart
 * karpenter v1.14.1 templates/role.yaml l. 29-33, rolebinding.yaml l. 21-25, vendored in
 * test/fixtures/karpenter-release/charts/karpenter).
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync_windows/
 */
export function poolProject(platform: Platform, cluster: Cluster): PoolProjectModel | undefined {
  if (!cluster.window) return undefined;
  const dns = controllerSyncsInWindow(cluster) ? ['kube-system'] : [];
  const namespaces = [...new Set([cluster.karpenter.namespace, ...dns, ...cluster.buffers.map((b) => b.namespace)])];
  return {
    name: poolProjectName(cluster),
    namespace: platform.gitops.argocdNamespace,
    sourceRepos: [platform.gitops.repoURL, KARPENTER_CHART_REPO],
    destinations: namespaces.map((namespace) => ({ ...cluster.destination, namespace })),
    clusterResourceWhitelist: CLUSTER_KINDS,
    // A guarded team's pools Application runs its guard gate, a hook Job (model/tenancy-guard.ts).
    namespaceResourceWhitelist: hasPolicies(cluster) ? [...NAMESPACED_KINDS, JOB_KIND] : NAMESPACED_KINDS,
    syncWindows: syncWindowModels(cluster.window, windowedApplicationNames(cluster)),
  };
}

/** The drift gate of a cluster a later stage waits for: one Job, and what it needs. */
export interface DriftGateModel {
  /** `drift-gate-<digest>`: the digest of everything below, so any change to the gate makes a new Job. */
  readonly name: string;
  readonly namespace: string;
  readonly image: string;
  /** The container's memory request and limit (`gitops.driftGateMemory`). @default DRIFT_GATE_MEMORY */
  readonly memory: string;
  /** `NODE_OPTIONS` of the container: V8's heap sized to {@link memory} ({@link driftGateNodeOptions}). */
  readonly nodeOptions: string;
  /** The ConfigMap of the program the container runs ({@link DriftGateProgramModel}), mounted at {@link DRIFT_GATE_PROGRAM_DIR}. */
  readonly programConfigMap: string;
  /** What it waits for, passed as JSON in the `GATE` environment variable. */
  readonly spec: GateSpec;
  /** The ServiceAccount, ClusterRole, Role and their bindings: `karpenter-gitops-drift-gate`. */
  readonly rbacName: string;
}


/**
 * The gate of a cluster a later stage waits for: a regular Job (not a hook: it counts toward
 * its Application's health, gitops-engine pkg/health/health_job.go) in an Application of its
 * own, `<cluster>-drift-gate`, in the root's last wave, so no sync operation ever waits for it
 * (argo-cd v3.5.1 gitops-engine/pkg/sync/sync_context.go l. 703-712: the last wave of non-hooks
 * succeeds at once "EVEN if those objects subsequently degrade"). A revert is synced at once and
 * replaces the Job (its name changes with `spec`); `npm run promote` waits for its success.
 */
export function driftGateModel(platform: Platform, cluster: Cluster, spec: GateSpec, program: DriftGateProgramModel): DriftGateModel {
  const image = platform.gitops.driftGateImage ?? DRIFT_GATE_IMAGE;
  const memory = platform.gitops.driftGateMemory ?? DRIFT_GATE_MEMORY;
  const nodeOptions = driftGateNodeOptions(memory);
  return {
    // The memory is part of the name: a Job's template cannot change, so a new limit is a new Job.
    // The program's ConfigMap is named after its text: a new program is a new Job too.
    name: `drift-gate-${digestOf([image, program.name, spec, memory])}`,
    namespace: cluster.karpenter.namespace,
    image,
    memory,
    nodeOptions,
    programConfigMap: program.name,
    spec,
    rbacName: GATE_CLUSTER_ROLE,
  };
}

/** Where the gate's container mounts its program's ConfigMap; it runs `node <dir>/<key>`. */
export const DRIFT_GATE_PROGRAM_DIR = '/gate';
/** The key of the program in its ConfigMap: its file name in {@link DRIFT_GATE_PROGRAM_DIR}. */
export const DRIFT_GATE_PROGRAM_KEY = 'gate.js';

/**
 * The drift gate's program as a ConfigMap of its own file, `dist/<cluster>/drift-gate/program.yaml`
 * (the gate's Application syncs the folder): its text is the tool's, not the config's, so a config
 * change rewrites only the small `gate.yaml` (the Job and what it waits for) and a review never
 * reads the program again. Named after its text and `immutable`: a new program is a new ConfigMap
 * (and, through the Job's name, a new Job), never an edit the kubelet would have to propagate to
 * a running pod; the API server refuses any change of an immutable ConfigMap's data.
 * @see https://kubernetes.io/docs/concepts/configuration/configmap/#configmap-immutable
 */
export interface DriftGateProgramModel {
  /** `drift-gate-program-<digest of the text>`. */
  readonly name: string;
  readonly namespace: string;
  /** The program (src/gate/), a CommonJS script node runs. */
  readonly program: string;
}

/** The drift gate's program ConfigMap of a cluster ({@link DriftGateProgramModel}). */
export function driftGateProgramModel(cluster: Cluster, program: string): DriftGateProgramModel {
  // One program for the whole fleet: its digest is taken once, not once per gated cluster.
  if (programNames.text !== program) programNames = { text: program, name: `drift-gate-program-${digestOf(program)}` };
  return { name: programNames.name, namespace: cluster.karpenter.namespace, program };
}

let programNames = { text: '', name: '' };

/**
 * `NODE_OPTIONS` for a gate container of `memory`: `--max-old-space-size` the limit less
 * {@link DRIFT_GATE_NON_HEAP_MIB} (at least {@link DRIFT_GATE_MIN_HEAP_MIB}) and a 1 MiB
 * `--max-semi-space-size`, so V8 collects before the kernel's OOM killer would stop the container,
 * and a read too large for the heap ends with V8's "JavaScript heap out of memory", not a silent
 * kill. Node does not size its heap to a small limit by itself: it hands V8 the cgroup limit
 * (libuv's `uv_get_constrained_memory`), and V8 takes a quarter of it for the old space but never
 * less than its floor of 128 MiB × the pointer-size multiplier (256 MiB in Node's 64-bit build),
 * plus a young generation of three 16 MiB semi-spaces; the image's Node 22 does the same. Both
 * flags are among those NODE_OPTIONS allows.
 * @see https://github.com/nodejs/node/blob/v22.21.0/src/api/environment.cc (SetIsolateCreateParamsForNode: ConfigureDefaults(total_memory))
 * @see https://chromium.googlesource.com/v8/v8/+/refs/heads/12.4-lkgr/src/heap/heap.cc (Heap::HeapSizeFromPhysicalMemory)
 * @see https://chromium.googlesource.com/v8/v8/+/refs/heads/12.4-lkgr/src/heap/heap-controller.h (BaseControllerTrait::kMinSize)
 * @see https://nodejs.org/docs/latest-v22.x/api/cli.html#node_optionsoptions (--max-old-space-size, --max-semi-space-size allowed)
 */
export function driftGateNodeOptions(memory: string): string {
  const limit = Number(Quantity.of(memory).to(UNITS.MiB, 'down'));
  const heap = Math.max(limit - DRIFT_GATE_NON_HEAP_MIB, DRIFT_GATE_MIN_HEAP_MIB);
  return `--max-old-space-size=${heap} --max-semi-space-size=${DRIFT_GATE_SEMI_SPACE_MIB}`;
}
