import { basename, dirname, resolve } from 'node:path';
import { ClusterSelector, listOption } from '../model/cluster-sets';
import type { Options } from './build';
import type { Reporter } from './reporter';

/** What a command runs with besides its command line. */
export interface Context {
  /** Where it prints, and how it shows and reads the paths the user gives. */
  readonly say: Reporter;
  /** The environment: `CDK8S_OUTDIR` when the cdk8s CLI runs us. */
  readonly env: NodeJS.ProcessEnv;
}

/** The config read when `--config` is not given, in the repository root (where npm runs scripts). */
const DEFAULT_CONFIG = 'config/platform.yaml';

/**
 * The config and the output root a command line names with `--config` and `--outdir`, read
 * from where the user ran npm; without them, config/platform.yaml and the repository root (or
 * the folder that holds the dist folder the cdk8s CLI asks for).
 */
export function locations({ say, env }: Context, given: { readonly config?: string; readonly outdir?: string }): Options {
  return {
    configPath: given.config !== undefined ? say.paths.resolve(given.config) : resolve(DEFAULT_CONFIG),
    root: outputRoot({ say, env }, given.outdir),
  };
}

/** The folder that holds dist/ and argocd/: `--outdir`, else where the cdk8s CLI writes, else the current directory. */
export function outputRoot({ say, env }: Context, outdir: string | undefined): string {
  return outdir !== undefined ? say.paths.resolve(outdir) : cdk8sRoot(env) ?? process.cwd();
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

/** The clusters `--cluster`, `--stage` and `--group` choose, each comma-separated (fit, explain). */
export function chosenClusters(given: { readonly cluster?: string; readonly stage?: string; readonly group?: string }): ClusterSelector {
  return { clusters: listOption(given.cluster), stages: listOption(given.stage), groups: listOption(given.group) };
}
