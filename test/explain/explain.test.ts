/**
 * `npm run explain -- CLUSTER/POOL` (contract section 5.3): every resolved field with the level
 * that set it and its line, the admitted instance types, their price range and the cost bound.
 */
import { karpenterCatalog } from '../../src/catalog/catalog';
import { run } from '../../src/cli';
import { loadPlatform } from '../../src/config/load';
import { explainPool, PoolExplanation, renderExplanation } from '../../src/explain/explain';
import { aConfig, aTerraform, positionOf, removeProjects, writeProject } from '../builders';

afterAll(removeProjects);

/** Pool web-batch of cluster staging has a field from every level of the chain. */
function fleet() {
  return writeProject({
    config: aConfig({
      clusters: {
        demo: undefined,
        staging: {
          terraformOutputs: 'terraform/staging.json',
          teams: { web: { expireAfter: '24h', pools: { batch: { weight: 7 } } } },
          overrides: { zones: ['ap-northeast-2a'] },
        },
      },
      defaults: { limits: { cpu: '8', memory: '64Gi' } },
      teams: { web: { arch: ['arm64'], instanceTypes: ['m7g.large', 'm7g.xlarge'], pools: { batch: { capacityTypes: ['on-demand'] } } } },
    }),
    terraform: { staging: aTerraform({ cluster_name: 'staging' }) },
  });
}

describe('explaining a pool', () => {
  const project = fleet();
  const { platform } = loadPlatform(project.configPath, { provenance: true });
  const e = explainPool(platform, 'staging', 'web-batch') as PoolExplanation;
  const field = (path: string) => e.fields.find((f) => f.path === path);
  const at = (needle: string) => expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(project.configText, needle).replace(/:\d+$/, ':\\d+')}$`));

  it('names the level and the line that set each field, for every level of the chain', () => {
    expect(field('limits.cpu')).toEqual({ path: 'limits.cpu', value: '8', from: 'defaults', at: at("cpu: '8'".replace(/'/g, '"')) });
    expect(field('arch')).toMatchObject({ value: ['arm64'], from: 'team' });
    expect(field('capacityTypes')).toMatchObject({ value: ['on-demand'], from: 'pool' });
    expect(field('expireAfter')).toMatchObject({ value: '24h', from: 'cluster-team', at: at('24h') });
    expect(field('weight')).toMatchObject({ value: 7, from: 'cluster-pool', at: at('weight: 7') });
    expect(field('zones')).toMatchObject({ value: ['ap-northeast-2a'], from: 'overrides' });
    expect(field('dedicated')).toEqual({ path: 'dedicated', value: true, from: 'built-in' });
    expect(field('volume.encrypted')).toEqual({ path: 'volume.encrypted', value: true, from: 'built-in' });
  });

  it('lists the instance types it admits, by family with their sizes', () => {
    expect(e.instanceTypes).toEqual(['m7g.large', 'm7g.xlarge']);
    expect(e.families).toEqual([{ family: 'm7g', count: 2, sizes: ['large', 'xlarge'] }]);
  });

  it('gives their on-demand price range and the most the pool can cost at its limits', () => {
    const catalog = karpenterCatalog();
    const [large, xlarge] = ['m7g.large', 'm7g.xlarge'].map((n) => catalog.instanceType(n)!);
    expect(e.onDemandPricePerHour).toEqual({ min: large.price, max: xlarge.price, region: 'us-east-1' });
    // 8 vCPUs at the highest price per vCPU; 64Gi at the highest price per GiB; the tighter wins.
    const perCpu = Math.max(...[large, xlarge].map((t) => t.price! / Number(t.labels.get('karpenter.k8s.aws/instance-cpu'))));
    const perGiB = Math.max(...[large, xlarge].map((t) => t.price! / (Number(t.labels.get('karpenter.k8s.aws/instance-memory')) / 1024)));
    expect(e.maxCostPerHour).toBeCloseTo(Math.min(8 * perCpu, 64 * perGiB), 3);
  });

  it('says a pool without a bounding limit is unbounded', () => {
    const { configPath } = writeProject({ config: aConfig({ defaults: { limits: { nodes: '5' } }, teams: { web: { instanceTypes: ['m7i.large'] } } }) });
    const bounded = explainPool(loadPlatform(configPath, { provenance: true }).platform, 'demo', 'web') as PoolExplanation;
    expect(bounded.maxCostPerHour).toBeCloseTo(5 * karpenterCatalog().instanceType('m7i.large')!.price!, 3);
    const { configPath: unbounded } = writeProject({ config: aConfig({ defaults: { limits: undefined } }) });
    expect((explainPool(loadPlatform(unbounded, { provenance: true }).platform, 'demo', 'web') as PoolExplanation).maxCostPerHour).toBeNull();
  });

  it('names the pools there are when asked for one that does not exist', () => {
    expect(explainPool(platform, 'staging', 'web-gpu')).toBe('cluster staging has no pool "web-gpu" (pools: web, web-batch)');
    expect(explainPool(platform, 'prod', 'web')).toBe('no cluster "prod" (clusters: staging)');
  });
});

describe('npm run explain', () => {
  async function cli(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await run(args, { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
    return { code, out: out.join('\n'), err: err.join('\n') };
  }
  const project = fleet();

  it('prints the fields, the types, the prices and the cost bound for a terminal', async () => {
    const r = await cli(['explain', 'staging/web-batch', '--config', project.configPath]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^pool web-batch of cluster staging \(team web\)$/m);
    expect(r.out).toMatch(/^ {2}weight\s+7\s+cluster-pool\s+\S*platform\.yaml:\d+:\d+$/m);
    expect(r.out).toMatch(/^instance types: 2 admitted, by family \(smallest to largest size\):\n {2}m7g: large to xlarge \(2\)$/m);
    expect(r.out).toMatch(/^on-demand price \(us-east-1 list prices after NodeOverlays\): \$\d+\.\d{4} to \$\d+\.\d{4} per node-hour$/m);
    expect(r.out).toMatch(/^at most per hour, with its limits reached: \$\d+\.\d\d on demand \(bound by (cpu: 8|memory: 64Gi); ceiling at us-east-1 on-demand list price after NodeOverlays, not a forecast\)$/m);
  });

  it('prints one JSON object with --format json, in the contract\'s shape', async () => {
    const r = await cli(['explain', 'staging/web-batch', '--config', project.configPath, '--format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({
      cluster: 'staging', pool: 'web-batch', instanceTypes: ['m7g.large', 'm7g.xlarge'],
      fields: expect.arrayContaining([{ path: 'weight', value: 7, from: 'cluster-pool', at: expect.stringMatching(/platform\.yaml:\d+:\d+$/) }]),
      onDemandPricePerHour: { min: expect.any(Number), max: expect.any(Number), region: 'us-east-1' },
      maxCostPerHour: expect.any(Number),
    });
  });

  it('fails for a pool that does not exist (exit 1) and for bad usage (exit 2)', async () => {
    expect(await cli(['explain', 'staging/nope', '--config', project.configPath])).toMatchObject({ code: 1, err: 'error: cluster staging has no pool "nope" (pools: web, web-batch)' });
    // A cluster's id alone is a pool's name to explain on every cluster: there is none of that name.
    expect(await cli(['explain', 'staging', '--config', project.configPath])).toMatchObject({ code: 1, err: 'error: cluster staging has no pool "staging" (pools: web, web-batch)' });
    expect((await cli(['explain', 'a/b/c', '--config', project.configPath])).code).toBe(2);
    expect((await cli(['explain', 'staging/web', '--format', 'markdown', '--config', project.configPath])).code).toBe(2);
  });
});

describe('explaining a pool with a scheduled budget', () => {
  it('says the schedule is UTC', () => {
    const project = writeProject({
      config: aConfig({ teams: { web: { disruption: { budgets: [{ nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }] } } } }),
    });
    const { platform } = loadPlatform(project.configPath, { provenance: true });
    const e = explainPool(platform, 'demo', 'web') as PoolExplanation;
    expect(renderExplanation(e)).toMatch(/disruption\.budgets\S*\s+.*"schedule":"0 9 \* \* mon-fri".* \(UTC\)/);
  });
});
