/**
 * The cost bound of `npm run explain` for every kind of limit, with figures computed by hand
 * from the catalog (Karpenter 1.14.1, us-east-1 list prices):
 *
 * | type        | $/hour | vCPUs | memory MiB | ephemeral-storage MiB (allocatable) | pods | GPUs |
 * | ----------- | ------ | ----- | ---------- | ----------------------------------- | ---- | ---- |
 * | m7g.large   | 0.0816 | 2     | 8192       | 17408                               | 29   | -    |
 * | m7g.xlarge  | 0.1632 | 4     | 16384      | 17408                               | 58   | -    |
 * | g5.xlarge   | 1.006  | 4     | 16384      | 17408                               | 58   | 1    |
 * | g5.2xlarge  | 1.212  | 8     | 32768      | 17408                               | 58   | 1    |
 */
import { karpenterCatalog } from '../../src/catalog/catalog';
import { run } from '../../src/cli';
import { loadPlatform } from '../../src/config/load';
import { explainPool, PoolExplanation } from '../../src/explain/explain';
import { aConfig, removeProjects, writeProject } from '../builders';

afterAll(removeProjects);

const M7G = ['m7g.large', 'm7g.xlarge'];
const G5 = ['g5.xlarge', 'g5.2xlarge'];

/** Team web's pool: the given types and limits, arm64 for Graviton, a GPU smoke test for GPU types. */
function web(instanceTypes: string[], limits: Record<string, string>) {
  const gpu = instanceTypes[0].startsWith('g5');
  return { instanceTypes, limits, arch: [gpu ? 'amd64' : 'arm64'], ...(gpu ? { smokeTest: { resources: { 'nvidia.com/gpu': 1 } } } : {}) };
}

function explain(instanceTypes: string[], limits: Record<string, string>): PoolExplanation {
  const { configPath } = writeProject({ config: aConfig({ defaults: { limits: undefined }, teams: { web: web(instanceTypes, limits) } }) });
  return explainPool(loadPlatform(configPath, { provenance: true }).platform, 'demo', 'web') as PoolExplanation;
}

describe('the figures the bound is computed from', () => {
  it('are the catalog\'s, as the table above says', () => {
    const c = karpenterCatalog();
    const row = (name: string) => {
      const t = c.instanceType(name)!;
      return [t.price, Number(t.labels.get('karpenter.k8s.aws/instance-cpu')), Number(t.labels.get('karpenter.k8s.aws/instance-memory')),
        t.allocatable.get('ephemeral-storage'), t.allocatable.get('pods'), Number(t.labels.get('karpenter.k8s.aws/instance-gpu-count') ?? 0)];
    };
    expect([...M7G, ...G5].map(row)).toEqual([
      [0.0816, 2, 8192, 17408, 29, 0], [0.1632, 4, 16384, 17408, 58, 0], [1.006, 4, 16384, 17408, 58, 1], [1.212, 8, 32768, 17408, 58, 1],
    ]);
  });
});

describe('the most a pool can cost per hour, for each kind of limit', () => {
  it('cpu: 8 vCPUs at the dearer $/vCPU, max(0.0816/2, 0.1632/4) = 0.0408, is $0.3264', () => {
    expect(explain(M7G, { cpu: '8' })).toMatchObject({ maxCostPerHour: 0.3264, boundBy: 'cpu: 8' });
  });

  it('cpu in millicores: 8000m is the same 8 × 0.0408 = $0.3264', () => {
    expect(explain(M7G, { cpu: '8000m' })).toMatchObject({ maxCostPerHour: 0.3264, boundBy: 'cpu: 8000m' });
  });

  it('memory: 64Gi = 65536 MiB at 0.0816/8192 $/MiB (both types alike) = 8 × 0.0816 = $0.6528', () => {
    expect(explain(M7G, { memory: '64Gi' })).toMatchObject({ maxCostPerHour: 0.6528, boundBy: 'memory: 64Gi' });
  });

  it('fails when ephemeral-storage is read in bytes against the catalog\'s MiB: 100Gi = 102400 MiB × 0.1632/17408 = 16.32/17 = $0.96', () => {
    // Before the fix: 107374182400 bytes × 0.1632/17408 = $1006632.96.
    expect(explain(M7G, { 'ephemeral-storage': '100Gi' })).toMatchObject({ maxCostPerHour: 0.96, boundBy: 'ephemeral-storage: 100Gi' });
  });

  it('fails when an ephemeral-storage bound is hidden by a cpu limit: 10Gi = 10240 MiB × 0.1632/17408 = $0.096 < cpu 8 → $0.3264', () => {
    expect(explain(M7G, { cpu: '8', 'ephemeral-storage': '10Gi' })).toMatchObject({ maxCostPerHour: 0.096, boundBy: 'ephemeral-storage: 10Gi' });
  });

  it('pods: 58 pods at max(0.0816/29, 0.1632/58) = 0.0816/29 $/pod = 2 × 0.0816 = $0.1632', () => {
    expect(explain(M7G, { pods: '58' })).toMatchObject({ maxCostPerHour: 0.1632, boundBy: 'pods: 58' });
  });

  it('nodes: 3 nodes at the dearer node, 3 × 0.1632 = $0.4896', () => {
    expect(explain(M7G, { nodes: '3' })).toMatchObject({ maxCostPerHour: 0.4896, boundBy: 'nodes: 3' });
  });

  it('nvidia.com/gpu: 2 GPUs at the dearer $/GPU, max(1.006/1, 1.212/1) = 1.212, is $2.424', () => {
    expect(explain(G5, { 'nvidia.com/gpu': '2' })).toMatchObject({ maxCostPerHour: 2.424, boundBy: 'nvidia.com/gpu: 2' });
  });

  it('hugepages-2Mi: no admitted type lists hugepages, so the limit bounds nothing', () => {
    expect(explain(M7G, { 'hugepages-2Mi': '1Gi' }).maxCostPerHour).toBeNull();
  });

  it('prints the fixed figure on the command line', async () => {
    const { configPath } = writeProject({ config: aConfig({ defaults: { limits: undefined }, teams: { web: web(M7G, { 'ephemeral-storage': '100Gi' }) } }) });
    const out: string[] = [];
    expect(await run(['explain', 'demo/web', '--config', configPath], { out: (l) => out.push(l), err: () => undefined }, {})).toBe(0);
    expect(out.join('\n')).toMatch(/^at most per hour, with its limits reached: \$0\.96 on demand \(bound by ephemeral-storage: 100Gi; ceiling at us-east-1 on-demand list price after NodeOverlays, not a forecast\)$/m);
  });
});
