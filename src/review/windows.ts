import type { GeneratedTree } from './tree';

/** A cluster whose root starts tracking a stage ref in this change (`stage` set, or changed). */
export interface StageAdoption {
  readonly cluster: string;
  /** The ref the root tracks at the head. */
  readonly ref: string;
  /** The ref it tracked at the base. */
  readonly was: string;
}

/** The roots (`argocd/<cluster>.yaml`) whose git revision changes between the two trees: a cluster moving onto (or between) stage refs. */
export function stageAdoptions(base: GeneratedTree, head: GeneratedTree): StageAdoption[] {
  const revision = (tree: GeneratedTree, file: string) => tree.resourcesIn(file).filter((r) => r.kind === 'Application')
    .map((r) => ((r.body.spec as { source?: { targetRevision?: string } } | undefined)?.source?.targetRevision))[0];
  const out: StageAdoption[] = [];
  for (const file of head.files.keys()) {
    const m = /^argocd\/([^/.]+)\.yaml$/.exec(file);
    if (!m || !base.files.has(file) || base.files.get(file) === head.files.get(file)) continue;
    const [was, ref] = [revision(base, file), revision(head, file)];
    if (was !== undefined && ref !== undefined && was !== ref) out.push({ cluster: m[1], ref, was });
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
