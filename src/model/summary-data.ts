/**
 * `dist/summary.json` and each cluster's `dist/<cluster>/summary.json`: the plan as versioned data
 * (docs/review.md, "The summary as data"). The review reads them at both refs, never
 * `dist/SUMMARY.md`'s prose; other tools may too. They lie outside every Application's path
 * (`dist/<cluster>/apps`, `…/nodepools/<team>`, …), so they are never synced to a cluster. The
 * fleet's file holds every cluster's place (release, stage, window) and the teams' ceilings; a
 * cluster's pools are in its own file, so a review of a few clusters reads their pools and not
 * the fleet's (docs/performance.md#a-review-in-proportion-to-the-change).
 */
import type { Platform } from '../config/platform';
import type { CeilingBound, TeamCeiling } from './cost';
import { CEILING_BASIS } from './cost';
import { clusterRevision, controllerSyncsInWindow, isGated } from './stages';
import { crdsHeld } from './applications';
import { APP_NAMES } from '../config/reserved';
import type { Budget } from '../schedule/windows';
import { describeRuns, windowPlan } from '../schedule/windows';

/**
 * The version of the data's shape. A reader refuses a version it does not know; a field is
 * only ever added within a version. Version 2 moved each cluster's `pools` out of the fleet's
 * file into the cluster's own (`dist/<cluster>/summary.json`).
 */
export const SUMMARY_DATA_VERSION = 2;

/** One pool of a cluster, as `dist/summary.json` holds it. */
export interface SummaryDataPool {
  readonly name: string;
  readonly team: string;
  /** A static pool's node count; null for a dynamic pool. */
  readonly replicas: number | null;
  /** The instance types its NodePool admits after the cluster's overlays, and their on-demand list price range (USD per hour; null: none priced). */
  readonly instanceTypes: { readonly count: number; readonly cheapest: { readonly type: string; readonly perHour: number } | null; readonly dearest: { readonly type: string; readonly perHour: number } | null };
  /** What it can cost per hour at its limits (USD; null: unbounded), and what bounds it. */
  readonly ceiling: { readonly perHour: number | null; readonly boundBy: string | null; readonly bound: CeilingBound | null; readonly bufferPerHour: number | null };
  /** Its NodePool's limits (a static pool's: only `nodes`, if set). */
  readonly limits: Readonly<Record<string, string>>;
  /** Its NodePool's disruption budgets, the window's included (UTC cron). */
  readonly budgets: readonly Budget[];
  /** How many of `budgets`, at their end, the cluster's window added (they block Drifted outside it); 0 without a window. */
  readonly windowBudgets: number;
  /** The AMI alias its nodes run, or null for selector terms. */
  readonly amiAlias: string | null;
  /** The namespaces whose pods may use it (the tenancy policy); null: any. */
  readonly namespaces: readonly string[] | null;
}

/** One cluster, as `dist/summary.json` holds it. */
export interface SummaryDataCluster {
  readonly id: string;
  readonly eksCluster: string;
  readonly karpenterVersion: string;
  /** Null when neither the config nor Terraform says it. */
  readonly kubernetesVersion: string | null;
  /** Null: no stage. */
  readonly stage: number | null;
  /**
   * The groups it is in (`groups` whose `match` it meets), in file order: the review says a set of
   * clusters by its group. Added within version 1; written only when it is in a group.
   * @default [] - none
   */
  readonly groups?: readonly string[];
  /** The git revision everything of the cluster tracks (a stage ref from stage 2 on). */
  readonly revision: string;
  /**
   * Who runs Karpenter when not the cluster's own controller (docs/auto-mode.md): EKS Auto Mode, or
   * both while it moves. Added within version 1; written only then.
   * @default "karpenter"
   */
  readonly compute?: 'autoMode' | 'both';
  /**
   * The CRDs' Application when it holds the karpenter.sh CRDs without syncing them (EKS Auto Mode
   * runs beside the controller: `compute: both`, or `karpenter.besideAutoMode` when `compute` is
   * not written; model/applications.ts `crdsHeld`). Added within version 2; written only then.
   * @default - none: the Application syncs the CRDs, or there is none (`compute: autoMode`)
   */
  readonly heldCrdApplication?: string;
  /** A later stage waits for its drift gate. */
  readonly gated: boolean;
  /** Its maintenance window; null: none (drifted nodes are replaced at any time). */
  readonly window: null | {
    readonly name: string;
    readonly timeZone: string;
    readonly days: readonly string[];
    readonly start: string;
    readonly duration: string;
    /** The UTC minutes in which Karpenter may replace drifted nodes and the pools sync (`mon 21:00-tue 02:00`). */
    readonly keptUtc: readonly string[];
  };
  /**
   * Its controller and CRD Applications sync only in its window (`karpenter.syncInWindow`, with a
   * window). Added within version 1; written only when true.
   * @default false - they sync at once, whatever the window
   */
  readonly syncInWindow?: boolean;
  /**
   * Its Applications sync only by hand (`manualSync: true`, as adopt writes it): Argo CD never
   * syncs them by itself, and `npm run promote` does not wait for it. Added within version 1;
   * written only when true.
   * @default false - its Applications sync automatically
   */
  readonly manualSync?: boolean;
  /**
   * Its pools: in version 1, in the fleet's file; from version 2, in the cluster's own file
   * ({@link ClusterSummaryData}), which a reader adds here for the clusters it reads.
   * @default - not read
   */
  readonly pools?: readonly SummaryDataPool[];
}

/**
 * `dist/<cluster>/summary.json` (version 2 on): a cluster's pools. Like its page
 * (cluster-summary.ts), it says nothing of another cluster: `npm run promote` compares a
 * cluster's folder between commits (layout.ts `owned`).
 */
export interface ClusterSummaryData {
  readonly summaryVersion: number;
  readonly cluster: string;
  readonly pools: readonly SummaryDataPool[];
}

/** How a stage is promoted, as `dist/summary.json` holds it. */
export interface SummaryDataStage {
  readonly stage: number;
  readonly soakMinutes: number;
  readonly environment: string | null;
}

/** `dist/summary.json`. */
export interface SummaryData {
  readonly summaryVersion: number;
  /** What every cost figure is: `ceiling at us-east-1 on-demand list price after NodeOverlays`. */
  readonly costBasis: string;
  readonly clusters: readonly SummaryDataCluster[];
  /**
   * How each stage N ≥ 2 is promoted (`gitops.stages`): the soak after stage N-1 finished, in
   * minutes, and the GitHub environment whose reviewers approve it (null: none). Added within
   * version 1; written only when `gitops.stages` is set.
   * @default [] - no stage has a soak or an approval
   */
  readonly stages?: readonly SummaryDataStage[];
  /** Each team's ceiling per cluster (USD per hour; null: unbounded), in total, and its budget. */
  readonly teams: readonly SummaryDataTeam[];
}

/** What the summary data reads of a cluster's plan (a `ClusterPlan` is one). */
interface DataClusterPlan {
  readonly pools: readonly {
    readonly name: string;
    readonly nodePool: { readonly budgets: readonly Budget[]; readonly limits?: Readonly<Record<string, string | number>> };
    readonly facts: {
      readonly admitted: readonly unknown[];
      readonly prices?: { readonly min: number; readonly minType: string; readonly max: number; readonly maxType: string };
      readonly ceiling: { readonly perHour: number | null; readonly boundBy?: string; readonly bound?: CeilingBound; readonly buffer?: { readonly perHour: number } };
      readonly replicas?: number;
      readonly admission?: { readonly namespaces: readonly string[] };
    };
  }[];
}

/** The fleet's plan as data: per cluster its release, stage, window and pools, and every team's ceiling. */
/** A team's ceilings and budgets in the summary data. */
export interface SummaryDataTeam {
  readonly team: string;
  readonly perCluster: Readonly<Record<string, number | null>>;
  readonly total: number | null;
  /** `teams.<team>.budget.perHour`, over every cluster; null: none. */
  readonly budgetPerHour: number | null;
  /**
   * The team's budgets in groups (`groups.<group>.teams.<team>.budget.perHour`), each over the
   * group's clusters. Added within version 1; written only when the team has one.
   * @default [] - none
   */
  readonly groupBudgets?: readonly { readonly group: string; readonly clusters: readonly string[]; readonly perHour: number }[];
}

/** The fleet's file: every cluster's place, without its pools ({@link clusterSummaryData}), and the teams' ceilings. */
export function summaryData(platform: Platform, ceilings: readonly TeamCeiling[]): SummaryData {
  return {
    summaryVersion: SUMMARY_DATA_VERSION,
    costBasis: CEILING_BASIS,
    clusters: platform.clusters.map((c) => ({
      id: c.id,
      eksCluster: c.terraform.clusterName,
      karpenterVersion: c.karpenter.version,
      kubernetesVersion: c.kubernetesVersion ?? null,
      stage: c.stage ?? null,
      ...(c.groups.length ? { groups: [...c.groups] } : {}),
      revision: clusterRevision(platform, c),
      ...(c.compute ? { compute: c.compute } : {}),
      ...(crdsHeld(c) ? { heldCrdApplication: APP_NAMES.crds(c.id) } : {}),
      gated: isGated(platform, c),
      window: c.window ? {
        name: c.window.name, timeZone: c.window.timeZone, days: [...c.window.days], start: c.window.start, duration: c.window.duration,
        keptUtc: describeRuns(windowPlan(c.window).kept),
      } : null,
      ...(controllerSyncsInWindow(c) ? { syncInWindow: true } : {}),
      ...(c.manualSync === true ? { manualSync: true } : {}),
    })),
    ...(platform.gitops.stages ? { stages: platform.gitops.stages.map((s) => ({ stage: s.stage, soakMinutes: s.soakMinutes, environment: s.environment ?? null })) } : {}),
    teams: ceilings.map((t) => ({
      team: t.team,
      perCluster: Object.fromEntries(t.perCluster),
      total: t.total,
      budgetPerHour: t.budget !== undefined ? Number(t.budget) : null,
      ...groupBudgetsOf(platform, t.team),
    })),
  };
}

/** A cluster's own file: its pools, each with what it admits, can cost and how it is paced. */
export function clusterSummaryData(c: Platform['clusters'][number], plan: DataClusterPlan): ClusterSummaryData {
  return {
    summaryVersion: SUMMARY_DATA_VERSION,
    cluster: c.id,
    pools: c.pools.map((pool, j) => {
      const { facts, nodePool } = plan.pools[j];
      return {
        name: pool.name,
        team: pool.team,
        replicas: facts.replicas ?? null,
        instanceTypes: {
          count: facts.admitted.length,
          cheapest: facts.prices ? { type: facts.prices.minType, perHour: facts.prices.min } : null,
          dearest: facts.prices ? { type: facts.prices.maxType, perHour: facts.prices.max } : null,
        },
        ceiling: { perHour: facts.ceiling.perHour, boundBy: facts.ceiling.boundBy ?? null, bound: facts.ceiling.bound ?? null, bufferPerHour: facts.ceiling.buffer?.perHour ?? null },
        limits: Object.fromEntries(Object.entries(nodePool.limits ?? {}).map(([k, v]) => [k, String(v)])),
        budgets: nodePool.budgets,
        windowBudgets: c.window ? windowPlan(c.window).budgets.length : 0,
        amiAlias: pool.settings.ami.alias ?? null,
        namespaces: facts.admission ? [...facts.admission.namespaces] : null,
      };
    }),
  };
}

/** A team's group budgets, for {@link SummaryDataTeam.groupBudgets}: nothing when it has none. */
function groupBudgetsOf(platform: Platform, team: string): Pick<SummaryDataTeam, 'groupBudgets'> {
  const budgets = (platform.budgets ?? []).flatMap((b) => (b.team === team && b.group ? [{ group: b.group.name, clusters: [...b.group.clusters], perHour: Number(b.perHour) }] : []));
  return budgets.length ? { groupBudgets: budgets } : {};
}
