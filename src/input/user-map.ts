import { z } from 'zod';

/**
 * The key and value schemas of each {@link userMap}, for "did you mean" and the editor schema,
 * by the map's transform step: `.refine()` and `.optional()` copy a schema, not its steps.
 */
const USER_MAPS = new WeakMap<object, { readonly key: z.ZodType; readonly value: z.ZodType }>();

/** The transform step of a pipe (`z.unknown().transform(...)`), which identifies a userMap. */
function stepOf(schema: z.core.$ZodType): object | undefined {
  return schema instanceof z.ZodPipe ? schema.out : undefined;
}

/**
 * A map whose keys the user writes (teams, labels, tags, limits, chart values), validated
 * entry by entry like `z.record`, into a null-prototype object. Unlike `z.record`, which
 * silently skips a `__proto__` key, every key is an ordinary key: `__proto__` and
 * `constructor` are checked by `key` like any other, and kept when valid (an EC2 tag may
 * be called that).
 */
export function userMap<K extends z.ZodType<string>, V extends z.ZodType>(key: K, value: V): z.ZodType<Record<string, z.output<V>>, Record<string, z.input<V>>> {
  const schema = z.unknown().transform((input, ctx) => {
    if (!isPlainMap(input)) {
      ctx.issues.push({ code: 'invalid_type', expected: 'record', input, message: 'Invalid input: expected record' });
      return z.NEVER;
    }
    const out: Record<string, z.output<V>> = Object.create(null) as Record<string, z.output<V>>;
    for (const k of Object.keys(input)) {
      const parsedKey = key.safeParse(k);
      if (!parsedKey.success) {
        ctx.issues.push({ code: 'invalid_key', origin: 'record', issues: parsedKey.error.issues, input: k, path: [k], message: 'Invalid key in record' });
        continue;
      }
      const parsed = value.safeParse(input[k]);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) ctx.issues.push({ ...issue, input: undefined, path: [k, ...issue.path] });
        continue;
      }
      // On a null-prototype object, even `__proto__` is an own, ordinary property.
      out[k] = parsed.data as z.output<V>;
    }
    return out;
  });
  const step = stepOf(schema);
  if (step) USER_MAPS.set(step, { key, value });
  return schema as unknown as z.ZodType<Record<string, z.output<V>>, Record<string, z.input<V>>>;
}

/** The key and value schemas of a {@link userMap}, or undefined for any other schema. */
export function userMapParts(schema: z.core.$ZodType): { readonly key: z.ZodType; readonly value: z.ZodType } | undefined {
  const step = stepOf(schema);
  return step ? USER_MAPS.get(step) : undefined;
}

/**
 * A value that is a list (validated by `list`) or a map (validated by `mapSchema`), told
 * apart by its type: unlike `z.union`, a broken map reports its own problems at their
 * fields, not "does not match any option".
 */
export function listOrMapOf<L extends z.ZodType, M extends z.ZodType>(list: L, mapSchema: M): z.ZodType<z.output<L> | z.output<M>, z.input<L> | z.input<M>> {
  return z.unknown().transform((input, ctx) => {
    const parsed = (Array.isArray(input) ? list : mapSchema).safeParse(input);
    if (parsed.success) return parsed.data as z.output<L> | z.output<M>;
    for (const issue of parsed.error.issues) ctx.issues.push({ ...issue, input: undefined });
    return z.NEVER;
  }) as unknown as z.ZodType<z.output<L> | z.output<M>, z.input<L> | z.input<M>>;
}

/** A map as YAML or JSON gives it (not a list, not null, not a class instance). */
export function isPlainMap(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  // Any realm's Object.prototype (structuredClone and test sandboxes build objects in another one).
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** A deep copy of parsed YAML/JSON whose maps have no prototype: `obj[key]` never reaches `Object.prototype`. */
export function withoutPrototypes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutPrototypes);
  if (!isPlainMap(v)) return v;
  const out = Object.create(null) as Record<string, unknown>;
  for (const k of Object.keys(v)) out[k] = withoutPrototypes(v[k]);
  return out;
}
