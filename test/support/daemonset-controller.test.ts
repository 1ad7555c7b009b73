/**
 * The model of the Kubernetes DaemonSet controller, on small hand-made DaemonSets and nodes: the
 * pod it creates for a node, and the nodes it puts one on.
 */
import { daemonSetPod, daemonSetShouldRun } from './daemonset-controller';
import { launchedNode, modelPod, nodeClaimTemplate, schedulerBinds } from './karpenter-provisioning';

/** A NodePool with these taints (the launched node carries them). */
function aNodePool(name: string, taints: object[] = []) {
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name },
    spec: { template: { metadata: { labels: { team: name } }, spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name }, requirements: [], taints } } },
  };
}

/** A DaemonSet in kube-system; `spec` is merged into its pod template's spec. */
function aDaemonSet(spec: object = {}, metadata: object = {}) {
  return {
    apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent', namespace: 'kube-system', uid: 'uid-agent', ...metadata },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: {
        metadata: { labels: { app: 'agent' }, annotations: { team: 'platform' }, finalizers: ['example.com/keep'], name: 'ignored', namespace: 'ignored' },
        spec: { containers: [{ name: 'agent', image: 'agent' }], ...spec },
      },
    },
  };
}

const node = (name: string, pool: string, taints: object[] = []) => launchedNode(nodeClaimTemplate(aNodePool(pool, taints)), name, {});
const vision = node('ip-1', 'vision', [{ key: 'dedicated', value: 'vision', effect: 'NoSchedule' }]);
const gpu = node('ip-2', 'gpu', [{ key: 'preempt', value: 'true', effect: 'NoExecute' }]);
const web = node('ip-3', 'web');
const defaults = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];
const nodeTerm = (name: string) => ({ matchFields: [{ key: 'metadata.name', operator: 'In', values: [name] }] });

describe('the model of the pod the DaemonSet controller creates', () => {
  it('takes the template\'s labels, annotations and finalizers, and one controller reference to the DaemonSet', () => {
    const pod = daemonSetPod(aDaemonSet({}, { annotations: { 'deprecated.daemonset.template.generation': '3' } }), 'ip-1');
    expect(pod.metadata).toEqual({
      generateName: 'agent-', namespace: 'kube-system',
      labels: { app: 'agent', 'pod-template-generation': '3' }, annotations: { team: 'platform' }, finalizers: ['example.com/keep'],
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'uid-agent', controller: true, blockOwnerDeletion: true }],
    });
  });

  it('adds the daemon tolerations, network-unavailable only with hostNetwork, and drops tolerationSeconds from one it matches', () => {
    expect((daemonSetPod(aDaemonSet(), 'ip-1').spec as { tolerations: unknown }).tolerations).toEqual(defaults);
    const own = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
    const spec = daemonSetPod(aDaemonSet({ hostNetwork: true, tolerations: [own] }), 'ip-1').spec as { tolerations: unknown };
    expect(spec.tolerations).toEqual([...defaults, { key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' }]);
  });

  it('replaces the required node affinity by the node\'s name, keeps preferences, and sets no nodeName', () => {
    const preferred = [{ weight: 10, preference: { matchExpressions: [{ key: 'team', operator: 'In', values: ['web'] }] } }];
    const required = { nodeSelectorTerms: [{ matchExpressions: [{ key: 'team', operator: 'In', values: ['vision'] }] }] };
    const pod = modelPod(daemonSetPod(aDaemonSet({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required, preferredDuringSchedulingIgnoredDuringExecution: preferred } } }), 'ip-3'));
    expect(pod.required).toEqual([nodeTerm('ip-3')]);
    expect(pod.preferred).toEqual(preferred);
    expect(pod.nodeName).toBeUndefined();
    // The kube-scheduler then binds it to that node only.
    expect(schedulerBinds(pod, web)).toBe(true);
    expect(schedulerBinds(modelPod(daemonSetPod(aDaemonSet(), 'ip-9')), web)).toBe(false);
  });
});

describe('the model of the nodes a DaemonSet runs on', () => {
  it('runs on a node whose NoSchedule and NoExecute taints it tolerates, the daemon tolerations included', () => {
    expect(daemonSetShouldRun(aDaemonSet(), web)).toBe(true);
    expect(daemonSetShouldRun(aDaemonSet(), vision)).toBe(false);
    expect(daemonSetShouldRun(aDaemonSet({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'vision', effect: 'NoSchedule' }] }), vision)).toBe(true);
    expect(daemonSetShouldRun(aDaemonSet({ tolerations: [{ operator: 'Exists' }] }), gpu)).toBe(true);
    expect(daemonSetShouldRun(aDaemonSet(), node('ip-4', 'cordoned', [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]))).toBe(true);
    expect(daemonSetShouldRun(aDaemonSet(), node('ip-5', 'soft', [{ key: 'spot', value: 'true', effect: 'PreferNoSchedule' }]))).toBe(true);
  });

  it('does not read Lt and Gt tolerations, which Kubernetes 1.34 does not have', () => {
    const numeric = node('ip-6', 'numeric', [{ key: 'tier', value: '7', effect: 'NoSchedule' }]);
    expect(daemonSetShouldRun(aDaemonSet({ tolerations: [{ key: 'tier', operator: 'Gt', value: '5' }] }), numeric)).toBe(false);
  });

  it('runs only where the template\'s nodeSelector, required affinity and nodeName match', () => {
    expect(daemonSetShouldRun(aDaemonSet({ nodeSelector: { team: 'web' } }), web)).toBe(true);
    expect(daemonSetShouldRun(aDaemonSet({ nodeSelector: { team: 'vision' } }), web)).toBe(false);
    const required = (terms: object[]) => aDaemonSet({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
    expect(daemonSetShouldRun(required([{ matchExpressions: [{ key: 'team', operator: 'In', values: ['vision'] }] }, { matchExpressions: [{ key: 'team', operator: 'In', values: ['web'] }] }]), web)).toBe(true);
    expect(daemonSetShouldRun(required([nodeTerm('ip-9')]), web)).toBe(false);
    expect(daemonSetShouldRun(required([nodeTerm('ip-3')]), web)).toBe(true);
    expect(daemonSetShouldRun(aDaemonSet({ nodeName: 'ip-9' }), web)).toBe(false);
  });
});
