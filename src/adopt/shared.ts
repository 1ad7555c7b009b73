/**
 * What the pools of a new adopted team say alike, said once on the team (docs/adopting.md): a
 * field goes to the team with the value most pools say (two at least), when every other pool
 * says the field too, so that its own value, or for a map only the keys that differ, still wins
 * over the team's (src/config/resolve.ts: maps merge key by key, `ami` and lists are replaced
 * whole). So an EC2NodeClass that several pools share has its tags, kubelet and block devices
 * said once, and a pool of another class says only its own.
 */
import type { Fields } from './fields';

/** Pool fields never said on the team: each pool's own. */
const OWN_FIELDS = new Set(['name', 'adopted', 'nodeClass']);

/** Fields replaced whole when merged, though maps. */
const UNITS = new Set(['ami']);

/** The team's fields and each pool's own, in the order of `pools`. */
export function sharedFields(pools: readonly Fields[]): { shared: Fields; own: Fields[] } {
  const shared: Fields = {};
  const own = pools.map((p) => ({ ...p }));
  if (pools.length < 2) return { shared, own };
  const keys = [...new Set(pools.flatMap((p) => Object.keys(p)))].filter((k) => !OWN_FIELDS.has(k));
  for (const key of keys) {
    if (!pools.every((p) => p[key] !== undefined)) continue;
    const counts = new Map<string, { value: unknown; n: number }>();
    for (const p of pools) {
      const c = canonical(p[key]);
      counts.set(c, { value: p[key], n: (counts.get(c)?.n ?? 0) + 1 });
    }
    const [top] = [...counts.values()].sort((a, b) => b.n - a.n);
    if (top.n < 2) continue;
    const deltas = pools.map((p) => (canonical(p[key]) === canonical(top.value) ? { delta: undefined, dropped: [] } : UNITS.has(key) ? { delta: p[key], dropped: [] } : mapDelta(top.value, p[key])));
    if (deltas.some((d) => d.dropped.length)) continue;
    shared[key] = top.value;
    deltas.forEach((d, i) => {
      if (d.delta === undefined) delete own[i][key];
      else own[i][key] = d.delta;
    });
  }
  return { shared, own };
}

/** A pool's fields as its team's and its own merge: maps key by key, `ami` and everything else replaced. */
export function mergedFields(team: Fields, pool: Fields): Fields {
  const out: Fields = { ...team };
  for (const [key, value] of Object.entries(pool)) out[key] = UNITS.has(key) ? value : mergeValue(out[key], value);
  return out;
}

function mergeValue(a: unknown, b: unknown): unknown {
  if (!isPlainObject(a) || !isPlainObject(b)) return b;
  const out: Fields = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = mergeValue(out[k], v);
  return out;
}

/**
 * What map `b` says that map `a` does not say alike, key by key into maps both have, and the
 * keys of `a` that `b` lacks (dotted): merged over `a`, the delta makes `b` when none is lacking.
 */
export function mapDelta(a: unknown, b: unknown, at = ''): { delta: unknown; dropped: string[] } {
  if (!isPlainObject(a) || !isPlainObject(b)) return { delta: b, dropped: [] };
  const dropped = Object.keys(a).filter((k) => !Object.hasOwn(b, k)).map((k) => `${at}${k}`);
  const delta: Fields = {};
  for (const [k, v] of Object.entries(b)) {
    if (canonical(a[k]) === canonical(v)) continue;
    const inner = mapDelta(a[k], v, `${at}${k}.`);
    dropped.push(...inner.dropped);
    delta[k] = inner.delta;
  }
  return { delta, dropped };
}

function isPlainObject(v: unknown): v is Fields {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** JSON with map keys sorted: two values said alike, whatever order their keys were read in. */
export function canonical(v: unknown): string {
  const sorted = (x: unknown): unknown => (Array.isArray(x) ? x.map(sorted)
    : isPlainObject(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sorted(x[k])])) : x);
  return JSON.stringify(sorted(v)) ?? 'undefined';
}
