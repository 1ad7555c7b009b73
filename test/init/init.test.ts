import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { run } from '../../src/cli';
import { filesUnder } from '../support/snapshot';
import { CHART_VERSION } from '../../src/release/chart-values-keys.generated';
import { configState, EXAMPLE_MANIFEST, sha256 } from '../../src/init/example';
import { EXAMPLE_CONFIG_DIR } from '../builders';

/** The repository's root, whatever the working directory the tests run from. */
const ROOT = join(__dirname, '..', '..');
const FIXTURES = join(__dirname, '..', 'fixtures', 'init');
const TERRAFORM = join(FIXTURES, 'north-lab.json');


/**
 * A repository as a clone of karpenter-gitops is: the code (node_modules linked), a stand-in for
 * the example in config/ with its example.sha256, and the example's dist/ and argocd/, synthesized.
 */
function cloneOfTheExample(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kg-init-'));
  for (const p of ['src', 'scripts', 'imports', 'schema', 'package.json', 'package-lock.json', 'tsconfig.json', 'cdk8s.yaml']) {
    cpSync(join(ROOT, p), join(dir, p), { recursive: true });
  }
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(dir, 'node_modules'));
  cpSync(join(FIXTURES, 'example'), join(dir, 'config'), { recursive: true });
  const listed = ['platform.yaml', 'terraform/demo.json'];
  writeFileSync(join(dir, 'config', EXAMPLE_MANIFEST), listed.map((f) => `${sha256(readFileSync(join(dir, 'config', f), 'utf8'))}  ${f}\n`).join(''));
  expect(npm(dir, 'synth').status).toBe(0);
  return dir;
}

/** `npm run COMMAND -- ARGS` in `repo`, from `from` (npm's INIT_CWD), through the real entry. */
function npm(repo: string, command: string, args: readonly string[] = [], from = repo) {
  return spawnSync(process.execPath, [join(repo, 'scripts/run.cjs'), command, ...args], {
    cwd: repo, encoding: 'utf8', env: { ...process.env, INIT_CWD: from, npm_package_json: join(repo, 'package.json'), NO_COLOR: '1' },
  });
}

describe('npm run init, in a clone of the example', () => {
  let base: string;
  let repo: string;
  // One clone is synthesized (and its bundle built) once; each test works on a copy of it.
  beforeAll(() => { base = cloneOfTheExample(); }, 120_000);
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), 'kg-init-'));
    cpSync(base, repo, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it('makes config/ a fleet of the new cluster: synth and check then pass, and the generated files name only it', () => {
    const init = npm(repo, 'init', ['north-lab', '--terraform', TERRAFORM, '--repo', 'https://git.example.org/north/fleet.git']);
    expect(init.stderr).toBe('');
    expect(init.status).toBe(0);
    expect(init.stdout).toMatch(/^wrote config\/platform\.yaml: cluster north-lab \(terraform\/north-lab\.json\), Karpenter [\d.]+, one example team: apps$/m);
    expect(init.stdout).toMatch(/^removed config\/terraform\/demo\.json \(the example's\)$/m);
    expect(init.stdout).toMatch(/^removed config\/example\.sha256 \(the example's\)$/m);
    expect([...filesUnder(repo, ['config']).keys()].sort()).toEqual(['config/platform.yaml', 'config/terraform/north-lab.json']);
    expect(readFileSync(join(repo, 'config/terraform/north-lab.json'), 'utf8')).toBe(readFileSync(TERRAFORM, 'utf8'));
    const config = parse(readFileSync(join(repo, 'config/platform.yaml'), 'utf8'));
    expect(config).toMatchObject({
      gitops: { repoURL: 'https://git.example.org/north/fleet.git' },
      karpenter: { version: CHART_VERSION },
      clusters: { 'north-lab': { terraformOutputs: 'terraform/north-lab.json' } },
      teams: { apps: { limits: { cpu: '32', memory: '128Gi' } } },
    });

    const synth = npm(repo, 'synth');
    expect(synth.stderr).toBe('');
    expect(synth.status).toBe(0);
    expect(npm(repo, 'check')).toMatchObject({ status: 0, stdout: expect.stringMatching(/^dist\/ and argocd\/ are up to date/) });
    const generated = filesUnder(repo, ['dist', 'argocd']);
    expect([...generated.keys()].filter((p) => p.startsWith('dist/')).map((p) => p.split('/')[1]).filter((c) => c !== 'SUMMARY.md'))
      .toEqual(expect.arrayContaining(['north-lab']));
    expect([...generated.keys()].every((p) => !/demo|dataops|web/.test(p))).toBe(true);
    for (const [path, text] of generated) expect({ path, example: /\b(demo|dataops|acme)\b/.test(text) }).toEqual({ path, example: false });
    expect(generated.get('argocd/north-lab.yaml')).toMatch(/repoURL: https:\/\/git\.example\.org\/north\/fleet\.git/);
  });

  it('keeps the example\'s gitops.repoURL without --repo, and says to change it', () => {
    const init = npm(repo, 'init', ['north-lab', '--terraform', TERRAFORM]);
    expect(init.status).toBe(0);
    expect(init.stdout).toMatch(/^gitops\.repoURL is still the example's, https:\/\/github\.com\/acme\/platform-gitops\.git: set it in config\/platform\.yaml/m);
    expect(parse(readFileSync(join(repo, 'config/platform.yaml'), 'utf8')).gitops).toEqual({ repoURL: 'https://github.com/acme/platform-gitops.git', targetRevision: 'main' });
  });

  it('fails when the Terraform outputs file is wrong, naming the file as given and the output, and writes nothing', () => {
    mkdirSync(join(repo, 'ops'));
    cpSync(join(FIXTURES, 'north-lab-mixed-up.json'), join(repo, 'ops/north-lab.json'));
    const before = filesUnder(repo, ['config', 'dist', 'argocd']);
    const init = npm(repo, 'init', ['north-lab', '--terraform', 'north-lab.json'], join(repo, 'ops'));
    expect(init.status).toBe(1);
    expect(init.stderr).toMatch(/^north-lab\.json:\d+:\d+: cluster_name\.value: expected the cluster name, got an ARN: use "north-lab-eks"$/m);
    expect(init.stderr).toMatch(/^1 problem\(s\) found; nothing was written$/m);
    expect(init.stderr).not.toMatch(/^\s+at /m);
    expect(filesUnder(repo, ['config', 'dist', 'argocd'])).toEqual(before);
  });

  it('fails when the Terraform outputs file is not there, writing nothing', () => {
    const before = filesUnder(repo, ['config']);
    const init = npm(repo, 'init', ['north-lab', '--terraform', 'nowhere.json']);
    expect(init).toMatchObject({ status: 1, stderr: expect.stringMatching(/^nowhere\.json: file not found$/m) });
    expect(filesUnder(repo, ['config'])).toEqual(before);
  });

  it('refuses an edited config/ without --force, writing nothing; --force replaces platform.yaml and keeps what is not the example\'s', () => {
    const platform = join(repo, 'config/platform.yaml');
    writeFileSync(platform, readFileSync(platform, 'utf8').replace('cpu: "10"', 'cpu: "20"'));
    writeFileSync(join(repo, 'config/terraform/prod.json'), readFileSync(join(repo, 'config/terraform/demo.json')));
    const before = filesUnder(repo, ['config']);
    const refused = npm(repo, 'init', ['north-lab', '--terraform', TERRAFORM]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^error: config\/ is no longer the example karpenter-gitops ships \(platform\.yaml changed, terraform\/prod\.json added\): .*--force.*; nothing was written$/m);
    expect(filesUnder(repo, ['config'])).toEqual(before);

    const forced = npm(repo, 'init', ['north-lab', '--terraform', TERRAFORM, '--force']);
    expect(forced.status).toBe(0);
    expect(forced.stdout).toMatch(/^kept config\/terraform\/prod\.json: not the example's/m);
    expect(forced.stdout).toMatch(/^gitops\.repoURL: https:\/\/github\.com\/acme\/platform-gitops\.git \(kept from the config it replaced\)$/m);
    expect([...filesUnder(repo, ['config']).keys()].sort()).toEqual(['config/platform.yaml', 'config/terraform/north-lab.json', 'config/terraform/prod.json']);
  });

  it('prints what docs/making-it-yours.md shows', () => {
    const doc = readFileSync(join(ROOT, 'docs/making-it-yours.md'), 'utf8');
    const block = (first: string) => [...doc.matchAll(/```\n([^`]*)```/g)].map((m) => m[1].trimEnd()).find((b) => b.startsWith(first)) ?? '';
    // The documented run: the repository and ../lab.json beside it.
    const outer = mkdtempSync(join(tmpdir(), 'kg-init-doc-'));
    try {
      const clone = join(outer, 'repo');
      cpSync(repo, clone, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
      cpSync(TERRAFORM, join(outer, 'lab.json'));
      const init = npm(clone, 'init', ['lab', '--terraform', '../lab.json', '--repo', 'https://github.com/north/platform-gitops.git']);
      expect(init.status).toBe(0);
      expect(init.stdout.split('\n').slice(0, 5).join('\n')).toBe(block('wrote config/platform.yaml').replace('1.14.1', CHART_VERSION));
    } finally {
      rmSync(outer, { recursive: true, force: true });
    }
    const platform = join(repo, 'config/platform.yaml');
    writeFileSync(platform, `${readFileSync(platform, 'utf8')}\n`);
    writeFileSync(join(repo, 'config/terraform/prod.json'), '{}');
    expect(npm(repo, 'init', ['lab', '--terraform', TERRAFORM]).stderr.trimEnd()).toBe(block('error: config/ is no longer'));
  });

  it('takes a Terraform outputs file the user already copied to config/terraform/CLUSTER.json as no edit of the example', () => {
    cpSync(TERRAFORM, join(repo, 'config/terraform/north-lab.json'));
    const init = npm(repo, 'init', ['north-lab', '--terraform', 'config/terraform/north-lab.json']);
    expect(init.status).toBe(0);
    expect([...filesUnder(repo, ['config']).keys()].sort()).toEqual(['config/platform.yaml', 'config/terraform/north-lab.json']);
  });
});

describe('npm run init, on the command line', () => {
  async function cli(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await run(args, { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('has its own --help', async () => {
    const r = await cli(['init', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^usage: npm run init -- CLUSTER --terraform FILE \[--repo URL\] \[--force\]$/m);
    expect(r.out).toMatch(/^ {2}--force {2,}replace config\/platform\.yaml/m);
  });

  it.each([
    ['Lab', /^error: "Lab" cannot be a cluster id: it must be a DNS-1123 label/m],
    ['bootstrap', /^error: "bootstrap" cannot be a cluster id: it is the name of a file the generator writes in argocd\//m],
  ])('fails as bad usage (exit 2) for the cluster id %s, checked by the schema\'s rules', async (id, message) => {
    const r = await cli(['init', id, '--terraform', TERRAFORM]);
    expect(r).toMatchObject({ code: 2, err: expect.stringMatching(message) });
  });

  it('fails as bad usage without --terraform or without a cluster', async () => {
    expect(await cli(['init', 'north-lab'])).toMatchObject({ code: 2, err: expect.stringMatching(/^error: init needs --terraform FILE/m) });
    expect(await cli(['init', '--terraform', TERRAFORM])).toMatchObject({ code: 2, err: expect.stringMatching(/^error: init needs the id of your first cluster/m) });
  });
});

describe(`config/${EXAMPLE_MANIFEST}`, () => {
  // It describes the example (test/fixtures/example is its copy), not whatever config/ holds now:
  // a team that copied its own fleet over config/ and kept the marker still has a passing suite.
  // Once init made the repository someone's own, the marker is gone.
  (existsSync(join('config', EXAMPLE_MANIFEST)) ? it : it.skip)('describes the example config (edit the example: regenerate it, see src/init/example.ts)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-example-'));
    cpSync(EXAMPLE_CONFIG_DIR, dir, { recursive: true });
    copyFileSync(join('config', EXAMPLE_MANIFEST), join(dir, EXAMPLE_MANIFEST));
    expect(configState(dir)).toMatchObject({ untouched: true, changes: [] });
  });
});
