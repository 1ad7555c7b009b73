/**
 * A git repository for the rollout simulation: every commit is the whole tree of files `npm run
 * synth` wrote for one config, refs name commits, and a ref that was never pushed does not
 * resolve. Argo CD reads it through {@link GitSim.directory}, the way its repo server reads a
 * directory source.
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/reposerver/repository/repository.go (l. 1965 `manifestFile`, l. 2185-2200 `getPotentiallyValidManifests`: a directory source reads the folder's `*.yaml`, `*.yml`, `*.json` files, not its subfolders unless `recurse`, filtered by the `include` glob)
 */
import { createHash } from 'node:crypto';

/** One push of a ref. */
export interface Push {
  readonly ref: string;
  readonly from?: string;
  readonly to: string;
  /** Simulated time (ms since the epoch). */
  readonly at: number;
}

/** A commit: the files of the tree, by path. */
export interface Commit {
  readonly sha: string;
  readonly parent?: string;
  readonly message: string;
  readonly files: ReadonlyMap<string, string>;
}

/** A repository of synthesized trees. */
export class GitSim {
  private readonly commits = new Map<string, Commit>();
  private readonly refs = new Map<string, string>();
  /** Every push, in order. */
  public readonly pushes: Push[] = [];

  /** Commits `files` on top of `main` (or as the first commit) and moves `main` to it; returns its sha. */
  public commit(files: ReadonlyMap<string, string>, message: string, at: number): string {
    const parent = this.refs.get('main');
    const hash = createHash('sha1').update(`${parent ?? ''}\n${message}\n${this.commits.size}`);
    for (const [path, text] of files) hash.update(`${path}\0${text}\0`);
    const sha = hash.digest('hex');
    this.commits.set(sha, { sha, parent, message, files });
    this.push('main', sha, at);
    return sha;
  }

  /** `git push origin SHA:refs/heads/REF` (creating the ref the first time); a push of the sha it has is no push. */
  public push(ref: string, sha: string, at: number): void {
    if (!this.commits.has(sha)) throw new Error(`git push: no commit ${sha}`);
    const from = this.refs.get(ref);
    if (from === sha) return;
    this.refs.set(ref, sha);
    this.pushes.push({ ref, from, to: sha, at });
  }

  /** What `git ls-remote` lists: every branch and its commit. */
  public listRefs(): ReadonlyMap<string, string> {
    return new Map(this.refs);
  }

  /** The commit a ref names (`HEAD` is the default branch, `main`), or a full sha; undefined when it does not resolve. */
  public resolve(revision: string, refs: ReadonlyMap<string, string> = this.refs): string | undefined {
    if (/^[0-9a-f]{40}$/.test(revision)) return this.commits.has(revision) ? revision : undefined;
    return refs.get(revision === 'HEAD' ? 'main' : revision);
  }

  /** The commit `sha`. */
  public get(sha: string): Commit {
    const commit = this.commits.get(sha);
    if (!commit) throw new Error(`no commit ${sha}`);
    return commit;
  }

  /** The message of a commit, for reports. */
  public message(sha: string): string {
    return this.get(sha).message;
  }

  /**
   * The manifest files of a directory source at `sha`: the files directly in `path` named
   * `*.yaml`, `*.yml` or `*.json`, in path order, that match `include` (Argo CD's glob, with
   * `{a,b}` alternatives and `*`) when given. Undefined when the folder has no file at all
   * (the repo server then fails: the path does not exist).
   */
  public directory(sha: string, path: string, include?: string): { readonly path: string; readonly text: string }[] | undefined {
    const files = this.get(sha).files;
    const prefix = `${path.replace(/\/$/, '')}/`;
    const inFolder = [...files.keys()].filter((p) => p.startsWith(prefix));
    if (inFolder.length === 0) return undefined;
    const matcher = include === undefined ? undefined : globMatcher(include);
    return inFolder
      .filter((p) => !p.slice(prefix.length).includes('/') && /\.(yaml|yml|json)$/.test(p))
      .filter((p) => !matcher || matcher(p.slice(prefix.length)))
      .sort()
      .map((p) => ({ path: p, text: files.get(p)! }));
  }
}

/** A glob with `*`, `?` and `{a,b}` alternatives (gobwas/glob, which Argo CD's include uses), as a predicate. */
export function globMatcher(glob: string): (name: string) => boolean {
  let re = '';
  let depth = 0;
  for (const c of glob) {
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') { re += '(?:'; depth++; }
    else if (c === '}' && depth > 0) { re += ')'; depth--; }
    else if (c === ',' && depth > 0) re += '|';
    else re += c.replace(/[.+^$()|[\]\\{}]/g, '\\$&');
  }
  const regex = new RegExp(`^${re}$`);
  return (name) => regex.test(name);
}
