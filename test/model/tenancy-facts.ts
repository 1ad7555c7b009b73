/**
 * What the TypeScript tenancy rule (tenancyRefusal, as fit uses it) reads of a request, taken
 * from the object the policy's CEL reads, so the tests can hold the two to the same answers; and
 * the policy, binding and parameters as synth renders them for a cluster.
 */
import { parseAllDocuments } from 'yaml';
import { DAEMON_SET_CONTROLLER_USER, type PodAdmissionFacts } from '../../src/model/tenancy';
import type { AdmissionRequest, JsonObject, PolicyPair } from '../support/admission-policy';

/** Where each judged resource keeps the spec of its pods, and the kind the policy names. */
const POD_SPEC: Readonly<Record<string, { readonly path: readonly string[]; readonly kind: string }>> = {
  pods: { path: ['spec'], kind: 'Pod' },
  podtemplates: { path: ['template', 'spec'], kind: 'PodTemplate' },
  deployments: { path: ['spec', 'template', 'spec'], kind: 'Deployment' },
  replicasets: { path: ['spec', 'template', 'spec'], kind: 'ReplicaSet' },
  statefulsets: { path: ['spec', 'template', 'spec'], kind: 'StatefulSet' },
  daemonsets: { path: ['spec', 'template', 'spec'], kind: 'DaemonSet' },
};

/**
 * The object a request creates, as PodAdmissionFacts: its pod spec, `spec.nodeName` (a pod's
 * only on CREATE), a pod's controller as an apps/v1 DaemonSet (on CREATE, or when an UPDATE
 * makes it one), and whether the DaemonSet controller sends it.
 */
export function podFacts(request: AdmissionRequest): PodAdmissionFacts {
  const resource = request.resource?.resource ?? 'pods';
  const where = POD_SPEC[resource];
  if (!where) throw new Error(`tenancy-facts: the policy does not judge ${resource}`);
  let spec: JsonObject = request.object ?? {};
  for (const key of where.path) spec = (spec[key] ?? {}) as JsonObject;
  const s = spec as {
    tolerations?: PodAdmissionFacts['tolerations'];
    nodeSelector?: Record<string, string>;
    nodeName?: string;
    affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: JsonObject[] } } };
  };
  const terms = s.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  const claims = (o: JsonObject | null | undefined) => (((o?.metadata as JsonObject | undefined)?.ownerReferences as JsonObject[] | undefined) ?? [])
    .some((r) => r.apiVersion === 'apps/v1' && r.kind === 'DaemonSet' && r.controller === true);
  const pod = resource === 'pods';
  return {
    namespace: request.namespace,
    kind: where.kind,
    tolerations: s.tolerations ?? [],
    nodeSelector: s.nodeSelector ?? {},
    ...(terms ? {
      nodeSelectorTerms: terms.map((t) => ({
        matchExpressions: (t.matchExpressions ?? []) as { key: string; operator: string }[],
        matchFields: (t.matchFields ?? []) as { key: string; operator: string }[],
      })),
    } : {}),
    ...((!pod || request.operation === 'CREATE') && s.nodeName ? { nodeName: s.nodeName } : {}),
    ownedByDaemonSet: pod && claims(request.object) && !(request.operation === 'UPDATE' && claims(request.oldObject)),
    byDaemonSetController: request.username === DAEMON_SET_CONTROLLER_USER,
    operation: request.operation === 'UPDATE' ? 'UPDATE' : 'CREATE',
  };
}

/** The tenancy policy, its binding and its parameters, as synth wrote them for a cluster (`files`: synthesize's result). */
export function renderedPolicy(files: ReadonlyMap<string, string>, cluster = 'demo'): PolicyPair {
  const text = files.get(`dist/${cluster}/policies/team-pools.yaml`);
  if (text === undefined) throw new Error(`no policy for ${cluster}: ${[...files.keys()].filter((f) => f.includes(cluster)).join(', ')}`);
  const docs = parseAllDocuments(text).map((d) => d.toJS() as JsonObject);
  const byKind = (kind: string) => {
    const found = docs.filter((d) => d.kind === kind);
    if (found.length !== 1) throw new Error(`${found.length} ${kind} in the policy file`);
    return found[0];
  };
  return { policy: byKind('ValidatingAdmissionPolicy'), binding: byKind('ValidatingAdmissionPolicyBinding'), params: docs.filter((d) => d.kind === 'TeamTenancy') };
}
