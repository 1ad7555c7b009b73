import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pkg from '../package.json';
import { filesUnder, treeDifference } from './support/snapshot';
import { run } from '../src/cli';
import { CHART_VERSION } from '../src/release/chart-values-keys.generated';
import { loadPlatform } from '../src/config/load';
import { synthesize } from '../src/synth';
import { copyExample } from './builders';
import { UserPaths } from '../src/command-line/paths';

/** A path as the command line shows it: relative to where it runs, or absolute when that is shorter (a clone in another temporary folder). */
const shown = (path: string) => new UserPaths(process.cwd()).show(path);


/** A copy of the example config (test/fixtures/example) in a fresh folder. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kg-cli-'));
  copyExample(dir);
  return dir;
}

async function synth(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, { out: (l) => out.push(l), err: (l) => err.push(l) }, env);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

// The tests never read the repository's config/, dist/ or argocd/: they are the fleet owner's, and
// `npm run check` is what says the committed output is fresh. This runs the command line on the
// example fixture instead, and a mismatch prints a few lines, whatever the fleet's size.
describe('synth of the example fixture', () => {
  it('writes exactly the files synthesize() renders for the config: none missing, none more, each byte for byte', async () => {
    const dir = project();
    try {
      expect((await synth(['--config', join(dir, 'config/platform.yaml'), '--outdir', dir])).code).toBe(0);
      const expected = synthesize(loadPlatform(join(dir, 'config/platform.yaml')).platform);
      expect(expected.size).toBeGreaterThan(10);
      expect(treeDifference(filesUnder(dir), expected)).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('treeDifference', () => {
  const tree = (n: number, edit: (i: number) => string = (i) => `file ${i}\n`) => new Map(Array.from({ length: n }, (_, i) => [`dist/c${i}/a.yaml`, edit(i)]));

  it('is empty for the same trees', () => {
    expect(treeDifference(tree(3), tree(3))).toBe('');
  });

  it('stays a few lines for a 2,000-file tree that differs everywhere: counts, the first names, the start of one diff', () => {
    const report = treeDifference(tree(2000, (i) => `changed ${i}\n`), tree(2000), { files: 3, lines: 10 });
    expect(report.split('\n').length).toBeLessThanOrEqual(13);
    expect(report).toMatch(/^2000 of 2000 files differ\nchanged \(2000\): dist\/c0\/a\.yaml, dist\/c1\/a\.yaml, dist\/c10\/a\.yaml, and 1997 more\n/);
    expect(report).toContain('-file 0');
    expect(report).toContain('+changed 0');
  });

  it('names missing and extra files', () => {
    const actual = new Map([['dist/x.yaml', 'x'], ['dist/new.yaml', 'n']]);
    expect(treeDifference(actual, new Map([['dist/x.yaml', 'x'], ['dist/gone.yaml', 'g']]))).toBe('2 of 2 files differ\nmissing (1): dist/gone.yaml\nnot expected (1): dist/new.yaml');
  });
});

describe('synth command', () => {
  let dir: string;
  beforeEach(() => { dir = project(); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one NodePool + EC2NodeClass file per pool and each cluster\'s page, and prints a short summary', async () => {
    const r = await synth(['--config', join(dir, 'config/platform.yaml'), '--outdir', dir]);
    expect(r.code).toBe(0);
    expect([...filesUnder(dir).keys()].filter((p) => p.includes('/nodepools/')).sort()).toEqual([
      'dist/demo/nodepools/dataops/dataops.yaml', 'dist/demo/nodepools/ml/ml-gpu.yaml', 'dist/demo/nodepools/web/web.yaml',
    ]);
    expect(filesUnder(dir).get('dist/demo/SUMMARY.md')).toMatch(/^# Cluster `demo` \(EKS `demo`\)\n/);
    const files = filesUnder(dir).size;
    expect(r.out.split('\n')).toEqual([
      '1 cluster, 3 pools of 3 teams; Karpenter 1.14.1',
      // The root Application argocd/demo.yaml is the cluster's; the rest of argocd/ and the summaries, the fleet's.
      `changed: cluster demo, ${files - 5} files; argocd/argocd-cm-patch.yaml, argocd/bootstrap.yaml, argocd/helm-repository.yaml, dist/SUMMARY.md, dist/summary.json`,
      `${shown(dir)}/dist and ${shown(dir)}/argocd: ${files} files (${files} written, 0 removed, 0 unchanged)`,
    ]);
    const again = await synth(['--config', join(dir, 'config/platform.yaml'), '--outdir', dir]);
    expect(again.out.split('\n').slice(1)).toEqual(['nothing changed', `${shown(dir)}/dist and ${shown(dir)}/argocd: ${files} files (0 written, 0 removed, ${files} unchanged)`]);
  });

  it('prints a row per pool with --verbose', async () => {
    const r = await synth(['--config', join(dir, 'config/platform.yaml'), '--outdir', dir, '--verbose']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^CLUSTER\s+POOL\s+ARCH\s+CAPACITY\s+TYPES\s+NODES\s+LIMITS$/m);
    expect(r.out).toMatch(/^demo\s+dataops\s+arm64\s+spot,on-demand\s+251\s+-\s+cpu=64,memory=256Gi$/m);
    expect(r.out).toMatch(/^demo\s+ml-gpu\s+amd64\s+on-demand\s+16\s+-\s+cpu=256,memory=1Ti,nvidia.com\/gpu=16$/m);
  });

  it('gives byte-identical files on a second run', async () => {
    const args = ['--config', join(dir, 'config/platform.yaml'), '--outdir', dir];
    await synth(args);
    const first = filesUnder(dir);
    expect((await synth(args)).code).toBe(0);
    expect(filesUnder(dir)).toEqual(first);
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

  it('prints each file it removes: a team dropped from one of two clusters', async () => {
    const config = join(dir, 'config/platform.yaml');
    const demo = readFileSync(join(dir, 'config/terraform/demo.json'), 'utf8');
    writeFileSync(join(dir, 'config/terraform/prod.json'), demo.replace(/"demo"/, '"prod"').replace(/-demo"/g, '-prod"'));
    const twoClusters = readFileSync(config, 'utf8')
      .replace('    terraformOutputs: terraform/demo.json\n', '    terraformOutputs: terraform/demo.json\n  prod:\n    destination: { name: prod }\n    terraformOutputs: terraform/prod.json\n');
    writeFileSync(config, twoClusters);
    expect((await synth(['--config', 'config/platform.yaml', '--outdir', '.'], { INIT_CWD: dir })).code).toBe(0);
    writeFileSync(config, twoClusters.replace('terraformOutputs: terraform/prod.json\n', 'terraformOutputs: terraform/prod.json\n    teams: [dataops, web]\n'));
    const r = await synth(['--config', 'config/platform.yaml', '--outdir', '.'], { INIT_CWD: dir });
    expect(r.code).toBe(0);
    expect(r.out.split('\n').filter((l) => l.startsWith('removed '))).toEqual([
      'removed dist/prod/apps/pools-ml.yaml',
      'removed dist/prod/nodepools/ml/ml-gpu.yaml',
      'removed dist/prod/smoke-tests/ml-gpu.yaml',
    ]);
    expect(r.out).toMatch(/^dist and argocd: \d+ files \(\d+ written, 3 removed, \d+ unchanged\)$/m);
    expect(existsSync(join(dir, 'dist/prod/nodepools/ml'))).toBe(false);
    expect(existsSync(join(dir, 'dist/demo/nodepools/ml/ml-gpu.yaml'))).toBe(true);
  });

  it('fails when the config is invalid: exit 1, every problem on its own line, no stack trace, outputs untouched', async () => {
    const config = join(dir, 'config/platform.yaml');
    await synth(['--config', config, '--outdir', dir]);
    const before = filesUnder(dir);
    writeFileSync(config, readFileSync(config, 'utf8')
      .replace('capacityTypes: [spot, on-demand]', 'capacityTypes: [spott, on-demand]')
      .replace('instanceCategories: [c, m, r]', 'instanceCategoriez: [c, m, r]'));
    const r = await synth(['--config', config, '--outdir', dir]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/platform\.yaml:\d+:\d+: teams\.dataops\.capacityTypes\[0\]: unknown value "spott" \(allowed: on-demand, spot, reserved\)/);
    expect(r.err).toMatch(/platform\.yaml:\d+:\d+: teams\.dataops\.instanceCategoriez: unknown key "instanceCategoriez" \(did you mean "instanceCategories"\?\)/);
    expect(r.err).not.toMatch(/^\s+at /m);
    expect(filesUnder(dir)).toEqual(before);
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
    const before = filesUnder(dir);
    rmSync(join(dir, 'dist/demo/smoke-tests'), { recursive: true });
    writeFileSync(join(dir, 'dist/demo/smoke-tests'), 'in the way');
    const r = await synth(['--config', config, '--outdir', dir]);
    expect(r.code).toBe(0);
    expect(filesUnder(dir)).toEqual(before);
  });

  it('prints warnings and still writes', async () => {
    const tf = join(dir, 'config/terraform/demo.json');
    const outputs = JSON.parse(readFileSync(tf, 'utf8'));
    delete outputs.karpenter_interruption_queue_name;
    writeFileSync(tf, JSON.stringify(outputs));
    const r = await synth(['--config', join(dir, 'config/platform.yaml'), '--outdir', dir]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^warning: .*platform\.yaml:\d+:\d+: teams\.dataops\.capacityTypes: pool dataops uses spot capacity but cluster demo has no karpenter_interruption_queue_name output/m);
    // The short summary counts them.
    expect(r.out.split('\n')[0]).toBe(`1 cluster, 3 pools of 3 teams; Karpenter 1.14.1; ${r.err.split('\n').filter((l) => l.startsWith('warning: ')).length} warning`);
  });

  it('writes next to the dist folder cdk8s synth asks for (CDK8S_OUTDIR)', async () => {
    const r = await synth(['--config', join(dir, 'config/platform.yaml')], { CDK8S_OUTDIR: join(dir, 'dist') });
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'dist/demo/nodepools/web/web.yaml'))).toBe(true);
  });
});

describe('command line usage', () => {
  it.each([
    [['--no-such-flag'], 'synth', /^error: unknown option --no-such-flag for synth$/m],
    [['deploy'], undefined, /^error: unknown command "deploy"; the commands: synth, check, diff, explain, fit, init, adopt, promote, tenancy, upgrade/m],
    [['synth', 'extra'], 'synth', /^error: synth takes no arguments, got: extra$/m],
    [['--config'], 'synth', /^error: --config needs a value: --config FILE$/m],
    [['diff', '--base', 'HEAD', '--form', 'json'], 'diff', /^error: unknown option --form for diff \(did you mean --format\?\)$/m],
    [['synth', '--confg', 'x.yaml'], 'synth', /^error: unknown option --confg for synth \(did you mean --config\?\)$/m],
    [['check', '--base', 'HEAD'], 'check', /^error: --base does not go with check \(check takes --config, --outdir and --shard\)$/m],
    [['explain', 'demo/web', '--outdir', 'out'], 'explain', /^error: --outdir does not go with explain \(explain takes --config, --cluster, --stage, --group and --format\)$/m],
    [['explain', 'demo/web', '--format', 'yaml'], 'explain', /^error: unknown format "yaml" for --format \(allowed: terminal, json\)$/m],
    [['diff', '--base', 'HEAD', '--full=yes'], 'diff', /^error: --full takes no value \(given "yes"\)$/m],
    [['synth', '-x'], 'synth', /^error: unknown option -x for synth$/m],
    [['upgrade', '1.15.0', '--form', 'x'], 'upgrade', /^error: unknown option --form for upgrade \(did you mean --from\?\)$/m],
  ])('exits 2 for %j, in its own words, pointing to the command\'s --help', async (args, command, message) => {
    const r = await synth(args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    if (command) expect(r.err).toMatch(new RegExp(`^usage: npm run ${command}\\b.*\n\`npm run ${command} -- --help\` explains each option$`, 'm'));
    // Node's parseArgs wording never reaches the user.
    expect(r.err).not.toMatch(/Unknown option '|To specify a positional argument|ERR_PARSE_ARGS/);
    expect(r.out).toBe('');
  });

  it('reports every usage problem of a command line at once', async () => {
    const r = await synth(['diff', '--confg', 'x', '--fail-on', 'drains']);
    expect(r.code).toBe(2);
    expect(r.err.split('\n').filter((l) => l.startsWith('error: '))).toEqual([
      'error: unknown option --confg for diff (did you mean --config?)',
      'error: unknown class "drains" for --fail-on (allowed: destructive, replaces-nodes, cost)',
      'error: diff needs --base REF (e.g. --base origin/main), or --live FILE --cluster CLUSTER, or --parts FILE,…',
    ]);
  });

  it('lists the commands for --help', async () => {
    const r = await synth(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^usage: npm run COMMAND/m);
    for (const command of ['synth', 'check', 'diff', 'explain', 'fit', 'upgrade']) expect(r.out).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
    expect(r.out).toMatch(/`npm run COMMAND -- --help`/);
  });

  /** The options a help lists, from its options section. */
  const optionsOf = (help: string) => [...help.split('\noptions:\n')[1].split('\n\n')[0].matchAll(/^ {2}(?:-h, )?--([a-z-]+)/gm)].map((m) => m[1]);

  it.each([
    ['synth', ['config', 'outdir', 'verbose', 'shard'], 'npm run synth'],
    ['check', ['config', 'outdir', 'shard'], 'npm run check'],
    ['diff', ['base', 'head', 'live', 'cluster', 'helm-values', 'config', 'outdir', 'format', 'full', 'fail-on', 'report-url', 'markdown-out', 'shard', 'part-out', 'parts'], 'npm run diff -- --base origin/main'],
    ['explain', ['config', 'cluster', 'stage', 'group', 'format'], 'npm run explain -- demo/web'],
    ['fit', ['config', 'cluster', 'stage', 'group', 'format'], 'npm run fit -- shop.yaml'],
    ['upgrade', ['from'], 'npm run upgrade -- 1.15.0'],
  ])('prints the help of %s for --help: only its options, and an example', async (command, options, example) => {
    for (const help of ['--help', '-h']) {
      const r = await synth([command, help]);
      expect(r).toMatchObject({ code: 0, err: '' });
      expect(r.out).toMatch(new RegExp(`^usage: npm run ${command}\\b`));
      expect(optionsOf(r.out)).toEqual([...options, 'help', 'version']);
      expect(r.out).toMatch(new RegExp(`^examples?:\n(  .*\n)*  ${example.replace(/[.]/g, '\\.')}$`, 'm'));
    }
  });

  it('prints its version and the Karpenter version it generates for, with --version', async () => {
    const expected = `karpenter-gitops ${pkg.version} (generates for Karpenter ${CHART_VERSION})`;
    for (const args of [['--version'], ['diff', '--version'], ['upgrade', '--version']]) {
      expect(await synth(args)).toEqual({ code: 0, out: expected, err: '' });
    }
  });
});

describe('colour', () => {
  const ESC = '\u001b[';
  /** Runs with out and err as a fake terminal (or not). */
  async function runAs(args: string[], env: NodeJS.ProcessEnv, tty: boolean) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await run(args, { out: (l) => out.push(l), err: (l) => err.push(l), tty: { out: tty, err: tty } }, env);
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('paints errors red on a terminal', async () => {
    const r = await runAs(['--confg'], {}, true);
    expect(r.err).toMatch(/^\u001b\[31merror:\u001b\[39m unknown option --confg for synth/);
  });

  it.each([
    ['NO_COLOR set (even empty)', { NO_COLOR: '' }, true],
    ['NO_COLOR set, despite FORCE_COLOR', { NO_COLOR: '1', FORCE_COLOR: '1' }, true],
    ['CI set', { CI: 'true' }, true],
    ['not a terminal', {}, false],
  ])('prints no escape codes with %s', async (_, env, tty) => {
    const dir = project();
    try {
      const config = join(dir, 'config/platform.yaml');
      const bad = await runAs(['--confg'], env, tty);
      const ok = await runAs(['--config', config, '--outdir', dir], env, tty);
      expect(ok.code).toBe(0);
      expect(`${bad.err}${ok.out}${ok.err}`).not.toContain(ESC);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('paints the header of the table of pools and warnings on a terminal, and with FORCE_COLOR anywhere', async () => {
    const dir = project();
    try {
      const tf = join(dir, 'config/terraform/demo.json');
      const outputs = JSON.parse(readFileSync(tf, 'utf8'));
      delete outputs.karpenter_interruption_queue_name;
      writeFileSync(tf, JSON.stringify(outputs));
      for (const [env, tty] of [[{}, true], [{ FORCE_COLOR: '1' }, false]] as const) {
        const r = await runAs(['--config', join(dir, 'config/platform.yaml'), '--outdir', dir, '--verbose'], env, tty);
        expect(r.code).toBe(0);
        expect(r.out).toMatch(/^\u001b\[1mCLUSTER +POOL +ARCH +CAPACITY +TYPES +NODES +LIMITS\u001b\[22m$/m);
        expect(r.err).toMatch(/^\u001b\[33mwarning:\u001b\[39m .*platform\.yaml:\d+:\d+: teams\.dataops\.capacityTypes: /m);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('colour in diff', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('paints each change by its class on a terminal, and nothing in markdown', async () => {
    dir = project();
    const config = join(dir, 'config/platform.yaml');
    await synth(['--config', config, '--outdir', dir]);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd: dir, stdio: 'pipe' });
    writeFileSync(join(dir, '.gitignore'), '.karpenter-gitops/\n');
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    const text = readFileSync(config, 'utf8');
    writeFileSync(config, text.slice(0, text.indexOf('  # Training on GPUs')).replace('limits: { cpu: "10", memory: 40Gi }', 'limits: { cpu: "20", memory: 40Gi }'));
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: () => undefined, tty: { out: true, err: true } };
    expect(await run(['diff', '--base', 'HEAD', '--config', config, '--outdir', dir], io, {})).toBe(0);
    const report = out.join('\n');
    expect(report).toMatch(/^ {2}\u001b\[31m🛑 NodePool ml-gpu removed\u001b\[39m: /m);
    expect(report).toMatch(/^ {2}\u001b\[36m📈 NodePool web changed\u001b\[39m: /m);
    out.length = 0;
    expect(await run(['diff', '--base', 'HEAD', '--format', 'markdown', '--config', config, '--outdir', dir], io, {})).toBe(0);
    expect(out.join('\n')).not.toContain('\u001b[');
  });
});

describe('paths, from where the user ran npm (INIT_CWD)', () => {
  let dir: string;
  beforeEach(() => { dir = project(); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads --config and writes --outdir relative to INIT_CWD, and prints paths from there', async () => {
    const r = await synth(['--config', 'config/platform.yaml', '--outdir', 'out'], { INIT_CWD: dir });
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'out/dist/demo/nodepools/web/web.yaml'))).toBe(true);
    expect(r.out).toMatch(/^out\/dist and out\/argocd: 22 files \(22 written, 0 removed, 0 unchanged\)$/m);
    const check = await synth(['check', '--config', 'config/platform.yaml', '--outdir', 'out'], { INIT_CWD: dir });
    expect(check).toMatchObject({ code: 0, out: 'dist/ and argocd/ are up to date (22 files)' });
  });

  it('names the config in problems as seen from INIT_CWD', async () => {
    const config = join(dir, 'config/platform.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('capacityTypes: [spot, on-demand]', 'capacityTypes: [spott, on-demand]'));
    const r = await synth(['--config', 'platform.yaml', '--outdir', '..'], { INIT_CWD: join(dir, 'config') });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^platform\.yaml:\d+:\d+: teams\.dataops\.capacityTypes\[0\]: unknown value "spott"/m);
  });

  it('names files inside the messages of problems as seen from INIT_CWD too', async () => {
    const config = join(dir, 'config/platform.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('    terraformOutputs: terraform/demo.json\n', '    terraformOutputs: terraform/demo.json\n    kubernetesVersion: "1.33"\n'));
    const disagree = await synth(['--config', 'platform.yaml', '--outdir', '..'], { INIT_CWD: join(dir, 'config') });
    expect(disagree.err).toMatch(/^platform\.yaml:\d+:\d+: clusters\.demo\.kubernetesVersion: is "1\.33", but cluster demo's Terraform output cluster_version is "1\.34" \(terraform\/demo\.json:\d+\)/m);
    rmSync(join(dir, 'config/terraform/demo.json'));
    const missing = await synth(['--config', 'config/platform.yaml', '--outdir', '.'], { INIT_CWD: dir });
    expect(missing.err).toMatch(/^config\/platform\.yaml:\d+:\d+: clusters\.demo\.terraformOutputs: file not found: config\/terraform\/demo\.json \(write it with: terraform output -json > config\/terraform\/demo\.json\)$/m);
  });

  it('names the stale files of check as seen from INIT_CWD', async () => {
    await synth(['--config', 'config/platform.yaml', '--outdir', '.'], { INIT_CWD: dir });
    writeFileSync(join(dir, 'argocd/demo.yaml'), 'by hand\n');
    const r = await synth(['check', '--config', '../config/platform.yaml', '--outdir', '..'], { INIT_CWD: join(dir, 'dist') });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^stale: \.\.\/argocd\/demo\.yaml$/m);
  });
});

describe('dist/SUMMARY.md', () => {
  let dir: string;
  beforeEach(() => { dir = project(); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names and links the config it comes from, relative to the output root', async () => {
    mkdirSync(join(dir, 'platforms/staging'), { recursive: true });
    cpSync(join(dir, 'config'), join(dir, 'platforms/staging/config'), { recursive: true });
    expect((await synth(['--config', 'platforms/staging/config/platform.yaml', '--outdir', 'out'], { INIT_CWD: dir })).code).toBe(0);
    expect(readFileSync(join(dir, 'out/dist/SUMMARY.md'), 'utf8').split('\n')[2])
      .toBe('Generated by karpenter-gitops from [`../platforms/staging/config/platform.yaml`](../../platforms/staging/config/platform.yaml); do not edit (run `npm run synth`).');
    expect((await synth(['--config', 'config/platform.yaml', '--outdir', '.'], { INIT_CWD: dir })).code).toBe(0);
    expect(readFileSync(join(dir, 'dist/SUMMARY.md'), 'utf8').split('\n')[2])
      .toBe('Generated by karpenter-gitops from [`config/platform.yaml`](../config/platform.yaml); do not edit (run `npm run synth`).');
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
    return filesUnder(dir);
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
    expect(filesUnder(dir)).toEqual(before);
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
