/**
 * A Kubernetes API server and the built-in controllers the rollout simulation needs, one per
 * cluster: objects as applied by their manager, with what controllers write beside them
 * (status, annotations), `metadata.generation`, deletion, the Job and Deployment controllers,
 * and RBAC for the drift gate's reads.
 *
 * - `metadata.generation` starts at 1 and grows by one with each change outside `metadata` and
 *   `status` (apiserver `rest.BeforeUpdate`: a custom resource with a status subresource, a
 *   Deployment or a Job bumps it on a spec change only);
 *   @see https://kubernetes.io/docs/reference/using-api/api-concepts/ (generation)
 * - a Job's `spec.template`, `spec.selector` and `spec.completions` are immutable: an update
 *   that changes them is refused (`field is immutable`);
 *   @see https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/batch/validation/validation.go (ValidateJobSpecUpdate: ValidateImmutableField on Completions, Selector, Template)
 * - a Deployment rolls a changed pod template out: the new pods are available a minute later
 *   unless they cannot run (an outage), and until then the old ones keep running (the chart's
 *   RollingUpdate with 2 replicas: maxSurge 25% rounds up to 1, maxUnavailable 25% down to 0);
 *   @see https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#rolling-update-deployment
 * - a Job runs one pod at a time (the program is given by the simulation) and records
 *   `Complete` or `Failed` in its conditions; `backoffLimit` failed pods fail the Job;
 *   @see https://kubernetes.io/docs/concepts/workloads/controllers/job/#pod-backoff-failure-policy
 * - a Job's `activeDeadlineSeconds` counts from its `startTime` (set when the Job controller first
 *   handles it, pod or no pod): past it, its running pod is ended and the Job fails with reason
 *   `DeadlineExceeded`, whatever its `backoffLimit`;
 *   @see https://kubernetes.io/docs/concepts/workloads/controllers/job/#job-termination-and-cleanup
 * - a pod whose ServiceAccount does not exist is not created (the ServiceAccount admission
 *   plugin refuses it): the Job waits without a pod, its deadline running;
 *   @see https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#serviceaccount
 * - a Job deleted with foreground propagation (how Argo CD prunes) is gone once its pods
 *   are, the next minute; other objects without finalizers go at once;
 * - RBAC: a request is allowed when a (Cluster)RoleBinding binds the ServiceAccount to a rule
 *   naming the verb, API group and resource (and the object's name when `resourceNames` is set);
 *   @see https://kubernetes.io/docs/reference/access-authn-authz/rbac/
 * - a list with `limit` is answered a page at a time as the etcd3 store serves it: objects in key
 *   order (by name), the selector applied while the page fills up to `limit`, `continue` set
 *   when a further key remains, so a page may be short or empty and still have a next one
 *   ({@link KubeApi.listPage}). A list is read within one simulated minute, in which nothing
 *   changes, so every page is of one resource version and no token expires (an expired token's
 *   410 and the restart are tested on the gate program itself, test/gate/run.test.ts).
 *   @see https://github.com/kubernetes/apiserver/blob/v0.34.9/pkg/storage/etcd3/store.go#L753-L902 (GetList)
 *   @see https://github.com/kubernetes/apimachinery/blob/v0.34.9/pkg/apis/meta/v1/types.go#L375-L406 (limit, continue)
 *
 * Upstream: MODELS.kubernetes (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */

/** A Kubernetes object as JSON. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly [key: string]: unknown;
  };
  readonly [key: string]: unknown;
}

/** Kinds the simulation's clusters serve: API group and whether namespaced. Another kind is an error. */
const KINDS: Readonly<Record<string, { readonly group: string; readonly namespaced: boolean }>> = {
  Namespace: { group: '', namespaced: false },
  ServiceAccount: { group: '', namespaced: true },
  ConfigMap: { group: '', namespaced: true },
  Secret: { group: '', namespaced: true },
  Service: { group: '', namespaced: true },
  Pod: { group: '', namespaced: true },
  PodTemplate: { group: '', namespaced: true },
  Deployment: { group: 'apps', namespaced: true },
  Job: { group: 'batch', namespaced: true },
  PodDisruptionBudget: { group: 'policy', namespaced: true },
  ClusterRole: { group: 'rbac.authorization.k8s.io', namespaced: false },
  ClusterRoleBinding: { group: 'rbac.authorization.k8s.io', namespaced: false },
  Role: { group: 'rbac.authorization.k8s.io', namespaced: true },
  RoleBinding: { group: 'rbac.authorization.k8s.io', namespaced: true },
  CustomResourceDefinition: { group: 'apiextensions.k8s.io', namespaced: false },
  ValidatingAdmissionPolicy: { group: 'admissionregistration.k8s.io', namespaced: false },
  ValidatingAdmissionPolicyBinding: { group: 'admissionregistration.k8s.io', namespaced: false },
  TeamTenancy: { group: 'karpenter-gitops.io', namespaced: false },
  NodePool: { group: 'karpenter.sh', namespaced: false },
  NodeClaim: { group: 'karpenter.sh', namespaced: false },
  NodeOverlay: { group: 'karpenter.sh', namespaced: false },
  EC2NodeClass: { group: 'karpenter.k8s.aws', namespaced: false },
  CapacityBuffer: { group: 'autoscaling.x-k8s.io', namespaced: true },
  Application: { group: 'argoproj.io', namespaced: true },
  AppProject: { group: 'argoproj.io', namespaced: true },
};

/** The API group and scope of a kind. */
export function kindInfo(kind: string): { readonly group: string; readonly namespaced: boolean } {
  const info = KINDS[kind];
  if (!info) throw new Error(`the simulated API server does not serve kind ${kind}`);
  return info;
}

/** The key of an object: group/kind/namespace/name. */
export function objectKey(kind: string, name: string, namespace?: string): string {
  const { group, namespaced } = kindInfo(kind);
  return `${group}/${kind}/${namespaced ? namespace ?? '' : ''}/${name}`;
}

/** An object the API server holds. */
export interface Live {
  readonly key: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly uid: string;
  readonly createdAt: number;
  /** What its manager last applied (no status). */
  applied: KubeObject;
  /** `JSON.stringify(applied)`, to compare with a desired manifest. */
  appliedJson: string;
  generation: number;
  /** Annotations written by controllers beside the applied ones (Karpenter's hashes). */
  controllerAnnotations: Record<string, string>;
  status?: unknown;
  deletionAt?: number;
  /** The Argo CD Application that applied it (Argo CD's tracking annotation). */
  trackedBy?: string;
  /** Bumped on every change (resourceVersion). */
  version: number;
}

/** A refused request, as the API server words it. */
export class ApiError extends Error {
  public constructor(public readonly reason: 'Invalid' | 'Forbidden', message: string) {
    super(message);
  }
}

/** What changed on an object. */
export type Change = 'created' | 'spec' | 'metadata' | 'status' | 'deleting' | 'deleted';

const withoutMetaAndStatus = (o: KubeObject): string => {
  const { metadata: _m, status: _s, ...rest } = o as Record<string, unknown>;
  return JSON.stringify(rest);
};

/** One cluster's API server. */
export class KubeApi {
  private readonly objects = new Map<string, Live>();
  private readonly byKind = new Map<string, Map<string, Live>>();
  private readonly byTracker = new Map<string, Set<Live>>();
  private readonly listeners: ((live: Live, change: Change) => void)[] = [];
  private uids = 0;

  public constructor(public readonly cluster: string, private readonly now: () => number) {}

  /** Calls `listener` on every change (the watches of controllers). */
  public watch(listener: (live: Live, change: Change) => void): void {
    this.listeners.push(listener);
  }

  public get(kind: string, name: string, namespace?: string): Live | undefined {
    return this.objects.get(objectKey(kind, name, namespace));
  }

  public list(kind: string): Live[] {
    return [...(this.byKind.get(kind)?.values() ?? [])];
  }

  public all(): IterableIterator<Live> {
    return this.objects.values();
  }

  /** The objects an Argo CD Application applied (its tracking annotation). */
  public trackedBy(app: string): Live[] {
    return [...(this.byTracker.get(app) ?? [])];
  }

  private track(live: Live, app: string | undefined): void {
    if (live.trackedBy !== undefined) this.byTracker.get(live.trackedBy)?.delete(live);
    live.trackedBy = app;
    if (app === undefined) return;
    if (!this.byTracker.has(app)) this.byTracker.set(app, new Set());
    this.byTracker.get(app)!.add(live);
  }

  /**
   * Creates or updates an object from a manifest (a server-side apply by `trackedBy`, or by a
   * controller when undefined). Throws {@link ApiError} for a change the API server refuses.
   */
  public apply(manifest: KubeObject, trackedBy?: string): Live {
    const { kind } = manifest;
    const { namespaced } = kindInfo(kind);
    const namespace = namespaced ? manifest.metadata.namespace : undefined;
    if (namespaced && !namespace) throw new ApiError('Invalid', `${kind} ${manifest.metadata.name}: a namespaced object needs a namespace`);
    const key = objectKey(kind, manifest.metadata.name, namespace);
    const json = JSON.stringify(manifest);
    const existing = this.objects.get(key);
    if (!existing) {
      const live: Live = {
        key, kind, name: manifest.metadata.name, namespace, uid: `uid-${this.cluster}-${++this.uids}`, createdAt: this.now(),
        applied: manifest, appliedJson: json, generation: 1, controllerAnnotations: {}, version: 1,
      };
      this.track(live, trackedBy);
      this.objects.set(key, live);
      if (!this.byKind.has(kind)) this.byKind.set(kind, new Map());
      this.byKind.get(kind)!.set(key, live);
      this.emit(live, 'created');
      return live;
    }
    if (existing.deletionAt !== undefined) throw new ApiError('Invalid', `${kind} "${manifest.metadata.name}" is being deleted`);
    if (existing.appliedJson === json && existing.trackedBy === (trackedBy ?? existing.trackedBy)) return existing;
    if (kind === 'Job') this.refuseJobChange(existing.applied, manifest);
    const specChanged = withoutMetaAndStatus(existing.applied) !== withoutMetaAndStatus(manifest);
    existing.applied = manifest;
    existing.appliedJson = json;
    this.track(existing, trackedBy ?? existing.trackedBy);
    if (specChanged) existing.generation++;
    existing.version++;
    this.emit(existing, specChanged ? 'spec' : 'metadata');
    return existing;
  }

  /** A Job's template, selector and completions cannot change (ValidateJobSpecUpdate). */
  private refuseJobChange(old: KubeObject, next: KubeObject): void {
    const spec = (o: KubeObject) => (o.spec ?? {}) as Record<string, unknown>;
    for (const field of ['template', 'selector', 'completions']) {
      if (JSON.stringify(spec(old)[field]) !== JSON.stringify(spec(next)[field])) {
        throw new ApiError('Invalid', `Job.batch "${next.metadata.name}" is invalid: spec.${field}: Invalid value: ...: field is immutable`);
      }
    }
  }

  /** A controller writes `status`. */
  public setStatus(live: Live, status: unknown): void {
    if (JSON.stringify(live.status) === JSON.stringify(status)) return;
    live.status = status;
    live.version++;
    this.emit(live, 'status');
  }

  /** A controller writes annotations (a merge patch of `metadata.annotations`). */
  public annotate(live: Live, annotations: Readonly<Record<string, string>>): void {
    if (Object.entries(annotations).every(([k, v]) => live.controllerAnnotations[k] === v)) return;
    Object.assign(live.controllerAnnotations, annotations);
    live.version++;
    this.emit(live, 'metadata');
  }

  /**
   * A delete request. A Job (deleted with foreground propagation) stays until its pods are
   * gone, the next minute; a NodeClaim until Karpenter removes its termination finalizer
   * ({@link removeFinalizer}); other objects go at once.
   */
  public delete(live: Live): void {
    if (live.deletionAt !== undefined) return;
    live.deletionAt = this.now();
    live.version++;
    if (live.kind === 'Job' || live.kind === 'NodeClaim') {
      this.emit(live, 'deleting');
      return;
    }
    this.remove(live);
  }

  /** Removes Jobs whose pods have terminated (within a minute of the delete). */
  public finalizeDeletions(): void {
    for (const live of this.list('Job')) {
      if (live.deletionAt !== undefined && this.now() - live.deletionAt >= 60_000) this.remove(live);
    }
  }

  /** The last finalizer of an object being deleted is removed: it goes. */
  public removeFinalizer(live: Live): void {
    if (live.deletionAt === undefined) throw new Error(`${live.key} is not being deleted`);
    this.remove(live);
  }

  private remove(live: Live): void {
    this.objects.delete(live.key);
    this.byKind.get(live.kind)?.delete(live.key);
    if (live.trackedBy !== undefined) this.byTracker.get(live.trackedBy)?.delete(live);
    this.emit(live, 'deleted');
  }

  /** Grows with every change to any object. */
  public changes = 0;

  /** The objects of a kind by name, as of {@link changes} (the key order of a list). */
  private sorted?: { readonly kind: string; readonly at: number; readonly lives: readonly Live[] };
  /** Each object's JSON size, as of its version. */
  private readonly sizes = new WeakMap<Live, { readonly version: number; readonly bytes: number }>();

  /** Bytes of the object's JSON as `kubectl get -o json` serves it ({@link render}). */
  public jsonBytes(live: Live): number {
    const known = this.sizes.get(live);
    if (known?.version === live.version) return known.bytes;
    const bytes = Buffer.byteLength(JSON.stringify(this.render(live)));
    this.sizes.set(live, { version: live.version, bytes });
    return bytes;
  }

  /**
   * One page of a list of `kind`: from `continue` (or the first key), the objects `selected`
   * up to `limit` (0: all), and the token of the next page when a further key remains.
   */
  public listPage(kind: string, options: { readonly selected: (labels: Readonly<Record<string, string>>) => boolean; readonly limit: number; readonly continue?: string }): { readonly items: Live[]; readonly continue?: string } {
    if (this.sorted?.kind !== kind || this.sorted.at !== this.changes) {
      this.sorted = { kind, at: this.changes, lives: this.list(kind).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
    }
    const all = this.sorted.lives;
    const items: Live[] = [];
    let next = options.continue === undefined ? 0 : Number(options.continue);
    for (; next < all.length; next++) {
      if (options.limit > 0 && items.length >= options.limit) break;
      if (options.selected(all[next].applied.metadata.labels ?? {})) items.push(all[next]);
    }
    return next < all.length ? { items, continue: String(next) } : { items };
  }

  private emit(live: Live, change: Change): void {
    this.changes++;
    for (const l of this.listeners) l(live, change);
  }

  /** The object as `kubectl get -o json` shows it, without `resourceVersion` (opaque, and nothing simulated reads it). */
  public render(live: Live): KubeObject {
    const meta = live.applied.metadata;
    const annotations = { ...(meta.annotations ?? {}), ...live.controllerAnnotations };
    return {
      ...live.applied,
      metadata: {
        ...meta,
        ...(live.namespace !== undefined ? { namespace: live.namespace } : {}),
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
        uid: live.uid,
        generation: live.generation,
        creationTimestamp: new Date(live.createdAt).toISOString(),
        ...(live.deletionAt !== undefined ? { deletionTimestamp: new Date(live.deletionAt).toISOString() } : {}),
      },
      ...(live.status !== undefined ? { status: live.status } : {}),
    };
  }

  /**
   * Whether ServiceAccount `namespace/name` may `verb` `resource` of `group` (in `objectNamespace`,
   * named `objectName` when given), by the cluster's live RBAC objects.
   */
  public authorize(subject: { readonly namespace: string; readonly name: string }, verb: string, group: string, resource: string, objectNamespace?: string, objectName?: string): boolean {
    const bound = (binding: Live) => ((binding.applied.subjects ?? []) as { kind: string; name: string; namespace?: string }[])
      .some((s) => s.kind === 'ServiceAccount' && s.name === subject.name && s.namespace === subject.namespace);
    const allows = (role: Live | undefined) => ((role?.applied.rules ?? []) as { apiGroups?: string[]; resources?: string[]; verbs?: string[]; resourceNames?: string[] }[])
      .some((r) => (r.apiGroups ?? []).some((g) => g === '*' || g === group) && (r.resources ?? []).some((x) => x === '*' || x === resource)
        && (r.verbs ?? []).some((v) => v === '*' || v === verb) && (r.resourceNames === undefined || (objectName !== undefined && r.resourceNames.includes(objectName))));
    const roleOf = (binding: Live) => {
      const ref = binding.applied.roleRef as { kind: string; name: string };
      return ref.kind === 'ClusterRole' ? this.get('ClusterRole', ref.name) : this.get('Role', ref.name, binding.namespace);
    };
    for (const b of this.list('ClusterRoleBinding')) if (bound(b) && allows(roleOf(b))) return true;
    if (objectNamespace === undefined) return false;
    for (const b of this.list('RoleBinding')) if (b.namespace === objectNamespace && bound(b) && allows(roleOf(b))) return true;
    return false;
  }
}

/** What a Job's pod does each minute: still running, or exited. */
export type PodResult = 'running' | 'succeeded' | 'failed';

/** A program a Job's pod runs: called once a minute while the pod runs. */
export type PodProgram = (job: Live, api: KubeApi, now: number) => PodResult;

interface JobState {
  /** `status.startTime`: when the Job controller first handled it. */
  readonly startedAt: number;
  podStartedAt?: number;
  failed: number;
  program?: PodProgram;
}

interface DeploymentState {
  /** The pod template whose pods are available, if any. */
  serving?: string;
  /** A template being rolled out, and when its pods are available (undefined while they cannot start). */
  pending?: { readonly template: string; readyAt?: number };
}

/**
 * The Deployment and Job controllers and garbage collection of one cluster. `programFor` picks
 * the program a Job's pod runs; a Deployment named in {@link outages} has no pod that runs (they
 * crash: an outage) until it is taken out again.
 */
export class KubeControllers {
  private readonly jobs = new Map<string, JobState>();
  private readonly deployments = new Map<string, DeploymentState>();
  /** Deployments whose pods cannot run, by `namespace/name`. */
  public readonly outages = new Set<string>();

  /** Whether a Deployment or Job changed since the last minute (the controllers' own writes included). */
  private dirty = true;

  public constructor(private readonly api: KubeApi, private readonly programFor: (job: Live) => PodProgram) {
    api.watch((live) => {
      if (live.kind === 'Deployment' || live.kind === 'Job') this.dirty = true;
    });
  }

  /** The pod template of the pods that serve (available) now, if any. */
  public servingTemplate(namespace: string, name: string): Record<string, unknown> | undefined {
    const serving = this.deployments.get(`${namespace}/${name}`)?.serving;
    return serving === undefined ? undefined : JSON.parse(serving) as Record<string, unknown>;
  }

  /** Whether nothing is under way: no rollout, no running or terminating Job. */
  public idle(): boolean {
    if (this.dirty || [...this.deployments.values()].some((d) => d.pending !== undefined)) return false;
    return this.api.list('Job').every((job) => job.deletionAt === undefined
      && (((job.status ?? {}) as { conditions?: { type: string; status: string }[] }).conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True'));
  }

  /** One minute of the controllers. */
  public tick(now: number): void {
    this.dirty = false;
    this.api.finalizeDeletions();
    for (const live of this.api.list('Deployment')) this.deployment(live, now);
    for (const live of this.api.list('Job')) this.job(live, now);
  }

  private deployment(live: Live, now: number): void {
    const id = `${live.namespace}/${live.name}`;
    const spec = live.applied.spec as { replicas?: number; template: unknown };
    const template = JSON.stringify(spec.template);
    let state = this.deployments.get(id);
    if (!state) {
      state = {};
      this.deployments.set(id, state);
    }
    if (this.outages.has(id)) {
      // Every pod crashes: none is available, and the current template waits to start.
      state.serving = undefined;
      state.pending = { template, readyAt: undefined };
    } else {
      if (state.serving !== template && state.pending?.template !== template) state.pending = { template, readyAt: now + 60_000 };
      if (state.pending && state.pending.readyAt === undefined) state.pending.readyAt = now + 60_000;
      if (state.pending && state.pending.readyAt! <= now) {
        state.serving = state.pending.template;
        state.pending = undefined;
      }
    }
    const replicas = spec.replicas ?? 1;
    const rolling = state.pending !== undefined && state.serving !== undefined;
    const available = state.serving !== undefined ? replicas : 0;
    this.api.setStatus(live, {
      observedGeneration: live.generation,
      replicas: rolling ? 2 * replicas : replicas,
      updatedReplicas: replicas,
      readyReplicas: available,
      availableReplicas: available,
      conditions: [
        { type: 'Available', status: available >= replicas ? 'True' : 'False' },
        { type: 'Progressing', status: 'True', reason: state.pending ? 'ReplicaSetUpdated' : 'NewReplicaSetAvailable' },
      ],
    });
  }

  private job(live: Live, now: number): void {
    if (live.deletionAt !== undefined) return;
    const status = (live.status ?? {}) as { conditions?: { type: string; status: string }[] };
    if ((status.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')) return;
    let state = this.jobs.get(live.uid);
    if (!state) {
      state = { startedAt: now, failed: 0 };
      this.jobs.set(live.uid, state);
    }
    const spec = (live.applied.spec ?? {}) as { activeDeadlineSeconds?: number; backoffLimit?: number; template?: { spec?: { serviceAccountName?: string; volumes?: { configMap?: { name: string; optional?: boolean } }[] } } };
    const startTime = new Date(state.startedAt).toISOString();
    if (spec.activeDeadlineSeconds !== undefined && now - state.startedAt >= spec.activeDeadlineSeconds * 1000) {
      this.api.setStatus(live, {
        startTime, failed: state.failed + (state.podStartedAt !== undefined ? 1 : 0),
        conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' }],
      });
      return;
    }
    const serviceAccount = spec.template?.spec?.serviceAccountName;
    if (state.podStartedAt === undefined && serviceAccount !== undefined && !this.api.get('ServiceAccount', serviceAccount, live.namespace)) {
      this.api.setStatus(live, { active: 0, failed: state.failed, startTime });
      return;
    }
    // The kubelet sets up every volume before it starts a container, and a ConfigMap volume whose
    // ConfigMap is not found fails to set up unless it is `optional` (kubernetes
    // pkg/volume/configmap/configmap.go `SetUpAt`: `if !(errors.IsNotFound(err) && optional) {
    // return err }`): the pod stays in ContainerCreating (FailedMount), retried, until it exists.
    const missing = (spec.template?.spec?.volumes ?? []).filter((v) => v.configMap !== undefined && v.configMap.optional !== true && !this.api.get('ConfigMap', v.configMap.name, live.namespace));
    if (state.podStartedAt === undefined && missing.length) {
      this.api.setStatus(live, { active: 1, failed: state.failed, startTime });
      return;
    }
    // A pod is scheduled and its image pulled within a minute of the Job (or of its last pod's failure).
    if (state.podStartedAt === undefined) {
      state.podStartedAt = now;
      this.api.setStatus(live, { active: 1, failed: state.failed, startTime });
      return;
    }
    state.program ??= this.programFor(live);
    const result = state.program(live, this.api, now);
    if (result === 'running') return;
    if (result === 'succeeded') {
      const at = new Date(now).toISOString();
      this.api.setStatus(live, {
        startTime, succeeded: 1, failed: state.failed, completionTime: at,
        conditions: [{ type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: at }, { type: 'Complete', status: 'True', lastTransitionTime: at }],
      });
      return;
    }
    state.failed++;
    state.podStartedAt = undefined;
    state.program = undefined;
    const backoffLimit = spec.backoffLimit ?? 6;
    if (state.failed > backoffLimit) {
      this.api.setStatus(live, { startTime, failed: state.failed, conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }] });
    } else {
      this.api.setStatus(live, { startTime, active: 0, failed: state.failed });
    }
  }
}
