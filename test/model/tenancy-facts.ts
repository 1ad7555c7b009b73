/**
 * What the TypeScript tenancy rule (tenancyRefusal, as fit uses it) reads of a request, taken
 * from the pod object the policy's CEL reads, so the tests can hold the two to the same answers.
 */
import type { PodAdmissionFacts } from '../../src/model/tenancy';
import type { AdmissionRequest, JsonObject } from '../support/admission-policy';

/** The pod of a request as PodAdmissionFacts: `spec.nodeName` counts only on CREATE, the owner only as an apps/v1 DaemonSet controller. */
export function podFacts(request: AdmissionRequest): PodAdmissionFacts {
  const pod = request.object as { metadata: JsonObject; spec: JsonObject };
  const spec = pod.spec as {
    tolerations?: PodAdmissionFacts['tolerations'];
    nodeSelector?: Record<string, string>;
    nodeName?: string;
    affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: JsonObject[] } } };
  };
  const terms = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  const owners = (pod.metadata.ownerReferences as JsonObject[] | undefined) ?? [];
  return {
    namespace: request.namespace,
    tolerations: spec.tolerations ?? [],
    nodeSelector: spec.nodeSelector ?? {},
    ...(terms ? {
      nodeSelectorTerms: terms.map((t) => ({
        matchExpressions: (t.matchExpressions ?? []) as { key: string; operator: string }[],
        matchFields: (t.matchFields ?? []) as { key: string; operator: string }[],
      })),
    } : {}),
    ...(request.operation === 'CREATE' && spec.nodeName ? { nodeName: spec.nodeName } : {}),
    ownedByDaemonSet: owners.some((r) => r.apiVersion === 'apps/v1' && r.kind === 'DaemonSet' && r.controller === true),
  };
}
