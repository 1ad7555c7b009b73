import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli';

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A git repository holding the example config and its synthesized output, committed. */
async function repo(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'kg-review-'));
  cpSync('config', join(dir, 'config'), { recursive: true });
  await cli(['--config', join(dir, 'config/platform.yaml'), '--outdir', dir]);
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return dir;
}

describe('check', () => {
  let dir: string;
  beforeEach(async () => { dir = await repo(); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const check = () => cli(['check', '--config', join(dir, 'config/platform.yaml'), '--outdir', dir]);

  it('passes on a clean tree', async () => {
    expect(await check()).toMatchObject({ code: 0, out: expect.stringMatching(/dist\/ and argocd\/ are up to date \(19 files\)/) });
  });

  it('fails naming a hand-edited file, with a short diff', async () => {
    const file = join(dir, 'dist/demo/nodepools/web/web.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('consolidateAfter: 30s', 'consolidateAfter: 5m'));
    const r = await check();
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^stale: .*dist\/demo\/nodepools\/web\/web\.yaml$/m);
    expect(r.err).toMatch(/^\s+-\s+consolidateAfter: 5m$/m);
    expect(r.err).toMatch(/^\s+\+\s+consolidateAfter: 30s$/m);
    expect(r.err).toMatch(/1 file\(s\) differ from a fresh synth: run `npm run synth`/);
  });

  it('fails naming missing and extra files', async () => {
    unlinkSync(join(dir, 'argocd/demo.yaml'));
    writeFileSync(join(dir, 'dist/demo/nodepools/web/by-hand.yaml'), 'kind: NodePool\n');
    const r = await check();
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^missing: .*argocd\/demo\.yaml$/m);
    expect(r.err).toMatch(/^extra: .*dist\/demo\/nodepools\/web\/by-hand\.yaml$/m);
  });

  it('fails when the config no longer matches the committed output (a forgotten synth)', async () => {
    const config = join(dir, 'config/platform.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('limits: { cpu: "10", memory: 40Gi }', 'limits: { cpu: "20", memory: 40Gi }'));
    const r = await check();
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^stale: .*dist\/demo\/nodepools\/web\/web\.yaml$/m);
    expect(r.err).toMatch(/^stale: .*dist\/SUMMARY\.md$/m);
  });
});

describe('diff', () => {
  let dir: string;
  beforeEach(async () => { dir = await repo(); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const diff = (...extra: string[]) => cli(['diff', '--base', 'HEAD', '--config', join(dir, 'config/platform.yaml'), '--outdir', dir, ...extra]);

  it('reports a removed team as destructive and an AMI bump as a node replacement of each affected pool', async () => {
    const config = join(dir, 'config/platform.yaml');
    const text = readFileSync(config, 'utf8');
    writeFileSync(config, text.slice(0, text.indexOf('  # Training on GPUs')).replace('alias: al2023@v20250505', 'alias: al2023@v20250601'));
    const r = await diff();
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^3 destructive, 2 replaces-nodes, 0 capacity, 0 controller, 1 other$/m);
    expect(r.out).toMatch(/NodePool ml-gpu \(cluster demo\) removed: every node of the pool drains/);
    expect(r.out).toMatch(/EC2NodeClass dataops \(cluster demo\) changed: Karpenter treats the change as drift[\s\S]*paced by NodePool dataops: 10% at a time[\s\S]*spec\.amiSelectorTerms\[0\]\.alias: "al2023@v20250505" -> "al2023@v20250601"/);
    expect(r.out).toMatch(/EC2NodeClass web \(cluster demo\) changed/);
  });

  it('writes markdown for the PR comment with --format markdown', async () => {
    const r = await diff('--format', 'markdown');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^<!-- karpenter-gitops-diff -->$/m);
    expect(r.out).toMatch(/No change to any generated resource/);
  });

  it('fails with a clear message for an unknown ref', async () => {
    const r = await cli(['diff', '--base', 'no-such-branch', '--config', join(dir, 'config/platform.yaml'), '--outdir', dir]);
    expect(r).toMatchObject({ code: 1, err: expect.stringMatching(/^error: git: no such commit "no-such-branch"$/) });
  });

  const commit = (message: string) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-am', message]);

  it('fails naming the file when the base tree holds YAML that does not parse', async () => {
    writeFileSync(join(dir, 'dist/demo/nodepools/web/web.yaml'), 'kind: NodePool\nmetadata: {name: [web\n');
    commit('garbage');
    const r = await diff();
    expect(r).toMatchObject({ code: 1, err: expect.stringMatching(/^error: dist\/demo\/nodepools\/web\/web\.yaml:\d+:\d+ in HEAD is not valid YAML \(.*\): fix or regenerate it there first$/) });
  });

  it('fails naming the file when the base tree holds a document that is not a map', async () => {
    writeFileSync(join(dir, 'dist/demo/nodepools/web/web.yaml'), '- a\n- b\n');
    commit('a list');
    const r = await diff();
    expect(r).toMatchObject({ code: 1, err: expect.stringMatching(/^error: dist\/demo\/nodepools\/web\/web\.yaml in HEAD: document 1 is not a map/) });
  });

  it('fails when the base tree holds a symbolic link, never reading where it points', async () => {
    unlinkSync(join(dir, 'dist/demo/nodepools/web/web.yaml'));
    execFileSync('ln', ['-s', '/etc/passwd', join(dir, 'dist/demo/nodepools/web/web.yaml')]);
    execFileSync('git', ['-C', dir, 'add', '-A']);
    commit('a link');
    const r = await diff();
    expect(r).toMatchObject({ code: 1, err: expect.stringMatching(/^error: git: dist\/demo\/nodepools\/web\/web\.yaml is a symbolic link in HEAD: the generated tree holds only files/) });
    expect(r.err).not.toMatch(/root:/);
  });

  it.each([[['diff']], [['diff', '--base', 'HEAD', '--format', 'html']], [['check', '--base', 'HEAD']]])('exits 2 for %j', async (args) => {
    expect((await cli(args)).code).toBe(2);
  });
});
