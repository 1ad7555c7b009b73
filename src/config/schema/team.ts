import { z } from 'zod';
import { distinct, dnsLabel, map, quantity } from './fields';
import { poolFields } from './pool';

// A team: its own pool's fields, its other pools, who pays and what it may cost, the
// capacity it keeps ready, and the namespaces that may use its pools.

/**
 * A budget in USD per hour: a decimal more than 0, written as a string (one problem, naming the
 * value, for "0", "-1", "forty" or 40).
 */
export function usdPerHour(examples: string) {
  return z.string().regex(/^(0\.[0-9]*[1-9][0-9]*|[1-9][0-9]*(\.[0-9]+)?)$/, {
    error: `must be a decimal number of USD per hour, more than 0, written as a string, such as ${examples}`,
  });
}

/** One entry of `teams`. */
export const team = poolFields.extend({
  owner: z.string().min(1).max(256).optional().describe('EC2 tag "owner"'),
  costCenter: z.string().min(1).max(256).optional().describe('EC2 tag "cost-center"; also the node label "cost-center" when it is a label value (docs/cost.md)'),
  budget: z.strictObject({
    perHour: usdPerHour('"40" or "12.5"')
      .describe('USD per hour the team\'s pools may cost at their limits, across every cluster (us-east-1 on-demand list prices)'),
  }).optional().describe('the most the team\'s pools may cost per hour at their limits (see docs/cost.md)'),
  defaultPool: z.boolean().optional().describe('false: no pool named <team>, only its pools (default true)'),
  pools: map(dnsLabel, poolFields).optional().describe('extra pools, each named <team>-<key>'),
  buffer: z.strictObject({
    replicas: z.number().int().min(1).max(2147483647),
    cpu: quantity,
    memory: quantity,
    pool: dnsLabel.optional().describe('the key of one of the team\'s pools; default the team\'s own pool, or its first'),
  }).optional().describe('a CapacityBuffer (gate CapacityBuffer): replicas placeholder pods of cpu and memory kept ready on the team\'s pool'),
  namespaces: distinct(z.array(dnsLabel).min(1, { error: 'list at least one namespace, or leave namespaces out (any namespace may then use the team\'s pools)' }), 'each namespace may appear once')
    .optional().describe('the namespaces whose pods may use the team\'s pools (an admission policy refuses the others); default: any namespace'),
});
