/**
 * cdk8s cannot render a map key named `constructor` (it checks `obj.constructor.name`) or
 * `__proto__` (its copy assigns it, which sets the prototype). User maps (EC2 tags, node
 * labels, limits) may hold them, so they reach cdk8s escaped and are restored in the
 * rendered JSON. The escape starts with a NUL, which no input may contain.
 */
const ESCAPED = new Map([['constructor', '\u0000constructor'], ['__proto__', '\u0000__proto__']]);
const RESTORED = new Map([...ESCAPED].map(([k, v]) => [v, k]));

/** A copy of `value` in which plain maps (at any depth) have their `constructor`/`__proto__` keys escaped; class instances are left as they are. */
export function escapeKeys<T>(value: T): T {
  return transformKeys(value, ESCAPED) as T;
}

/** Restores the keys {@link escapeKeys} escaped, in rendered JSON. */
export function restoreKeys(json: unknown): unknown {
  return transformKeys(json, RESTORED);
}

function transformKeys(value: unknown, renames: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => transformKeys(v, renames));
  if (value === null || typeof value !== 'object') return value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== null && Object.getPrototypeOf(proto) !== null) return value;
  const entries = Object.keys(value).map((k) => [renames.get(k) ?? k, transformKeys((value as Record<string, unknown>)[k], renames)] as const);
  // Object.fromEntries defines properties: a `__proto__` entry becomes an own key, not the prototype.
  return Object.fromEntries(entries);
}
