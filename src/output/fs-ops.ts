import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * The file-system steps a change of the output tree is made of. The transaction only
 * uses these, so a test can fail or "kill" it after any step.
 */
export interface FsOps {
  /** Creates a file with `content` and flushes it to disk. */
  writeDurable(path: string, content: string): Promise<void>;
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
