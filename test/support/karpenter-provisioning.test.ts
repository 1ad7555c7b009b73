/**
 * The model of Kubernetes and Karpenter itself, on small hand-made pools and pods: each rule of
 * the source it was written from, so a test that passes through it cannot pass by a gap in it.
 */
import {
  bufferPods, daemonOverheadPools, DaemonPod, daemonSetPods, karpenterIgnores, karpenterLaunches, karpenterLaunchesBufferPod, kubeletRuns,
  launchedNode, ModelPod, NodeClaimTemplate, nodeClaimTemplate, orderByWeight, schedulerBinds, toleratesTaint,
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

/** A DaemonSet in kube-system with one container; `spec` is merged into its pod template's spec. */
function aDaemonSet(name: string, spec: object = {}) {
  return {
    apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name, namespace: 'kube-system', uid: `uid-${name}` },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name, image: 'agent', resources: { limits: { cpu: '100m', memory: '128Mi' } } }], ...spec },
      },
    },
  };
}

/** A pod in kube-system with these owner references, created at `created`. */
function aPod(name: string, o: { created: string; ownerReferences: object[]; spec?: object; namespace?: string }) {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: o.namespace ?? 'kube-system', creationTimestamp: o.created, ownerReferences: o.ownerReferences },
    spec: o.spec ?? { containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] },
  };
}

const controllerRef = (uid: string, controller = true) => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid, controller });
const byName = <T extends { daemonSet: string }>(pods: T[], name: string): T => pods.find((p) => p.daemonSet === `kube-system/${name}`)!;

describe('the model of the DaemonSet pods Karpenter schedules around', () => {
  const agent = aDaemonSet('agent', { nodeSelector: { team: 'vision' }, tolerations: tolerateVision });

  it('makes the pod from the template when no pod is controlled by the DaemonSet, limits merged into requests', () => {
    const [pod] = daemonSetPods([agent], []);
    expect(pod).toMatchObject({ daemonSet: 'kube-system/agent', ownerReferences: [], nodeSelector: { team: 'vision' }, tolerations: tolerateVision });
    expect(pod.livePod).toBeUndefined();
    expect(pod.requests).toEqual({ cpu: '100m', memory: '128Mi', pods: '1' });
  });

  it('takes the newest pod the DaemonSet controls instead of the template, even one it did not create', () => {
    const real = aPod('agent-abcde', { created: '2026-01-01T00:00:00Z', ownerReferences: [controllerRef('uid-agent')], spec: { nodeSelector: { team: 'vision' }, tolerations: tolerateVision, containers: [] } });
    // Forged: only the UID is compared, so another kind and name in the controller reference still count.
    const forged = aPod('forged', {
      created: '2026-01-02T00:00:00Z',
      ownerReferences: [{ apiVersion: 'evil.example/v1', kind: 'Thing', name: 'x', uid: 'uid-agent', controller: true }],
      spec: { tolerations: [{ operator: 'Exists' }], containers: [{ name: 'c', resources: { requests: { cpu: '8' } } }] },
    });
    const [pod] = daemonSetPods([agent], [real, forged]);
    expect(pod).toMatchObject({ livePod: 'kube-system/forged', nodeSelector: {}, tolerations: [{ operator: 'Exists' }], requests: { cpu: '8', pods: '1' } });
    expect(daemonSetPods([agent], [forged, real])[0].livePod).toBe('kube-system/forged');
  });

  it('ignores pods that only reference the DaemonSet, that another object controls, or that live in another namespace', () => {
    const notController = aPod('owned', { created: '2026-01-02T00:00:00Z', ownerReferences: [controllerRef('uid-agent', false)] });
    const otherUid = aPod('other', { created: '2026-01-02T00:00:00Z', ownerReferences: [controllerRef('uid-someone')] });
    const elsewhere = aPod('elsewhere', { created: '2026-01-02T00:00:00Z', ownerReferences: [controllerRef('uid-agent')], namespace: 'team-a' });
    expect(daemonSetPods([agent], [notController, otherUid, elsewhere])[0].livePod).toBeUndefined();
  });

  it('replaces a live pod\'s required node affinity by the template\'s, and keeps the controller\'s matchFields term when the template has none', () => {
    const nodeTerm = { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['ip-1'] }] };
    const liveSpec = { containers: [], affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [nodeTerm] } } } };
    const templateTerm = { matchExpressions: [{ key: 'team', operator: 'In', values: ['vision'] }] };
    const withAffinity = aDaemonSet('pinned', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [templateTerm] } } } });
    const pods = daemonSetPods([withAffinity, aDaemonSet('plain')], [
      aPod('pinned-1', { created: '2026-01-01T00:00:00Z', ownerReferences: [controllerRef('uid-pinned')], spec: liveSpec }),
      aPod('plain-1', { created: '2026-01-01T00:00:00Z', ownerReferences: [controllerRef('uid-plain')], spec: liveSpec }),
    ]);
    expect(byName(pods, 'pinned').required).toEqual([templateTerm]);
    expect(byName(pods, 'plain').required).toEqual([nodeTerm]);
  });

  it('counts sidecars with the containers, init containers as a floor, and pod overhead', () => {
    const [pod] = daemonSetPods([aDaemonSet('agent', {
      containers: [{ name: 'a', resources: { requests: { cpu: '250m' } } }],
      initContainers: [
        { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { cpu: '100m' } } },
        { name: 'init', resources: { requests: { cpu: '1', memory: '1Gi' } } },
      ],
      overhead: { cpu: '50m' },
    })], []);
    expect(pod.requests).toEqual({ cpu: '1150m', memory: '1Gi', pods: '1' });
  });

  it('fails when a request is not a quantity', () => {
    const bad = aDaemonSet('agent', { containers: [{ name: 'a', resources: { requests: { cpu: 'lots' } } }] });
    expect(() => daemonSetPods([bad], [])).toThrow(/DaemonSet kube-system\/agent\.containers\[0\]\.resources\.requests\.cpu: "lots" is not a quantity/);
  });
});

describe('the model of Karpenter\'s daemon overhead', () => {
  const daemon = (spec: object): DaemonPod => daemonSetPods([aDaemonSet('agent', spec)], [])[0];
  const web = nodeClaimTemplate(aNodePool('web'));
  const pools = [vision, gpu, soft, web];

  it('sizes a pool for a daemon that tolerates its taints and whose nodeSelector its requirements allow', () => {
    expect(daemonOverheadPools(daemon({}), pools)).toEqual(['soft', 'web']);
    expect(daemonOverheadPools(daemon({ tolerations: tolerateVision }), pools)).toEqual(['vision', 'soft', 'web']);
    expect(daemonOverheadPools(daemon({ tolerations: tolerateVision, nodeSelector: { team: 'vision' } }), pools)).toEqual(['vision']);
    expect(daemonOverheadPools(daemon({ tolerations: [{ operator: 'Exists' }] }), pools)).toEqual(['vision', 'gpu', 'soft', 'web']);
  });

  it('tolerates PreferNoSchedule taints even when no pool has one, and reads no preferred term', () => {
    expect(daemonOverheadPools(daemon({}), [soft])).toEqual(['soft']);
    const preferred = [{ weight: 100, preference: { matchExpressions: [{ key: 'team', operator: 'In', values: ['gpu'] }] } }];
    expect(daemonOverheadPools(daemon({ affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred } } }), [web])).toEqual(['web']);
  });

  it('refuses custom labels the pool does not define unless NotIn or DoesNotExist, allows undefined well-known ones, and defines no hostname', () => {
    const requiring = (key: string, operator: string, values?: string[]) => daemon({
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key, operator, values }] }] } } },
    });
    expect(daemonOverheadPools(requiring('example.com/tier', 'In', ['gold']), [web])).toEqual([]);
    expect(daemonOverheadPools(requiring('example.com/tier', 'DoesNotExist'), [web])).toEqual(['web']);
    expect(daemonOverheadPools(requiring('topology.kubernetes.io/zone', 'In', ['us-east-1a']), [web])).toEqual(['web']);
    // The NodeClaimTemplate has no kubernetes.io/hostname requirement; only a new NodeClaim gets the placeholder.
    expect(daemonOverheadPools(requiring('kubernetes.io/hostname', 'Exists'), [web])).toEqual([]);
    expect(daemonOverheadPools(requiring('karpenter.sh/initialized', 'In', ['true']), [web])).toEqual(['web']);
  });

  it('tries each required term in turn, and a term dropped for one pool stays dropped for the pools after it', () => {
    const team = (t: string) => ({ matchExpressions: [{ key: 'team', operator: 'In', values: [t] }] });
    const terms = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [team('web'), team('vision')] } } }, tolerations: tolerateVision };
    expect(daemonOverheadPools(daemon(terms), [web, vision])).toEqual(['web', 'vision']);
    // removeRequiredNodeAffinityTerm mutates the one pod every template is checked with: vision drops team=web, so web never sees it again.
    expect(daemonOverheadPools(daemon(terms), [vision, web])).toEqual(['vision']);
  });

  it('orders NodePools as Karpenter does: heaviest first, equal weights by name in reverse', () => {
    const weighted = (name: string, weight?: number) => ({ ...aNodePool(name), spec: { ...aNodePool(name).spec, ...(weight !== undefined ? { weight } : {}) } });
    expect(orderByWeight([weighted('a'), weighted('b'), weighted('c', 10)]).map((np) => np.metadata)).toEqual([{ name: 'c' }, { name: 'b' }, { name: 'a' }]);
  });
});

describe('the model of CapacityBuffer virtual pods', () => {
  const template = (spec: object = {}) => ({
    metadata: { labels: { app: 'warm' } },
    spec: { containers: [{ name: 'pause', image: 'pause', resources: { requests: { cpu: '500m', memory: '1Gi' } } }], ...spec },
  });
  const aBuffer = (spec: object) => ({ apiVersion: 'autoscaling.x-k8s.io/v1beta1', kind: 'CapacityBuffer', metadata: { name: 'warm', namespace: 'team-a', uid: 'uid-warm' }, spec });
  const podTemplate = { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'warm', namespace: 'team-a' }, template: template({ nodeName: 'ip-1', nodeSelector: { team: 'vision' } }) };
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api', namespace: 'team-a' }, spec: { replicas: 10, template: template() } };
  const objects = [podTemplate, deployment];

  it('makes status.replicas pods from a PodTemplate, with its labels, without owner references and without its nodeName', () => {
    const pods = bufferPods(aBuffer({ podTemplateRef: { name: 'warm' }, replicas: 2 }), objects);
    expect(pods.map((p) => p.name)).toEqual(['capacity-buffer-warm-1', 'capacity-buffer-warm-2']);
    expect(pods[0]).toMatchObject({ labels: { app: 'warm' }, ownerReferences: [], nodeSelector: { team: 'vision' }, requests: { cpu: '500m', memory: '1Gi', pods: '1' } });
    expect(pods[0].nodeName).toBeUndefined();
  });

  it('takes a Deployment\'s template through scalableRef, with apiGroup "apps" or empty, and the larger of replicas and percentage', () => {
    expect(bufferPods(aBuffer({ scalableRef: { apiGroup: 'apps', kind: 'Deployment', name: 'api' }, percentage: 25 }), objects)).toHaveLength(3);
    expect(bufferPods(aBuffer({ scalableRef: { kind: 'Deployment', name: 'api' }, percentage: 25, replicas: 5 }), objects)).toHaveLength(5);
  });

  it('bounds the count by limits over the template\'s requests, which get no limits merged in', () => {
    expect(bufferPods(aBuffer({ podTemplateRef: { name: 'warm' }, limits: { cpu: '1600m' } }), objects)).toHaveLength(3);
    expect(bufferPods(aBuffer({ podTemplateRef: { name: 'warm' }, replicas: 5, limits: { memory: '2Gi' } }), objects)).toHaveLength(2);
    const limitsOnly = { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'warm', namespace: 'team-a' }, template: { spec: { containers: [{ name: 'p', resources: { limits: { cpu: '1' } } }] } } };
    const [pod] = bufferPods(aBuffer({ podTemplateRef: { name: 'warm' }, replicas: 1, limits: { cpu: '4' } }), [limitsOnly]);
    expect(pod.requests).toEqual({ pods: '1' });
  });

  it('makes no pods for a scalableRef of another API group or kind, or an object not in the buffer\'s namespace', () => {
    expect(bufferPods(aBuffer({ scalableRef: { apiGroup: 'other.example', kind: 'Deployment', name: 'api' }, replicas: 1 }), objects)).toEqual([]);
    expect(bufferPods(aBuffer({ scalableRef: { kind: 'DaemonSet', name: 'api' }, replicas: 1 }), objects)).toEqual([]);
    const elsewhere = { ...deployment, metadata: { name: 'api', namespace: 'team-b' } };
    expect(bufferPods(aBuffer({ scalableRef: { kind: 'Deployment', name: 'api' }, replicas: 1 }), [elsewhere])).toEqual([]);
    expect(bufferPods(aBuffer({ podTemplateRef: { name: 'warm' } }), objects)).toEqual([]);
  });

  it('launches for a virtual pod what Validate would keep a pending pod from', () => {
    const restricted = { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'warm', namespace: 'team-a' }, template: template({ nodeSelector: { 'karpenter.k8s.aws/ec2nodeclass': 'vision' }, tolerations: tolerateVision }) };
    const [pod] = bufferPods(aBuffer({ podTemplateRef: { name: 'warm' }, replicas: 1 }), [restricted]);
    expect(karpenterLaunches(pod, vision, all)).toBe(false);
    expect(karpenterLaunchesBufferPod(pod, vision, all)).toBe(true);
    expect(karpenterLaunchesBufferPod(pod, gpu, all)).toBe(false);
  });
});
