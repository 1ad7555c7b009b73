import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { loadPlatform } from '../src/config/load';
import { synthesize } from '../src/synth';

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
    cpSync('config', join(dir, 'config'), { recursive: true });
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

describe('npm run, from a subfolder', () => {
  it('reads --config from where npm was run (INIT_CWD) and shows paths from there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-initcwd-'));
    try {
      cpSync('config', join(dir, 'config'), { recursive: true });
      const root = process.cwd();
      // What npm passes a script run from dir: the package root as working directory, dir as INIT_CWD.
      const r = spawnSync(process.execPath, [join(root, 'scripts/run.cjs'), 'synth', '--config', 'config/platform.yaml', '--outdir', 'out'], {
        cwd: root, encoding: 'utf8', env: { ...process.env, INIT_CWD: dir, npm_package_json: join(root, 'package.json') },
      });
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^out\/dist and out\/argocd: 19 files/m);
      expect(statSync(join(dir, 'out/dist/SUMMARY.md')).isFile()).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
