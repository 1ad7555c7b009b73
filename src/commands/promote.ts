import { readFileSync } from 'node:fs';
import type { CommandLine, CommandSpec, Given } from '../command-line/args';
import { CONFIG_OPTION, formatOption, outdirOption } from '../command-line/options';
import type { Cluster } from '../config/platform';
import { loadPlan } from '../model/checks';
import { clusterLayout } from '../output/layout';
import { ApplicationsFile, mergeApplications, minutesText, Promotion, promotion, promotionPlan, rfc3339 } from '../promote/promote';
import { commitOf, sameFiles } from '../review/git';
import type { Options } from './build';
import { Context, locations } from './context';
import { PROMOTE_FORMATS, promoteStatus, STATUS_OPTIONS, statusProblems } from './promote-status';
import { EXIT, Reporter } from './reporter';

/** `npm run promote`: a revision to the next stage, when the one before has it healthy and soaked. */
export const spec = {
  name: 'promote',
  summary: 'exit 0 and print the git push that promotes SHA to STAGE when the stage before has it, healthy, soaked',
  description: 'Reads the Applications Argo CD reports (FILE: `kubectl -n argocd get applications.argoproj.io\n'
    + '-o json`, one file per Argo CD instance, comma-separated, or - for stdin). When every automated\n'
    + 'Application of every cluster of stage STAGE-1 (its root, CRDs, controller, policies, pools, overlays\n'
    + 'and drift gate) is Synced at SHA and Healthy (its drift gate done: no drifted node left), the\n'
    + 'stage\'s soak (gitops.stages) has passed since the last of them became so, as Argo CD recorded it,\n'
    + 'and the main branch (--main REF) still has SHA\'s files for the clusters of STAGE, prints the\n'
    + 'command that moves the stage ref, git push origin SHA:refs/heads/<gitops.stageRefPrefix>STAGE, and\n'
    + 'the GitHub environment to push in; otherwise names what holds it back, and why. A cluster whose\n'
    + 'Applications sync by hand (manualSync: true) is not waited for, and named as such. `promote plan`\n'
    + 'prints the Argo CD instances and the stages, for the promote workflow (docs/windows.md). `promote\n'
    + 'status` prints where the rollout stands: per stage its commit, each cluster synced, replacing nodes,\n'
    + 'waiting (window, soak, approval) or held by a problem, grouped (docs/windows.md).',
  argument: {
    name: 'STAGE|plan|status', pattern: /^(?:[0-9]+|plan|status)$/,
    missing: 'promote needs a STAGE, e.g. npm run promote -- 2 --revision SHA --applications apps.json, or plan',
    invalid: 'promote takes a STAGE, a number such as 2, plan or status',
  },
  options: [
    { name: 'revision', value: 'SHA', help: 'the commit to promote (required with STAGE)' },
    { name: 'applications', value: 'FILE', help: 'kubectl -n argocd get applications.argoproj.io -o json, one file per Argo CD instance, comma-separated (FILE,FILE), or - for stdin (required with STAGE)' },
    { name: 'main', value: 'REF', help: 'the main branch: SHA is promoted only while it still has SHA\'s files for the stage\'s clusters (default origin/HEAD, else origin/main)' },
    { name: 'now', value: 'TIME', help: 'the time the soak is measured up to, e.g. 2027-01-12T09:00:00Z (default: the clock)' },
    formatOption(PROMOTE_FORMATS, '; json prints one object: ready, blockers, push, environment, soak left (the promote workflow reads it); markdown only with status'),
    ...STATUS_OPTIONS,
    outdirOption('the git repository whose dist/ and argocd/ are compared at SHA and on the main branch'),
    CONFIG_OPTION,
  ],
  examples: [
    'kubectl -n argocd get applications.argoproj.io -o json | npm run --silent promote -- 2 --revision "$(git rev-parse HEAD)" --applications -',
    'npm run --silent promote -- 3 --revision SHA --applications eu.json,us.json --format json',
    'npm run --silent promote -- plan --format json',
    'npm run --silent promote -- status --applications eu.json,us.json --format markdown',
  ],
  notes: 'exit codes: 0 ready (the command is printed), 1 not ready or problems, 2 bad command line or no cluster at STAGE',
  constraints: (given, target) => [...(target === 'status' ? [] : stageProblems(given, target)), ...statusProblems(given, target)],
} as const satisfies CommandSpec;

/** What `promote` needs of its options beyond each one alone: a stage needs the revision and the Applications; `plan` reads only the config. */
function stageProblems(given: Given, target: string | undefined): string[] {
  if (target === undefined) return [];
  const now = given.get('now');
  // RFC 3339 with its offset, the form Argo CD writes its times in: a time without one would be read in the runner's zone.
  const problems = typeof now === 'string' && (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:[0-9]{2})$/.test(now) || Number.isNaN(Date.parse(now)))
    ? [`--now takes a time with its offset, e.g. 2027-01-12T09:00:00Z (given "${now}")`] : [];
  if (target === 'plan') {
    const stageOnly = ['revision', 'applications', 'main', 'now'].filter((o) => given.has(o));
    return stageOnly.length ? [`promote plan reads only the config: ${stageOnly.map((o) => `--${o}`).join(', ')} go with a STAGE`] : [];
  }
  return [
    ...(given.has('revision') ? [] : ['promote needs --revision SHA: the commit to promote']),
    ...(given.has('applications') ? [] : ['promote needs --applications FILE: kubectl -n argocd get applications.argoproj.io -o json (one file per Argo CD instance, comma-separated), or - for stdin']),
    ...problems,
  ];
}

/** `promote STAGE …` or `promote plan`. */
export function run({ options, argument }: CommandLine<typeof spec>, context: Context): number {
  const paths = locations(context, options);
  const format = options.format ?? 'terminal';
  if (argument === 'status') return promoteStatus(context.say, paths, options);
  if (format === 'markdown') return EXIT.usage; // refused by statusProblems before run
  if (argument === 'plan') return promotePlan(context.say, paths, format);
  return promote(context.say, paths, Number(argument), {
    revision: options.revision ?? '', files: (options.applications ?? '-').split(','), main: options.main, format,
    ...(options.now !== undefined ? { now: Date.parse(options.now) } : {}),
  });
}

/** What `promote STAGE` is given besides the stage. */
interface PromoteArgs {
  /** The commit to promote. */
  readonly revision: string;
  /** The Applications files, one per Argo CD instance, as the user named them; `-` is stdin. */
  readonly files: readonly string[];
  /** The main branch. @default - origin/HEAD, else origin/main */
  readonly main?: string;
  /** When the decision is made (ms since the epoch). @default - the clock */
  readonly now?: number;
  /** `json`: one object on stdout, for the promote workflow. @default "terminal" */
  readonly format?: 'terminal' | 'json';
}

/**
 * The decision as versioned data, for the promote workflow (`--format json`): whether to push,
 * why not, the push, the GitHub environment to push in and the soak left.
 */
function decisionJson(stage: number, revision: string, d: Promotion): Record<string, unknown> {
  return {
    version: 1, stage, revision, ready: d.ready, blockers: d.blockers, push: d.command ?? null, ref: d.ref,
    environment: d.environment ?? null, soakMinutes: d.soakMinutes,
    finishedAt: d.finishedAt === undefined ? null : rfc3339(d.finishedAt), soakRemainingMinutes: d.soakRemainingMinutes ?? null,
    checked: d.checked, notWaitedFor: d.manual.map((cluster) => ({ cluster, why: MANUAL_WHY })), noSuchStage: d.noSuchStage,
  };
}

/** Why a manual cluster of the stage before is not waited for (promote/promote.ts manualClusters). */
const MANUAL_WHY = 'synced by hand (manualSync: true): Argo CD never syncs its Applications by itself, so it gets the revision only when someone syncs it';

/** One line per cluster of the stage before that the decision did not wait for. */
function notWaitedFor(stage: number, d: Promotion): string[] {
  return d.manual.map((id) => `not waited for: cluster ${id} (stage ${stage - 1}): ${MANUAL_WHY}`);
}

/** `promote STAGE --revision SHA --applications FILE[,FILE…]` (docs/windows.md). */
function promote(say: Reporter, { configPath, root }: Options, stage: number, args: PromoteArgs): number {
  const { revision, files, main, now, format = 'terminal' } = args;
  // Every problem synth would report, not only the config's: the same set on every command.
  const { platform } = loadPlan(configPath, say.loadOptions);
  const read: ApplicationsFile[] = [];
  for (const file of files) {
    try {
      read.push({ from: file === '-' ? 'stdin' : file, json: JSON.parse(file === '-' ? readFileSync(0, 'utf8') : readFileSync(say.paths.resolve(file), 'utf8')) });
    } catch (err) {
      say.error(`cannot read the Applications from ${file === '-' ? 'stdin' : file}: ${(err as Error).message} (give kubectl -n ${platform.gitops.argocdNamespace} get applications.argoproj.io -o json, one file per Argo CD instance)`);
      return EXIT.failed;
    }
  }
  const { applications, problems } = mergeApplications(read);
  if (problems.length) {
    for (const p of problems) say.error(p);
    return EXIT.failed;
  }
  // Main must still want the revision for the stage's clusters (a revert is never overtaken).
  const mainCommit = [main, 'origin/HEAD', 'origin/main'].filter((r): r is string => r !== undefined).map((r) => commitOf(r, root)).find((c) => c !== undefined);
  const stillWanted = (cluster: Cluster) => (mainCommit === undefined ? undefined : sameFiles(revision, mainCommit, clusterLayout(cluster).owned, root));
  const decision = promotion(platform, stage, revision, applications, { stillWanted, ...(now !== undefined ? { now } : {}) });
  // 2: there is no such stage (the promote workflow's loop over the stages ends there); 1: not yet.
  const code = decision.ready ? EXIT.ok : decision.noSuchStage ? EXIT.usage : EXIT.failed;
  if (format === 'json') {
    say.out(JSON.stringify(decisionJson(stage, revision, decision), null, 2));
    return code;
  }
  if (decision.ready) {
    say.out(decision.checked.length ? `stage ${stage - 1} has ${revision}, synced and healthy (${decision.checked.join(', ')}); promote with:`
      : `stage ${stage - 1} has no automated Application to wait for; promote with:`);
    for (const line of notWaitedFor(stage, decision)) say.out(line);
    if (decision.environment !== undefined) say.out(`(in the GitHub environment ${decision.environment}: its required reviewers approve the push)`);
    say.out(decision.command ?? '');
    return code;
  }
  say.err(`not promoting ${revision} to stage ${stage}:`);
  for (const b of decision.blockers) say.err(`  ${b}`);
  for (const line of notWaitedFor(stage, decision)) say.err(`  ${line}`);
  return code;
}

/** `promote plan`: the Argo CD instances to read and the stages to promote, for the promote workflow's jobs. */
function promotePlan(say: Reporter, { configPath }: Options, format: 'terminal' | 'json' = 'terminal'): number {
  // Every problem synth would report, not only the config's: the same set on every command.
  const { platform } = loadPlan(configPath, say.loadOptions);
  const plan = promotionPlan(platform);
  if (format === 'json') {
    say.out(JSON.stringify(plan, null, 2));
    return EXIT.ok;
  }
  say.out(plan.instances.length === 0
    ? `Argo CD: one instance (gitops.argocd names none), read with the ARGOCD_KUBECONFIG secret, Applications in ${plan.argocdNamespace}`
    : `Argo CD instances (Applications in ${plan.argocdNamespace}):`);
  for (const i of plan.instances) say.out(`  ${i.name}: EKS cluster ${i.eksCluster} in ${i.region}, role ${i.roleArn}; deploys ${i.clusters.join(', ') || 'no cluster'}`);
  say.out(plan.stages.length === 0 ? 'stages: none is promoted (no cluster is at stage 2 or later)' : 'stages:');
  for (const s of plan.stages) {
    const how = [`follows ${s.follows ?? 'the main branch'}`, ...(s.soakMinutes > 0 ? [`soak ${minutesText(s.soakMinutes)}`] : []), ...(s.environment !== undefined ? [`GitHub environment ${s.environment}`] : [])];
    say.out(`  ${s.stage} (${s.ref}; ${how.join(', ')}): ${s.clusters.join(', ')}`);
  }
  return EXIT.ok;
}
