/**
 * Issue 20, newer Karpenter features (docs/newer-features.md): static pools (`replicas`,
 * gate StaticCapacity) and Balanced consolidation, in a fleet of two clusters on different
 * releases (old on 1.13.1, new on 1.14.1), checked end to end: config, the output against the
 * real CRDs of each cluster's release, and the controller's feature gates.
 */
import { parseAllDocuments } from 'yaml';
import { loadPlatform } from '../src/config/load';
import { synthesize } from '../src/synth';
import { aConfig, aTerraform, Overrides, removeProjects, writeProject } from './builders';
import { validateFor } from './support/crd-validator';
import { aProblem, problemsOf } from './config/helpers';
import { explainPool } from '../src/explain/explain';
import { fleetPlan, poolPlan } from '../src/model/plan';
import type { Cluster, Pool } from '../src/config/platform';

/**
 * Prices the figures below are worked from by hand: us-east-1 on-demand $/hour of Karpenter
 * 1.14.1's price list as vendored (test/fixtures/karpenter-release/pkg/providers/pricing/
 * zz_generated.pricing_aws.go l. 335-336): m7i.large 0.100800, m7i.xlarge 0.201600.
 */
/** A pool's ceiling as the plan derives it. */
const ceilingOf = (cluster: Cluster, pool: Pool) => poolPlan(cluster, pool).facts.ceiling.perHour ?? NaN;
import { karpenterCatalog } from '../src/catalog/catalog';
import { catalogMatcher, priceRange } from '../src/catalog/match';
import { applyOverlays } from '../src/catalog/overlays';
import { aContainer, aPodSpec, podOf } from './fit/builders';
import { fitWorkloads } from '../src/fit/placement';
import { aCluster, aPlatform, aPool } from './pool-builders';

afterAll(removeProjects);

type Doc = { apiVersion: string; kind: string; metadata: { name: string }; spec: any; settings?: any };

/** Two clusters: old runs 1.13.1, new runs 1.14.1; `newTeams` are the teams only new runs. */
function fleetConfig(overrides: Overrides = {}): Overrides {
  return aConfig({
    karpenter: { version: '1.14.1' },
    clusters: {
      demo: undefined,
      old: { terraformOutputs: 'terraform/old.json', karpenter: { version: '1.13.1' }, teams: ['web'] },
      new: { terraformOutputs: 'terraform/new.json' },
    },
    ...overrides,
  });
}

const terraform = { old: aTerraform({ cluster_name: 'old' }), new: aTerraform({ cluster_name: 'new' }) };

function synth(config: Overrides): ReadonlyMap<string, string> {
  const { platform } = loadPlatform(writeProject({ config, terraform }).configPath);
  return synthesize(platform);
}

function docs(files: ReadonlyMap<string, string>, path: string): Doc[] {
  const text = files.get(path);
  if (text === undefined) throw new Error(`no ${path} in ${[...files.keys()].join(', ')}`);
  return parseAllDocuments(text).map((d) => d.toJS() as Doc);
}

function nodePool(files: ReadonlyMap<string, string>, cluster: string, team: string, name: string): Doc {
  const found = docs(files, `dist/${cluster}/nodepools/${team}/${name}.yaml`).find((d) => d.kind === 'NodePool' && d.metadata.name === name);
  if (!found) throw new Error(`no NodePool ${name}`);
  return found;
}

function gates(files: ReadonlyMap<string, string>, cluster: string): Record<string, boolean> | undefined {
  return (docs(files, `dist/${cluster}/karpenter/values.yaml`)[0] as unknown as { settings: { featureGates?: Record<string, boolean> } }).settings.featureGates;
}

const staticTeam = { ingest: { pools: { fixed: { replicas: 4, limits: { nodes: '6' } } }, disruption: { consolidationPolicy: 'Balanced' } } };

describe('a static pool and a Balanced pool', () => {
  const files = synth(fleetConfig({ teams: { web: {}, ...staticTeam } }));

  it('renders replicas and Balanced, and both pass the 1.14.1 NodePool CRD', () => {
    const fixed = nodePool(files, 'new', 'ingest', 'ingest-fixed');
    expect(fixed.spec.replicas).toBe(4);
    expect(fixed.spec.limits).toEqual({ nodes: '6' });
    expect(fixed.spec.weight).toBeUndefined();
    // defaults' cpu and memory limits are left out: a pool cannot unset what it inherits
    const balanced = nodePool(files, 'new', 'ingest', 'ingest');
    expect(balanced.spec.disruption.consolidationPolicy).toBe('Balanced');
    expect(balanced.spec.replicas).toBeUndefined();
    expect(validateFor('1.14.1', fixed)).toEqual([]);
    expect(validateFor('1.14.1', balanced)).toEqual([]);
  });

  it('turns on StaticCapacity on the cluster that has a static pool, and no gate on the other', () => {
    expect(gates(files, 'new')).toEqual({ staticCapacity: true });
    expect(gates(files, 'old')).toBeUndefined();
  });
});

describe('static pool rules', () => {
  it('fails when a static pool limits more than nodes', () => {
    expect(problemsOf({ config: fleetConfig({ teams: { web: {}, ingest: { pools: { fixed: { replicas: 4, limits: { cpu: '8' } } } } } }), terraform }))
      .toEqual(aProblem(/teams\.ingest\.pools\.fixed\.limits\.cpu: pool ingest-fixed is static \(replicas: 4\), and a static NodePool may only limit nodes/));
  });

  it('fails when a static pool has a weight', () => {
    expect(problemsOf({ config: fleetConfig({ teams: { web: {}, ingest: { pools: { fixed: { replicas: 4, weight: 10, limits: { nodes: '6' } } } } } }), terraform }))
      .toEqual(aProblem(/:\d+:\d+: teams\.ingest\.pools\.fixed\.weight: pool ingest-fixed is static .* takes no weight/));
  });

  it('fails when replicas is negative', () => {
    expect(problemsOf({ config: fleetConfig({ teams: { web: { replicas: -1 } } }), terraform }))
      .toEqual(aProblem(/teams\.web\.replicas/));
  });

  it('fails when the cluster turns StaticCapacity off while a pool is static', () => {
    const config = fleetConfig({
      clusters: { demo: undefined, old: undefined, new: { terraformOutputs: 'terraform/new.json', karpenter: { controller: { featureGates: { staticCapacity: false } } } } },
      teams: staticTeam,
    });
    expect(problemsOf({ config, terraform })).toEqual(aProblem(/teams\.ingest\.pools\.fixed\.replicas: pool ingest-fixed sets replicas on cluster new, whose karpenter\.controller\.featureGates\.staticCapacity is false/));
  });
});

describe('Balanced on a release without it', () => {
  it('fails when a pool of the 1.13.1 cluster uses Balanced, naming cluster and version', () => {
    expect(problemsOf({ config: fleetConfig({ teams: { web: { disruption: { consolidationPolicy: 'Balanced' } } } }), terraform }))
      .toEqual(aProblem(/teams\.web\.disruption\.consolidationPolicy: cluster old runs Karpenter 1\.13\.1/));
  });
});

const savingsPlan = {
  requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7i', 'c7i'] }],
  priceAdjustment: '-28%',
  weight: 10,
};
const gpuSlices = {
  requirements: [{ key: 'karpenter.k8s.aws/instance-gpu-name', operator: 'In', values: ['l4'] }],
  capacity: { 'example.com/gpu-slice': '4' },
};

describe('overlays', () => {
  const files = synth(fleetConfig({
    clusters: {
      demo: undefined,
      old: { terraformOutputs: 'terraform/old.json', karpenter: { version: '1.13.1' }, teams: ['web'], overlays: { 'savings-plan': null } },
      new: { terraformOutputs: 'terraform/new.json', overlays: { 'gpu-slices': gpuSlices } },
    },
    overlays: { 'savings-plan': savingsPlan },
  }));

  it('writes the fleet-wide and the cluster\'s overlays under dist/<cluster>/overlays, valid against the 1.14.1 CRD', () => {
    const [plan] = docs(files, 'dist/new/overlays/savings-plan.yaml');
    expect(plan).toMatchObject({ apiVersion: 'karpenter.sh/v1alpha1', kind: 'NodeOverlay', metadata: { name: 'savings-plan' }, spec: { priceAdjustment: '-28%', weight: 10 } });
    const [gpu] = docs(files, 'dist/new/overlays/gpu-slices.yaml');
    expect(gpu.spec.capacity).toEqual({ 'example.com/gpu-slice': '4' });
    expect(validateFor('1.14.1', plan)).toEqual([]);
    expect(validateFor('1.14.1', gpu)).toEqual([]);
    expect(files.has('dist/old/overlays/savings-plan.yaml')).toBe(false);
  });

  it('delivers them through <cluster>-overlays in the pools\' wave, and turns NodeOverlay on only where used', () => {
    const [app] = docs(files, 'dist/new/apps/overlays.yaml');
    expect(app.metadata).toMatchObject({ name: 'new-overlays', annotations: { 'argocd.argoproj.io/sync-wave': '2' } });
    expect(app.spec.source.path).toBe('dist/new/overlays');
    expect(files.has('dist/old/apps/overlays.yaml')).toBe(false);
    expect(gates(files, 'new')).toEqual({ nodeOverlay: true });
    expect(gates(files, 'old')).toBeUndefined();
  });
});

describe('overlay rules', () => {
  const withOverlays = (overlays: Overrides) => fleetConfig({ overlays });

  it('fails when an overlay sets both price and priceAdjustment', () => {
    expect(problemsOf({ config: withOverlays({ x: { ...savingsPlan, price: '0.12' } }), terraform }))
      .toEqual(aProblem(/overlays\.x\.priceAdjustment: an overlay sets price or priceAdjustment, never both/));
  });

  it('fails when price or priceAdjustment is malformed', () => {
    const problems = problemsOf({ config: withOverlays({ a: { ...savingsPlan, priceAdjustment: '-128%' }, b: { requirements: savingsPlan.requirements, price: '$1' } }), terraform });
    expect(problems).toEqual(aProblem(/overlays\.a\.priceAdjustment: "-128%": must be a signed adjustment/));
    expect(problems).toEqual(aProblem(/overlays\.b\.price: "\$1": must be a price per hour/));
  });

  it('fails when an overlay sets cpu capacity, or has no requirements, or a restricted key', () => {
    const problems = problemsOf({ config: withOverlays({
      a: { requirements: savingsPlan.requirements, capacity: { cpu: '2' } },
      b: { requirements: [] },
      c: { requirements: [{ key: 'karpenter.sh/nodeclaim', operator: 'Exists' }] },
    }), terraform });
    expect(problems).toEqual(aProblem(/overlays\.a\.capacity\.cpu: invalid key "cpu": an overlay cannot set "cpu" capacity/));
    expect(problems).toEqual(aProblem(/overlays\.b\.requirements: list at least one requirement/));
    expect(problems).toEqual(aProblem(/overlays\.c\.requirements\[0\]\.key: label domain "karpenter\.sh" is restricted/));
  });

  it('fails when two overlays of one weight would both price the same instance type, naming both', () => {
    expect(problemsOf({ config: withOverlays({ 'savings-plan': savingsPlan, 'm7i-deal': { requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7i'] }], price: '0.1', weight: 10 } }), terraform }))
      .toEqual(aProblem(/overlays\.m7i-deal: on 2 clusters \(old and new\), as on the first: on cluster old, overlays savings-plan \(overlays\.savings-plan\) and m7i-deal have the same weight \(10\) and both set the price of \d+ instance type\(s\) such as m7i\./));
  });

  it('fails when the cluster turns NodeOverlay off while it uses an overlay', () => {
    const config = fleetConfig({
      clusters: { demo: undefined, old: undefined, new: { terraformOutputs: 'terraform/new.json', karpenter: { controller: { featureGates: { nodeOverlay: false } } } } },
      overlays: { 'savings-plan': savingsPlan },
    });
    expect(problemsOf({ config, terraform })).toEqual(aProblem(/overlays\.savings-plan: cluster new uses overlay savings-plan, but its karpenter\.controller\.featureGates\.nodeOverlay is false/));
  });
});

describe('explain after overlays', () => {
  it('prices a static pool under a -28% overlay as its replicas times the dearest admitted type\'s overlaid price', () => {
    const config = fleetConfig({
      teams: { web: {}, ingest: { pools: { fixed: { replicas: 4, limits: { nodes: '6' }, instanceTypes: ['m7i.large', 'm7i.xlarge'] } } } },
      overlays: { 'savings-plan': savingsPlan },
    });
    const { platform } = loadPlatform(writeProject({ config, terraform }).configPath, { provenance: true });
    const e = explainPool(platform, 'new', 'ingest-fixed');
    if (typeof e === 'string') throw new Error(e);
    // m7i.xlarge, us-east-1 on demand: $0.2016 (the price list above); at -28%: 0.2016 × 0.72 = 0.145152; 4 replicas: 0.580608.
    expect(e.maxCostPerHour).toBeCloseTo(0.580608, 4);
    expect(e.boundBy).toBe('replicas: 4 at m7i.xlarge');
    expect(e.onDemandPricePerHour?.max).toBeCloseTo(0.145152, 4);
    // the same pool without the overlay: the list price
    const cluster = platform.clusters.find((c) => c.id === 'new');
    const pool = cluster?.pools.find((p) => p.name === 'ingest-fixed');
    if (!cluster || !pool) throw new Error('no pool');
    expect(ceilingOf({ ...cluster, overlays: [] }, pool)).toBeCloseTo(4 * 0.2016, 6);
  });

  it('a capacity overlay adds its resource to the types it picks', () => {
    const types = applyOverlays(karpenterCatalog().types.filter((t) => t.labels.get('karpenter.k8s.aws/instance-gpu-name') === 'l4' || t.name === 'm7i.large'),
      [{ name: 'gpu-slices', requirements: gpuSlices.requirements as never, capacity: gpuSlices.capacity }], catalogMatcher());
    expect(types.find((t) => t.name === 'm7i.large')?.allocatable.get('example.com/gpu-slice')).toBeUndefined();
    expect(types.filter((t) => t.name !== 'm7i.large').every((t) => t.allocatable.get('example.com/gpu-slice') === 4)).toBe(true);
  });
});

describe('a buffer', () => {
  const buffer = { replicas: 2, cpu: '2', memory: '4Gi' };
  const files = synth(fleetConfig({ teams: { web: {}, ingest: { namespaces: ['ingest'], buffer }, batch: { buffer, pools: { big: {} }, defaultPool: false } } }));

  it('writes a CapacityBuffer and its PodTemplate with the team\'s pools, selecting and tolerating the pool, valid against the 1.14.1 CRD', () => {
    const objects = docs(files, 'dist/new/nodepools/ingest/_buffer.yaml');
    const cb = objects.find((d) => d.kind === 'CapacityBuffer') as any;
    const template = objects.find((d) => d.kind === 'PodTemplate') as any;
    expect(cb).toMatchObject({ apiVersion: 'autoscaling.x-k8s.io/v1beta1', metadata: { name: 'ingest-buffer', namespace: 'ingest-buffer' }, spec: { podTemplateRef: { name: 'ingest-buffer' }, replicas: 2 } });
    expect(template.metadata.namespace).toBe('ingest-buffer');
    expect(template.template.spec.nodeSelector).toEqual({ 'karpenter.sh/nodepool': 'ingest' });
    expect(template.template.spec.tolerations).toEqual([{ key: 'dedicated', operator: 'Equal', value: 'ingest', effect: 'NoSchedule' }]);
    expect(template.template.spec.containers[0].resources.requests).toEqual({ cpu: '2', memory: '4Gi' });
    expect(validateFor('1.14.1', cb)).toEqual([]);
  });

  it('orders the PodTemplate before its buffer (sync waves), so Karpenter never looks for a template not there yet', () => {
    const objects = docs(files, 'dist/new/nodepools/ingest/_buffer.yaml') as any[];
    const wave = (kind: string) => Number(objects.find((d) => d.kind === kind).metadata.annotations?.['argocd.argoproj.io/sync-wave'] ?? 0);
    expect(wave('PodTemplate')).toBeLessThan(wave('CapacityBuffer'));
    expect(wave('Namespace')).toBeLessThan(wave('CapacityBuffer'));
  });

  it('goes in a namespace of its own, written with it (its pods are virtual: no admission sees them), whether the team lists namespaces or not', () => {
    expect(docs(files, 'dist/new/nodepools/ingest/_buffer.yaml').find((d) => d.kind === 'Namespace')?.metadata.name).toBe('ingest-buffer');
    const objects = docs(files, 'dist/new/nodepools/batch/_buffer.yaml');
    expect(objects.find((d) => d.kind === 'Namespace')?.metadata.name).toBe('batch-buffer');
    expect(objects.find((d) => d.kind === 'CapacityBuffer')?.metadata).toMatchObject({ name: 'batch-big-buffer', namespace: 'batch-buffer' });
  });

  it('turns CapacityBuffer on where a team has a buffer', () => {
    expect(gates(files, 'new')).toEqual({ capacityBuffer: true });
    expect(gates(files, 'old')).toBeUndefined();
  });

  it('fails when a team with a buffer runs on the 1.13.1 cluster, naming cluster, version and field', () => {
    expect(problemsOf({ config: fleetConfig({ teams: { web: { buffer } } }), terraform }))
      .toEqual(aProblem(/teams\.web\.buffer: cluster old runs Karpenter 1\.13\.1, which has no CapacityBuffer feature gate/));
  });

  it('fails when the cluster turns CapacityBuffer off', () => {
    const config = fleetConfig({
      clusters: { demo: undefined, old: undefined, new: { terraformOutputs: 'terraform/new.json', karpenter: { controller: { featureGates: { capacityBuffer: false } } } } },
      teams: { web: { buffer } },
    });
    expect(problemsOf({ config, terraform })).toEqual(aProblem(/teams\.web\.buffer: team web has a buffer on cluster new, whose karpenter\.controller\.featureGates\.capacityBuffer is false/));
  });

  it('fails when the buffer names a pool the team does not have', () => {
    expect(problemsOf({ config: fleetConfig({ teams: { web: {}, batch: { buffer: { ...buffer, pool: 'nope' } } } }), terraform }))
      .toEqual(aProblem(/teams\.batch\.buffer\.pool: team batch has no pool "nope" on cluster new/));
  });
});

describe('a buffer in the ceiling', () => {
  it('adds its pods\' worth to its pool\'s ceiling', () => {
    const config = fleetConfig({ teams: { web: {}, ingest: { replicas: 2, limits: { nodes: '3' }, instanceTypes: ['m7i.large'], buffer: { replicas: 2, cpu: '1', memory: '1Gi' } } } });
    const { platform } = loadPlatform(writeProject({ config, terraform }).configPath);
    const cluster = platform.clusters.find((c) => c.id === 'new');
    const pool = cluster?.pools.find((p) => p.name === 'ingest');
    if (!cluster || !pool) throw new Error('no pool');
    // m7i.large: 2 vCPUs, 8 GiB, $0.1008 (the price list above); 2 replicas: 0.2016; 2 pods of 1 cpu are worth one
    // node's price (0.1008), 2 pods of 1Gi a quarter of it: the cpu bounds the buffer, 0.2016 + 0.1008 = 0.3024.
    expect(ceilingOf(cluster, pool)).toBeCloseTo(0.3024, 6);
    expect(ceilingOf({ ...cluster, buffers: [] }, pool)).toBeCloseTo(0.2016, 6);
  });
});

describe('fit after overlays', () => {
  it('admits a pod requesting an extended resource only a capacity overlay gives, on the types the plan admits after overlays', () => {
    const pod = podOf(aPodSpec({ containers: [aContainer({ requests: { 'cpu': '1', 'memory': '1Gi', 'example.com/gpu-slice': '1' }, limits: { 'example.com/gpu-slice': '1' } })] }));
    const pool = aPool({ dedicated: false, instanceFamilies: ['g6'], limits: { cpu: '1000' } });
    const overlay = { name: 'gpu-slices', requirements: gpuSlices.requirements as never, capacity: gpuSlices.capacity };
    // One pool on two clusters: fit reads each cluster's plan of it.
    const platform = aPlatform([aCluster([pool], { id: 'plain' }), aCluster([pool], { id: 'sliced', overlays: [overlay] })]);
    const plan = fleetPlan(platform);
    const [w] = fitWorkloads([{ kind: 'Deployment', namespace: 'default', name: 'app', pod, object: {} }], platform, plan);
    expect(w.rejected).toEqual([{ cluster: 'plain', pool: 'web', reason: 'requests 1 example.com/gpu-slice: no instance type the pool admits has example.com/gpu-slice' }]);
    const sliced = plan.clusters[1].pools[0].facts.admitted.filter((t) => t.allocatable.get('example.com/gpu-slice') === 4);
    expect(sliced.length).toBeGreaterThan(0);
    expect(w.fits).toEqual([{ cluster: 'sliced', pool: 'web', instanceTypes: sliced.length, prices: priceRange(sliced) }]);
  });

  it('prices a fit after a price overlay: the plan\'s prices, not the catalog\'s', () => {
    const pool = aPool({ dedicated: false, instanceFamilies: ['g6'], limits: { cpu: '1000' } });
    const half = { name: 'half', requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['g6'] }] as never, priceAdjustment: '-50%' };
    const platform = aPlatform([aCluster([pool], { id: 'list' }), aCluster([pool], { id: 'discounted', overlays: [half] })]);
    const plan = fleetPlan(platform);
    const [w] = fitWorkloads([{ kind: 'Deployment', namespace: 'default', name: 'app', pod: podOf(aPodSpec()), object: {} }], platform, plan);
    const [list, discounted] = w.fits.map((f) => f.prices);
    expect(discounted?.min).toBeCloseTo((list?.min ?? NaN) / 2, 10);
    expect(discounted?.max).toBeCloseTo((list?.max ?? NaN) / 2, 10);
    // A small pod fits every admitted type: fit's range is the pool's, as SUMMARY and explain show it.
    expect(w.fits.map((f) => f.prices)).toEqual(plan.clusters.map((c) => c.pools[0].facts.prices));
  });
});

describe('gates that contradict use', () => {
  it('fails when a cluster turns on a gate of a feature it does not use, at the gate', () => {
    const config = fleetConfig({
      clusters: { demo: undefined, old: undefined, new: { terraformOutputs: 'terraform/new.json', karpenter: { controller: { featureGates: { nodeOverlay: true } } } } },
    });
    expect(problemsOf({ config, terraform })).toEqual(aProblem(/clusters\.new\.karpenter\.controller\.featureGates\.nodeOverlay: cluster new uses no overlay, so featureGates\.nodeOverlay would be on for nothing/));
  });
});
