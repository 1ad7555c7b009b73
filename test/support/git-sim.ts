/**
 * A git repository for the rollout simulation: every commit is the whole tree of files `npm run
 * synth` wrote for one config, refs name commits, and a ref that was never pushed does not
 * resolve. Argo CD reads it through {@link GitSim.directory}, the way its repo server reads a
 * directory source.
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/reposerver/repository/repository.go (l. 1965 `manifestFile`, l. 2185-2200 `getPotentiallyValidManifests`: a directory source reads the folder's `*.yaml`, `*.yml`, `*.json` files, not its subfolders unless `recurse`, filtered by the `include` glob)
 *
 * Upstream: MODELS.argocd (test/support/upstream.ts names the release; its test fails once the project moves past it).
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

/**
 * Who pushes. A person, or a deploy key with write access, may move any ref to any commit of the
 * repository. A GitHub App installation token may create or update a workflow file only with the
 * App's `workflows` permission; the GITHUB_TOKEN of a workflow run is such a token, of the GitHub
 * Actions App, and no workflow can give it that permission (its `permissions` key has no
 * `workflows` scope).
 * @see https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication (the GITHUB_TOKEN is a GitHub App installation access token)
 * @see https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#permissions (the scopes the GITHUB_TOKEN may be given: no workflows)
 * @see https://github.blog/changelog/2020-04-06-github-apps-workflow-permission (the Workflows permission lets a GitHub App edit workflow files)
 */
export type PushCredential =
  | { readonly kind: 'person' }
  | { readonly kind: 'app'; readonly name: string; readonly workflows: boolean };

/** A push GitHub refused. */
export interface RefusedPush {
  readonly ref: string;
  readonly to: string;
  readonly at: number;
  /** What `git push` prints after `! [remote rejected]`. */
  readonly message: string;
}

/** Where GitHub Actions workflow files live: a push that creates, changes or deletes one needs the workflows permission. */
const WORKFLOWS_DIR = '.github/workflows/';

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

  /** Every push GitHub refused, in order. */
  public readonly refused: RefusedPush[] = [];

  /**
   * `git push origin SHA:refs/heads/REF` authenticated as `credential`, as GitHub answers it: a
   * GitHub App token without the workflows permission is refused when a commit the push brings to
   * the ref creates, changes or deletes a file under `.github/workflows/` ("refusing to allow a
   * GitHub App to create or update workflow `<file>` without `workflows` permission", GitHub's
   * words, as reported verbatim for a branch moved across upstream commits that changed one:
   * https://github.com/repo-sync/github-sync/issues/23). The commits a push brings are those
   * reachable from SHA and not from the ref's old commit; for a new ref, not from any ref
   * (GitHub asks for the workflows permission to point a new ref at a commit that changes a
   * workflow file only when no ref has it already:
   * https://github.blog/changelog/2023-11-02-github-actions-enforcing-workflow-scope-when-creating-a-release).
   * Returns the refusal, or undefined once pushed.
   */
  public pushAs(credential: PushCredential, ref: string, sha: string, at: number): RefusedPush | undefined {
    if (credential.kind === 'app' && !credential.workflows) {
      const file = this.workflowChangeIn(ref, sha);
      if (file !== undefined) {
        const refusal = { ref, to: sha, at, message: `refusing to allow a GitHub App to create or update workflow \`${file}\` without \`workflows\` permission` };
        this.refused.push(refusal);
        return refusal;
      }
    }
    this.push(ref, sha, at);
    return undefined;
  }

  /** The commits from `sha` back to the first, newest first. */
  private ancestry(sha: string): Commit[] {
    const out: Commit[] = [];
    for (let c: Commit | undefined = this.get(sha); c; c = c.parent === undefined ? undefined : this.get(c.parent)) out.push(c);
    return out;
  }

  /** The first workflow file a commit that pushing `sha` to `ref` brings creates, changes or deletes (see {@link pushAs}). */
  private workflowChangeIn(ref: string, sha: string): string | undefined {
    const old = this.refs.get(ref);
    const known = new Set((old !== undefined ? [old] : [...this.refs.values()]).flatMap((tip) => this.ancestry(tip).map((c) => c.sha)));
    for (const commit of this.ancestry(sha).filter((c) => !known.has(c.sha)).reverse()) {
      const before = commit.parent === undefined ? new Map<string, string>() : this.get(commit.parent).files;
      const paths = new Set([...before.keys(), ...commit.files.keys()].filter((p) => p.startsWith(WORKFLOWS_DIR)));
      const changed = [...paths].sort().find((p) => before.get(p) !== commit.files.get(p));
      if (changed !== undefined) return changed;
    }
    return undefined;
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
