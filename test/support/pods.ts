/**
 * Pods as the API server holds them when validating admission runs: after the controller
 * that made them (ReplicaSet, Job, DaemonSet) filled in their owner and after defaulting and
 * the mutating admission plugins (DefaultTolerationSeconds adds the not-ready and unreachable
 * tolerations to every pod; the DaemonSet controller adds its own and replaces the required node
 * affinity with one term that names the node, matchFields on metadata.name, keeping the
 * nodeSelector).
 * @see https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#defaulttolerationseconds
 * @see https://github.com/kubernetes/kubernetes/blob/v1.33.0/pkg/controller/daemon/util/daemonset_util.go (AddOrUpdateDaemonPodTolerations, ReplaceDaemonSetPodNodeNameNodeAffinity)
 *
 * Upstream: MODELS.kubernetes (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import type { JsonObject } from './admission-policy';

/** A toleration as a pod spec writes it. */
export interface PodToleration {
  readonly key?: string;
  readonly operator?: 'Exists' | 'Equal' | 'Lt' | 'Gt';
  readonly value?: string;
  readonly effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  readonly tolerationSeconds?: number;
}

/** One required node affinity term's expressions. */
export type Term = readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[];

/** What a test says about a pod: everything else is what a cluster fills in. */
export interface PodOptions {
  /** The pod's own tolerations (the defaulted ones are added). @default [] */
  readonly tolerations?: readonly PodToleration[];
  /** @default - none */
  readonly nodeSelector?: Readonly<Record<string, string>>;
  /** Required node affinity terms. @default - none */
  readonly terms?: readonly Term[];
  /** Preferred node affinity terms, each with its weight. @default - none */
  readonly preferred?: readonly { readonly weight: number; readonly expressions: Term }[];
  /** `spec.nodeName`. @default - none */
  readonly nodeName?: string;
  /** @default "web" */
  readonly name?: string;
}

/** An ownerReference as a pod carries it. */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

/** The tolerations DefaultTolerationSeconds adds to a pod that has none for these keys. */
const DEFAULTED_TOLERATIONS: PodToleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

function podSpec(o: PodOptions, extra: JsonObject = {}): JsonObject {
  return {
    containers: [{ name: 'app', image: 'public.ecr.aws/nginx/nginx:1.27', resources: { requests: { cpu: '250m', memory: '256Mi' } }, imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: 'default',
    securityContext: {},
    schedulerName: 'default-scheduler',
    enableServiceLinks: true,
    priority: 0,
    preemptionPolicy: 'PreemptLowerPriority',
    ...(o.nodeName ? { nodeName: o.nodeName } : {}),
    ...(o.nodeSelector ? { nodeSelector: { ...o.nodeSelector } } : {}),
    ...(o.terms || o.preferred ? {
      affinity: {
        nodeAffinity: {
          ...(o.terms ? { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: o.terms.map((t) => ({ matchExpressions: t.map((e) => ({ ...e })) })) } } : {}),
          ...(o.preferred ? { preferredDuringSchedulingIgnoredDuringExecution: o.preferred.map((p) => ({ weight: p.weight, preference: { matchExpressions: p.expressions.map((e) => ({ ...e })) } })) } : {}),
        },
      },
    } : {}),
    tolerations: [...(o.tolerations ?? []), ...DEFAULTED_TOLERATIONS].map((t) => ({ ...t })),
    ...extra,
  };
}

/** The ownerReference a controller writes on the pods it makes (`controller: true`). */
export function owner(apiVersion: string, kind: string, name: string): OwnerReference {
  return { apiVersion, kind, name, uid: '6f1c3e0e-2b1a-4c47-9a51-5d0c8e1f2a3b', controller: true, blockOwnerDeletion: true };
}

/** A Deployment's pod: made by its ReplicaSet (`<deployment>-<hash>-<suffix>`, owner ReplicaSet). */
export function aDeploymentPod(o: PodOptions = {}): JsonObject {
  const name = o.name ?? 'web';
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      generateName: `${name}-7d9c5b6f4-`, name: `${name}-7d9c5b6f4-x2k8p`,
      labels: { app: name, 'pod-template-hash': '7d9c5b6f4' },
      ownerReferences: [owner('apps/v1', 'ReplicaSet', `${name}-7d9c5b6f4`)],
    },
    spec: podSpec(o),
  };
}

/** A Job's pod: owner Job, restartPolicy Never, the job-tracking finalizer. */
export function aJobPod(o: PodOptions = {}): JsonObject {
  const name = o.name ?? 'nightly';
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      generateName: `${name}-`, name: `${name}-5xq7r`,
      labels: { 'batch.kubernetes.io/job-name': name, 'job-name': name, 'batch.kubernetes.io/controller-uid': '0c0b7a8e-3f2d-4e1a-9d6b-1a2b3c4d5e6f' },
      finalizers: ['batch.kubernetes.io/job-tracking'],
      ownerReferences: [owner('batch/v1', 'Job', name)],
    },
    spec: podSpec(o, { restartPolicy: 'Never' }),
  };
}

/**
 * A DaemonSet's pod: owner DaemonSet, the tolerations the DaemonSet controller adds, and the one
 * required term it pins each pod to its node with (matchFields on `metadata.name`), which replaces
 * whatever required node affinity the DaemonSet has; its nodeSelector is kept.
 */
export function aDaemonSetPod(o: Omit<PodOptions, 'terms' | 'nodeName'> = {}): JsonObject {
  const name = o.name ?? 'node-exporter';
  const pinned = { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['ip-10-0-12-34.ec2.internal'] }] };
  const spec = podSpec(o, {});
  spec.affinity = { nodeAffinity: { ...(obj(obj(spec.affinity).nodeAffinity)), requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [pinned] } } };
  spec.tolerations = [
    ...(o.tolerations ?? []),
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      generateName: `${name}-`, name: `${name}-8m2zt`,
      labels: { app: name, 'controller-revision-hash': '6d8f9c7b5', 'pod-template-generation': '1' },
      ownerReferences: [owner('apps/v1', 'DaemonSet', name)],
    },
    spec,
  };
}

/** A bare pod (`kubectl run`): no owner, unless `owners` are given (anyone who may create pods may write any). */
export function aBarePod(o: PodOptions = {}, owners: readonly OwnerReference[] = []): JsonObject {
  const name = o.name ?? 'debug';
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, labels: { run: name }, ...(owners.length > 0 ? { ownerReferences: owners.map((r) => ({ ...r })) } : {}) },
    spec: podSpec(o, { restartPolicy: 'Never' }),
  };
}

function obj(v: unknown): JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
}

/** The toleration that tolerates every taint (a key-less Exists). */
export const TOLERATE_ALL: PodToleration = { operator: 'Exists' };

/** A pod template's spec as the API server holds it in a workload (defaulted like a pod's, but no admission plugin adds tolerations to it). */
function templateSpec(o: PodOptions): JsonObject {
  const spec = podSpec(o);
  spec.tolerations = (o.tolerations ?? []).map((t) => ({ ...t }));
  return spec;
}

/** The group, version and resource of each kind a workload builder makes. */
export const RESOURCES = {
  Pod: { group: '', version: 'v1', resource: 'pods' },
  PodTemplate: { group: '', version: 'v1', resource: 'podtemplates' },
  Deployment: { group: 'apps', version: 'v1', resource: 'deployments' },
  ReplicaSet: { group: 'apps', version: 'v1', resource: 'replicasets' },
  StatefulSet: { group: 'apps', version: 'v1', resource: 'statefulsets' },
  DaemonSet: { group: 'apps', version: 'v1', resource: 'daemonsets' },
  Job: { group: 'batch', version: 'v1', resource: 'jobs' },
  CronJob: { group: 'batch', version: 'v1', resource: 'cronjobs' },
  ReplicationController: { group: '', version: 'v1', resource: 'replicationcontrollers' },
} as const;

/** A workload of apps/v1 (`Deployment`, `ReplicaSet`, `StatefulSet`, `DaemonSet`) whose pod template is as given. */
export function aWorkload(kind: 'Deployment' | 'ReplicaSet' | 'StatefulSet' | 'DaemonSet', o: PodOptions = {}, uid = '3b9d2f4e-7c1a-4e8b-9f0d-2a6c5e8b1d4f'): JsonObject {
  const name = o.name ?? (kind === 'DaemonSet' ? 'node-exporter' : 'web');
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1', kind,
    metadata: { name, uid, labels, creationTimestamp: '2026-11-01T09:00:00Z' },
    spec: {
      selector: { matchLabels: labels },
      ...(kind === 'DaemonSet' ? {} : { replicas: 2 }),
      template: { metadata: { labels }, spec: templateSpec(o) },
    },
  };
}

/** A PodTemplate (what a CapacityBuffer's podTemplateRef names). */
export function aPodTemplate(o: PodOptions = {}): JsonObject {
  const name = o.name ?? 'web-buffer';
  return { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name }, template: { metadata: { labels: { app: name } }, spec: templateSpec(o) } };
}
