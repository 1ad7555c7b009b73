import { fleetPlan, FleetPlan } from '../../src/model/plan';
import { nodePoolModel } from '../../src/model/node-pool';
import { render, synthesize } from '../../src/synth';
import { renderFile } from '../../src/output/render';
import { aCluster, aPlatform, aPool } from '../pool-builders';

const web = aPool({}, { name: 'web', team: 'web' });
const batch = aPool({}, { name: 'web-batch', team: 'web' });
const ml = aPool({}, { name: 'ml', team: 'ml', namespaces: ['ml'] });
const platform = aPlatform([
  aCluster([web, batch, ml], { id: 'prod' }),
  aCluster([web], { id: 'staging', smokeTests: false }),
], 'karpenter');

/** Every path of a plan, in the order the plan holds them. */
function paths(plan: FleetPlan): string[] {
  return [
    ...plan.clusters.flatMap((c) => [
      ...c.applications.map((a) => a.path), c.root.path, c.controllerValues.path,
      ...(c.tenancyPolicy ? [c.tenancyPolicy.path] : []), ...(c.tenancyDefinition ? [c.tenancyDefinition.path] : []),
      ...c.pools.flatMap((p) => [p.path, ...(p.smokeTest ? [p.smokeTest.path] : [])]),
      ...(c.smokeTestNamespace ? [c.smokeTestNamespace.path] : []),
    ]),
    plan.summary.path, ...plan.clusterSummaries.map((s) => s.path), plan.summaryData.path, ...plan.bootstraps.map((b) => b.path), ...plan.projects.map((p) => p.path), plan.helmRepository.path, plan.healthPatch.path,
  ];
}

describe('fleetPlan', () => {
  const plan = fleetPlan(platform);

  it('is plain data: primitives, arrays, plain objects and (instance types\' labels and resources) Maps; no construct, class or function', () => {
    const seen = new Set<unknown>();
    const odd: string[] = [];
    const walk = (v: unknown, at: string): void => {
      if (v === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof v)) return;
      if (typeof v !== 'object') { odd.push(`${at}: ${typeof v}`); return; }
      if (seen.has(v)) return;
      seen.add(v);
      if (Array.isArray(v)) { v.forEach((x, i) => walk(x, `${at}[${i}]`)); return; }
      if (v instanceof Map) { for (const [k, x] of v) walk(x, `${at}.get(${String(k)})`); return; }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) { odd.push(`${at}: ${proto?.constructor?.name}`); return; }
      for (const [k, x] of Object.entries(v)) walk(x, `${at}.${k}`);
    };
    walk(plan, 'plan');
    expect(odd).toEqual([]);
  });

  it('plans each pool in its team\'s folder, with its NodePool model and its smoke test', () => {
    const prod = plan.clusters.find((c) => c.id === 'prod')!;
    const pool = prod.pools.find((p) => p.name === 'web-batch')!;
    expect(pool).toMatchObject({ team: 'web', path: 'dist/prod/nodepools/web/web-batch.yaml', nodePool: nodePoolModel(batch) });
    expect(pool.smokeTest).toMatchObject({ path: 'dist/prod/smoke-tests/web-batch.yaml', namespace: 'karpenter-smoke-tests' });
    expect(prod.smokeTestNamespace?.path).toBe('dist/prod/smoke-tests/_namespace.yaml');
  });

  it('plans no smoke tests for a cluster without them', () => {
    const staging = plan.clusters.find((c) => c.id === 'staging')!;
    expect(staging.pools.map((p) => p.smokeTest)).toEqual([undefined]);
    expect(staging.smokeTestNamespace).toBeUndefined();
  });

  it('plans a tenancy policy only where a team lists namespaces', () => {
    expect(plan.clusters.map((c) => c.tenancyPolicy?.path)).toEqual(['dist/prod/policies/team-pools.yaml', undefined]);
  });

  it('plans the AppProject only for a project other than default', () => {
    expect(plan.projects.map((p) => p.path)).toEqual(['argocd/project.yaml']);
    expect(fleetPlan(aPlatform()).projects).toEqual([]);
  });

  it('holds how many nodes a static pool keeps: its replicas, at most limits.nodes, the ceiling\'s count too', () => {
    const facts = (replicas: number, nodes?: string) => {
      const pool = aPool({ replicas, instanceTypes: ['m7i.large'], ...(nodes !== undefined ? { limits: { nodes } } : {}) }, { name: 'ingest', team: 'ingest' });
      return fleetPlan(aPlatform([aCluster([pool])])).clusters[0].pools[0].facts;
    };
    expect(facts(4)).toMatchObject({ replicas: 4, nodes: 4, ceiling: { bound: { kind: 'replicas', replicas: 4, nodes: 4 } } });
    expect(facts(4, '2')).toMatchObject({ replicas: 4, nodes: 2, ceiling: { bound: { kind: 'replicas', replicas: 4, nodes: 2 } } });
    expect(plan.clusters[0].pools[0].facts).not.toHaveProperty('nodes');
  });

  it('names every file once', () => {
    const all = paths(plan);
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('render', () => {
  it('renders exactly the plan\'s files, and synth is fleetPlan then render', () => {
    const plan = fleetPlan(platform);
    const rendered = new Map<string, string>();
    render(plan, (f) => rendered.set(f.path, renderFile(f)));
    expect([...rendered.keys()].sort()).toEqual(paths(plan).sort());
    expect(new Map([...rendered].sort(([a], [b]) => (a < b ? -1 : 1)))).toEqual(synthesize(platform));
  });
});
