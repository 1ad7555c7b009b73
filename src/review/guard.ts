import { parseAllDocuments } from 'yaml';
import { clusterOfPath, legacyPoolsAppCluster } from '../output/layout';

const RESOURCES_FINALIZER = 'resources-finalizer.argocd.argoproj.io';

/**
 * Stops a synth that would delete every pool of a cluster: the `<cluster>-karpenter-nodepools`
 * Application of earlier releases carries the resources finalizer, so removing its file (the
 * root prunes it) makes Argo CD delete every NodePool it deployed. It must first stay one
 * release orphaned (`legacyNodepoolsApp: orphan`) while the teams' Applications take the pools
 * over. Returns one message per such cluster; none when the cluster itself is gone.
 */
export function legacyPoolsAppProblems(before: ReadonlyMap<string, string>, after: ReadonlySet<string> | ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [path, text] of before) {
    const cluster = legacyPoolsAppCluster(path);
    if (cluster === undefined || after.has(path) || !hasFinalizer(text)) continue;
    if (![...after.keys()].some((p) => clusterOfPath(p) === cluster)) continue;
    problems.push(`${path} is the pools Application of an earlier release and carries the resources finalizer: removing it would make Argo CD `
      + `delete every pool of cluster ${cluster} (every node drains). Keep it one release, orphaned: add legacyNodepoolsApp: orphan to clusters.${cluster} `
      + '(README, "Moving to per-team pool Applications")');
  }
  return problems;
}

function hasFinalizer(text: string): boolean {
  return parseAllDocuments(text).some((d) => {
    const body = d.toJS() as { kind?: string; metadata?: { finalizers?: unknown } } | null;
    return body?.kind === 'Application' && Array.isArray(body.metadata?.finalizers) && body.metadata.finalizers.includes(RESOURCES_FINALIZER);
  });
}
