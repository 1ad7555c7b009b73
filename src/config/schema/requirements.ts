import { z } from 'zod';
import { labelKey, labelValue, nonNegInt } from './fields';
import { QUALIFIED_NAME } from './keys';

// What a pool says about the nodes it may launch and who may run on them: requirements,
// instance bounds, taints.

/** The largest value an int64 holds: the CRDs' CEL rules parse requirement bounds with int(). */
export const INT64_MAX = 9223372036854775807n;

/** The operators of a NodePool or NodeOverlay requirement. */
export const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Gte', 'Lt', 'Lte'] as const;
const COMPARISONS: readonly string[] = ['Gt', 'Gte', 'Lt', 'Lte'];

/**
 * For editors: the values each operator takes. A pattern cannot compare numbers of 19 digits,
 * so a comparison's value may have up to 19 (the command line also refuses those above int64).
 */
export const OPERATOR_VALUES = {
  allOf: [
    { if: { properties: { operator: { enum: ['In', 'NotIn'] } } }, then: { required: ['values'], properties: { values: { minItems: 1 } } } },
    { if: { properties: { operator: { enum: ['Exists', 'DoesNotExist'] } } }, then: { properties: { values: { maxItems: 0 } } } },
    { if: { properties: { operator: { enum: COMPARISONS } } }, then: { required: ['values'], properties: { values: { minItems: 1, maxItems: 1, items: { pattern: '^[0-9]{1,19}$' } } } } },
  ],
};

/**
 * What the NodePool and NodeOverlay CRDs' CEL rules refuse in a requirement's values for its
 * operator (both CRDs hold the same rules): In and NotIn need a value, Exists and DoesNotExist
 * none, a comparison exactly one non-negative integer that fits an int64.
 */
export function operatorValueIssues(operator: string, values: readonly string[], crd: 'NodePool' | 'NodeOverlay', ctx: z.RefinementCtx): void {
  if ((operator === 'In' || operator === 'NotIn') && values.length === 0) {
    ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${operator} needs at least one value` });
  }
  if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) {
    ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${operator} takes no values` });
  }
  if (COMPARISONS.includes(operator) && (values.length !== 1 || !/^[0-9]+$/.test(values[0]))) {
    ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${operator} needs exactly one non-negative integer value, e.g. ["5"]` });
  } else if (COMPARISONS.includes(operator) && BigInt(values[0]) > INT64_MAX) {
    ctx.addIssue({ code: 'custom', path: ['values', 0], message: `${values[0]} is larger than the largest 64-bit integer (${INT64_MAX}), which the ${crd} CRD reads it as` });
  }
}

/** A taint, or a startup taint. */
export const taint = z.strictObject({
  key: z.string().min(1).regex(QUALIFIED_NAME, { error: 'must be a taint key such as "example.com/gpu"' }),
  value: z.string().regex(QUALIFIED_NAME, { error: 'must be a taint value: letters, digits, "-", "_", "." or "/"' }).optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
});

/** Integer bounds of an instance property (instanceCpu, instanceGeneration, instanceMemoryMiB). */
export const bounds = z.strictObject({ gt: nonNegInt.optional(), gte: nonNegInt.optional(), lt: nonNegInt.optional(), lte: nonNegInt.optional() })
  .refine((b) => Object.keys(b).length > 0, { error: 'set at least one of gt, gte, lt, lte' }).meta({ minProperties: 1 });

/** A NodePool requirement, checked as the NodePool CRD's CEL rules check it. */
export const requirement = z.strictObject({
  key: labelKey,
  operator: z.enum(OPERATORS),
  values: z.array(labelValue).optional(),
  minValues: z.number().int().min(1).max(50).optional(),
}).superRefine((r, ctx) => {
  const values = r.values ?? [];
  operatorValueIssues(r.operator, values, 'NodePool', ctx);
  if (r.minValues !== undefined && r.operator === 'In' && values.length < r.minValues) {
    ctx.addIssue({ code: 'custom', path: ['minValues'], message: `minValues ${r.minValues} is more than the ${values.length} value(s) given` });
  }
}).meta(OPERATOR_VALUES);
