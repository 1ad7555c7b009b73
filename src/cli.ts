import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { closest, commandArgs, commandHelp, commandProblems, CommandSpec, COMMON_OPTIONS, OptionSpec, synopsis, tokenize } from './command-line/args';
import { COMMAND_SPECS, CommandName, overviewHelp, versionText } from './command-line/commands';
import { UserPaths, userDir } from './command-line/paths';
import { InputError } from './input/problems';
import { OutputError } from './output/output-error';
import { GitError } from './review/git';
import { TreeError } from './review/tree';
import { UPGRADE_COMMAND, upgradeCommand } from './upgrade/command';
import type { Options } from './commands/build';
import { adopt } from './commands/adopt';
import { check } from './commands/check';
import { diff } from './commands/diff';
import { explain } from './commands/explain';
import { fit } from './commands/fit';
import { init } from './commands/init';
import { promote, promotePlan } from './commands/promote';
import { EXIT, Io, Reporter, usage } from './commands/reporter';
import { synth } from './commands/synth';
import type { Risk } from './review/risk';
import { ClusterSelector, listOption } from './model/cluster-sets';

export type { Io } from './commands/reporter';

/** Every option of every command: the command line is cut into options and arguments before the command is known. */
const ALL_OPTIONS: readonly OptionSpec[] = [
  ...new Map(Object.values(COMMAND_SPECS).flatMap((c) => c.options).map((o) => [o.name, o])).values(),
  ...COMMON_OPTIONS,
];

/**
 * Runs the command line and returns its exit code. Input errors are printed one
 * per line, without stack traces, and nothing is written. Paths the user gives are
 * read from where they ran npm (`INIT_CWD`, see {@link userDir}), and shown back from there.
 */
export async function run(argv: readonly string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const say = new Reporter(io, env, new UserPaths(userDir(env)));
  // The upgrade changes the repository, not the output: its own options and messages.
  if (argv[0] === 'upgrade') return upgradeCommand(argv.slice(1), { out: say.out, err: say.errWithLabels }, { env });
  const tokens = tokenize(argv, ALL_OPTIONS);
  const [first, ...rest] = tokens.positionals;
  if (first === undefined && tokens.given.has('help')) {
    say.out(overviewHelp([...Object.values(COMMAND_SPECS), UPGRADE_COMMAND]));
    return EXIT.ok;
  }
  const name = first ?? 'synth';
  if (name === UPGRADE_COMMAND.name) {
    say.error(`upgrade comes first, before its options: ${synopsis(UPGRADE_COMMAND)}`);
    return EXIT.usage;
  }
  if (!Object.hasOwn(COMMAND_SPECS, name)) {
    const names = [...Object.keys(COMMAND_SPECS), UPGRADE_COMMAND.name];
    const near = closest(name, names.map((n) => ({ name: n })));
    say.error(`unknown command "${name}"${near ? ` (did you mean ${near.name}?)` : ''}; the commands: ${names.join(', ')} (npm run COMMAND -- --help)`);
    return EXIT.usage;
  }
  const spec: CommandSpec = COMMAND_SPECS[name as CommandName];
  const positionals = first === undefined ? [] : rest;
  if (tokens.given.has('help')) {
    say.out(commandHelp(spec));
    return EXIT.ok;
  }
  if (tokens.given.has('version')) {
    say.out(versionText());
    return EXIT.ok;
  }
  const problems = [
    ...commandProblems(spec, tokens, positionals), ...(name === 'diff' ? diffProblems(tokens.given) : []),
    ...(name === 'promote' ? promoteProblems(positionals[0], tokens.given) : []),
  ];
  if (problems.length) return usage(say, spec, problems);
  const { values, argument } = commandArgs(tokens, positionals);
  const text = (key: string) => (typeof values[key] === 'string' ? values[key] as string : undefined);
  const [config, outdir] = [text('config'), text('outdir')];
  const options: Options = {
    configPath: config !== undefined ? say.paths.resolve(config) : resolve(DEFAULT_CONFIG),
    root: outdir !== undefined ? say.paths.resolve(outdir) : cdk8sRoot(env) ?? process.cwd(),
  };
  const format = text('format');
  // fit's and explain's --cluster, --stage and --group, each comma-separated.
  const selector = (): ClusterSelector => ({ clusters: listOption(text('cluster')), stages: listOption(text('stage')), groups: listOption(text('group')) });
  const cleared = clearedByCdk8s(env);
  try {
    switch (name as CommandName) {
      case 'check': return await check(say, options);
      case 'diff': {
        const [base, live, cluster] = [text('base'), text('live'), text('cluster')];
        return await diff(say, options, {
          base: base ?? '', ...(live !== undefined ? { live: { file: say.paths.resolve(live), cluster: cluster ?? '' } } : {}),
          format: format === 'markdown' ? 'markdown' : 'terminal', full: values.full === true,
          failOn: text('fail-on') as Risk | 'cost' | undefined, reportUrl: text('report-url'),
        });
      }
      case 'adopt': return await adopt(say, {
        configPath: options.configPath, cluster: argument ?? '', live: say.paths.resolve(text('live') ?? ''),
        ...(text('helm-values') !== undefined ? { helmValues: say.paths.resolve(text('helm-values') ?? '') } : {}),
        namespace: text('namespace'), team: text('team'),
      });
      case 'explain': return explain(say, options, argument ?? '', format === 'json' ? 'json' : 'terminal', selector());
      case 'promote': {
        const as = format === 'json' ? 'json' : 'terminal';
        if (argument === 'plan') return promotePlan(say, options, as);
        const now = text('now');
        return promote(say, options, Number(argument), {
          revision: text('revision') ?? '', files: (text('applications') ?? '-').split(','), main: text('main'), format: as,
          ...(now !== undefined ? { now: Date.parse(now) } : {}),
        });
      }
      case 'fit': return fit(say, options.configPath, argument ?? '', format === 'json' ? 'json' : 'terminal', selector());
      case 'init': return await init(say, spec, {
        root: process.cwd(), cluster: argument ?? '', terraformFile: say.paths.resolve(text('terraform') ?? ''),
        repoURL: text('repo'), force: values.force === true, showPath: say.loadOptions.showPath,
      });
      default: return await synth(say, options, { verbose: values.verbose === true });
    }
  } catch (err) {
    if (err instanceof InputError) {
      for (const p of err.problems) say.problem(p);
      say.err(`${err.problems.length} problem(s) found; nothing was written${cleared ?? ''}`);
      return EXIT.failed;
    }
    if (err instanceof GitError) {
      say.error(`git: ${err.message}`);
      return EXIT.failed;
    }
    if (err instanceof TreeError) {
      say.error(err.message);
      return EXIT.failed;
    }
    if (err instanceof OutputError) {
      say.error(`${err.message}${err.unchanged ? `; nothing was changed${cleared ?? ''}` : ''}`);
      return EXIT.failed;
    }
    // The file system refused (a file where a folder should be, no space, no permission):
    // the change has been undone.
    if ((err as NodeJS.ErrnoException).code === undefined) throw err;
    say.error(`cannot write the output under ${say.paths.show(options.root)}: ${(err as Error).message}; nothing was changed${cleared ?? ''}`);
    return EXIT.failed;
  }
}

/** What `diff` needs of its options beyond each one alone: a base to compare with, git's or what runs. */
function diffProblems(given: ReadonlyMap<string, unknown>): string[] {
  const [base, live, cluster] = [given.has('base'), given.has('live'), given.has('cluster')];
  if (!base && !live) return ['diff needs --base REF (e.g. --base origin/main), or --live FILE --cluster CLUSTER'];
  if (base && live) return ['diff takes --base REF or --live FILE, not both'];
  if (live && !cluster) return ['diff --live needs --cluster CLUSTER: the cluster the export is of'];
  if (cluster && !live) return ['diff takes --cluster only with --live FILE'];
  return [];
}

/** What `promote` needs of its options beyond each one alone: a stage needs the revision and the Applications; `plan` reads only the config. */
function promoteProblems(target: string | undefined, given: ReadonlyMap<string, unknown>): string[] {
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

/** The config read when `--config` is not given, in the repository root (where npm runs scripts). */
const DEFAULT_CONFIG = 'config/platform.yaml';

/**
 * `cdk8s synth` runs the app with CDK8S_OUTDIR set to cdk8s.yaml's `output`
 * (dist); the output root is then the folder that holds it.
 */
function cdk8sRoot(env: NodeJS.ProcessEnv): string | undefined {
  const outdir = env.CDK8S_OUTDIR;
  if (!outdir) return undefined;
  return basename(resolve(outdir)) === 'dist' ? dirname(resolve(outdir)) : resolve(outdir);
}

/**
 * What to add to "nothing was written" when the cdk8s CLI ran us: it deletes its output folder
 * (cdk8s.yaml's `output`, dist/) before it runs the app, so a failed `npx cdk8s synth` leaves no
 * dist/ whatever the app does. Undefined when that folder is there (`cdk8s synth --stdout`
 * passes a fresh temporary one) or the cdk8s CLI did not run us.
 * @see https://github.com/cdk8s-team/cdk8s-cli/blob/2.x/src/cli/cmds/synth.ts (`fs.rmSync(outdir)` before `synthApp`)
 */
function clearedByCdk8s(env: NodeJS.ProcessEnv): string | undefined {
  const outdir = env.CDK8S_OUTDIR;
  if (!outdir || existsSync(resolve(outdir))) return undefined;
  return `, but the cdk8s CLI deleted ${outdir}/ before it ran karpenter-gitops: restore it with git checkout -- ${outdir}/ `
    + '(npm run synth leaves it as it was when a run fails)';
}
