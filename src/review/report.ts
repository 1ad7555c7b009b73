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

/** The report as a PR comment: a summary line, then a table per risk class. */
export function markdownReport(changes: readonly Change[], base: string): string {
  const lines = [COMMENT_MARKER, `### karpenter-gitops: what this PR does to the clusters (vs \`${base}\`)`, ''];
  if (changes.length === 0) return [...lines, 'No change to any generated resource.', ''].join('\n');
  lines.push(counts(changes), '');
  for (const risk of RISKS) {
    const inRisk = changes.filter((c) => c.risk === risk);
    if (inRisk.length === 0) continue;
    lines.push(`#### ${RISK_LABELS[risk].mark} ${RISK_LABELS[risk].title} (${inRisk.length})`, '');
    lines.push('| resource | cluster | what happens | fields |', '|---|---|---|---|');
    for (const c of inRisk) {
      const fields = c.fields.slice(0, MAX_FIELDS).map((f) => `\`${f.path}\`: ${code(f.before)} → ${code(f.after)}`);
      if (c.fields.length > MAX_FIELDS) fields.push(`… ${c.fields.length - MAX_FIELDS} more`);
      const why = c.pacedBy ? `${c.why}; paced by ${c.pacedBy}` : c.why;
      lines.push(`| ${c.resource.kind} \`${c.resource.name}\` (${c.action}) | ${c.resource.cluster || '-'} | ${cell(why)} | ${cell(fields.join('<br>')) || '-'} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
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
