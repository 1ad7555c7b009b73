import { appendFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Cluster } from '../config/platform';
import { loadPlan } from '../model/checks';
import { clusterLayout } from '../output/layout';
import { decide } from '../promote/decide';
import { mergeApplications, readApplicationsFiles } from '../promote/live-applications';
import type { Applications } from '../promote/promote';
import { commitOf, sameFiles } from '../review/git';
import type { Options } from './build';
import { EXIT, Reporter } from './reporter';

/**
 * The files `--applications` names: each file as given, and each folder as the `.json` files in
 * it (the promote workflow downloads the read jobs' artifacts into one folder). A folder that is
 * not there is a folder of nothing: no read job uploaded (decide says so).
 */
export function applicationFiles(say: Reporter, given: readonly string[]): string[] {
  return given.flatMap((f) => {
    if (f === '-') return [f];
    const path = say.paths.resolve(f);
    let folder = false;
    try {
      folder = statSync(path).isDirectory();
    } catch {
      return f.endsWith('/') ? [] : [f];
    }
    return folder ? readdirSync(path).filter((n) => n.endsWith('.json')).sort().map((n) => join(f, n)) : [f];
  });
}

/** Every file's Applications by name; undefined (every problem said) when one cannot be read or is not a list of Applications. */
export function readApplications(say: Reporter, files: readonly string[], namespace: string): Applications | undefined {
  const read = readApplicationsFiles(files, (f) => say.paths.resolve(f));
  const { byName, problems } = mergeApplications(read.files);
  const all = [...read.problems, ...problems];
  for (const p of all) say.error(p);
  // No file (an empty folder: no read job uploaded) is no Application: each cluster waited for says so.
  if (files.length === 0) say.err(`note: no file of Applications was given (kubectl -n ${namespace} get applications.argoproj.io -o json, one file per Argo CD instance)`);
  return all.length ? undefined : byName;
}

/** Appends `key=value` lines to a GitHub Actions file ($GITHUB_OUTPUT): each value one line (JSON). */
export function appendGithub(file: string, lines: readonly string[]): void {
  appendFileSync(file, lines.map((l) => `${l}\n`).join(''));
}

/** What `promote decide` is given. */
interface DecideArgs {
  readonly files: readonly string[];
  /** The main branch. @default - origin/HEAD, else origin/main */
  readonly main?: string;
  readonly now?: number;
  /** $GITHUB_OUTPUT: `push`, `approve` and `reread`, each a JSON list. @default - none */
  readonly githubOutput?: string;
  /** $GITHUB_STEP_SUMMARY: the decisions as Markdown. @default - none */
  readonly summary?: string;
}

/** `promote decide`: every stage decided at once, for the promote workflow (promote/decide.ts). */
export function promoteDecide(say: Reporter, { configPath, root }: Options, args: DecideArgs): number {
  const { platform } = loadPlan(configPath, say.loadOptions);
  const read = readApplicationsFiles(args.files, (f) => say.paths.resolve(f));
  for (const p of read.problems) say.error(p);
  if (read.problems.length) return EXIT.failed;
  const main = [args.main, 'origin/HEAD', 'origin/main'].find((r): r is string => r !== undefined && commitOf(r, root) !== undefined);
  if (main === undefined) {
    say.error(`cannot find the main branch (${args.main ?? 'origin/HEAD, origin/main'}): fetch it, or name it with --main REF`);
    return EXIT.failed;
  }
  const mainCommit = commitOf(main, root);
  const stillWanted = (revision: string) => (cluster: Cluster) => (mainCommit === undefined ? undefined : sameFiles(revision, mainCommit, clusterLayout(cluster).owned, root));
  const { decided, problems } = decide(platform, read.files, { commitOf: (ref) => commitOf(ref, root), main, stillWanted, ...(args.now !== undefined ? { now: args.now } : {}) });
  for (const p of problems) say.error(p);
  if (!decided) return EXIT.failed;
  for (const line of decided.lines) say.out(line);
  if (args.githubOutput !== undefined) {
    appendGithub(args.githubOutput, [`push=${JSON.stringify(decided.push)}`, `approve=${JSON.stringify(decided.approve)}`, `reread=${JSON.stringify(decided.reread)}`]);
  }
  if (args.summary !== undefined) appendGithub(args.summary, ['## Promotion', '', '```', ...decided.lines, '```', '']);
  return EXIT.ok;
}
