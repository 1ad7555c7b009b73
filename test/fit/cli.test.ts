/**
 * `fit MANIFEST` end to end through the command line's run(), on the example config
 * (test/fixtures/example: one cluster, demo, with pools dataops, web and ml-gpu).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli';
import { WORKLOAD_KINDS } from '../../src/fit/manifest';
import { copyExample, positionOf } from '../builders';
import { aContainer, aPodSpec, aService, aWorkload, manifest } from './builders';

let dir: string;
let config: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kg-fit-'));
  config = copyExample(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a manifest into the test folder (outside the config's folder) and returns its path. */
function write(text: string, name = 'app.yaml'): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function fit(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(['fit', ...args], { out: (l) => out.push(l), err: (l) => err.push(l) }, env);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const api = aWorkload('Deployment', aPodSpec({
  nodeSelector: { team: 'web' },
  containers: [aContainer({ requests: { cpu: '500m', memory: '1Gi' } })],
}), { name: 'api', namespace: 'shop' });

const training = aWorkload('Job', aPodSpec({
  tolerations: [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }, { key: 'nvidia.com/gpu', operator: 'Exists' }],
  containers: [aContainer({ limits: { 'cpu': '8', 'memory': '32Gi', 'nvidia.com/gpu': 1 } })],
}), { name: 'train', namespace: 'ml' });

describe('fit MANIFEST', () => {
  it('prints, per workload, the pools it fits and why not the others, then what it skipped', async () => {
    const r = await fit([write(manifest(api, training, aService('api', 'shop'))), '--config', config]);
    expect(r).toEqual({
      code: 0,
      err: '',
      out: [
        'Deployment shop/api: fits 1 of 3 pools',
        '  ✓ demo/web      134 instance types can hold it ($0.0513 to $0.8354 per node-hour)',
        '  ✗ demo/dataops  untolerated taint dedicated=dataops:NoSchedule',
        '  ✗ demo/ml-gpu   untolerated taints dedicated=ml:NoSchedule, nvidia.com/gpu=true:NoSchedule',
        '',
        'Job ml/train: fits 1 of 3 pools',
        '  ✓ demo/ml-gpu   12 instance types can hold it ($1.3232 to $16.2880 per node-hour)',
        '  ✗ demo/dataops  untolerated taint dedicated=dataops:NoSchedule',
        '  ✗ demo/web      requests 1 nvidia.com/gpu: no instance type the pool admits has nvidia.com/gpu',
        '',
        'skipped (fit reads Pod, Deployment, StatefulSet, DaemonSet, Job and CronJob):',
        '  Service shop/api',
      ].join('\n'),
    });
  });

  it('prints one JSON object with --format json: every kind, each pool a fit, refused by admission or rejected with its reason', async () => {
    const spec = aPodSpec({ tolerations: [{ key: 'dedicated', value: 'dataops', effect: 'NoSchedule' }] });
    const text = manifest(...WORKLOAD_KINDS.map((kind) => aWorkload(kind, spec, { name: kind.toLowerCase() })), aService());
    const r = await fit([write(text), '--config', config, '--format', 'json']);
    expect(r.code).toBe(0);
    const answer = JSON.parse(r.out);
    expect(Object.keys(answer)).toEqual(['workloads', 'skipped']);
    expect(answer.workloads).toEqual(WORKLOAD_KINDS.map((kind) => ({
      kind,
      namespace: 'default',
      name: kind.toLowerCase(),
      fits: [
        { cluster: 'demo', pool: 'dataops', instanceTypes: 177, onDemandPricePerHour: { min: expect.any(Number), max: expect.any(Number), region: 'us-east-1' } },
        { cluster: 'demo', pool: 'web', instanceTypes: 134, onDemandPricePerHour: { min: expect.closeTo(0.0513, 4), max: 0.8354, region: 'us-east-1' } },
      ],
      refused: [],
      rejected: [{ cluster: 'demo', pool: 'ml-gpu', reason: 'untolerated taints dedicated=ml:NoSchedule, nvidia.com/gpu=true:NoSchedule' }],
    })));
    expect(answer.skipped).toEqual([{ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'app' }]);
  });

  it('exits 0 when nothing fits: it answers a question, it is not a gate', async () => {
    const huge = aWorkload('Pod', aPodSpec({ containers: [aContainer({ requests: { cpu: '1000' } })] }), { name: 'huge' });
    const r = await fit([write(manifest(huge)), '--config', config]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Pod default\/huge: fits no pool$/m);
  });

  it('says so when the manifest holds no workload', async () => {
    const r = await fit([write(manifest(aService())), '--config', config]);
    expect(r.out.split('\n')[0]).toBe('no workloads found (fit reads Pod, Deployment, StatefulSet, DaemonSet, Job and CronJob)');
  });

  it('reads a relative MANIFEST from where npm was run (INIT_CWD)', async () => {
    write(manifest(api), 'api.yaml');
    const r = await fit(['api.yaml', '--config', config], { INIT_CWD: dir });
    expect([r.code, r.out.split('\n')[0]]).toEqual([0, 'Deployment shop/api: fits 1 of 3 pools']);
  });
});

describe('docs/dry-run.md', () => {
  const section = readFileSync(join(__dirname, '../../docs/dry-run.md'), 'utf8').split('## Will it fit?')[1].split('\n## ')[0];
  const [, yaml] = /```yaml\n([\s\S]*?)```/.exec(section) ?? [];

  it('shows a real run of the example config: its manifest gives exactly the output it shows', async () => {
    const [, shown] = /prints[^\n]*\n\n```\n([\s\S]*?)```/.exec(section) ?? [];
    const r = await fit([write(yaml, 'shop.yaml'), '--config', config]);
    expect(r).toEqual({ code: 0, err: '', out: shown.trimEnd() });
  });

  it('shows a real --format json answer: the workload it shows as the run gives it, and the skipped objects', async () => {
    const [, shown] = /```json\n([\s\S]*?)```/.exec(section) ?? [];
    const example = JSON.parse(shown) as { workloads: { kind: string; name: string }[]; skipped: unknown[] };
    const r = await fit([write(yaml, 'shop.yaml'), '--config', config, '--format', 'json']);
    const answer = JSON.parse(r.out) as typeof example;
    for (const w of example.workloads) expect(answer.workloads.find((a) => a.kind === w.kind && a.name === w.name)).toEqual(w);
    expect(answer.skipped).toEqual(example.skipped);
  });
});

describe('fit: bad usage exits 2 with the usage', () => {
  it.each([
    ['no MANIFEST', [], 'error: fit needs a MANIFEST: a YAML file of Kubernetes objects'],
    ['two manifests', ['a.yaml', 'b.yaml'], 'error: fit takes one MANIFEST, got 2: a.yaml b.yaml'],
    ['a format fit does not print', ['a.yaml', '--format', 'markdown'], 'error: unknown format "markdown" for --format (allowed: terminal, json)'],
    ['an option of another command', ['a.yaml', '--outdir', 'out'], 'error: --outdir does not go with fit (fit takes --config, --cluster, --stage, --group and --format)'],
    ['a diff gate', ['a.yaml', '--fail-on', 'destructive'], 'error: --fail-on does not go with fit (fit takes --config, --cluster, --stage, --group and --format)'],
  ])('%s', async (_, args, message) => {
    const r = await fit(args);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toBe(message);
    expect(r.err).toMatch(/^usage: npm run fit -- MANIFEST \[--config FILE\] \[--cluster CLUSTER\] \[--stage STAGE\] \[--group GROUP\] \[--format terminal\|json\]$/m);
  });
});

describe('fit: problems exit 1, each located, with no stack trace', () => {
  it('fails on a manifest that does not parse', async () => {
    const path = write('apiVersion: v1\nkind: Pod\nmetadata: { name: x\n');
    const r = await fit([path, '--config', config]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`^${path.replace(/[.]/g, '\\.')}:4:1: invalid YAML: `));
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('fails on a field the API server would reject, at its line and column', async () => {
    const text = manifest(aWorkload('Deployment', aPodSpec({ containers: [aContainer({ requests: { memory: '1 Gi' } })] })));
    const r = await fit([write(text), '--config', config]);
    expect(r.code).toBe(1);
    expect(r.err.split('\n')).toEqual([
      `${join(dir, 'app.yaml')}:${positionOf(text, '1 Gi')}: spec.template.spec.containers[0].resources.requests.memory: invalid quantity "1 Gi" (e.g. 500m, 2, 1.5Gi)`,
      '1 problem(s) found',
    ]);
  });

  it('fails on a manifest that is not there, naming it as given', async () => {
    const r = await fit(['missing.yaml', '--config', config], { INIT_CWD: dir });
    expect([r.code, r.err.split('\n')[0]]).toEqual([1, 'missing.yaml: file not found']);
  });

  it('reports the problems of the manifest and of the config at once', async () => {
    writeFileSync(config, 'gitops: {}\n');
    const r = await fit([write('kind: [\n'), '--config', config]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/app\.yaml:\d+:\d+: invalid YAML/);
    expect(r.err).toMatch(/platform\.yaml:1:9: gitops\.repoURL: required field is missing/);
  });
});
