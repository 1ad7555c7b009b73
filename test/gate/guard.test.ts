/**
 * The guard gate's program (src/gate/guard.ts): its decision on fake API answers, then over time
 * against the API server stand-in (test/support/kube-api.ts), as the drift gate's tests do.
 */
import type { Api } from '../../src/gate/api';
import { assessGuard, bindingFacts, guardReads, GuardLook, policyFacts, POLICY_PAGE_SIZE, runGuard } from '../../src/gate/guard';
import { GUARD_RBAC_RULES, parseGuardSpec } from '../../src/gate/guard-spec';
import { DENIED_LOOKS } from '../../src/gate/look';
import type { SimObject } from '../support/karpenter';
import { KubeApiStandIn } from '../support/kube-api';
import { aBinding, aGuardSpec, aPolicy, argoAppliesGuards } from './guard-world';
import { simulateProgram } from './simulation';

const lines = (said: readonly { line: string }[]) => said.map((s) => s.line);
const copy = <T>(o: T): T => JSON.parse(JSON.stringify(o)) as T;

/** What the guard reads of these objects: every policy, and the binding of each policy named by a binding. */
function lookOf(policies: readonly SimObject[], bindings: readonly SimObject[]): GuardLook {
  return {
    policies: policies.map((p) => policyFacts(copy(p))),
    bindings: Object.fromEntries(policies.map((p) => [p.metadata.name, bindings.find((b) => b.metadata.name === p.metadata.name)]).map(([n, b]) => [n, b && bindingFacts(copy(b as SimObject))])),
  };
}

describe('assessGuard: whether a team\'s pools are guarded as this commit has them, at one look', () => {
  const spec = aGuardSpec();

  it('passes when a live policy maps the team to this commit\'s digest and has its binding', () => {
    const verdict = assessGuard(lookOf([aPolicy('team-pools', { web: 'd2', ml: 'm1' })], [aBinding('team-pools')]), spec);
    expect(verdict).toEqual({ done: true, live: ['team-pools'], waiting: [] });
  });

  it('waits while the policies carry another commit\'s digest: the policies Application has not synced this commit yet', () => {
    const verdict = assessGuard(lookOf([aPolicy('team-pools', { web: 'd1' })], [aBinding('team-pools')]), spec);
    expect(verdict.done).toBe(false);
    expect(verdict.waiting).toEqual([
      '0 of 1 policy live that guard team web\'s pools as this commit has them (digest d2): Argo CD Application prod-eu-policies delivers them',
      'policy team-pools: guards team web\'s pools as another commit has them (digest d1)',
    ]);
  });

  it('waits while no policy holds the team at all (a team guarded for the first time), or there is no policy', () => {
    expect(assessGuard(lookOf([aPolicy('team-pools', { ml: 'm1' })], [aBinding('team-pools')]), spec)).toMatchObject({ done: false, live: [] });
    expect(assessGuard(lookOf([], []), spec)).toMatchObject({ done: false, waiting: [expect.stringMatching(/^0 of 1 policy live/)] });
  });

  it('waits for a policy without its binding, with a binding of another policy, or either being deleted: a policy no binding names is never evaluated', () => {
    const policy = aPolicy('team-pools', { web: 'd2' });
    expect(assessGuard(lookOf([policy], []), spec).waiting).toContain('policy team-pools: no binding team-pools yet');
    expect(assessGuard(lookOf([policy], [aBinding('team-pools', 'other')]), spec).waiting).toContain('binding team-pools: binds policy other, not team-pools');
    const going = aBinding('team-pools');
    going.metadata.deletionTimestamp = '2026-01-02T00:00:00Z';
    expect(assessGuard(lookOf([policy], [going]), spec).waiting).toContain('binding team-pools: being deleted');
    const deleted = aPolicy('team-pools', { web: 'd2' });
    deleted.metadata.deletionTimestamp = '2026-01-02T00:00:00Z';
    expect(assessGuard(lookOf([deleted], [aBinding('team-pools')]), spec)).toMatchObject({ done: false, waiting: expect.arrayContaining(['policy team-pools: being deleted']) });
  });

  it('waits until every part is live when the team\'s pools are spread over several policies, and does not count one of another digest', () => {
    const parts = aGuardSpec({ parts: 2 });
    const a = aPolicy('team-pools-1', { web: 'd2' });
    const b = aPolicy('team-pools-2', { web: 'd1' });
    const bindings = [aBinding('team-pools-1'), aBinding('team-pools-2')];
    expect(assessGuard(lookOf([a, b], bindings), parts)).toMatchObject({ done: false, live: ['team-pools-1'], waiting: [expect.stringMatching(/^1 of 2 policies live/), expect.any(String)] });
    argoAppliesGuards(b, { web: 'd2' });
    expect(assessGuard(lookOf([a, b], bindings), parts)).toEqual({ done: true, live: ['team-pools-1', 'team-pools-2'], waiting: [] });
  });

  it('passes with more live policies than parts: a policy of the commit before that carries the same digest is as good a guard until it is pruned', () => {
    const bindings = [aBinding('old'), aBinding('new')];
    expect(assessGuard(lookOf([aPolicy('old', { web: 'd2' }), aPolicy('new', { web: 'd2' })], bindings), spec)).toMatchObject({ done: true, live: ['old', 'new'] });
  });

  it('does not count a policy whose annotation is not a JSON object of team to digest, and says why', () => {
    for (const text of ['not json', '["web"]', '{"web":2}']) {
      const verdict = assessGuard(lookOf([aPolicy('team-pools', text)], [aBinding('team-pools')]), spec);
      expect(verdict.done).toBe(false);
      expect(verdict.waiting[1]).toMatch(/^policy team-pools: annotation karpenter-gitops\.io\/guards is not (JSON|a JSON object of team to digest)/);
    }
  });

  it('reads a team called "problem" like any other (the annotation\'s keys are teams)', () => {
    expect(assessGuard(lookOf([aPolicy('team-pools', { problem: 'd2' })], [aBinding('team-pools')]), aGuardSpec({ team: 'problem' })).done).toBe(true);
  });
});

describe('parseGuardSpec: the GUARD variable', () => {
  it('reads what the model writes', () => {
    expect(parseGuardSpec(JSON.stringify(aGuardSpec()))).toEqual({ ok: true, spec: aGuardSpec() });
  });

  it('fails when it is missing, not JSON, or a field is wrong, naming each field', () => {
    expect(parseGuardSpec(undefined)).toEqual({ ok: false, problems: [expect.stringMatching(/^GUARD: not set/)] });
    expect(parseGuardSpec('{')).toEqual({ ok: false, problems: [expect.stringMatching(/^GUARD: not JSON/)] });
    expect(parseGuardSpec(JSON.stringify({ ...aGuardSpec(), parts: 0, digest: '', pollSeconds: -1 }))).toEqual({
      ok: false,
      problems: ['GUARD: digest: expected a non-empty string, got ""', 'GUARD: parts: expected a whole number above 0, got 0', 'GUARD: pollSeconds: expected a number of seconds above 0, got -1'],
    });
  });
});

describe('guardReads: what a look asks the API server', () => {
  it('is allowed by GUARD_RBAC_RULES: list the policies by label a page at a time, get a binding by name', () => {
    const r = guardReads(aGuardSpec());
    expect(r.policies.path).toBe(`/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dkarpenter-gitops&limit=${POLICY_PAGE_SIZE}`);
    expect(r.binding('team-pools').path).toBe('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/team-pools');
    const allowed = (resource: string, verb: string) => GUARD_RBAC_RULES.some((rule) => rule.apiGroups.includes('admissionregistration.k8s.io') && rule.resources.includes(resource) && rule.verbs.includes(verb));
    expect([allowed('validatingadmissionpolicies', 'list'), allowed('validatingadmissionpolicybindings', 'get')]).toEqual([true, true]);
  });
});

describe('runGuard: the guard over time, against the API server stand-in', () => {
  let api: KubeApiStandIn;
  beforeEach(async () => {
    api = await KubeApiStandIn.start();
  });
  afterEach(() => api.close());
  const simulate = (spec = aGuardSpec(), options: { horizonSeconds: number; events?: readonly [number, () => void][] } = { horizonSeconds: 600 }) => simulateProgram(runGuard, api, spec, options);

  it('passes after the settle time when the policy is live, saying so, reading with GET only, by label, a page at a time', async () => {
    api.put(aPolicy('karpenter-gitops-team-pools', { web: 'd2' }), aBinding('karpenter-gitops-team-pools'));
    const run = await simulate();
    expect(run.result).toBe(0);
    expect(run.at).toBe(10);
    expect(lines(run.out)).toEqual([
      'guard gate of team web on cluster prod-eu: waits for 1 tenancy policy (app.kubernetes.io/managed-by=karpenter-gitops) whose karpenter-gitops.io/guards maps web to d2, each with its binding; settle 10s, a look every 5s',
      'waiting (settled 0/10s): guarded by karpenter-gitops-team-pools',
      'waiting (settled 5/10s): guarded by karpenter-gitops-team-pools',
      'done: team web\'s pools are guarded by karpenter-gitops-team-pools; held 10s',
    ]);
    expect(new Set(api.requests.map((r) => r.method))).toEqual(new Set(['GET']));
  });

  it('waits while Argo CD has not applied this commit\'s policies, and passes a settle time after it has', async () => {
    const policy = aPolicy('karpenter-gitops-team-pools', { web: 'd1' });
    api.put(policy, aBinding('karpenter-gitops-team-pools'));
    const run = await simulate(aGuardSpec(), { horizonSeconds: 3600, events: [[300, () => argoAppliesGuards(policy, { web: 'd2' })]] });
    expect(run.result).toBe(0);
    expect(run.at).toBe(310);
    expect(run.out.filter((s) => s.at === 295).map((s) => s.line)).toEqual([
      'waiting: 0 of 1 policy live that guard team web\'s pools as this commit has them (digest d2): Argo CD Application prod-eu-policies delivers them; policy karpenter-gitops-team-pools: guards team web\'s pools as another commit has them (digest d1)',
    ]);
  });

  it('never passes while the policies are not there (the policies Application down), however long: its Job\'s deadline ends it', async () => {
    const run = await simulate(aGuardSpec(), { horizonSeconds: 2 * 3600 });
    expect(run.result).toBe('still waiting');
    expect(lines(run.out).filter((l) => l.startsWith('done'))).toEqual([]);
  });

  it('starts the settle time again when the policy goes mid-settle (deleted by hand), and passes once it is back', async () => {
    const policy = aPolicy('karpenter-gitops-team-pools', { web: 'd2' });
    api.put(policy, aBinding('karpenter-gitops-team-pools'));
    const run = await simulate(aGuardSpec(), {
      horizonSeconds: 3600,
      events: [[5, () => api.remove('ValidatingAdmissionPolicyBinding', 'karpenter-gitops-team-pools')], [60, () => api.put(aBinding('karpenter-gitops-team-pools'))]],
    });
    expect(run.out.filter((s) => s.at === 5).map((s) => s.line)).toEqual([expect.stringMatching(/^waiting: 0 of 1 policy live .*; policy karpenter-gitops-team-pools: no binding karpenter-gitops-team-pools yet$/)]);
    expect(run.result).toBe(0);
    expect(run.at).toBe(70);
  });

  it('lists a page at a time and follows continue, finding the team\'s policy on a later page', async () => {
    for (let i = 0; i < 2 * POLICY_PAGE_SIZE + 3; i++) api.put(aPolicy(`a-policy-${String(i).padStart(3, '0')}`, { other: 'x' }));
    api.put(aPolicy('z-web', { web: 'd2' }), aBinding('z-web'));
    const run = await simulate();
    expect(run.result).toBe(0);
    const firstLook = api.requests.filter((r) => r.url.includes('validatingadmissionpolicies?')).slice(0, 3);
    expect(firstLook.map((r) => (r.url.includes('&continue=') ? 'continue' : 'first'))).toEqual(['first', 'continue', 'continue']);
  });

  it('lists again from the first page when a continue token has expired (410 Gone)', async () => {
    for (let i = 0; i < POLICY_PAGE_SIZE + 1; i++) api.put(aPolicy(`a-policy-${String(i).padStart(3, '0')}`, { other: 'x' }));
    api.put(aPolicy('z-web', { web: 'd2' }), aBinding('z-web'));
    api.expireContinueTokensAfter(1);
    const run = await simulate();
    expect(run.result).toBe(0);
    expect(api.requests.filter((r) => r.url.includes('validatingadmissionpolicies?')).slice(0, 4).map((r) => `${r.url.includes('&continue=') ? 'continue' : 'first'} ${r.status}`))
      .toEqual(['first 200', 'continue 410', 'first 200', 'continue 200']);
  });

  it('asks again, with backoff, when the API server fails (503), and passes', async () => {
    api.put(aPolicy('karpenter-gitops-team-pools', { web: 'd2' }), aBinding('karpenter-gitops-team-pools'));
    api.script(/validatingadmissionpolicybindings/, 503);
    const run = await simulate();
    expect(run.result).toBe(0);
    expect(lines(run.out)[1]).toBe('GET /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/karpenter-gitops-team-pools: 503 Service Unavailable: the server is currently unable to handle the request; asking again in 1s (attempt 1)');
  });

  it('fails when the API server denies its reads 5 looks in a row, naming the ClusterRole and the rule', async () => {
    api.put(aPolicy('karpenter-gitops-team-pools', { web: 'd2' }), aBinding('karpenter-gitops-team-pools'));
    api.script(/validatingadmissionpolicies\?/, ...Array<number>(DENIED_LOOKS).fill(403));
    const run = await simulate();
    expect(run.result).toBe(1);
    expect(run.at).toBe((DENIED_LOOKS - 1) * 5);
    expect(lines(run.err)).toEqual([expect.stringMatching(/^error: the API server denied the guard's reads 5 looks in a row: list validatingadmissionpolicies\.admissionregistration\.k8s\.io \(403 Forbidden: .*\): check that the ClusterRole karpenter-gitops-guard-gate grants them to this Job's ServiceAccount$/)]);
  });
});

describe('runGuard: answers the API server would not give', () => {
  it('does not read a policy list without items as "no policy": it asks again', async () => {
    let lists = 0;
    const policy = aPolicy('team-pools', { web: 'd2' });
    const fake: Api = {
      get: (path) => {
        if (path.includes('validatingadmissionpolicies?')) {
          lists += 1;
          return Promise.resolve({ kind: 'ok', body: lists === 1 ? { kind: 'ValidatingAdmissionPolicyList' } : { kind: 'ValidatingAdmissionPolicyList', items: [policy] } });
        }
        return Promise.resolve({ kind: 'ok', body: aBinding('team-pools') });
      },
      close: () => undefined,
    };
    const out: string[] = [];
    let now = 0;
    const code = await runGuard(aGuardSpec(), fake, { now: () => now, sleep: (ms) => Promise.resolve(void (now += ms)), out: (l) => out.push(l), err: (l) => out.push(l) });
    expect(code).toBe(0);
    expect(out[1]).toMatch(/^GET \/apis\/admissionregistration\.k8s\.io\/v1\/validatingadmissionpolicies\?\S+: a list answer without items \(unexpected\); asking again in 1s \(attempt 1\)$/);
  });

  it('waits, and does not fail, when the API server serves no ValidatingAdmissionPolicy at all (404: Kubernetes older than 1.30)', async () => {
    const fake: Api = { get: () => Promise.resolve({ kind: 'missing' }), close: () => undefined };
    const out: string[] = [];
    let now = 0;
    const runtime = { now: () => now, sleep: (ms: number) => (now += ms) > 60_000 ? Promise.reject(new Error('horizon')) : Promise.resolve(), out: (l: string) => out.push(l), err: (l: string) => out.push(l) };
    await expect(runGuard(aGuardSpec(), fake, runtime)).rejects.toThrow('horizon');
    expect(out.at(-1)).toMatch(/^waiting: 0 of 1 policy live/);
  });
});
