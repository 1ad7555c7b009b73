import { Change, FieldChange, Risk, RISKS } from './changes';

/** Title and marker of each risk class, loudest first. */
export const RISK_LABELS: Record<Risk, { readonly title: string; readonly mark: string }> = {
  'destructive': { title: 'DESTRUCTIVE: deletes pools, drains every node of them', mark: '🛑' },
  'replaces-nodes': { title: 'REPLACES NODES: Karpenter drift, paced by disruption budgets', mark: '♻️' },
  'capacity': { title: 'CAPACITY: limits, weights, disruption, new pools', mark: '📈' },
  'controller': { title: 'CONTROLLER: chart version or values', mark: '⚙️' },
  'other': { title: 'OTHER', mark: '📝' },
};

/** Most changed fields listed per resource; the rest are counted. */
const MAX_FIELDS = 8;

/** The report for a terminal: one section per risk class that has changes. */
export function terminalReport(changes: readonly Change[], base: string): string {
  const lines = [`karpenter-gitops diff: ${base} -> working tree`];
  if (changes.length === 0) return `${lines[0]}\nno changes to the generated resources\n`;
  lines.push(counts(changes), '');
  for (const risk of RISKS) {
    const inRisk = changes.filter((c) => c.risk === risk);
    if (inRisk.length === 0) continue;
    lines.push(`${RISK_LABELS[risk].title} (${inRisk.length})`);
    for (const c of inRisk) {
      lines.push(`  ${RISK_LABELS[risk].mark} ${label(c)}: ${c.why}`);
      if (c.pacedBy) lines.push(`      paced by ${c.pacedBy}`);
      for (const f of c.fields.slice(0, MAX_FIELDS)) lines.push(`      ${f.path}: ${value(f.before)} -> ${value(f.after)}`);
      if (c.fields.length > MAX_FIELDS) lines.push(`      ... ${c.fields.length - MAX_FIELDS} more fields`);
    }
    lines.push('');
  }
  return lines.join('\n');
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
}

/**
 * The report as a PR comment: a summary line, then a table per risk class. A report too
 * long for a comment is summarised, most detail kept where it matters most: first the
 * field lists go (except for destructive changes), then each quieter class becomes counts
 * per cluster, then the destructive list is cut; a note points at the full report.
 */
export function markdownReport(changes: readonly Change[], base: string, options: MarkdownOptions = {}): string {
  const max = options.maxChars ?? MAX_COMMENT_CHARS;
  const head = [COMMENT_MARKER, `### karpenter-gitops: what this PR does to the clusters (vs \`${base}\`)`, ''];
  if (changes.length === 0) return [...head, 'No change to any generated resource.', ''].join('\n');
  head.push(counts(changes), '');
  const note = [
    '> This report was shortened to fit a GitHub comment. The full report: '
      + `${options.fullReportUrl ? `[the workflow run's \`karpenter-diff\` artifact](${options.fullReportUrl}), or ` : ''}\`npm run diff -- --base ${base}\` locally.`,
    '',
  ];
  for (const level of [0, 1, 2] as const) {
    const text = [...head, ...RISKS.flatMap((risk) => section(changes.filter((c) => c.risk === risk), risk, level)), ...(level > 0 ? note : [])].join('\n');
    if (text.length <= max) return text;
  }
  // Still too long: the destructive rows that fit, then the count of the rest.
  const lines = [...head];
  const rest = RISKS.filter((r) => r !== 'destructive').flatMap((risk) => section(changes.filter((c) => c.risk === risk), risk, 2));
  const destructive = changes.filter((c) => c.risk === 'destructive');
  const budget = max - [...lines, ...rest, ...note].join('\n').length - 200;
  const rows = section(destructive, 'destructive', 1);
  let used = 0;
  let shown = 0;
  for (const row of rows) {
    if (used + row.length + 1 > budget) break;
    lines.push(row);
    used += row.length + 1;
    if (row.startsWith('| ') && !row.startsWith('| resource')) shown++;
  }
  const hidden = destructive.length - shown;
  if (hidden > 0) lines.push(`| … ${hidden} more destructive change(s) | | see the full report | |`, '');
  return [...lines, ...rest, ...note].join('\n');
}

/** The lines of one risk class: a table with fields (level 0), without fields (1), or counts per cluster (2; destructive keeps its table). */
function section(inRisk: readonly Change[], risk: Risk, level: 0 | 1 | 2): string[] {
  if (inRisk.length === 0) return [];
  const lines = [`#### ${RISK_LABELS[risk].mark} ${RISK_LABELS[risk].title} (${inRisk.length})`, ''];
  if (level === 2 && risk !== 'destructive') {
    const byCluster = new Map<string, Map<string, number>>();
    for (const c of inRisk) {
      const kinds = byCluster.get(c.resource.cluster || '-') ?? new Map<string, number>();
      const kind = `${c.resource.kind} ${c.action}`;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      byCluster.set(c.resource.cluster || '-', kinds);
    }
    for (const [cluster, kinds] of byCluster) lines.push(`- cluster ${cluster}: ${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')}`);
    return [...lines, ''];
  }
  lines.push('| resource | cluster | what happens | fields |', '|---|---|---|---|');
  for (const c of inRisk) {
    const showFields = level === 0 || risk === 'destructive';
    const fields = showFields ? c.fields.slice(0, MAX_FIELDS).map((f) => `\`${f.path}\`: ${code(f.before)} → ${code(f.after)}`) : [];
    if (showFields && c.fields.length > MAX_FIELDS) fields.push(`… ${c.fields.length - MAX_FIELDS} more`);
    if (!showFields && c.fields.length) fields.push(`${c.fields.length} field(s)`);
    const why = c.pacedBy ? `${c.why}; paced by ${c.pacedBy}` : c.why;
    lines.push(`| ${c.resource.kind} \`${c.resource.name}\` (${c.action}) | ${c.resource.cluster || '-'} | ${cell(why)} | ${cell(fields.join('<br>')) || '-'} |`);
  }
  return [...lines, ''];
}

function counts(changes: readonly Change[]): string {
  return RISKS.map((r) => `${changes.filter((c) => c.risk === r).length} ${r}`).join(', ');
}

function label(c: Change): string {
  return `${c.resource.kind} ${c.resource.name}${c.resource.cluster ? ` (cluster ${c.resource.cluster})` : ''} ${c.action}`;
}

function value(v: FieldChange['before']): string {
  return v === undefined ? '(unset)' : JSON.stringify(v);
}

function code(v: FieldChange['before']): string {
  return v === undefined ? '_unset_' : `\`${JSON.stringify(v).replace(/`/g, "'")}\``;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
