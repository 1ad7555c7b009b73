/**
 * Which files a review reads (contract 9.5: `diff` costs in proportion to the change). A review
 * looks beyond the changed files only within their clusters (the Applications that sync a file,
 * the pools that use a class, a cluster's pools at an upgrade: review/context.ts) and into the
 * fleet's own files (the summary data every side reads); a cluster none of whose files changed
 * has nothing to say, so its files are never read. A bootstrap Application syncs every cluster's
 * root: when one changes, every cluster is in scope.
 */
import { isBootstrapPath, ownerOfPath } from '../output/layout';
import { holdsCluster, Shard } from '../output/shard';

/** Which files of the output a side of a review reads, by path relative to the output root. */
export interface Scope {
  /** Whether it reads this file. */
  holds(path: string): boolean;
  /**
   * The only clusters whose files it may read, when they are known: git then lists only their
   * folders beside the fleet's own files (review/git.ts `treeAt`), not the whole fleet's.
   * @default - any cluster's
   */
  readonly clusters?: ReadonlySet<string>;
}

/** A shard's clusters' files and the fleet's own files (which every shard reads; shard 1 reports their changes). */
export function shardScope(shard: Shard): Scope {
  return {
    holds: (path) => {
      const cluster = ownerOfPath(path);
      return cluster === undefined || holdsCluster(shard, cluster);
    },
  };
}

/** The files of the shard's clusters that `changed` touches, and the fleet's own files. */
export function changeScope(changed: readonly string[], shard: Shard): Scope {
  const inShard = shardScope(shard);
  if (changed.some(isBootstrapPath)) return inShard;
  const touched = new Set(changed.map(ownerOfPath).filter((c) => c !== undefined).filter((c) => holdsCluster(shard, c)));
  return {
    holds: (path) => {
      const cluster = ownerOfPath(path);
      return cluster === undefined || touched.has(cluster);
    },
    clusters: touched,
  };
}
