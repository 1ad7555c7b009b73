import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OUTPUT_ROOTS } from './layout';
import { OutputError } from './output-error';

/** The files and folders under the output roots, as found on disk. */
export interface OutputTree {
  /** Every file, relative to the root (`dist/demo/apps/karpenter.yaml`), with its content. */
  readonly files: Map<string, string>;
  /** Every folder of the output (the roots that exist included), relative to the root. */
  readonly dirs: readonly string[];
}

/**
 * Reads `dist/` and `argocd/` under `root` without ever following a symbolic link: a
 * link, a FIFO, a socket or a device anywhere in them (the roots included) is an
 * {@link OutputError} naming it, so a commit that plants `dist -> /etc` or
 * `dist/demo/x.yaml -> ~/.ssh/id_rsa` can make synth neither write nor print outside
 * the repository.
 * @param holds which files to read (a shard's, output/shard.ts) and, by a file inside it, which folders: the
 *   others are left as they are by a change planned from this tree. @default - every file
 * @param listing the tree's files and folders, listed before: a file of it that is gone since is
 *   not in the tree read (a link or special file where it was is still refused). @default - listed now
 */
export function readOutputTree(root: string, holds: (path: string) => boolean = () => true, listing: Listing = listOutputTree(root)): OutputTree {
  const { files, dirs } = listing;
  const read = new Map<string, string>();
  for (const path of files.filter(holds)) {
    const text = readRegular(root, path);
    if (text !== undefined) read.set(path, text);
  }
  return {
    files: read,
    // A folder is held when a file in it would be: the roots always are (they stay, even empty).
    dirs: dirs.filter((d) => !d.includes('/') || holds(`${d}/-`)),
  };
}

/** The files and folders under `dist/` and `argocd/`, relative to the root. */
export interface Listing {
  readonly files: readonly string[];
  readonly dirs: readonly string[];
}

/**
 * The files and folders under `dist/` and `argocd/`, by name only, refusing what
 * {@link readOutputTree} refuses: what a run checks before it touches the tree, without
 * reading every file a second time.
 */
export function listOutputTree(root: string): Listing {
  const files: string[] = [];
  const dirs: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        dirs.push(path);
        walk(path);
      } else if (entry.isFile()) {
        files.push(path);
      } else {
        throw notRegular(path, entry.isSymbolicLink() ? 'a symbolic link' : 'not a regular file');
      }
    }
  };
  for (const dir of OUTPUT_ROOTS) {
    const kind = kindOf(join(root, dir));
    if (kind === 'missing') continue;
    if (kind !== 'dir') throw notRegular(dir, kind === 'link' ? 'a symbolic link' : 'not a folder');
    dirs.push(dir);
    walk(dir);
  }
  return { files, dirs };
}

/** What a path is, without following a link at it. */
export function kindOf(path: string): 'missing' | 'dir' | 'file' | 'link' | 'other' {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return 'link';
    if (st.isDirectory()) return 'dir';
    return st.isFile() ? 'file' : 'other';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw err;
  }
}

/** Reads a file that must still be a regular file when opened (O_NOFOLLOW closes the race with a swap to a link). */
function readRegular(root: string, path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(join(root, path), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const { code } = err as NodeJS.ErrnoException;
    if (code === 'ELOOP') throw notRegular(path, 'a symbolic link');
    // Gone since it was listed (a checkout meanwhile): not part of the tree.
    if (code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    if (!fstatSync(fd).isFile()) throw notRegular(path, 'not a regular file');
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function notRegular(path: string, what: string): OutputError {
  return new OutputError(`${path} is ${what}: karpenter-gitops owns dist/ and argocd/ and never follows links or reads special files there; `
    + `remove it (git rm ${path}) and run synth again`);
}
