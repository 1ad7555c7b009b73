import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { loadPlatform } from './config/load';
import type { Platform } from './config/platform';
import { formatProblem, InputError, Problem } from './config/problems';
import { readManifest } from './fit/manifest';
import { fitWorkloads } from './fit/placement';
import { fitJson, fitTerminal } from './fit/report';
import { ParallelRenderer } from './output/parallel-render';
import { OutputDir } from './output/output-dir';
import { OutputError } from './output/output-error';
import { review } from './review/changes';
import { checkTree } from './review/check';
import { legacyPoolsAppProblems } from './review/guard';
import { GitError, treeAt } from './review/git';
import { markdownReport, terminalReport } from './review/report';
import { explainPool, renderExplanation } from './explain/explain';
import { atLeast, Risk } from './review/risk';
import { GeneratedTree, TreeError } from './review/tree';
import { generate } from './synth';
import { upgradeCommand } from './upgrade/command';

/** Where the CLI prints; tests pass their own. */
export interface Io {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const USAGE = `usage: karpenter-gitops [synth|check|diff|fit] [options]

  synth                   validate the config and write DIR/dist and DIR/argocd (default)
  check                   exit 1 when DIR/dist or DIR/argocd differ from a fresh synth
  diff --base REF         what the working tree changes against git REF, by cluster, resource and field
  explain CLUSTER/POOL    every resolved field of a pool with the level that set it, its instance types, prices and cost bound
  upgrade VERSION         regenerate imports/, chart keys, settings, compatibility and catalog for a Karpenter release (upgrade --help)
  fit MANIFEST            which clusters and pools each workload in MANIFEST can run on, and why not

options:
  --config FILE           platform config (default: config/platform.yaml)
  --outdir DIR            output root (default: the current directory)
  --format FORMAT         diff: terminal|markdown; explain, fit: terminal|json (default: terminal)
  --full                  diff: list every changed field (default: the first 8 of each resource)
  --fail-on destructive|replaces-nodes
                          diff: exit 3 when the report holds a change of that class or a louder one
  --report-url URL        with --format markdown: where the full report is, linked when the comment is shortened`;

/**
 * Exit codes of the command line (contract sections 3 and 5.4): `gate` is `diff
 * --fail-on` finding a change of the given class or a louder one.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, gate: 3 } as const;

/** The classes `diff --fail-on` takes. */
const GATES: readonly Risk[] = ['destructive', 'replaces-nodes'];

const COMMANDS = ['synth', 'check', 'diff', 'explain'] as const;
type Command = (typeof COMMANDS)[number];

/**
 * Runs the command line and returns its exit code. Input errors are printed one
 * per line, without stack traces, and nothing is written.
 */
export async function run(argv: readonly string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // The upgrade changes the repository, not the output: its own options and messages.
  if (argv[0] === 'upgrade') return upgradeCommand(argv.slice(1), io, { env });
  let args;
  try {
    args = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        config: { type: 'string' },
        outdir: { type: 'string' },
        base: { type: 'string' },
        format: { type: 'string' },
        full: { type: 'boolean' },
        'fail-on': { type: 'string' },
        'report-url': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return usage(io, (err as Error).message.split('\n')[0]);
  }
  if (args.values.help) {
    io.out(USAGE);
    return EXIT.ok;
  }
  const [command = 'synth', ...extra] = args.positionals;
  if (command === 'fit') return fit(io, extra, args.values, env);
  if (!(COMMANDS as readonly string[]).includes(command) || (command !== 'explain' && extra.length > 0)) {
    return usage(io, `unknown command "${[command, ...extra].join(' ')}"`);
  }
  if (command === 'explain' && (extra.length !== 1 || !/^[^/]+\/[^/]+$/.test(extra[0]))) {
    return usage(io, 'explain needs one CLUSTER/POOL, e.g. npm run explain -- demo/web');
  }
  const { base, format, full, 'fail-on': failOn, 'report-url': reportUrl } = args.values;
  if (command === 'diff' && base === undefined) return usage(io, 'diff needs --base REF (e.g. --base origin/main)');
  const diffOnly = [base, full, failOn, reportUrl].some((v) => v !== undefined);
  if (command !== 'diff' && diffOnly) return usage(io, `--base, --full, --fail-on and --report-url go with diff, not ${command}`);
  if (command !== 'diff' && command !== 'explain' && format !== undefined) return usage(io, `--format goes with diff and explain, not ${command}`);
  const formats = command === 'explain' ? ['terminal', 'json'] : ['terminal', 'markdown'];
  if (format !== undefined && !formats.includes(format)) return usage(io, `unknown format "${format}" (allowed: ${formats.join(', ')})`);
  if (failOn !== undefined && !GATES.includes(failOn as Risk)) return usage(io, `unknown class "${failOn}" for --fail-on (allowed: ${GATES.join(', ')})`);

  const options = {
    configPath: args.values.config ?? 'config/platform.yaml',
    root: args.values.outdir ?? cdk8sRoot(env) ?? '.',
  };
  try {
    switch (command as Command) {
      case 'check': return await check(io, options);
      case 'diff': return await diff(io, options, {
        base: base ?? '', format: format === 'markdown' ? 'markdown' : 'terminal', full: full ?? false, failOn: failOn as Risk | undefined, reportUrl,
      });
      case 'explain': return explain(io, options, extra[0], format === 'json' ? 'json' : 'terminal');
      default: return await synth(io, options);
    }
  } catch (err) {
    if (err instanceof InputError) {
      for (const p of err.problems) io.err(formatProblem(p));
      io.err(`${err.problems.length} problem(s) found; nothing was written`);
      return EXIT.failed;
    }
    if (err instanceof GitError) {
      io.err(`error: git: ${err.message}`);
      return EXIT.failed;
    }
    if (err instanceof TreeError) {
      io.err(`error: ${err.message}`);
      return EXIT.failed;
    }
    if (err instanceof OutputError) {
      io.err(`error: ${err.message}${err.unchanged ? '; nothing was changed' : ''}`);
      return EXIT.failed;
    }
    // The file system refused (a file where a folder should be, no space, no permission):
    // the change has been undone.
    if ((err as NodeJS.ErrnoException).code === undefined) throw err;
    io.err(`error: cannot write the output under ${options.root}: ${(err as Error).message}; nothing was changed`);
    return EXIT.failed;
  }
}

interface Options {
  readonly configPath: string;
  readonly root: string;
}

/**
 * Validates the config and builds every file in memory. Bundled, the YAML is rendered
 * on a worker thread while the main thread builds the next file.
 */
async function build({ configPath, root }: Options): Promise<{ platform: Platform; warnings: readonly Problem[]; files: Map<string, string> }> {
  const renderer = ParallelRenderer.start(join(__dirname, 'render-worker.cjs'));
  try {
    const { platform, warnings } = loadPlatform(configPath);
    // dist/SUMMARY.md names the config, from the output root.
    generate(platform, (file) => renderer.add(file), { configFile: relative(resolve(root), resolve(configPath)).split(sep).join('/') });
    return { platform, warnings, files: await renderer.finish() };
  } finally {
    await renderer.cancel();
  }
}

async function synth(io: Io, { configPath, root }: Options): Promise<number> {
  const output = OutputDir.open(resolve(root), 'synth');
  try {
    const { platform, warnings, files } = await build({ configPath, root });
    const old = output.read();
    const cascade = legacyPoolsAppProblems(old.files, files);
    if (cascade.length) throw new OutputError(cascade.join('\n'));
    const result = await output.replace(files, old);
    for (const w of warnings) io.err(`warning: ${formatProblem(w)}`);
    for (const line of summary(platform)) io.out(line);
    const at = root === '.' ? '' : `${root}/`;
    if (output.finishedInterrupted) io.out('finished the change of an earlier run that was interrupted');
    for (const path of result.removed) io.out(`removed ${at}${path}`);
    io.out(`${at}dist and ${at}argocd: ${files.size} files (${result.written.length} written, ${result.removed.length} removed, ${result.unchanged} unchanged)`);
    return EXIT.ok;
  } finally {
    output.close();
  }
}

/** The CI drift check: the committed output must be exactly what synth makes of the committed config. */
async function check(io: Io, { configPath, root }: Options): Promise<number> {
  const output = OutputDir.open(resolve(root), 'check');
  let drifts;
  let files;
  try {
    files = (await build({ configPath, root })).files;
    drifts = checkTree(output.read().files, files);
  } finally {
    output.close();
  }
  if (drifts.length === 0) {
    io.out(`dist/ and argocd/ are up to date (${files.size} files)`);
    return EXIT.ok;
  }
  for (const d of drifts) {
    if (d.kind === 'line-endings') {
      io.err(`${join(root, d.path)} differs only in line endings (CRLF): your git converts them; .gitattributes keeps them LF — run git add --renormalize . or re-checkout`);
      continue;
    }
    io.err(`${d.kind}: ${join(root, d.path)}`);
    io.err(d.diff.split('\n').map((l) => `    ${l}`).join('\n'));
  }
  const content = drifts.filter((d) => d.kind !== 'line-endings').length;
  const endings = drifts.length - content;
  if (content > 0) {
    io.err(`${content} file(s) differ from a fresh synth: run \`npm run synth\` and commit dist/ and argocd/ (never edit them by hand)`);
  }
  if (endings > 0) io.err(`${endings} file(s) differ only in line endings`);
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
  readonly failOn?: Risk;
  /** Where the full report is, linked from a shortened PR comment. @default - no link */
  readonly reportUrl?: string;
}

/**
 * What a PR changes: the output committed at `base` against a fresh synth of the
 * working tree. Only the files whose text differs are read from git and parsed.
 */
async function diff(io: Io, { configPath, root }: Options, options: DiffOptions): Promise<number> {
  const { files } = await build({ configPath, root });
  const before = treeAt(options.base, resolve(root), files);
  const result = review(new GeneratedTree(before, options.base), new GeneratedTree(files, 'the working tree'));
  io.out(options.format === 'markdown'
    ? markdownReport(result, options.base, { fullReportUrl: options.reportUrl, full: options.full })
    : terminalReport(result, options.base, { full: options.full }));
  const gate = options.failOn;
  if (gate !== undefined && result.changes.some((c) => atLeast(c.risk, gate))) {
    io.err(`karpenter-gitops diff: --fail-on ${gate}: the report holds ${result.changes.filter((c) => atLeast(c.risk, gate)).length} change(s) of class ${gate} or louder`);
    return EXIT.gate;
  }
  return EXIT.ok;
}

/** `explain CLUSTER/POOL`: every resolved field with its origin, the instance types, prices and the cost bound (contract 5.3). */
function explain(io: Io, { configPath }: Options, target: string, format: 'terminal' | 'json'): number {
  const [clusterId, poolName] = target.split('/');
  const { platform } = loadPlatform(configPath, { provenance: true });
  const explanation = explainPool(platform, clusterId, poolName);
  if (typeof explanation === 'string') {
    io.err(`error: ${explanation}`);
    return EXIT.failed;
  }
  io.out(format === 'json' ? JSON.stringify(explanation, null, 2) : renderExplanation(explanation).trimEnd());
  return EXIT.ok;
}

/**
 * `fit MANIFEST`: for each workload in the manifest, the clusters and pools it can run on
 * and why not the others. Exit 0 even when nothing fits (a question, not a gate); 1 when
 * the manifest or the config has problems, all printed; 2 for bad usage.
 */
async function fit(
  io: Io, positionals: readonly string[],
  values: { readonly config?: string; readonly outdir?: string; readonly base?: string; readonly format?: string; readonly full?: boolean; readonly 'fail-on'?: string; readonly 'report-url'?: string },
  env: NodeJS.ProcessEnv,
): Promise<number> {
  if (positionals.length === 0) return usage(io, 'fit needs a MANIFEST: a YAML file of Kubernetes objects');
  if (positionals.length > 1) return usage(io, `fit takes one MANIFEST, got ${positionals.length}: ${positionals.join(' ')}`);
  if ([values.outdir, values.base, values.full, values['fail-on'], values['report-url']].some((v) => v !== undefined)) {
    return usage(io, '--outdir, --base, --full, --fail-on and --report-url do not go with fit');
  }
  if (values.format !== undefined && values.format !== 'terminal' && values.format !== 'json') return usage(io, `unknown format "${values.format}" for fit (allowed: terminal, json)`);
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
  // The manifest is named from where the user ran npm (INIT_CWD), not the repository root npm runs in.
  const manifest = read(() => readManifest(resolve(env.INIT_CWD ?? '.', positionals[0]), positionals[0]));
  const loaded = read(() => loadPlatform(values.config ?? 'config/platform.yaml'));
  if (!manifest || !loaded) {
    for (const p of problems) io.err(formatProblem(p));
    io.err(`${problems.length} problem(s) found`);
    return EXIT.failed;
  }
  const answers = fitWorkloads(manifest.workloads, loaded.platform);
  if (values.format === 'json') io.out(fitJson(answers, manifest.skipped));
  else for (const line of fitTerminal(answers, manifest.skipped)) io.out(line);
  return EXIT.ok;
}

function usage(io: Io, message: string): number {
  io.err(`error: ${message}`);
  io.err(USAGE);
  return EXIT.usage;
}

/**
 * `cdk8s synth` runs the app with CDK8S_OUTDIR set to cdk8s.yaml's `output`
 * (dist); the output root is then the folder that holds it.
 */
function cdk8sRoot(env: NodeJS.ProcessEnv): string | undefined {
  const outdir = env.CDK8S_OUTDIR;
  if (!outdir) return undefined;
  return basename(resolve(outdir)) === 'dist' ? dirname(resolve(outdir)) : outdir;
}

/** The short table synth prints: one row per pool, with the number of instance types it admits. */
export function summary(platform: Platform): string[] {
  const rows = [['CLUSTER', 'POOL', 'ARCH', 'CAPACITY', 'TYPES', 'LIMITS']];
  for (const c of platform.clusters) {
    for (const p of c.pools) {
      const limits = Object.entries(p.settings.limits ?? {}).map(([k, v]) => `${k}=${v}`).join(',') || '-';
      rows.push([c.id, p.name, p.settings.arch.join(','), p.settings.capacityTypes.join(','), String(p.instanceTypes.count), limits]);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd());
}
