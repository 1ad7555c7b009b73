import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { closest, CommandLine, CommandSpec, Given, OptionSpec, readCommandLine } from './command-line/args';
import { commandHelp, overviewHelp, versionText } from './command-line/help';
import { UserPaths, userDir } from './command-line/paths';
import { InputError } from './input/problems';
import { OutputError } from './output/output-error';
import { GitError } from './review/git';
import { TreeError } from './review/tree';
import { UPGRADE_COMMAND, upgradeCommand } from './upgrade/command';
import * as adopt from './commands/adopt';
import * as check from './commands/check';
import { Context, outputRoot } from './commands/context';
import * as diff from './commands/diff';
import * as explain from './commands/explain';
import * as fit from './commands/fit';
import * as init from './commands/init';
import * as promote from './commands/promote';
import { EXIT, Io, Reporter, usage } from './commands/reporter';
import * as synth from './commands/synth';
import * as tenancy from './commands/tenancy';

export type { Io } from './commands/reporter';

/** A command line read for one command: its problems, or the run it asks for. */
interface Request {
  readonly help: boolean;
  readonly version: boolean;
  readonly problems: readonly string[];
  readonly given: Given;
  /** The command run on the line, when the line has no problem. */
  readonly run?: (context: Context) => number | Promise<number>;
}

/** A command in the table: its spec, and how it reads its command line. */
interface Command {
  readonly spec: CommandSpec;
  readonly read: (argv: readonly string[], others: readonly OptionSpec[]) => Request;
}

/** A module of `src/commands/`: the command line its spec accepts, then its run on that line, typed by the same spec. */
function command<S extends CommandSpec>(module: { readonly spec: S; readonly run: (line: CommandLine<S>, context: Context) => number | Promise<number> }): Command {
  return {
    spec: module.spec,
    read: (argv, others) => {
      const { line, ...reading } = readCommandLine(module.spec, argv, others);
      return line ? { ...reading, run: (context) => module.run(line, context) } : reading;
    },
  };
}

/** The commands `run` takes, in the order the overview lists them; the first runs when none is named. */
const COMMANDS: readonly Command[] = [
  command(synth), command(check), command(diff), command(explain), command(fit), command(init), command(adopt), command(promote), command(tenancy),
];

/**
 * Runs the command line and returns its exit code. Input errors are printed one
 * per line, without stack traces, and nothing is written. Paths the user gives are
 * read from where they ran npm (`INIT_CWD`, see {@link userDir}), and shown back from there.
 */
export async function run(argv: readonly string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const say = new Reporter(io, env, new UserPaths(userDir(env)));
  // The upgrade changes the repository, not the output: its own options and messages, and a bundle of its own.
  if (argv[0] === UPGRADE_COMMAND.name) return upgradeCommand(argv.slice(1), { out: say.out, err: say.errWithLabels }, { env });
  // The command comes first (npm run COMMAND -- ...); a line that starts with an option is synth's.
  const named = argv.length > 0 && !argv[0].startsWith('-');
  const name = named ? argv[0] : COMMANDS[0].spec.name;
  const cmd = COMMANDS.find((c) => c.spec.name === name);
  if (!cmd) {
    const names = [...COMMANDS.map((c) => c.spec.name), UPGRADE_COMMAND.name];
    const near = closest(name, names.map((n) => ({ name: n })));
    say.error(`unknown command "${name}"${near ? ` (did you mean ${near.name}?)` : ''}; the commands: ${names.join(', ')} (npm run COMMAND -- --help)`);
    return EXIT.usage;
  }
  const others = COMMANDS.filter((c) => c !== cmd).flatMap((c) => c.spec.options);
  const reading = cmd.read(named ? argv.slice(1) : argv, others);
  if (reading.help) {
    say.out(named ? commandHelp(cmd.spec) : overviewHelp([...COMMANDS.map((c) => c.spec), UPGRADE_COMMAND]));
    return EXIT.ok;
  }
  if (reading.version) {
    say.out(versionText());
    return EXIT.ok;
  }
  if (!reading.run) return usage(say, cmd.spec, reading.problems);
  const context: Context = { say, env };
  // Before the run: whether the cdk8s CLI deleted dist/ is a fact of how we were started.
  const cleared = clearedByCdk8s(env) ?? '';
  try {
    return await reading.run(context);
  } catch (err) {
    const outdir = reading.given.get('outdir');
    return failed(err, say, { root: outputRoot(context, typeof outdir === 'string' ? outdir : undefined), cleared });
  }
}

/**
 * The exit code of an error a command threw, said in the user's words: input problems one per
 * line, git's and the file system's refusals in a line; anything else is a bug, thrown on.
 */
function failed(err: unknown, say: Reporter, { root, cleared }: { readonly root: string; readonly cleared: string }): number {
  if (err instanceof InputError) {
    for (const p of err.problems) say.problem(p);
    say.err(`${err.problems.length} problem(s) found; nothing was written${cleared}`);
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
    say.error(`${err.message}${err.unchanged ? `; nothing was changed${cleared}` : ''}`);
    return EXIT.failed;
  }
  // The file system refused (a file where a folder should be, no space, no permission): the
  // change has been undone. Its errors are known by their code (not `instanceof Error`: under
  // jest's sandbox Node's own errors come from another realm).
  if (!(typeof err === 'object' && err !== null && 'code' in err && err.code !== undefined && 'message' in err)) throw err;
  say.error(`cannot write the output under ${say.paths.show(root)}: ${String(err.message)}; nothing was changed${cleared}`);
  return EXIT.failed;
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
