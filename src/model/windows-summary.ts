import type { Cluster, Platform } from '../config/platform';
import { clusterRevision, controllerSyncsInWindow, isGated, poolProjectName } from './stages';
import { budgetDuration, describeRuns, windowPlan } from '../schedule/windows';

/**
 * The lines of `dist/SUMMARY.md` about a cluster's window and stage (docs/windows.md): the
 * window in local time and the UTC hours kept (and why), the stage, the ref its pools track
 * and what waits for what. Deterministic: no "next opening" (the review prints that).
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
      + `(AppProject \`${poolProjectName(cluster)}\`; a person may still sync by hand).`);
  }
  if (cluster.stage !== undefined) {
    const earlier = platform.clusters.filter((c) => c.stage === cluster.stage! - 1).map((c) => `\`${c.id}\``);
    const later = platform.clusters.filter((c) => c.stage === cluster.stage! + 1).map((c) => `\`${c.id}\``);
    lines.push('', `Stage ${cluster.stage}: its root and every Application it creates track \`${clusterRevision(platform, cluster)}\``
      + `${earlier.length ? `, promoted once ${earlier.join(', ')} (stage ${cluster.stage - 1}) run the revision and Karpenter has finished with it there` : ''}`
      + `${isGated(platform, cluster) ? `; ${later.join(', ')} (stage ${cluster.stage + 1}) wait for its drift gate` : ''}.`);
  }
  return lines;
}
