import { fleetPlan, FleetPlan } from '../../src/model/plan';
import { nodePoolModel } from '../../src/model/node-pool';
import { render, synthesize } from '../../src/synth';
import { renderFile } from '../../src/output/render';
import { withWindowBudgets } from '../../src/schedule/windows';
import { aCluster, aPlatform, aPool } from '../pool-builders';

const web = aPool({}, { name: 'web', team: 'web' });
const batch = aPool({}, { name: 'web-batch', team: 'web' });
const ml = aPool({}, { name: 'ml', team: 'ml', namespaces: ['ml'] });
const nights = { name: 'nights', timeZone: 'UTC', days: ['mon' as const], start: '22:00', duration: '6h' };
const savings = { name: 'savings', requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In' as const, values: ['m7i'] }], priceAdjustment: '-28%' };
const webBuffer = { team: 'web', pool: 'web', namespace: 'web-buffer', replicas: 2, cpu: '2', memory: '4Gi' };
/**
 * A fleet that plans every kind of file: prod (stage 2) has a window (its pool project), an
 * overlay, a buffer, a tenancy policy and smoke tests; staging (stage 1) has a later stage waiting
 * for it (its drift gate) and no smoke tests; the project is not `default` (argocd/project.yaml).
 */
const prodCluster = aCluster([web, batch, ml], { id: 'prod', stage: 2, window: nights, overlays: [savings], buffers: [webBuffer] });
const platform = aPlatform([
  prodCluster,
  aCluster([web], { id: 'staging', stage: 1, smokeTests: false }),
], 'karpenter');

/** One planned file: the plan field that holds it (`clusters[].buffers[]`), its path, and the cluster whose plan holds it. */
interface PlannedFile {
  readonly kind: string;
  readonly path: string;
  readonly cluster?: string;
}

/**
 * Every file of a plan, found by walking the plan itself (every object with a string `path`,
 * outside the file's `model`): a new field that plans a file shows up here without anyone
 * listing it, so {@link LAYOUT} must say where it goes or the tests below fail.
 */
function plannedFiles(plan: FleetPlan): PlannedFile[] {
  const files: PlannedFile[] = [];
  const walk = (v: unknown, kind: string, cluster: string | undefined): void => {
    if (typeof v !== 'object' || v === null || v instanceof Map) return;
    if (Array.isArray(v)) { v.forEach((x) => walk(x, `${kind}[]`, cluster)); return; }
    const entries = Object.entries(v);
    const path = entries.find(([k]) => k === 'path')?.[1];
    if (typeof path === 'string') files.push({ kind, path, ...(cluster !== undefined ? { cluster } : {}) });
    const id = kind === 'clusters[]' ? (v as { id: string }).id : cluster;
    // A file's model holds paths of its own (an Application's source path), which are not files of the plan.
    for (const [k, x] of entries) if (k !== 'model') walk(x, kind ? `${kind}.${k}` : k, id);
  };
  walk(plan, '', undefined);
  return files;
}

/**
 * Where each kind of planned file goes, written from the contract (CONTRACT.md sections 4, 5.2,
 * 6: pools per team, overlays in `dist/<cluster>/overlays/`, buffers with their team's pools) and
 * docs/architecture.md, not from src/output/layout.ts. Group `cluster` must be the cluster whose
 * plan holds the file.
 */
const LAYOUT: Readonly<Record<string, RegExp>> = {
  'clusters[].applications[]': /^dist\/(?<cluster>[a-z0-9-]+)\/apps\/(karpenter-crd|karpenter|policies|pools-[a-z0-9-]+|overlays|drift-gate|karpenter-smoke-tests|karpenter-nodepools)\.yaml$/,
  'clusters[].root': /^argocd\/(?<cluster>[a-z0-9-]+)\.yaml$/,
  'clusters[].controllerValues': /^dist\/(?<cluster>[a-z0-9-]+)\/karpenter\/values\.yaml$/,
  'clusters[].tenancyPolicy': /^dist\/(?<cluster>[a-z0-9-]+)\/policies\/team-pools\.yaml$/,
  'clusters[].guardGateRbac': /^dist\/(?<cluster>[a-z0-9-]+)\/policies\/guard-gate\.yaml$/,
  'clusters[].guardGates[]': /^dist\/(?<cluster>[a-z0-9-]+)\/nodepools\/[a-z0-9-]+\/_guard-gate\.yaml$/,
  'clusters[].pools[]': /^dist\/(?<cluster>[a-z0-9-]+)\/nodepools\/[a-z0-9-]+\/[a-z0-9-]+\.yaml$/,
  'clusters[].pools[].smokeTest': /^dist\/(?<cluster>[a-z0-9-]+)\/smoke-tests\/[a-z0-9-]+\.yaml$/,
  'clusters[].buffers[]': /^dist\/(?<cluster>[a-z0-9-]+)\/nodepools\/[a-z0-9-]+\/_buffer\.yaml$/,
  'clusters[].overlays[]': /^dist\/(?<cluster>[a-z0-9-]+)\/overlays\/[a-z0-9-]+\.yaml$/,
  'clusters[].smokeTestNamespace': /^dist\/(?<cluster>[a-z0-9-]+)\/smoke-tests\/_namespace\.yaml$/,
  'clusters[].driftGate': /^dist\/(?<cluster>[a-z0-9-]+)\/drift-gate\/gate\.yaml$/,
  'clusters[].driftGateProgram': /^dist\/(?<cluster>[a-z0-9-]+)\/drift-gate\/program\.yaml$/,
  'clusters[].poolProject': /^dist\/(?<cluster>[a-z0-9-]+)\/apps\/project\.yaml$/,
  'bootstraps[]': /^argocd\/bootstrap(\.[a-z0-9-]+)?\.yaml$/,
  'projects[]': /^argocd\/project(\.[a-z0-9-]+)?\.yaml$/,
  'helmRepository': /^argocd\/helm-repository\.yaml$/,
  'healthPatch': /^argocd\/argocd-cm-patch\.yaml$/,
  'summary': /^dist\/SUMMARY\.md$/,
  'clusterSummaries[]': /^dist\/(?<cluster>[a-z0-9-]+)\/SUMMARY\.md$/,
  'clusterSummaryData[]': /^dist\/(?<cluster>[a-z0-9-]+)\/summary\.json$/,
  'summaryData': /^dist\/summary\.json$/,
};

/** Every path of a plan. */
function paths(plan: FleetPlan): string[] {
  return plannedFiles(plan).map((f) => f.path);
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
    expect(pool).toMatchObject({ team: 'web', path: 'dist/prod/nodepools/web/web-batch.yaml', nodePool: withWindowBudgets(nodePoolModel(batch), prodCluster) });
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

  it('plans every kind of file where the contract puts it, in the folder of the cluster that holds it', () => {
    const files = plannedFiles(plan);
    // A kind the plan holds and LAYOUT does not know fails here: say where the new file goes.
    expect([...new Set(files.map((f) => f.kind))].sort()).toEqual(Object.keys(LAYOUT).sort());
    const misplaced = files.flatMap((f) => {
      const match = LAYOUT[f.kind].exec(f.path);
      // clusterSummaries and clusterSummaryData sit outside clusters[]: their cluster is the one their path names, which must be a cluster of the plan.
      const outside = f.kind === 'clusterSummaries[]' || f.kind === 'clusterSummaryData[]';
      const owner = f.cluster ?? (outside ? plan.clusters.find((c) => c.id === match?.groups?.cluster)?.id : undefined);
      if (!match) return [`${f.kind}: ${f.path} is not where the contract puts it`];
      if (match.groups?.cluster !== owner) return [`${f.kind}: ${f.path} is not in the folder of its cluster ${owner}`];
      return [];
    });
    expect(misplaced).toEqual([]);
  });

  it('plans a pool in its team\'s folder, a buffer beside its team\'s pools, an overlay under its own name', () => {
    const prod = plan.clusters.find((c) => c.id === 'prod')!;
    expect(prod.pools.map((p) => p.path)).toEqual(['dist/prod/nodepools/web/web.yaml', 'dist/prod/nodepools/web/web-batch.yaml', 'dist/prod/nodepools/ml/ml.yaml']);
    expect(prod.buffers.map((b) => b.path)).toEqual(['dist/prod/nodepools/web/_buffer.yaml']);
    expect(prod.overlays.map((o) => o.path)).toEqual(['dist/prod/overlays/savings.yaml']);
    expect(prod.poolProject?.path).toBe('dist/prod/apps/project.yaml');
    expect(plan.clusters.map((c) => c.driftGate?.path)).toEqual([undefined, 'dist/staging/drift-gate/gate.yaml']);
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
