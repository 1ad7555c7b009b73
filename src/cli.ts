import { existsSync, readFileSync } from 'node:fs';
import { promotion } from './promote/promote';
import { stageAdoptionLine, stageAdoptions } from './review/windows';
import { summaryDataOf } from './review/summary-data';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { loadPlatform } from './config/load';
import type { Cluster, Platform } from './config/platform';
import { loadPlan } from './model/checks';
import { formatProblem, InputError, Problem } from './input/problems';
import { closest, commandArgs, commandHelp, commandProblems, CommandSpec, COMMON_OPTIONS, OptionSpec, synopsis, tokenize, usageHint } from './command-line/args';
import { Colour, Paint, paintErrors, paintFor } from './command-line/colour';
import { COMMAND_SPECS, CommandName, overviewHelp, versionText } from './command-line/commands';
import { clusterLayout } from './output/layout';
import { UserPaths, userDir } from './command-line/paths';
import { readManifest } from './fit/manifest';
import { fitWorkloads } from './fit/placement';
import { fitJson, fitTerminal } from './fit/report';
import { ParallelRenderer } from './output/parallel-render';
import { OutputDir } from './output/output-dir';
import { OutputError } from './output/output-error';
import { review } from './review/changes';
import { checkTree, Drift } from './review/check';
import { legacyPoolsAppProblems } from './review/guard';
import { commitOf, commitTime, GitError, sameFiles, treeAt } from './review/git';
import { markdownReport, terminalReport } from './review/report';
import { explainPool, renderExplanation } from './explain/explain';
import { atLeast, Risk } from './review/risk';
import { GeneratedTree, TreeError } from './review/tree';
import type { FleetPlan } from './model/plan';
import { render } from './synth';
import { UPGRADE_COMMAND, upgradeCommand } from './upgrade/command';
import { CONFIG_DIR, InitRefused, InitRequest, initRepository, InitUsageError } from './init/init';
import { CHART_VERSION } from './release/chart-values-keys.generated';

/** Where the CLI prints; tests pass their own. */
export interface Io {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  /** Whether `out` and `err` are terminals: only there is anything coloured (see {@link paintFor}). @default - neither */
  readonly tty?: { readonly out: boolean; readonly err: boolean };
}

/**
 * Exit codes of the command line (contract sections 3 and 5.4): `gate` is `diff
 * --fail-on` finding a change of the given class or a louder one.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, gate: 3 } as const;

/** Every option of every command: the command line is cut into options and arguments before the command is known. */
const ALL_OPTIONS: readonly OptionSpec[] = [
  ...new Map(Object.values(COMMAND_SPECS).flatMap((c) => c.options).map((o) => [o.name, o])).values(),
  ...COMMON_OPTIONS,
];

/** Colour of the line of each class of change in `diff`. */
const RISK_COLOURS: Partial<Record<Risk, Colour>> = { 'destructive': 'red', 'replaces-nodes': 'yellow', 'capacity': 'cyan', 'access': 'bold', 'controller': 'magenta' };

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
  const problems = commandProblems(spec, tokens, positionals);
  if (problems.length) return usage(say, spec, problems);
  const { values, argument } = commandArgs(tokens, positionals);
  const text = (key: string) => (typeof values[key] === 'string' ? values[key] as string : undefined);
  const [config, outdir] = [text('config'), text('outdir')];
  const options: Options = {
    configPath: config !== undefined ? say.paths.resolve(config) : resolve(DEFAULT_CONFIG),
    root: outdir !== undefined ? say.paths.resolve(outdir) : cdk8sRoot(env) ?? process.cwd(),
  };
  const format = text('format');
  const cleared = clearedByCdk8s(env);
  try {
    switch (name as CommandName) {
      case 'check': return await check(say, options);
      case 'diff': return await diff(say, options, {
        base: text('base') ?? '', format: format === 'markdown' ? 'markdown' : 'terminal', full: values.full === true,
        failOn: text('fail-on') as Risk | 'cost' | undefined, reportUrl: text('report-url'),
      });
      case 'explain': return explain(say, options, argument ?? '', format === 'json' ? 'json' : 'terminal');
      case 'promote': return promote(say, { configPath: options.configPath, root: options.root }, Number(argument), { revision: text('revision') ?? '', file: text('applications') ?? '-', main: text('main') });
      case 'fit': return fit(say, options.configPath, argument ?? '', format === 'json' ? 'json' : 'terminal');
      case 'init': return await init(say, spec, {
        root: process.cwd(), cluster: argument ?? '', terraformFile: say.paths.resolve(text('terraform') ?? ''),
        repoURL: text('repo'), force: values.force === true, showPath: say.loadOptions.showPath,
      });
      default: return await synth(say, options);
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

/** The config read when `--config` is not given, in the repository root (where npm runs scripts). */
const DEFAULT_CONFIG = 'config/platform.yaml';

/** Prints for the commands: errors red and warnings yellow on a terminal, paths as the user sees them. */
class Reporter {
  private readonly paint: { readonly out: Paint; readonly err: Paint };

  public constructor(private readonly io: Io, env: NodeJS.ProcessEnv, public readonly paths: UserPaths) {
    this.paint = { out: paintFor(io.tty?.out ?? false, env), err: paintFor(io.tty?.err ?? false, env) };
  }

  public readonly out = (line: string): void => this.io.out(line);
  public readonly err = (line: string): void => this.io.err(line);

  /** A line of standard output in a colour (on a terminal). */
  public outIn(colour: Colour, line: string): void {
    this.io.out(this.paint.out(colour, line));
  }

  /** Paints a text for standard output (on a terminal). */
  public paintOut(colour: Colour, text: string): string {
    return this.paint.out(colour, text);
  }

  /** `error: message`. */
  public error(message: string): void {
    this.io.err(`${this.paint.err('red', 'error:')} ${message}`);
  }

  /** Prints a line of another part's output (the upgrade), its `error:` or `warning:` painted like ours. */
  public get errWithLabels(): (line: string) => void {
    return paintErrors(this.paint.err, this.io.err);
  }

  /** A problem of an input file, `file:line:col: field: message` (files are named from where the user ran npm: {@link Reporter.loadOptions}). */
  public problem(p: Problem): void {
    const line = formatProblem(p);
    const at = line.indexOf(': ');
    this.io.err(at < 0 ? this.paint.err('red', line) : `${this.paint.err('red', line.slice(0, at + 1))}${line.slice(at + 1)}`);
  }

  /** `warning: file:line:col: field: message`. */
  public warning(p: Problem): void {
    this.io.err(`${this.paint.err('yellow', 'warning:')} ${formatProblem(p)}`);
  }

  /** How the config is loaded for this user: files named, in problems and their messages, from where they ran npm. */
  public get loadOptions(): { readonly showPath: (path: string) => string } {
    return { showPath: (path) => this.paths.show(path) };
  }
}

/** What every command reads and writes. */
interface Options {
  /** The platform config, absolute. */
  readonly configPath: string;
  /** The output root (it holds dist/ and argocd/), absolute. */
  readonly root: string;
}

/**
 * Validates the config and builds every file in memory. Bundled, the YAML is rendered
 * on a worker thread while the main thread builds the next file.
 */
async function build(say: Reporter, { configPath, root }: Options): Promise<{ platform: Platform; plan: FleetPlan; warnings: readonly Problem[]; files: Map<string, string> }> {
  const renderer = ParallelRenderer.start(join(__dirname, 'render-worker.cjs'));
  try {
    // Every problem of the config and of its plan (budgets, docs/cost.md) at once.
    const { platform, plan, warnings } = loadPlan(configPath, { ...say.loadOptions, configFile: relative(root, configPath).split(sep).join('/') });
    render(plan, (file) => renderer.add(file));
    return { platform, plan, warnings, files: await renderer.finish() };
  } finally {
    await renderer.cancel();
  }
}

async function synth(say: Reporter, options: Options): Promise<number> {
  const output = OutputDir.open(options.root, 'synth');
  try {
    const { plan, warnings, files } = await build(say, options);
    const old = output.read();
    const cascade = legacyPoolsAppProblems(old.files, files);
    if (cascade.length) throw new OutputError(cascade.join('\n'));
    const result = await output.replace(files, old);
    for (const w of warnings) say.warning(w);
    const [header, ...rows] = summary(plan);
    say.outIn('bold', header);
    for (const row of rows) say.out(row);
    const shown = say.paths.show(options.root);
    const at = shown === '.' ? '' : `${shown}/`;
    if (output.finishedInterrupted) say.out('finished the change of an earlier run that was interrupted');
    for (const path of result.removed) say.out(`removed ${at}${path}`);
    say.out(`${at}dist and ${at}argocd: ${files.size} files (${result.written.length} written, ${result.removed.length} removed, ${result.unchanged} unchanged)`);
    return EXIT.ok;
  } finally {
    output.close();
  }
}

/** The CI drift check: the committed output must be exactly what synth makes of the committed config. */
async function check(say: Reporter, options: Options): Promise<number> {
  const output = OutputDir.open(options.root, 'check');
  let drifts;
  let files;
  try {
    files = (await build(say, options)).files;
    drifts = checkTree(output.read().files, files);
  } finally {
    output.close();
  }
  if (drifts.length === 0) {
    say.out(`dist/ and argocd/ are up to date (${files.size} files)`);
    return EXIT.ok;
  }
  const shown = (d: Drift) => say.paths.show(join(options.root, d.path));
  for (const d of drifts) {
    if (d.kind === 'line-endings') {
      say.err(`${shown(d)} differs only in line endings (CRLF): your git converts them; .gitattributes keeps them LF — run git add --renormalize . or re-checkout`);
      continue;
    }
    say.err(`${d.kind}: ${shown(d)}`);
    say.err(d.diff.split('\n').map((l) => `    ${l}`).join('\n'));
  }
  const content = drifts.filter((d) => d.kind !== 'line-endings').length;
  const endings = drifts.length - content;
  if (content > 0) {
    say.err(`${content} file(s) differ from a fresh synth: run \`npm run synth\` and commit dist/ and argocd/ (never edit them by hand)`);
  }
  if (endings > 0) say.err(`${endings} file(s) differ only in line endings`);
  return EXIT.failed;
}

/** What `diff` is asked for. */
interface DiffOptions {
  /** The git ref to compare with. */
  readonly base: string;
  readonly format: 'terminal' | 'markdown';
  /** Every changed field, not the first few of each resource. */
  readonly full: boolean;
  /** Exit {@link EXIT.gate} when a change of this class or a louder one is reported. @default - always exit 0 */
  readonly failOn?: Risk | 'cost';
  /** Where the full report is, linked from a shortened PR comment. @default - no link */
  readonly reportUrl?: string;
}

/**
 * What a PR changes: the output committed at `base` against a fresh synth of the
 * working tree. Only the files whose text differs are read from git and parsed.
 */
async function diff(say: Reporter, options: Options, diffOptions: DiffOptions): Promise<number> {
  const { files } = await build(say, options);
  const before = treeAt(diffOptions.base, options.root, files);
  const baseTree = new GeneratedTree(before, diffOptions.base);
  const headTree = new GeneratedTree(files, 'the working tree');
  const reviewed = review(baseTree, headTree);
  // A cluster moving onto a stage ref (docs/windows.md), said with the report, at its head.
  const baseCommit = commitOf(diffOptions.base, options.root) ?? diffOptions.base;
  const adoptions = stageAdoptions(baseTree, headTree).map((a) => stageAdoptionLine(a, commitOf(a.ref, options.root), baseCommit));
  const result = adoptions.length ? { ...reviewed, notes: [...adoptions, ...(reviewed.notes ?? [])] } : reviewed;
  // The rollout is counted from the head commit's time, not this machine's clock (docs/review.md).
  const data = summaryDataOf(headTree);
  const fleet = 'data' in data ? { data: data.data, at: commitTime('HEAD', options.root) ?? new Date() } : undefined;
  const style = (risk: Risk, text: string) => {
    const colour = RISK_COLOURS[risk];
    return colour ? say.paintOut(colour, text) : text;
  };
  say.out(diffOptions.format === 'markdown'
    ? markdownReport(result, diffOptions.base, { fullReportUrl: diffOptions.reportUrl, full: diffOptions.full, fleet })
    : terminalReport(result, diffOptions.base, { full: diffOptions.full, style, fleet }));
  const gate = diffOptions.failOn;
  if (gate === 'cost') {
    // A PR that lets a team spend more needs the same explicit approval as a drain (docs/cost.md).
    const rises = (result.costs ?? []).filter((c) => c.rises && c.team !== 'all teams');
    if (rises.length === 0) return EXIT.ok;
    say.err(`karpenter-gitops diff: --fail-on cost: the ceiling of ${rises.map((c) => `team ${c.team}`).join(', ')} rises`);
    return EXIT.gate;
  }
  if (gate !== undefined && result.changes.some((c) => atLeast(c.risk, gate))) {
    say.err(`karpenter-gitops diff: --fail-on ${gate}: the report holds ${result.changes.filter((c) => atLeast(c.risk, gate)).length} change(s) of class ${gate} or louder`);
    return EXIT.gate;
  }
  return EXIT.ok;
}

/** `explain CLUSTER/POOL`: every resolved field with its origin, the instance types, prices and the cost bound (contract 5.3). */
function explain(say: Reporter, { configPath }: Options, target: string, format: 'terminal' | 'json'): number {
  const [clusterId, poolName] = target.split('/');
  const { platform, plan } = loadPlan(configPath, { ...say.loadOptions, provenance: true });
  const explanation = explainPool(platform, clusterId, poolName, plan);
  if (typeof explanation === 'string') {
    say.error(explanation);
    return EXIT.failed;
  }
  say.out(format === 'json' ? JSON.stringify(explanation, null, 2) : renderExplanation(explanation).trimEnd());
  return EXIT.ok;
}

/** `promote STAGE --revision SHA --applications FILE` (docs/windows.md). */
function promote(say: Reporter, { configPath, root }: Options, stage: number, { revision, file, main }: { revision: string; file: string; main?: string }): number {
  const { platform } = loadPlatform(configPath, say.loadOptions);
  let applications: unknown;
  try {
    applications = JSON.parse(file === '-' ? readFileSync(0, 'utf8') : readFileSync(say.paths.resolve(file), 'utf8'));
  } catch (err) {
    say.error(`cannot read the Applications from ${file === '-' ? 'stdin' : file}: ${(err as Error).message} (give kubectl -n argocd get applications -o json)`);
    return EXIT.failed;
  }
  // Main must still want the revision for the stage's clusters (a revert is never overtaken).
  const mainCommit = [main, 'origin/HEAD', 'origin/main'].filter((r): r is string => r !== undefined).map((r) => commitOf(r, root)).find((c) => c !== undefined);
  const stillWanted = (cluster: Cluster) => (mainCommit === undefined ? undefined : sameFiles(revision, mainCommit, clusterLayout(cluster).owned, root));
  const decision = promotion(platform, stage, revision, applications, stillWanted);
  if (decision.ready) {
    say.out(`stage ${stage - 1} has ${revision}, synced and healthy (${decision.checked.join(', ')}); promote with:`);
    say.out(decision.command ?? '');
    return EXIT.ok;
  }
  say.err(`not promoting ${revision} to stage ${stage}:`);
  for (const b of decision.blockers) say.err(`  ${b}`);
  // 2: there is no such stage (the promote workflow's loop over the stages ends there); 1: not yet.
  return decision.noSuchStage ? EXIT.usage : EXIT.failed;
}

/**
 * `fit MANIFEST`: for each workload in the manifest, the clusters and pools it can run on
 * and why not the others, read from the fleet's plan (what synth would write). Exit 0 even
 * when nothing fits (a question, not a gate); 1 when the manifest or the config (or its plan)
 * has problems, all printed.
 */
function fit(say: Reporter, configPath: string, manifestPath: string, format: 'terminal' | 'json'): number {
  const problems: Problem[] = [];
  const read = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      problems.push(...err.problems);
      return undefined;
    }
  };
  // The manifest is named as the user gave it, and read from where they ran npm.
  const manifest = read(() => readManifest(say.paths.resolve(manifestPath), manifestPath));
  const loaded = read(() => loadPlan(configPath, say.loadOptions));
  if (!manifest || !loaded) {
    // The manifest is named as the user gave it; the config's files, from where they ran npm.
    for (const p of problems) say.problem(p);
    say.err(`${problems.length} problem(s) found`);
    return EXIT.failed;
  }
  const answers = fitWorkloads(manifest.workloads, loaded.platform, loaded.plan);
  if (format === 'json') say.out(fitJson(answers, manifest.skipped));
  else for (const line of fitTerminal(answers, manifest.skipped)) say.out(line);
  return EXIT.ok;
}

/**
 * `init CLUSTER --terraform FILE`: config/ becomes the user's first cluster (src/init). Says
 * what it wrote and removed, what it kept, whether gitops.repoURL still needs changing, and
 * the commands to run next.
 */
async function init(say: Reporter, spec: CommandSpec, request: InitRequest): Promise<number> {
  let result;
  try {
    result = await initRepository(request);
  } catch (err) {
    if (err instanceof InitUsageError) return usage(say, spec, [err.message]);
    if (!(err instanceof InitRefused)) throw err;
    say.error(`${err.message}; nothing was written`);
    return EXIT.failed;
  }
  const show = (path: string) => say.paths.show(join(request.root, path));
  for (const w of result.warnings) say.warning(w);
  for (const path of result.written) {
    say.out(path.endsWith('/platform.yaml')
      ? `wrote ${show(path)}: cluster ${request.cluster} (terraform/${request.cluster}.json), Karpenter ${CHART_VERSION}, one example team: ${result.team}`
      : `wrote ${show(path)}: a copy of ${say.paths.show(request.terraformFile)}`);
  }
  for (const path of result.removed) say.out(`removed ${show(path)} (the example's)`);
  for (const path of result.kept) say.out(`kept ${show(path)}: not the example's; remove it if your fleet does not use it`);
  const repo = result.repo;
  if (repo.from === 'example') {
    say.outIn('yellow', `gitops.repoURL is still the example's, ${repo.url}: set it in ${show(`${CONFIG_DIR}/platform.yaml`)} to the URL Argo CD clones this repository from (or run init again with --repo URL)`);
  } else {
    say.out(`gitops.repoURL: ${repo.url}${repo.from === 'old-config' ? ' (kept from the config it replaced)' : ''}`);
  }
  say.out('');
  say.out('next:');
  say.out(`  1. rename team ${result.team} in ${show(`${CONFIG_DIR}/platform.yaml`)} to your first team (or keep it), then: npm run synth`);
  say.out('     synth replaces the example\'s dist/ and argocd/ with your fleet\'s');
  say.out('  2. npm run check, then commit config/, dist/ and argocd/ together (docs/making-it-yours.md)');
  return EXIT.ok;
}

/** Bad usage: every problem, then the command's synopsis and where its help is. */
function usage(say: Reporter, spec: CommandSpec, problems: readonly string[]): number {
  for (const p of problems) say.error(p);
  for (const line of usageHint(spec)) say.err(line);
  return EXIT.usage;
}

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

/** The short table synth prints: one row per pool, with the number of instance types it admits. */
export function summary(plan: FleetPlan): string[] {
  const rows = plan.summaryRows;
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd());
}
