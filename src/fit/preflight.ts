/**
 * Before a cluster's tenancy action becomes Deny (docs/tenancy.md "Rolling out"): what the
 * generated policies would refuse of what already runs, read from a live export
 * (`kubectl get pods,podtemplates,replicationcontrollers,deployments,replicasets,statefulsets,
 * daemonsets,jobs,cronjobs -A -o yaml`), each object evaluated with the policies' own CEL
 * (fit/admission.ts) as the API server will judge it next:
 *
 * - a workload (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob,
 *   ReplicationController, PodTemplate) when it is next applied or its template changes (a
 *   Deployment's rollout makes a ReplicaSet, which is judged so); a ReplicaSet a Deployment
 *   controls, or a Job a CronJob controls, is left to its controller's line;
 * - a pod when it is created again by what created it: a pod of a built-in workload
 *   controller is judged through that controller's line; one with any other controller
 *   reference (an operator's) as the operator creating it, by the DaemonSet rule; a bare pod as
 *   a person applying it again. `spec.nodeName` is left out: the scheduler wrote it.
 *
 * And whether kube-controller-manager runs its controllers under their own service accounts
 * (`kubectl get serviceaccounts -n kube-system -o yaml`), which the policies take pods of the
 * DaemonSet and workload controllers by.
 */
import type { TenancyPolicyModel } from '../model/tenancy';
import { DAEMON_SET_CONTROLLER_USER, WORKLOAD_CONTROLLER_USERS } from '../model/tenancy';
import { evaluateTenancy, KIND_RESOURCES, TenancyRequest } from './admission';

/** A live object of an export. */
export type LiveItem = Readonly<Record<string, unknown>>;

/** One object the policies would refuse, or a group of pods refused for one reason. */
export interface PreflightFinding {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** When Deny refuses it: the next apply or template change of a workload, or the next pod its creator makes. */
  readonly when: 'next-change' | 'next-pod';
  /** The first refusal, as the API server words it. */
  readonly message: string;
  /** Pods of the same creator refused alike, beside this one. @default 0 */
  readonly more: number;
}

/** What a preflight found on one cluster. */
export interface Preflight {
  readonly findings: readonly PreflightFinding[];
  /** Objects judged (outside the exempt namespaces, of the kinds the policies judge). */
  readonly judged: number;
  /** Whether kube-system has the controllers' service accounts; undefined when no ServiceAccounts were exported. */
  readonly identities?: { readonly missing: readonly string[] };
}

/** The built-in controllers, by the `apiVersion kind` of the object they control pods of: the user they create pods as. */
const POD_CREATORS: Readonly<Record<string, string>> = {
  'apps/v1 ReplicaSet': 'replicaset-controller',
  'apps/v1 StatefulSet': 'statefulset-controller',
  'apps/v1 DaemonSet': 'daemon-set-controller',
  'batch/v1 Job': 'job-controller',
  'v1 ReplicationController': 'replication-controller',
};

/** Controllers whose children are judged through them: `<child kind> <controller apiVersion kind>`. */
const COVERED = new Set(['ReplicaSet apps/v1 Deployment', 'Job batch/v1 CronJob']);

const record = (v: unknown): Readonly<Record<string, unknown>> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v)) : {});

/** The controller reference of an object, if any. */
function controllerOf(o: LiveItem): Readonly<Record<string, unknown>> | undefined {
  const refs = record(o.metadata).ownerReferences;
  return Array.isArray(refs) ? refs.map(record).find((r) => r.controller === true) : undefined;
}

/** The policies' verdict on one request: the first refusal, if any. */
function refusal(policy: TenancyPolicyModel, request: TenancyRequest): string | undefined {
  return evaluateTenancy(policy, request).flatMap((v) => v.refusals)[0];
}

/** What the cluster's policies would refuse of the exported objects under Deny, and whether the controllers' identities are there. */
export function preflight(policy: TenancyPolicyModel, items: readonly LiveItem[]): Preflight {
  const findings: PreflightFinding[] = [];
  const pods = new Map<string, PreflightFinding>();
  let judged = 0;
  const serviceAccounts = items.filter((o) => o.kind === 'ServiceAccount' && record(o.metadata).namespace === 'kube-system').map((o) => String(record(o.metadata).name));
  for (const o of items) {
    const kind = String(o.kind);
    const resource = KIND_RESOURCES[kind];
    const meta = record(o.metadata);
    const namespace = String(meta.namespace ?? 'default');
    if (resource === undefined || policy.exemptNamespaces.includes(namespace)) continue;
    const owner = controllerOf(o);
    const ownerType = owner ? `${String(owner.apiVersion)} ${String(owner.kind)}` : undefined;
    if (owner && COVERED.has(`${kind} ${String(ownerType)}`)) continue;
    if (kind === 'Pod' && ownerType !== undefined && POD_CREATORS[ownerType] !== undefined) continue;
    judged++;
    const object = kind === 'Pod' ? { ...o, spec: Object.fromEntries(Object.entries(record(o.spec)).filter(([k]) => k !== 'nodeName')) } : o;
    const message = refusal(policy, { operation: 'CREATE', namespace, object, resource, username: kind === 'Pod' && owner ? 'system:serviceaccount:operators:controller' : 'kubernetes-admin' });
    if (message === undefined) continue;
    const finding: PreflightFinding = { kind, namespace, name: String(meta.name), when: kind === 'Pod' ? 'next-pod' : 'next-change', message, more: 0 };
    if (kind !== 'Pod') {
      findings.push(finding);
      continue;
    }
    // Pods of one creator refused alike are one line.
    const key = `${namespace}\0${ownerType ?? ''}\0${String(owner?.name ?? meta.name)}\0${message}`;
    const seen = pods.get(key);
    pods.set(key, seen ? { ...seen, more: seen.more + 1 } : finding);
  }
  const users = [DAEMON_SET_CONTROLLER_USER, ...WORKLOAD_CONTROLLER_USERS].map((u) => u.replace(/^system:serviceaccount:kube-system:/, ''));
  return {
    findings: [...findings, ...pods.values()],
    judged,
    ...(serviceAccounts.length > 0 ? { identities: { missing: users.filter((u) => !serviceAccounts.includes(u)) } } : {}),
  };
}
