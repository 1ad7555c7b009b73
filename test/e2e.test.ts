import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import pkg from '../package.json';
import { CHART_VERSION } from '../src/release/chart-values-keys.generated';
import { loadPlatform } from '../src/config/load';
import { synthesize } from '../src/synth';
import { copyExample } from './builders';

/** The real entry of `npm run synth`: the bundle, with YAML rendered on a worker thread. */
function synthProcess(args: string[], cwd: string) {
  return spawnSync(process.execPath, [join(__dirname, '..', 'scripts', 'run.cjs'), 'synth', ...args], { cwd, encoding: 'utf8' });
}

function files(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(root, p), readFileSync(p, 'utf8'));
    }
  };
  for (const d of ['dist', 'argocd']) walk(join(root, d));
  return out;
}

describe('npm run synth, as a process', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kg-e2e-'));
    copyExample(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the same files as the in-process synth, and exits 0', () => {
    const r = synthProcess([], dir);
    // Nothing on stderr but, while a Karpenter upgrade is staged, that the example's cluster is still on the older version.
    expect(r.stderr.split('\n').filter((l) => l !== '' && !/runs Karpenter [\d.]+, older than the [\d.]+ the generator was upgraded to/.test(l))).toEqual([]);
    expect(r.status).toBe(0);
    expect(files(dir)).toEqual(synthesize(loadPlatform(join(dir, 'config/platform.yaml')).platform));
  });

  it('exits 1 on invalid input, printing problems without a stack trace', () => {
    const bad = join(dir, 'config/bad.yaml');
    writeFileSync(bad, readFileSync(join(dir, 'config/platform.yaml'), 'utf8').replace('version: 1.14.1', 'version: v1.14'));
    const r = synthProcess(['--config', 'config/bad.yaml', '--outdir', 'out'], dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^config\/bad\.yaml:\d+:\d+: karpenter\.version: "v1\.14": must be an exact version such as 1\.14\.1/m);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('exits 2 on bad usage', () => {
    expect(synthProcess(['--bogus'], dir).status).toBe(2);
  });
});

describe('scripts/run.cjs when imports/ is missing or broken', () => {
  let dir: string;
  /** A copy of what the bundle is built from (node_modules linked), without its bundle. */
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kg-imports-'));
    for (const p of ['src', 'scripts', 'imports', 'package.json', 'package-lock.json']) cpSync(p, join(dir, p), { recursive: true });
    copyExample(dir);
    symlinkSync(realpathSync('node_modules'), join(dir, 'node_modules'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const runIn = (...args: string[]) => spawnSync(process.execPath, [join(dir, 'scripts/run.cjs'), ...args], { cwd: dir, encoding: 'utf8' });

  it('names a missing file of imports/ and how to restore it, without a stack trace', () => {
    rmSync(join(dir, 'imports/karpenter.sh.ts'));
    const r = runIn('synth');
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')).toEqual([
      'error: imports/karpenter.sh.ts is missing: karpenter-gitops is built from the classes `cdk8s import` generated from the Karpenter and Argo CD CRDs',
      '  restore the committed files: git checkout imports/',
      `  or regenerate imports/karpenter.sh.ts for the Karpenter version in use: npm run upgrade -- ${CHART_VERSION}`,
      '',
    ]);
  });

  it('names every missing file when imports/ is gone', () => {
    rmSync(join(dir, 'imports'), { recursive: true });
    const r = runIn('check');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error: imports\/karpenter\.sh\.ts, imports\/karpenter\.k8s\.aws\.ts, imports\/autoscaling\.x-k8s\.io\.ts, imports\/argoproj\.io\.ts are missing: /);
    expect(r.stderr).toMatch(/git checkout imports\//);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('prints esbuild\'s message, located, for a broken file of imports/, and how to restore it', () => {
    const file = join(dir, 'imports/karpenter.k8s.aws.ts');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 5000));
    const r = runIn('synth');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error: imports\/karpenter\.k8s\.aws\.ts:\d+:\d+: /m);
    expect(r.stderr).toMatch(/^imports\/ looks broken .*\n {2}restore the committed files: git checkout imports\/\n {2}or regenerate imports\/karpenter\.k8s\.aws\.ts/m);
    expect(r.stderr).toMatch(/nothing was run\n$/);
    expect(r.stderr).not.toMatch(/^\s+at |node_modules\/esbuild/m);
  });

  it('prints esbuild\'s messages without its stack for any other build error', () => {
    writeFileSync(join(dir, 'src/synth.ts'), `${readFileSync(join(dir, 'src/synth.ts'), 'utf8')}\nexport const broken = ;\n`);
    const r = runIn('synth');
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')).toEqual([
      expect.stringMatching(/^error: src\/synth\.ts:\d+:\d+: Unexpected ";"$/),
      'karpenter-gitops could not be built from src/ (esbuild\'s errors above); nothing was run',
      '',
    ]);
  });

  it('runs the upgrade without imports/: it is how they are regenerated', () => {
    rmSync(join(dir, 'imports/karpenter.sh.ts'));
    const r = runIn('upgrade', '--version');
    expect([r.status, r.stdout.trim()]).toEqual([0, `karpenter-gitops ${pkg.version} (generates for Karpenter ${CHART_VERSION})`]);
  });
});

describe('npm run, from a subfolder', () => {
  it('reads --config from where npm was run (INIT_CWD) and shows paths from there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-initcwd-'));
    try {
      copyExample(dir);
      const root = join(__dirname, '..');
      // What npm passes a script run from dir: the package root as working directory, dir as INIT_CWD.
      const r = spawnSync(process.execPath, [join(root, 'scripts/run.cjs'), 'synth', '--config', 'config/platform.yaml', '--outdir', 'out'], {
        cwd: root, encoding: 'utf8', env: { ...process.env, INIT_CWD: dir, npm_package_json: join(root, 'package.json') },
      });
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^out\/dist and out\/argocd: 22 files/m);
      expect(statSync(join(dir, 'out/dist/SUMMARY.md')).isFile()).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
