import { join, relative, sep } from 'node:path';
import type { Problem } from '../input/problems';
import { loadPlan } from '../model/checks';
import type { FleetPlan } from '../model/plan';
import type { Platform } from '../config/platform';
import { ParallelRenderer } from '../output/parallel-render';
import { render } from '../synth';
import type { Reporter } from './reporter';

/** What every command reads and writes. */
export interface Options {
  /** The platform config, absolute. */
  readonly configPath: string;
  /** The output root (it holds dist/ and argocd/), absolute. */
  readonly root: string;
}

/** What {@link build} makes. */
export interface Built {
  readonly plan: FleetPlan;
  /** The config the plan was made of. */
  readonly platform: Platform;
  readonly warnings: readonly Problem[];
  /** Every file's text, by path relative to the output root. */
  readonly files: Map<string, string>;
  /**
   * The documents of every YAML file, as rendered into `files`, when asked for (`keep`): a
   * review reads these rather than parsing back the text just written (about half of a large
   * review's time); synth and check do not hold them. @default - empty
   */
  readonly documents: ReadonlyMap<string, readonly unknown[]>;
}

/**
 * Validates the config and builds every file in memory. Bundled, a large fleet's YAML is
 * rendered on a worker thread while the main thread builds the next file.
 * @param keep what to keep beside the files: `documents` for a review
 */
export async function build(say: Reporter, { configPath, root }: Options, keep: { readonly documents?: boolean } = {}): Promise<Built> {
  // Every problem of the config and of its plan (budgets, docs/cost.md) at once.
  const { plan, platform, warnings } = loadPlan(configPath, { ...say.loadOptions, configFile: relative(root, configPath).split(sep).join('/') });
  const renderer = ParallelRenderer.start(join(__dirname, 'render-worker.cjs'), plannedFiles(plan));
  try {
    const documents = new Map<string, readonly unknown[]>();
    render(plan, (file) => {
      if (keep.documents && file.docs && file.text === undefined) documents.set(file.path, file.docs);
      renderer.add(file);
    });
    return { plan, platform, warnings, files: await renderer.finish(), documents };
  } finally {
    await renderer.cancel();
  }
}

/** About how many files the plan makes: its pools and Applications, the bulk of any fleet. */
function plannedFiles(plan: FleetPlan): number {
  return plan.clusters.reduce((n, c) => n + c.pools.length + c.applications.length, 0);
}
