import { FieldPath } from '../input/problems';
import { PoolFields } from './schema';
import { isPlainMap } from '../input/user-map';

/** One level of an inheritance chain: its fields and where they sit in platform.yaml. */
export interface Layer<T = PoolFields> {
  /** The fields this level sets. */
  readonly fields: T;
  /** Path of this level in platform.yaml (`['defaults']`, `['teams', 'web']`, ...). */
  readonly at: FieldPath;
}

/**
 * Fields after inheritance, plus a way back to the line that set each value,
 * so errors about a merged value point at the level that set it.
 */
export interface MergedFields<T = PoolFields> {
  /** The merged fields (built-in defaults not yet applied). */
  readonly fields: T;
  /** The platform.yaml path that set the value at a path of `fields`, or undefined if no level did. */
  origin(path: FieldPath): FieldPath | undefined;
  /** The index of the layer that set the value at a path (the most specific level wins), or -1 if none did. */
  levelOf(path: FieldPath): number;
}

/** Pool fields that are one unit: a level that sets them replaces the inherited value whole. */
const UNITS = new Set(['ami']);

/**
 * Merges the levels, lowest first: maps merge key by key; lists, scalars and
 * `ami` replace (contract section 1).
 */
export function mergeLayers<T = PoolFields>(layers: readonly Layer<T>[]): MergedFields<T> {
  const origins = new Map<string, FieldPath>();
  let merged: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const layer of layers) {
    merged = mergeInto(merged, layer.fields as unknown as Record<string, unknown>, [], layer.at, origins);
  }
  const origin = (path: FieldPath): FieldPath | undefined => {
    for (let n = path.length; n >= 1; n--) {
      const base = origins.get(key(path.slice(0, n)));
      if (base) return [...base, ...path.slice(n)];
    }
    return undefined;
  };
  return {
    fields: merged as T,
    origin,
    levelOf(path) {
      const from = origin(path);
      if (!from) return -1;
      let best = -1;
      layers.forEach((layer, i) => {
        const inside = layer.at.every((seg, j) => from[j] === seg);
        if (inside && (best < 0 || layer.at.length >= layers[best].at.length)) best = i;
      });
      return best;
    },
  };
}

function mergeInto(
  target: Record<string, unknown>, source: Record<string, unknown>, path: FieldPath, at: FieldPath, origins: Map<string, FieldPath>,
): Record<string, unknown> {
  // No prototype: a key such as `__proto__` or `constructor` is set like any other.
  const out: Record<string, unknown> = Object.assign(Object.create(null) as Record<string, unknown>, target);
  for (const [k, v] of Object.entries(source)) {
    if (v === undefined) continue;
    const here = [...path, k];
    const from = [...at, k];
    const prev = out[k];
    if (isMap(v) && isMap(prev) && !(path.length === 0 && UNITS.has(k))) {
      // The keys of the map this level merges into keep the origin they had.
      const before = origins.get(key(here));
      for (const child of Object.keys(prev)) {
        if (before && !origins.has(key([...here, child]))) origins.set(key([...here, child]), [...before, child]);
      }
      origins.set(key(here), from);
      out[k] = mergeInto(prev, v, here, from, origins);
    } else {
      origins.set(key(here), from);
      // Replaced whole: forget the origins of whatever was below the old value (only a map has any:
      // lists and scalars are never merged into).
      if (isMap(prev)) for (const o of [...origins.keys()]) if (o.startsWith(`${key(here)}\u0000`)) origins.delete(o);
      out[k] = v;
    }
  }
  return out;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return isPlainMap(v);
}

function key(path: FieldPath): string {
  return path.join('\u0000');
}
