import type { Cluster, Platform } from '../config/platform';
import { APP_NAMES } from '../config/reserved';
import { clusterApplicationModels, clusterRevision, isStaged, stageRef } from '../model/stages';

/** What `npm run promote` decided. */
export interface Promotion {
  /** Whether every Application of the stage before is Synced at the revision and Healthy. */
  readonly ready: boolean;
  /** The command that promotes, when ready: `git push origin SHA:refs/heads/<prefix>STAGE` (it creates the ref the first time). */
  readonly command?: string;
  /** One line per Application that holds the promotion back, naming it and why. */
  readonly blockers: readonly string[];
  /** The Applications checked. */
  readonly checked: readonly string[];
  /** No cluster is at this stage: a loop over the stages (the promote workflow) stops here. */
  readonly noSuchStage: boolean;
}

/** The fields of an Argo CD Application that the decision reads (`kubectl get applications -o json`). */
interface LiveApplication {
  readonly metadata?: { readonly name?: string };
  readonly status?: {
    readonly sync?: { readonly status?: string; readonly revision?: string; readonly revisions?: readonly string[] };
    readonly health?: { readonly status?: string };
    readonly conditions?: readonly { readonly type?: string; readonly message?: string }[];
  };
}

/** An Application a promotion waits for: its name, and whether its status carries the git revision. */
interface Checked {
  readonly name: string;
  /** It has a git source: `status.sync.revision` (or one of `revisions`) must be the revision. */
  readonly git: boolean;
}

/**
 * The Applications of a cluster that must have a revision before the next stage gets it:
 * its root and every automated Application the root creates (CRDs, controller, policies,
 * pools, overlays and the drift gate, whose health is Karpenter having finished); not the
 * smoke tests (synced by hand) or the orphaned pools Application of earlier releases.
 */
function applicationsOf(platform: Platform, cluster: Cluster): Checked[] {
  const { root, children } = clusterApplicationModels(platform, cluster);
  return [root, ...children].filter((a) => a.automated).map((a) => ({ name: a.name, git: a.sources.some((s) => !('chart' in s)) }));
}

/** Messages Argo CD's repo server gives when a git revision cannot be resolved (a stage ref not created yet). */
const UNRESOLVED = /unable to resolve|couldn't find remote ref|reference not found|not a valid revision/i;

/**
 * Whether `revision` may be promoted to stage `stage`: every Application of every
 * stage-(STAGE-1) cluster (see applicationsOf) reports `status.sync.status` Synced, at
 * `revision` (`status.sync.revision`, or among `revisions` for the controller's chart and
 * values), and `status.health.status` Healthy. The drift gate Application is Healthy only
 * once its Job has seen Karpenter finish with this revision (docs/windows.md).
 * `applications` is `kubectl -n argocd get applications -o json` (a List, or one Application).
 *
 * And main must still want it: `stillWanted(cluster)` says whether each stage-STAGE cluster's
 * generated files (`dist/<cluster>/`, `argocd/<cluster>.yaml`) are the same at `revision` and
 * on the main branch. A commit main has since reverted, or changed again for these clusters, is
 * not promoted: the stage waits for the stage before to finish main's version (so a revert is
 * never overtaken by the commit it reverts). Undefined: it could not be told, which holds the
 * promotion too.
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/pkg/apis/application/v1alpha1/types.go (SyncStatus: revision, revisions)
 */
export function promotion(platform: Platform, stage: number, revision: string, applications: unknown, stillWanted?: (cluster: Cluster) => boolean | undefined): Promotion {
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
    for (const { name, git } of applicationsOf(platform, cluster)) {
      checked.push(name);
      const app = byName.get(name);
      const where = `${name} (cluster ${cluster.id}, stage ${stage - 1})`;
      if (!app) {
        blockers.push(`${where}: not in the Applications given${isStaged(cluster) ? ` (its root creates it from ${clusterRevision(platform, cluster)})` : ''}`);
        continue;
      }
      const sync = app.status?.sync;
      const revisions = sync?.revisions ?? (sync?.revision !== undefined ? [sync.revision] : []);
      const health = app.status?.health?.status ?? 'Unknown';
      const unresolved = (app.status?.conditions ?? []).find((c) => c.type === 'ComparisonError' && UNRESOLVED.test(c.message ?? ''));
      const why = [
        unresolved && isStaged(cluster) ? `its stage ref ${stageRef(platform, cluster.stage!)} does not exist yet: promote stage ${cluster.stage} first` : undefined,
        sync?.status !== 'Synced' ? `sync is ${sync?.status ?? 'Unknown'}` : undefined,
        git && !revisions.includes(revision) ? `at revision ${revisions.join(', ') || 'none'}, not ${revision}` : undefined,
        health !== 'Healthy' ? `health is ${health}${health === 'Progressing' && name === APP_NAMES.driftGate(cluster.id) ? ' (the drift gate waits for Karpenter to finish with the revision)' : ''}` : undefined,
      ].filter((w): w is string => w !== undefined);
      if (why.length) blockers.push(`${where}: ${why.join(', ')}`);
    }
  }
  if (blockers.length === 0 && stillWanted) {
    for (const cluster of platform.clusters.filter((c) => c.stage === stage)) {
      const wanted = stillWanted(cluster);
      if (wanted === false) blockers.push(`cluster ${cluster.id} (stage ${stage}): the main branch has changed its files since ${revision} (a revert, or a newer change): stage ${stage} waits for stage ${stage - 1} to finish the main branch's version`);
      if (wanted === undefined) blockers.push(`cluster ${cluster.id} (stage ${stage}): cannot tell whether the main branch still has ${revision}'s files for it`);
    }
  }
  const ready = blockers.length === 0;
  return { ready, blockers, checked, noSuchStage: stage >= 2 && !platform.clusters.some((c) => c.stage === stage), ...(ready ? { command: `git push origin ${revision}:refs/heads/${stageRef(platform, stage)}` } : {}) };
}
