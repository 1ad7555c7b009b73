/**
 * When each change of a pull request happens, cluster by cluster (docs/review.md, "When each
 * change happens"): a cluster removed (at merge, whatever its stage and window: said loudly),
 * a cluster added, a window changed (as the config says it, with the UTC minutes kept), the
 * controller and CRD changes, the pool changes that replace no node (those that do are in
 * the rollout, with their pacing) and the tenancy policy's (never held by a window). Clusters
 * with the same text are said once.
 */
import type { Review } from './changes';
import { someNames } from '../model/cluster-sets';
import { isManual, manualText, RolloutTimeline, whenText } from './timeline';
import { FLEET } from './tree';
import { windowChangeText } from './windows';

/** One cluster's line, before clusters with the same line are joined. */
interface Entry {
  readonly cluster: string;
  /** `🛑` for a removal. */
  readonly mark: string;
  readonly text: string;
}

/**
 * The lines of the "when" section, without markup: removals always (they need no plan), the
 * rest with the head's plan and time (`timeline`), window changes without their timing when
 * there is none.
 */
export function whenLines(review: Review, timeline: RolloutTimeline | undefined): string[] {
  const entries: Entry[] = [];
  for (const e of review.clusters.filter((x) => x.action === 'removed')) entries.push({ cluster: e.cluster, mark: '🛑 ', text: removalText(e.stage, e.window) });
  const added = new Set(review.clusters.filter((e) => e.action === 'added').map((e) => e.cluster));
  const order = timeline ? timeline.data.clusters.map((c) => c.id) : [...new Set(review.changes.map((c) => c.resource.cluster))];
  for (const id of order) {
    const cluster = timeline?.cluster(id);
    const window = review.windows?.find((w) => w.cluster === id);
    if (!cluster) {
      if (window) entries.push({ cluster: id, mark: '', text: windowChangeText(window) });
      continue;
    }
    const t = timeline!;
    const estimate = cluster.stage !== null && cluster.stage >= 2 ? ' (estimate)' : '';
    const opening = (timing: 'controller' | 'pools') => {
      const at = t.syncOf(cluster, timing);
      return at === undefined ? `never: window ${cluster.window!.name} keeps no minute` : `${whenText(at, cluster.window!.timeZone)}${estimate}`;
    };
    const start = t.startText(cluster.stage);
    // A cluster synced by hand gets every change when someone syncs it, whatever its stage and window.
    const when = (automatic: string) => (isManual(cluster) ? manualText(cluster, start) : `${start}, ${automatic}`);
    if (added.has(id) && isManual(cluster)) {
      entries.push({ cluster: id, mark: '', text: `added: ${manualText(cluster, start)}` });
      continue;
    }
    if (added.has(id)) {
      const pools = cluster.window ? `; its pools only in window ${cluster.window.name}, from ${opening('pools')}` : '';
      const controller = !cluster.window ? '' : t.heldByWindow(cluster, 'controller')
        ? ', and so are the CRDs and the controller (karpenter.syncInWindow): nothing is installed before then'
        : `; the CRDs and the controller at once (karpenter.syncInWindow is off)`;
      entries.push({ cluster: id, mark: '', text: `added: installed ${start}; the CRDs, then the controller, then the pools (sync waves)${pools}${controller}` });
      continue;
    }
    if (window) {
      // The root applies the AppProject (its sync windows) first, so the pools sync under the new window.
      const budgets = window.after === null ? 'at once' : `from the new window's first opening, ${opening('pools')}`;
      entries.push({ cluster: id, mark: '', text: `${windowChangeText(window)}; the sync windows change when its root syncs (${start}), the NodePools' budgets and every other pool change ${budgets}` });
    }
    const mine = review.changes.filter((c) => c.resource.cluster === id);
    if (mine.some((c) => t.timingOf(c) === 'controller')) {
      const held = t.heldByWindow(cluster, 'controller') ? `then only in window ${cluster.window!.name} (karpenter.syncInWindow): from ${opening('controller')}`
        : cluster.window ? `at once — window ${cluster.window.name} does not hold them (karpenter.syncInWindow is off)` : 'at once (no window)';
      entries.push({ cluster: id, mark: '', text: `the controller and CRD changes: ${when(held)}` });
    }
    // Pool changes that replace nodes are in the rollout, with their windows and pacing; with a window change, said there.
    if (mine.some((c) => t.timingOf(c) === 'pools') && !mine.some((c) => c.risk === 'replaces-nodes') && !window) {
      const held = cluster.window ? `then only in window ${cluster.window.name}: from ${opening('pools')}` : 'at once (no window)';
      entries.push({ cluster: id, mark: '', text: `the pool changes: ${when(held)}` });
    }
    // The tenancy policy: no window holds it (docs/tenancy.md, "Delivery"); the guarded pools wait for it, not it for them.
    if (mine.some((c) => t.timingOf(c) === 'policies')) {
      const held = cluster.window ? `at once — window ${cluster.window.name} does not hold them (access is not node churn; a guarded team's pools wait for their policy)` : 'at once (no window)';
      entries.push({ cluster: id, mark: '', text: `the tenancy policy changes: ${when(held)}` });
    }
    if (mine.some((c) => c.action === 'removed' && c.risk === 'destructive' && t.timingOf(c) === 'other')) {
      entries.push({ cluster: id, mark: '🛑 ', text: `the removals that go with a removed Application: ${when(`at once${cluster.window ? `, whatever window ${cluster.window.name}` : ''}`)}: `
        + 'the root prunes the Application and its resources finalizer deletes what it deployed; no sync window holds a deletion' });
    }
  }
  return joined(entries.filter((e) => e.cluster !== FLEET));
}

/**
 * A cluster removed: its root leaves `argocd/`, so the bootstrap — which tracks
 * `gitops.targetRevision`, never a stage ref (model/applications.ts bootstrapApplication) —
 * prunes it at its next sync, and the root's resources finalizer deletes the cluster's
 * Applications and what they deployed. Nothing of the cluster's stage or window holds that:
 * a promotion moves only the stage refs, and Argo CD checks sync windows before a sync only
 * (argo-cd v3.5.1 controller/appcontroller.go l. 1947, controller/sync.go l. 123), never when
 * it deletes an Application's resources (`finalizeApplicationDeletion` l. 1282-1468, reached
 * at l. 1137-1138 whatever the windows).
 */
function removalText(stage: number | null | undefined, window: string | null | undefined): string {
  const skipped = [stage ? `stage ${stage}` : undefined, window ? `window ${window}` : undefined].filter((x) => x !== undefined);
  return `REMOVED AT MERGE${skipped.length ? `, skipping its ${skipped.join(' and its ')}` : ''}: no promotion, soak or sync window holds it — `
    + 'the bootstrap tracks gitops.targetRevision, never a stage ref, and prunes the cluster\'s root at its next sync; the root\'s resources finalizer '
    + 'then deletes every Application of the cluster and what each deployed (the 🛑 lines below)';
}

/** Entries with the same mark and text, one line each: `cluster a: …`, `3 clusters (a, b, c): …`. */
function joined(entries: readonly Entry[]): string[] {
  const byText = new Map<string, Entry[]>();
  for (const e of entries) byText.set(`${e.mark}\0${e.text}`, [...(byText.get(`${e.mark}\0${e.text}`) ?? []), e]);
  return [...byText.values()].map((list) => {
    const ids = [...new Set(list.map((e) => e.cluster))];
    const who = ids.length === 1 ? `cluster ${ids[0]}` : `${ids.length} clusters (${someNames(ids)})`;
    return `${list[0].mark}${who}: ${list[0].text}`;
  });
}
