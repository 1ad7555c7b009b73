import { z } from 'zod';
import { cronProblem } from '../cron';
import { distinct, durationOrNever, nonNegInt } from './fields';

// How Karpenter may disrupt a pool's nodes: consolidation and disruption budgets.
// @see https://karpenter.sh/docs/concepts/disruption/

/** A budget's nodes: a count or a percentage (the NodePool CRD's pattern). */
export const BUDGET_NODES = /^((100|[0-9]{1,2})%|[0-9]+)$/;
const BUDGET_DURATION = /^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/;

/**
 * For editors, Karpenter's cron dialect approximately: an @ macro (those of src/config/cron.ts),
 * or five fields of numbers, names, `*`, `?`, ranges, steps and lists. {@link cronProblem}
 * checks the ranges and names.
 */
const CRON_FIELD = '(\\*|\\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(/[0-9]+)?(,(\\*|\\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(/[0-9]+)?)*';
const CRON = `^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|\\s*${CRON_FIELD}(\\s+${CRON_FIELD}){4}\\s*)$`;

const budget = z.strictObject({
  // Editors see the input: a string must already be a count or percentage; a number becomes one.
  nodes: z.union([z.string().meta({ pattern: BUDGET_NODES.source }), nonNegInt], { error: 'expected a node count or percentage such as "10%" or "0"' })
    .transform(String)
    .pipe(z.string().regex(BUDGET_NODES, { error: 'must be a node count or percentage such as "10%" or "0"' })),
  schedule: z.string().superRefine((schedule, ctx) => {
    const why = cronProblem(schedule);
    if (why) ctx.addIssue({ code: 'custom', message: why });
  }).meta({ pattern: CRON }).optional(),
  duration: z.string().regex(BUDGET_DURATION, { error: 'must be minutes and/or hours such as "30m" or "8h"' }).optional(),
  reasons: distinct(z.array(z.enum(['Underutilized', 'Empty', 'Drifted', 'Repair'])).max(50), 'each reason may appear once').optional()
    .describe('the disruption methods the budget applies to (none: all of them); Repair only on a release whose NodePool CRD lists it (docs/windows.md, Node repair)'),
}).superRefine((b, ctx) => {
  if ((b.schedule === undefined) !== (b.duration === undefined)) {
    const missing = b.schedule === undefined ? 'schedule' : 'duration';
    ctx.addIssue({ code: 'custom', path: [], message: `schedule and duration go together: add ${missing}` });
  }
}).meta({ dependencies: { schedule: ['duration'], duration: ['schedule'] } });

/** A pool's `disruption`. */
export const disruption = z.strictObject({
  consolidationPolicy: z.enum(['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced']).optional(),
  consolidateAfter: durationOrNever.optional(),
  budgets: z.array(budget).max(50).optional(),
});
