/**
 * Pools a team cannot borrow (issues 22 and 43): the generated ValidatingAdmissionPolicies,
 * rendered as synth writes them, evaluated by test/support/admission-policy.ts (the API server's
 * steps, configuration errors and CEL environment, with @bufbuild/cel) against pods as a cluster
 * holds them.
 */
import type { Platform } from '../../src/config/platform';
import { clusterApplications, CLUSTER_KINDS } from '../../src/model/applications';
import { evaluateTenancy, KIND_RESOURCES } from '../../src/fit/admission';
import { DAEMON_SET_CONTROLLER_USER } from '../../src/model/tenancy';
import { fleetPlan } from '../../src/model/plan';
import { synthesize } from '../../src/synth';
import { admitAll, AdmissionRequest, ApiServerState, bindingShapeProblems, Decision, JsonObject, PolicyPair, policyShapeProblems } from '../support/admission-policy';
import { aBarePod, aDaemonSetPod, aDeploymentPod, aJobPod, aPodTemplate, aWorkload, owner, PodToleration, RESOURCES, TOLERATE_ALL } from '../support/pods';
import { aCluster, aPlatform, aPool, planPolicy } from '../pool-builders';
import { renderedPolicy as rendered } from './tenancy-facts';

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

/** The policies and bindings synth writes for a cluster. */
function renderedPolicy(platform: Platform, cluster = 'demo'): PolicyPair[] {
  return rendered(synthesize(platform), cluster);
}

const pair = renderedPolicy(tenancyPlatform());
/** The API server's decision with the policies `pairs` in place. */
const admit = (pairs: readonly PolicyPair[], request: AdmissionRequest, state: ApiServerState = {}): Decision => admitAll(pairs, request, state);
/** A tenant's deployer: a user, not a built-in controller. */
const TENANT = 'system:serviceaccount:ledger:deployer';
const create = (namespace: string, object: JsonObject, username?: string): AdmissionRequest => ({
  operation: 'CREATE', namespace, object, resource: RESOURCES[String(object.kind) as keyof typeof RESOURCES], ...(username ? { username } : {}),
});
/** The DaemonSet controller creating a DaemonSet's pod. */
const byController = (namespace: string, pod: JsonObject) => create(namespace, pod, DAEMON_SET_CONTROLLER_USER);
const dedicated = (team: string, o: Partial<PodToleration> = {}): PodToleration => ({ key: 'dedicated', operator: 'Equal', value: team, effect: 'NoSchedule', ...o });
const nodepool = (...values: string[]) => ({ key: 'karpenter.sh/nodepool', operator: 'In', values });

describe('the policies and their bindings', () => {
  it('are admissionregistration.k8s.io/v1 objects with every field the API server requires, and no parameter kind', () => {
    for (const { policy, binding } of pair) {
      expect(policyShapeProblems(policy)).toEqual([]);
      expect(bindingShapeProblems(binding)).toEqual([]);
      expect((policy.spec as JsonObject).paramKind).toBeUndefined();
      expect(binding.spec).toEqual({ policyName: (policy.metadata as JsonObject).name, validationActions: ['Deny'] });
      expect((policy.metadata as JsonObject).name).toMatch(/^karpenter-gitops-team-pools-[0-9a-f]{10}$/);
    }
  });

  it('match pods and every object pods are made from, on CREATE and UPDATE, outside kube-system and Karpenter\'s namespace, fail closed under Deny', () => {
    expect(pair[0].policy.spec).toMatchObject({
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods', 'podtemplates', 'replicationcontrollers'] },
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['daemonsets', 'deployments', 'replicasets', 'statefulsets'] },
          { apiGroups: ['batch'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['jobs', 'cronjobs'] },
        ],
        namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
      },
    });
  });

  it('are created before anything else of their Application and pruned after everything (PruneLast): a replaced part goes only once its successor is in place', () => {
    const annotations = (o: JsonObject) => (o.metadata as JsonObject).annotations as Record<string, string>;
    for (const { policy, binding } of pair) {
      for (const o of [policy, binding]) expect(annotations(o)['argocd.argoproj.io/sync-options']).toBe('PruneLast=true,Delete=confirm');
      expect([annotations(policy)['argocd.argoproj.io/sync-wave'], annotations(binding)['argocd.argoproj.io/sync-wave']]).toEqual(['-2', '-1']);
    }
  });

  it('hold each pool as literal data: its team, who may use it, what its nodes carry', () => {
    const policy = planPolicy(tenancyPlatform().clusters[0]);
    const data = Object.fromEntries(((pair[0].policy.spec as JsonObject).variables as JsonObject[]).slice(0, 4).map((v) => [v.name, JSON.parse(String(v.expression)) as unknown]));
    expect(data).toEqual({
      pools: ['vision', 'vision-gpu', 'web', 'shared'],
      teams: { vision: 'vision', 'vision-gpu': 'vision', web: 'web', shared: 'shared' },
      namespaces: { vision: ['vision', 'vision-batch', 'karpenter-smoke-tests'], web: ['web', 'karpenter-smoke-tests'], shared: ['shared', 'karpenter-smoke-tests'] },
      dedicated: { vision: true, 'vision-gpu': true, web: true, shared: false },
    });
    expect(policy?.parts.length).toBe(1);
  });

  it('are renamed, not changed in place, when what they hold changes: a namespace granted is a new part', () => {
    const granted = renderedPolicy(aPlatform([aCluster([aPool({}, { name: 'vision', team: 'vision', namespaces: ['vision', 'vision-batch', 'ledger'] })])]));
    const before = renderedPolicy(aPlatform([aCluster([aPool({}, { name: 'vision', team: 'vision', namespaces: ['vision', 'vision-batch'] })])]));
    expect((granted[0].policy.metadata as JsonObject).name).not.toEqual((before[0].policy.metadata as JsonObject).name);
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
    const spec = renderedPolicy({ ...platform, clusters: [cluster] })[0].policy.spec as JsonObject;
    expect(JSON.stringify(spec.matchConstraints)).toContain('["karpenter","kube-system"]');
  });

  it('is written, with its Application, only for a cluster where a team lists namespaces', () => {
    const none = aPlatform([aCluster([aPool({}, { name: 'web', team: 'web' })])]);
    expect([...synthesize(none).keys()].filter((f) => f.includes('polic'))).toEqual([]);
    expect(clusterApplications(none, none.clusters[0]).map((a) => a.file)).not.toContain('policies');
  });

  it('is summed up on the cluster\'s page (dist/<cluster>/SUMMARY.md): who may use each team\'s pools, the teams left open and the namespaces never judged', () => {
    expect(fleetPlan(tenancyPlatform({ tenancyAction: 'Audit', tenancyExemptNamespaces: ['monitoring'] })).clusterSummaries[0].model.split('\n')).toContain(
      'Tenancy (Audit): team vision\'s pools for namespaces `vision`, `vision-batch`, `karpenter-smoke-tests`; team web\'s pools for namespaces `web`, `karpenter-smoke-tests`; '
      + 'team shared\'s pools for namespaces `shared`, `karpenter-smoke-tests`; open to every namespace: team legacy; never judged (may use every pool): `kube-system`, `monitoring`.',
    );
  });

  it('never looks at the namespaces tenancy.exemptNamespaces names, beside kube-system and Karpenter\'s', () => {
    const exempt = renderedPolicy(tenancyPlatform({ tenancyExemptNamespaces: ['monitoring', 'logging'] }));
    expect(JSON.stringify((exempt[0].policy.spec as JsonObject).matchConstraints)).toContain('["kube-system","logging","monitoring"]');
    expect(admit(exempt, create('monitoring', aWorkload('DaemonSet', { tolerations: [TOLERATE_ALL] }))).outcome).toBe('skipped');
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
  ['admits the DaemonSet controller\'s pod that tolerates every taint, in any namespace (judged through its DaemonSet)',
    byController('monitoring', aDaemonSetPod({ tolerations: [TOLERATE_ALL] })), 'admitted'],
  ['admits a team\'s DaemonSet confined to its pools by a nodeSelector, whatever it tolerates',
    create('web', aWorkload('DaemonSet', { tolerations: [TOLERATE_ALL], nodeSelector: { team: 'web' } })), 'admitted'],
  ['admits a team\'s DaemonSet confined by required node affinity to its pool',
    create('vision', aWorkload('DaemonSet', { tolerations: [TOLERATE_ALL], terms: [[nodepool('vision', 'vision-gpu')]] })), 'admitted'],
  ['admits a DaemonSet that tolerates no team\'s taint and selects nothing, where no guarded pool is open (shared is not dedicated)',
    create('web', aWorkload('DaemonSet', { nodeSelector: { 'kubernetes.io/arch': 'amd64' }, terms: [[{ key: 'team', operator: 'NotIn', values: ['shared'] }]] })), 'admitted'],
  ['admits a team\'s Deployment whose pod template tolerates and selects its own pool',
    create('vision', aWorkload('Deployment', { tolerations: [dedicated('vision')], nodeSelector: { 'karpenter.sh/nodepool': 'vision' } })), 'admitted'],
  ['admits a team\'s PodTemplate for a CapacityBuffer on its own pool',
    create('web', aPodTemplate({ tolerations: [dedicated('web')], nodeSelector: { 'karpenter.sh/nodepool': 'web' } })), 'admitted'],
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
    /^pods "web-7d9c5b6f4-x2k8p" is forbidden: ValidatingAdmissionPolicy 'karpenter-gitops-team-pools-[0-9a-f]{10}' with binding 'karpenter-gitops-team-pools-[0-9a-f]{10}' denied request: namespace web may not use team vision's pool vision \(the pod tolerates its taint dedicated=vision:NoSchedule\): only pods of namespaces vision, vision-batch, karpenter-smoke-tests may$/],
  ['fails when the pod also tolerates the other taints of the team\'s second pool, naming both',
    create('web', aDeploymentPod({ tolerations: [dedicated('vision'), { key: 'nvidia.com/gpu', operator: 'Exists' }] })), /; in all, 2 pools it may not use: vision, vision-gpu$/],
  ['fails when a toleration without an operator (Equal) and without an effect tolerates the team\'s taint',
    create('web', aDeploymentPod({ tolerations: [{ key: 'dedicated', value: 'vision' }] })), /team vision's pool vision \(the pod tolerates/],
  ['fails when a Job\'s pod tolerates every team\'s taint (Exists on the key)',
    create('vision', aJobPod({ tolerations: [{ key: 'dedicated', operator: 'Exists' }] })),
    /namespace vision may not use team web's pool web \(the pod tolerates its taint dedicated=web:NoSchedule\): only pods of namespaces web, karpenter-smoke-tests may$/],
  ['fails when a pod that no DaemonSet owns tolerates every taint (key-less Exists)',
    create('vision', aBarePod({ tolerations: [TOLERATE_ALL] })), /may not use team web's pool web/],
  ['fails when anyone but a built-in controller creates a pod with a controller reference, by the DaemonSet rule: it may run on a pool that is not dedicated',
    create('monitoring', aBarePod({}, [owner('apps/v1', 'DaemonSet', 'decoy')]), TENANT),
    /namespace monitoring may not use team shared's pool shared \(the pod, whose controller reference Karpenter may take for a DaemonSet's, can run on its nodes/],
  ['fails when a pod with a forged DaemonSet owner tolerates everything (the pod of issue 35): ownerReferences exempt nothing',
    create('web', aDaemonSetPod({ tolerations: [TOLERATE_ALL] }), TENANT), /whose controller reference Karpenter may take for a DaemonSet's, can run on its nodes.*in all, 3 pools it may not use: vision, vision-gpu, shared/],
  ['fails when the reference is apps/v1beta2 or any other kind: Karpenter matches by UID alone',
    create('web', aBarePod({ tolerations: [dedicated('vision')] }, [owner('apps/v1beta2', 'DaemonSet', 'decoy')]), TENANT), /team vision's pool vision \(the pod, whose controller reference/],
  ['fails when a Job\'s template tolerates another team\'s taint: refused when applied, not pod by pod',
    create('web', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'etl' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never', tolerations: [dedicated('vision')] } } } }, TENANT),
    /namespace web may not use team vision's pool vision \(the Job's pod template tolerates its taint dedicated=vision:NoSchedule\)/],
  ['fails when a CronJob\'s job template selects another team\'s pool',
    create('web', { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'etl' }, spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never', nodeSelector: { 'karpenter.sh/nodepool': 'vision' } } } } } } }, TENANT),
    /team vision's pool vision \(the CronJob's pod template selects it/],
  ['fails when a ReplicationController\'s template tolerates another team\'s taint',
    create('web', { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'old' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }], tolerations: [dedicated('vision')] } } } }, TENANT),
    /team vision's pool vision \(the ReplicationController's pod template tolerates/],
  ['admits a CronJob confined to its team\'s pool',
    create('web', { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'etl' }, spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never', tolerations: [dedicated('web')], nodeSelector: { team: 'web' } } } } } } }, TENANT),
    'admitted'],
  ['admits a pod an operator gives a controller reference when its nodeSelector and tolerations keep it to its namespace\'s pools',
    create('web', aBarePod({ tolerations: [dedicated('web')], nodeSelector: { team: 'web' } }, [owner('spark.example/v1', 'SparkApplication', 'job')]), TENANT), 'admitted'],
  ['fails when a Deployment\'s pod tolerates every taint, even in a namespace of a team',
    create('web', aDeploymentPod({ tolerations: [TOLERATE_ALL] })), /may not use team vision's pool vision .*; in all, 2 pools it may not use: vision, vision-gpu$/],
  ['fails when a DaemonSet tolerates every taint outside the exempt namespaces: Karpenter sizes every pool\'s nodes for it',
    create('monitoring', aWorkload('DaemonSet', { tolerations: [TOLERATE_ALL] })),
    /namespace monitoring may not use team vision's pool vision \(the DaemonSet's pods can run on its nodes, and Karpenter adds their requests to every node of the pool\): only pods of namespaces vision, vision-batch, karpenter-smoke-tests may; in all, 4 pools it may not use: vision, vision-gpu, web, shared \(confine it to the namespace's pools with a nodeSelector, or run it in an exempt namespace\)$/],
  ['fails when a team\'s DaemonSet selects nothing and a guarded pool of another team is not dedicated (its pods can run there)',
    create('web', aWorkload('DaemonSet', {})), /namespace web may not use team shared's pool shared \(the DaemonSet's pods can run on its nodes/],
  ['fails when a DaemonSet tolerates one team\'s taint only',
    create('monitoring', aWorkload('DaemonSet', { tolerations: [dedicated('vision')], nodeSelector: { team: 'vision' } })), /namespace monitoring may not use team vision's pool vision \(the DaemonSet's pods/],
  ['fails when a Deployment\'s pod template tolerates another team\'s taint: a CapacityBuffer would make Karpenter launch its nodes',
    create('web', aWorkload('Deployment', { tolerations: [dedicated('vision')] })), /namespace web may not use team vision's pool vision \(the Deployment's pod template tolerates its taint dedicated=vision:NoSchedule\)/],
  ['fails when a StatefulSet\'s pod template selects another team\'s pool',
    create('web', aWorkload('StatefulSet', { nodeSelector: { 'karpenter.sh/nodepool': 'vision-gpu' } })), /team vision's pool vision-gpu \(the StatefulSet's pod template selects it/],
  ['fails when a PodTemplate for a CapacityBuffer tolerates another team\'s taint',
    create('web', aPodTemplate({ tolerations: [dedicated('vision')] })), /team vision's pool vision \(the PodTemplate's pod template tolerates its taint/],
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
  ['fails when a bare pod in another namespace selects the team\'s nodes and tolerates only its taint',
    create('monitoring', aBarePod({ tolerations: [dedicated('web')], nodeSelector: { team: 'web' } })), /team web's pool web/],
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

  it('agrees with the evaluator fit and the review run on the same policies, case by case, message included', () => {
    const policy = planPolicy(tenancyPlatform().clusters[0]);
    if (!policy) throw new Error('no policy');
    for (const [name, request] of CASES) {
      const fit = evaluateTenancy(policy, {
        operation: request.operation === 'UPDATE' ? 'UPDATE' : 'CREATE', namespace: request.namespace, object: request.object ?? {}, oldObject: request.oldObject ?? null,
        resource: KIND_RESOURCES[String(request.object?.kind)], username: request.username ?? 'system:serviceaccount:kube-system:replicaset-controller',
      }).flatMap((v) => v.refusals)[0];
      expect({ name, fit }).toEqual({ name, fit: admit(pair, request).message?.replace(/^.*denied request: /, '') });
    }
  });

  it('evaluates each variable at most once per request and policy', () => {
    for (const [, request] of CASES) {
      const { evaluated } = admit(pair, request);
      expect(evaluated).toEqual([...new Set(evaluated)]);
    }
  });
});

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
    expect(warn.flatMap((w) => bindingShapeProblems(w.binding))).toEqual([]);
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

describe('what the API server does when it is restarted, lagging or short of budget', () => {
  const request = create('web', aDeploymentPod({ tolerations: [dedicated('vision')] }));
  const innocent = create('web', aDeploymentPod({ tolerations: [dedicated('web')], nodeSelector: { team: 'web' } }));
  /** The shape of the release before (issue 35): one policy reading each team's data from a TeamTenancy parameter, failing closed. */
  const withParamKind: PolicyPair = {
    policy: { ...pair[0].policy, spec: { ...(pair[0].policy.spec as JsonObject), paramKind: { apiVersion: 'karpenter-gitops.io/v1', kind: 'TeamTenancy' } } },
    binding: { ...pair[0].binding, spec: { ...(pair[0].binding.spec as JsonObject), paramRef: { selector: {}, parameterNotFoundAction: 'Allow' } } },
    params: [],
  };
  const lagging: ApiServerState = { unresolvedParamKinds: ['karpenter-gitops.io/v1/TeamTenancy'] };

  it('fails on a policy with a parameter kind while discovery lags: every pod is refused, the innocent included (the shape this release leaves)', () => {
    expect(admit([withParamKind], innocent, lagging).outcome).toBe('refused');
  });

  it('judges by its own literals, so a lagging discovery changes nothing: the innocent is admitted, the borrower refused', () => {
    expect(admit(pair, innocent, lagging).outcome).toBe('admitted');
    expect(admit(pair, request, lagging).outcome).toBe('refused');
  });

  it.each(['Warn', 'Audit'] as const)('never refuses under %s: a configuration error or a failed evaluation is ignored (failurePolicy Ignore)', (action) => {
    const soft = renderedPolicy(tenancyPlatform({ tenancyAction: action }));
    for (const { policy } of soft) expect((policy.spec as JsonObject).failurePolicy).toBe('Ignore');
    expect(admit(soft, request, { namespaceLookupFails: true }).outcome).not.toBe('refused');
    expect(admit(soft, request).outcome).toBe('admitted');
    // The same configuration error under Deny refuses (fail closed), as dispatcher.go's addConfigError does.
    expect(admit(pair, innocent, { namespaceLookupFails: true }).outcome).toBe('refused');
  });

  it('records only the first failure of a request for the audit log (Kubernetes 1.34)', () => {
    const audit = renderedPolicy(tenancyPlatform({ tenancyAction: 'Audit' }));
    const twice = create('web', aDeploymentPod({ tolerations: [TOLERATE_ALL] }));
    expect(admit(audit, twice).audit).toHaveLength(1);
  });
});

describe('who creates it', () => {
  const DS_OWNER = { ...owner('apps/v1', 'DaemonSet', 'agent'), uid: 'c0ffee' };
  const withOwners = (pod: JsonObject, owners: object[]) => ({ ...pod, metadata: { ...(pod.metadata as JsonObject), ownerReferences: owners } });

  it('admits the DaemonSet controller releasing or re-labelling its own pods: only adoption is judged', () => {
    const agent = withOwners(aBarePod({ tolerations: [TOLERATE_ALL] }), [DS_OWNER]);
    const released = withOwners(agent, []);
    expect(admit(pair, { operation: 'UPDATE', namespace: 'web', object: released, oldObject: agent, username: DAEMON_SET_CONTROLLER_USER }).outcome).toBe('admitted');
  });

  it('admits the DaemonSet controller adopting an orphan confined to the namespace\'s pools by its nodeSelector', () => {
    const orphan = aBarePod({ tolerations: [TOLERATE_ALL], nodeSelector: { team: 'web' } });
    const adopted = withOwners(orphan, [DS_OWNER]);
    expect(admit(pair, { operation: 'UPDATE', namespace: 'web', object: adopted, oldObject: orphan, username: DAEMON_SET_CONTROLLER_USER }).outcome).toBe('admitted');
  });

  it('fails when the DaemonSet controller adopts an orphan confined by node affinity only: Karpenter may replace it with the DaemonSet\'s', () => {
    const orphan = aBarePod({ tolerations: [TOLERATE_ALL], terms: [[nodepool('web')]] });
    const d = admit(pair, { operation: 'UPDATE', namespace: 'web', object: withOwners(orphan, [DS_OWNER]), oldObject: orphan, username: DAEMON_SET_CONTROLLER_USER });
    expect(d.message).toMatch(/namespace web may not use team vision's pool vision \(the pod the DaemonSet controller adopts can run on its nodes/);
  });

  it('judges a pod owned by a DaemonSet without being its controller as any pod', () => {
    const notController = withOwners(aBarePod({ tolerations: [TOLERATE_ALL] }), [{ ...DS_OWNER, controller: false }]);
    expect(admit(pair, create('web', notController, TENANT)).message).toMatch(/namespace web may not use team vision's pool vision \(the pod tolerates/);
  });
});
