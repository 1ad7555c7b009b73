/**
 * fast-check arbitraries of a CRD's `spec`, read from the vendored CRD's OpenAPI schema
 * (test/fixtures/karpenter-crds/v<release>/): every property the schema has may appear, enums
 * from the schema, strings from its patterns (fc.stringMatching), lengths, item counts and
 * bounds from it. The CEL rules are not generated from: the caller keeps the objects the CRD
 * validator (schema and CEL, test/support/crd-validator.ts) accepts. A few string formats the
 * schema says only in prose (a cron schedule, a quantity, a duration) come from {@link FORMATS}.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';

/** One node of an OpenAPI v3 schema, as much of it as the generator reads. */
interface Schema {
  readonly type?: string;
  readonly enum?: readonly unknown[];
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly maxProperties?: number;
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: Schema | boolean;
  readonly items?: Schema;
  readonly 'x-kubernetes-int-or-string'?: boolean;
}

const CRD_DIR = join(__dirname, '..', 'fixtures', 'karpenter-crds');

/** The `spec` schema of a vendored CRD's first version. */
export function specSchema(release: string, file: string): Schema {
  const crd = parse(readFileSync(join(CRD_DIR, `v${release}`, file), 'utf8')) as { spec: { versions: { schema: { openAPIV3Schema: Schema } }[] } };
  const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties?.spec;
  if (!spec) throw new Error(`${file}: no spec schema`);
  return spec;
}

const quantity = fc.oneof(fc.integer({ min: 1, max: 999 }).map(String), fc.tuple(fc.integer({ min: 1, max: 512 }), fc.constantFrom('Mi', 'Gi', 'm', 'k')).map(([n, u]) => `${n}${u}`));
const duration = fc.tuple(fc.integer({ min: 1, max: 500 }), fc.constantFrom('s', 'm', 'h')).map(([n, u]) => `${n}${u}`);

/** Strings whose pattern is prose, a long alternation, or wider than the API server's own parser, by the path's last segments. */
const FORMATS: Readonly<Record<string, fc.Arbitrary<string>>> = {
  'budgets[].schedule': fc.constantFrom('@daily', '@weekly', '0 9 * * mon-fri', '*/15 * * * *'),
  'budgets[].duration': fc.tuple(fc.integer({ min: 1, max: 48 }), fc.constantFrom('h', 'm')).map(([n, u]) => `${n}${u}`),
  'consolidateAfter': fc.oneof(duration, fc.constant('Never')),
  'expireAfter': fc.oneof(duration, fc.constant('Never')),
  'terminationGracePeriod': duration,
  'limits{}': quantity,
  'ebs.volumeSize': fc.integer({ min: 1, max: 500 }).map((n) => `${n}Gi`),
  'kubeReserved{}': quantity,
  'systemReserved{}': quantity,
  'evictionHard{}': fc.oneof(fc.integer({ min: 1, max: 99 }).map((n) => `${n}%`), quantity),
  'evictionSoft{}': fc.oneof(fc.integer({ min: 1, max: 99 }).map((n) => `${n}%`), quantity),
  'evictionSoftGracePeriod{}': duration,
  'imageMaximumGCAge': duration,
  'imageMinimumGCAge': duration,
};

/** Map keys: label-like, and now and then one a YAML 1.1 reader takes for another type. */
const mapKey = fc.oneof(fc.stringMatching(/^[a-z]{1,6}(\.io\/[a-z0-9]{1,6})?$/), fc.constantFrom('memory', 'cpu', 'pods', 'nodes', 'example.com/team', 'yes', '010'));

/** The generator of `schema` at `path` (`spec.template.spec.taints[]`). */
export function fromSchema(schema: Schema, path = 'spec', depth = 0): fc.Arbitrary<unknown> {
  const format = Object.entries(FORMATS).find(([suffix]) => path.endsWith(`.${suffix}`) || path.endsWith(suffix === path ? suffix : `.${suffix}`));
  if (format) return format[1];
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema['x-kubernetes-int-or-string']) return quantity;
  switch (schema.type) {
    case 'object': return objectOf(schema, path, depth);
    case 'array': {
      if (!schema.items || depth > 6) return fc.constant([]);
      const max = Math.min(schema.maxItems ?? 3, 3);
      return fc.array(fromSchema(schema.items, `${path}[]`, depth + 1), { minLength: Math.min(schema.minItems ?? 0, max), maxLength: max });
    }
    case 'string': return stringOf(schema);
    case 'integer':
    case 'number': return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 1000, (schema.minimum ?? 0) + 1000) });
    case 'boolean': return fc.boolean();
    default: return fc.constant('x');
  }
}

function objectOf(schema: Schema, path: string, depth: number): fc.Arbitrary<unknown> {
  if (schema.properties) {
    const props = Object.fromEntries(Object.entries(schema.properties).map(([k, s]) => [k, fromSchema(s, `${path}.${k}`, depth + 1)]));
    return fc.record(props, { requiredKeys: [...(schema.required ?? [])].filter((k) => k in props) });
  }
  if (typeof schema.additionalProperties === 'object') {
    // A selector term's tags are mostly not empty (an empty one is refused by design: #9964).
    return fc.dictionary(mapKey, fromSchema(schema.additionalProperties, `${path}{}`, depth + 1), { minKeys: /Terms\[\]\.tags$/.test(path) ? 1 : 0, maxKeys: Math.min(schema.maxProperties ?? 3, 3) });
  }
  return fc.constant({});
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 1;
  const max = Math.min(schema.maxLength ?? 24, 24);
  const base = schema.pattern ? fc.stringMatching(new RegExp(schema.pattern), { maxLength: max }) : fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?$/);
  return base.filter((s) => s.length >= min && s.length <= (schema.maxLength ?? Infinity));
}

/**
 * `object` made valid the way a user makes a refused object valid, by leaving out what the API
 * server refuses: each field a problem of `validate` names is removed (a whole list for a rule on
 * the list), then `base` fills in what must be there, until nothing is refused.
 * @returns the valid object, or undefined when a few rounds do not get there
 */
export function repaired(object: Record<string, unknown>, base: Record<string, unknown>, validate: (o: unknown) => string[]): Record<string, unknown> | undefined {
  let current = structuredClone(object);
  for (let round = 0; round < 12; round++) {
    const problems = validate(current);
    if (problems.length === 0) return current;
    for (const line of problems) {
      const path = /^[^:]+: ([^:]+):/.exec(line)?.[1] ?? '';
      const segments = [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]));
      // A rule on the whole spec: take out the optional field it most often names.
      if (segments.length <= 1) remove(current, ['spec', /'([a-zA-Z]+)'/.exec(line.slice(line.indexOf('"object"')))?.[1] ?? '']);
      else remove(current, segments);
    }
    current = withBase(current, base);
  }
  return validate(current).length === 0 ? current : undefined;
}

function remove(root: unknown, segments: readonly (string | number)[]): void {
  let node: unknown = root;
  for (const s of segments.slice(0, -1)) node = node !== null && typeof node === 'object' ? (node as Record<string | number, unknown>)[s] : undefined;
  const last = segments[segments.length - 1];
  if (Array.isArray(node) && typeof last === 'number') node.splice(last, 1);
  else if (node !== null && typeof node === 'object') delete (node as Record<string, unknown>)[String(last)];
}

/** `o` with every field of `base` it lacks (deeply, for maps), its own kept. */
function withBase(o: Record<string, unknown>, base: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...o };
  for (const [k, v] of Object.entries(base)) {
    const mine = out[k];
    if (mine === undefined || (Array.isArray(mine) && mine.length === 0 && Array.isArray(v))) out[k] = structuredClone(v);
    else if (v !== null && typeof v === 'object' && !Array.isArray(v) && mine !== null && typeof mine === 'object' && !Array.isArray(mine)) {
      out[k] = withBase(mine as Record<string, unknown>, v as Record<string, unknown>);
    }
  }
  return out;
}
