import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { run } from '../src/cli';
import { checkTree } from '../src/review/check';
import { UserPaths } from '../src/command-line/paths';
import { copyExample } from './builders';

/** A path as the command line shows it (relative to where it runs, or absolute when shorter). */
const shown = (path: string) => new UserPaths(process.cwd()).show(path);

/** Runs the command line in-process. */
async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Every file under dist/ and argocd/ of `root`, relative to it. */
function generatedFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(root, p));
    }
  };
  for (const d of ['dist', 'argocd']) walk(join(root, d));
  return out.sort();
}

const git = (dir: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd: dir, stdio: 'pipe' });

describe('check and line endings', () => {
  let dir: string;
  const check = (root: string) => cli(['check', '--config', join(root, 'config/platform.yaml'), '--outdir', root]);
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kg-eol-'));
    copyExample(dir);
    expect((await cli(['--config', join(dir, 'config/platform.yaml'), '--outdir', dir])).code).toBe(0);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('fails on a CRLF copy of a synthesized tree, saying for each file that only its line endings differ, and nothing else', async () => {
    const files = generatedFiles(dir);
    for (const f of files) writeFileSync(join(dir, f), readFileSync(join(dir, f), 'utf8').replace(/\n/g, '\r\n'));
    const r = await check(dir);
    expect(r.code).toBe(1);
    expect(r.err.split('\n')).toEqual([
      ...files.map((f) => `${shown(join(dir, f))} differs only in line endings (CRLF): your git converts them; .gitattributes keeps them LF — run git add --renormalize . or re-checkout`),
      `${files.length} file(s) differ only in line endings`,
    ]);
  });

  it('calls a file with CRLF and another change stale, with its diff', () => {
    expect(checkTree(new Map([['dist/a.yaml', 'a: 1\r\nb: 2\r\n']]), new Map([['dist/a.yaml', 'a: 1\nb: 3\n']])).map((d) => d.kind)).toEqual(['stale']);
    expect(checkTree(new Map([['dist/a.yaml', 'a: 1\r\n']]), new Map([['dist/a.yaml', 'a: 1\n']]))).toEqual([{ path: 'dist/a.yaml', kind: 'line-endings', diff: '' }]);
  });

  /** A clone with core.autocrlf=true (what Git for Windows sets) of a repository holding the synthesized tree. */
  function autocrlfClone(withAttributes: boolean): string {
    if (withAttributes) cpSync('.gitattributes', join(dir, '.gitattributes'));
    writeFileSync(join(dir, '.gitignore'), '.karpenter-gitops/\n');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'synthesized');
    const clone = join(dir, 'clone');
    git(dir, 'clone', '-q', '-c', 'core.autocrlf=true', dir, clone);
    return clone;
  }

  it('passes in a clone with core.autocrlf=true: .gitattributes keeps dist/ and argocd/ LF', async () => {
    const clone = autocrlfClone(true);
    expect(readFileSync(join(clone, 'config/platform.yaml'), 'utf8')).toContain('\r\n'); // the clone does convert
    expect(await check(clone)).toMatchObject({ code: 0, out: expect.stringMatching(/^dist\/ and argocd\/ are up to date/) });
  });

  it('fails in such a clone without .gitattributes, naming line endings', async () => {
    const clone = autocrlfClone(false);
    const r = await check(clone);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^.*dist\/SUMMARY\.md differs only in line endings \(CRLF\)/m);
    expect(r.err).not.toMatch(/^(stale|missing|extra): /m);
  });
});
