/**
 * Fleets for the rollout page (`npm run promote -- status`): a platform of three stages and the
 * Applications Argo CD would report for each of its clusters, built from the Application names
 * the generator gives (model/stages.ts clusterApplicationModels) and statuses as Argo CD 3.5.1
 * writes them (test/support/argocd-status.ts).
 */
import type { Cluster, Platform } from '../../src/config/platform';
import { clusterApplicationModels } from '../../src/model/stages';
import { parseApplications, LiveApplication } from '../../src/promote/live-applications';
import type { MaintenanceWindow } from '../../src/schedule/windows';
import { aCluster, aPlatform, aPool } from '../pool-builders';
import { anApplicationStatus, StatusOptions } from '../support/argocd-status';

/** The commit stage 1 runs (the main branch's). */
export const NEW = '1111111111111111111111111111111111111111';
/** The commit stage 2's ref names: stage 1 has moved on. */
export const OLD = '2222222222222222222222222222222222222222';
/** When argocd-status.ts says every operation finished and every health last changed. */
export const FINISHED = Date.parse('2026-11-20T10:00:42Z');

/** A window in Berlin, Tuesdays 02:00 for 4h. */
export const NIGHTLY: MaintenanceWindow = { name: 'nightly', timeZone: 'Europe/Berlin', days: ['tue'], start: '02:00', duration: '4h' };

/** A cluster of two teams' pools, `web` and `batch`. */
export function aStagedCluster(id: string, stage: number, overrides: Partial<Cluster> = {}): Cluster {
  return aCluster([aPool(), aPool({}, { name: 'batch', team: 'batch' })], { id, stage, ...overrides });
}

/** A platform of `clusters` whose stage 3 soaks 24h and is approved in the GitHub environment production. */
export function aStagedPlatform(clusters: Cluster[]): Platform {
  const platform = aPlatform(clusters);
  return { ...platform, gitops: { ...platform.gitops, stages: [{ stage: 3, soakMinutes: 24 * 60, environment: 'production' }] } };
}

/**
 * The Applications of a cluster as Argo CD reports them, each Synced at `revision` and Healthy
 * but for `overrides`, by the Application's name with the cluster id cut off (`pools-web`,
 * `drift-gate`, `karpenter-root`).
 */
export function applicationsOf(platform: Platform, cluster: Cluster, revision: string, overrides: Record<string, StatusOptions> = {}): unknown[] {
  const { root, children } = clusterApplicationModels(platform, cluster);
  return [root, ...children].map((a) => ({
    // The spec the generator writes (its destination and sources say whose it is: promote matches by them).
    apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: a.name, namespace: 'argocd' },
    spec: { project: a.project, destination: a.destination, sources: a.sources },
    status: anApplicationStatus({ spec: {} }, { revision, ...overrides[a.name.slice(cluster.id.length + 1)] }),
  }));
}

/** A `kubectl get -o json` List of `items`. */
export const list = (...items: unknown[]) => ({ apiVersion: 'v1', kind: 'List', items });

/** The Applications of a List, read as `promote status` reads them. */
export function parsed(json: unknown): readonly LiveApplication[] {
  const { read, problems } = parseApplications(JSON.stringify(json), 'apps.json');
  if (!read) throw new Error(problems.join('\n'));
  return read.items;
}

/**
 * A fleet of `n` clusters at three stages (1%, 9%, 90%) with every state on the page: stage 1
 * at {@link NEW}, a tenth of its clusters held by a sync error; stage 2 at {@link OLD}, replacing
 * nodes in a fifth, the rest synced; stage 3 not promoted. Every third cluster has the window.
 */
export function bigFleet(n: number): { platform: Platform; applications: readonly LiveApplication[]; revisions: ReadonlyMap<number, string> } {
  const clusters = Array.from({ length: n }, (_, i) => {
    const stage = i < n / 100 ? 1 : i < n / 10 ? 2 : 3;
    return aStagedCluster(`c${String(i).padStart(4, '0')}`, stage, i % 3 === 0 ? { window: NIGHTLY } : {});
  });
  const platform = aStagedPlatform(clusters);
  const items = clusters.flatMap((c, i) => {
    if (c.stage === 1) return applicationsOf(platform, c, NEW, i % 10 === 0 ? { 'pools-web': { sync: 'OutOfSync', operation: { phase: 'Failed', message: `one or more objects failed to apply, reason: NodePool ${c.id}-web is invalid` } } } : {});
    if (c.stage === 2) return applicationsOf(platform, c, OLD, i % 5 === 0 ? { 'drift-gate': { health: 'Progressing' } } : {});
    return applicationsOf(platform, c, OLD, { 'karpenter-root': { sync: 'Unknown', conditions: [{ type: 'ComparisonError', message: "unable to resolve 'karpenter-gitops/stage-3' to a commit SHA" }] } });
  });
  return { platform, applications: parsed(list(...items)), revisions: new Map([[1, NEW], [2, OLD]]) };
}
