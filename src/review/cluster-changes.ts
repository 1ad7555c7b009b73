/** Whole clusters a pull request adds or removes: where they sit (stage, window), and a likely rename. */
import { obj } from './body';
import type { ClusterChange } from './change';
import type { ReviewContext } from './context';
import { summaryDataOf } from './summary-data';
import type { Resource } from './tree';

/** A whole cluster added or removed, with the EKS cluster it runs on: what pairs a likely rename, possibly across shards. */
export interface ClusterEdge extends ClusterChange {
  /** Its chart values' `settings.clusterName` on the side it is on. @default - none read */
  readonly eks?: string;
}

/**
 * The clusters of the base the head has not (removed) and the head's new ones (added), each
 * placed in its stage and window by the summary data of the side it is on: when it happens
 * depends on it. Each carries the EKS cluster it runs on, which {@link withRenames} pairs.
 */
export function clusterEdges({ base, head, before, after }: ReviewContext): ClusterEdge[] {
  const [was, now] = [summaryDataOf(base), summaryDataOf(head)];
  const [inBase, inHead] = [base.clusters(), head.clusters()];
  const eks = (rs: ReadonlyMap<string, Resource>, cluster: string) => [...rs.values()]
    .filter((r) => r.kind === 'HelmValues' && r.cluster === cluster)
    .map((r) => obj(r.body.settings).clusterName).find((n) => typeof n === 'string') as string | undefined;
  const placed = (e: ClusterEdge): ClusterEdge => {
    const side = e.action === 'removed' ? was : now;
    const c = 'data' in side ? side.data.clusters.find((x) => x.id === e.cluster) : undefined;
    return c ? { ...e, stage: c.stage, window: c.window?.name ?? null } : e;
  };
  const edge = (cluster: string, action: ClusterEdge['action'], name: string | undefined): ClusterEdge => placed({ cluster, action, ...(name === undefined ? {} : { eks: name }) });
  return [
    ...[...inBase].filter((c) => !inHead.has(c)).map((c) => edge(c, 'removed', eks(before, c))),
    ...[...inHead].filter((c) => !inBase.has(c)).map((c) => edge(c, 'added', eks(after, c))),
  ];
}

/**
 * The clusters added and removed, removed first, each sorted: a removed and an added cluster
 * that run on the same EKS cluster (their chart values' `settings.clusterName`) are likely one
 * renamed, and said so.
 */
export function withRenames(edges: readonly ClusterEdge[]): ClusterChange[] {
  const sorted = (action: ClusterEdge['action']) => edges.filter((e) => e.action === action).sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
  const [removed, added] = [sorted('removed'), sorted('added')];
  const strip = ({ eks: _eks, ...change }: ClusterEdge): ClusterChange => change;
  return [
    ...removed.map((e) => {
      const twin = e.eks === undefined ? undefined : added.find((a) => a.eks === e.eks);
      const note = twin ? `renamed to ${twin.cluster}? both run on EKS cluster ${e.eks}: a rename deletes every Application and pool of ${e.cluster} (its nodes drain) and creates them again under ${twin.cluster}` : undefined;
      return { ...strip(e), ...(note ? { note } : {}) };
    }),
    ...added.map(strip),
  ];
}
