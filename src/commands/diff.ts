import type { Colour } from '../command-line/colour';
import { review } from '../review/changes';
import { commitOf, commitTime, treeAt } from '../review/git';
import { markdownReport, terminalReport } from '../review/report';
import { atLeast, Risk } from '../review/risk';
import { summaryDataOf } from '../review/summary-data';
import { GeneratedTree } from '../review/tree';
import { stageAdoptionLine, stageAdoptions } from '../review/windows';
import { build, Options } from './build';
import { EXIT, Reporter } from './reporter';

/** Colour of the line of each class of change in `diff`. */
const RISK_COLOURS: Partial<Record<Risk, Colour>> = { 'destructive': 'red', 'replaces-nodes': 'yellow', 'capacity': 'cyan', 'access': 'bold', 'controller': 'magenta' };

/** What `diff` is asked for. */
export interface DiffOptions {
  /** The git ref to compare with. */
  readonly base: string;
  readonly format: 'terminal' | 'markdown';
  /** Every changed field, not the first few of each resource. */
  readonly full: boolean;
  /** Exit {@link EXIT.gate} when a change of this class or a louder one is reported. @default - always exit 0 */
  readonly failOn?: Risk | 'cost';
  /** Where the full report is, linked from a shortened PR comment. @default - no link */
  readonly reportUrl?: string;
}

/**
 * What a PR changes: the output committed at `base` against a fresh synth of the
 * working tree. Only the files whose text differs are read from git and parsed.
 */
export async function diff(say: Reporter, options: Options, diffOptions: DiffOptions): Promise<number> {
  const { files } = await build(say, options);
  const before = treeAt(diffOptions.base, options.root, files);
  const baseTree = new GeneratedTree(before, diffOptions.base);
  const headTree = new GeneratedTree(files, 'the working tree');
  const reviewed = review(baseTree, headTree);
  // A cluster moving onto a stage ref (docs/windows.md), said with the report, at its head.
  const baseCommit = commitOf(diffOptions.base, options.root) ?? diffOptions.base;
  const adoptions = stageAdoptions(baseTree, headTree).map((a) => stageAdoptionLine(a, commitOf(a.ref, options.root), baseCommit));
  const result = adoptions.length ? { ...reviewed, notes: [...adoptions, ...(reviewed.notes ?? [])] } : reviewed;
  // The rollout is counted from the head commit's time, not this machine's clock (docs/review.md).
  const data = summaryDataOf(headTree);
  const fleet = 'data' in data ? { data: data.data, at: commitTime('HEAD', options.root) ?? new Date() } : undefined;
  const style = (risk: Risk, text: string) => {
    const colour = RISK_COLOURS[risk];
    return colour ? say.paintOut(colour, text) : text;
  };
  say.out(diffOptions.format === 'markdown'
    ? markdownReport(result, diffOptions.base, { fullReportUrl: diffOptions.reportUrl, full: diffOptions.full, fleet })
    : terminalReport(result, diffOptions.base, { full: diffOptions.full, style, fleet }));
  const gate = diffOptions.failOn;
  if (gate === 'cost') {
    // A PR that lets a team spend more needs the same explicit approval as a drain (docs/cost.md).
    const rises = (result.costs ?? []).filter((c) => c.rises && c.team !== 'all teams');
    if (rises.length === 0) return EXIT.ok;
    say.err(`karpenter-gitops diff: --fail-on cost: the ceiling of ${rises.map((c) => `team ${c.team}`).join(', ')} rises`);
    return EXIT.gate;
  }
  if (gate !== undefined && result.changes.some((c) => atLeast(c.risk, gate))) {
    say.err(`karpenter-gitops diff: --fail-on ${gate}: the report holds ${result.changes.filter((c) => atLeast(c.risk, gate)).length} change(s) of class ${gate} or louder`);
    return EXIT.gate;
  }
  return EXIT.ok;
}

