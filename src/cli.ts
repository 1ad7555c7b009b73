import { basename, dirname, join, resolve } from 'node:path';
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
import { classify, resourcesOf, TreeError } from './review/changes';
import { checkTree } from './review/check';
import { legacyPoolsAppProblems } from './review/guard';
import { GitError, treeAt } from './review/git';
import { markdownReport, terminalReport } from './review/report';
import { generate } from './synth';

/** Where the CLI prints; tests pass their own. */
export interface Io {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const USAGE = `usage: karpenter-gitops [synth|check|diff|fit] [options]

  synth                   validate the config and write DIR/dist and DIR/argocd (default)
  check                   exit 1 when DIR/dist or DIR/argocd differ from a fresh synth
  diff --base REF         what the working tree changes against git REF, resource by resource
  fit MANIFEST            which clusters and pools each workload in MANIFEST can run on, and why not

options:
  --config FILE           platform config (default: config/platform.yaml)
  --outdir DIR            output root (default: the current directory)
  --format terminal|markdown   diff output (default: terminal)
  --format terminal|json       fit output (default: terminal)
  --report-url URL        with --format markdown: where the full report is, linked when the comment is shortened`;

/** Exit codes of the command line (contract section 3). */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const COMMANDS = ['synth', 'check', 'diff'] as const;
type Command = (typeof COMMANDS)[number];

/**
 * Runs the command line and returns its exit code. Input errors are printed one
 * per line, without stack traces, and nothing is written.
 */
export async function run(argv: readonly string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
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
  if (!(COMMANDS as readonly string[]).includes(command) || extra.length > 0) {
    return usage(io, `unknown command "${[command, ...extra].join(' ')}"`);
  }
  const { base, format, 'report-url': reportUrl } = args.values;
  if (command === 'diff' && base === undefined) return usage(io, 'diff needs --base REF (e.g. --base origin/main)');
  if (command !== 'diff' && (base !== undefined || format !== undefined || reportUrl !== undefined)) return usage(io, `--base, --format and --report-url go with diff, not ${command}`);
  if (format !== undefined && format !== 'terminal' && format !== 'markdown') return usage(io, `unknown format "${format}" (allowed: terminal, markdown)`);

  const options = {
    configPath: args.values.config ?? 'config/platform.yaml',
    root: args.values.outdir ?? cdk8sRoot(env) ?? '.',
  };
  try {
    switch (command as Command) {
      case 'check': return await check(io, options);
      case 'diff': return await diff(io, options, base ?? '', format === 'markdown' ? 'markdown' : 'terminal', reportUrl);
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
async function build(configPath: string): Promise<{ platform: Platform; warnings: readonly Problem[]; files: Map<string, string> }> {
  const renderer = ParallelRenderer.start(join(__dirname, 'render-worker.cjs'));
  try {
    const { platform, warnings } = loadPlatform(configPath);
    generate(platform, (file) => renderer.add(file));
    return { platform, warnings, files: await renderer.finish() };
  } finally {
    await renderer.cancel();
  }
}

async function synth(io: Io, { configPath, root }: Options): Promise<number> {
  const output = OutputDir.open(resolve(root), 'synth');
  try {
    const { platform, warnings, files } = await build(configPath);
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
    files = (await build(configPath)).files;
    drifts = checkTree(output.read().files, files);
  } finally {
    output.close();
  }
  if (drifts.length === 0) {
    io.out(`dist/ and argocd/ are up to date (${files.size} files)`);
    return EXIT.ok;
  }
  for (const d of drifts) {
    io.err(`${d.kind}: ${join(root, d.path)}`);
    io.err(d.diff.split('\n').map((l) => `    ${l}`).join('\n'));
  }
  io.err(`${drifts.length} file(s) differ from a fresh synth: run \`npm run synth\` and commit dist/ and argocd/ (never edit them by hand)`);
  return EXIT.failed;
}

/** What a PR changes: the output committed at `base` against a fresh synth of the working tree. */
async function diff(io: Io, { configPath, root }: Options, base: string, format: 'terminal' | 'markdown', reportUrl?: string): Promise<number> {
  const { files } = await build(configPath);
  const before = treeAt(base, resolve(root));
  const changes = classify(resourcesOf(before, base), resourcesOf(files));
  io.out(format === 'markdown' ? markdownReport(changes, base, { fullReportUrl: reportUrl }) : terminalReport(changes, base));
  return EXIT.ok;
}

/**
 * `fit MANIFEST`: for each workload in the manifest, the clusters and pools it can run on
 * and why not the others. Exit 0 even when nothing fits (a question, not a gate); 1 when
 * the manifest or the config has problems, all printed; 2 for bad usage.
 */
async function fit(
  io: Io, positionals: readonly string[], values: { readonly config?: string; readonly outdir?: string; readonly base?: string; readonly format?: string; readonly 'report-url'?: string },
  env: NodeJS.ProcessEnv,
): Promise<number> {
  if (positionals.length === 0) return usage(io, 'fit needs a MANIFEST: a YAML file of Kubernetes objects');
  if (positionals.length > 1) return usage(io, `fit takes one MANIFEST, got ${positionals.length}: ${positionals.join(' ')}`);
  if (values.outdir !== undefined || values.base !== undefined || values['report-url'] !== undefined) return usage(io, '--outdir, --base and --report-url do not go with fit');
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
