import { someNames } from '../model/cluster-sets';
import type { ClusterState, ClusterStatus, RolloutStatus, StageStatus } from './status';
import { STATE_ORDER } from './status';

/**
 * The rollout page (`npm run promote -- status`) as Markdown (for the promote workflow's run
 * summary, with a Mermaid picture of the stages), as terminal text, or as JSON. Readable at a
 * thousand clusters: clusters are grouped by state and reason, each group a count and a few
 * names then "and N more" (model/cluster-sets.ts someNames), so the page grows with the stages and the
 * kinds of trouble, not with the fleet.
 */

/** How a state is said on the page. */
const STATE_LABEL: Readonly<Record<ClusterState, string>> = {
  held: 'held by a problem',
  replacing: 'replacing nodes',
  waiting: 'waiting',
  syncing: 'syncing or out of sync',
  manual: 'synced by hand',
  unknown: 'not known',
  synced: 'synced',
};

/** Reasons listed per state before "… N more reasons": the page stays short whatever goes wrong. */
const MAX_REASONS = 5;
/** Clusters named per reason before "… and N more". */
const MAX_NAMES = 6;
/** Characters of a short commit. */
const SHORT_SHA = 7;

/** How text is marked up: Markdown, or plain for a terminal. */
interface Style {
  readonly bold: (text: string) => string;
  readonly code: (text: string) => string;
  /** Text from outside (names, messages) made safe for the markup. */
  readonly text: (text: string) => string;
}

/** Markdown: ASCII punctuation that could start markup is escaped with a backslash (CommonMark 2.4). @see https://spec.commonmark.org/0.31.2/#backslash-escapes */
const MARKDOWN: Style = {
  bold: (t) => `**${t}**`,
  code: (t) => `\`${t.replace(/`/g, "'")}\``,
  text: (t) => t.replace(/[\\`*_[\]<>|#]/g, (c) => `\\${c}`),
};
const PLAIN: Style = { bold: (t) => t, code: (t) => t, text: (t) => t };

/** A commit as the page shows it. */
function shortSha(revision: string | undefined): string {
  return revision === undefined ? 'no commit' : revision.slice(0, SHORT_SHA);
}

/** A count of things, `1 cluster`, `1,000 clusters`. */
function count(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

/** One line per reason of a state's clusters, each with a few of their names (and details). */
function stateLines(state: ClusterState, clusters: readonly ClusterStatus[], style: Style): string[] {
  const byWhy = new Map<string, ClusterStatus[]>();
  for (const c of clusters) byWhy.set(c.why, [...(byWhy.get(c.why) ?? []), c]);
  const groups = [...byWhy].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  const names = (members: readonly ClusterStatus[]) => style.text(someNames(members.map((m) => (m.detail ? `${m.cluster} (${m.detail})` : m.cluster)), MAX_NAMES));
  const head = `- ${style.bold(STATE_LABEL[state])} (${clusters.length.toLocaleString('en-US')})`;
  if (state === 'synced') return [`${head}: ${names(clusters)}`];
  if (groups.length === 1) return [`${head}, ${style.text(groups[0][0])}: ${names(groups[0][1])}`];
  const shown = groups.slice(0, MAX_REASONS).map(([why, members]) => `  - ${style.text(why)} (${members.length.toLocaleString('en-US')}): ${names(members)}`);
  const rest = groups.slice(MAX_REASONS);
  const more = rest.length ? [`  - … ${count(rest.length, 'more reason')} (${count(rest.reduce((n, [, m]) => n + m.length, 0), 'cluster')})`] : [];
  return [`${head}:`, ...shown, ...more];
}

/** The title of a stage: `stage 2 · karpenter-gitops/stage-2 at abc1234 · 40 clusters`. */
function stageTitle(s: StageStatus, style: Style): string {
  const at = !s.promoted ? `${style.code(s.ref)} (not created yet: not promoted)`
    : s.revision === undefined ? `${style.code(s.ref)} (its commit is not known: not in git here)` : `${style.code(s.ref)} at ${style.code(shortSha(s.revision))}`;
  return `Stage ${s.stage} · ${at} · ${count(s.clusterIds.length, 'cluster')}`;
}

/** What the stage's next promotion waits for, in one line. */
function promotionLine(s: StageStatus, style: Style): string | undefined {
  const p = s.promotion;
  if (!p) return undefined;
  if (p.revision === undefined) return `Next promotion: waits for ${p.waitsFor.map(style.text).join(', then ')}`;
  if (p.upToDate) return `Next promotion: none, it runs stage ${s.stage - 1}'s commit ${style.code(shortSha(p.revision))}`;
  const from = `Next promotion: ${style.code(shortSha(p.revision))} from stage ${s.stage - 1}`;
  // Ready as far as the stage before goes: whether the main branch still wants the commit is the promote workflow's to ask.
  if (p.ready === true) return `${from}, ready: stage ${s.stage - 1} has finished it${p.environment !== undefined ? `; the push waits for a reviewer of GitHub environment ${style.text(p.environment)}` : ''}`;
  return `${from}, waits for ${p.waitsFor.map(style.text).join(', then ')}`;
}

/** A stage's lines below its title: what its promotion waits for and its windows (one line each), then its clusters (a list). */
function stageBody(s: StageStatus, live: boolean, style: Style): { readonly notes: readonly string[]; readonly list: readonly string[] } {
  const notes = [promotionLine(s, style)].filter((l): l is string => l !== undefined);
  if (s.windows.length) {
    notes.push(`Windows: ${s.windows.map((w) => `${style.text(w.name)} (${count(w.clusters, 'cluster')}${w.opens ? `, opens ${style.text(w.opens)}` : ''})`).join('; ')}`);
  }
  if (!live) return { notes, list: [`- ${style.bold('clusters')} (${s.clusterIds.length.toLocaleString('en-US')}): ${style.text(someNames(s.clusterIds, MAX_NAMES))}`] };
  const list = STATE_ORDER.flatMap((state) => {
    const members = s.clusters.filter((c) => c.state === state);
    return members.length ? stateLines(state, members, style) : [];
  });
  return { notes, list };
}

/** The line under the title: when, how big, from what. */
function intro(status: RolloutStatus): string {
  const from = status.live ? 'from the Applications Argo CD reports' : 'from the config and git only: give --applications for each cluster\'s state';
  return `${status.at.replace('T', ' ').replace('Z', ' UTC')} · ${count(status.clusters, 'cluster')} in ${count(status.stages.length, 'stage')} · ${from}`;
}

/**
 * Text made safe inside a quoted Mermaid label: `#` and `"` (which would end it) and `<`, `>`
 * as entity codes, which Mermaid turns back into the characters.
 * @see https://mermaid.js.org/syntax/flowchart.html#entity-codes-to-escape-characters
 */
export function mermaidLabel(text: string): string {
  return text.replace(/#/g, '#35;').replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;');
}

/** A `flowchart LR` of the stages, each with its ref, commit and counts, each edge with what the promotion waits for. */
export function rolloutFlowchart(status: RolloutStatus): string {
  const lines = ['flowchart LR'];
  for (const s of status.stages) {
    const counts = status.live
      ? [`${s.counts.synced} synced · ${s.counts.replacing} replacing · ${s.counts.waiting} waiting · ${s.counts.held} held`,
        ...(s.counts.syncing + s.counts.manual + s.counts.unknown > 0 ? [`${s.counts.syncing + s.counts.manual + s.counts.unknown} other`] : [])].join(' · ')
      : count(s.clusterIds.length, 'cluster');
    const head = `stage ${s.stage} · ${s.ref} ${!s.promoted ? 'not promoted' : s.revision === undefined ? '(commit not known)' : `at ${shortSha(s.revision)}`}`;
    lines.push(`  s${s.stage}["${mermaidLabel(head)}<br/>${mermaidLabel(counts)}"]`);
  }
  for (const [i, s] of status.stages.entries()) {
    const before = status.stages[i - 1];
    if (!before) continue;
    const p = s.promotion;
    const edge = !p ? '' : p.upToDate ? 'up to date' : p.ready === true ? 'ready to promote' : p.waitsFor[0] ?? '';
    lines.push(edge ? `  s${before.stage} -->|"${mermaidLabel(edge)}"| s${s.stage}` : `  s${before.stage} --> s${s.stage}`);
  }
  return lines.join('\n');
}

/** The page as Markdown: a title, the picture, then each stage. */
export function rolloutMarkdown(status: RolloutStatus): string {
  const out = ['## Where the rollout stands', '', intro(status), '', '```mermaid', rolloutFlowchart(status), '```'];
  for (const s of status.stages) {
    // Each note a paragraph of its own: lines in a row would join into one.
    const { notes, list } = stageBody(s, status.live, MARKDOWN);
    out.push('', `### ${stageTitle(s, MARKDOWN)}`, '', ...notes.flatMap((n) => [n, '']), ...list);
  }
  return `${out.join('\n')}\n`;
}

/** The page as terminal text, one line each. */
export function rolloutText(status: RolloutStatus): string[] {
  const out = [`Where the rollout stands: ${intro(status)}`];
  for (const s of status.stages) {
    const { notes, list } = stageBody(s, status.live, PLAIN);
    out.push('', stageTitle(s, PLAIN), ...[...notes, ...list].map((l) => `  ${l}`));
  }
  return out;
}

/** The page as versioned data (`--format json`). */
export function rolloutJson(status: RolloutStatus): string {
  return JSON.stringify(status, null, 2);
}
