import { join, relative, sep } from 'node:path';
import type { Problem } from '../input/problems';
import { loadPlan } from '../model/checks';
import { fileInputs } from '../model/cluster-inputs';
import type { FleetPlan } from '../model/plan';
import type { LoadOptions } from '../config/load';
import type { Platform } from '../config/platform';
import { ParallelRenderer } from '../output/parallel-render';
import { GeneratedFile } from '../output/render';
import type { OutputRecord } from '../output/synth-cache';
import { ownerOfPath } from '../output/layout';
import { holdsCluster, holdsPath, Shard, WHOLE } from '../output/shard';
import { ClusterFile, clusterFiles, renderFleet } from '../synth';
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
  /** Each cluster's own files and the digest of their inputs (model/cluster-inputs.ts), in plan order. */
  readonly clusters: readonly BuiltCluster[];
  /** The files of the clusters kept as they are on disk (`reuse`): in no other field, their text never read. */
  readonly kept: ReadonlySet<string>;
}

/** One cluster of a {@link Built}: what an incremental synth records of it. */
export interface BuiltCluster {
  readonly id: string;
  /** Its own files (its folder's, but its page, and its root Application) by path: the digest of each one's inputs, empty unless the build was asked to `reuse`. */
  readonly inputs: ReadonlyMap<string, string>;
  /** Those of its files kept as they are on disk (`reuse`) rather than rendered. */
  readonly kept: ReadonlyMap<string, OutputRecord>;
}

/**
 * What {@link build} keeps beside the files, and what it may take instead of rendering.
 */
export interface BuildKeep {
  /** The rendered documents, for a review. @default false */
  readonly documents?: boolean;
  /**
   * A cluster's file on disk, when it is known to be what a build of these inputs would make
   * (synth-cache.ts `keptFile`): that file is then neither built nor read. @default - build every file
   */
  readonly reuse?: (cluster: string, path: string, inputs: string) => OutputRecord | undefined;
  /**
   * Only the files of this shard (output/shard.ts): its clusters' and, in shard 1, the fleet's.
   * The whole config is still read and checked: a shard reports every problem of the fleet. @default - the whole fleet
   */
  readonly shard?: Shard;
  /** With `shard`: the fleet's own files too, whatever the shard (a shard's review reads the fleet's summary data). @default false */
  readonly fleetFiles?: boolean;
  /** Told of each input file read (config/load.ts `seen`): what synth records of its inputs. @default - no one */
  readonly seen?: LoadOptions['seen'];
}

/**
 * Validates the config and builds every file in memory. Bundled, a large fleet's YAML is
 * rendered on a worker thread while the main thread builds the next file.
 * @param keep what to keep beside the files (`documents` for a review), and which clusters' files to reuse
 */
export async function build(say: Reporter, { configPath, root }: Options, keep: BuildKeep = {}): Promise<Built> {
  // Every problem of the config and of its plan (budgets, docs/cost.md) at once.
  const { plan, platform, warnings } = loadPlan(configPath, {
    ...say.loadOptions, configFile: relative(root, configPath).split(sep).join('/'), ...(keep.seen ? { seen: keep.seen } : {}),
  });
  const clusters: BuiltCluster[] = [];
  const kept = new Set<string>();
  const toBuild: ClusterFile[] = [];
  const shard = keep.shard ?? WHOLE;
  for (const cluster of plan.clusters.filter((c) => holdsCluster(shard, c.id))) {
    const inputs = new Map<string, string>();
    const keptFiles = new Map<string, OutputRecord>();
    for (const file of clusterFiles(cluster)) {
      // Only a synth that may reuse files pays for the digests (about 0.3 s at 960 clusters).
      const digest = keep.reuse ? fileInputs(file.path, file.inputs) : '';
      inputs.set(file.path, digest);
      const was = keep.reuse?.(cluster.id, file.path, digest);
      if (was) {
        keptFiles.set(file.path, was);
        kept.add(file.path);
      } else {
        toBuild.push(file);
      }
    }
    clusters.push({ id: cluster.id, inputs, kept: keptFiles });
  }
  const renderer = ParallelRenderer.start(join(__dirname, 'render-worker.cjs'), toBuild.length);
  try {
    const documents = new Map<string, readonly unknown[]>();
    const add = (file: GeneratedFile) => {
      if (keep.documents && file.docs && file.text === undefined) documents.set(file.path, file.docs);
      renderer.add(file);
    };
    for (const file of toBuild) add(file.build());
    renderFleet(plan, (file) => {
      if (holdsPath(shard, file.path) || (keep.fleetFiles && ownerOfPath(file.path) === undefined)) add(file);
    });
    const rendered = await renderer.finish();
    return { plan, platform, warnings, files: rendered, documents, clusters, kept };
  } finally {
    await renderer.cancel();
  }
}
