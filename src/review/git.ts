import { spawnSync } from 'node:child_process';
import { OUTPUT_ROOTS } from '../output/layout';

/** Thrown when git cannot answer (not a repository, unknown ref). */
export class GitError extends Error {}

/**
 * The generated files (`dist/`, `argocd/` under `root`) as committed at `ref`,
 * relative to `root`. Reads them all through one `git cat-file --batch`.
 */
export function treeAt(ref: string, root: string): Map<string, string> {
  const prefix = git(root, ['rev-parse', '--show-prefix']).trim();
  const commit = git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).trim();
  // "<mode> <type> <sha>\t<path>": a link (120000) or a submodule (160000) is never read as a file.
  const entries = git(root, ['ls-tree', '-r', '-z', commit, '--', ...OUTPUT_ROOTS.map((d) => `${prefix}${d}`)])
    .split('\0').filter(Boolean).map((line) => ({ mode: line.slice(0, line.indexOf(' ')), path: line.slice(line.indexOf('\t') + 1) }));
  const odd = entries.find((e) => e.mode !== '100644' && e.mode !== '100755');
  if (odd) {
    const what = odd.mode === '120000' ? 'a symbolic link' : odd.mode === '160000' ? 'a submodule' : `of mode ${odd.mode}`;
    throw new GitError(`${odd.path.slice(prefix.length)} is ${what} in ${ref}: the generated tree holds only files; fix the base branch first`);
  }
  const listed = entries.map((e) => e.path);
  const files = new Map<string, string>();
  if (listed.length === 0) return files;
  const batch = spawnSync('git', ['-C', root, 'cat-file', '--batch'], {
    input: listed.map((p) => `${commit}:${p}`).join('\n') + '\n', maxBuffer: 1 << 30,
  });
  if (batch.status !== 0) throw new GitError(`git cat-file failed: ${batch.stderr.toString().trim()}`);
  // Each object: "<sha> blob <size>\n<content>\n".
  const out = batch.stdout;
  let at = 0;
  for (const path of listed) {
    const eol = out.indexOf(10, at);
    const size = Number(out.subarray(at, eol).toString().split(' ')[2]);
    files.set(path.slice(prefix.length), out.subarray(eol + 1, eol + 1 + size).toString('utf8'));
    at = eol + 1 + size + 1;
  }
  return files;
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
