/**
 * The model of Kubernetes and Karpenter itself, on small hand-made pools and pods: each rule of
 * the source it was written from, so a test that passes through it cannot pass by a gap in it.
 */
import {
  karpenterIgnores, karpenterLaunches, kubeletRuns, launchedNode, ModelPod, NodeClaimTemplate, nodeClaimTemplate, schedulerBinds, toleratesTaint,
} from './karpenter-provisioning';

/** A NodePool as synth writes one: team label, taints, requirements. */
function aNodePool(name: string, o: { taints?: object[]; requirements?: object[]; labels?: Record<string, string> } = {}) {
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name },
    spec: {
      template: {
        metadata: { labels: { team: name, ...o.labels } },
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name },
          requirements: o.requirements ?? [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
          ...(o.taints ? { taints: o.taints } : {}),
        },
      },
    },
  };
}

const vision = nodeClaimTemplate(aNodePool('vision', { taints: [{ key: 'dedicated', value: 'vision', effect: 'NoSchedule' }] }));
const gpu = nodeClaimTemplate(aNodePool('gpu', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }, { key: 'preempt', value: 'true', effect: 'NoExecute' }] }));
const soft = nodeClaimTemplate(aNodePool('soft', { taints: [{ key: 'spot', value: 'true', effect: 'PreferNoSchedule' }] }));
const all: NodeClaimTemplate[] = [vision, gpu];

const pod = (o: Partial<ModelPod> = {}): ModelPod => ({ ownerReferences: [], nodeSelector: {}, tolerations: [], preferred: [], ...o });
const tolerateVision = [{ key: 'dedicated', operator: 'Equal', value: 'vision', effect: 'NoSchedule' }];

describe('the model of Karpenter', () => {
  it('ignores pods owned by an apps/v1 DaemonSet through any ownerReference, and only those of apps/v1', () => {
    expect(karpenterIgnores(pod({ ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', controller: true }] }))).toBe('owned by a DaemonSet');
    expect(karpenterIgnores(pod({ ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', controller: false }] }))).toBe('owned by a DaemonSet');
    expect(karpenterIgnores(pod({ ownerReferences: [{ apiVersion: 'evil.example/v1', kind: 'DaemonSet', controller: true }] }))).toBeUndefined();
    expect(karpenterIgnores(pod({ ownerReferences: [{ apiVersion: 'v1', kind: 'Node', controller: true }] }))).toBe('a mirror pod');
  });

  it('ignores a bound pod, a term with matchFields, restricted labels, bad Gt values and karpenter.sh/nodepool DoesNotExist', () => {
    expect(karpenterIgnores(pod({ nodeName: 'ip-1' }))).toBe('bound to a node');
    expect(karpenterIgnores(pod({ required: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['ip-1'] }] }] }))).toBe('a term with matchFields');
    expect(karpenterIgnores(pod({ nodeSelector: { 'karpenter.k8s.aws/ec2nodeclass': 'vision' } }))).toMatch(/invalid requirement/);
    expect(karpenterIgnores(pod({ nodeSelector: { 'kubernetes.io/hostname': 'ip-1' } }))).toMatch(/invalid requirement/);
    expect(karpenterIgnores(pod({ required: [{ matchExpressions: [{ key: 'size', operator: 'Gt', values: ['-1'] }] }] }))).toMatch(/invalid requirement/);
    expect(karpenterIgnores(pod({ required: [{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }] }))).toBe('karpenter.sh/nodepool DoesNotExist');
    expect(karpenterIgnores(pod({ nodeSelector: { 'karpenter.sh/nodepool': 'vision', team: 'vision' } }))).toBeUndefined();
  });

  it('launches a pool only for a pod that tolerates every taint of it and whose requirements are compatible', () => {
    expect(karpenterLaunches(pod(), vision, all)).toBe(false);
    expect(karpenterLaunches(pod({ tolerations: tolerateVision }), vision, all)).toBe(true);
    expect(karpenterLaunches(pod({ tolerations: tolerateVision, nodeSelector: { team: 'web' } }), vision, all)).toBe(false);
    expect(karpenterLaunches(pod({ tolerations: [{ key: 'dedicated', operator: 'Exists' }] }), gpu, all)).toBe(false);
    expect(karpenterLaunches(pod({ tolerations: [{ operator: 'Exists' }] }), gpu, all)).toBe(true);
  });

  it('tolerates PreferNoSchedule taints only once it relaxed, and only when a pool has one', () => {
    expect(karpenterLaunches(pod(), soft, [soft])).toBe(true);
    // The toleration is added only when one of the NodePools it schedules against has such a taint.
    expect(karpenterLaunches(pod(), soft, [vision])).toBe(false);
  });

  it('tries each required term in turn, and drops preferences', () => {
    const terms = [{ matchExpressions: [{ key: 'team', operator: 'In', values: ['web'] }] }, { matchExpressions: [{ key: 'team', operator: 'In', values: ['vision'] }] }];
    expect(karpenterLaunches(pod({ tolerations: tolerateVision, required: terms }), vision, all)).toBe(true);
    const preferred = [{ weight: 100, preference: { matchExpressions: [{ key: 'team', operator: 'In', values: ['web'] }] } }];
    expect(karpenterLaunches(pod({ tolerations: tolerateVision, preferred }), vision, all)).toBe(true);
  });

  it('reads only the expressions of the first term: an empty term asks for nothing', () => {
    expect(karpenterLaunches(pod({ tolerations: tolerateVision, required: [{}] }), vision, all)).toBe(true);
  });

  it('refuses a custom label the pool does not define unless it is NotIn or DoesNotExist, and allows undefined well-known ones', () => {
    const withExpression = (key: string, operator: string, values?: string[]) => pod({ tolerations: tolerateVision, required: [{ matchExpressions: [{ key, operator, values }] }] });
    expect(karpenterLaunches(withExpression('example.com/tier', 'In', ['gold']), vision, all)).toBe(false);
    expect(karpenterLaunches(withExpression('example.com/tier', 'NotIn', ['gold']), vision, all)).toBe(true);
    expect(karpenterLaunches(withExpression('example.com/tier', 'DoesNotExist'), vision, all)).toBe(true);
    expect(karpenterLaunches(withExpression('topology.kubernetes.io/zone', 'In', ['us-east-1a']), vision, all)).toBe(true);
    expect(karpenterLaunches(withExpression('kubernetes.io/arch', 'In', ['arm64']), vision, all)).toBe(false);
    expect(karpenterLaunches(withExpression('team', 'Gt', ['5']), vision, all)).toBe(false);
    expect(karpenterLaunches(withExpression('team', 'NotIn', ['web']), vision, all)).toBe(true);
  });
});

describe('the model of the kube-scheduler and the kubelet', () => {
  const node = launchedNode(vision, 'ip-1', { 'kubernetes.io/arch': 'amd64' });

  it('labels a launched node with the template\'s labels, its pool and node class, and refuses instance labels the pool does not allow', () => {
    expect(node.labels).toMatchObject({ team: 'vision', 'karpenter.sh/nodepool': 'vision', 'karpenter.k8s.aws/ec2nodeclass': 'vision', 'kubernetes.io/hostname': 'ip-1' });
    expect(() => launchedNode(vision, 'ip-2', { 'kubernetes.io/arch': 'arm64' })).toThrow(/does not allow/);
  });

  it('binds a pod that tolerates the NoSchedule taint and whose affinity matches; an empty term matches no node', () => {
    expect(schedulerBinds(pod(), node)).toBe(false);
    expect(schedulerBinds(pod({ tolerations: tolerateVision }), node)).toBe(true);
    expect(schedulerBinds(pod({ tolerations: tolerateVision, required: [{}] }), node)).toBe(false);
    expect(schedulerBinds(pod({ tolerations: tolerateVision, required: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['ip-9'] }] }] }), node)).toBe(false);
    expect(schedulerBinds(pod({ tolerations: tolerateVision, required: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['ip-9'] }] }] }), node, 'any')).toBe(true);
  });

  it('runs a pod that names the node despite a NoSchedule taint, but not despite a NoExecute one', () => {
    expect(kubeletRuns(pod({ nodeName: 'ip-1' }), node)).toBe(true);
    expect(kubeletRuns(pod({ nodeName: 'ip-2' }), node)).toBe(false);
    expect(kubeletRuns(pod({ nodeName: 'ip-2' }), node, 'any')).toBe(true);
    const gpuNode = launchedNode(gpu, 'ip-3', { 'kubernetes.io/arch': 'amd64' });
    expect(kubeletRuns(pod({ nodeName: 'ip-3' }), gpuNode)).toBe(false);
    expect(kubeletRuns(pod({ nodeName: 'ip-3', tolerations: [{ key: 'preempt', operator: 'Exists' }] }), gpuNode)).toBe(true);
    expect(kubeletRuns(pod({ nodeName: 'ip-1', nodeSelector: { team: 'web' } }), node)).toBe(false);
  });

  it('compares taint values as integers for Lt and Gt, and matches empty keys and effects to everything', () => {
    expect(toleratesTaint({ key: 'n', operator: 'Gt', value: '5' }, { key: 'n', value: '7', effect: 'NoSchedule' })).toBe(true);
    expect(toleratesTaint({ key: 'n', operator: 'Lt', value: '5' }, { key: 'n', value: '7', effect: 'NoSchedule' })).toBe(false);
    expect(toleratesTaint({ key: 'n', operator: 'Gt', value: '5' }, { key: 'n', value: 'seven', effect: 'NoSchedule' })).toBe(false);
    expect(toleratesTaint({ operator: 'Exists' }, { key: 'n', value: 'x', effect: 'NoExecute' })).toBe(true);
    expect(toleratesTaint({ operator: 'Exists', effect: 'NoSchedule' }, { key: 'n', value: 'x', effect: 'NoExecute' })).toBe(false);
  });
});
