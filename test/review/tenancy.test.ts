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
      '      namespace research gains pools ml-gpu (team ml) — pods of this namespace may now tolerate and select these pools',
    ]);
  });

  it('reports a namespace removed, and a team newly guarded, each on its own line', async () => {
    const fleet = await Fleet.create(config(undefined, ['ml', 'research']));
    fleet.configure(config(['web'], ['ml']));
    const r = await fleet.diff();
    expect(lines(r.out, 'prod')).toEqual([
      'cluster prod: 1 access',
      '  🔐 ValidatingAdmissionPolicy karpenter-gitops-team-pools changed: changes which namespaces may use which teams\' pools; no node is replaced',
      '      namespace research loses pools ml-gpu (team ml) — new pods of this namespace that tolerate or select these pools are refused; pods already running stay until they are replaced',
      '      pool web (team web) guarded: only namespaces web, karpenter-smoke-tests — the pool was open to every namespace; pods outside these namespaces that tolerate or select it are refused from now on',
    ]);
  });

  it('fails when the last team\'s namespaces go: the policy, its binding and its Application are destructive, like a removed pool', async () => {
    const fleet = await Fleet.create(config(undefined, ['ml']));
    fleet.configure(config(undefined, undefined));
    const r = await fleet.diff('--fail-on', 'destructive');
    expect(r.code).toBe(3);
    expect(lines(r.out, 'prod')).toEqual([
      'cluster prod: 3 destructive',
      '  🛑 Application prod-policies removed: its resources finalizer deletes what it deployed (1 ValidatingAdmissionPolicy, 1 ValidatingAdmissionPolicyBinding) — the tenancy policy goes: pods of any namespace may use every team\'s pools again',
      '  🛑 ValidatingAdmissionPolicy karpenter-gitops-team-pools removed: the tenancy policy goes: pods of any namespace may use pools ml-gpu (team ml) again; Argo CD asks a person to confirm (Delete=confirm)',
      '  🛑 ValidatingAdmissionPolicyBinding karpenter-gitops-team-pools removed: the tenancy policy\'s binding goes, and the policy refuses nothing without it: pods of any namespace may use pools ml-gpu (team ml) again; Argo CD asks a person to confirm (Delete=confirm)',
    ]);
  });

  it('reports a policy added as access, and its Application', async () => {
    const fleet = await Fleet.create(config(undefined, undefined));
    fleet.configure(config(undefined, ['ml']));
    const r = await fleet.diff();
    expect(lines(r.out, 'staging')).toEqual(expect.arrayContaining([
      '  🔐 ValidatingAdmissionPolicy karpenter-gitops-team-pools added: pods that tolerate or select a team\'s pool are refused outside the team\'s namespaces: ml-gpu (team ml): ml, karpenter-smoke-tests',
      '  🔐 ValidatingAdmissionPolicyBinding karpenter-gitops-team-pools added: the tenancy policy takes effect (Deny); running pods stay, new pods are checked',
    ]));
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
      'cluster prod: 1 access',
      '  🔐 ValidatingAdmissionPolicyBinding karpenter-gitops-team-pools changed: changes which namespaces may use which teams\' pools; no node is replaced',
      '      validationActions: [Deny] -> [Audit] — what the API server does with a pod the policy refuses',
    ]);
  });
});
