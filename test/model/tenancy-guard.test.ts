/**
 * The guard digests and the guard gate's model (src/model/tenancy-guard.ts): what a team's guard
 * waits for changes exactly when what the policy judges its pools by changes.
 */
import type { Cluster, Platform } from '../../src/config/platform';
import { guardGate, guardGateRbac, GUARD_GATE_DEADLINE_SECONDS, teamGuardDigests } from '../../src/model/tenancy-guard';
import type { GuardedPool } from '../../src/model/tenancy';

/** A guarded pool of team `team`, dedicated, with the labels Karpenter puts on its nodes. */
function aGuardedPool(pool: string, team = 'web', fields: Partial<GuardedPool> = {}): GuardedPool {
  return {
    pool, team, dedicated: true,
    labels: { 'karpenter.k8s.aws/ec2nodeclass': pool, 'karpenter.sh/nodepool': pool, team },
    taints: [{ key: 'dedicated', value: team, effect: 'NoSchedule' }],
    namespaces: [team, 'karpenter-smoke-tests'],
    ...fields,
  };
}

describe('teamGuardDigests: one digest per guarded team, of what the policy judges its pools by', () => {
  const base = [aGuardedPool('web'), aGuardedPool('web-batch'), aGuardedPool('ml', 'ml')];
  const digests = teamGuardDigests(base);

  it('gives each team that has guarded pools a digest, in team order', () => {
    expect(Object.keys(digests)).toEqual(['ml', 'web']);
    expect(Object.values(digests).every((d) => /^[0-9a-f]{16}$/.test(d))).toBe(true);
    expect(digests.ml).not.toBe(digests.web);
  });

  it('is the same when only who may use the pools changes: a namespace gained or lost holds no pool', () => {
    expect(teamGuardDigests(base.map((p) => ({ ...p, namespaces: [...p.namespaces, 'web-etl'] })))).toEqual(digests);
  });

  it('is the same whatever the pools\' order, and whatever the order of a pool\'s labels', () => {
    expect(teamGuardDigests([...base].reverse())).toEqual(digests);
    expect(teamGuardDigests(base.map((p) => ({ ...p, labels: Object.fromEntries(Object.entries(p.labels).reverse()) })))).toEqual(digests);
  });

  it('changes, for that team only, with a pool added or renamed, a label, a taint, or whether a pool is dedicated', () => {
    const changed = (pools: GuardedPool[]) => teamGuardDigests(pools);
    const cases: GuardedPool[][] = [
      [...base, aGuardedPool('web-gpu')],
      [aGuardedPool('web-front'), base[1], base[2]],
      [{ ...base[0], labels: { ...base[0].labels, tier: 'front' } }, base[1], base[2]],
      [{ ...base[0], taints: [...base[0].taints, { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] }, base[1], base[2]],
      [{ ...base[0], dedicated: false, taints: [] }, base[1], base[2]],
    ];
    for (const pools of cases) expect(changed(pools)).toEqual({ ml: digests.ml, web: expect.not.stringMatching(`^${digests.web}$`) });
  });

  it('has no digest for a team without guarded pools', () => {
    expect(teamGuardDigests([])).toEqual({});
  });
});

describe('guardGate: a team\'s PreSync hook Job', () => {
  const platform = { gitops: {} } as unknown as Platform;
  const cluster = { id: 'prod', karpenter: { namespace: 'karpenter' } } as unknown as Cluster;

  it('is named after its team, in the controller\'s namespace, with its deadline, and waits for the guard it is given', () => {
    const gate = guardGate(platform, cluster, { team: 'web', digest: 'd1', parts: 3 }, 'program');
    expect(gate).toMatchObject({
      name: 'guard-gate-web', namespace: 'karpenter', team: 'web', program: 'program', serviceAccount: 'karpenter-gitops-guard-gate',
      deadlineSeconds: GUARD_GATE_DEADLINE_SECONDS, memory: '96Mi', nodeOptions: '--max-old-space-size=32 --max-semi-space-size=1',
    });
    expect(gate.spec).toEqual({
      cluster: 'prod', team: 'web', digest: 'd1', parts: 3, application: 'prod-policies',
      policySelector: 'app.kubernetes.io/managed-by=karpenter-gitops', settleSeconds: 10, pollSeconds: 5,
    });
  });

  it('keeps a long team\'s name within the 63 characters a Job\'s pods may carry as a label, and apart from another long team\'s', () => {
    const long = (suffix: string) => guardGate(platform, cluster, { team: `${'a'.repeat(55)}-${suffix}`, digest: 'd', parts: 1 }, 'p').name;
    expect(long('one').length).toBeLessThanOrEqual(63);
    expect(long('one')).toMatch(/^guard-gate-a+-[0-9a-f]{16}$/);
    expect(long('one')).not.toBe(long('two'));
  });

  it('runs as the RBAC the policies folder holds', () => {
    expect(guardGateRbac(cluster)).toEqual({ name: guardGate(platform, cluster, { team: 'web', digest: 'd', parts: 1 }, 'p').serviceAccount, namespace: 'karpenter' });
  });
});
