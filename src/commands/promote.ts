import type { CommandLine, CommandSpec, Given } from '../command-line/args';
import { CONFIG_OPTION, formatOption, outdirOption } from '../command-line/options';
import type { Cluster } from '../config/platform';
import { someNames } from '../model/cluster-sets';
import { loadPlan } from '../model/checks';
import { clusterLayout } from '../output/layout';
import { promotionPlan } from '../promote/plan';
import { minutesText, Promotion, promotion, rfc3339 } from '../promote/promote';
import { commitOf, sameFiles } from '../review/git';
import type { Options } from './build';
import { Context, locations } from './context';
import { appendGithub, applicationFiles, promoteDecide, readApplications } from './promote-decide';
import { nowProblems, PROMOTE_FORMATS, promoteStatus, STATUS_OPTIONS, statusProblems } from './promote-status';
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
    + 'prints the Argo CD instances and the stages, and `promote decide` decides every stage at once\n'
    + 'from the read jobs\' applications-<instance>.json files, for the promote workflow (docs/windows.md).\n'
    + '`promote status` prints where the rollout stands: per stage its commit, each cluster synced,\n'
    + 'replacing nodes, waiting (window, soak, approval) or held by a problem, grouped (docs/windows.md).',
  argument: {
    name: 'STAGE|plan|decide|status', pattern: /^(?:[0-9]+|plan|decide|status)$/,
    missing: 'promote needs a STAGE, e.g. npm run promote -- 2 --revision SHA --applications apps.json, or plan, decide or status',
    invalid: 'promote takes a STAGE, a number such as 2, or plan, decide or status',
  },
  options: [
    { name: 'revision', value: 'SHA', help: 'the commit to promote (required with STAGE)' },
    { name: 'applications', value: 'FILE', help: 'kubectl -n argocd get applications.argoproj.io -o json, one file per Argo CD instance, comma-separated (FILE,FILE), a folder of them, or - for stdin (required with STAGE and decide)' },
    { name: 'main', value: 'REF', help: 'the main branch: SHA is promoted only while it still has SHA\'s files for the stage\'s clusters (default origin/HEAD, else origin/main)' },
    { name: 'now', value: 'TIME', help: 'the time the soak is measured up to, e.g. 2027-01-12T09:00:00Z (default: the clock)' },
    { name: 'expect-state', value: 'DIGEST', help: 'with STAGE: ready only while Argo CD still says what the decision DIGEST was made on (decide\'s state; an approved push)' },
    { name: 'github-output', value: 'FILE', help: 'append what the promote workflow\'s jobs read to FILE ($GITHUB_OUTPUT): plan its read legs, decide its pushes, STAGE ready=true|false (then a decision, ready or not, exits 0)' },
    { name: 'summary', value: 'FILE', help: 'with decide: append the decisions to FILE as Markdown ($GITHUB_STEP_SUMMARY)' },
    formatOption(PROMOTE_FORMATS, '; json prints one object: ready, blockers, push, environment, soak left (the promote workflow reads it); markdown only with status'),
    ...STATUS_OPTIONS,
    outdirOption('the git repository whose dist/ and argocd/ are compared at SHA and on the main branch'),
    CONFIG_OPTION,
  ],
  examples: [
    'kubectl -n argocd get applications.argoproj.io -o json | npm run --silent promote -- 2 --revision "$(git rev-parse HEAD)" --applications -',
    'npm run --silent promote -- 3 --revision SHA --applications eu.json,us.json --format json',
    'npm run --silent promote -- plan --format json',
    'npm run --silent promote -- decide --applications applications/ --main origin/main',
    'npm run --silent promote -- status --applications eu.json,us.json --format markdown',
  ],
  notes: 'exit codes: 0 ready (the command is printed; decide: decided), 1 not ready or problems, 2 bad command line or no cluster at STAGE',
  constraints: (given, target) => [...(target === 'status' ? [] : stageProblems(given, target)), ...statusProblems(given, target)],
} as const satisfies CommandSpec;

/** What `promote` needs of its options beyond each one alone: a stage needs the revision and the Applications; `plan` reads only the config. */
function stageProblems(given: Given, target: string | undefined): string[] {
  if (target === undefined) return [];
  const problems = nowProblems(given.get('now'));
  if (target === 'plan') {
    const stageOnly = ['revision', 'applications', 'main', 'now', 'expect-state', 'summary'].filter((o) => given.has(o));
    return stageOnly.length ? [`promote plan reads only the config: ${stageOnly.map((o) => `--${o}`).join(', ')} go with a STAGE`] : [];
  }
  if (target === 'decide') {
    const stageOnly = ['revision', 'expect-state'].filter((o) => given.has(o));
    return [
      ...(given.has('applications') ? [] : ['promote decide needs --applications FILE[,FILE…] or a folder: the read jobs\' applications-<instance>.json']),
      ...(stageOnly.length ? [`${stageOnly.map((o) => `--${o}`).join(', ')} go with a STAGE: decide decides every stage`] : []),
      ...problems,
    ];
  }
  return [
    ...(given.has('summary') ? ['--summary goes with decide'] : []),
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
  const now = options.now !== undefined ? { now: Date.parse(options.now) } : {};
  const githubOutput = options['github-output'] !== undefined ? { githubOutput: options['github-output'] } : {};
  if (argument === 'plan') return promotePlan(context.say, paths, format, options['github-output']);
  const files = applicationFiles(context.say, (options.applications ?? '-').split(','));
  if (argument === 'decide') {
    return promoteDecide(context.say, paths, { files, main: options.main, ...now, ...githubOutput, ...(options.summary !== undefined ? { summary: options.summary } : {}) });
  }
  return promote(context.say, paths, Number(argument), {
    revision: options.revision ?? '', files, main: options.main, format, ...now, ...githubOutput,
    ...(options['expect-state'] !== undefined ? { expectState: options['expect-state'] } : {}),
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
  /** The digest of the Argo CD state the push was approved on: ready only while it is still so. @default - not compared */
  readonly expectState?: string;
  /** Append `ready=true|false` to this file ($GITHUB_OUTPUT); a decision then exits 0 either way. @default - none */
  readonly githubOutput?: string;
}

/**
 * The decision as versioned data, for the promote workflow (`--format json`): whether to push,
 * why not, the push, the GitHub environment to push in and the soak left.
 */
function decisionJson(stage: number, revision: string, d: Promotion): Record<string, unknown> {
  return {
    version: 2, stage, revision, ready: d.ready, state: d.state, blockers: d.blockers, push: d.command ?? null, ref: d.ref,
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
  const { revision, files, main, now, format = 'terminal', expectState, githubOutput } = args;
  // Every problem synth would report, not only the config's: the same set on every command.
  const { platform } = loadPlan(configPath, say.loadOptions);
  const applications = readApplications(say, files, platform.gitops.argocdNamespace);
  if (applications === undefined) return EXIT.failed;
  // Main must still want the revision for the stage's clusters (a revert is never overtaken).
  const mainCommit = [main, 'origin/HEAD', 'origin/main'].filter((r): r is string => r !== undefined).map((r) => commitOf(r, root)).find((c) => c !== undefined);
  const stillWanted = (cluster: Cluster) => (mainCommit === undefined ? undefined : sameFiles(revision, mainCommit, clusterLayout(cluster).owned, root));
  const decided = promotion(platform, stage, revision, applications, { stillWanted, ...(now !== undefined ? { now } : {}) });
  const decision: Promotion = expectState !== undefined && decided.ready && decided.state !== expectState
    ? { ...decided, ready: false, blockers: [`Argo CD no longer says what the decision ${expectState} was made on (it says ${decided.state}): stage ${stage - 1} changed since, so this push is not made; the next run decides again`] }
    : decided;
  if (githubOutput !== undefined) appendGithub(githubOutput, [`ready=${decision.ready}`]);
  // 2: there is no such stage (the promote workflow's loop over the stages ends there); 1: not yet.
  const code = decision.ready || githubOutput !== undefined ? EXIT.ok : decision.noSuchStage ? EXIT.usage : EXIT.failed;
  if (format === 'json') {
    say.out(JSON.stringify(decisionJson(stage, revision, decision), null, 2));
    return code;
  }
  if (decision.ready) {
    say.out(decision.checked.length ? `stage ${stage - 1} has ${revision}, synced and healthy (${checkedText(decision.checked, platform, stage)}); promote with:`
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

/** The Applications checked, as many as fit a line: all of a small stage, a count of a large one. */
function checkedText(checked: readonly string[], platform: { readonly clusters: readonly Cluster[] }, stage: number): string {
  if (checked.length <= 8) return checked.join(', ');
  const clusters = platform.clusters.filter((c) => c.stage === stage - 1 && c.manualSync !== true).length;
  return `${checked.length.toLocaleString('en-US')} Applications of ${clusters.toLocaleString('en-US')} ${clusters === 1 ? 'cluster' : 'clusters'}`;
}

/** `promote plan`: the Argo CD instances to read and the stages to promote, for the promote workflow's jobs. */
function promotePlan(say: Reporter, { configPath }: Options, format: 'terminal' | 'json' = 'terminal', githubOutput?: string): number {
  // Every problem synth would report, not only the config's: the same set on every command.
  const { platform } = loadPlan(configPath, say.loadOptions);
  const plan = promotionPlan(platform);
  if (githubOutput !== undefined) appendGithub(githubOutput, [`reads=${JSON.stringify(plan.reads)}`]);
  if (format === 'json') {
    say.out(JSON.stringify(plan, null, 2));
    return EXIT.ok;
  }
  say.out(plan.instances.length === 0
    ? `Argo CD: one instance (gitops.argocd names none), read with the ARGOCD_KUBECONFIG secret, Applications in ${plan.argocdNamespace}`
    : `Argo CD instances (Applications in ${plan.argocdNamespace}):`);
  for (const i of plan.instances) say.out(`  ${i.name}: EKS cluster ${i.eksCluster} in ${i.region}, role ${i.roleArn}; deploys ${i.clusters.length ? `${i.clusters.length} (${someNames(i.clusters)})` : 'no cluster'}`);
  say.out(plan.stages.length === 0 ? 'stages: none is promoted (no cluster is at stage 2 or later)' : 'stages:');
  for (const s of plan.stages) {
    const how = [`follows ${s.follows ?? 'the main branch'}`, ...(s.soakMinutes > 0 ? [`soak ${minutesText(s.soakMinutes)}`] : []), ...(s.environment !== undefined ? [`GitHub environment ${s.environment}`] : [])];
    say.out(`  ${s.stage} (${s.ref}; ${how.join(', ')}): ${s.clusters.length === 1 ? s.clusters[0] : `${s.clusters.length} clusters (${someNames(s.clusters)})`}`);
  }
  return EXIT.ok;
}
