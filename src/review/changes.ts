/**
 * The review of a pull request: every difference between two generated trees, classified by
 * what it does on the cluster, grouped by cluster. Each kind of difference has its module:
 * additions (`addition.ts`), removals (`removal.ts`), edits (`modification.ts`), NodeOverlays
 * (`overlay-change.ts`), Argo CD ownership (`owner-changes.ts`), renames (`renames.ts`), whole
 * clusters (`cluster-changes.ts`), Kubernetes upgrades (`kubernetes-upgrade.ts`) and EC2NodeClass
 * hash versions (`hash-version.ts`).
 */
import { addition } from './addition';
import type { Change, Review } from './change';
import { ClusterEdge, clusterEdges, withRenames } from './cluster-changes';
import { ReviewContext } from './context';
import { costChanges } from './cost';
import { withHashVersionBumps } from './hash-version';
import { withKubernetesUpgrades } from './kubernetes-upgrade';
import { modification } from './modification';
import { overlayChange } from './overlay-change';
import { ownerChanges } from './owner-changes';
import { removal } from './removal';
import { likelyRenames } from './renames';
import { RISKS } from './risk';
import { summaryDataOf } from './summary-data';
import { tenancySets } from './tenancy';
import { describe, FLEET, GeneratedTree, Resource } from './tree';
import { computeNotes, sharedCrdNotes, windowChanges } from './windows';

export type { Change, ClusterChange, Review } from './change';

/**
 * Classifies every difference between two generated trees, resource by resource and
 * field by field. Only files whose text differs are read: a resource in a file that
 * is the same on both sides is the same resource.
 */
export function review(base: GeneratedTree, head: GeneratedTree): Review {
  const { edges, ...rest } = reviewWithEdges(base, head);
  return { ...rest, clusters: withRenames(edges) };
}

/** A {@link Review} whose whole clusters added and removed are not yet paired into likely renames: what a shard of a review holds (review/parts.ts). */
export interface UnpairedReview extends Omit<Review, 'clusters'> {
  readonly edges: readonly ClusterEdge[];
}

/** {@link review}, the clusters added and removed left unpaired. */
export function reviewWithEdges(base: GeneratedTree, head: GeneratedTree): UnpairedReview {
  const changedFiles = [...new Set([...base.files.keys(), ...head.files.keys()])].filter((f) => base.files.get(f) !== head.files.get(f));
  const context = new ReviewContext(base, head, resources(base, changedFiles), resources(head, changedFiles));
  const costs = costChanges(base, head);
  // The working tree always has summary data; a base generated before it has none.
  const [was, now] = [summaryDataOf(base), summaryDataOf(head)];
  const notes = 'missing' in was && 'data' in now ? [`cost ceilings and Kubernetes versions are not compared: ${was.missing}`] : [];
  if ('data' in was && 'data' in now) notes.push(...computeNotes(was.data, now.data), ...sharedCrdNotes(was.data, now.data));
  const windows = 'data' in was && 'data' in now ? windowChanges(was.data, now.data) : [];
  const classified = resourceChanges(context).map((c) => (c.resource.kind === 'NodeOverlay' ? overlayChange(c, context) : c));
  return {
    changes: sortByCluster(withHashVersionBumps(withKubernetesUpgrades(classified, context), context)),
    edges: clusterEdges(context),
    ...(costs.length ? { costs } : {}),
    ...(notes.length ? { notes } : {}),
    ...(windows.length ? { windows } : {}),
  };
}

/** Every resource removed, added or changed, and every one whose Application changes. */
function resourceChanges(context: ReviewContext): Change[] {
  const { before, after } = context;
  const removed = [...before.values()].filter((r) => !after.has(r.key));
  const added = [...after.values()].filter((r) => !before.has(r.key));
  const renames = likelyRenames(removed, added);
  const changes: Change[] = [];
  for (const r of removed) changes.push(removal(r, context, renames.get(r)));
  for (const r of added) changes.push(addition(r, context, renames.get(r)));
  for (const a of after.values()) {
    const b = before.get(a.key);
    if (b) changes.push(...modification(b, a, context));
  }
  changes.push(...ownerChanges(context));
  return changes;
}

/** The resources of the given files of a tree, by key; a cluster's tenancy policies read as one set (review/tenancy.ts). */
function resources(tree: GeneratedTree, files: readonly string[]): Map<string, Resource> {
  const out = new Map<string, Resource>();
  for (const file of files) for (const r of tenancySets(tree.resourcesIn(file))) out.set(r.key, r);
  return out;
}

/** Changes grouped by cluster: clusters with the loudest change first (the fleet after clusters of equal loudness), loudest class first within each. */
export function sortByCluster(changes: Change[]): Change[] {
  const loudest = new Map<string, number>();
  for (const c of changes) loudest.set(c.resource.cluster, Math.min(loudest.get(c.resource.cluster) ?? RISKS.length, RISKS.indexOf(c.risk)));
  const rank = (cluster: string) => [loudest.get(cluster) ?? RISKS.length, cluster === FLEET ? 1 : 0, cluster] as const;
  const order = { removed: 0, changed: 1, added: 2 };
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return changes.sort((a, b) => {
    const [x, y] = [rank(a.resource.cluster), rank(b.resource.cluster)];
    return x[0] - y[0] || x[1] - y[1] || cmp(x[2], y[2])
      || RISKS.indexOf(a.risk) - RISKS.indexOf(b.risk) || order[a.action] - order[b.action] || cmp(describe(a.resource), describe(b.resource));
  });
}
