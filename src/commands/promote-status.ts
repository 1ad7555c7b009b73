import { readFileSync, writeFileSync } from 'node:fs';
import type { Given } from '../command-line/args';
import type { Platform } from '../config/platform';
import { loadPlan } from '../model/checks';
import { stageRef } from '../model/stages';
import { DriftCount, parseNodeClaims } from '../promote/nodeclaims';
import { rolloutStatus } from '../promote/status';
import { rolloutJson, rolloutMarkdown, rolloutText } from '../promote/status-markdown';
import { commitOf } from '../review/git';
import type { Options } from './build';
import { applicationFiles, readApplications } from './promote-decide';
import { EXIT, Reporter } from './reporter';

/** The options only `promote status` takes (src/commands/promote.ts lists them in its spec). */
export const STATUS_OPTIONS = [
  { name: 'nodeclaims', value: 'CLUSTER=FILE', help: 'with status: kubectl get nodeclaims.karpenter.sh -o json of a cluster, comma-separated (a=a.json,b=b.json): how many nodes are drifted, by pool' },
  { name: 'out', value: 'FILE', help: 'with status: also write the page as Markdown to FILE (the promote workflow appends it to $GITHUB_STEP_SUMMARY)' },
] as const;

/** The formats of `promote`: markdown only with status. */
export const PROMOTE_FORMATS = ['terminal', 'json', 'markdown'] as const;

/** RFC 3339 with its offset, the form Argo CD writes its times in: a time without one would be read in the runner's zone. */
/**
 * `--now`: RFC 3339 with its offset, the form Argo CD writes its times in (a time without one
 * would be read in the runner's zone); every form of `promote` that takes it checks it here.
 */
export function nowProblems(now: unknown): string[] {
  return typeof now === 'string' && (!RFC3339.test(now) || Number.isNaN(Date.parse(now))) ? [`--now takes a time with its offset, e.g. 2027-01-12T09:00:00Z (given "${now}")`] : [];
}

const RFC3339 = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:[0-9]{2})$/;

/**
 * What `promote status` needs of its options together, and what the other forms may not take
 * (`--nodeclaims`, `--out`, `--format markdown`); `--revision` and `--main` go with a STAGE.
 */
export function statusProblems(given: Given, target: string | undefined): string[] {
  if (target !== 'status') {
    const statusOnly = ['nodeclaims', 'out'].filter((o) => given.has(o));
    return [
      ...(statusOnly.length ? [`${statusOnly.map((o) => `--${o}`).join(' and ')} ${statusOnly.length === 1 ? 'goes' : 'go'} with promote status`] : []),
      ...(given.get('format') === 'markdown' ? ['--format markdown goes with promote status'] : []),
    ];
  }
  const now = given.get('now');
  const nodeclaims = given.get('nodeclaims');
  const stageOnly = ['revision', 'main'].filter((o) => given.has(o));
  return [
    ...(stageOnly.length ? [`promote status reads every stage's ref: ${stageOnly.map((o) => `--${o}`).join(' and ')} ${stageOnly.length === 1 ? 'goes' : 'go'} with a STAGE`] : []),
    ...nowProblems(now),
    ...(typeof nodeclaims === 'string' ? nodeclaims.split(',').filter((p) => !/^[^=]+=.+$/.test(p)).map((p) => `--nodeclaims takes CLUSTER=FILE pairs, comma-separated (given "${p}")`) : []),
  ];
}

/** What `promote status` is given. */
export interface StatusArgs {
  /** Applications files, one per Argo CD instance; `-` is stdin. @default - none: the page says what the config and git say */
  readonly applications?: string;
  /** `CLUSTER=FILE` pairs, comma-separated. @default - none */
  readonly nodeclaims?: string;
  readonly now?: string;
  /** @default "terminal" */
  readonly format?: (typeof PROMOTE_FORMATS)[number];
  /** Where to write the Markdown too. @default - nowhere */
  readonly out?: string;
}

/** A JSON file the user named (`-`: stdin), or why it cannot be read. */
function readJson(say: Reporter, file: string): { json: unknown } | { error: string } {
  try {
    return { json: JSON.parse(file === '-' ? readFileSync(0, 'utf8') : readFileSync(say.paths.resolve(file), 'utf8')) };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** The NodeClaims of each cluster named, counted, or every problem. */
function readNodeClaims(say: Reporter, platform: Platform, pairs: string): { drift: Map<string, DriftCount>; problems: string[] } {
  const drift = new Map<string, DriftCount>();
  const problems: string[] = [];
  for (const pair of pairs.split(',')) {
    const at = pair.indexOf('=');
    const [cluster, file] = [pair.slice(0, at), pair.slice(at + 1)];
    if (!platform.clusters.some((c) => c.id === cluster)) {
      problems.push(`--nodeclaims: no cluster ${cluster} in the config (given ${pair})`);
      continue;
    }
    const read = readJson(say, file);
    if ('error' in read) {
      problems.push(`cannot read the NodeClaims of ${cluster} from ${file}: ${read.error} (give kubectl get nodeclaims.karpenter.sh -o json)`);
      continue;
    }
    const parsed = parseNodeClaims(file, read.json);
    problems.push(...parsed.problems);
    if (parsed.drift) drift.set(cluster, parsed.drift);
  }
  return { drift, problems };
}

/**
 * `promote status`: where the fleet's rollout stands (docs/windows.md, "Where a rollout stands").
 * Stage 1's commit is `gitops.targetRevision`'s, stage N's its stage ref's, read from the git
 * repository `--outdir` (the ref, else `origin/<ref>`); a ref git does not have is a stage not
 * promoted yet.
 */
export function promoteStatus(say: Reporter, { configPath, root }: Options, args: StatusArgs): number {
  const { platform } = loadPlan(configPath, say.loadOptions);
  const apps = args.applications === undefined ? undefined : readApplications(say, applicationFiles(say, args.applications.split(',')), platform.gitops.argocdNamespace);
  const claims = args.nodeclaims === undefined ? { drift: new Map<string, DriftCount>(), problems: [] } : readNodeClaims(say, platform, args.nodeclaims);
  for (const p of claims.problems) say.error(p);
  if ((args.applications !== undefined && apps === undefined) || claims.problems.length) return EXIT.failed;
  const revisions = new Map<number, string>();
  for (const stage of new Set(platform.clusters.map((c) => c.stage ?? 1))) {
    const commit = commitOf(stage < 2 ? platform.gitops.targetRevision : stageRef(platform, stage), root);
    if (commit !== undefined) revisions.set(stage, commit);
  }
  const now = args.now !== undefined ? new Date(Date.parse(args.now)) : new Date();
  const status = rolloutStatus(platform, { revisions, now, drift: claims.drift, ...(apps !== undefined ? { applications: [...apps.values()] } : {}) });
  const format = args.format ?? 'terminal';
  if (format === 'json') say.out(rolloutJson(status));
  else if (format === 'markdown') say.out(rolloutMarkdown(status).trimEnd());
  else for (const line of rolloutText(status)) say.out(line);
  if (args.out !== undefined) writeFileSync(say.paths.resolve(args.out), rolloutMarkdown(status));
  return EXIT.ok;
}
