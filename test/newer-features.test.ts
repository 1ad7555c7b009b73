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
