/**
 * How drift replaces a static pool's nodes, by release and gate: Karpenter 1.14.1 launches the
 * replacement first, within limits.nodes, so a static pool with no room above replicas never has
 * a drifted node replaced (aws/karpenter-provider-aws#8873); from 1.15.0, with the
 * terminateFirstDrift gate, it deletes first and the static controller refills. The rule is held
 * to a model of Karpenter 1.14.1's StaticDrift written from its source, not to our own literals.
 */
import { driftTerminatesFirst, staticDriftProblems, StaticPoolContext } from '../../src/config/static-pools';
import type { PoolSettings } from '../../src/config/platform';
import type { FieldPath } from '../../src/input/problems';
import { aConfig, aTerraform, removeProjects } from '../builders';
import { aCluster, aKarpenter, aPool } from '../pool-builders';
import { poolPlan } from '../../src/model/plan';
import { nodes } from '../../src/model/cluster-summary';
import { aProblem, load, problemsOf } from './helpers';

afterAll(removeProjects);

/**
 * How many drifted static nodes Karpenter 1.14.1 replaces in one pass, one cluster state: the
 * pool skipped while it scales down (running + pending disruption > replicas), then as many as
 * the budget and the candidates allow, at most what ReserveNodeCount grants under limits.nodes
 * (limit - (active + deleting + pending disruption) - already reserved; 0 when negative).
 * Written from kubernetes-sigs/karpenter v1.14.1; the 1.15 gate's source was not reachable (the
 * chart's comment only), so the model has no terminate-first side.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/disruption/staticdrift.go#L64-L89
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/state/statenodepool.go#L134-L157
 */
function karpenter1141StaticDrifts(p: { replicas: number; limitNodes?: number; active: number; drifted: number; budget: number }): number {
  if (p.budget === 0) return 0;
  const nodeLimit = p.limitNodes ?? Number.MAX_SAFE_INTEGER;
  if (p.active > p.replicas) return 0;
  const maxDrifts = Math.min(p.budget, p.drifted);
  const remaining = nodeLimit - p.active;
  if (remaining < 0) return 0;
  return Math.min(maxDrifts, remaining);
}

const ctx: StaticPoolContext = {
  name: 'ingest-fixed',
  cluster: 'new',
  problem: (path: FieldPath, message: string) => ({ file: 'config/platform.yaml', line: 1, col: 1, path: path.join('.'), message }),
  levelOf: () => 0,
};

const settings = (replicas: number, nodes?: string): PoolSettings => aPool({ replicas, ...(nodes !== undefined ? { limits: { nodes } } : {}) }).settings;

describe('a static pool drifts only with room above replicas, or terminating first (1.15 gate)', () => {
  it('agrees with Karpenter 1.14.1\'s StaticDrift on every small pool: an error exactly where no drifted node is ever replaced', () => {
    for (let replicas = 1; replicas <= 5; replicas++) {
      for (const limitNodes of [undefined, 0, 1, 2, 3, 4, 5, 6, 7]) {
        // Steady state: the static controller keeps min(replicas, limit) nodes, all drifted, budget 10%.
        const active = Math.min(replicas, limitNodes ?? replicas);
        const replaced = karpenter1141StaticDrifts({ replicas, limitNodes, active, drifted: active, budget: Math.max(1, Math.floor(active / 10)) });
        const refused = staticDriftProblems(ctx, settings(replicas, limitNodes?.toString()), { version: '1.14.1' }).length > 0;
        expect({ replicas, limitNodes, refused }).toEqual({ replicas, limitNodes, refused: replaced === 0 && active > 0 });
      }
    }
  });

  it('terminates first only from 1.15.0 and only with the gate on', () => {
    expect(driftTerminatesFirst('1.14.1', { terminateFirstDrift: true })).toBe(false);
    expect(driftTerminatesFirst('1.15.0', {})).toBe(false);
    expect(driftTerminatesFirst('1.15.0', { terminateFirstDrift: false })).toBe(false);
    expect(driftTerminatesFirst('1.15.0', { terminateFirstDrift: true })).toBe(true);
    expect(driftTerminatesFirst('1.15.3', { terminateFirstDrift: true })).toBe(true);
    expect(driftTerminatesFirst('', { terminateFirstDrift: true })).toBe(false);
  });

  it('takes limits.nodes == replicas on 1.15 with terminateFirstDrift: drift deletes then refills', () => {
    expect(staticDriftProblems(ctx, settings(3, '3'), { version: '1.15.0', featureGates: { terminateFirstDrift: true } })).toEqual([]);
  });

  it('fails on 1.15 without the gate, naming the gate and the dip it brings', () => {
    const [p] = staticDriftProblems(ctx, settings(3, '3'), { version: '1.15.0', featureGates: {} });
    expect(p.path).toBe('limits.nodes');
    expect(p.message).toMatch(/^pool ingest-fixed is static \(replicas: 3\) with limits\.nodes: 3: Karpenter 1\.15\.0 .* set limits\.nodes to at least 4 .*, or set clusters\.new\.karpenter\.controller\.featureGates\.terminateFirstDrift: true \(.*one node short while each is replaced\)$/);
  });

  it('fails on 1.14.1 even with the gate set (it has no such gate), saying which release has it', () => {
    const [p] = staticDriftProblems(ctx, settings(3, '2'), { version: '1.14.1', featureGates: { terminateFirstDrift: true } });
    expect(p.message).toMatch(/limits\.nodes: 2: Karpenter 1\.14\.1 replaces a drifted static node by launching its replacement first.*aws\/karpenter-provider-aws#8873.*\(Karpenter 1\.15\.0 and later can delete first, with featureGates\.terminateFirstDrift\)$/);
  });

  it('takes no limits.nodes, or replicas: 0', () => {
    expect(staticDriftProblems(ctx, settings(3), { version: '1.14.1' })).toEqual([]);
    expect(staticDriftProblems(ctx, settings(0, '0'), { version: '1.14.1' })).toEqual([]);
  });
});

describe('the rule in the config', () => {
  const config = (version: string, nodes: string) => aConfig({
    karpenter: { version },
    clusters: { demo: undefined, new: { terraformOutputs: 'terraform/new.json' } },
    teams: { web: {}, ingest: { pools: { fixed: { replicas: 4, limits: { nodes } } } } },
  });
  const terraform = { new: aTerraform({ cluster_name: 'new' }) };

  it('fails when a static pool on 1.14.1 has limits.nodes == replicas, at limits.nodes', () => {
    expect(problemsOf({ config: config('1.14.1', '4'), terraform }))
      .toEqual(aProblem(/:\d+:\d+: teams\.ingest\.pools\.fixed\.limits\.nodes: pool ingest-fixed is static \(replicas: 4\) with limits\.nodes: 4: .*set limits\.nodes to at least 5/));
  });

  it('takes one node of room above replicas', () => {
    expect(load({ config: config('1.14.1', '5'), terraform }).platform.clusters[0].pools.find((p) => p.name === 'ingest-fixed')?.settings.limits?.nodes).toBe('5');
  });
});

describe('the plan says how far a static pool dips while drift deletes first', () => {
  const pool = (nodes: string) => aPool({ replicas: 3, instanceTypes: ['m7i.large'], limits: { nodes } }, { name: 'ingest', team: 'ingest' });
  const on = (version: string, featureGates: Record<string, boolean>, p = pool('3')) => poolPlan(aCluster([p], { karpenter: aKarpenter({ version }, { featureGates }) }), p).facts;

  it('one node fewer on 1.15 with terminateFirstDrift at limits.nodes == replicas, in the summary\'s node cell too', () => {
    const facts = on('1.15.0', { terminateFirstDrift: true });
    expect(facts).toMatchObject({ replicas: 3, nodes: 3, nodesWhileDrifting: 2 });
    expect(nodes(facts.replicas, facts.nodesWhileDrifting)).toBe('static 3, 2 while a node drifts');
  });

  it('no dip where Karpenter launches first: room above replicas, the gate off, or 1.14.1', () => {
    expect(on('1.15.0', { terminateFirstDrift: true }, pool('4')).nodesWhileDrifting).toBeUndefined();
    expect(on('1.15.0', {}).nodesWhileDrifting).toBeUndefined();
    expect(on('1.14.1', { terminateFirstDrift: true }).nodesWhileDrifting).toBeUndefined();
    expect(nodes(3)).toBe('static 3');
  });
});
