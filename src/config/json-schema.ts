import { z } from 'zod';
import { platformSchema } from './schema';
import { EDITOR_FORM } from './schema/fields';

/** A JSON Schema object, as the generator writes it. */
type Json = Record<string, unknown>;

/**
 * The JSON Schema editors use to complete and check `config/platform.yaml`
 * (`schema/platform.schema.json`): zod's own JSON Schema of the one schema the command line
 * validates with (src/config/schema.ts), of its input. What zod cannot write itself is
 * metadata of that schema: the rules checked in code say in JSON Schema keywords what they
 * check (`.meta()` beside each refinement), and a map whose keys the user writes, a
 * transform, is shown as the record it validates like ({@link EDITOR_FORM}). A map that may
 * be `null` is one type list, not `anyOf [map, null]`, so an editor shows one error for one
 * mistake. What only the command line can check (inheritance, the Terraform outputs, the
 * instance catalog, Kubernetes versions) is listed in docs/config.md;
 * test/config/schema-parity.test.ts holds the two to the same corpus.
 * @see https://zod.dev/json-schema
 * @see https://json-schema.org/draft-07/json-schema-validation
 */
export function platformJsonSchema(): Json {
  return oneTypeList(toJsonSchema(platformSchema)) as Json;
}

/** zod's JSON Schema of a schema's input, each schema with an editor form written as that form. */
function toJsonSchema(schema: z.ZodType): Json {
  return z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-7',
    override: ({ zodSchema, jsonSchema }) => {
      const form = EDITOR_FORM.get(zodSchema)?.shownAs;
      if (!(form instanceof z.ZodType)) return;
      // The node's own keywords (its metadata) win over its form's.
      const { $schema: _, ...shown } = toJsonSchema(form);
      const own = { ...jsonSchema };
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Json)[key];
      Object.assign(jsonSchema, shown, own);
    },
  }) as Json;
}

/** Keywords that hold for every type: `null` would have to pass them too. */
const ANY_TYPE = ['enum', 'const', 'not', 'anyOf', 'allOf', 'oneOf', 'if', 'then', 'else', '$ref'];

/**
 * `anyOf: [X, {type: null}]` → X with `type: [X's type, "null"]`, everywhere: one error per
 * mistake in an editor. Only where X's keywords hold for its type alone, so `null` still passes.
 */
function oneTypeList(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(oneTypeList);
  if (node === null || typeof node !== 'object') return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, oneTypeList(v)])) as Json;
  const anyOf = out.anyOf as Json[] | undefined;
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return out;
  const other = anyOf.find((b) => b.type !== 'null');
  if (!other || typeof other.type !== 'string' || !anyOf.some((b) => b.type === 'null' && Object.keys(b).length === 1)) return out;
  if (ANY_TYPE.some((k) => k in other)) return out;
  const { anyOf: _, ...rest } = out;
  return { ...rest, ...other, type: [other.type, 'null'] };
}
