import type { Cluster, Platform } from '../config/platform';
import { hasPolicies } from './applications';
import { clusterRevision, controllerSyncsInWindow, isGated, poolProjectName } from './stages';
import { compareRelease } from '../release/versions';
import { BUDGETED_REPAIR, repairPace, repairText } from '../schedule/repair';
import { budgetDuration, describeRuns, windowPlan } from '../schedule/windows';

/**
 * The lines of a cluster's page (`dist/<cluster>/SUMMARY.md`) about its window and stage
 * (docs/windows.md): the window in local time and the UTC hours kept (and why), the stage, the
 * ref its pools track and what waits for what, by stage: the page names no other cluster (see
 * cluster-summary.ts), the fleet's page draws the stages; a cluster synced by hand says so.
 * Deterministic: no "next opening" (the
 * review prints that).
 */
export function windowSummary(platform: Platform, cluster: Cluster): string[] {
  const lines: string[] = [];
  if (cluster.window) {
    const w = cluster.window;
    const plan = windowPlan(w);
    lines.push('', `Window \`${w.name}\`: ${w.days.join(', ')} ${w.start} for ${budgetDuration(plan.localMinutes / w.days.length)} (${w.timeZone}), `
      + `${describeRuns(plan.local).join(', ')} local. Drifted nodes are replaced only in ${describeRuns(plan.kept).join(', ')} UTC `
      + `(${plan.keptMinutes} of ${plan.localMinutes} minutes a week): ${plan.note}. `
      + `The pool Applications${controllerSyncsInWindow(cluster) ? ', and the CRD and controller ones (karpenter.syncInWindow),' : ''} sync only in those UTC minutes too `
      + `(AppProject \`${poolProjectName(cluster)}\`; a person may still sync by hand)${hasPolicies(cluster) ? '; the tenancy policy never waits for the window (access is not node churn)' : ''}.`);
  }
  lines.push(...repairSummary(cluster));
  if (cluster.stage !== undefined) {
    const stage = cluster.stage;
    const earlier = platform.clusters.some((c) => c.stage === stage - 1);
    lines.push('', `Stage ${stage}: its root and every Application it creates track \`${clusterRevision(platform, cluster)}\``
      + `${earlier ? `, promoted once every cluster of stage ${stage - 1} runs the revision and Karpenter has finished with it there` : ''}`
      + `${isGated(platform, cluster) && cluster.manualSync !== true ? `; the clusters of stage ${stage + 1} wait for its drift gate` : ''}.`);
  }
  if (cluster.manualSync === true) {
    // Argo CD never syncs an Application without automated sync by itself (argo-cd v3.5.1 controller/appcontroller.go l. 2332-2334).
    lines.push('', 'Synced by hand (`manualSync: true`): its root and every Application it creates have no automated sync, so Argo CD never syncs them by itself: '
      + 'a change reaches the cluster only when someone syncs it, and `npm run promote` does not wait for it (docs/adopting.md, "What adopted means").');
  }
  return lines;
}

/**
 * With node repair on (`featureGates.nodeRepair`), how fast a broken node of each pool is
 * replaced, inside and outside the cluster's window (schedule/repair.ts): pools paced alike are
 * one line.
 */
function repairSummary(cluster: Cluster): string[] {
  const { karpenter } = cluster;
  if (karpenter.controller.featureGates.nodeRepair !== true) return [];
  const windowBudgets = cluster.window ? windowPlan(cluster.window).budgets : [];
  const byText = new Map<string, string[]>();
  for (const pool of cluster.pools) {
    const pace = repairPace([...pool.settings.disruption.budgets, ...windowBudgets], {
      version: karpenter.version, budgetedRelease: compareRelease(karpenter.version, BUDGETED_REPAIR) >= 0,
      featureGates: karpenter.controller.featureGates, settings: karpenter.controller.settings,
    });
    const text = repairText(pace, cluster.window !== undefined);
    byText.set(text, [...(byText.get(text) ?? []), pool.name]);
  }
  return ['', `Node repair (Karpenter ${karpenter.version}): ${[...byText].map(([text, pools]) => `${pools.map((p) => `\`${p}\``).join(', ')}: ${text}`).join('; ')}.`];
}
