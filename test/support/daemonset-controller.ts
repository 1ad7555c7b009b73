/**
 * A test-only model of the Kubernetes DaemonSet controller: which nodes it puts a DaemonSet's pod
 * on, and the pod it creates there. Written from Kubernetes 1.34 as vendored in openshift/microshift
 * release-4.21 (commit 473c3de15d9aeeb399aa95250672c07655554015, Kubernetes 1.34.9), reading the
 * upstream function NodeShouldRunDaemonPod, not OpenShift's wrapper around it (patch_nodeselector.go,
 * which also applies the namespace's project node selector). Node affinity and taint matching
 * are Kubernetes' own rules from the Karpenter model (./karpenter-provisioning.ts).
 *
 * What it leaves out: the controller-revision-hash label (a hash of the ControllerRevision the
 * model does not build), the API server's defaulting of the created pod, surge and rolling
 * updates, and shouldContinueRunning (whether a pod already on the node may stay).
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/pkg/controller/daemon/daemon_controller.go#L1286-L1341
 *
 * Upstream: MODELS.kubernetes (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import { Json, ModelNode, ModelTaint, ModelToleration, modelPod, requiredAffinityMatches, toleratesTaint } from './karpenter-provisioning';


function obj(v: unknown): Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** A toleration the controller adds: operator Exists, no value, no tolerationSeconds. */
interface DaemonToleration {
  readonly key: string;
  readonly operator: 'Exists';
  readonly effect: string;
}

/**
 * AddOrUpdateDaemonPodTolerations, in order: not-ready and unreachable NoExecute; disk-pressure,
 * memory-pressure, pid-pressure and unschedulable NoSchedule; network-unavailable NoSchedule for
 * a hostNetwork pod.
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/pkg/controller/daemon/util/daemonset_util.go#L47-L102
 */
function daemonTolerations(hostNetwork: boolean): DaemonToleration[] {
  const t = (key: string, effect: string): DaemonToleration => ({ key: `node.kubernetes.io/${key}`, operator: 'Exists', effect });
  return [
    t('not-ready', 'NoExecute'), t('unreachable', 'NoExecute'),
    t('disk-pressure', 'NoSchedule'), t('memory-pressure', 'NoSchedule'), t('pid-pressure', 'NoSchedule'), t('unschedulable', 'NoSchedule'),
    ...(hostNetwork ? [t('network-unavailable', 'NoSchedule')] : []),
  ];
}

/**
 * AddOrUpdateTolerationInPodSpec for each of the daemon tolerations: one the pod already has
 * exactly stays as it is; one that matches it on key, operator, value and effect (MatchToleration)
 * but sets tolerationSeconds is replaced by it; otherwise it is appended.
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/pkg/apis/core/v1/helper/helpers.go#L261-L287
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/staging/src/k8s.io/api/core/v1/toleration.go#L19-L27 (MatchToleration)
 */
function withDaemonTolerations(spec: Json): Json[] {
  let tolerations = list(spec.tolerations).map(obj);
  for (const d of daemonTolerations(spec.hostNetwork === true)) {
    const matches = (t: Json) => (t.key ?? '') === d.key && (t.operator ?? '') === d.operator && (t.value ?? '') === '' && (t.effect ?? '') === d.effect;
    if (tolerations.some((t) => matches(t) && t.tolerationSeconds == null)) continue;
    tolerations = tolerations.some(matches) ? tolerations.map((t) => (matches(t) ? { ...d } : t)) : [...tolerations, { ...d }];
  }
  return tolerations;
}

/**
 * ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes one term,
 * `matchFields: metadata.name In [node]`; preferred node affinity and pod (anti-)affinity stay.
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/pkg/controller/daemon/util/daemonset_util.go#L173-L221
 */
function affinityForNode(affinity: unknown, nodeName: string): Json {
  const nodeAffinity = obj(obj(affinity).nodeAffinity);
  const required = obj(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution);
  return {
    ...obj(affinity),
    nodeAffinity: {
      ...nodeAffinity,
      requiredDuringSchedulingIgnoredDuringExecution: { ...required, nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }] },
    },
  };
}

/** strconv.ParseInt(s, 10, 64) succeeds. */
const isInt64 = (s: string) => /^[+-]?[0-9]+$/.test(s) && BigInt(s) >= -(2n ** 63n) && BigInt(s) < 2n ** 63n;

/**
 * The pod the DaemonSet controller creates for a node (syncNodes): CreatePodTemplate copies the
 * template, adds the daemon tolerations and, when the DaemonSet carries the
 * deprecated.daemonset.template.generation annotation, the pod-template-generation label; the
 * required node affinity is replaced by the node's name; GetPodFromTemplate takes the template's
 * labels, annotations and finalizers (nothing else of its metadata), names it
 * `generateName: <daemonset>-`, and adds one ownerReference, the controller reference to the
 * DaemonSet (apps/v1, its name and uid, controller and blockOwnerDeletion true). spec.nodeName
 * stays as the template has it (the kube-scheduler binds the pod).
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/pkg/controller/daemon/daemon_controller.go#L1004-L1033 (syncNodes)
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/pkg/controller/daemon/daemon_controller.go#L80-L81 (controllerKind: apps/v1 DaemonSet)
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/pkg/controller/daemon/util/daemonset_util.go#L31-L45 (GetTemplateGeneration)
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/pkg/controller/daemon/util/daemonset_util.go#L104-L123 (CreatePodTemplate)
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/pkg/controller/controller_utils.go#L511-L518 (getPodsPrefix)
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/pkg/controller/controller_utils.go#L539-L585 (CreatePods, GetPodFromTemplate)
 * @see https://github.com/kubernetes/apimachinery/blob/v0.34.0/pkg/apis/meta/v1/controller_ref.go#L58-L68 (NewControllerRef)
 */
export function daemonSetPod(daemonSet: Json, nodeName: string): Json {
  const metadata = obj(daemonSet.metadata);
  const template = obj(obj(daemonSet.spec).template);
  const templateMetadata = obj(template.metadata);
  const spec = obj(template.spec);
  const generation = obj(metadata.annotations)['deprecated.daemonset.template.generation'];
  const labels = {
    ...obj(templateMetadata.labels),
    ...(typeof generation === 'string' && isInt64(generation) ? { 'pod-template-generation': String(BigInt(generation)) } : {}),
  };
  const annotations = obj(templateMetadata.annotations);
  const finalizers = list(templateMetadata.finalizers);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${String(metadata.name)}-`,
      ...(typeof metadata.namespace === 'string' ? { namespace: metadata.namespace } : {}),
      labels,
      ...(Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
      ...(finalizers.length > 0 ? { finalizers: [...finalizers] } : {}),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: metadata.name, uid: metadata.uid, controller: true, blockOwnerDeletion: true }],
    },
    spec: { ...structuredClone(spec), tolerations: withDaemonTolerations(spec), affinity: affinityForNode(spec.affinity, nodeName) },
  };
}

/**
 * Toleration.ToleratesTaint as Kubernetes 1.34 has it: operators "" and Equal compare values,
 * Exists matches any; Lt and Gt (comparison operators came later, and 1.34 validation refuses
 * them) tolerate nothing.
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/staging/src/k8s.io/api/core/v1/toleration.go#L29-L57
 */
function tolerates(t: ModelToleration, taint: ModelTaint): boolean {
  return t.operator !== 'Lt' && t.operator !== 'Gt' && toleratesTaint(t, taint);
}

/**
 * NodeShouldRunDaemonPod's shouldRun: whether the DaemonSet controller puts a pod on this node.
 * NewPod is the template with the daemon tolerations (its required affinity is not replaced);
 * the node must be the one the template's spec.nodeName names, if any; it must match the
 * template's nodeSelector and required node affinity (GetRequiredNodeAffinity, a term's
 * matchFields read against this node's name); and each of its NoSchedule and NoExecute taints
 * must be tolerated (FindMatchingUntoleratedTaint). PreferNoSchedule taints do not count.
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/pkg/controller/daemon/daemon_controller.go#L1286-L1341 (NodeShouldRunDaemonPod, predicates, NewPod)
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go#L305-L333 (GetRequiredNodeAffinity, Match)
 * @see https://github.com/openshift/microshift/blob/473c3de15d9aeeb399aa95250672c07655554015/deps/github.com/openshift/kubernetes/staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go#L74-L86 (FindMatchingUntoleratedTaint)
 */
export function daemonSetShouldRun(daemonSet: Json, node: ModelNode): boolean {
  const spec = obj(obj(obj(daemonSet.spec).template).spec);
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '' && spec.nodeName !== node.name) return false;
  const pod = modelPod({ spec: { ...spec, tolerations: withDaemonTolerations(spec) } });
  if (!requiredAffinityMatches(pod, node, 'exact')) return false;
  return node.taints
    .filter((taint) => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute')
    .every((taint) => pod.tolerations.some((t) => tolerates(t, taint)));
}
