import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IN_FLIGHT } from '../../src/output/bounded';
import { FsOps, fsyncEach, REAL_FS } from '../../src/output/fs-ops';
import { OutputDir } from '../../src/output/output-dir';
import { snapshot } from '../support/snapshot';


/** A tree as `files` would leave it: the files plus the folders they need. */
function expected(files: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, content] of files) {
    const segs = path.split('/');
    for (let i = 1; i < segs.length; i++) out.set(`${segs.slice(0, i).join('/')}/`, '');
    out.set(path, content);
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

const OLD = new Map([
  ['argocd/demo.yaml', 'root v1\n'],
  ['dist/SUMMARY.md', 'summary v1\n'],
  ['dist/demo/apps/karpenter.yaml', 'controller v1\n'],
  ['dist/demo/nodepools/web.yaml', 'web v1\n'],
  ['dist/demo/nodepools/ml-gpu.yaml', 'ml v1\n'],
  ['dist/prod/nodepools/web.yaml', 'prod web v1\n'],
  ['dist/prod/smoke-tests/web.yaml', 'prod smoke v1\n'],
]);
// A fleet's change: a cluster removed (its folders go), a pool renamed, a file changed, a cluster added.
const NEW = new Map([
  ['argocd/demo.yaml', 'root v1\n'],
  ['argocd/staging.yaml', 'staging root\n'],
  ['dist/SUMMARY.md', 'summary v2\n'],
  ['dist/demo/apps/karpenter.yaml', 'controller v2\n'],
  ['dist/demo/nodepools/web.yaml', 'web v1\n'],
  ['dist/demo/nodepools/ml-train.yaml', 'ml v1\n'],
  ['dist/staging/nodepools/web/web.yaml', 'staging web\n'],
]);

/** File-system steps that fail at step `at` (counting from 1); with `dead`, every later step fails too, as after a kill. */
function faulty(at: number, dead: boolean): FsOps & { steps: number } {
  const state = { steps: 0 };
  const step = () => {
    state.steps++;
    if (state.steps === at || (dead && state.steps > at)) throw Object.assign(new Error(`injected failure at step ${state.steps}`), { code: 'EIO' });
  };
  const wrap = <A extends unknown[], R>(f: (...a: A) => R) => (...a: A): R => { step(); return f(...a); };
  return Object.assign(state, {
    writeDurable: async (p: string, c: string) => { step(); return REAL_FS.writeDurable(p, c); },
    write: async (p: string, c: string) => { step(); return REAL_FS.write(p, c); },
    flush: async (d: string, paths: readonly string[]) => { step(); return REAL_FS.flush(d, paths); },
    rename: wrap(REAL_FS.rename), unlink: wrap(REAL_FS.unlink), mkdir: wrap(REAL_FS.mkdir), rmdir: wrap(REAL_FS.rmdir),
    fsyncDir: wrap(REAL_FS.fsyncDir), removeAll: wrap(REAL_FS.removeAll), list: REAL_FS.list,
  });
}

describe('flushing staged files', () => {
  it('falls back to an fsync of each file and folder where sync -f is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-flush-'));
    writeFileSync(join(dir, 'a.yaml'), 'a');
    await expect(fsyncEach([join(dir, 'a.yaml'), dir])).resolves.toBeUndefined();
    await expect(fsyncEach([join(dir, 'missing.yaml')])).rejects.toThrow(/ENOENT/);
    rmSync(dir, { recursive: true, force: true });
  });
});

// A few dozen whole runs on the real file system, each flushed to disk: seconds on a busy machine.
const STEP_BY_STEP_TIMEOUT = 30_000;

describe('replacing the output tree', () => {
  const roots: string[] = [];
  function oldTree(): string {
    const root = mkdtempSync(join(tmpdir(), 'kg-txn-'));
    roots.push(root);
    for (const [path, content] of OLD) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    return root;
  }
  afterAll(() => { for (const r of roots) rmSync(r, { recursive: true, force: true }); });

  async function replace(root: string, files: ReadonlyMap<string, string>, ops: FsOps = REAL_FS) {
    const out = OutputDir.open(root, 'synth', ops);
    try {
      return await out.replace(files);
    } finally {
      out.close();
    }
  }

  it('makes the tree exactly the new files, removing emptied folders and leaving no staging behind', async () => {
    const root = oldTree();
    const result = await replace(root, NEW);
    expect(snapshot(root)).toEqual(expected(NEW));
    expect(result.removed).toEqual(['dist/demo/nodepools/ml-gpu.yaml', 'dist/prod/nodepools/web.yaml', 'dist/prod/smoke-tests/web.yaml']);
    // The run made the state folder and left nothing in it (only synth keeps its manifest there): it is gone.
    expect(existsSync(join(root, '.karpenter-gitops'))).toBe(false);
  });

  it('does not touch files whose content is already right', async () => {
    const root = oldTree();
    const before = statSync(join(root, 'dist/demo/nodepools/web.yaml')).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    const result = await replace(root, NEW);
    expect(statSync(join(root, 'dist/demo/nodepools/web.yaml')).mtimeMs).toBe(before);
    expect(result.unchanged).toBe(2);
  });

  it('moves a new folder in whole: a new cluster of a thousand pool files is one rename, not a thousand', async () => {
    const root = oldTree();
    const files = new Map(NEW);
    for (let i = 0; i < 1000; i++) files.set(`dist/qa/nodepools/team-${i}/team-${i}.yaml`, `pool ${i}\n`);
    let renames = 0;
    const flushed: string[] = [];
    const counting: FsOps = {
      ...REAL_FS,
      rename: (from, to) => { renames++; REAL_FS.rename(from, to); },
      fsyncDir: (path) => { flushed.push(path); REAL_FS.fsyncDir(path); },
    };
    await replace(root, files, counting);
    expect(snapshot(root)).toEqual(expected(files));
    // The journal's commit, dist/qa itself, and the few files of folders that already existed (and their backups).
    expect(renames).toBeLessThan(20);
    // The folders whose entries were renamed; dist/qa's own folders were flushed when staged.
    expect(flushed.filter((p) => p.includes('/dist/qa'))).toEqual([]);
    expect(flushed.length).toBeLessThan(20);
  });

  it('keeps a few files open at a time, whatever the number of files (a thousand teams\' files would exceed ulimit -n 256)', async () => {
    const files = new Map([...Array(10 * IN_FLIGHT).keys()].map((i) => [`dist/qa/nodepools/team-${i}/team-${i}.yaml`, `pool ${i}\n`]));
    let open = 0;
    let most = 0;
    const counting: FsOps = {
      ...REAL_FS,
      write: async (path, content) => {
        most = Math.max(most, ++open);
        try { await REAL_FS.write(path, content); } finally { open--; }
      },
    };
    await replace(oldTree(), files, counting);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(IN_FLIGHT);
  });

  it('starts no write after one failed, and fails once those in flight have settled', async () => {
    const files = new Map([...Array(10 * IN_FLIGHT).keys()].map((i) => [`dist/qa/team-${i}.yaml`, `pool ${i}\n`]));
    let started = 0;
    let open = 0;
    const openAtCleanUp: number[] = [];
    const failing: FsOps = {
      ...REAL_FS,
      write: async (path, content) => {
        if (++started === 10) throw Object.assign(new Error('injected failure: EMFILE'), { code: 'EMFILE' });
        open++;
        try { await REAL_FS.write(path, content); } finally { open--; }
      },
      removeAll: (path) => { openAtCleanUp.push(open); REAL_FS.removeAll(path); },
    };
    const root = oldTree();
    await expect(replace(root, files, failing)).rejects.toThrow(/EMFILE/);
    expect(started).toBeLessThanOrEqual(10 + IN_FLIGHT);
    expect(openAtCleanUp).toEqual([0]);
    expect(snapshot(root)).toEqual(expected(OLD));
  });

  // Every step of a clean run is a place a failure can happen.
  const clean = faulty(0, false);
  let steps = 0;
  beforeAll(async () => {
    await replace(oldTree(), NEW, clean);
    steps = clean.steps;
  });

  it('stages in two flat folders, whatever the tree: no folder made or removed per file of a change of existing folders', async () => {
    const root = oldTree();
    for (let i = 0; i < 200; i++) {
      mkdirSync(join(root, `dist/c${i}/nodepools/web`), { recursive: true });
      writeFileSync(join(root, `dist/c${i}/nodepools/web/web.yaml`), 'web v1\n');
    }
    const files = new Map([...OLD, ...Array.from({ length: 200 }, (_, i): [string, string] => [`dist/c${i}/nodepools/web/web.yaml`, 'web v2\n'])]);
    const made: string[] = [];
    const counting: FsOps = { ...REAL_FS, mkdir: (path) => { made.push(path); REAL_FS.mkdir(path); } };
    await replace(root, files, counting);
    expect(snapshot(root)).toEqual(expected(files));
    // The state folder, the staging area and its new/ and old/: not one per cluster.
    expect(made.length).toBeLessThan(6);
  });

  it('finishes a change an earlier release committed and was killed in, staged and set aside by path', async () => {
    const root = oldTree();
    const txn = join(root, '.karpenter-gitops', 'txn');
    // The journal of the release before (no `flat`): dist/demo/apps/karpenter.yaml rewritten, dist/prod/smoke-tests/web.yaml removed, killed after the first rename.
    mkdirSync(join(txn, 'new', 'dist/demo/apps'), { recursive: true });
    mkdirSync(join(txn, 'old', 'dist/prod/smoke-tests'), { recursive: true });
    writeFileSync(join(txn, 'new', 'dist/demo/apps/karpenter.yaml'), 'controller v2\n');
    writeFileSync(join(txn, 'journal.json'), JSON.stringify({
      version: 1, writes: [{ path: 'dist/demo/apps/karpenter.yaml', replaces: true }], deletes: ['dist/prod/smoke-tests/web.yaml'],
      rmdirs: ['dist/prod/smoke-tests'], mkdirs: [], moves: [],
    }));
    REAL_FS.rename(join(root, 'dist/prod/smoke-tests/web.yaml'), join(txn, 'old', 'dist/prod/smoke-tests/web.yaml'));
    OutputDir.open(root, 'synth').close();
    const want = new Map(OLD);
    want.set('dist/demo/apps/karpenter.yaml', 'controller v2\n');
    want.delete('dist/prod/smoke-tests/web.yaml');
    expect(snapshot(root)).toEqual(expected(want));
    expect(existsSync(txn)).toBe(false);
  });

  it('has a few dozen file-system steps to test', () => {
    expect(steps).toBeGreaterThan(20);
  });

  it('leaves the old tree exactly as it was, and says so, when any single step fails', async () => {
    for (let at = 1; at <= steps; at++) {
      const root = oldTree();
      const error = await replace(root, NEW, faulty(at, false)).then(() => undefined, (e: Error & { unchanged?: boolean }) => e);
      const tree = snapshot(root);
      if (error?.unchanged === false) {
        // Only removing the journal of a finished change can fail this way: the tree is the new one.
        expect({ at, message: error.message, tree }).toEqual({ at, message: expect.stringMatching(/hold the new files/), tree: expected(NEW) });
      } else if (error) {
        expect({ at, message: error.message, tree }).toEqual({ at, message: `injected failure at step ${at}`, tree: expected(OLD) });
      } else {
        // Removing the scratch staging area failed: the run succeeded, the next one tidies up.
        expect({ at, tree }).toEqual({ at, tree: expected(NEW) });
      }
      OutputDir.open(root, 'synth').close();
      expect({ at, tree: snapshot(root), left: existsSync(join(root, '.karpenter-gitops', 'txn')) }).toEqual({ at, tree, left: false });
    }
  }, STEP_BY_STEP_TIMEOUT);

  it('leaves the old tree or the new one when killed after any step, once the next run has recovered', async () => {
    const outcomes = new Set<string>();
    for (let at = 1; at <= steps; at++) {
      const root = oldTree();
      // The last step, tidying up the scratch area, may die without failing the run.
      await replace(root, NEW, faulty(at, true)).catch(() => undefined);
      OutputDir.open(root, 'synth').close();
      const tree = snapshot(root);
      const which = JSON.stringify([...tree]) === JSON.stringify([...expected(OLD)]) ? 'old'
        : JSON.stringify([...tree]) === JSON.stringify([...expected(NEW)]) ? 'new' : 'mixed';
      expect({ at, which }).not.toEqual({ at, which: 'mixed' });
      expect(existsSync(join(root, '.karpenter-gitops', 'txn'))).toBe(false);
      outcomes.add(which);
    }
    // Kills before the journal is committed give the old tree; after it, the new one.
    expect([...outcomes].sort()).toEqual(['new', 'old']);
  }, STEP_BY_STEP_TIMEOUT);
});
