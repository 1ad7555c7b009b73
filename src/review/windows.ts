import { clusterLayout } from '../output/layout';
import type { GeneratedTree } from './tree';

/** A cluster whose root starts tracking a stage ref in this change (`stage` set, or changed). */
export interface StageAdoption {
  readonly cluster: string;
  /** The ref the root tracks at the head. */
  readonly ref: string;
  /** The ref it tracked at the base. */
  readonly was: string;
}

/** The clusters whose root (the layout's `argocd/<cluster>.yaml`, never the bootstrap) tracks another git revision at the head: a cluster moving onto (or between) stage refs, or a new `gitops.targetRevision`. */
export function stageAdoptions(base: GeneratedTree, head: GeneratedTree): StageAdoption[] {
  const revision = (tree: GeneratedTree, file: string) => tree.resourcesIn(file).filter((r) => r.kind === 'Application')
    .map((r) => ((r.body.spec as { source?: { targetRevision?: string } } | undefined)?.source?.targetRevision))[0];
  const out: StageAdoption[] = [];
  // Only the clusters' roots: argocd/bootstrap.yaml and the other fleet files are not a cluster's.
  for (const cluster of [...head.clusters()].sort()) {
    const file = clusterLayout(cluster).root;
    if (!base.files.has(file) || !head.files.has(file) || base.files.get(file) === head.files.get(file)) continue;
    const [was, ref] = [revision(base, file), revision(head, file)];
    if (was !== undefined && ref !== undefined && was !== ref) out.push({ cluster, ref, was });
  }
  return out;
}

/**
 * What a cluster moving onto a stage ref gets at merge (docs/windows.md, adopting stages): its
 * root then syncs everything of the cluster from that ref. A ref that does not exist yet holds
 * the cluster as it is until `npm run promote` creates it; a ref at another commit than the base
 * rolls the cluster to that commit's files, which may be older than what it runs: flagged.
 * `refCommit` is the commit the ref names (undefined: none); `baseCommit` the base's.
 */
export function stageAdoptionLine(a: StageAdoption, refCommit: string | undefined, baseCommit: string): string {
  if (refCommit === undefined) {
    return `cluster ${a.cluster}: its root now tracks ${a.ref} (was ${a.was}), which does not exist yet: the cluster keeps what it runs until npm run promote creates the ref; a missing ref is shown as "waits for its stage ref"`;
  }
  if (refCommit === baseCommit) return `cluster ${a.cluster}: its root now tracks ${a.ref} (was ${a.was}), at the base commit ${baseCommit.slice(0, 12)}: nothing rolls back`;
  return `WARNING: cluster ${a.cluster}: its root now tracks ${a.ref} (was ${a.was}), which is at ${refCommit.slice(0, 12)}, not the base ${baseCommit.slice(0, 12)}: `
    + `at merge the cluster syncs that commit's files, rolling back what it runs; first move the ref: git push origin ${baseCommit}:refs/heads/${a.ref}`;
}
