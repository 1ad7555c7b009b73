import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { run } from '../src/cli';
import { loadPlatform } from '../src/config/load';
import { synthesize } from '../src/synth';

/** Every file under `dir`, relative to `root`, with its content. */
function tree(root: string, dirs = ['dist', 'argocd']): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  for (const d of dirs) walk(join(root, d));
  return out;
}

/** A copy of the shipped example config in a fresh folder. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kg-cli-'));
  cpSync('config', join(dir, 'config'), { recursive: true });
  return dir;
}

async function synth(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, { out: (l) => out.push(l), err: (l) => err.push(l) }, env);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('synth command', () => {
  let dir: string;
  beforeEach(() => { dir = project(); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('the committed dist/ and argocd/ are exactly what synth of config/ produces (run `npm run synth`)', async () => {
    const expected = synthesize(loadPlatform('config/platform.yaml').platform);
    expect(tree('.')).toEqual(expected);
  });

  it('writes one NodePool + EC2NodeClass file per pool and prints a table of pools', async () => {
    const r = await synth(['--config', join(dir, 'config/platform.yaml'), '--outdir', dir]);
    expect(r.code).toBe(0);
    expect([...tree(dir).keys()].filter((p) => p.includes('/nodepools/')).sort()).toEqual([
      'dist/demo/nodepools/dataops/dataops.yaml', 'dist/demo/nodepools/ml/ml-gpu.yaml', 'dist/demo/nodepools/web/web.yaml',
    ]);
    expect(r.out).toMatch(/^CLUSTER\s+POOL\s+ARCH\s+CAPACITY\s+TYPES\s+LIMITS$/m);
    expect(r.out).toMatch(/^demo\s+dataops\s+arm64\s+spot,on-demand\s+229\s+cpu=64,memory=256Gi$/m);
    expect(r.out).toMatch(/^demo\s+ml-gpu\s+amd64\s+on-demand\s+16\s+cpu=256,memory=1Ti,nvidia.com\/gpu=16$/m);
  });

  it('gives byte-identical files on a second run', async () => {
    const args = ['--config', join(dir, 'config/platform.yaml'), '--outdir', dir];
    await synth(args);
    const first = tree(dir);
    expect((await synth(args)).code).toBe(0);
    expect(tree(dir)).toEqual(first);
  });

  it('removes the files of a pool that was removed from the config', async () => {
    const config = join(dir, 'config/platform.yaml');
    await synth(['--config', config, '--outdir', dir]);
    expect(existsSync(join(dir, 'dist/demo/nodepools/ml/ml-gpu.yaml'))).toBe(true);
    const text = readFileSync(config, 'utf8');
    writeFileSync(config, text.slice(0, text.indexOf('  # Training on GPUs')));
    expect((await synth(['--config', config, '--outdir', dir])).code).toBe(0);
    expect(existsSync(join(dir, 'dist/demo/nodepools/ml/ml-gpu.yaml'))).toBe(false);
    expect(existsSync(join(dir, 'dist/demo/nodepools/web/web.yaml'))).toBe(true);
  });

  it('fails when the config is invalid: exit 1, every problem on its own line, no stack trace, outputs untouched', async () => {
    const config = join(dir, 'config/platform.yaml');
    await synth(['--config', config, '--outdir', dir]);
    const before = tree(dir);
    writeFileSync(config, readFileSync(config, 'utf8')
      .replace('capacityTypes: [spot, on-demand]', 'capacityTypes: [spott, on-demand]')
      .replace('instanceCategories: [c, m, r]', 'instanceCategoriez: [c, m, r]'));
    const r = await synth(['--config', config, '--outdir', dir]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/platform\.yaml:\d+:\d+: teams\.dataops\.capacityTypes\[0\]: unknown value "spott" \(allowed: on-demand, spot, reserved\)/);
    expect(r.err).toMatch(/platform\.yaml:\d+:\d+: teams\.dataops\.instanceCategoriez: unknown key "instanceCategoriez" \(did you mean "instanceCategories"\?\)/);
    expect(r.err).not.toMatch(/^\s+at /m);
    expect(tree(dir)).toEqual(before);
  });

  it('fails when a Terraform outputs file is missing, naming the config line that points at it', async () => {
    rmSync(join(dir, 'config/terraform/demo.json'));
    const r = await synth(['--config', join(dir, 'config/platform.yaml'), '--outdir', dir]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/platform\.yaml:\d+:\d+: clusters\.demo\.terraformOutputs: file not found: .*demo\.json \(write it with: terraform output -json > .*\)/);
    expect(existsSync(join(dir, 'dist'))).toBe(false);
  });

  it('fails cleanly when the output cannot be written, changing nothing', async () => {
    const file = join(dir, 'not-a-folder');
    writeFileSync(file, 'x');
    const r = await synth(['--config', join(dir, 'config/platform.yaml'), '--outdir', file]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error: cannot write the output under .*not-a-folder: .*; nothing was changed$/);
    expect(r.err).not.toMatch(/^\s+at /m);
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  it('replaces a file that stands where a folder of the output belongs', async () => {
    const config = join(dir, 'config/platform.yaml');
    await synth(['--config', config, '--outdir', dir]);
    const before = tree(dir);
    rmSync(join(dir, 'dist/demo/smoke-tests'), { recursive: true });
    writeFileSync(join(dir, 'dist/demo/smoke-tests'), 'in the way');
    const r = await synth(['--config', config, '--outdir', dir]);
    expect(r.code).toBe(0);
    expect(tree(dir)).toEqual(before);
  });

  it('prints warnings and still writes', async () => {
    const tf = join(dir, 'config/terraform/demo.json');
    const outputs = JSON.parse(readFileSync(tf, 'utf8'));
    delete outputs.karpenter_interruption_queue_name;
    writeFileSync(tf, JSON.stringify(outputs));
    const r = await synth(['--config', join(dir, 'config/platform.yaml'), '--outdir', dir]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^warning: .*platform\.yaml:\d+:\d+: teams\.dataops\.capacityTypes: pool dataops uses spot capacity but cluster demo has no karpenter_interruption_queue_name output/m);
  });

  it('writes next to the dist folder cdk8s synth asks for (CDK8S_OUTDIR)', async () => {
    const r = await synth(['--config', join(dir, 'config/platform.yaml')], { CDK8S_OUTDIR: join(dir, 'dist') });
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'dist/demo/nodepools/web/web.yaml'))).toBe(true);
  });
});

describe('command line usage', () => {
  it.each([
    [['--no-such-flag']],
    [['deploy']],
    [['synth', 'extra']],
    [['--config']],
  ])('exits 2 for %j', async (args) => {
    const r = await synth(args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: /);
    expect(r.err).toMatch(/usage: karpenter-gitops/);
  });

  it('prints usage for --help', async () => {
    expect(await synth(['--help'])).toMatchObject({ code: 0, out: expect.stringMatching(/usage: karpenter-gitops/) });
  });
});

describe('moving a cluster to per-team pool Applications', () => {
  let dir: string;
  beforeEach(() => { dir = project(); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The tree an earlier release wrote: its single pools Application (with the resources finalizer) and a pool file at the old place. */
  function earlierRelease() {
    mkdirSync(join(dir, 'dist/demo/apps'), { recursive: true });
    mkdirSync(join(dir, 'dist/demo/nodepools'), { recursive: true });
    // Generated by the previous release for the example config (test/fixtures/README.md).
    cpSync(join(__dirname, 'fixtures/legacy-karpenter-nodepools.yaml'), join(dir, 'dist/demo/apps/karpenter-nodepools.yaml'));
    writeFileSync(join(dir, 'dist/demo/nodepools/web.yaml'), 'kind: NodePool\n');
    return tree(dir);
  }
  const config = () => join(dir, 'config/platform.yaml');
  const setOrphan = (on: boolean) => writeFileSync(config(), readFileSync(config(), 'utf8')
    .replace(/    legacyNodepoolsApp: orphan\n/, '')
    .replace('    terraformOutputs: terraform/demo.json\n', `    terraformOutputs: terraform/demo.json\n${on ? '    legacyNodepoolsApp: orphan\n' : ''}`));

  it('refuses to remove the earlier pools Application while it carries the finalizer, changing nothing', async () => {
    const before = earlierRelease();
    const r = await synth(['--config', config(), '--outdir', dir]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error: dist\/demo\/apps\/karpenter-nodepools\.yaml is the pools Application of an earlier release and carries the resources finalizer: removing it would make Argo CD delete every pool of cluster demo \(every node drains\)\. Keep it one release, orphaned: add legacyNodepoolsApp: orphan to clusters\.demo/m);
    expect(r.err).toMatch(/nothing was changed$/);
    expect(tree(dir)).toEqual(before);
  });

  it('keeps it orphaned for one release, then removes it without deleting anything', async () => {
    earlierRelease();
    setOrphan(true);
    expect((await synth(['--config', config(), '--outdir', dir])).code).toBe(0);
    const orphaned = parse(readFileSync(join(dir, 'dist/demo/apps/karpenter-nodepools.yaml'), 'utf8'));
    expect(orphaned.metadata).not.toHaveProperty('finalizers');
    expect(orphaned.spec.syncPolicy).not.toHaveProperty('automated');
    expect(existsSync(join(dir, 'dist/demo/apps/pools-web.yaml'))).toBe(true);
    expect(existsSync(join(dir, 'dist/demo/nodepools/web.yaml'))).toBe(false);
    // Once every team's Application owns its pools: drop the line.
    setOrphan(false);
    const r = await synth(['--config', config(), '--outdir', dir]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^removed \S*dist\/demo\/apps\/karpenter-nodepools\.yaml$/m);
  });
});
