import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { open, writeFile } from 'node:fs/promises';
import { eachBounded } from './bounded';

/**
 * The file-system steps a change of the output tree is made of. The transaction only
 * uses these, so a test can fail or "kill" it after any step.
 */
export interface FsOps {
  /** Creates a file with `content` and flushes it to disk. */
  writeDurable(path: string, content: string): Promise<void>;
  /** Creates a file with `content` (see {@link FsOps.flush}). */
  write(path: string, content: string): Promise<void>;
  /** Flushes to disk the files and folders written under `dir` (`paths`, inside it). */
  flush(dir: string, paths: readonly string[]): Promise<void>;
  rename(from: string, to: string): void;
  unlink(path: string): void;
  mkdir(path: string): void;
  rmdir(path: string): void;
  /** Flushes a folder's entries (the renames into it) to disk. */
  fsyncDir(path: string): void;
  /** Removes a folder and everything in it. */
  removeAll(path: string): void;
  /** The names in a folder. */
  list(path: string): string[];
}

/** Whether `sync -f` (GNU coreutils' syncfs) ran here; undefined until tried. */
let syncFsWorks: boolean | undefined;

/** The real file system. */
export const REAL_FS: FsOps = {
  async writeDurable(path, content) {
    const handle = await open(path, 'wx');
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  write: (path, content) => writeFile(path, content, { flag: 'wx' }),
  async flush(dir, paths) {
    // One syncfs(2) flushes a whole tree at once where an fsync per file costs a journal
    // commit each (seconds for thousands of files); without `sync -f`, fsync each.
    if (syncFsWorks !== false) {
      const r = spawnSync('sync', ['-f', dir], { stdio: 'ignore' });
      syncFsWorks = r.status === 0;
      if (syncFsWorks) return;
    }
    await fsyncEach(paths);
  },
  rename: renameSync,
  unlink: unlinkSync,
  mkdir: (path) => mkdirSync(path),
  rmdir: rmdirSync,
  fsyncDir(path) {
    const fd = openSync(path, 'r');
    try { fsyncSync(fd); } finally { closeSync(fd); }
  },
  removeAll: (path) => rmSync(path, { recursive: true, force: true }),
  list: (path) => readdirSync(path),
};

/** Flushes each file and folder to disk (where `sync -f` is not available). */
export async function fsyncEach(paths: readonly string[]): Promise<void> {
  await eachBounded(paths, async (path) => {
    const handle = await open(path, 'r');
    try { await handle.sync(); } finally { await handle.close(); }
  });
}
