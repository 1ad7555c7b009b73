import { COST_TITLE } from './cost';
import { costLines } from './cost-lines';
import { Change, ClusterChange, Review } from './changes';
import type { SummaryData } from '../model/summary-data';
import { someNames } from '../model/cluster-sets';
import { ChangeGroup, groupChanges, rolloutGantt, rolloutSteps, stepPacing } from './rollout';
import { Risk, RISKS } from './risk';
import { RolloutTimeline, whenText } from './timeline';
import { describe, FLEET, nameOf } from './tree';
import { whenLines } from './when';

/** Title and marker of each risk class, loudest first. */
export const RISK_LABELS: Record<Risk, { readonly title: string; readonly mark: string }> = {
  'destructive': { title: 'DESTRUCTIVE: deletes pools, drains every node of them', mark: '🛑' },
  'replaces-nodes': { title: 'REPLACES NODES: Karpenter drift, paced by disruption budgets', mark: '♻️' },
  'capacity': { title: 'CAPACITY: limits, weights, disruption, requirements that widen, new pools', mark: '📈' },
  'access': { title: 'ACCESS: which namespaces may use which teams\' pools (tenancy policy)', mark: '🔐' },
  'controller': { title: 'CONTROLLER: chart version or values', mark: '⚙️' },
  'other': { title: 'OTHER', mark: '📝' },
};

/** Most changed fields listed per change unless `full`; the rest are counted. */
const MAX_FIELDS = 8;

/** What the fleet summary of a report reads: the head's plan as data, and the time the rollout is counted from. */
export interface FleetContext {
  /** The head's `dist/summary.json`: clusters, stages, windows, budgets. */
  readonly data: SummaryData;
  /** The head commit's time: when stage 1 gets the change (at merge), and from when windows are counted. */
  readonly at: Date;
}

/** Options of {@link terminalReport}. */
export interface TerminalOptions {
  /** List every changed field, not the first {@link MAX_FIELDS} of each change. @default false */
  readonly full?: boolean;
  /** Styles the line of a change by its class (colour on a terminal). @default - plain text */
  readonly style?: (risk: Risk, text: string) => string;
  /** The head's plan and time, for the rollout of each change. @default - no rollout section */
  readonly fleet?: FleetContext;
}

/** `1 group`, `3 groups`. */
const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/** A group in one line: `♻️ EC2NodeClass changed ×2,000 on 100 clusters: AMI alias a -> b`. */
function groupLine(g: ChangeGroup, mark = true): string {
  const where = g.clusters.length === 1 ? (g.clusters[0] === FLEET ? 'the fleet (argocd/)' : `cluster ${g.clusters[0]}`) : `${plural(g.clusters.length, 'cluster')}`;
  return `${mark ? `${RISK_LABELS[g.risk].mark} ` : ''}${g.title} ×${g.members.length.toLocaleString('en-US')} on ${where}: ${g.what}`;
}

/** The fleet summary of a report: what to approve, the rollout of what replaces nodes, when each change happens; and the timeline they share. */
interface FleetSummary {
  readonly approve: string[];
  readonly rollout: string[];
  readonly when: string[];
  readonly groups: ChangeGroup[];
  /** @default - none: no head plan to time the changes with */
  readonly timeline?: RolloutTimeline;
}

/**
 * The fleet summary, first in every report: what to approve (the changes grouped); for each
 * group that replaces or drains nodes, when it reaches each stage and window and how it is
 * paced; and, cluster by cluster, when the rest happens (removals, additions, windows, the
 * controller and CRDs, pools). Lines without markup; `bullet` starts each item.
 */
function fleetSummary(review: Review, fleet: FleetContext | undefined, bullet: string): FleetSummary {
  const order = fleet?.data.clusters.map((c) => c.id) ?? [];
  const groups = groupChanges(review.changes, order);
  const approve = groups.map((g) => `${bullet}${groupLine(g)}${g.why ? ` — ${g.why}` : ''}`);
  const rollout: string[] = [];
  // One timeline for the whole pull request: one promotion carries all of it, stage by stage.
  const timeline = fleet ? new RolloutTimeline(fleet.data, fleet.at, review.changes, review.clusters) : undefined;
  if (timeline) {
    // The changes that replace nodes: where, when and how fast (a drain is not paced: a person confirms it).
    for (const g of groups.filter((x) => x.risk === 'replaces-nodes')) {
      rollout.push(`${bullet}${groupLine(g, true)}:`);
      for (const s of rolloutSteps(g, timeline)) {
        const stage = s.stage === null ? 'no stage' : `stage ${s.stage}`;
        rollout.push(`${bullet.replace(/\S/g, ' ')}  ${stage}, ${s.window ? `window ${s.window}` : 'no window'}: ${plural(s.clusters.length, 'cluster')} (${someNames(s.clusters)}), ${s.members.toLocaleString('en-US')} of its resources: `
          + `${s.manual ? '' : 'synced '}${s.synced}; drifted nodes replaced ${s.drift}; paced by ${stepPacing(g, s, timeline.data) || 'the pools\' budgets'}`);
      }
    }
  }
  const when = whenLines(review, timeline).map((l) => `${bullet}${l}`);
  return { approve, rollout, when, groups, ...(timeline ? { timeline } : {}) };
}

/** The title of the "when" section: in a staged fleet, how a later stage's estimate is made. */
function whenTitle(timeline: RolloutTimeline | undefined): string {
  const staged = timeline?.stages().some((s) => s.estimated) === true;
  return `When each change happens, by cluster${staged ? ' (a later stage starts no earlier than the stage before\'s estimated finish plus its soak)' : ''}:`;
}

/**
 * The report for a terminal: the counts per class across the fleet, then one block
 * per cluster (loudest first), each change on one line with its class marker and
 * what happens, its fields below it with why each falls in its class.
 */
export function terminalReport(review: Review, base: string, options: TerminalOptions = {}): string {
  const summary = fleetSummary(review, options.fleet, '  ');
  // Times only when the report has a rollout to time (quiet when nothing changes nodes).
  const lines = [`karpenter-gitops diff: ${base} -> working tree${(summary.rollout.length || summary.when.length) && options.fleet ? ` (times from the head commit, ${whenText(options.fleet.at)})` : ''}`];
  const cost = [
    ...(review.costs?.length ? [COST_TITLE + ':', ...costLines(review.costs, options.fleet?.data.clusters).map((l) => `  ${l}`), ''] : []),
    ...(review.notes ?? []).map((n) => `note: ${n}`),
  ];
  if (review.changes.length === 0 && review.clusters.length === 0) return `${lines[0]}\nno changes to the generated resources\n${cost.join('\n')}`;
  lines.push(counts(review.changes), '');
  lines.push(`To approve (${plural(summary.groups.length, 'change')}, each on every resource it names below):`, ...summary.approve, '');
  if (summary.rollout.length) lines.push('Rollout, change by change (stage, window, pacing):', ...summary.rollout, '');
  if (summary.when.length) lines.push(whenTitle(summary.timeline), ...summary.when, '');
  lines.push('Every change, by cluster:', '');
  for (const group of groups(review)) {
    lines.push(`${groupTitle(group)}: ${groupCounts(group.changes, false)}`);
    if (group.event?.note) lines.push(`  note: ${group.event.note}`);
    for (const c of group.changes) {
      const what = `${RISK_LABELS[c.risk].mark} ${describe(c.resource)} ${c.action}`;
      lines.push(`  ${options.style ? options.style(c.risk, what) : what}: ${c.why}`);
      if (c.pacedBy) lines.push(`      paced by ${c.pacedBy}`);
      const shown = options.full ? c.fields : c.fields.slice(0, MAX_FIELDS);
      for (const f of shown) lines.push(`      ${f.text} — ${f.why}`);
      if (shown.length < c.fields.length) lines.push(`      ... ${c.fields.length - shown.length} more fields (--full lists them)`);
    }
    lines.push('');
  }
  // Cost last: what the PR lets each team spend, after what it does to the clusters.
  return [...lines, ...cost].join('\n');
}

/** Marks the PR comment so the workflow updates one comment instead of adding one per push. */
export const COMMENT_MARKER = '<!-- karpenter-gitops-diff -->';

/** GitHub refuses comments over 65,536 characters; the report keeps a margin below it. */
export const MAX_COMMENT_CHARS = 60_000;

/** Options of {@link markdownReport}. */
export interface MarkdownOptions {
  /** Longest report; a longer one is summarised. @default MAX_COMMENT_CHARS */
  readonly maxChars?: number;
  /** Where the full report is (the workflow run's artifacts), linked from a summarised report. @default - no link */
  readonly fullReportUrl?: string;
  /** List every changed field in an unshortened report. @default false */
  readonly full?: boolean;
  /** The head's plan and time, for the rollout and its diagram. @default - no rollout section */
  readonly fleet?: FleetContext;
}

/**
 * The report as a PR comment, always within `maxChars` (GitHub refuses a comment over 65,536
 * characters): the counts; what to approve, one line per group of identical changes; the
 * rollout of each change that replaces nodes, stage by stage, with a Mermaid Gantt chart of
 * when it can replace nodes; the cost ceilings; then every change by cluster (folded) as long as
 * it fits — shortened to the destructive changes, then to counts, then cut, with a note that
 * says where the full report is.
 */
export function markdownReport(review: Review, base: string, options: MarkdownOptions = {}): string {
  const max = options.maxChars ?? MAX_COMMENT_CHARS;
  const head = [COMMENT_MARKER, `### karpenter-gitops: what this PR does to the clusters (vs \`${base}\`)`, ''];
  const cost = [
    ...(review.costs?.length ? [`**${COST_TITLE}:**`, '', ...costLines(review.costs, options.fleet?.data.clusters).map((l) => `- ${l}`), ''] : []),
    ...(review.notes ?? []).flatMap((n) => [`> note: ${n}`, '']),
  ];
  if (review.changes.length === 0 && review.clusters.length === 0) return [...head, 'No change to any generated resource.', '', ...cost].join('\n');
  head.push(counts(review.changes), '');
  const summary = fleetSummary(review, options.fleet, '- ');
  const note = [
    '> The full report (every resource, every field): '
      + `${options.fullReportUrl ? `[the workflow run's \`karpenter-diff\` artifact](${options.fullReportUrl}), or ` : ''}\`npm run diff -- --base ${base} --full\` locally.`,
    '',
  ];
  const gantt = summary.timeline && summary.rollout.length ? ['```mermaid', rolloutGantt(summary.groups, summary.timeline), '```', ''] : [];
  const rolloutTitle = options.fleet ? `**Rollout** (times from the head commit, ${whenText(options.fleet.at)}):` : '';
  const whenTitleMd = `**${whenTitle(summary.timeline).replace(/:$/, '')}**${options.fleet ? ` (times from the head commit, ${whenText(options.fleet.at)})` : ''}:`;
  // What must always be there, cut to fit when a PR has very many distinct changes.
  const fixed = (approve: string[], rollout: string[], when: string[]) => [
    ...head,
    `**To approve** (${plural(summary.groups.length, 'change')}, each on every resource it names):`, '', ...approve.map(cell2), '',
    ...(rollout.length ? [rolloutTitle, '', ...rollout.map(cell2), '', ...gantt] : []),
    ...(when.length ? [whenTitleMd, '', ...when.map(cell2), ''] : []),
    ...cost,
  ];
  let approve = summary.approve;
  let rollout = summary.rollout;
  let when = summary.when;
  const room = () => max - [...fixed(approve, rollout, when), '<details><summary>Every change, by cluster</summary>', '', '</details>', '', ...note].join('\n').length;
  // Keep the first items of the longest list until the rest fits: a PR of thousands of distinct changes.
  while (room() < 0 && (approve.length > 1 || rollout.length > 1 || when.length > 1)) {
    const longest = Math.max(approve.length, rollout.length, when.length);
    if (approve.length === longest) approve = [...approve.slice(0, Math.floor(approve.length / 2)), `- … ${summary.approve.length - Math.floor(approve.length / 2)} more (see the full report)`];
    else if (rollout.length === longest) rollout = [...rollout.slice(0, Math.floor(rollout.length / 2)), `- … more steps (see the full report)`];
    else when = [...when.slice(0, Math.floor(when.length / 2)), `- … more clusters (see the full report)`];
    if (approve.length <= 2 && rollout.length <= 2 && when.length <= 2) break;
  }
  const all = groups(review);
  let detail: string[] = [];
  for (const level of [0, 1, 2] as const) {
    const body = all.flatMap((g) => section(g, level, options.full ?? false));
    if (body.join('\n').length + 1 <= room()) {
      detail = body;
      break;
    }
  }
  if (detail.length === 0) {
    // Even the counts of every cluster are too long: the destructive rows that fit, then the count of the rest.
    let budget = room() - 200;
    let hidden = 0;
    const fits = (row: string) => {
      if (row.length + 1 > budget) {
        hidden++;
        return false;
      }
      budget -= row.length + 1;
      return true;
    };
    const destructive = all.filter((g) => g.changes.some((c) => c.risk === 'destructive'));
    detail = [...destructive.flatMap((g) => section(g, 2, false, fits)).filter(() => budget > 0),
      ...(hidden > 0 ? [`> … ${hidden} more destructive change(s): see the full report`, ''] : []),
      ...(destructive.length < all.length ? [`> … the changes of ${plural(all.length - destructive.length, 'more cluster')}: see the full report`, ''] : [])];
  }
  // A small change's detail is shown open; a fleet-wide one's folded, under the summary.
  const open = review.changes.length <= 50 ? ' open' : '';
  const text = [...fixed(approve, rollout, when), `<details${open}><summary>Every change, by cluster</summary>`, '', ...detail, '</details>', '', ...note].join('\n');
  return text.length <= max ? text : `${text.slice(0, max - 200)}\n\n> … cut to fit a GitHub comment: see the full report\n`;
}

/** A summary line made safe for markdown (no HTML from user text). */
function cell2(line: string): string {
  return line.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/ -&gt; /g, ' → ');
}

/** The changes of one cluster (or of the fleet), with the cluster's own addition or removal. */
interface Group {
  readonly cluster: string;
  readonly event?: ClusterChange;
  readonly changes: readonly Change[];
}

/** The review's changes by cluster, in its order; a cluster added or removed has a group even if nothing else names it. */
function groups(review: Review): Group[] {
  const out = new Map<string, Change[]>();
  for (const c of review.changes) {
    const list = out.get(c.resource.cluster);
    if (list) list.push(c);
    else out.set(c.resource.cluster, [c]);
  }
  for (const e of review.clusters) if (!out.has(e.cluster)) out.set(e.cluster, []);
  return [...out].map(([cluster, changes]) => ({ cluster, changes, event: review.clusters.find((e) => e.cluster === cluster) }));
}

function groupTitle(g: Group): string {
  if (g.cluster === FLEET) return 'fleet (no one cluster: argocd/)';
  return `cluster ${g.cluster}${g.event ? ` (${g.event.action})` : ''}`;
}

const TABLE_HEAD = '| | resource | what happens | changes |';
const TABLE_RULE = '|---|---|---|---|';

/**
 * The lines of one cluster: a table with fields (level 0), fields of destructive changes
 * only (1), or counts for all but destructive changes (2), whose rows are kept while `keep` says so.
 */
function section(g: Group, level: 0 | 1 | 2, full: boolean, keep: (row: string) => boolean = () => true): string[] {
  const title = g.cluster === FLEET ? 'Fleet (no one cluster: `argocd/`)' : `Cluster \`${g.cluster}\`${g.event ? ` (${g.event.action})` : ''}`;
  const lines = [`#### ${title}: ${groupCounts(g.changes, true) || 'no resource changes'}`, ''];
  if (g.event?.note) lines.push(`> ${cell(g.event.note)}`, '');
  if (level === 2) {
    const counted: string[] = [];
    for (const risk of RISKS.filter((r) => r !== 'destructive')) {
      const inRisk = g.changes.filter((c) => c.risk === risk);
      if (inRisk.length === 0) continue;
      const kinds = new Map<string, number>();
      for (const c of inRisk) {
        const kind = `${nameOf(c.resource).kind} ${c.action}`;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      counted.push(`- ${RISK_LABELS[risk].mark} ${risk}: ${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')}`);
    }
    if (counted.length) lines.push(...counted, '');
  }
  const rows = (level === 2 ? g.changes.filter((c) => c.risk === 'destructive') : g.changes)
    .map((c) => row(c, level === 0 || c.risk === 'destructive', full)).filter((r) => keep(r));
  if (rows.length === 0) return lines;
  return [...lines, TABLE_HEAD, TABLE_RULE, ...rows, ''];
}

function row(c: Change, showFields: boolean, full: boolean): string {
  const shown = !showFields ? [] : full ? c.fields : c.fields.slice(0, MAX_FIELDS);
  const fields = shown.map((f) => cell(`${f.text} — ${f.why}`));
  if (showFields && shown.length < c.fields.length) fields.push(`… ${c.fields.length - shown.length} more`);
  if (!showFields && c.fields.length) fields.push(`${c.fields.length} field(s)`);
  const why = c.pacedBy ? `${c.why}; paced by ${c.pacedBy}` : c.why;
  const { kind, name } = nameOf(c.resource);
  return `| ${RISK_LABELS[c.risk].mark} | ${kind} \`${name}\` ${c.action} | ${cell(why)} | ${fields.join('<br>') || '-'} |`;
}

/** `2 destructive, 0 replaces-nodes, 1 capacity, 0 access, 0 controller, 3 other`: every class, across the fleet. */
function counts(changes: readonly Change[]): string {
  const n = new Map<Risk, number>();
  for (const c of changes) n.set(c.risk, (n.get(c.risk) ?? 0) + 1);
  return RISKS.map((r) => `${n.get(r) ?? 0} ${r}`).join(', ');
}

/** The classes a cluster has changes in: `2 destructive, 1 other` (with markers in markdown). */
function groupCounts(changes: readonly Change[], marks: boolean): string {
  return RISKS.map((r) => [r, changes.filter((c) => c.risk === r).length] as const)
    .filter(([, n]) => n > 0).map(([r, n]) => `${marks ? `${RISK_LABELS[r].mark} ` : ''}${n} ${r}`).join(', ');
}

/** Text safe in a table cell: no pipes or line breaks, and no HTML (userData may hold `<powershell>`); arrows drawn. */
function cell(text: string): string {
  return text.replace(/ -> /g, ' → ').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
