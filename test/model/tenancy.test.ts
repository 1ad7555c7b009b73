/**
 * Pools a team cannot borrow (issue 22): the generated ValidatingAdmissionPolicy, rendered as
 * synth writes it, evaluated by test/support/admission-policy.ts (the API server's steps and
 * CEL environment, with @bufbuild/cel) against pods as a cluster holds them.
 */
import { parseAllDocuments } from 'yaml';
import type { Platform } from '../../src/config/platform';
import { clusterApplications, CLUSTER_KINDS } from '../../src/model/applications';
import { refusalMessage, tenancyRefusal } from '../../src/model/tenancy';
import { fleetPlan } from '../../src/model/plan';
import { synthesize } from '../../src/synth';
import { admit, AdmissionRequest, bindingShapeProblems, JsonObject, PolicyPair, policyShapeProblems } from '../support/admission-policy';
import { aBarePod, aDaemonSetPod, aDeploymentPod, aJobPod, PodToleration, TOLERATE_ALL } from '../support/pods';
import { aCluster, aPlatform, aPool, planPolicy } from '../pool-builders';
import { podFacts } from './tenancy-facts';

/**
 * Cluster demo: team vision (pools vision and vision-gpu, namespaces vision and vision-batch),
 * team web (pool web, namespace web), team shared (a pool that is not dedicated, namespace
 * shared) and team legacy (no namespaces: not in the policy).
 */
function tenancyPlatform(overrides: Parameters<typeof aCluster>[1] = {}): Platform {
  return aPlatform([aCluster([
    aPool({}, { name: 'vision', team: 'vision', namespaces: ['vision', 'vision-batch'] }),
    aPool({ taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] }, { name: 'vision-gpu', team: 'vision', namespaces: ['vision', 'vision-batch'] }),
    aPool({}, { name: 'web', team: 'web', namespaces: ['web'] }),
    aPool({ dedicated: false }, { name: 'shared', team: 'shared', namespaces: ['shared'] }),
    aPool({}, { name: 'legacy', team: 'legacy' }),
  ], overrides)]);
}

/** The policy and binding synth writes for a cluster. */
function renderedPolicy(platform: Platform, cluster = 'demo'): PolicyPair {
  const files = synthesize(platform);
  const text = files.get(`dist/${cluster}/policies/team-pools.yaml`);
  if (text === undefined) throw new Error(`no policy for ${cluster}: ${[...files.keys()].filter((f) => f.includes(cluster)).join(', ')}`);
  const docs = parseAllDocuments(text).map((d) => d.toJS() as JsonObject);
  const byKind = (kind: string) => {
    const found = docs.filter((d) => d.kind === kind);
    if (found.length !== 1) throw new Error(`${found.length} ${kind} in the policy file`);
    return found[0];
  };
  return { policy: byKind('ValidatingAdmissionPolicy'), binding: byKind('ValidatingAdmissionPolicyBinding') };
}

const pair = renderedPolicy(tenancyPlatform());
const create = (namespace: string, object: JsonObject): AdmissionRequest => ({ operation: 'CREATE', namespace, object });
const dedicated = (team: string, o: Partial<PodToleration> = {}): PodToleration => ({ key: 'dedicated', operator: 'Equal', value: team, effect: 'NoSchedule', ...o });
const nodepool = (...values: string[]) => ({ key: 'karpenter.sh/nodepool', operator: 'In', values });

describe('the policy and its binding', () => {
  it('are admissionregistration.k8s.io/v1 objects with every field the API server requires', () => {
    expect(policyShapeProblems(pair.policy)).toEqual([]);
    expect(bindingShapeProblems(pair.binding)).toEqual([]);
    expect(pair.binding.spec).toEqual({ policyName: 'karpenter-gitops-team-pools', validationActions: ['Deny'] });
  });

  it('match pods on CREATE and UPDATE outside kube-system and Karpenter\'s namespace, fail closed', () => {
    expect(pair.policy.spec).toMatchObject({
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }],
        namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
      },
    });
  });

  it('carry Prune=confirm and Delete=confirm, as the pools do', () => {
    for (const o of [pair.policy, pair.binding]) {
      expect((o.metadata as JsonObject).annotations).toEqual({ 'argocd.argoproj.io/sync-options': 'Prune=confirm,Delete=confirm' });
    }
  });

  it('list only the pools of teams with namespaces, each with the smoke tests\' namespace', () => {
    const policy = planPolicy(tenancyPlatform().clusters[0]);
    expect(policy?.pools.map((p) => [p.pool, p.dedicated, p.namespaces.join(' ')])).toEqual([
      ['vision', true, 'vision vision-batch karpenter-smoke-tests'],
      ['vision-gpu', true, 'vision vision-batch karpenter-smoke-tests'],
      ['web', true, 'web karpenter-smoke-tests'],
      ['shared', false, 'shared karpenter-smoke-tests'],
    ]);
  });

  it('exempt Karpenter\'s own namespace when it is not kube-system', () => {
    const platform = tenancyPlatform();
    const cluster = { ...platform.clusters[0], karpenter: { ...platform.clusters[0].karpenter, namespace: 'karpenter' } };
    const spec = renderedPolicy({ ...platform, clusters: [cluster] }).policy.spec as JsonObject;
    expect(JSON.stringify(spec.matchConstraints)).toContain('["karpenter","kube-system"]');
  });

  it('is written, with its Application, only for a cluster where a team lists namespaces', () => {
    const none = aPlatform([aCluster([aPool({}, { name: 'web', team: 'web' })])]);
    expect([...synthesize(none).keys()].filter((f) => f.includes('polic'))).toEqual([]);
    expect(clusterApplications(none, none.clusters[0]).map((a) => a.file)).not.toContain('policies');
  });

  it('is summed up in dist/SUMMARY.md: who may use each team\'s pools, and the teams left open', () => {
    expect(fleetPlan(tenancyPlatform({ tenancyAction: 'Audit' })).summary.model.split('\n')).toContain(
      'Tenancy (Audit): team vision\'s pools for namespaces `vision`, `vision-batch`, `karpenter-smoke-tests`; team web\'s pools for namespaces `web`, `karpenter-smoke-tests`; '
      + 'team shared\'s pools for namespaces `shared`, `karpenter-smoke-tests`; open to every namespace: team legacy.',
    );
  });

  it('is delivered by <cluster>-policies before the pools, pruning like the pools\' Applications', () => {
    const platform = tenancyPlatform();
    const apps = clusterApplications(platform, platform.clusters[0]);
    const policies = apps.find((a) => a.file === 'policies');
    expect(policies).toMatchObject({ name: 'demo-policies', wave: 1, automated: true, prune: true, finalizer: true, sources: [{ path: 'dist/demo/policies' }] });
    expect(Math.max(...apps.filter((a) => a.file.startsWith('pools-')).map((a) => a.wave ?? 0))).toBeGreaterThan(policies?.wave ?? Infinity);
    expect(CLUSTER_KINDS).toEqual(expect.arrayContaining([
      { group: 'admissionregistration.k8s.io', kind: 'ValidatingAdmissionPolicy' },
      { group: 'admissionregistration.k8s.io', kind: 'ValidatingAdmissionPolicyBinding' },
    ]));
  });
});

/** Each case: a request, and whether the policy admits it (then `refused` is undefined) or refuses it with a message matching `refused`. */
const CASES: readonly (readonly [string, AdmissionRequest, RegExp | 'admitted' | 'skipped'])[] = [
  ['admits a Deployment\'s pod of the team\'s namespace that tolerates and selects its pool',
    create('vision', aDeploymentPod({ tolerations: [dedicated('vision')], terms: [[nodepool('vision')]] })), 'admitted'],
  ['admits a Job\'s pod of the team\'s second namespace on its GPU pool',
    create('vision-batch', aJobPod({ tolerations: [dedicated('vision'), { key: 'nvidia.com/gpu', operator: 'Exists' }], nodeSelector: { 'karpenter.sh/nodepool': 'vision-gpu' } })), 'admitted'],
  ['admits a pod that touches no team\'s pool',
    create('payments', aDeploymentPod({ nodeSelector: { 'kubernetes.io/arch': 'arm64' }, tolerations: [{ key: 'example.com/batch', operator: 'Exists' }] })), 'admitted'],
  ['admits a pod of any namespace on a team that lists none (legacy)',
    create('payments', aDeploymentPod({ tolerations: [dedicated('legacy')], nodeSelector: { 'karpenter.sh/nodepool': 'legacy' } })), 'admitted'],
  ['admits a toleration of the team\'s taint for NoExecute only (it does not tolerate NoSchedule)',
    create('web', aDeploymentPod({ tolerations: [dedicated('vision', { effect: 'NoExecute' })] })), 'admitted'],
  ['admits a toleration of the taint of a team whose pools are not dedicated (no node carries it)',
    create('web', aDeploymentPod({ tolerations: [dedicated('shared')] })), 'admitted'],
  ['admits a DaemonSet\'s pod that tolerates every taint, in any namespace',
    create('monitoring', aDaemonSetPod({ tolerations: [TOLERATE_ALL] })), 'admitted'],
  ['admits a DaemonSet\'s pod that tolerates every NoSchedule taint (key-less Exists for NoSchedule)',
    create('monitoring', aDaemonSetPod({ tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }, { operator: 'Exists', effect: 'NoExecute' }] })), 'admitted'],
  ['admits node affinity that only excludes the team\'s pools (NotIn) or asks for any pool (Exists)',
    create('web', aDeploymentPod({ terms: [[{ key: 'karpenter.sh/nodepool', operator: 'NotIn', values: ['vision'] }], [{ key: 'team', operator: 'Exists' }]] })), 'admitted'],
  ['admits every term of several selecting the namespace\'s own team',
    create('vision', aDeploymentPod({ terms: [[nodepool('vision')], [nodepool('vision-gpu')], [{ key: 'team', operator: 'In', values: ['vision'] }]] })), 'admitted'],
  ['admits the smoke tests on every team\'s pool',
    create('karpenter-smoke-tests', aDeploymentPod({ tolerations: [dedicated('vision')], terms: [[nodepool('vision')]] })), 'admitted'],
  ['never looks at kube-system, even at a pod that tolerates everything',
    create('kube-system', aDeploymentPod({ name: 'coredns', tolerations: [TOLERATE_ALL] })), 'skipped'],
  ['fails when a Deployment\'s pod of another namespace tolerates the team\'s taint by Equal',
    create('web', aDeploymentPod({ tolerations: [dedicated('vision')] })),
    /^pods "web-7d9c5b6f4-x2k8p" is forbidden: ValidatingAdmissionPolicy 'karpenter-gitops-team-pools' with binding 'karpenter-gitops-team-pools' denied request: namespace web may not use team vision's pool vision \(the pod tolerates its taint dedicated=vision:NoSchedule\): only pods of namespaces vision, vision-batch, karpenter-smoke-tests may$/],
  ['fails when the pod also tolerates the other taints of the team\'s second pool, naming both',
    create('web', aDeploymentPod({ tolerations: [dedicated('vision'), { key: 'nvidia.com/gpu', operator: 'Exists' }] })), /; in all, 2 pools it may not use: vision, vision-gpu$/],
  ['fails when a toleration without an operator (Equal) and without an effect tolerates the team\'s taint',
    create('web', aDeploymentPod({ tolerations: [{ key: 'dedicated', value: 'vision' }] })), /team vision's pool vision \(the pod tolerates/],
  ['fails when a Job\'s pod tolerates every team\'s taint (Exists on the key)',
    create('vision', aJobPod({ tolerations: [{ key: 'dedicated', operator: 'Exists' }] })),
    /namespace vision may not use team web's pool web \(the pod tolerates its taint dedicated=web:NoSchedule\): only pods of namespaces web, karpenter-smoke-tests may$/],
  ['fails when a pod that no DaemonSet owns tolerates every taint (key-less Exists)',
    create('vision', aBarePod({ tolerations: [TOLERATE_ALL] })), /may not use team web's pool web/],
  ['fails when a Deployment\'s pod tolerates every taint, even in a namespace of a team',
    create('web', aDeploymentPod({ tolerations: [TOLERATE_ALL] })), /may not use team vision's pool vision .*; in all, 2 pools it may not use: vision, vision-gpu$/],
  ['fails when a DaemonSet\'s pod tolerates one team\'s taint only (it does not tolerate every taint)',
    create('monitoring', aDaemonSetPod({ tolerations: [dedicated('vision')] })), /namespace monitoring may not use team vision's pool vision/],
  ['fails when the nodeSelector asks for the pool by karpenter.sh/nodepool',
    create('web', aDeploymentPod({ nodeSelector: { 'karpenter.sh/nodepool': 'vision-gpu' } })),
    /namespace web may not use team vision's pool vision-gpu \(the pod selects it by karpenter.sh\/nodepool, karpenter.k8s.aws\/ec2nodeclass or team\)/],
  ['fails when the nodeSelector asks for the team\'s label',
    create('web', aJobPod({ nodeSelector: { team: 'vision' } })), /team vision's pool vision \(the pod selects it/],
  ['fails when a pool that is not dedicated is selected by name',
    create('web', aDeploymentPod({ nodeSelector: { 'karpenter.sh/nodepool': 'shared' } })), /team shared's pool shared \(the pod selects it/],
  ['fails when one of several node affinity terms selects the team\'s pool (Karpenter may use any term)',
    create('web', aDeploymentPod({ terms: [[nodepool('web')], [nodepool('vision-gpu')]] })), /namespace web may not use team vision's pool vision-gpu/],
  ['fails when an In expression names another team\'s pool beside the namespace\'s own',
    create('web', aDeploymentPod({ terms: [[nodepool('web', 'vision')]] })), /team vision's pool vision \(the pod selects it/],
  ['fails when a node affinity term selects the team\'s label',
    create('web', aDeploymentPod({ terms: [[{ key: 'team', operator: 'In', values: ['vision'] }, { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }]] })), /team vision's pool vision \(the pod selects it/],
  ['fails when a DaemonSet\'s pod in another namespace selects the team\'s nodes and tolerates only its taint',
    create('monitoring', aDaemonSetPod({ tolerations: [dedicated('web')], nodeSelector: { team: 'web' } })), /team web's pool web/],
  ['fails when a DaemonSet\'s pod that tolerates every taint selects the team\'s nodes',
    create('monitoring', aDaemonSetPod({ tolerations: [TOLERATE_ALL], nodeSelector: { team: 'web' } })), /team web's pool web \(the pod selects it/],
];

describe('what the policy admits', () => {
  it.each(CASES)('%s', (_, request, expected) => {
    const decision = admit(pair, request);
    if (expected === 'admitted' || expected === 'skipped') {
      expect({ outcome: decision.outcome, message: decision.message }).toEqual({ outcome: expected, message: undefined });
    } else {
      expect(decision.outcome).toBe('refused');
      expect(decision.message).toMatch(expected);
    }
  });

  it('agrees with the TypeScript rule fit uses, case by case, message included', () => {
    for (const [name, request] of CASES) {
      const { cel, typescript } = bothRules(request);
      expect({ name, typescript }).toEqual({ name, typescript: cel });
    }
  });

  it('evaluates each variable at most once per request', () => {
    for (const [, request] of CASES) {
      const { evaluated } = admit(pair, request);
      expect(evaluated).toEqual([...new Set(evaluated)]);
    }
  });
});

/** The refusal of the rendered policy (through the admission stand-in) and of the TypeScript rule, as messages. */
function bothRules(request: AdmissionRequest): { cel?: string; typescript?: string } {
  const policy = planPolicy(tenancyPlatform().clusters[0]);
  if (!policy) throw new Error('no policy');
  const refusal = tenancyRefusal(podFacts(request), policy);
  const decision = admit(pair, request);
  return { cel: decision.message?.replace(/^.*denied request: /, ''), typescript: refusal && refusalMessage(request.namespace, refusal) };
}

describe('updates', () => {
  const borrowing = aDeploymentPod({ tolerations: [dedicated('vision')] });

  it('never refuses an update that leaves tolerations, nodeSelector and affinity alone (labels, finalizers)', () => {
    const relabelled = { ...borrowing, metadata: { ...(borrowing.metadata as JsonObject), labels: { app: 'web', tier: 'front' }, finalizers: [] } };
    expect(admit(pair, { operation: 'UPDATE', namespace: 'web', object: relabelled, oldObject: borrowing }).outcome).toBe('skipped');
  });

  it('fails when an update adds a toleration of the team\'s taint', () => {
    const before = aDeploymentPod();
    const decision = admit(pair, { operation: 'UPDATE', namespace: 'web', object: borrowing, oldObject: before });
    expect(decision.outcome).toBe('refused');
    expect(decision.message).toMatch(/namespace web may not use team vision's pool vision/);
  });

  it('fails when an update adds node affinity to a gated pod', () => {
    const gated = aDeploymentPod();
    const placed = aDeploymentPod({ terms: [[nodepool('vision')]] });
    expect(admit(pair, { operation: 'UPDATE', namespace: 'web', object: placed, oldObject: gated }).outcome).toBe('refused');
  });
});

describe('the binding\'s action', () => {
  const withAction = (action: 'Warn' | 'Audit') => renderedPolicy(tenancyPlatform({ tenancyAction: action }));
  const request = create('web', aDeploymentPod({ tolerations: [dedicated('vision')] }));

  it('Warn admits a borrowing pod with a warning that says why', () => {
    const warn = withAction('Warn');
    expect(bindingShapeProblems(warn.binding)).toEqual([]);
    const decision = admit(warn, request);
    expect(decision.outcome).toBe('admitted');
    expect(decision.warnings).toEqual([expect.stringMatching(/namespace web may not use team vision's pool vision/)]);
  });

  it('Audit admits it and records it for the audit log', () => {
    const decision = admit(withAction('Audit'), request);
    expect({ outcome: decision.outcome, warnings: decision.warnings }).toEqual({ outcome: 'admitted', warnings: [] });
    expect(decision.audit).toEqual([expect.stringMatching(/team vision's pool vision/)]);
  });
});
