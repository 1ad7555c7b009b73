/**
 * Tenancy against a hostile tenant (issue 28, contract section 7.4): the generated policy, run
 * through the API server's admission steps (test/support/admission-policy.ts), against a model of
 * where Kubernetes and Karpenter would put the pod (test/support/karpenter-provisioning.ts, written
 * from their source). The model reads the NodePools synth writes; who may use which pool is the
 * config's, written here.
 */
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import type { Platform } from '../../src/config/platform';
import { refusalMessage, tenancyRefusal } from '../../src/model/tenancy';
import { synthesize } from '../../src/synth';
import { admit, AdmissionRequest, Decision, JsonObject, PolicyPair } from '../support/admission-policy';
import {
  alternativesHolding, karpenterIgnores, karpenterLaunches, kubeletRuns, launchedNode, ModelNode, ModelPod, modelPod, NodeClaimTemplate, nodeClaimTemplate,
  schedulerBinds,
} from '../support/karpenter-provisioning';
import { aBarePod, aDaemonSetPod, aDeploymentPod, owner, TOLERATE_ALL } from '../support/pods';
import { aCluster, aPlatform, aPool, planPolicy } from '../pool-builders';
import { podFacts } from './tenancy-facts';

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

const files = synthesize(platform);
const documents = (prefix: string) => [...files].filter(([path]) => path.startsWith(prefix)).flatMap(([, text]) => parseAllDocuments(text).map((d) => d.toJS() as JsonObject));
const policyDocs = documents('dist/demo/policies/');
const pair: PolicyPair = {
  policy: policyDocs.find((d) => d.kind === 'ValidatingAdmissionPolicy') as JsonObject,
  binding: policyDocs.find((d) => d.kind === 'ValidatingAdmissionPolicyBinding') as JsonObject,
};

/** Karpenter's view of the NodePools synth wrote, and running nodes of each (one per architecture it allows). */
const templates: NodeClaimTemplate[] = documents('dist/demo/nodepools/').filter((d) => d.kind === 'NodePool').map(nodeClaimTemplate);
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

/**
 * A DaemonSet's pod the contract lets run on every pool (section 7.4): its controller is an
 * apps/v1 DaemonSet, which Karpenter never launches a node for; it tolerates every NoSchedule
 * taint; and it names no node (the DaemonSet controller pins pods by node affinity, not by
 * spec.nodeName, so a pod that names its node is not one the controller made).
 */
function daemonSetAgent(pod: ModelPod): boolean {
  return !pod.nodeName && pod.ownerReferences.some((o) => o.apiVersion === 'apps/v1' && o.kind === 'DaemonSet' && o.controller === true)
    && pod.tolerations.some((t) => !t.key && t.operator === 'Exists' && (!t.effect || t.effect === 'NoSchedule'));
}

/**
 * The guarded pools a pod of `namespace` would borrow, in the order of the config:
 *
 * - it selects the pool: one of its alternatives (the nodeSelector with one required term) names
 *   the pool or its team (In, or a nodeSelector entry) and a node of the pool, running or new, meets it; or
 * - the pool is dedicated and the pod, unless a DaemonSet agent, can run there: Karpenter launches
 *   a node of the pool for it, the scheduler binds it to one of its running nodes, or the kubelet
 *   runs it on the one it names.
 *
 * Node names are not predictable, so a pod's requirements on them (spec.nodeName, matchFields) are
 * judged as if it named a node of the pool.
 */
function borrowedByModel(object: JsonObject, namespace: string): string[] {
  if (EXEMPT.includes(namespace)) return [];
  const pod = modelPod(object);
  const agent = daemonSetAgent(pod);
  if (agent && karpenterIgnores(pod) === undefined) throw new Error('a DaemonSet agent Karpenter would launch nodes for: the exemption is wider than what Karpenter ignores');
  return templates.filter((t) => MAY_USE[t.nodePool] !== undefined && ![...MAY_USE[t.nodePool], SMOKE_TESTS].includes(namespace)).filter((t) => {
    const nodes = NODES.get(t.nodePool) ?? [];
    const names = (i: number) => Object.keys(pod.nodeSelector).some((k) => NAMING.includes(k))
      || (i >= 0 && (pod.required?.[i].matchExpressions ?? []).some((e) => e.operator === 'In' && NAMING.includes(e.key)));
    if (alternativesHolding(pod, t, nodes, 'any').some(names)) return true;
    const dedicated = t.taints.some((taint) => taint.key === 'dedicated' && taint.value === t.labels.team && taint.effect === 'NoSchedule');
    if (!dedicated || agent) return false;
    return karpenterLaunches(pod, t, templates) || nodes.some((n) => schedulerBinds(pod, n, 'any') || kubeletRuns(pod, n, 'any'));
  }).map((t) => t.nodePool).sort((a, b) => POOLS.indexOf(a) - POOLS.indexOf(b));
}

/** The pools a refusal names: the first, or all of them after "in all". */
function refusedPools(d: Decision): string[] {
  if (d.outcome !== 'refused') return [];
  const all = /; in all, \d+ pools it may not use: (.*)$/.exec(d.message ?? '');
  if (all) return all[1].split(', ');
  const first = /'s pool ([a-z0-9-]+) \(/.exec(d.message ?? '');
  if (!first) throw new Error(`a refusal that names no pool: ${d.message}`);
  return [first[1]];
}

const create = (namespace: string, object: JsonObject): AdmissionRequest => ({ operation: 'CREATE', namespace, object });

describe('issue 28: what a hostile tenant tries', () => {
  it('fails when a pod claims a DaemonSet owner of another API group (the pod of the issue)', () => {
    const forged = aBarePod({ tolerations: [TOLERATE_ALL], nodeSelector: { 'karpenter.sh/nodepool': 'vision' } }, [{ ...owner('evil.example/v1', 'DaemonSet', 'x'), uid: 'deadbeef' }]);
    const d = admit(pair, create('ledger', forged));
    expect(d.outcome).toBe('refused');
    expect(d.message).toMatch(/namespace ledger may not use team vision's pool vision \(the pod tolerates its taint dedicated=vision:NoSchedule\)/);
    expect(borrowedByModel(forged, 'ledger')).toEqual(['vision']);
  });

  it('fails when a pod claims a DaemonSet owner of another API group and tolerates every taint, selecting nothing', () => {
    const forged = aBarePod({ tolerations: [TOLERATE_ALL] }, [owner('evil.example/v1', 'DaemonSet', 'x')]);
    expect(refusedPools(admit(pair, create('ledger', forged)))).toEqual(['vision', 'vision-gpu', 'web', 'ml-gpu']);
    expect(karpenterIgnores(modelPod(forged))).toBeUndefined();
  });

  it('admits an apps/v1 DaemonSet\'s pod that tolerates every taint and selects no pool, in any namespace', () => {
    const agent = aDaemonSetPod({ tolerations: [TOLERATE_ALL] });
    expect(admit(pair, create('monitoring', agent)).outcome).toBe('admitted');
    expect(borrowedByModel(agent, 'monitoring')).toEqual([]);
  });

  it('fails when an apps/v1 DaemonSet\'s pod that tolerates every taint selects a guarded pool of another team', () => {
    const selecting = aDaemonSetPod({ tolerations: [TOLERATE_ALL], nodeSelector: { 'karpenter.sh/nodepool': 'vision' } });
    expect(admit(pair, create('monitoring', selecting)).message)
      .toMatch(/namespace monitoring may not use team vision's pool vision \(the pod selects it by karpenter.sh\/nodepool, karpenter.k8s.aws\/ec2nodeclass or team\)/);
    const byTeam = aDaemonSetPod({ tolerations: [TOLERATE_ALL], nodeSelector: { team: 'shared' } });
    expect(refusedPools(admit(pair, create('monitoring', byTeam)))).toEqual(['shared']);
  });

  it('admits an apps/v1 DaemonSet\'s pod that selects its own team\'s pool from the team\'s namespace', () => {
    expect(admit(pair, create('vision', aDaemonSetPod({ tolerations: [TOLERATE_ALL], nodeSelector: { team: 'vision' } }))).outcome).toBe('admitted');
  });

  it('fails when the apps/v1 DaemonSet owner is not the pod\'s controller (the DaemonSet controller always is)', () => {
    const notController = aBarePod({ tolerations: [TOLERATE_ALL] }, [{ ...owner('apps/v1', 'DaemonSet', 'x'), controller: false }]);
    expect(admit(pair, create('monitoring', notController)).outcome).toBe('refused');
  });

  it('fails when a pod names a node (spec.nodeName): it skips the NoSchedule taints, and the node\'s pool is unknown', () => {
    const named = aBarePod({ nodeName: 'ip-10-0-12-34.ec2.internal' });
    expect(admit(pair, create('payments', named)).message).toMatch(
      /namespace payments may not use team vision's pool vision \(the pod names its node \(spec.nodeName\), which skips its taint dedicated=vision:NoSchedule\): only pods of namespaces vision, vision-batch, karpenter-smoke-tests may; in all, 3 pools it may not use: vision, web, ml-gpu$/,
    );
  });

  it('fails when `kubectl debug node/...` runs outside the exempt namespaces, and never looks at it in kube-system', () => {
    const debug = aBarePod({ name: 'node-debugger-ip-10-0-12-34-x7k2p', nodeName: 'ip-10-0-12-34.ec2.internal', tolerations: [TOLERATE_ALL] });
    expect(admit(pair, create('default', debug)).outcome).toBe('refused');
    expect(admit(pair, create('kube-system', debug)).outcome).toBe('skipped');
  });

  it('admits a pod that names its node when its node selection keeps it to its own team\'s pools', () => {
    expect(admit(pair, create('web', aBarePod({ nodeName: 'ip-10-0-12-34.ec2.internal', nodeSelector: { team: 'web' } }))).outcome).toBe('admitted');
  });

  it('fails when a pod names its node from a DaemonSet owner: the DaemonSet controller pins pods by node affinity, not by spec.nodeName', () => {
    const named = aBarePod({ nodeName: 'ip-10-0-12-34.ec2.internal', tolerations: [TOLERATE_ALL] }, [owner('apps/v1', 'DaemonSet', 'agent')]);
    expect(admit(pair, create('monitoring', named)).outcome).toBe('refused');
  });

  it('admits a toleration of a team\'s taint when the pod cannot run on that team\'s nodes anyway', () => {
    const tolerates = (team: string) => ({ key: 'dedicated', operator: 'Equal' as const, value: team, effect: 'NoSchedule' as const });
    expect(admit(pair, create('web', aDeploymentPod({ tolerations: [tolerates('vision')], nodeSelector: { team: 'web' } }))).outcome).toBe('admitted');
    // ml-gpu also carries a GPU taint that the pod does not tolerate.
    expect(admit(pair, create('web', aDeploymentPod({ tolerations: [tolerates('ml')] }))).outcome).toBe('admitted');
    expect(admit(pair, create('web', aDeploymentPod({ tolerations: [tolerates('ml'), { key: 'nvidia.com/gpu', operator: 'Exists' }] }))).outcome).toBe('refused');
  });

  it('fails when a required term is empty: Karpenter reads only a term\'s expressions, and launches a node for it', () => {
    const empty = aDeploymentPod({ tolerations: [{ key: 'dedicated', operator: 'Exists' }], terms: [[]] });
    expect(refusedPools(admit(pair, create('payments', empty)))).toEqual(['vision', 'web']);
  });

  it('fails when a pod selects a pool that is not dedicated by its node class label', () => {
    expect(admit(pair, create('web', aDeploymentPod({ nodeSelector: { 'karpenter.k8s.aws/ec2nodeclass': 'shared' } }))).message).toMatch(/team shared's pool shared \(the pod selects it/);
  });

  it('admits a pod that asks for no Karpenter node at all (karpenter.sh/nodepool DoesNotExist), whatever it tolerates', () => {
    const off = aDeploymentPod({ tolerations: [TOLERATE_ALL], terms: [[{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }]] });
    expect(admit(pair, create('payments', off)).outcome).toBe('admitted');
    expect(borrowedByModel(off, 'payments')).toEqual([]);
  });

  it('never reads preferred node affinity: it cannot widen where a pod may run', () => {
    const prefers = aDeploymentPod({ preferred: [{ weight: 100, expressions: [{ key: 'karpenter.sh/nodepool', operator: 'In', values: ['vision'] }] }] });
    expect(admit(pair, create('web', prefers)).outcome).toBe('admitted');
    expect(borrowedByModel(prefers, 'web')).toEqual([]);
  });
});

describe('updates of a pod\'s owner', () => {
  const agent = aDaemonSetPod({ tolerations: [TOLERATE_ALL] });
  const orphan = { ...agent, metadata: { ...(agent.metadata as JsonObject), ownerReferences: [] } };

  it('fails when a pending pod drops its DaemonSet owner: Karpenter would launch nodes for it from then on', () => {
    expect(admit(pair, { operation: 'UPDATE', namespace: 'monitoring', object: orphan, oldObject: agent }).outcome).toBe('refused');
  });

  it('never looks at an owner change of a pod already on a node', () => {
    const bound = (p: JsonObject) => ({ ...p, spec: { ...(p.spec as JsonObject), nodeName: 'ip-10-0-12-34.ec2.internal' } });
    expect(admit(pair, { operation: 'UPDATE', namespace: 'monitoring', object: bound(orphan), oldObject: bound(agent) }).outcome).toBe('skipped');
  });
});

// ==== Any pod

const TEAMS = ['vision', 'web', 'shared', 'ml', 'legacy'];
const NAMESPACES = ['vision', 'vision-batch', 'web', 'shared', 'ml', 'payments', SMOKE_TESTS, 'kube-system'];
const INTEGERS = ['0', '5', '4409', '4410', '99999'];

/** Pod tolerations the API server accepts: a key-less one is Exists, Exists takes no value, Lt and Gt an integer (alpha in 1.35). */
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
const nodeName = (names: readonly string[]) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.constantFrom(...names), weight: 1 });
/** Most terms have no matchFields. */
const matchFields = fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.array(matchField, { minLength: 1, maxLength: 1 }), weight: 1 });

interface PodShape {
  readonly tolerations: readonly object[];
  readonly nodeSelector?: Record<string, string>;
  readonly required?: readonly { matchExpressions?: readonly object[]; matchFields?: readonly object[] }[];
  readonly preferred?: readonly { weight: number; preference: { matchExpressions: readonly object[] } }[];
  readonly ownerReferences: readonly object[];
  readonly nodeName?: string;
}

/** A pod object as the API server holds it on CREATE. */
function podObject(s: PodShape): JsonObject {
  const affinity = s.required !== undefined || s.preferred !== undefined ? {
    nodeAffinity: {
      ...(s.required !== undefined ? { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: s.required } } : {}),
      ...(s.preferred !== undefined ? { preferredDuringSchedulingIgnoredDuringExecution: s.preferred } : {}),
    },
  } : undefined;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'p', ...(s.ownerReferences.length > 0 ? { ownerReferences: s.ownerReferences } : {}) },
    spec: {
      containers: [{ name: 'app', image: 'nginx' }],
      tolerations: s.tolerations,
      ...(s.nodeName ? { nodeName: s.nodeName } : {}),
      ...(s.nodeSelector ? { nodeSelector: s.nodeSelector } : {}),
      ...(affinity ? { affinity } : {}),
    },
  };
}

/** Any pod: every toleration operator and effect, every requirement operator, empty terms, matchFields, owners, nodeName. */
const anyPod = fc.record({
  tolerations: fc.array(fc.oneof(toleration, fc.constant({ operator: 'Exists' })), { maxLength: 4 }),
  nodeSelector: fc.option(fc.dictionary(fc.constantFrom(...NAMING, 'workload', 'kubernetes.io/arch', 'example.com/tier'), fc.constantFrom(...NAME_VALUES, 'amd64', 'arm64'), { maxKeys: 2 }), { nil: undefined }),
  required: fc.option(fc.array(fc.record({
    matchExpressions: fc.array(fc.oneof(naming, other), { maxLength: 3 }),
    matchFields,
  }), { minLength: 1, maxLength: 3 }), { nil: undefined }),
  preferred: fc.option(fc.array(fc.record({ weight: fc.constantFrom(1, 50, 100), preference: fc.record({ matchExpressions: fc.array(naming, { maxLength: 2 }) }) }), { maxLength: 2 }), { nil: undefined }),
  ownerReferences,
  nodeName: nodeName([...NODE_NAMES, 'ip-10-9-9-9.ec2.internal']),
}).map((s) => podObject({ ...s, tolerations: s.tolerations, required: s.required?.map((t) => ({ matchExpressions: t.matchExpressions, ...(t.matchFields ? { matchFields: t.matchFields } : {}) })) }));

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
/** Pods whose requirements on what the policy cannot see are transparent: no empty term, other labels only as above. */
const transparentPod = fc.record({
  tolerations: fc.array(fc.oneof(toleration, fc.constant({ operator: 'Exists' })), { maxLength: 4 }),
  nodeSelector: fc.option(fc.dictionary(fc.constantFrom(...NAMING, 'kubernetes.io/arch'), fc.constantFrom(...POOLS, ...TEAMS, 'amd64'), { maxKeys: 2 }).map((ns) => (
    'kubernetes.io/arch' in ns ? { ...ns, 'kubernetes.io/arch': 'amd64' } : ns)), { nil: undefined }),
  required: fc.option(fc.array(fc.record({
    matchExpressions: fc.array(fc.oneof(requirement(NAMING, [...POOLS, ...TEAMS]), transparent), { maxLength: 3 }),
    matchFields,
  }).filter((t) => t.matchExpressions.length > 0 || t.matchFields !== undefined), { minLength: 1, maxLength: 3 }), { nil: undefined }),
  preferred: fc.option(fc.array(fc.record({ weight: fc.constantFrom(1, 100), preference: fc.record({ matchExpressions: fc.array(requirement(NAMING, POOLS), { maxLength: 2 }) }) }), { maxLength: 2 }), { nil: undefined }),
  ownerReferences,
  nodeName: nodeName(NODE_NAMES),
}).map((s) => podObject({ ...s, required: s.required?.map((t) => ({ matchExpressions: t.matchExpressions, ...(t.matchFields ? { matchFields: t.matchFields } : {}) })) }));

const namespace = fc.constantFrom(...NAMESPACES);

describe('the policy against the model of Kubernetes and Karpenter (property)', () => {
  it('refuses every pod that would borrow a team\'s pool from another namespace, naming each pool it borrows', () => {
    fc.assert(fc.property(anyPod, namespace, (pod, ns) => {
      const borrowed = borrowedByModel(pod, ns);
      const refused = refusedPools(admit(pair, create(ns, pod)));
      expect({ missed: borrowed.filter((p) => !refused.includes(p)) }).toEqual({ missed: [] });
    }), { numRuns: 600, seed: 28 });
  });

  it('admits every pod that borrows nothing, and refuses exactly the pools a pod borrows, where what it asks of unseen labels is transparent', () => {
    fc.assert(fc.property(transparentPod, namespace, (pod, ns) => {
      expect(refusedPools(admit(pair, create(ns, pod)))).toEqual(borrowedByModel(pod, ns));
    }), { numRuns: 600, seed: 2828 });
  });

  it('agrees with the TypeScript rule fit uses, on any pod: the same refusal, message included', () => {
    const policy = planPolicy(platform.clusters[0]);
    if (!policy) throw new Error('no policy');
    fc.assert(fc.property(anyPod, namespace, (pod, ns) => {
      const request = create(ns, pod);
      const refusal = tenancyRefusal(podFacts(request), policy);
      expect(refusal && refusalMessage(ns, refusal)).toEqual(admit(pair, request).message?.replace(/^.*denied request: /, ''));
    }), { numRuns: 600, seed: 22 });
  });

  it('has a case of each kind among the pods it tries (the properties are not vacuous)', () => {
    const seen = new Set<string>();
    fc.assert(fc.property(transparentPod, namespace, (pod, ns) => {
      const borrowed = borrowedByModel(pod, ns);
      const m = modelPod(pod);
      seen.add(borrowed.length > 0 ? 'borrows' : 'borrows nothing');
      if (borrowed.length > 0 && m.nodeName) seen.add('borrows by nodeName');
      if (borrowed.length === 0 && daemonSetAgent(m)) seen.add('a DaemonSet agent');
      if (borrowed.length > 0 && karpenterIgnores(m) === undefined && borrowed.some((p) => karpenterLaunches(m, templates.find((t) => t.nodePool === p) as NodeClaimTemplate, templates))) {
        seen.add('Karpenter launches');
      }
    }), { numRuns: 600, seed: 2828 });
    expect([...seen].sort()).toEqual(['Karpenter launches', 'a DaemonSet agent', 'borrows', 'borrows by nodeName', 'borrows nothing']);
  });
});
