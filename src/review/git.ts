import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { clusterLayout, OUTPUT_ROOTS } from '../output/layout';
import type { Scope } from './scope';

/** Every file of the output. */
const ALL: Scope = { holds: () => true };

/** Thrown when git cannot answer (not a repository, unknown ref). */
export class GitError extends Error {}

/**
 * The generated files (`dist/`, `argocd/` under `root`) as committed at `ref`,
 * relative to `root`.
 *
 * A file whose blob is the same as the text `known` holds for its path (the fresh
 * synth: in a pull request, nearly every file) is not read from git: its text is
 * taken from `known`, so the two trees share it and the review skips it. The other
 * blobs are read through one `git cat-file --batch`.
 * @param known files expected to be mostly unchanged. @default - every blob is read
 * @param scope which files to take (a review's scope, a shard): the others are never read; of a scope
 *   that knows its clusters, git lists only theirs and the fleet's files. @default - every file
 * @see https://git-scm.com/book/en/v2/Git-Internals-Git-Objects (a blob's id is the hash of "blob <size>\0<content>")
 */
export function treeAt(ref: string, root: string, known: ReadonlyMap<string, string> = new Map(), scope: Scope = ALL): Map<string, string> {
  const prefix = git(root, ['rev-parse', '--show-prefix']).trim();
  const commit = git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).trim();
  // "<mode> <type> <id>\t<path>", paths from the top of the repository (--full-tree), so a root
  // below the top works too; a link (120000) or a submodule (160000) is never read as a file.
  const list = (args: readonly string[], paths: readonly string[]) => git(root, ['ls-tree', ...args, '-z', '--full-tree', commit, '--', ...paths.map((p) => `${prefix}${p}`)])
    .split('\0').filter(Boolean).map((line) => {
      const [mode, type, id] = line.slice(0, line.indexOf('\t')).split(' ');
      return { mode, type, id, path: line.slice(line.indexOf('\t') + 1) };
    });
  // A scope of known clusters: the top of dist/ and argocd/ (the fleet's files, the clusters' roots; a
  // cluster's folder there is a tree entry, left), then those clusters' folders alone.
  const clusters = scope.clusters === undefined ? undefined : [...scope.clusters].sort();
  const entries = clusters === undefined ? list(['-r'], OUTPUT_ROOTS)
    : [...list([], OUTPUT_ROOTS.map((d) => `${d}/`)).filter((e) => e.type !== 'tree'), ...(clusters.length ? list(['-r'], clusters.map((c) => `${clusterLayout(c).dir}/`)) : [])];
  const odd = entries.find((e) => e.mode !== '100644' && e.mode !== '100755');
  if (odd) {
    const what = odd.mode === '120000' ? 'a symbolic link' : odd.mode === '160000' ? 'a submodule' : `of mode ${odd.mode}`;
    throw new GitError(`${odd.path.slice(prefix.length)} is ${what} in ${ref}: the generated tree holds only files; fix the base branch first`);
  }
  const files = new Map<string, string>();
  const unread: { path: string; id: string }[] = [];
  for (const e of entries) {
    const path = e.path.slice(prefix.length);
    if (!scope.holds(path)) continue;
    const text = known.get(path);
    if (text !== undefined && blobId(text, e.id.length) === e.id) files.set(path, text);
    else unread.push({ path, id: e.id });
  }
  if (unread.length === 0) return files;
  // One read of each blob: files of the same content (a drift gate's program on every gated cluster) are one object.
  const ids = [...new Set(unread.map((e) => e.id))];
  const batch = spawnSync('git', ['-C', root, 'cat-file', '--batch'], {
    input: ids.join('\n') + '\n', maxBuffer: 1 << 30,
  });
  if (batch.status !== 0) throw new GitError(`git cat-file failed: ${batch.stderr.toString().trim()}`);
  // Each object: "<id> blob <size>\n<content>\n".
  const out = batch.stdout;
  const texts = new Map<string, string>();
  let at = 0;
  for (const id of ids) {
    const eol = out.indexOf(10, at);
    const size = Number(out.subarray(at, eol).toString().split(' ')[2]);
    texts.set(id, out.subarray(eol + 1, eol + 1 + size).toString('utf8'));
    at = eol + 1 + size + 1;
  }
  for (const { path, id } of unread) {
    const text = texts.get(id);
    if (text === undefined) throw new GitError(`git cat-file did not give object ${id} (${path})`);
    files.set(path, text);
  }
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The generated files (relative to `root`) whose content differs between two commits: added,
 * removed or changed, a rename as both (`--no-renames`). Git compares the trees by object id, so
 * this costs in proportion to the change, not to the fleet.
 * @see https://git-scm.com/docs/git-diff#Documentation/git-diff.txt---relativeltpathgt (paths relative to the folder git runs in, and only below it)
 */
export function changedPaths(base: string, head: string, root: string): string[] {
  try {
    return git(root, ['diff-tree', '-r', '--name-only', '-z', '--no-renames', '--relative', `${base}^{commit}`, `${head}^{commit}`, '--', ...OUTPUT_ROOTS])
      .split('\0').filter(Boolean);
  } catch (err) {
    // Said as treeAt says it of a ref that names no commit, where diff-tree says "fatal: bad revision 'REF^{commit}'".
    const missing = [base, head].find((ref) => spawnSync('git', ['-C', root, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).status !== 0);
    throw missing === undefined ? err : new GitError(`no such commit "${missing}"`);
  }
}

/**
 * The commit a ref names, or undefined when there is none: `ref` as given (a local branch, a
 * tag), then as a remote-tracking branch of `origin` (a stage ref pushed by CI).
 */
export function commitOf(ref: string, root: string): string | undefined {
  for (const name of [ref, `origin/${ref}`]) {
    const r = spawnSync('git', ['-C', root, 'rev-parse', '--verify', '--quiet', `${name}^{commit}`], { encoding: 'utf8' });
    if (r.status === 0) return r.stdout.trim();
  }
  return undefined;
}

/**
 * Whether two commits hold the same files under `paths` (relative to `root`), or undefined when
 * git cannot tell (a commit it does not have).
 */
export function sameFiles(a: string, b: string, paths: readonly string[], root: string): boolean | undefined {
  const r = spawnSync('git', ['-C', root, 'diff', '--quiet', `${a}^{commit}`, `${b}^{commit}`, '--', ...paths], { encoding: 'utf8' });
  return r.status === 0 ? true : r.status === 1 ? false : undefined;
}

/** When a commit was made (its committer date), or undefined outside a repository or for an unknown ref. */
export function commitTime(ref: string, root: string): Date | undefined {
  const r = spawnSync('git', ['-C', root, 'log', '-1', '--format=%ct', `${ref}^{commit}`, '--'], { encoding: 'utf8' });
  const seconds = Number(r.stdout.trim());
  return r.status === 0 && Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : undefined;
}

/** The id git gives a blob of this text: SHA-1, or SHA-256 in a repository of that object format (64 hex digits). */
function blobId(text: string, length: number): string {
  const bytes = Buffer.from(text, 'utf8');
  return createHash(length === 64 ? 'sha256' : 'sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

function git(root: string, args: string[]): string {
  const r = spawnSync('git', ['-C', root, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error) throw new GitError(`cannot run git: ${r.error.message}`);
  if (r.status !== 0) {
    const why = r.stderr.trim().split('\n')[0] || `no such commit "${args[args.length - 1].replace(/\^\{commit\}$/, '')}"`;
    throw new GitError(why);
  }
  return r.stdout;
}
