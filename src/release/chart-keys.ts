import { CHART_VALUES_KEYS } from './chart-values-keys.generated';
import type { ChartKeyNode } from './types';

/** A key in user-supplied chart values that the chart does not define. */
export interface UnknownChartKey {
  /** Full path of the unknown key, e.g. `['settings', 'clusterNmae']`. */
  readonly path: readonly string[];
  /** The keys the chart allows at that level, sorted (empty when the parent is a scalar). */
  readonly known: readonly string[];
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function walk(
  value: unknown,
  node: ChartKeyNode,
  path: readonly string[],
  out: UnknownChartKey[],
): void {
  if (node.freeForm === true || !isPlainObject(value)) return;
  const children = node.children ?? {};
  const known = Object.keys(children).sort();
  for (const key of Object.keys(value)) {
    const keyPath = [...path, key];
    const child = Object.prototype.hasOwnProperty.call(children, key) ? children[key] : undefined;
    if (child === undefined) {
      out.push({ path: keyPath, known });
    } else {
      walk(value[key], child, keyPath, out);
    }
  }
}

/**
 * Lists every key path in `values` (plain chart values, e.g. parsed YAML)
 * that the chart's values do not define, in the order the keys appear.
 *
 * Only plain objects are walked: the walk does not descend into free-form
 * nodes (maps such as `affinity` or `serviceAccount.annotations`, lists),
 * into keys it has just reported as unknown, or into arrays and scalars.
 * An object given where the chart has a scalar has all its keys reported,
 * with an empty `known`.
 *
 * @param values the chart values to check; anything but a plain object yields `[]`.
 * @param tree the key tree to check against; defaults to the bundled chart's.
 * @returns one entry per unknown key, with `known` = the keys allowed at that
 *   level, so the caller can suggest the closest one.
 */
export function unknownChartKeys(
  values: unknown,
  tree: ChartKeyNode = CHART_VALUES_KEYS,
): UnknownChartKey[] {
  const out: UnknownChartKey[] = [];
  walk(values, tree, [], out);
  return out;
}
