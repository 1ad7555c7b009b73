/**
 * Tenancy against a hostile tenant (issues 28 and 35, contract sections 7.4 and 8.3): the
 * generated policy, its binding and its parameters, run through the API server's admission
 * steps (test/support/admission-policy.ts), against models of what Kubernetes and Karpenter do
 * with what the policy admits (test/support/karpenter-provisioning.ts, daemonset-controller.ts,
 * written from their source): where a pod is scheduled, run or given a new node; where the
 * DaemonSet controller puts a DaemonSet's pods and which pools Karpenter sizes every node of for
 * them (by its template, or by the newest pod it controls); what a CapacityBuffer's virtual pods
 * make Karpenter launch. The models read the NodePools synth writes; who may use which pool is
 * the config's, written here. Each object is created by a user: a tenant, an administrator, or
 * the DaemonSet controller.
 */
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import type { Platform } from '../../src/config/platform';
import { evaluateTenancy, KIND_RESOURCES } from '../../src/fit/admission';
import { DAEMON_SET_CONTROLLER_USER } from '../../src/model/tenancy';
import { synthesize } from '../../src/synth';
import { admitAll, AdmissionRequest, Decision, JsonObject, PolicyPair } from '../support/admission-policy';
import { daemonSetPod, daemonSetShouldRun } from '../support/daemonset-controller';
import {
  alternativesHolding, bufferPods, daemonOverheadPools, daemonSetPods, karpenterIgnores, karpenterLaunches, karpenterLaunchesBufferPod, kubeletRuns, launchedNode,
  ModelNode, ModelPod, modelPod, NodeClaimTemplate, nodeClaimTemplate, orderByWeight, schedulerBinds,
} from '../support/karpenter-provisioning';
import { aBarePod, aDaemonSetPod, aDeploymentPod, aWorkload, owner, RESOURCES, TOLERATE_ALL } from '../support/pods';
import { aCluster, aPlatform, aPool, planPolicy } from '../pool-builders';
import { renderedPolicy } from './tenancy-facts';

const GPU = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' as const };
const PREEMPTIBLE = { key: 'example.com/preemptible', value: 'true', effect: 'NoExecute' as const };

/**
 * Cluster demo: team vision (pool vision, labelled workload=inference, amd64 and arm64; pool
 * vision-gpu with a GPU taint and a NoExecute taint), team web (a PreferNoSchedule taint, a cost
 * center), team shared (not dedicated), team ml (its one pool has a GPU taint besides its own),
 * team legacy (no namespaces: not guarded).
 */
const platform: Platform = aPlatform([aCluster([
  aPool({ labels: { workload: 'inference' }, arch: ['amd64', 'arm64'] }, { name: 'vision', team: 'vision', namespaces: ['vision', 'vision-batch'] }),
  aPool({ taints: [GPU, PREEMPTIBLE] }, { name: 'vision-gpu', team: 'vision', namespaces: ['vision', 'vision-batch'] }),
  aPool({ taints: [{ key: 'example.com/spot', value: 'true', effect: 'PreferNoSchedule' }] }, { name: 'web', team: 'web', namespaces: ['web'], costCenter: '4410' }),
  aPool({ dedicated: false }, { name: 'shared', team: 'shared', namespaces: ['shared'] }),
  aPool({ taints: [GPU] }, { name: 'ml-gpu', team: 'ml', namespaces: ['ml'] }),
  aPool({}, { name: 'legacy', team: 'legacy' }),
])]);

/** The pools, in the config's order. */
const POOLS = ['vision', 'vision-gpu', 'web', 'shared', 'ml-gpu', 'legacy'];
/** Who may use each guarded pool: the team's namespaces and the smoke tests' (contract sections 4 and 6.6). */
const MAY_USE: Readonly<Record<string, readonly string[]>> = {
  vision: ['vision', 'vision-batch'], 'vision-gpu': ['vision', 'vision-batch'], web: ['web'], shared: ['shared'], 'ml-gpu': ['ml'],
};
const SMOKE_TESTS = 'karpenter-smoke-tests';
/** The namespaces the policy never looks at (kube-system holds Karpenter here). */
const EXEMPT = ['kube-system'];

/** Users who create objects: a tenant's CI, a cluster administrator (judged like anyone outside the exempt namespaces), the DaemonSet controller. */
const TENANT = 'system:serviceaccount:ledger:deployer';
const ADMIN = 'kubernetes-admin';
/** The ReplicaSet controller, which creates a Deployment's pods with a controller reference to their ReplicaSet. */
const REPLICASET_CONTROLLER = 'system:serviceaccount:kube-system:replicaset-controller';

const files = synthesize(platform);
const documents = (prefix: string) => [...files].filter(([path]) => path.startsWith(prefix)).flatMap(([, text]) => parseAllDocuments(text).map((d) => d.toJS() as JsonObject));
const pairs: PolicyPair[] = renderedPolicy(files);
/** The API server's decision with every tenancy policy of the cluster in place. */
const admit = (_: unknown, request: AdmissionRequest): Decision => admitAll(pairs, request);
const pair = pairs;

/** Karpenter's view of the NodePools synth wrote, in the order it schedules against them, and running nodes of each (one per architecture it allows). */
const templates: NodeClaimTemplate[] = orderByWeight(documents('dist/demo/nodepools/').filter((d) => d.kind === 'NodePool')).map(nodeClaimTemplate);
const NODES: ReadonlyMap<string, readonly ModelNode[]> = new Map(templates.map((t) => [t.nodePool, ['amd64', 'arm64'].flatMap((arch) => {
  try {
    return [launchedNode(t, `ip-${t.nodePool}-${arch}.ec2.internal`, { 'kubernetes.io/arch': arch, 'karpenter.sh/capacity-type': 'on-demand' })];
  } catch {
    return [];
  }
})]));
const NODE_NAMES = [...NODES.values()].flat().map((n) => n.name);

/** The labels that name a pool or its team (contract section 6.6: "selects a team's pool or labels"). */
const NAMING = ['karpenter.sh/nodepool', 'karpenter.k8s.aws/ec2nodeclass', 'team'];

/** The guarded pools a namespace may not use, in the config's order. */
function forbidden(namespace: string): NodeClaimTemplate[] {
  if (EXEMPT.includes(namespace)) return [];
  return POOLS.map((p) => templates.find((t) => t.nodePool === p) as NodeClaimTemplate)
    .filter((t) => MAY_USE[t.nodePool] !== undefined && ![...MAY_USE[t.nodePool], SMOKE_TESTS].includes(namespace));
}

const isDedicated = (t: NodeClaimTemplate) => t.taints.some((taint) => taint.key === 'dedicated' && taint.value === t.labels.team && taint.effect === 'NoSchedule');

/** Whether one of a pod's alternatives (the nodeSelector with one required term) names the pool or its team and a node of the pool, running or new, meets it. */
function selectsByName(pod: ModelPod, t: NodeClaimTemplate): boolean {
  const names = (i: number) => Object.keys(pod.nodeSelector).some((k) => NAMING.includes(k))
    || (i >= 0 && (pod.required?.[i].matchExpressions ?? []).some((e) => e.operator === 'In' && NAMING.includes(e.key)));
  return alternativesHolding(pod, t, NODES.get(t.nodePool) ?? [], 'any').some(names);
}

/**
 * The guarded pools a pod of `namespace` would borrow: it selects the pool by name, or the pool is
 * dedicated and Karpenter launches a node of it for the pod, the scheduler binds it to one of its
 * running nodes, or the kubelet runs it on the one it names. Node names are not predictable, so a
 * pod's requirements on them (spec.nodeName, matchFields) are judged as if it named a node of the pool.
 */
function podBorrows(object: JsonObject, namespace: string): string[] {
  const pod = modelPod(object);
  return forbidden(namespace).filter((t) => {
    if (selectsByName(pod, t)) return true;
    const nodes = NODES.get(t.nodePool) ?? [];
    return isDedicated(t) && (karpenterLaunches(pod, t, templates) || nodes.some((n) => schedulerBinds(pod, n, 'any') || kubeletRuns(pod, n, 'any')));
  }).map((t) => t.nodePool);
}

/** A DaemonSet of the namespace, with the given uid, whose template requires nothing of nodes or, `affinity`, a term that any node meets. */
function aDecoy(namespace: string, uid: string, affinity: boolean): JsonObject {
  const ds = aWorkload('DaemonSet', affinity ? { name: 'decoy', terms: [[{ key: 'kubernetes.io/os', operator: 'NotIn', values: ['windows'] }]] } : { name: 'decoy' }, uid);
  return { ...ds, metadata: { ...(ds.metadata as JsonObject), namespace, creationTimestamp: '2026-11-01T08:00:00Z' } };
}

/**
 * The guarded pools every node of which Karpenter sizes for a DaemonSet of `namespace` by a pod
 * it controls (the newest such pod stands for the DaemonSet: provisioner.go getDaemonSetPods),
 * whatever the DaemonSet's own template asks (with and without required affinity, which replaces
 * the pod's).
 */
function sizedByPod(object: JsonObject, namespace: string): string[] {
  // Karpenter matches by UID alone (metav1.IsControlledBy): any controller reference may carry a DaemonSet's.
  const controller = ((object.metadata as JsonObject).ownerReferences as JsonObject[] | undefined)?.find((r) => r.controller === true);
  if (!controller) return [];
  const pod = { ...object, metadata: { ...(object.metadata as JsonObject), namespace, creationTimestamp: '2026-11-28T10:00:00Z' } };
  const sized = new Set([true, false].flatMap((affinity) => daemonSetPods([aDecoy(namespace, String(controller.uid), affinity)], [pod])
    .flatMap((p) => daemonOverheadPools(p, templates))));
  return forbidden(namespace).filter((t) => sized.has(t.nodePool)).map((t) => t.nodePool);
}

/**
 * The guarded pools a DaemonSet of `namespace` would place a pod on or have every node sized for:
 * nodes of the pool the DaemonSet controller would run its pod on, and pools Karpenter sizes for
 * it by its template or by the pod the controller made on a node of a pool the namespace may use.
 */
function daemonSetBorrows(ds: JsonObject, namespace: string): string[] {
  const placed = (t: NodeClaimTemplate) => (NODES.get(t.nodePool) ?? []).some((n) => daemonSetShouldRun(ds, n));
  const allowedNode = [...NODES.values()].flat().find((n) => !forbidden(namespace).some((t) => t.nodePool === n.labels['karpenter.sh/nodepool']) && daemonSetShouldRun(ds, n));
  const lives = allowedNode ? [{ ...daemonSetPod(ds, allowedNode.name), metadata: { ...(daemonSetPod(ds, allowedNode.name).metadata as JsonObject), name: 'live', namespace } }] : [];
  const sized = new Set([...daemonSetPods([ds], []), ...daemonSetPods([ds], lives)].flatMap((p) => daemonOverheadPools(p, templates)));
  return forbidden(namespace).filter((t) => placed(t) || sized.has(t.nodePool)).map((t) => t.nodePool);
}

/**
 * The guarded pools a CapacityBuffer of `namespace` that provisions from this pod template (a
 * PodTemplate by podTemplateRef, a workload by scalableRef) makes Karpenter launch a node of, for
 * its virtual pods: a dedicated one, or one they select by name (as for a pod, a pool that is not
 * dedicated is open to what does not select it: docs/tenancy.md).
 */
function bufferBorrows(template: JsonObject, namespace: string): string[] {
  const kind = String(template.kind);
  const ref = kind === 'PodTemplate' ? { podTemplateRef: { name: 'buffered' } } : { scalableRef: { apiGroup: 'apps', kind, name: 'buffered' } };
  const buffer = { apiVersion: 'autoscaling.x-k8s.io/v1beta1', kind: 'CapacityBuffer', metadata: { name: 'b', namespace }, spec: { ...ref, replicas: 1 } };
  const object = { ...template, metadata: { ...(template.metadata as JsonObject), name: 'buffered', namespace } };
  const [virtual] = bufferPods(buffer, [object]);
  if (!virtual) throw new Error(`the buffer resolves nothing from ${kind}`);
  return forbidden(namespace).filter((t) => karpenterLaunchesBufferPod(virtual, t, templates) && (isDedicated(t) || selectsByName(virtual, t))).map((t) => t.nodePool);
}

/** Every pool the policy's refusals name, over every parameter (each names one team's first pool, or all of them after "of team T's pools:"). */
function refusedPools(d: Decision): string[] {
  if (d.outcome !== 'refused') return [];
  return [...new Set(d.refusals.flatMap((m) => {
    const all = /; in all, \d+ pools it may not use: ([a-z0-9, -]+?)( \(|$)/.exec(m);
    if (all) return all[1].split(', ');
    const first = /'s pool ([a-z0-9-]+) \(/.exec(m);
    return first ? [first[1]] : [];
  }))].sort((a, b) => POOLS.indexOf(a) - POOLS.indexOf(b));
}

/** Whether a refusal is the one for a pod given a controller reference by someone other than a built-in controller (judged by the DaemonSet rule). */
const forged = (d: Decision) => d.outcome === 'refused' && d.refusals.some((m) => m.includes('whose controller reference Karpenter may take for a DaemonSet'));

const create = (namespace: string, object: JsonObject, username = TENANT): AdmissionRequest => ({
  operation: 'CREATE', namespace, object, resource: RESOURCES[String(object.kind) as keyof typeof RESOURCES], username,
});

describe('issue 28: what a hostile tenant tries with a pod', () => {
  it('fails when a pod claims a DaemonSet owner of another API group (the pod of issue 28)', () => {
    const pod = aBarePod({ tolerations: [TOLERATE_ALL], nodeSelector: { 'karpenter.sh/nodepool': 'vision' } }, [{ ...owner('evil.example/v1', 'DaemonSet', 'x'), uid: 'deadbeef' }]);
    const d = admit(pair, create('ledger', pod));
    // Judged by the DaemonSet rule (Karpenter matches a DaemonSet's pods by UID, whatever the reference's kind and group) and by the pod rule.
    expect(d.message).toMatch(/namespace ledger may not use team vision's pool vision \(the pod, whose controller reference Karpenter may take for a DaemonSet's, can run on its nodes/);
    expect(podBorrows(pod, 'ledger')).toEqual(['vision']);
  });

  it('fails when a pod names a node (spec.nodeName): it skips the NoSchedule taints, and the node\'s pool is unknown', () => {
    const named = aBarePod({ nodeName: 'ip-10-0-12-34.ec2.internal' });
    expect(refusedPools(admit(pair, create('payments', named)))).toEqual(['vision', 'web', 'ml-gpu']);
  });

  it('fails when `kubectl debug node/...` runs outside the exempt namespaces, and never looks at it in kube-system', () => {
    const debug = aBarePod({ name: 'node-debugger-ip-10-0-12-34-x7k2p', nodeName: 'ip-10-0-12-34.ec2.internal', tolerations: [TOLERATE_ALL] });
    expect(admit(pair, create('default', debug, ADMIN)).outcome).toBe('refused');
    expect(admit(pair, create('kube-system', debug, ADMIN)).outcome).toBe('skipped');
  });

  it('fails when a required term is empty: Karpenter reads only a term\'s expressions, and launches a node for it', () => {
    const empty = aDeploymentPod({ tolerations: [{ key: 'dedicated', operator: 'Exists' }], terms: [[]] });
    expect(refusedPools(admit(pair, create('payments', empty, REPLICASET_CONTROLLER)))).toEqual(['vision', 'web']);
  });

  it('admits a pod that asks for no Karpenter node at all (karpenter.sh/nodepool DoesNotExist), whatever it tolerates', () => {
    const off = aDeploymentPod({ tolerations: [TOLERATE_ALL], terms: [[{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }]] });
    expect(admit(pair, create('payments', off, REPLICASET_CONTROLLER)).outcome).toBe('admitted');
    expect(podBorrows(off, 'payments')).toEqual([]);
  });
});

describe('issue 35, 1: a forged owner that exists', () => {
  /** Team ledger's own decoy DaemonSet: it exists, so the garbage collector keeps a pod that names it. */
  const DECOY_UID = '9e3c1a7b-5d2f-4e6a-8b0c-1f4d7e2a9c35';
  const claims = (o: object = {}) => aBarePod({ tolerations: [TOLERATE_ALL], ...o }, [{ ...owner('apps/v1', 'DaemonSet', 'decoy'), uid: DECOY_UID }]);

  it('fails when a tenant creates a pod whose controller is its own real DaemonSet, aimed at vision\'s GPU pool by instance family, node name or nothing at all', () => {
    for (const aim of [
      { terms: [[{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['g5'] }]] },
      { nodeName: 'ip-vision-gpu-amd64.ec2.internal' },
      {},
    ]) {
      const pod = claims(aim);
      const d = admit(pair, create('ledger', pod));
      expect(forged(d)).toBe(true);
      // What it would do once admitted: run on vision's nodes, and make Karpenter size every pool's nodes for it.
      expect([...podBorrows(pod, 'ledger'), ...sizedByPod(pod, 'ledger')]).toEqual(expect.arrayContaining(['vision-gpu']));
    }
  });

  it('fails when a pod names its own confined DaemonSet by UID under apps/v1beta2, asking for cpu 100000 and tolerating everything: Karpenter would size every pool by it', () => {
    // The decoy is the tenant's own DaemonSet; the pod claims its UID under another apiVersion.
    const confined = aDecoy('ledger', DECOY_UID, false);
    const claimed = aBarePod({ tolerations: [TOLERATE_ALL] }, [{ ...owner('apps/v1beta2', 'DaemonSet', 'decoy'), uid: DECOY_UID }]);
    const spec = claimed.spec as JsonObject;
    const pod: JsonObject = { ...claimed, spec: { ...spec, containers: (spec.containers as JsonObject[]).map((c) => ({ ...c, resources: { requests: { cpu: '100000' } } })) } };
    // Karpenter's model (state/cluster.go, provisioner.go: by UID alone) takes it for the DaemonSet's and sizes every guarded pool by it.
    const sized = daemonSetPods([confined], [{ ...pod, metadata: { ...(pod.metadata as JsonObject), namespace: 'ledger', creationTimestamp: '2026-11-28T10:00:00Z' } }])
      .flatMap((p) => daemonOverheadPools(p, templates));
    expect(sized).toEqual(expect.arrayContaining(['vision', 'vision-gpu', 'web', 'shared', 'ml-gpu']));
    expect(refusedPools(admit(pair, create('ledger', pod)))).toEqual(['vision', 'vision-gpu', 'web', 'shared', 'ml-gpu']);
  });

  it('fails for an administrator too: only the DaemonSet controller\'s requests are judged through the DaemonSet', () => {
    expect(forged(admit(pair, create('ledger', claims(), ADMIN)))).toBe(true);
  });

  it('fails when a tenant makes an existing pod its DaemonSet\'s by an update of its owners', () => {
    const plain = aBarePod({ tolerations: [TOLERATE_ALL] });
    expect(forged(admit(pair, { ...create('ledger', claims()), operation: 'UPDATE', oldObject: plain }))).toBe(true);
  });

  it('admits the DaemonSet controller\'s own pod, whatever it tolerates: its DaemonSet was judged', () => {
    const ds = { ...aWorkload('DaemonSet', { tolerations: [TOLERATE_ALL], nodeSelector: { team: 'web' } }), metadata: { name: 'agent', namespace: 'web', uid: 'c0ffee' } };
    expect(admit(pair, create('web', daemonSetPod(ds, 'ip-web-amd64.ec2.internal'), DAEMON_SET_CONTROLLER_USER)).outcome).toBe('admitted');
  });

  it('fails when the DaemonSet controller adopts a pod that could run on another team\'s pool: Karpenter may size every node by it', () => {
    const orphan = aBarePod({ tolerations: [{ key: 'dedicated', operator: 'Exists' }] });
    const adopted = { ...orphan, metadata: { ...(orphan.metadata as JsonObject), ownerReferences: [{ ...owner('apps/v1', 'DaemonSet', 'decoy'), uid: DECOY_UID }] } };
    const d = admit(pair, { ...create('ledger', adopted, DAEMON_SET_CONTROLLER_USER), operation: 'UPDATE', oldObject: orphan });
    expect(d.message).toMatch(/namespace ledger may not use team vision's pool vision \(the pod the DaemonSet controller adopts can run on its nodes.*in all, 3 pools it may not use: vision, web, shared/);
    expect(sizedByPod(adopted, 'ledger')).toEqual(['vision', 'web', 'shared']);
  });

  it('never looks at the garbage collector orphaning a running DaemonSet pod (its owners change, nothing it asks for)', () => {
    const agent = aDaemonSetPod({ tolerations: [TOLERATE_ALL] });
    const running: JsonObject = { ...agent, spec: { ...(agent.spec as JsonObject), nodeName: 'ip-vision-amd64.ec2.internal' } };
    const orphaned = { ...running, metadata: { ...(running.metadata as JsonObject), ownerReferences: [] } };
    expect(admit(pair, { operation: 'UPDATE', namespace: 'ledger', object: orphaned, oldObject: running, username: 'system:serviceaccount:kube-system:generic-garbage-collector' }).outcome).toBe('admitted');
  });
});

describe('issue 35, 2: DaemonSets are sized into every node', () => {
  it('fails when a DaemonSet in ledger asks for a GPU and tolerates everything: every vision-gpu node would carry it', () => {
    const ds = aWorkload('DaemonSet', { tolerations: [TOLERATE_ALL] });
    expect(refusedPools(admit(pair, create('ledger', ds)))).toEqual(['vision', 'vision-gpu', 'web', 'shared', 'ml-gpu']);
    expect(daemonSetBorrows(ds, 'ledger')).toEqual(['vision', 'vision-gpu', 'web', 'shared', 'ml-gpu']);
  });

  it('fails when a DaemonSet with no selector at all may run on a pool that is not dedicated', () => {
    const ds = aWorkload('DaemonSet', {});
    expect(refusedPools(admit(pair, create('ledger', ds)))).toEqual(['shared']);
    expect(daemonSetBorrows(ds, 'ledger')).toEqual(['shared']);
  });

  it('fails when a DaemonSet aims at vision by node affinity: Karpenter reads its template\'s affinity, though the controller replaces it on each pod', () => {
    const ds = aWorkload('DaemonSet', { tolerations: [TOLERATE_ALL], terms: [[{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['g5'] }]] });
    expect(refusedPools(admit(pair, create('ledger', ds)))).toEqual(expect.arrayContaining(['vision-gpu']));
  });

  it('admits a team\'s DaemonSet confined to its pools, and refuses the same DaemonSet in another team\'s namespace', () => {
    const confined = aWorkload('DaemonSet', { tolerations: [TOLERATE_ALL], nodeSelector: { team: 'vision' } });
    expect(admit(pair, create('vision', confined)).outcome).toBe('admitted');
    expect(daemonSetBorrows(confined, 'vision')).toEqual([]);
    expect(refusedPools(admit(pair, create('web', confined)))).toEqual(['vision', 'vision-gpu']);
  });

  it('never looks at kube-system\'s agents', () => {
    expect(admit(pair, create('kube-system', aWorkload('DaemonSet', { tolerations: [TOLERATE_ALL] }), ADMIN)).outcome).toBe('skipped');
  });
});

describe('issue 35, 2: a CapacityBuffer provisions from a template no pod admission sees', () => {
  it.each(['PodTemplate', 'Deployment', 'ReplicaSet', 'StatefulSet'] as const)('fails when a %s that a CapacityBuffer can name tolerates vision\'s GPU pool', (kind) => {
    const spec = { tolerations: [{ key: 'dedicated', operator: 'Exists' as const }, { key: 'nvidia.com/gpu', operator: 'Exists' as const }, { key: 'example.com/preemptible', operator: 'Exists' as const }] };
    const template = kind === 'PodTemplate' ? { apiVersion: 'v1', kind, metadata: { name: 'gpu' }, template: (aWorkload('Deployment', spec).spec as JsonObject).template as JsonObject } : aWorkload(kind, spec);
    const pools = ['vision', 'vision-gpu', 'web', 'ml-gpu'];
    expect(bufferBorrows(template, 'ledger')).toEqual(pools);
    expect(refusedPools(admit(pair, create('ledger', template)))).toEqual(pools);
  });
});

// ==== Any object

const TEAMS = ['vision', 'web', 'shared', 'ml', 'legacy'];
const NAMESPACES = ['vision', 'vision-batch', 'web', 'shared', 'ml', 'ledger', SMOKE_TESTS, 'kube-system'];
const INTEGERS = ['0', '5', '4409', '4410', '99999'];

/** Tolerations the API server accepts: a key-less one is Exists, Exists takes no value, Lt and Gt an integer (alpha in 1.35). */
const toleration = fc.record({
  key: fc.constantFrom('', 'dedicated', 'nvidia.com/gpu', 'example.com/preemptible', 'example.com/spot'),
  operator: fc.constantFrom(undefined, 'Equal', 'Exists', 'Lt', 'Gt'),
  value: fc.constantFrom(...TEAMS, 'true', '', ...INTEGERS),
  effect: fc.constantFrom(undefined, '', 'NoSchedule', 'PreferNoSchedule', 'NoExecute'),
}).map(({ key, operator, value, effect }) => {
  const op = key === '' ? 'Exists' : operator;
  const v = op === 'Exists' ? undefined : op === 'Lt' || op === 'Gt' ? (INTEGERS.includes(value) ? value : '5') : value;
  return { ...(key ? { key } : {}), ...(op ? { operator: op } : {}), ...(v ? { value: v } : {}), ...(effect !== undefined ? { effect } : {}) };
});

/** A node selector requirement on `keys`, with every operator, as the API server accepts it. */
const requirement = (keys: readonly string[], values: readonly string[]) => fc.record({
  key: fc.constantFrom(...keys),
  operator: fc.constantFrom('In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'),
  values: fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 3 }),
  integer: fc.constantFrom(...INTEGERS),
}).map(({ key, operator, values: vs, integer }) => (operator === 'Exists' || operator === 'DoesNotExist' ? { key, operator }
  : operator === 'Gt' || operator === 'Lt' ? { key, operator, values: [integer] } : { key, operator, values: vs }));

const NAME_VALUES = [...POOLS, ...TEAMS.filter((t) => !POOLS.includes(t)), '4410', 'inference'];
/** Requirements on the labels that name a pool or a team, and on the pools' own labels. */
const naming = requirement([...NAMING, 'workload', 'cost-center'], NAME_VALUES);
/** Requirements on anything else: instance labels, a custom label no pool has, the hostname. */
const other = requirement(['kubernetes.io/arch', 'example.com/tier', 'kubernetes.io/hostname', 'topology.kubernetes.io/zone'], ['amd64', 'arm64', 's390x', 'gold', 'us-east-1a', ...NODE_NAMES.slice(0, 2)]);
const matchField = fc.record({ operator: fc.constantFrom('In', 'NotIn'), name: fc.constantFrom(...NODE_NAMES, 'ip-10-9-9-9.ec2.internal') })
  .map(({ operator, name }) => ({ key: 'metadata.name', operator, values: [name] }));

/** An ownerReference of any apiVersion and kind; at most one is the controller (the API server refuses two). */
const ownerReference = fc.record({
  apiVersion: fc.constantFrom('apps/v1', 'evil.example/v1', 'v1', 'batch/v1', 'apps/v1beta2'),
  kind: fc.constantFrom('DaemonSet', 'ReplicaSet', 'Node', 'Job'),
  controller: fc.constantFrom(true, false, undefined),
}).map(({ apiVersion, kind, controller }) => ({ apiVersion, kind, name: 'x', uid: 'deadbeef', ...(controller !== undefined ? { controller } : {}) }));
/** What the DaemonSet controller writes, and the owners a tenant forges to pass for it, often enough that each is tried. */
const daemonSetOwners = fc.constantFrom(
  { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'c0ffee', controller: true },
  { apiVersion: 'evil.example/v1', kind: 'DaemonSet', name: 'x', uid: 'deadbeef', controller: true },
  { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'x', uid: 'deadbeef', controller: false },
);
const ownerReferences = fc.array(fc.oneof({ arbitrary: ownerReference, weight: 2 }, { arbitrary: daemonSetOwners, weight: 1 }), { maxLength: 2 })
  .map((refs) => refs.map((r, i) => (i > 0 && r.controller ? { ...r, controller: false } : r)));
/** Most pods name no node. */
const nodeName = (names: readonly string[]): fc.Arbitrary<string | undefined> => (names.length === 0 ? fc.constant(undefined)
  : fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.constantFrom(...names), weight: 1 }));
/** Most terms have no matchFields. */
const matchFields = fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.array(matchField, { minLength: 1, maxLength: 1 }), weight: 1 });

/** What decides where a pod runs. */
interface PodShape {
  readonly tolerations: readonly object[];
  readonly nodeSelector?: Record<string, string>;
  readonly required?: readonly { matchExpressions?: readonly object[]; matchFields?: readonly object[] }[];
  readonly preferred?: readonly { weight: number; preference: { matchExpressions: readonly object[] } }[];
  readonly nodeName?: string;
}

/** A pod spec with these scheduling fields. */
function specOf(s: PodShape): JsonObject {
  const affinity = s.required !== undefined || s.preferred !== undefined ? {
    nodeAffinity: {
      ...(s.required !== undefined ? { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: s.required } } : {}),
      ...(s.preferred !== undefined ? { preferredDuringSchedulingIgnoredDuringExecution: s.preferred } : {}),
    },
  } : undefined;
  return {
    containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '1', 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '1' } } }],
    tolerations: s.tolerations,
    ...(s.nodeName ? { nodeName: s.nodeName } : {}),
    ...(s.nodeSelector ? { nodeSelector: s.nodeSelector } : {}),
    ...(affinity ? { affinity } : {}),
  };
}

/** A pod object as the API server holds it on CREATE. */
const podObject = (s: PodShape, owners: readonly object[]): JsonObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ...(owners.length > 0 ? { ownerReferences: owners } : {}) }, spec: specOf(s),
});

/** The kind of object a shape is made into: a pod template a CapacityBuffer can name, or a DaemonSet. */
type TemplateKind = 'PodTemplate' | 'Deployment' | 'ReplicaSet' | 'StatefulSet' | 'DaemonSet';

/** A workload or PodTemplate whose template has these scheduling fields. */
function templateObject(kind: TemplateKind, s: PodShape): JsonObject {
  const template = { metadata: { labels: { app: 'x' } }, spec: specOf(s) };
  if (kind === 'PodTemplate') return { apiVersion: 'v1', kind, metadata: { name: 'x' }, template };
  return { apiVersion: 'apps/v1', kind, metadata: { name: 'x', uid: '7a2b9c4d-1e3f-4a5b-8c6d-9e0f1a2b3c4d' }, spec: { selector: { matchLabels: { app: 'x' } }, template } };
}

const shapeRecord = (required: fc.Arbitrary<PodShape['required'] | undefined>, selector: fc.Arbitrary<Record<string, string> | undefined>, names: readonly string[]) => fc.record({
  tolerations: fc.array(fc.oneof(toleration, fc.constant({ operator: 'Exists' })), { maxLength: 4 }),
  nodeSelector: selector,
  required,
  preferred: fc.option(fc.array(fc.record({ weight: fc.constantFrom(1, 50, 100), preference: fc.record({ matchExpressions: fc.array(naming, { maxLength: 2 }) }) }), { maxLength: 2 }), { nil: undefined }),
  nodeName: nodeName(names),
});

/** Any pod's scheduling fields: every toleration operator and effect, every requirement operator, empty terms, matchFields, nodeName. */
const anyShape: fc.Arbitrary<PodShape> = shapeRecord(
  fc.option(fc.array(fc.record({ matchExpressions: fc.array(fc.oneof(naming, other), { maxLength: 3 }), matchFields }), { minLength: 1, maxLength: 3 }), { nil: undefined })
    .map((terms) => terms?.map((t) => ({ matchExpressions: t.matchExpressions, ...(t.matchFields ? { matchFields: t.matchFields } : {}) }))),
  fc.option(fc.dictionary(fc.constantFrom(...NAMING, 'workload', 'kubernetes.io/arch', 'example.com/tier'), fc.constantFrom(...NAME_VALUES, 'amd64', 'arm64'), { maxKeys: 2 }), { nil: undefined }),
  [...NODE_NAMES, 'ip-10-9-9-9.ec2.internal'],
);

/**
 * Requirements the policy takes to hold on every pool and that do hold on a node of every pool
 * (an amd64 node without the label example.com/tier): where a pod's other requirements are these,
 * the policy can be exact, and must be.
 */
const transparent = fc.constantFrom(
  { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }, { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
  { key: 'kubernetes.io/arch', operator: 'NotIn', values: ['arm64'] }, { key: 'kubernetes.io/arch', operator: 'Exists' },
  { key: 'example.com/tier', operator: 'NotIn', values: ['gold'] }, { key: 'example.com/tier', operator: 'DoesNotExist' },
  { key: 'workload', operator: 'NotIn', values: ['batch'] },
);
/** Scheduling fields whose requirements on what the policy cannot see are transparent: no empty term, other labels only as above. */
const transparentShape = (withMatchFields: boolean, names: readonly string[]): fc.Arbitrary<PodShape> => shapeRecord(
  fc.option(fc.array(fc.record({
    matchExpressions: fc.array(fc.oneof(requirement(NAMING, [...POOLS, ...TEAMS]), transparent), { maxLength: 3 }),
    matchFields: withMatchFields ? matchFields : fc.constant(undefined),
  }).filter((t) => t.matchExpressions.length > 0 || t.matchFields !== undefined), { minLength: 1, maxLength: 3 }), { nil: undefined })
    .map((terms) => terms?.map((t) => ({ matchExpressions: t.matchExpressions, ...(t.matchFields ? { matchFields: t.matchFields } : {}) }))),
  fc.option(fc.dictionary(fc.constantFrom(...NAMING, 'kubernetes.io/arch'), fc.constantFrom(...POOLS, ...TEAMS, 'amd64'), { maxKeys: 2 }).map((ns) => (
    'kubernetes.io/arch' in ns ? { ...ns, 'kubernetes.io/arch': 'amd64' } : ns)), { nil: undefined }),
  names,
);

const namespace = fc.constantFrom(...NAMESPACES);
const anyPod = fc.tuple(anyShape, ownerReferences).map(([s, owners]) => podObject(s, owners));
const user = fc.constantFrom(TENANT, ADMIN);
const templateKind = fc.constantFrom<TemplateKind>('PodTemplate', 'Deployment', 'ReplicaSet', 'StatefulSet');

/** The refusals fit's evaluator (src/fit/admission.ts, what fit and the review run) gives, in the set's order. */
function fitRefusals(request: AdmissionRequest): string[] {
  const policy = planPolicy(platform.clusters[0]);
  if (!policy) throw new Error('no policy');
  const kind = String(request.object?.kind);
  return evaluateTenancy(policy, {
    operation: request.operation === 'UPDATE' ? 'UPDATE' : 'CREATE', namespace: request.namespace, object: request.object ?? {}, oldObject: request.oldObject ?? null,
    resource: KIND_RESOURCES[kind], ...(request.username ? { username: request.username } : {}),
  }).flatMap((v) => v.refusals);
}

describe('the policy against the models of Kubernetes and Karpenter (property)', () => {
  it('refuses every pod a tenant or administrator creates that would borrow a team\'s pool from another namespace, or that claims a DaemonSet', () => {
    fc.assert(fc.property(anyPod, namespace, user, (pod, ns, who) => {
      const d = admit(pair, create(ns, pod, who));
      const refused = refusedPools(d);
      expect({ missed: podBorrows(pod, ns).filter((p) => !refused.includes(p)) }).toEqual({ missed: [] });
      if (d.outcome !== 'refused') expect({ sized: sizedByPod(pod, ns) }).toEqual({ sized: [] });
    }), { numRuns: 400, seed: 28 });
  });

  it('admits every pod that borrows nothing, and refuses exactly the pools a pod borrows, where what it asks of unseen labels is transparent', () => {
    fc.assert(fc.property(transparentShape(true, NODE_NAMES), namespace, (shape, ns) => {
      const pod = podObject(shape, []);
      expect(refusedPools(admit(pair, create(ns, pod)))).toEqual(podBorrows(pod, ns));
    }), { numRuns: 400, seed: 2828 });
  });

  it('refuses every DaemonSet whose pods the DaemonSet controller would put on, or Karpenter size, a pool its namespace may not use', () => {
    fc.assert(fc.property(anyShape, namespace, user, (shape, ns, who) => {
      const ds = templateObject('DaemonSet', { ...shape, nodeName: undefined });
      const refused = refusedPools(admit(pair, create(ns, ds, who)));
      expect({ missed: daemonSetBorrows(ds, ns).filter((p) => !refused.includes(p)) }).toEqual({ missed: [] });
    }), { numRuns: 300, seed: 35 });
  });

  it('refuses exactly the pools a DaemonSet would use, where what it asks of unseen labels is transparent', () => {
    fc.assert(fc.property(transparentShape(false, []), namespace, (shape, ns) => {
      const ds = templateObject('DaemonSet', shape);
      expect(refusedPools(admit(pair, create(ns, ds)))).toEqual(daemonSetBorrows(ds, ns));
    }), { numRuns: 300, seed: 3535 });
  });

  it('refuses every pod template a CapacityBuffer could make Karpenter launch another team\'s nodes for', () => {
    fc.assert(fc.property(anyShape, templateKind, namespace, (shape, kind, ns) => {
      const template = templateObject(kind, shape);
      const refused = refusedPools(admit(pair, create(ns, template)));
      expect({ missed: bufferBorrows(template, ns).filter((p) => !refused.includes(p)) }).toEqual({ missed: [] });
    }), { numRuns: 300, seed: 353 });
  });

  it('admits the DaemonSet controller\'s pods for every DaemonSet it admitted, and they run only on pools the namespace may use', () => {
    fc.assert(fc.property(transparentShape(false, []), namespace, (shape, ns) => {
      const ds = { ...templateObject('DaemonSet', shape), metadata: { name: 'agent', namespace: ns, uid: 'c0ffee' } };
      if (admit(pair, create(ns, ds)).outcome === 'refused') return;
      for (const node of [...NODES.values()].flat().filter((n) => daemonSetShouldRun(ds, n))) {
        expect(admit(pair, create(ns, daemonSetPod(ds, node.name), DAEMON_SET_CONTROLLER_USER)).outcome).not.toBe('refused');
        expect(forbidden(ns).map((t) => t.nodePool)).not.toContain(node.labels['karpenter.sh/nodepool']);
      }
    }), { numRuns: 200, seed: 3553 });
  });

  it('never lets the DaemonSet controller adopt a pod by which Karpenter would size a pool the namespace may not use', () => {
    fc.assert(fc.property(anyShape, namespace, (shape, ns) => {
      const orphan = podObject(shape, []);
      const adopted = { ...orphan, metadata: { ...(orphan.metadata as JsonObject), ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'decoy', uid: 'c0ffee', controller: true }] } };
      const d = admit(pair, { ...create(ns, adopted, DAEMON_SET_CONTROLLER_USER), operation: 'UPDATE', oldObject: orphan });
      if (d.outcome !== 'refused') expect({ sized: sizedByPod(adopted, ns) }).toEqual({ sized: [] });
    }), { numRuns: 300, seed: 3555 });
  });

  it('agrees with the evaluator fit and the review run on the generated policies, on any object: the same refusals, messages included', () => {
    const anyObject = fc.oneof(
      fc.tuple(anyPod, user).map(([pod, who]) => ({ object: pod, who })),
      fc.tuple(anyShape, fc.constantFrom<TemplateKind>('PodTemplate', 'Deployment', 'DaemonSet')).map(([shape, kind]) => ({ object: templateObject(kind, shape), who: TENANT })),
    );
    fc.assert(fc.property(anyObject, namespace, ({ object, who }, ns) => {
      const request = create(ns, object, who);
      expect(fitRefusals(request)).toEqual(admit(pair, request).refusals);
    }), { numRuns: 400, seed: 22 });
  });

  it('has a case of each kind among the objects it tries (the properties are not vacuous)', () => {
    const seen = new Set<string>();
    fc.assert(fc.property(transparentShape(true, NODE_NAMES), namespace, (shape, ns) => {
      const pod = podObject(shape, []);
      const borrowed = podBorrows(pod, ns);
      const m = modelPod(pod);
      seen.add(borrowed.length > 0 ? 'a pod borrows' : 'a pod borrows nothing');
      if (borrowed.length > 0 && m.nodeName) seen.add('a pod borrows by nodeName');
      if (borrowed.length > 0 && karpenterIgnores(m) === undefined && borrowed.some((p) => karpenterLaunches(m, templates.find((t) => t.nodePool === p) as NodeClaimTemplate, templates))) {
        seen.add('Karpenter launches for a pod');
      }
      const ds = templateObject('DaemonSet', { ...shape, nodeName: undefined });
      seen.add(daemonSetBorrows(ds, ns).length > 0 ? 'a DaemonSet borrows' : 'a DaemonSet borrows nothing');
      if (bufferBorrows(templateObject('PodTemplate', shape), ns).length > 0) seen.add('a buffer borrows');
    }), { numRuns: 400, seed: 2828 });
    expect([...seen].sort()).toEqual([
      'Karpenter launches for a pod', 'a DaemonSet borrows', 'a DaemonSet borrows nothing', 'a buffer borrows', 'a pod borrows', 'a pod borrows by nodeName', 'a pod borrows nothing',
    ]);
  });
});
