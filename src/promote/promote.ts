import type { Platform } from '../config/platform';
import { STAGE_REF_PREFIX, stagedApplicationNames } from '../model/stages';

/** What `npm run promote` decided. */
export interface Promotion {
  /** Whether every Application of the stage before is Synced at the revision and Healthy. */
  readonly ready: boolean;
  /** The command that promotes, when ready: `git push origin SHA:refs/heads/<prefix>STAGE`. */
  readonly command?: string;
  /** One line per Application that holds the promotion back, naming it and why. */
  readonly blockers: readonly string[];
  /** The Applications checked. */
  readonly checked: readonly string[];
}

/** The fields of an Argo CD Application that the decision reads (`kubectl get applications -o json`). */
interface LiveApplication {
  readonly metadata?: { readonly name?: string };
  readonly status?: {
    readonly sync?: { readonly status?: string; readonly revision?: string; readonly revisions?: readonly string[] };
    readonly health?: { readonly status?: string };
  };
}

/**
 * Whether `revision` may be promoted to stage `stage`: every pool (and tenancy policy)
 * Application of every stage-(STAGE-1) cluster reports `status.sync.status` Synced at
 * `status.sync.revision` = revision, and `status.health.status` Healthy. Healthy includes
 * the drift gate Job, which completes only when none of the team's NodeClaims is Drifted.
 * `applications` is `kubectl -n argocd get applications -o json` (a List, or one Application).
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-waves/
 */
export function promotion(platform: Platform, stage: number, revision: string, applications: unknown): Promotion {
  const items: LiveApplication[] = Array.isArray((applications as { items?: unknown })?.items)
    ? (applications as { items: LiveApplication[] }).items : [applications as LiveApplication];
  const byName = new Map(items.filter((a) => a?.metadata?.name).map((a) => [a.metadata!.name!, a]));
  const before = platform.clusters.filter((c) => c.stage === stage - 1);
  const blockers: string[] = [];
  const checked: string[] = [];
  if (stage < 2) blockers.push(`stage ${stage}: only stages 2 and later are promoted (stage 1 tracks gitops.targetRevision)`);
  else if (!platform.clusters.some((c) => c.stage === stage)) blockers.push(`no cluster is at stage ${stage}`);
  else if (before.length === 0) blockers.push(`no cluster is at stage ${stage - 1}, which stage ${stage} waits for`);
  for (const cluster of blockers.length === 0 ? before : []) {
    for (const name of stagedApplicationNames(cluster)) {
      checked.push(name);
      const app = byName.get(name);
      if (!app) {
        blockers.push(`${name} (cluster ${cluster.id}, stage ${stage - 1}): not in the Applications given`);
        continue;
      }
      const sync = app.status?.sync;
      const at = sync?.revision ?? sync?.revisions?.[0];
      const health = app.status?.health?.status ?? 'Unknown';
      const why = [
        sync?.status !== 'Synced' ? `sync is ${sync?.status ?? 'Unknown'}` : undefined,
        at !== revision ? `at revision ${at ?? 'none'}, not ${revision}` : undefined,
        health !== 'Healthy' ? `health is ${health}${health === 'Progressing' ? ' (its drift gate may still be waiting for drifted nodes)' : ''}` : undefined,
      ].filter((w): w is string => w !== undefined);
      if (why.length) blockers.push(`${name} (cluster ${cluster.id}, stage ${stage - 1}): ${why.join(', ')}`);
    }
  }
  const ready = blockers.length === 0;
  const prefix = platform.gitops.stageRefPrefix ?? STAGE_REF_PREFIX;
  return { ready, blockers, checked, ...(ready ? { command: `git push origin ${revision}:refs/heads/${prefix}${stage}` } : {}) };
}
