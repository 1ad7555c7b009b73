import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutputDir } from '../../src/output/output-dir';

describe('the output folders never lead outside the root', () => {
  let root: string;
  let outside: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'kg-root-'));
    outside = mkdtempSync(join(tmpdir(), 'kg-outside-'));
    writeFileSync(join(outside, 'secret'), 'PRIVATE KEY');
  });
  afterEach(() => { rmSync(root, { recursive: true, force: true }); rmSync(outside, { recursive: true, force: true }); });

  async function replaceWith(files: Record<string, string>) {
    const out = OutputDir.open(root, 'synth');
    try {
      await out.replace(new Map(Object.entries(files)));
    } finally {
      out.close();
    }
  }

  it('fails when dist is a symbolic link, touching nothing where it points', async () => {
    symlinkSync(outside, join(root, 'dist'));
    await expect(replaceWith({ 'dist/SUMMARY.md': 'x' })).rejects.toThrow(/^dist is a symbolic link: karpenter-gitops owns dist\/ and argocd\/ and never follows links .*; remove it \(git rm dist\)/);
    expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('PRIVATE KEY');
    expect(existsSync(join(outside, 'SUMMARY.md'))).toBe(false);
  });

  it('fails when a file in dist is a symbolic link, without reading or quoting its target', () => {
    mkdirSync(join(root, 'dist/demo'), { recursive: true });
    symlinkSync(join(outside, 'secret'), join(root, 'dist/demo/web.yaml'));
    const open = () => OutputDir.open(root, 'check');
    expect(open).toThrow(/^dist\/demo\/web\.yaml is a symbolic link/);
    expect(open).not.toThrow(/PRIVATE/);
  });

  it('fails when a folder in argocd is a symbolic link', () => {
    mkdirSync(join(root, 'argocd'));
    symlinkSync(outside, join(root, 'argocd/sub'));
    expect(() => OutputDir.open(root, 'synth')).toThrow(/^argocd\/sub is a symbolic link/);
  });

  it('fails on a FIFO in dist instead of hanging on it', () => {
    mkdirSync(join(root, 'dist'));
    execFileSync('mkfifo', [join(root, 'dist/pipe.yaml')]);
    expect(() => OutputDir.open(root, 'check')).toThrow(/^dist\/pipe\.yaml is not a regular file/);
  });

  it('reads the tree as listed when the run opened it: a file removed since is not in it, a link planted since is still refused', () => {
    mkdirSync(join(root, 'dist/demo'), { recursive: true });
    for (const name of ['a', 'b', 'c']) writeFileSync(join(root, `dist/demo/${name}.yaml`), `${name}\n`);
    const out = OutputDir.open(root, 'synth');
    try {
      // A checkout while the synth builds: one file removed, another put in place of one by a link.
      rmSync(join(root, 'dist/demo/a.yaml'));
      expect([...out.read().files]).toEqual([['dist/demo/b.yaml', 'b\n'], ['dist/demo/c.yaml', 'c\n']]);
      rmSync(join(root, 'dist/demo/b.yaml'));
      symlinkSync(join(outside, 'secret'), join(root, 'dist/demo/b.yaml'));
      expect(() => out.read()).toThrow(/^dist\/demo\/b\.yaml is a symbolic link/);
    } finally {
      out.close();
    }
  });

  it('lists the tree again when a folder of it is gone since the run opened it, so the change it plans creates the folder again', async () => {
    mkdirSync(join(root, 'dist/demo/nodepools'), { recursive: true });
    writeFileSync(join(root, 'dist/demo/nodepools/a.yaml'), 'a\n');
    const out = OutputDir.open(root, 'synth');
    try {
      rmSync(join(root, 'dist/demo'), { recursive: true });
      const result = await out.replace(new Map([['dist/demo/nodepools/a.yaml', 'a2\n'], ['dist/demo/nodepools/b.yaml', 'b\n']]), out.read());
      expect(result.written).toEqual(['dist/demo/nodepools/a.yaml', 'dist/demo/nodepools/b.yaml']);
      expect(readFileSync(join(root, 'dist/demo/nodepools/a.yaml'), 'utf8')).toBe('a2\n');
    } finally {
      out.close();
    }
  });

  it('fails when its own state folder is a symbolic link', () => {
    symlinkSync(outside, join(root, '.karpenter-gitops'));
    expect(() => OutputDir.open(root, 'synth')).toThrow(/^\.karpenter-gitops is a symbolic link: it is karpenter-gitops' own state folder; remove it/);
    expect(existsSync(join(outside, 'lock'))).toBe(false);
  });

  it('refuses a planted journal that names paths outside the output folders', () => {
    mkdirSync(join(root, '.karpenter-gitops/txn'), { recursive: true });
    writeFileSync(join(root, '.karpenter-gitops/txn/journal.json'), JSON.stringify({ version: 1, writes: [{ path: '../escape', replaces: false }], deletes: [], rmdirs: [], mkdirs: [] }));
    expect(() => OutputDir.open(root, 'synth')).toThrow(/journal\.json is not a journal karpenter-gitops wrote/);
  });
});
