/**
 * A review at fleet scale (docs/review.md): one change on many clusters reads as one change.
 * Identical changes are grouped across clusters and pools (what differs — another pacing,
 * another effect — stays a variant of its group), and each group says when it reaches each
 * stage and cluster: at merge or at a promotion, in which window (its next opening, from the
 * head commit's time, in UTC and local time) and how it is paced (the pools' budgets, in words).
 * The stages, windows and budgets are read from the head's `dist/summary.json`.
 */
import { budgetDuration, nextOpening } from '../schedule/windows';
import type { SummaryData, SummaryDataCluster } from '../model/summary-data';
import type { Change } from './changes';
import { RISKS, type Risk } from './risk';
import { ASSUMED_DRIFT_MINUTES, isManual, keptRunFrom, manualText, MANUAL_SYNC, RolloutTimeline, whenText, windowOf } from './timeline';
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

/** When a group reaches one set of clusters: a stage and window they share. */
export interface RolloutStep {
  /** null: clusters without a stage (they take the main branch at merge, like stage 1). */
  readonly stage: number | null;
  /** null: no window. */
  readonly window: string | null;
  /** Its clusters sync by hand (`manualSync: true`): the change reaches them when someone syncs them. @default false */
  readonly manual?: boolean;
  readonly clusters: readonly string[];
  /** How many of the group's members (pools, objects) are on these clusters. */
  readonly members: number;
  /** When Argo CD syncs the change there: at merge, or the stage's promotion (an estimate), then in the window if one holds the pools. */
  readonly synced: string;
  /** When Karpenter may replace drifted nodes there: at once, or the window's first opening from the stage's start. */
  readonly drift: string;
  /** The earliest time drifting may start (UTC): the stage's start, or the window's first opening from then. @default - none: no window opens */
  readonly earliest?: Date;
  /** The window's kept UTC minutes. @default - none */
  readonly keptUtc?: readonly string[];
}

/**
 * The steps of a group's rollout, stage by stage, on the pull request's timeline: stage 1 (and
 * clusters without a stage) sync at merge; stage N at its promotion, no earlier than stage N-1's
 * estimated finish plus its soak; a windowed cluster's pools sync, and its drifted nodes are
 * replaced, from the window's first opening after that.
 */
export function rolloutSteps(group: ChangeGroup, timeline: RolloutTimeline): RolloutStep[] {
  const keyed = new Map<string, { stage: number | null; window: SummaryDataCluster['window']; manual: SummaryDataCluster | undefined; clusters: string[]; members: number }>();
  for (const id of group.clusters) {
    const c = timeline.cluster(id);
    if (!c) continue;
    const key = `${c.stage ?? 0}\0${c.window?.name ?? ''}\0${isManual(c)}`;
    const step = keyed.get(key) ?? { stage: c.stage, window: c.window, manual: isManual(c) ? c : undefined, clusters: [], members: 0 };
    step.clusters.push(id);
    step.members += group.members.filter((m) => m.resource.cluster === id).length;
    keyed.set(key, step);
  }
  return [...keyed.values()]
    .sort((a, b) => (a.stage ?? 1) - (b.stage ?? 1) || (a.window?.name ?? '').localeCompare(b.window?.name ?? '') || Number(a.manual !== undefined) - Number(b.manual !== undefined))
    .map((s): RolloutStep => {
      if (s.manual) return manualStep(s.manual, s.clusters, s.members, timeline);
      const start = timeline.startOf(s.stage);
      const promoted = s.stage !== null && s.stage >= 2;
      if (!s.window) return { stage: s.stage, window: null, clusters: s.clusters, members: s.members, synced: timeline.startText(s.stage), drift: 'at once (no window)', earliest: start };
      const synced = `${timeline.startText(s.stage)}, then only in window ${s.window.name}`;
      const opening = nextOpening(windowOf(s.window), start);
      const kept = s.window.keptUtc;
      const drift = opening === undefined ? `never: window ${s.window.name} keeps no minute`
        : promoted ? `at the earliest ${whenText(opening, s.window.timeZone)}, the first opening of window ${s.window.name} after stage ${s.stage}'s estimated start (estimate); only in ${kept.join(', ')} UTC`
          : `${whenText(opening, s.window.timeZone)}, the next opening of window ${s.window.name}; only in ${kept.join(', ')} UTC`;
      return { stage: s.stage, window: s.window.name, clusters: s.clusters, members: s.members, synced, drift, keptUtc: kept, ...(opening ? { earliest: opening } : {}) };
    });
}

/**
 * The step of clusters synced by hand: no time is known, the change reaches them when someone
 * syncs them; their drifted nodes are then replaced at once, or in their window's kept minutes.
 */
function manualStep(cluster: SummaryDataCluster, clusters: readonly string[], members: number, timeline: RolloutTimeline): RolloutStep {
  const drift = cluster.window ? `once someone syncs it, then only in window ${cluster.window.name} (${cluster.window.keptUtc.join(', ')} UTC)` : 'once someone syncs it, then at once (no window)';
  return {
    stage: cluster.stage, window: cluster.window?.name ?? null, manual: true, clusters, members,
    synced: manualText(cluster, timeline.startText(cluster.stage)), drift, ...(cluster.window ? { keptUtc: cluster.window.keptUtc } : {}),
  };
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
  const pools = new Map(data.clusters.flatMap((c) => (c.pools ?? []).map((p) => [`${c.id}\0${p.name}`, p] as const)));
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

/**
 * The Gantt chart of a rollout, on a UTC axis: a section per stage, each stage after the one
 * before: its promotion no earlier than stage N-1's estimated finish plus its soak (a bar), an
 * approval it waits for (a milestone), a bar per window group at its first two openings from
 * the stage's start (a group without a window: {@link ASSUMED_DRIFT_MINUTES} from it), and the
 * stage's estimated finish. Every time after the merge that rests on an estimate says so. A
 * task's name never holds a colon: mermaid splits a task line at it.
 */
export function rolloutGantt(groups: readonly ChangeGroup[], timeline: RolloutTimeline): string {
  const lines = [
    'gantt',
    `  title When this change reaches each stage and can replace nodes (UTC, from the head commit ${whenText(timeline.at)}; later stages are estimates)`,
    '  dateFormat YYYY-MM-DD HH:mm',
    '  axisFormat %a %d %H:%M',
  ];
  const steps = new Map<string, RolloutStep>();
  for (const g of groups.filter((x) => x.risk === 'replaces-nodes' || x.risk === 'destructive')) {
    for (const s of rolloutSteps(g, timeline)) {
      const key = `${s.stage ?? 1}\0${s.window ?? ''}\0${s.manual === true}`;
      const was = steps.get(key);
      steps.set(key, was ? { ...was, clusters: [...new Set([...was.clusters, ...s.clusters])] } : s);
    }
  }
  const stamp = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');
  const byStage = new Map<number, RolloutStep[]>();
  for (const s of steps.values()) byStage.set(s.stage ?? 1, [...(byStage.get(s.stage ?? 1) ?? []), s]);
  // Every stage up to the last one drawn: a later stage waits for each one before it, touched or not.
  // Clusters without a stage are drawn with stage 1 (at merge), which then may have no estimate of its own.
  const last = Math.max(0, ...byStage.keys());
  const drawn = [...new Set([...byStage.keys(), ...timeline.stages().map((e) => e.stage).filter((n) => n <= last)])].sort((a, b) => a - b);
  let id = 0;
  for (const stage of drawn) {
    const estimate = timeline.stage(stage);
    const start = estimate?.start ?? timeline.at;
    lines.push(`  section Stage ${stage}`);
    if (stage < 2 || !estimate) lines.push(`  merged and synced :milestone, m${stage}, ${stamp(start)}, 0m`);
    else {
      if (estimate.soakMinutes > 0) lines.push(`  soak ${budgetDuration(estimate.soakMinutes)} after stage ${stage - 1} finishes, estimate :k${stage}, ${stamp(estimate.previousFinish)}, ${estimate.soakMinutes}m`);
      if (estimate.environment !== null) lines.push(`  waits for approval in GitHub environment ${estimate.environment} :milestone, a${stage}, ${stamp(start)}, 0m`);
      lines.push(`  promoted after stage ${stage - 1} finishes, estimate :milestone, m${stage}, ${stamp(start)}, 0m`);
    }
    const guess = stage >= 2 ? ', estimate' : '';
    for (const s of byStage.get(stage) ?? []) {
      const label = `${s.window ? `window ${s.window}` : 'no window'} (${s.clusters.length} cluster${s.clusters.length === 1 ? '' : 's'})`;
      if (s.manual) {
        // No time is known: a milestone where the change is in git, said to wait for a person (no colon: mermaid splits there).
        lines.push(`  ${label}, ${MANUAL_SYNC.replace(':', ',')}, not before this :milestone, s${id++}, ${stamp(start)}, 0m`);
        continue;
      }
      if (!s.window) {
        lines.push(`  ${label}, at once, estimate ${budgetDuration(ASSUMED_DRIFT_MINUTES)} :s${id++}, ${stamp(start)}, ${ASSUMED_DRIFT_MINUTES}m`);
        continue;
      }
      const cluster = timeline.cluster(s.clusters[0]);
      if (!cluster?.window) continue;
      let from = start;
      for (let n = 0; n < 2; n++) {
        const open = nextOpening(windowOf(cluster.window), from);
        if (!open) break;
        const minutes = keptRunFrom(cluster.window, open);
        lines.push(`  ${label}${n ? ', next' : ''}${guess} :s${id++}, ${stamp(open)}, ${minutes}m`);
        from = new Date(open.getTime() + (minutes + 1) * 60_000);
      }
    }
    if (estimate) lines.push(`  stage ${stage} finished, estimate :milestone, f${stage}, ${stamp(estimate.finish)}, 0m`);
  }
  return lines.join('\n');
}
