/** Whole clusters a pull request adds or removes: where they sit (stage, window), and a likely rename. */
import { obj } from './body';
import type { ClusterChange } from './change';
import type { ReviewContext } from './context';
import { summaryDataOf } from './summary-data';
import type { Resource } from './tree';

/**
 * The clusters of the base the head has not (removed, sorted) and the head's new ones (added,
 * sorted), each placed in its stage and window by the summary data of the side it is on: when
 * it happens depends on it. A removed and an added cluster that run on the same EKS cluster
 * (their chart values' `settings.clusterName`) are likely one renamed.
 */
export function clusterChanges({ base, head, before, after }: ReviewContext): ClusterChange[] {
  const [was, now] = [summaryDataOf(base), summaryDataOf(head)];
  const [inBase, inHead] = [base.clusters(), head.clusters()];
  const eks = (rs: ReadonlyMap<string, Resource>, cluster: string) => [...rs.values()]
    .filter((r) => r.kind === 'HelmValues' && r.cluster === cluster)
    .map((r) => obj(r.body.settings).clusterName).find((n) => typeof n === 'string') as string | undefined;
  const removed = [...inBase].filter((c) => !inHead.has(c)).sort();
  const added = [...inHead].filter((c) => !inBase.has(c)).sort();
  const placed = (e: ClusterChange): ClusterChange => {
    const side = e.action === 'removed' ? was : now;
    const c = 'data' in side ? side.data.clusters.find((x) => x.id === e.cluster) : undefined;
    return c ? { ...e, stage: c.stage, window: c.window?.name ?? null } : e;
  };
  return [
    ...removed.map((cluster) => {
      const name = eks(before, cluster);
      const twin = name === undefined ? undefined : added.find((a) => eks(after, a) === name);
      const note = twin ? `renamed to ${twin}? both run on EKS cluster ${name}: a rename deletes every Application and pool of ${cluster} (its nodes drain) and creates them again under ${twin}` : undefined;
      return { cluster, action: 'removed' as const, ...(note ? { note } : {}) };
    }),
    ...added.map((cluster) => ({ cluster, action: 'added' as const })),
  ].map(placed);
}
