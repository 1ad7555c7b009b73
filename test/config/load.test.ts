/**
 * Behaviour of loadPlatform on valid input: built-in defaults, the inheritance
 * chain (built-in < defaults < team < pool < cluster overrides), team selection
 * per cluster, frozen output, and how problems are reported (all at once, one
 * line each).
 */
import { CHART_VERSION } from '../../src/release/chart-values-keys.generated';
import { loadPlatform } from '../../src/config/load';
import { Cluster, Platform, Pool } from '../../src/config/platform';
import { formatProblem, InputError } from '../../src/input/problems';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { aConfig, aTerraform, EXAMPLE_CONFIG, Plain, projectFiles, rawConfigWithTeams, removeProjects, withDestinations, writeProject } from '../builders';
import { aProblem, inputErrorOf, load, problemsOf } from './helpers';

afterAll(removeProjects);

function clusterOf(platform: Platform, id: string): Cluster {
  const cluster = platform.clusters.find((c) => c.id === id);
  if (!cluster) throw new Error(`no cluster ${id} (have: ${platform.clusters.map((c) => c.id).join(', ')})`);
  return cluster;
}

function poolOf(platform: Platform, name: string, cluster: string = 'demo'): Pool {
  const pool = clusterOf(platform, cluster).pools.find((p) => p.name === name);
  if (!pool) throw new Error(`no pool ${name} in ${cluster} (have: ${clusterOf(platform, cluster).pools.map((p) => p.name).join(', ')})`);
  return pool;
}

function poolNames(platform: Platform, cluster: string = 'demo'): string[] {
  return clusterOf(platform, cluster).pools.map((p) => p.name);
}

describe('built-in defaults', () => {
  it('fills every defaulted pool field when no level sets it', () => {
    const { settings } = poolOf(load().platform, 'web');
    expect(settings).toEqual({
      dedicated: true,
      labels: {},
      taints: [],
      startupTaints: [],
      arch: ['amd64'],
      capacityTypes: ['on-demand'],
      requirements: [],
      limits: { cpu: '100', memory: '400Gi' },
      expireAfter: '720h',
      disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '10%' }] },
      volume: { size: '20Gi', type: 'gp3', encrypted: true, deleteOnTermination: true },
      metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
      tags: {},
      smokeTest: { replicas: 0, cpu: '1', memory: '1Gi', resources: {}, image: 'public.ecr.aws/eks-distro/kubernetes/pause:3.7' },
      ami: { alias: 'al2023@v20250505' },
    });
  });

  it('fills the gitops, karpenter and cluster defaults', () => {
    const { platform } = load();
    expect(platform.gitops).toEqual({
      repoURL: 'https://github.com/acme/platform-gitops.git', targetRevision: 'HEAD', argocdNamespace: 'argocd', project: 'default',
    });
    expect(clusterOf(platform, 'demo').karpenter).toMatchObject({ version: CHART_VERSION, namespace: 'kube-system', controller: { replicas: 2, host: 'nodeGroup' }, helmValues: {} });
    expect(clusterOf(platform, 'demo')).toMatchObject({ destination: { server: 'https://kubernetes.default.svc' }, smokeTests: true });
  });

  it('attaches the Terraform outputs to their cluster', () => {
    expect(clusterOf(load().platform, 'demo').terraform).toEqual({
      clusterName: 'demo',
      nodeRoleName: 'KarpenterNodeRole-demo',
      interruptionQueueName: 'Karpenter-demo',
      controllerRoleArn: 'arn:aws:iam::111122223333:role/KarpenterController-demo',
      clusterEndpoint: 'https://0123456789ABCDEF0123456789ABCDEF.gr7.ap-northeast-2.eks.amazonaws.com',
    });
  });

  it('accepts empty defaults: and overrides: keys', () => {
    const config = aConfig({ defaults: null, teams: { web: { ami: { alias: 'al2023@v20250505' } } }, clusters: { demo: { overrides: null } } });
    expect(poolNames(load({ config }).platform)).toEqual(['web']);
  });
});

describe('inheritance', () => {
  const chain = (overrides: Plain = {}) => aConfig({
    defaults: { expireAfter: '360h' },
    teams: {
      web: {},
      api: { expireAfter: '240h', pools: { batch: { expireAfter: '120h' } } },
    },
    ...overrides,
  });

  it('lets defaults win over the built-in default', () => {
    expect(poolOf(load({ config: chain() }).platform, 'web').settings.expireAfter).toBe('360h');
  });

  it('lets the team win over defaults', () => {
    expect(poolOf(load({ config: chain() }).platform, 'api').settings.expireAfter).toBe('240h');
  });

  it('lets the pool win over its team', () => {
    expect(poolOf(load({ config: chain() }).platform, 'api-batch').settings.expireAfter).toBe('120h');
  });

  it('lets cluster overrides win over every level, on every pool of the cluster', () => {
    const { platform } = load({ config: chain({ clusters: { demo: { terraformOutputs: 'terraform/demo.json', overrides: { expireAfter: '48h' } } } }) });
    expect(clusterOf(platform, 'demo').pools.map((p) => [p.name, p.settings.expireAfter])).toEqual([
      ['web', '48h'], ['api', '48h'], ['api-batch', '48h'],
    ]);
  });

  it('applies cluster overrides only to that cluster', () => {
    const config = aConfig({
      clusters: {
        demo: { terraformOutputs: 'terraform/demo.json' },
        prod: { terraformOutputs: 'terraform/prod.json', overrides: { zones: ['ap-northeast-2a'] } },
      },
    });
    const { platform } = load({ config, terraform: { demo: aTerraform(), prod: aTerraform({ cluster_name: 'prod' }) } });
    expect(poolOf(platform, 'web', 'demo').settings.zones).toBeUndefined();
    expect(poolOf(platform, 'web', 'prod').settings.zones).toEqual(['ap-northeast-2a']);
  });

  it('merges maps key by key through every level', () => {
    const config = aConfig({
      clusters: { demo: { overrides: { labels: { region: 'eu' } } } },
      defaults: { labels: { tier: 'base', billing: 'shared' } },
      teams: { web: { labels: { tier: 'web' }, pools: { gpu: { labels: { accelerator: 'nvidia' } } } } },
    });
    expect(poolOf(load({ config }).platform, 'web-gpu').settings.labels).toEqual({
      tier: 'web', billing: 'shared', accelerator: 'nvidia', region: 'eu',
    });
  });

  it('merges nested maps (disruption, kubelet) key by key over the built-in defaults', () => {
    const config = aConfig({
      defaults: { disruption: { consolidationPolicy: 'WhenEmpty' }, kubelet: { evictionHard: { 'memory.available': '5%' } } },
      teams: { web: { disruption: { consolidateAfter: '5m' }, kubelet: { evictionHard: { 'nodefs.available': '10%' }, maxPods: 58 } } },
    });
    const { settings } = poolOf(load({ config }).platform, 'web');
    expect(settings.disruption).toEqual({ consolidationPolicy: 'WhenEmpty', consolidateAfter: '5m', budgets: [{ nodes: '10%' }] });
    expect(settings.kubelet).toEqual({ evictionHard: { 'memory.available': '5%', 'nodefs.available': '10%' }, maxPods: 58 });
  });

  it('replaces lists whole, built-in defaults included', () => {
    const config = aConfig({
      defaults: { zones: ['ap-northeast-2a', 'ap-northeast-2b'], disruption: { budgets: [{ nodes: '10%' }, { nodes: '0', schedule: '@daily', duration: '1h' }] } },
      teams: { web: { arch: ['arm64'], zones: ['ap-northeast-2c'], disruption: { budgets: [{ nodes: '1' }] } } },
    });
    const { settings } = poolOf(load({ config }).platform, 'web');
    expect(settings.arch).toEqual(['arm64']);
    expect(settings.zones).toEqual(['ap-northeast-2c']);
    expect(settings.disruption.budgets).toEqual([{ nodes: '1' }]);
  });

  it('replaces ami whole: a pool with selectorTerms does not inherit the alias of defaults', () => {
    const custom = { family: 'Custom', selectorTerms: [{ id: 'ami-0123456789abcdef0' }] };
    const config = aConfig({ teams: { web: { pools: { custom: { ami: custom, userData: '#!/bin/bash' } } } } });
    const { platform } = load({ config });
    expect(poolOf(platform, 'web-custom').settings.ami).toEqual(custom);
    expect(poolOf(platform, 'web').settings.ami).toEqual({ alias: 'al2023@v20250505' });
  });

  it('replaces ami whole from cluster overrides: the team family does not stay beside the new alias', () => {
    const config = aConfig({
      clusters: { demo: { overrides: { ami: { alias: 'bottlerocket@v1.39.1' } } } },
      teams: { web: { ami: { family: 'AL2023', alias: 'al2023@v20250505' } } },
    });
    expect(poolOf(load({ config }).platform, 'web').settings.ami).toEqual({ alias: 'bottlerocket@v1.39.1' });
  });

  it('keeps team-only keys out of the pool settings', () => {
    const config = aConfig({ teams: { web: { owner: 'web@acme.example', costCenter: '4410', pools: { gpu: {} } } } });
    const pool = poolOf(load({ config }).platform, 'web-gpu');
    expect(pool).toMatchObject({ name: 'web-gpu', team: 'web', owner: 'web@acme.example', costCenter: '4410' });
    expect(Object.keys(pool.settings)).toEqual(expect.not.arrayContaining(['owner', 'costCenter', 'defaultPool', 'pools']));
  });
});

describe('pools and teams per cluster', () => {
  it('names the default pool <team> and extra pools <team>-<key>', () => {
    const config = aConfig({ teams: { web: { pools: { gpu: {}, batch: {} } } } });
    expect(poolNames(load({ config }).platform)).toEqual(['web', 'web-gpu', 'web-batch']);
  });

  it('has no pool named <team> with defaultPool: false', () => {
    const config = aConfig({ teams: { web: { defaultPool: false, pools: { gpu: {} } } } });
    expect(poolNames(load({ config }).platform)).toEqual(['web-gpu']);
  });

  it('gives a cluster without teams every team, in file order', () => {
    const config = aConfig({ teams: { web: {}, api: {}, data: {} } });
    expect(poolNames(load({ config }).platform)).toEqual(['web', 'api', 'data']);
  });

  it('puts a team listed by a cluster only in that cluster', () => {
    const config = aConfig({
      clusters: {
        demo: { terraformOutputs: 'terraform/demo.json', teams: ['web'] },
        prod: { terraformOutputs: 'terraform/prod.json', teams: ['api'] },
      },
      teams: { web: {}, api: {} },
    });
    const { platform } = load({ config, terraform: { demo: aTerraform(), prod: aTerraform({ cluster_name: 'prod' }) } });
    expect(poolNames(platform, 'demo')).toEqual(['web']);
    expect(poolNames(platform, 'prod')).toEqual(['api']);
  });

  // Not a pool-name clash: the fix is to remove the second entry, so point at it.
  it('fails when a cluster lists a team twice, pointing at the second entry', () => {
    const problems = problemsOf({ config: aConfig({ clusters: { demo: { teams: ['web', 'web'] } } }) });
    expect(problems).toEqual(aProblem(/platform\.yaml:\d+:\d+: clusters\.demo\.teams\[1\]: .*"web".*(twice|more than once|already listed)/));
  });

  // `defaults:` and `overrides:` may be left empty; so may a team (every field defaulted).
  it('loads a team written as a bare key with no fields, like defaults: and overrides:', () => {
    const rawConfig = rawConfigWithTeams(['  web:']);
    expect(poolNames(load({ rawConfig }).platform)).toEqual(['web']);
  });
});

describe('the returned platform', () => {
  it('is frozen all the way down', () => {
    const config = aConfig({ teams: { web: { labels: { tier: 'web' }, zones: ['ap-northeast-2a'] } } });
    const { platform } = load({ config });
    const pool = poolOf(platform, 'web');
    for (const value of [platform, platform.gitops, platform.clusters, clusterOf(platform, 'demo').terraform, pool, pool.settings,
      pool.settings.labels, pool.settings.zones, pool.settings.ami, pool.settings.disruption.budgets[0]]) {
      expect(Object.isFrozen(value)).toBe(true);
    }
  });

  it('throws when code tries to change it', () => {
    const pool = poolOf(load().platform, 'web');
    expect(() => { (pool.settings.labels as Record<string, string>).tier = 'x'; }).toThrow(TypeError);
    expect(() => { (pool.settings.arch as string[]).push('arm64'); }).toThrow(TypeError);
  });

  it('gives each pool its own settings', () => {
    const config = aConfig({ teams: { web: {}, api: { labels: { tier: 'api' } } } });
    const { platform } = load({ config });
    expect(poolOf(platform, 'web').settings.labels).toEqual({});
    expect(poolOf(platform, 'api').settings.labels).toEqual({ tier: 'api' });
  });
});

describe('reporting problems', () => {
  it('reports two independent schema problems at once', () => {
    const config = aConfig({ teams: { web: { capacityTypes: ['spott'] }, api: { weight: 0 } } });
    const problems = problemsOf({ config });
    expect(problems).toHaveLength(2);
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/platform\.yaml:\d+:\d+: teams\.web\.capacityTypes\[0\]: unknown value "spott"/),
      expect.stringMatching(/platform\.yaml:\d+:\d+: teams\.api\.weight: must be at least 1/),
    ]));
  });

  it('reports two independent pool problems at once', () => {
    const config = aConfig({ teams: { web: { tags: { Name: 'web' } }, api: { volume: { size: '10Gi' } } } });
    const problems = problemsOf({ config });
    expect(problems).toHaveLength(2);
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/platform\.yaml:\d+:\d+: teams\.web\.tags\.Name: the tag "Name" is set by the generator/),
      expect.stringMatching(/platform\.yaml:\d+:\d+: teams\.api\.volume\.size: AL2023 root volume must be at least 20Gi/),
    ]));
  });

  it('reports a platform.yaml problem and a Terraform outputs problem at once', () => {
    const config = aConfig({ teams: { web: { capacityTypes: ['spott'] } } });
    const problems = problemsOf({ config, terraform: { demo: aTerraform({ cluster_name: undefined }) } });
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/platform\.yaml:\d+:\d+: teams\.web\.capacityTypes\[0\]: unknown value "spott"/),
      expect.stringMatching(/terraform\/demo\.json:\d+:\d+: required output "cluster_name" is missing/),
    ]));
  });

  // Contract: every problem reported at once, also when the schema already failed.
  it('reports a schema problem and an independent pool problem at once', () => {
    const config = aConfig({ teams: { web: { capacityTypes: ['spott'] }, api: { tags: { Name: 'api' } } } });
    expect(problemsOf({ config })).toEqual(expect.arrayContaining([
      expect.stringMatching(/teams\.web\.capacityTypes\[0\]: unknown value "spott"/),
      expect.stringMatching(/teams\.api\.tags\.Name: the tag "Name" is set by the generator/),
    ]));
  });

  it('does not echo a schema problem as a second problem about the same field', () => {
    const config = aConfig({ defaults: undefined, teams: { web: { ami: { alias: 'al2023@' } } } });
    expect(problemsOf({ config })).toEqual([expect.stringMatching(/teams\.web\.ami\.alias: "al2023@": must be family@version/)]);
  });

  it('reports a problem inherited by several pools once, at the line that set it', () => {
    const config = aConfig({ defaults: { tags: { Name: 'shared' } }, teams: { web: { pools: { gpu: {} } }, api: {} } });
    expect(problemsOf({ config })).toEqual([expect.stringMatching(/platform\.yaml:\d+:\d+: defaults\.tags\.Name: the tag "Name" is set by the generator/)]);
  });

  it('throws an InputError whose message is the problems, one line each, without a stack trace', () => {
    const config = aConfig({
      karpenter: { version: 'v1.14.1' },
      teams: { web: { capacityTypes: ['spott'], labels: { 'karpenter.sh/foo': 'x' } }, api: { weight: 101 } },
    });
    const error = inputErrorOf(() => loadPlatform(writeProject({ config }).configPath));
    const lines = error.message.split('\n');
    expect(lines).toEqual(error.problems.map(formatProblem));
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) {
      expect(line).toMatch(/^\S*platform\.yaml:\d+:\d+: [\w.[\]"/-]+: \S/);
      expect(line).not.toMatch(/^\s+at |Error:|ZodError/);
    }
  });

  it('reports problems in lowercase, without a trailing period', () => {
    const config = aConfig({ gitops: { repoURL: undefined }, teams: { web: { weight: 0, volume: { type: 'gp4' } } } });
    for (const problem of inputErrorOf(() => loadPlatform(writeProject({ config }).configPath)).problems) {
      expect(problem.message).toMatch(/^[^A-Z]/);
      expect(problem.message).not.toMatch(/\.$/);
    }
  });

  it('is an InputError, not a crash, for an empty file', () => {
    const error = inputErrorOf(() => loadPlatform(writeProject({ rawConfig: '' }).configPath));
    expect(error).toBeInstanceOf(InputError);
    expect(error.problems.map(formatProblem)).toEqual(expect.arrayContaining([
      expect.stringMatching(/platform\.yaml:1:1: gitops: required field is missing/),
      expect.stringMatching(/platform\.yaml:1:1: teams: required field is missing/),
    ]));
  });
});

describe('the example config (test/fixtures/example)', () => {
  it('loads without problems', () => {
    const { platform } = loadPlatform(EXAMPLE_CONFIG);
    expect(platform.clusters.map((c) => c.id)).toEqual(['demo']);
  });
});

describe('files given in memory (LoadOptions.files)', () => {
  const input = { config: aConfig({ teams: { web: { owner: 'web@acme.example', budget: { perHour: 'x' } } } }), terraform: { demo: aTerraform() } };

  it('loads a project from the texts given, as from the same files on disk, reading nothing there', () => {
    const onDisk = writeProject({ config: aConfig(), terraform: { demo: aTerraform() } });
    const fromDisk = loadPlatform(onDisk.configPath).platform;
    const given = projectFiles(onDisk.dir, { config: aConfig(), terraform: { demo: aTerraform() } });
    rmSync(join(onDisk.dir, 'config'), { recursive: true });
    expect(existsSync(given.configPath)).toBe(false);
    expect(loadPlatform(given.configPath, { files: given.files }).platform).toEqual(fromDisk);
  });

  it('reports the problems of the texts given, at the lines of those texts', () => {
    const onDisk = writeProject(input);
    const given = projectFiles(onDisk.dir, input);
    const show = (path: string) => path.replace(onDisk.dir, '<project>');
    const fromDisk = inputErrorOf(() => loadPlatform(onDisk.configPath, { showPath: show })).problems.map(formatProblem);
    rmSync(join(onDisk.dir, 'config'), { recursive: true });
    expect(fromDisk).toEqual([expect.stringMatching(/^<project>\/config\/platform\.yaml:\d+:\d+: teams\.web\.budget\.perHour: "x"/)]);
    expect(inputErrorOf(() => loadPlatform(given.configPath, { showPath: show, files: given.files })).problems.map(formatProblem)).toEqual(fromDisk);
  });

  it('reads from disk a Terraform outputs file the texts do not hold', () => {
    const onDisk = writeProject(input);
    const configOnly = new Map([[onDisk.configPath, stringify(withDestinations(aConfig()))]]);
    writeFileSync(onDisk.terraformPath('demo'), '{');
    expect(inputErrorOf(() => loadPlatform(onDisk.configPath, { files: configOnly })).problems.map((p) => p.file)).toEqual([expect.stringMatching(/demo\.json$/)]);
  });
});
