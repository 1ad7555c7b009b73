/**
 * Cost ceilings at both refs, read back from `dist/SUMMARY.md`'s cost table (as the Kubernetes
 * version is): the review reads generated output only, so what a base ref allowed a team to
 * spend is what its committed SUMMARY says, with the prices and ceiling function of that ref.
 */
import type { GeneratedTree } from './tree';

/** The summary file the cost table is in. */
const SUMMARY_FILE = 'dist/SUMMARY.md';
/** The table's heading (src/model/cost.ts COST_HEADING). */
const COST_HEADING = '## Cost ceilings';

/** A team's ceiling as a SUMMARY states it: per cluster and `total`, each `$12.34`, `unbounded` or `-`. */
export interface CostRow {
  readonly team: string;
  /** Cell text per cluster id, and under `total`. */
  readonly cells: ReadonlyMap<string, string>;
  /** `$40.00`, or `-` for none. */
  readonly budget: string;
}

/** A team whose ceiling changes between the refs. */
export interface CostChange {
  readonly team: string;
  /** Cluster ids (either side), then `total`. */
  readonly columns: readonly string[];
  readonly before: ReadonlyMap<string, string>;
  readonly after: ReadonlyMap<string, string>;
  readonly budget: string;
  /** Whether the total rises (or turns unbounded, or the team is new with a ceiling). */
  readonly rises: boolean;
}

/** The cost table of a tree's SUMMARY.md, by team (`all teams` included). */
export function costTable(tree: GeneratedTree): Map<string, CostRow> {
  const out = new Map<string, CostRow>();
  const lines = (tree.files.get(SUMMARY_FILE) ?? '').split('\n');
  const start = lines.indexOf(COST_HEADING);
  if (start < 0) return out;
  let header: string[] | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('## ')) break;
    if (!line.startsWith('|') || /^\|[-:|]+\|$/.test(line)) continue;
    const cells = line.slice(1, -1).split('|').map((c) => c.trim().replace(/`/g, ''));
    if (!header) {
      header = cells;
      continue;
    }
    const map = new Map<string, string>();
    header.slice(1, -1).forEach((h, i) => map.set(h, cells[i + 1]));
    out.set(cells[0], { team: cells[0], cells: map, budget: cells[cells.length - 1] });
  }
  return out;
}

/** USD of a cell: a number, Infinity for `unbounded`, 0 for `-` or a missing cell. */
function amount(cell: string | undefined): number {
  if (cell === undefined || cell === '-') return 0;
  if (cell === 'unbounded') return Infinity;
  return Number(cell.replace('$', ''));
}

/** The teams (and `all teams`) whose ceilings differ between base and head, in head's order then base's. */
export function costChanges(base: GeneratedTree, head: GeneratedTree): CostChange[] {
  const was = costTable(base);
  const now = costTable(head);
  // A base generated before cost ceilings existed has no table: nothing to compare, not a rise.
  if (was.size === 0) return [];
  const teams = [...new Set([...now.keys(), ...was.keys()])];
  const out: CostChange[] = [];
  for (const team of teams) {
    const b = was.get(team)?.cells ?? new Map<string, string>();
    const a = now.get(team)?.cells ?? new Map<string, string>();
    const columns = [...new Set([...a.keys(), ...b.keys()].filter((k) => k !== 'total')), 'total'];
    if (columns.every((c) => (b.get(c) ?? '-') === (a.get(c) ?? '-'))) continue;
    out.push({
      team, columns, before: b, after: a,
      budget: now.get(team)?.budget ?? was.get(team)?.budget ?? '-',
      rises: amount(a.get('total')) > amount(b.get('total')),
    });
  }
  return out;
}

/** One line per change, the clusters whose ceiling changes then the total: `▲ team web: demo $1.29 -> $2.58, total $1.29 -> $2.58; budget $40.00`. */
export function costLines(changes: readonly CostChange[]): string[] {
  return changes.map((c) => {
    // The clusters where the ceiling changes, then the total (always).
    const cells = c.columns.filter((k) => k === 'total' || (c.before.get(k) ?? '-') !== (c.after.get(k) ?? '-'))
      .map((k) => `${k} ${c.before.get(k) ?? '-'} -> ${c.after.get(k) ?? '-'}`);
    const who = c.team === 'all teams' ? 'all teams' : `team ${c.team}`;
    return `${c.rises ? '▲' : '▼'} ${who}: ${cells.join(', ')}${c.team === 'all teams' ? '' : `; budget ${c.budget}`}`;
  });
}

/** The words the review shows its ceilings with. */
export const COST_TITLE = 'Cost ceilings per hour (ceiling at us-east-1 on-demand list price, not a forecast)';
