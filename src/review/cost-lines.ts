/**
 * The review's cost lines, grouped as it groups changes (contract 8.2): for each team whose
 * ceiling changes, the clusters whose ceiling changes alike are one set, said by what they are
 * (`group prod (80 clusters) $53.56 -> $60.00 each (+$515.20 in all)`), then the total and the
 * budget. A set of one cluster keeps its name: `prod $1.29 -> $2.58`.
 */
import { ClusterTags, count, describeClusters, someNames } from '../model/cluster-sets';
import { usd } from '../model/cost';
import type { CostChange } from './cost';

/** Most sets of clusters a line names; the clusters of the rest are counted. */
const MAX_SETS = 5;

/**
 * One line per change: `▲ team web: group prod (80 clusters) $1.29 -> $2.58 each (+$103.20 in
 * all), total $1.29 -> $104.49; budget $40.00`; the largest set first.
 * @param fleet the head's clusters (`dist/summary.json`), to name a set by its group or stage.
 * @default [] - sets are named by their first clusters
 */
export function costLines(changes: readonly CostChange[], fleet: readonly ClusterTags[] = []): string[] {
  return changes.map((c) => {
    const shown = (side: ReadonlyMap<string, string>, k: string) => side.get(k) ?? '-';
    const alike = new Map<string, string[]>();
    for (const k of c.columns) {
      if (k === 'total' || shown(c.before, k) === shown(c.after, k)) continue;
      const key = `${shown(c.before, k)} -> ${shown(c.after, k)}`;
      alike.set(key, [...(alike.get(key) ?? []), k]);
    }
    const sets = [...alike.values()].sort((a, b) => b.length - a.length);
    const named = sets.length > MAX_SETS ? sets.slice(0, MAX_SETS - 1) : sets;
    const rest = sets.slice(named.length).flat();
    const cells = [
      ...named.map((ids) => setText(c, ids, fleet)),
      ...(rest.length ? [`${count(rest.length, 'more cluster')} otherwise (${someNames(rest)})`] : []),
      `total ${shown(c.before, 'total')} -> ${shown(c.after, 'total')}`,
    ];
    const who = c.team === 'all teams' ? 'all teams' : `team ${c.team}`;
    return `${c.rises ? '▲' : '▼'} ${who}: ${cells.join(', ')}${c.team === 'all teams' ? '' : `; budget ${c.budget}`}`;
  });
}

/** One set of clusters whose ceiling changes alike: `prod $1 -> $2`, or `group prod (80 clusters) $1 -> $2 each (+$80.00 in all)`. */
function setText(c: CostChange, ids: readonly string[], fleet: readonly ClusterTags[]): string {
  const change = `${c.before.get(ids[0]) ?? '-'} -> ${c.after.get(ids[0]) ?? '-'}`;
  if (ids.length === 1) return `${ids[0]} ${change}`;
  // In the fleet's order, so that a set is named as the fleet lists it.
  const order = new Map(fleet.map((x, i) => [x.id, i]));
  const sorted = [...ids].sort((a, b) => (order.get(a) ?? order.size) - (order.get(b) ?? order.size));
  const where = describeClusters(sorted, fleet);
  const deltas = ids.map((id) => {
    const [before, after] = [c.amounts.before.get(id), c.amounts.after.get(id)];
    return before === null || after === null ? null : (after ?? 0) - (before ?? 0);
  });
  const delta = deltas.some((d) => d === null) ? undefined : (deltas as number[]).reduce((a, b) => a + b, 0);
  const inAll = delta === undefined || usd(Math.abs(delta)) === usd(0) ? '' : ` (${delta > 0 ? '+' : '-'}${usd(Math.abs(delta))} in all)`;
  return `${where} ${change} each${inAll}`;
}
