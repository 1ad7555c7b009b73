/**
 * Cost ceilings at both refs, read from each ref's `dist/summary.json` (the plan as data): the
 * review reads generated output only, so what a base ref allowed a team to spend is what its
 * committed summary says, with the prices and ceiling function of that ref. Amounts are
 * compared as numbers (to 1/10000 of a dollar), shown to the cent.
 */
import { ceilingCell, usd } from '../model/cost';
import type { SummaryDataTeam } from '../model/summary-data';
import { summaryDataOf } from './summary-data';
import type { GeneratedTree } from './tree';

/** A team whose ceiling changes between the refs. */
export interface CostChange {
  readonly team: string;
  /** Cluster ids (either side), then `total`. */
  readonly columns: readonly string[];
  /** Each column as shown: `$12.34`, `unbounded` or `-` (no pool there). */
  readonly before: ReadonlyMap<string, string>;
  readonly after: ReadonlyMap<string, string>;
  /** Each column as an amount (USD per hour; null: unbounded; absent: no pool there), to sum a set of clusters' change. */
  readonly amounts: { readonly before: ReadonlyMap<string, number | null>; readonly after: ReadonlyMap<string, number | null> };
  readonly budget: string;
  /** Whether the total rises (or turns unbounded, or the team is new with a ceiling). */
  readonly rises: boolean;
}

/** A team's ceilings as amounts: per cluster id and `total`; null: unbounded. */
type Ceilings = Map<string, number | null>;

/** Each team's ceilings in a tree (and `all teams`, per cluster and in total), or undefined when its summary data cannot be read. */
function ceilingsOf(tree: GeneratedTree): { teams: Map<string, Ceilings>; budgets: Map<string, string> } | undefined {
  const read = summaryDataOf(tree);
  if (!('data' in read)) return undefined;
  const teams = new Map<string, Ceilings>();
  const budgets = new Map<string, string>();
  const all: Ceilings = new Map();
  const add = (into: Ceilings, key: string, v: number | null) => {
    const was = into.get(key);
    into.set(key, was === null || v === null ? null : (was ?? 0) + v);
  };
  for (const t of read.data.teams) {
    const ceilings: Ceilings = new Map(Object.entries(t.perCluster));
    ceilings.set('total', t.total);
    teams.set(t.team, ceilings);
    budgets.set(t.team, budgetText(t));
    for (const [cluster, v] of Object.entries(t.perCluster)) add(all, cluster, v);
    add(all, 'total', t.total);
  }
  teams.set('all teams', all);
  return { teams, budgets };
}

const cell = ceilingCell;

/** A team's budgets as the review says them: `$40.00` (every cluster), `group prod $40.00`, both, or `-`. */
function budgetText(t: SummaryDataTeam): string {
  const parts = [
    ...(t.budgetPerHour === null ? [] : [usd(t.budgetPerHour)]),
    ...(t.groupBudgets ?? []).map((b) => `group ${b.group} ${usd(b.perHour)}`),
  ];
  return parts.length ? parts.join(', ') : '-';
}

/** An amount to compare: Infinity for unbounded, 0 for none. */
function amount(v: number | null | undefined): number {
  return v === undefined ? 0 : v === null ? Infinity : v;
}

/** The teams (and `all teams`) whose ceilings differ between base and head, in head's order then base's. */
export function costChanges(base: GeneratedTree, head: GeneratedTree): CostChange[] {
  const was = ceilingsOf(base);
  const now = ceilingsOf(head);
  // A base generated before the summary data existed has none: nothing to compare, not a rise.
  if (!was || !now) return [];
  const teams = [...new Set([...now.teams.keys(), ...was.teams.keys()])];
  const out: CostChange[] = [];
  for (const team of teams) {
    const b = was.teams.get(team) ?? new Map<string, number | null>();
    const a = now.teams.get(team) ?? new Map<string, number | null>();
    const columns = [...new Set([...a.keys(), ...b.keys()].filter((k) => k !== 'total')), 'total'];
    if (columns.every((c) => b.get(c) === a.get(c))) continue;
    const shown = (m: Ceilings) => new Map(columns.map((c) => [c, cell(m.get(c))]));
    const budget = now.budgets.get(team) ?? was.budgets.get(team) ?? '-';
    out.push({
      team, columns, before: shown(b), after: shown(a), amounts: { before: b, after: a },
      budget,
      rises: amount(a.get('total')) > amount(b.get('total')),
    });
  }
  return out;
}

/** The words the review shows its ceilings with. */
export const COST_TITLE = 'Cost ceilings per hour (ceiling at us-east-1 on-demand list price after NodeOverlays, not a forecast)';
