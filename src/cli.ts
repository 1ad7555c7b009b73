import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadPlatform } from './config/load';
import type { Platform } from './config/platform';
import { formatProblem, InputError } from './config/problems';
import { ParallelRenderer } from './output/parallel-render';
import { generate } from './synth';
import { writeTree } from './output/write';

/** Where the CLI prints; tests pass their own. */
export interface Io {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const USAGE = `usage: karpenter-gitops [synth] [--config FILE] [--outdir DIR]

  synth   validate the config and write DIR/dist and DIR/argocd (default)

options:
  --config FILE   platform config (default: config/platform.yaml)
  --outdir DIR    output root (default: the current directory)`;

/** Exit codes of the command line (contract section 3). */
export const EXIT = { ok: 0, invalidInput: 1, usage: 2 } as const;

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
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    io.err(`error: ${(err as Error).message.split('\n')[0]}`);
    io.err(USAGE);
    return EXIT.usage;
  }
  if (args.values.help) {
    io.out(USAGE);
    return EXIT.ok;
  }
  const [command = 'synth', ...extra] = args.positionals;
  if (command !== 'synth' || extra.length > 0) {
    io.err(`error: unknown command "${[command, ...extra].join(' ')}"`);
    io.err(USAGE);
    return EXIT.usage;
  }
  const configPath = args.values.config ?? 'config/platform.yaml';
  const root = args.values.outdir ?? cdk8sRoot(env) ?? '.';
  // Bundled, the YAML is rendered on a worker thread while the main thread builds the next file.
  const renderer = ParallelRenderer.start(join(__dirname, 'render-worker.cjs'));
  try {
    const { platform, warnings } = loadPlatform(configPath);
    generate(platform, (file) => renderer.add(file));
    const files = await renderer.finish();
    const result = writeTree(resolve(root), files);
    for (const w of warnings) io.err(`warning: ${formatProblem(w)}`);
    for (const line of summary(platform)) io.out(line);
    const at = root === '.' ? '' : `${root}/`;
    io.out(`${at}dist and ${at}argocd: ${files.size} files (${result.written} written, ${result.removed} removed, ${result.unchanged} unchanged)`);
    return EXIT.ok;
  } catch (err) {
    await renderer.cancel();
    if (err instanceof InputError) {
      for (const p of err.problems) io.err(formatProblem(p));
      io.err(`${err.problems.length} problem(s) found; nothing was written`);
      return EXIT.invalidInput;
    }
    // The file system refused (a file where a folder should be, no space, no permission):
    // writeTree has already put back what it changed.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === undefined) throw err;
    io.err(`error: cannot write the output under ${root}: ${(err as Error).message}; nothing was changed`);
    return EXIT.invalidInput;
  }
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

/** The short table synth prints: one row per pool. */
export function summary(platform: Platform): string[] {
  const rows = [['CLUSTER', 'POOL', 'ARCH', 'CAPACITY', 'LIMITS']];
  for (const c of platform.clusters) {
    for (const p of c.pools) {
      const limits = Object.entries(p.settings.limits ?? {}).map(([k, v]) => `${k}=${v}`).join(',') || '-';
      rows.push([c.id, p.name, p.settings.arch.join(','), p.settings.capacityTypes.join(','), limits]);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd());
}
