import { z } from 'zod';
import { OVERLAY_PRICE, OVERLAY_PRICE_ADJUSTMENT } from '../../catalog/overlays';
import { labelValue, map, quantity, resourceName } from './fields';
import { QUALIFIED_NAME, RESTRICTED_OVERLAY_KEY, restrictedOverlayKey } from './keys';
import { OPERATOR_VALUES, OPERATORS, operatorValueIssues } from './requirements';

// A NodeOverlay (gate NodeOverlay): a price or extra capacity for the instance types its
// requirements pick, checked as its CRD checks it.
// @see https://karpenter.sh/docs/concepts/nodeoverlays/

/** The capacity an overlay may not set: the NodeOverlay CRD refuses it. */
const NODE_CAPACITY = ['cpu', 'memory', 'ephemeral-storage', 'pods'];

const overlayRequirement = z.strictObject({
  key: z.string().max(316).regex(QUALIFIED_NAME, { error: 'must be a label key such as "karpenter.k8s.aws/instance-family"' }).superRefine((key, ctx) => {
    const why = restrictedOverlayKey(key);
    if (why) ctx.addIssue({ code: 'custom', message: why });
  }).meta(RESTRICTED_OVERLAY_KEY),
  operator: z.enum(OPERATORS),
  values: z.array(labelValue).optional(),
}).superRefine((r, ctx) => operatorValueIssues(r.operator, r.values ?? [], 'NodeOverlay', ctx)).meta(OPERATOR_VALUES);

/** One entry of `overlays` (or of a cluster's `overlays`). */
export const overlay = z.strictObject({
  requirements: z.array(overlayRequirement).min(1, { error: 'list at least one requirement: an overlay picks the instance types it applies to' }).max(100),
  // Editors see the input: a string must already be a price; a number becomes one.
  price: z.union([z.string().meta({ pattern: OVERLAY_PRICE.source }), z.number().meta({ minimum: 0 })]).transform(String)
    .pipe(z.string().regex(OVERLAY_PRICE, { error: 'must be a price per hour such as "0.12" (digits, an optional decimal point)' })).optional(),
  priceAdjustment: z.string().regex(OVERLAY_PRICE_ADJUSTMENT, {
    error: 'must be a signed adjustment such as "-28%", "+10%", "-0.05" or "+1.2" (a percentage decrease is -0% to -100%)',
  }).optional(),
  capacity: map(resourceName().superRefine((name, ctx) => {
    if (NODE_CAPACITY.includes(name)) ctx.addIssue({ code: 'custom', message: `an overlay cannot set "${name}" capacity (the NodeOverlay CRD refuses cpu, memory, ephemeral-storage and pods): use an extended resource such as example.com/gpu-slice` });
  }).meta({ not: { enum: NODE_CAPACITY } }), quantity).optional(),
  weight: z.number().int().min(1).max(10000).optional(),
}).superRefine((o, ctx) => {
  if (o.price !== undefined && o.priceAdjustment !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['priceAdjustment'], message: 'an overlay sets price or priceAdjustment, never both (the NodeOverlay CRD refuses both): remove one' });
  }
}).meta({ dependencies: { price: { not: { required: ['priceAdjustment'] } } } });
