import { z } from 'zod';
import { listOrMapOf, userMap } from '../../input/user-map';
import { QUANTITY_PATTERN } from '../../quantity/quantity';
import { QUALIFIED_NAME, resourceNamePattern, resourceNameProblem, RESTRICTED_LABEL_KEY, restrictedLabelKey } from './keys';

// The fields every section of the config is made of. Patterns are copied from the Karpenter
// v1.14.1 CRDs, so that a value the API server would reject is rejected here first, with the
// config's file and line. Where a rule is code (a refinement), `.meta()` tells editors the same
// in JSON Schema keywords, which `z.toJSONSchema` writes beside the node's own.

/**
 * What an editor is shown for a schema zod cannot write as JSON Schema (a transform, such as a
 * {@link userMap}): the plain schema it validates like. `platformJsonSchema`
 * (src/config/json-schema.ts) writes that in its place. A registry, so that the copies
 * `.refine()` and `.meta()` make of the schema are shown the same way. (`shownAs` is typed
 * `unknown`: a registry maps the type of its metadata deeply, and a schema's is too deep.)
 */
export const EDITOR_FORM = z.registry<{ readonly shownAs: unknown }>();

/** A map whose keys the user writes ({@link userMap}); editors see the record it validates like. */
export function map<K extends z.ZodType<string>, V extends z.ZodType>(key: K, value: V): ReturnType<typeof userMap<K, V>> {
  const schema = userMap(key, value);
  EDITOR_FORM.add(schema, { shownAs: z.partialRecord(key as unknown as z.ZodString, value) });
  return schema;
}

/** A list or a map ({@link listOrMapOf}); editors see either. */
export function listOrMap<L extends z.ZodType, M extends z.ZodType>(list: L, mapSchema: M): ReturnType<typeof listOrMapOf<L, M>> {
  const schema = listOrMapOf(list, mapSchema);
  EDITOR_FORM.add(schema, { shownAs: z.union([list, mapSchema]) });
  return schema;
}

/** A list whose items appear once each. */
export function distinct<T extends z.ZodArray>(list: T, error: string) {
  return list.refine((items) => new Set(items).size === items.length, { error }).meta({ uniqueItems: true });
}

/** Names Windows reserves for files (`con.yaml` cannot be checked out there): not a team or cluster id. */
export const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DURATION_OR_NEVER = /^(([0-9]+(s|m|h))+|Never)$/;
/** A duration of seconds, minutes and hours, such as `1m30s`. */
export const DURATION = /^([0-9]+(s|m|h))+$/;

/** A DNS-1123 label: names of namespaces, pools, windows and overlays. */
export const dnsLabel = z.string().max(63).regex(DNS_LABEL, {
  error: 'must be a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit',
});

/** A team or cluster id: it names files and folders of dist/. */
export const fileId = dnsLabel.refine((id) => !WINDOWS_RESERVED.test(id), {
  error: 'is a name Windows reserves for devices (con, prn, aux, nul, com1-9, lpt1-9): its files could not be checked out there; choose another',
}).meta({ not: { pattern: WINDOWS_RESERVED.source } });

/** An integer of 0 or more. */
export const nonNegInt = z.number().int().nonnegative();
/** An integer a Kubernetes int32 field holds. */
export const int32 = z.number().int().max(2147483647);

/** A resource name: a standard one (of `standard`), hugepages-<size>, or domain/name. */
export function resourceName(standard?: readonly string[]) {
  return z.string().superRefine((name, ctx) => {
    const why = resourceNameProblem(name, standard);
    if (why) ctx.addIssue({ code: 'custom', message: why });
  }).meta({ pattern: resourceNamePattern(standard) });
}

/** A quantity written as a string, never negative. */
export function quantityString(error: string) {
  return z.string().regex(QUANTITY_PATTERN, { error })
    .refine((q) => !q.startsWith('-'), { error: 'cannot be negative' }).meta({ not: { pattern: '^-' } });
}

/** A Kubernetes quantity, written as a string or a number. */
// Numbers become strings: the CRDs take an integer or a string, never a float like 0.5.
export const quantity = z.union([
  quantityString('expected a Kubernetes quantity such as "2", "500m" or "64Gi"'),
  z.number().nonnegative(),
], { error: 'expected a Kubernetes quantity such as "2", "500m" or "64Gi"' }).transform(String);

/** A label value (or requirement value). */
export const labelValue = z.string().max(63).regex(LABEL_VALUE, {
  error: 'must be a label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
});

/** A label or requirement key the NodePool CRD accepts. */
export const labelKey = z.string().max(316).regex(QUALIFIED_NAME, {
  error: 'must be a label key such as "example.com/role" or "role"',
}).superRefine((key, ctx) => {
  const why = restrictedLabelKey(key);
  if (why) ctx.addIssue({ code: 'custom', message: why });
}).meta(RESTRICTED_LABEL_KEY);

/** A duration such as `720h`, or `Never`. */
export const durationOrNever = z.string().regex(DURATION_OR_NEVER, { error: 'must be a duration such as "30s", "10m", "720h" or "Never"' });
