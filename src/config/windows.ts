import { CronExpressionParser } from 'cron-parser';
import { suggest } from '../input/issues';
import { aboutCluster, Problem } from '../input/problems';
import { SourceFile } from '../input/source';
import { Day, formatOffset, keptMask, MaintenanceWindow, WEEK, windowPlan, zoneOffsets } from '../schedule/windows';
import { budgetsAt } from './delivery';
import type { Cluster } from './platform';
import type { ClusterSettings } from './settings';
import type { PlatformFile } from './schema';

/** The most budgets a NodePool holds (the CRD's `maxItems`). */
const MAX_BUDGETS = 50;

/**
 * The window of a cluster, as the model reads it: the one its settings name (its own, else its
 * last group's that names one, src/config/settings.ts); undefined when none does or it is unknown
 * (reported by {@link windowFindings} and the group checks).
 */
export function clusterWindow(file: PlatformFile, settings: ClusterSettings): MaintenanceWindow | undefined {
  const name = settings.window.value;
  const w = name === undefined ? undefined : file.windows?.[name];
  if (name === undefined || !w) return undefined;
  return { name, timeZone: w.timeZone, days: w.days as Day[], start: w.start, duration: w.duration };
}

/**
 * What is wrong with the windows and stages of a valid-by-schema config: a cluster naming an
 * unknown window (with a did-you-mean), a window no minute of which survives the zone's
 * daylight-saving shift, more budgets than a NodePool holds, a gap between stages (errors);
 * a team budget that keeps Drifted at zero through every minute of the window (a warning).
 */
export function windowFindings(
  source: SourceFile, file: PlatformFile, clusters: readonly Cluster[], settings: ReadonlyMap<string, ClusterSettings>,
): { problems: Problem[]; warnings: Problem[] } {
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const names = Object.keys(file.windows ?? {});
  for (const [name, w] of Object.entries(file.windows ?? {})) {
    const window = { name, timeZone: w.timeZone, days: w.days as Day[], start: w.start, duration: w.duration };
    if (!keptMask(window).includes(true)) {
      const offsets = zoneOffsets(w.timeZone);
      const shift = offsets[offsets.length - 1] - offsets[0];
      problems.push(source.problem(['windows', name, 'duration'], `${w.duration} leaves no minute for Drifted nodes: ${w.timeZone} is ${offsets.map((o) => `UTC${formatOffset(o)}`).join(' or ')}, `
        + `and Karpenter reads schedules in UTC only, so only the minutes inside the window at every offset count (the window shifts by ${shift}m); make it longer than ${shift}m`));
    }
  }
  for (const c of clusters) {
    const chosen = settings.get(c.id)?.window;
    const name = chosen?.value;
    if (chosen === undefined || name === undefined) continue;
    if (!file.windows?.[name]) {
      // A group's unknown window is the group's problem (config/groups.ts).
      if (chosen.level !== 'cluster') continue;
      const best = suggest(name, names);
      problems.push(source.problem(chosen.path, `unknown window "${name}"${best ? ` (did you mean "${best}"?)` : ''}`
        + (names.length ? ` (defined: ${names.join(', ')})` : ': define it under windows, e.g. windows: { weeknights: { timeZone: Europe/Berlin, days: [mon, tue, wed, thu], start: "22:00", duration: 6h } }')));
      continue;
    }
    const w = c.window;
    if (!w || !keptMask(w).includes(true)) continue;
    const windowAt = chosen.path;
    const plan = windowPlan(w);
    for (const pool of c.pools) {
      const budgets = pool.settings.disruption.budgets;
      if (budgets.length + plan.budgets.length > MAX_BUDGETS) {
        problems.push(source.problem(windowAt, `pool ${pool.name} has ${budgets.length} budgets and window ${name} adds ${plan.budgets.length}: a NodePool holds at most ${MAX_BUDGETS}; drop some of the pool's budgets`));
      }
      for (const [i, b] of budgets.entries()) {
        if (!closesDrifted(b) || !activeThroughout(b, plan.kept.length ? keptMask(w) : [])) continue;
        warnings.push(aboutCluster(source.problem([...budgetsAt(file, c.id, pool.team, pool.name), i], `keeps Drifted disruptions at ${b.nodes} through every minute of cluster ${c.id}'s window ${name}: `
          + 'its drifted nodes are never replaced; give the budget reasons that leave out Drifted, or a schedule outside the window'), c.id));
      }
    }
  }
  problems.push(...stageGaps(source, file));
  return { problems, warnings };
}

/** Stages run 1, 2, 3 ...: a stage N ≥ 2 with no cluster at N-1 would wait for nothing. */
function stageGaps(source: SourceFile, file: PlatformFile): Problem[] {
  const staged = Object.entries(file.clusters).filter(([, c]) => c.stage !== undefined);
  const stages = new Set(staged.map(([, c]) => c.stage));
  return staged.filter(([, c]) => c.stage! > 1 && !stages.has(c.stage! - 1)).map(([id, c]) => source.problem(['clusters', id, 'stage'],
    `stage ${c.stage} waits for stage ${c.stage! - 1}, and no cluster is at stage ${c.stage! - 1}: number the stages 1, 2, 3 ... without gaps`));
}

/** A budget that allows no Drifted disruption: nodes 0 (or 0%), for Drifted or for every reason. */
function closesDrifted(b: { nodes: string; reasons?: readonly string[] }): boolean {
  return /^0+%?$/.test(b.nodes) && (!b.reasons || b.reasons.length === 0 || b.reasons.includes('Drifted'));
}

/** Whether a budget is active (Karpenter's IsActive) at every kept minute of a reference week. */
function activeThroughout(b: { schedule?: string; duration?: string }, kept: readonly boolean[]): boolean {
  if (b.schedule === undefined) return true;
  const [, h, m] = /^(?:([0-9]+)h)?(?:([0-9]+)m)?/.exec(b.duration ?? '') ?? [];
  const duration = (Number(h ?? 0) * 60 + Number(m ?? 0)) * 60_000;
  // Sunday 2027-01-10 00:00 UTC: minute 0 of the kept mask.
  const week = Date.UTC(2027, 0, 10);
  const fires: number[] = [];
  const it = CronExpressionParser.parse(b.schedule, { currentDate: new Date(week - duration - 60_000), tz: 'UTC', endDate: new Date(week + WEEK * 60_000) });
  while (it.hasNext()) fires.push(it.next().getTime());
  return kept.every((k, u) => {
    if (!k) return true;
    const now = week + u * 60_000 + 30_000;
    const next = fires.find((f) => f > now - duration);
    return next !== undefined && next <= now;
  });
}
