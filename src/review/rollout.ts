/**
 * A review at fleet scale (docs/review.md): one change on many clusters reads as one change.
 * Identical changes are grouped across clusters and pools (what differs — another pacing,
 * another effect — stays a variant of its group), and each group says when it reaches each
 * stage and cluster: at merge or at a promotion, in which window (its next opening, from the
 * head commit's time, in UTC and local time) and how it is paced (the pools' budgets, in words).
 * The stages, windows and budgets are read from the head's `dist/summary.json`.
 */
import { nextOpening, WEEK, windowPlan, type Day, type MaintenanceWindow } from '../schedule/windows';
import type { SummaryData, SummaryDataCluster } from '../model/summary-data';
import type { Change } from './changes';
import { RISKS, type Risk } from './risk';
import { FLEET } from './tree';

/** Changes that are the same change, on several resources (clusters, pools). */
export interface ChangeGroup {
  readonly risk: Risk;
  /** `EC2NodeClass changed`, `Job removed`. */
  readonly title: string;
  /** What changed, once: the fields' texts, or the change's why. */
  readonly what: string;
  /** Why it falls in its class (the first member's, names left out). */
  readonly why: string;
  readonly members: readonly Change[];
  /** The clusters it touches, in fleet order ({@link FLEET} last). */
  readonly clusters: readonly string[];
  /** Members that differ in pacing or effect, each with what is theirs. @default - one variant: all alike */
  readonly variants: readonly { readonly text: string; readonly members: readonly Change[] }[];
}

/** A resource's own names in a text, and 16-digit digests, hidden: what is left is what is the same. */
function masked(text: string, c: Change): string {
  const names = [c.resource.name, c.resource.cluster].filter((n) => n.length > 0).sort((a, b) => b.length - a.length);
  let out = text.replace(/\b[0-9a-f]{16}\b/g, '…');
  for (const n of names) out = out.split(n).join('<name>');
  return out;
}

/** What makes two changes the same change: class, kind, action and every field, or the why when there are none. */
function keyOf(c: Change): string {
  const fields = c.fields.map((f) => `${f.text}\0${f.why}`).join('\n');
  return [c.risk, c.resource.kind, c.action, fields || masked(c.why, c)].join('\u0001');
}

/** How a member is paced, without its pool's name: the budgets. */
function pacingOf(c: Change): string {
  return c.pacedBy === undefined ? '' : c.pacedBy.replace(/NodePool [^:;]+: /g, '');
}

/**
 * The review's changes grouped: loudest class first, then the largest group. `clusterOrder`
 * is the fleet's order of cluster ids.
 */
export function groupChanges(changes: readonly Change[], clusterOrder: readonly string[]): ChangeGroup[] {
  const byKey = new Map<string, Change[]>();
  for (const c of changes) {
    const key = keyOf(c);
    const list = byKey.get(key);
    if (list) list.push(c);
    else byKey.set(key, [c]);
  }
  const rank = (cluster: string) => {
    const i = clusterOrder.indexOf(cluster);
    return cluster === FLEET ? Number.MAX_SAFE_INTEGER : i < 0 ? clusterOrder.length : i;
  };
  const groups = [...byKey.values()].map((members): ChangeGroup => {
    const first = members[0];
    const clusters = [...new Set(members.map((m) => m.resource.cluster))].sort((a, b) => rank(a) - rank(b));
    const variants = new Map<string, Change[]>();
    for (const m of members) {
      const text = [masked(m.why, m), pacingOf(m) && `paced by ${pacingOf(m)}`].filter(Boolean).join('; ');
      variants.set(text, [...(variants.get(text) ?? []), m]);
    }
    return {
      risk: first.risk,
      title: `${first.resource.kind} ${first.action}`,
      what: first.fields.length ? first.fields.map((f) => f.text).join('; ') : members.length === 1 ? first.why : masked(first.why, first).replace(/<name>/g, '…'),
      why: first.fields.length ? first.fields.map((f) => f.why).filter((w, i, all) => all.indexOf(w) === i).join('; ') : '',
      members,
      clusters,
      variants: [...variants].map(([text, list]) => ({ text: text.replace(/<name>/g, '…'), members: list })),
    };
  });
  return groups.sort((a, b) => RISKS.indexOf(a.risk) - RISKS.indexOf(b.risk) || b.members.length - a.members.length);
}

/** `c001, c002, c003 … and 97 more`: at most `max` names, then how many more. */
export function someOf(names: readonly string[], max = 6): string {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} … and ${names.length - max} more`;
}

/** When a group reaches one set of clusters: a stage and window they share. */
export interface RolloutStep {
  /** null: clusters without a stage (they take the main branch at merge, like stage 1). */
  readonly stage: number | null;
  /** null: no window. */
  readonly window: string | null;
  readonly clusters: readonly string[];
  /** How many of the group's members (pools, objects) are on these clusters. */
  readonly members: number;
  /** When Argo CD syncs the change there. */
  readonly synced: string;
  /** When Karpenter may replace drifted nodes there, from the reference time: at once, or the window's next opening. */
  readonly drift: string;
  /** The earliest time drifting may start (UTC): the reference time, or the window's next opening. @default - none: no window opens */
  readonly earliest?: Date;
  /** The window's kept UTC minutes. @default - none */
  readonly keptUtc?: readonly string[];
}

/** A window of the summary data as the schedule room takes it. */
function windowOf(w: NonNullable<SummaryDataCluster['window']>): MaintenanceWindow {
  return { name: w.name, timeZone: w.timeZone, days: w.days as Day[], start: w.start, duration: w.duration };
}

/** `2026-11-30 01:00 UTC (Sun 20:00 America/New_York)`. */
export function whenText(at: Date, timeZone?: string): string {
  const utc = `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  if (!timeZone || timeZone === 'UTC') return utc;
  const local = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at).replace(',', '');
  return `${utc} (${local} ${timeZone})`;
}

/**
 * The steps of a group's rollout, stage by stage, from `at` (the head commit's time): stage 1
 * (and clusters without a stage) sync at merge; stage N at the promotion that follows stage
 * N-1's finish (its drift gate); drift starts at once, or at the window's next opening.
 */
export function rolloutSteps(group: ChangeGroup, data: SummaryData, at: Date): RolloutStep[] {
  const clusters = new Map(data.clusters.map((c) => [c.id, c]));
  const keyed = new Map<string, { stage: number | null; window: SummaryDataCluster['window']; clusters: string[]; members: number }>();
  for (const id of group.clusters) {
    const c = clusters.get(id);
    if (!c) continue;
    const key = `${c.stage ?? 0}\0${c.window?.name ?? ''}`;
    const step = keyed.get(key) ?? { stage: c.stage, window: c.window, clusters: [], members: 0 };
    step.clusters.push(id);
    step.members += group.members.filter((m) => m.resource.cluster === id).length;
    keyed.set(key, step);
  }
  return [...keyed.values()]
    .sort((a, b) => (a.stage ?? 1) - (b.stage ?? 1) || (a.window?.name ?? '').localeCompare(b.window?.name ?? ''))
    .map((s): RolloutStep => {
      const synced = s.stage === null || s.stage < 2 ? 'at merge'
        : `when stage ${s.stage} is promoted: after every stage-${s.stage - 1} cluster has it and Karpenter has finished with it there (its drift gate)`;
      if (!s.window) return { stage: s.stage, window: null, clusters: s.clusters, members: s.members, synced, drift: 'at once (no window)', earliest: at };
      const opening = nextOpening(windowOf(s.window), at);
      const kept = s.window.keptUtc;
      const drift = opening === undefined ? `never: window ${s.window.name} keeps no minute`
        : `${s.stage !== null && s.stage >= 2 ? 'at the earliest ' : ''}${whenText(opening, s.window.timeZone)}, the next opening of window ${s.window.name}; only in ${kept.join(', ')} UTC`;
      return { stage: s.stage, window: s.window.name, clusters: s.clusters, members: s.members, synced, drift, keptUtc: kept, ...(opening ? { earliest: opening } : {}) };
    });
}

/** A budget as the summary data holds it. */
interface DataBudget {
  readonly nodes: string;
  readonly schedule?: string;
  readonly duration?: string;
  readonly reasons?: readonly string[];
}

/**
 * A pool's pacing of drifted nodes, in words: its own budgets for reason Drifted (the window's
 * `nodes: "0"` budgets are said by the window), e.g. `10% of the pool's nodes at a time`.
 */
function pacingWords(pool: { readonly budgets: readonly DataBudget[]; readonly windowBudgets: number }): string {
  // The window's budgets (the last ones) are said as the window; the pool's own that apply to Drifted pace it.
  const own = pool.budgets.slice(0, pool.budgets.length - pool.windowBudgets).filter((b) => b.reasons === undefined || b.reasons.includes('Drifted'));
  if (own.length === 0) return "Karpenter's default: 10% of the pool's nodes at a time";
  return own.map((b) => {
    const n = b.nodes.endsWith('%') ? `${b.nodes} of the pool's nodes at a time` : b.nodes === '0' ? 'no node' : `${b.nodes} node${b.nodes === '1' ? '' : 's'} at a time`;
    return b.schedule ? `${n} during "${b.schedule}" (UTC) for ${b.duration}` : n;
  }).join(', ');
}

/** How the group's pools on these clusters are paced, each distinct pacing with its count of pools. */
export function stepPacing(group: ChangeGroup, step: RolloutStep, data: SummaryData): string {
  const pools = new Map(data.clusters.flatMap((c) => c.pools.map((p) => [`${c.id}\0${p.name}`, p] as const)));
  const counts = new Map<string, number>();
  for (const m of group.members.filter((x) => step.clusters.includes(x.resource.cluster))) {
    // An EC2NodeClass is named after its pool; the NodePool is the pool.
    const pool = pools.get(`${m.resource.cluster}\0${m.resource.name}`);
    if (!pool) continue;
    const words = pacingWords(pool);
    counts.set(words, (counts.get(words) ?? 0) + 1);
  }
  return [...counts].map(([words, n]) => (counts.size > 1 ? `${words} (${n} pools)` : words)).join('; ');
}

/** The Gantt bars of a rollout: per stage, the first two openings of each window group from its earliest time. */
export function rolloutGantt(groups: readonly ChangeGroup[], data: SummaryData, at: Date): string {
  const lines = [
    'gantt',
    `  title When this change can replace nodes, stage by stage (UTC, from the head commit ${whenText(at)})`,
    '  dateFormat YYYY-MM-DD HH:mm',
    '  axisFormat %a %d %H:%M',
  ];
  const steps = new Map<string, RolloutStep>();
  for (const g of groups.filter((x) => x.risk === 'replaces-nodes' || x.risk === 'destructive')) {
    for (const s of rolloutSteps(g, data, at)) {
      const key = `${s.stage ?? 1}\0${s.window ?? ''}`;
      const was = steps.get(key);
      steps.set(key, was ? { ...was, clusters: [...new Set([...was.clusters, ...s.clusters])] } : s);
    }
  }
  const stamp = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');
  const byStage = new Map<number, RolloutStep[]>();
  for (const s of steps.values()) byStage.set(s.stage ?? 1, [...(byStage.get(s.stage ?? 1) ?? []), s]);
  let id = 0;
  for (const [stage, list] of [...byStage].sort(([a], [b]) => a - b)) {
    lines.push(`  section Stage ${stage}`);
    lines.push(`  ${stage < 2 ? 'merged and synced' : `promoted after stage ${stage - 1} finishes`} :milestone, m${stage}, ${stamp(at)}, 0m`);
    for (const s of list) {
      const label = `${s.window ? `window ${s.window}` : 'no window'} (${s.clusters.length} cluster${s.clusters.length === 1 ? '' : 's'})`;
      if (!s.window) {
        lines.push(`  ${label}, at once :s${id++}, ${stamp(at)}, 2h`);
        continue;
      }
      const cluster = data.clusters.find((c) => c.id === s.clusters[0]);
      if (!cluster?.window) continue;
      let from = at;
      for (let n = 0; n < 2; n++) {
        const open = nextOpening(windowOf(cluster.window), from);
        if (!open) break;
        const minutes = keptLengthAt(cluster.window, open);
        lines.push(`  ${label}${n ? ', next' : ''} :s${id++}, ${stamp(open)}, ${minutes}m`);
        from = new Date(open.getTime() + (minutes + 1) * 60_000);
      }
    }
  }
  return lines.join('\n');
}

/** How long the kept run that opens at `open` lasts, in minutes (the window's kept UTC runs). */
function keptLengthAt(window: NonNullable<SummaryDataCluster['window']>, open: Date): number {
  // Minute of the week in UTC, Sunday 00:00 = 0 (1970-01-04 was a Sunday: 3 days after the epoch).
  const minute = ((Math.floor(open.getTime() / 60_000) - 3 * 24 * 60) % WEEK + WEEK) % WEEK;
  return windowPlan(windowOf(window)).kept.find((r) => r.start === minute)?.length ?? 60;
}
