/**
 * The tenancy policy in review (issue 22): a change to a team's namespaces is its own class,
 * `access`, that says who gains or loses which pools; the policy or its binding removed is
 * destructive, like a removed pool. Fleets of prod and staging with teams web and ml.
 */
import { Plain } from '../builders';
import { aFleetConfig, Fleet, removeFleets, TEAMS } from './fleet';

afterAll(removeFleets);

const teams = TEAMS as { web: Plain; ml: Plain };
/** The fleet's teams with these namespaces (`undefined`: none). */
const withNamespaces = (web: string[] | undefined, ml: string[] | undefined): Plain => ({
  web: { ...teams.web, ...(web ? { namespaces: web } : {}) },
  ml: { ...teams.ml, ...(ml ? { namespaces: ml } : {}) },
});
const config = (web: string[] | undefined, ml: string[] | undefined, rest: Plain = {}) => aFleetConfig(['prod', 'staging'], { teams: withNamespaces(web, ml), ...rest });
const lines = (out: string, cluster: string) => {
  const all = out.split('\n');
  const start = all.indexOf(all.find((l) => l.startsWith(`cluster ${cluster}:`)) ?? '');
  return start < 0 ? [] : all.slice(start, all.indexOf('', start));
};

/** What a guard gate added says (docs/tenancy.md, "Delivery"). */
const guardGate = (team: string) => `the guard gate of team ${team}'s pools: a PreSync hook that holds every sync of them until the tenancy policy guards them as the commit has them; it runs at their next sync (a hook alone syncs nothing) and touches no node`;
/** What the guard gates' RBAC added says. */
const GUARD_RBAC = 'what the guard gates run as: it may only get and list the tenancy policies and their bindings; no effect on nodes';

describe('diff and the tenancy policy', () => {
  it('reports a namespace added to a team as access: the namespace gains the team\'s pools, in every cluster', async () => {
    const fleet = await Fleet.create(config(['web'], ['ml']));
    fleet.configure(config(['web'], ['ml', 'research']));
    const r = await fleet.diff('--fail-on', 'replaces-nodes');
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[1]).toBe('0 destructive, 0 replaces-nodes, 0 capacity, 2 access, 0 controller, 0 other');
    expect(lines(r.out, 'prod')).toEqual([
      'cluster prod: 1 access',
      '  🔐 ValidatingAdmissionPolicy karpenter-gitops-team-pools changed: changes which namespaces may use which teams\' pools; no node is replaced',
      '      namespace research gains pools ml-gpu (team ml) — objects of this namespace may now tolerate and select these pools',
    ]);
  });

  it('reports a namespace removed, and a team newly guarded, each on its own line', async () => {
    const fleet = await Fleet.create(config(undefined, ['ml', 'research']));
    fleet.configure(config(['web'], ['ml']));
    const r = await fleet.diff();
    expect(lines(r.out, 'prod')).toEqual([
      'cluster prod: 1 access, 1 other',
      '  🔐 ValidatingAdmissionPolicy karpenter-gitops-team-pools changed: changes which namespaces may use which teams\' pools; no node is replaced',
      '      namespace research loses pools ml-gpu (team ml) — new pods of this namespace that tolerate or select these pools are refused; pods already running stay until they are replaced',
      '      pool web (team web) guarded: only namespaces web, karpenter-smoke-tests — the pool was open to every namespace; pods outside these namespaces that tolerate or select it are refused from now on',
      `  📝 Job kube-system/guard-gate-web added: ${guardGate('web')}`,
    ]);
  });

  it('fails when the last team\'s namespaces go: the policies, their bindings and their Application are destructive, like a removed pool', async () => {
    const fleet = await Fleet.create(config(undefined, ['ml']));
    fleet.configure(config(undefined, undefined));
    const r = await fleet.diff('--fail-on', 'destructive');
    expect(r.code).toBe(3);
    expect(lines(r.out, 'prod')).toEqual([
      'cluster prod: 3 destructive, 4 other',
      '  🛑 Application prod-policies removed: its resources finalizer deletes what it deployed (1 ClusterRole, 1 ClusterRoleBinding, 1 ServiceAccount, 1 ValidatingAdmissionPolicy, 1 ValidatingAdmissionPolicyBinding) — the tenancy policy goes: pods of any namespace may use every team\'s pools again',
      '  🛑 ValidatingAdmissionPolicy karpenter-gitops-team-pools removed: the tenancy policy goes: pods of any namespace may use pools ml-gpu (team ml) again; Argo CD asks a person to confirm (Delete=confirm)',
      '  🛑 ValidatingAdmissionPolicyBinding karpenter-gitops-team-pools removed: the tenancy policy\'s binding goes, and the policy refuses nothing without it: pods of any namespace may use pools ml-gpu (team ml) again; Argo CD asks a person to confirm (Delete=confirm)',
      '  📝 ClusterRole karpenter-gitops-guard-gate removed: goes with the last guarded team: no guard gate runs any more; no effect on nodes',
      '  📝 ClusterRoleBinding karpenter-gitops-guard-gate removed: goes with the last guarded team: no guard gate runs any more; no effect on nodes',
      '  📝 Job kube-system/guard-gate-ml removed: team ml\'s pools are no longer held for their tenancy policy (it no longer guards them): no node is touched',
      '  📝 ServiceAccount kube-system/karpenter-gitops-guard-gate removed: goes with the last guarded team: no guard gate runs any more; no effect on nodes',
    ]);
  });

  it('reports a policy added as access, naming the pools it guards, with its binding and its Application', async () => {
    const fleet = await Fleet.create(config(undefined, undefined));
    fleet.configure(config(undefined, ['ml']));
    const r = await fleet.diff();
    expect(lines(r.out, 'staging')).toEqual([
      'cluster staging: 2 access, 5 other',
      '  🔐 ValidatingAdmissionPolicy karpenter-gitops-team-pools added: objects that would use pools ml-gpu (team ml) from outside their teams\' namespaces are refused: '
        + 'pods that tolerate or select them, DaemonSets whose pods can run there, pod templates',
      '  🔐 ValidatingAdmissionPolicyBinding karpenter-gitops-team-pools added: the tenancy policy takes effect (Deny); running pods stay, new pods, DaemonSets and pod templates are checked',
      '  📝 Application staging-policies added: Argo CD starts syncing dist/staging/policies',
      `  📝 ClusterRole karpenter-gitops-guard-gate added: ${GUARD_RBAC}`,
      `  📝 ClusterRoleBinding karpenter-gitops-guard-gate added: ${GUARD_RBAC}`,
      `  📝 Job kube-system/guard-gate-ml added: ${guardGate('ml')}`,
      `  📝 ServiceAccount kube-system/karpenter-gitops-guard-gate added: ${GUARD_RBAC}`,
    ]);
  });

  it('reports a guarded pool whose taints change as access: which pods can run on it changes', async () => {
    const fleet = await Fleet.create(config(['web'], ['ml']));
    const ml = { ...teams.ml, namespaces: ['ml'], pools: { gpu: { ...((teams.ml.pools as Plain).gpu as Plain), taints: [] } } };
    fleet.configure(aFleetConfig(['prod', 'staging'], { teams: { web: { ...teams.web, namespaces: ['web'] }, ml } }));
    const r = await fleet.diff();
    expect(r.out.split('\n')).toContain('      pool ml-gpu (team ml): the labels or taints its pods are judged by changed — what the policy checks changed: see docs/tenancy.md');
  });

  it('reports the action changed from Deny to Audit as access', async () => {
    const fleet = await Fleet.create(config(['web'], ['ml']));
    fleet.configure(config(['web'], ['ml'], { tenancy: { action: 'Audit' } }));
    const r = await fleet.diff();
    expect(lines(r.out, 'prod')).toEqual([
      'cluster prod: 2 access',
      '  🔐 ValidatingAdmissionPolicy karpenter-gitops-team-pools changed: changes which namespaces may use which teams\' pools; no node is replaced',
      '      failurePolicy: Fail -> Ignore — an object the policy cannot judge (an error, a cost limit) is admitted: Audit and Warn never refuse',
      '  🔐 ValidatingAdmissionPolicyBinding karpenter-gitops-team-pools changed: changes which namespaces may use which teams\' pools; no node is replaced',
      '      validationActions: [Deny] -> [Audit] — what the API server does with an object the policy refuses',
    ]);
  });
});

describe('a tree whose policy an earlier release wrote (its pools in its own variables)', () => {
  /**
   * The policy file as releases before TeamTenancy wrote it: the pools, teams, namespaces,
   * dedication, labels and taints as JSON literals among the policy's variables, no parameters.
   */
  const legacyPolicy = (namespaces: readonly string[]) => [
    'apiVersion: admissionregistration.k8s.io/v1',
    'kind: ValidatingAdmissionPolicy',
    'metadata:',
    '  name: karpenter-gitops-team-pools',
    'spec:',
    '  failurePolicy: Fail',
    '  variables:',
    '    - { name: pools, expression: \'["ml-gpu"]\' }',
    '    - { name: teams, expression: \'{"ml-gpu":"ml"}\' }',
    '    - { name: dedicated, expression: \'{"ml-gpu":true}\' }',
    '    - { name: labels, expression: \'{"ml-gpu":{"karpenter.k8s.aws/ec2nodeclass":"ml-gpu","karpenter.sh/nodepool":"ml-gpu","team":"ml"}}\' }',
    '    - { name: taints, expression: \'{"ml-gpu":[{"key":"dedicated","value":"ml","effect":"NoSchedule"},{"key":"nvidia.com/gpu","value":"true","effect":"NoSchedule"}]}\' }',
    `    - { name: namespaces, expression: '{"ml-gpu":${JSON.stringify(namespaces)}}' }`,
    '  validations:',
    '    - { expression: variables.borrowed.size() == 0 }',
    '---',
    'apiVersion: admissionregistration.k8s.io/v1',
    'kind: ValidatingAdmissionPolicyBinding',
    'metadata:',
    '  name: karpenter-gitops-team-pools',
    'spec:',
    '  policyName: karpenter-gitops-team-pools',
    '  validationActions: [Deny]',
    '',
  ].join('\n');

  it('says only the rules changed when the same pools move into this release\'s policies', async () => {
    const fleet = await Fleet.create(config(undefined, ['ml']));
    fleet.write('dist/prod/policies/team-pools.yaml', legacyPolicy(['ml', 'karpenter-smoke-tests']));
    fleet.commit('the policy as an earlier release wrote it');
    fleet.configure(config(undefined, ['ml']));
    const r = await fleet.diff('--fail-on', 'destructive');
    expect(r.code).toBe(0);
    expect(lines(r.out, 'prod')).toEqual([
      'cluster prod: 1 access',
      '  🔐 ValidatingAdmissionPolicy karpenter-gitops-team-pools changed: changes which namespaces may use which teams\' pools; no node is replaced',
      '      policy rules changed (CEL, match constraints or exempt namespaces) — what the policy checks changed: see docs/tenancy.md',
    ]);
  });

  it('reports the namespaces that change in the same move', async () => {
    const fleet = await Fleet.create(config(undefined, ['ml']));
    fleet.write('dist/prod/policies/team-pools.yaml', legacyPolicy(['ml', 'research', 'karpenter-smoke-tests']));
    fleet.commit('the policy as an earlier release wrote it');
    fleet.configure(config(undefined, ['ml']));
    const r = await fleet.diff();
    expect(lines(r.out, 'prod')).toContain('      namespace research loses pools ml-gpu (team ml) — new pods of this namespace that tolerate or select these pools are refused; pods already running stay until they are replaced');
  });
});

describe('a tree whose policy read TeamTenancy parameters (the release before this one)', () => {
  const paramPolicy = (namespaces: readonly string[]) => [
    'apiVersion: karpenter-gitops.io/v1', 'kind: TeamTenancy', 'metadata: { name: ml }', 'spec:', '  team: ml', `  namespaces: ${JSON.stringify(namespaces)}`,
    '  pools: [{ name: ml-gpu, dedicated: true, labels: { karpenter.k8s.aws/ec2nodeclass: ml-gpu, karpenter.sh/nodepool: ml-gpu, team: ml }, taints: [{ key: dedicated, value: ml, effect: NoSchedule }, { key: nvidia.com/gpu, value: "true", effect: NoSchedule }] }]',
    '---', 'apiVersion: admissionregistration.k8s.io/v1', 'kind: ValidatingAdmissionPolicy', 'metadata: { name: karpenter-gitops-team-pools }', 'spec:', '  failurePolicy: Fail',
    '  paramKind: { apiVersion: karpenter-gitops.io/v1, kind: TeamTenancy }', '  validations: [{ expression: "size(variables.borrowed) == 0" }]',
    '---', 'apiVersion: admissionregistration.k8s.io/v1', 'kind: ValidatingAdmissionPolicyBinding', 'metadata: { name: karpenter-gitops-team-pools }', 'spec:',
    '  policyName: karpenter-gitops-team-pools', '  paramRef: { selector: { matchLabels: { app.kubernetes.io/managed-by: karpenter-gitops } }, parameterNotFoundAction: Allow }', '  validationActions: [Deny]', '',
  ].join('\n');
  const crd = 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: { name: teamtenancies.karpenter-gitops.io }\nspec: { group: karpenter-gitops.io }\n';

  it('says the policies no longer use a parameter kind, and that nothing opens: the parameters and their CRD are replaced', async () => {
    const fleet = await Fleet.create(config(undefined, ['ml']));
    fleet.write('dist/prod/policies/team-pools.yaml', paramPolicy(['ml', 'karpenter-smoke-tests']));
    fleet.write('dist/prod/policies/team-tenancy-crd.yaml', crd);
    fleet.commit('the policy as the release before wrote it');
    fleet.configure(config(undefined, ['ml']));
    const r = await fleet.diff('--fail-on', 'destructive');
    expect(r.code).toBe(0);
    expect(lines(r.out, 'prod')).toEqual([
      'cluster prod: 2 access, 2 other',
      '  🔐 ValidatingAdmissionPolicy karpenter-gitops-team-pools changed: changes which namespaces may use which teams\' pools; no node is replaced',
      '      the policies now hold each team\'s pools themselves, with no parameter kind: an API server whose discovery lags can no longer refuse every pod — what the policy checks changed: see docs/tenancy.md',
      '  🔐 ValidatingAdmissionPolicyBinding karpenter-gitops-team-pools changed: changes which namespaces may use which teams\' pools; no node is replaced',
      '      binding changed — what the policy checks changed: see docs/tenancy.md',
      '  📝 CustomResourceDefinition teamtenancies.karpenter-gitops.io removed: replaced: the policies of this revision judge every guarded pool (see their lines)',
      '  📝 TeamTenancy ml removed: who may use pools ml-gpu (team ml) is unchanged: another object of the policy holds them',
    ]);
  });

  it('reports a namespace lost in the same move as access', async () => {
    const fleet = await Fleet.create(config(undefined, ['ml']));
    fleet.write('dist/prod/policies/team-pools.yaml', paramPolicy(['ml', 'research', 'karpenter-smoke-tests']));
    fleet.commit('the policy as the release before wrote it');
    fleet.configure(config(undefined, ['ml']));
    const r = await fleet.diff();
    expect(lines(r.out, 'prod')).toContain('  🔐 TeamTenancy ml removed: its pools are held by the policies of this revision: namespace research loses pools ml-gpu (team ml)');
  });
});
