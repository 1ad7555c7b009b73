import { z } from 'zod';
import { clusterTeam } from './cluster';
import { usdPerHour } from './team';
import { dnsLabel, fileId, labelKey, labelValue, map } from './fields';
import { compute } from './compute';
import { karpenterFields, version } from './karpenter';
import { poolFields } from './pool';
import { tenancy } from './tenancy';

// A group of clusters (contract 8.2): the clusters it matches, and what it carries for them,
// as a cluster may (window, tenancy, karpenter, overrides, teams). Groups apply in file order,
// between the fleet-wide teams and each cluster's own settings (docs/config.md, Groups).

/** The clusters a group is for: every condition given must hold. */
const match = z.strictObject({
  labels: map(labelKey, labelValue).optional().describe('clusters whose labels include every one of these'),
  stage: z.number().int().min(1).max(20).optional().describe('clusters at this stage'),
  clusters: z.array(fileId).min(1).optional().describe('these clusters, by id'),
}).refine((m) => m.labels !== undefined || m.stage !== undefined || m.clusters !== undefined, { error: 'say which clusters: labels, stage or clusters (all given must hold)' })
  .meta({ anyOf: [{ required: ['labels'] }, { required: ['stage'] }, { required: ['clusters'] }] });

/** A team's fields in a group: pool fields, its pools', and a budget summed over the group's clusters. */
const groupTeam = clusterTeam.unwrap().extend({
  budget: z.strictObject({
    perHour: usdPerHour('"900"')
      .describe('USD per hour the team\'s pools may cost at their limits, summed over the group\'s clusters'),
  }).optional().describe('the most the team\'s pools may cost per hour on the group\'s clusters (docs/cost.md)'),
}).nullable();

/** One entry of `groups`. */
export const group = z.strictObject({
  match,
  window: dnsLabel.optional().describe('a key of windows, for the group\'s clusters that name none'),
  tenancy: tenancy.optional().describe('the tenancy policy of the group\'s clusters, over the top-level tenancy'),
  karpenter: z.strictObject({ version: version.optional(), ...karpenterFields }).optional()
    .describe('deep-merged over the top-level karpenter, under each cluster\'s own'),
  compute: compute.optional(),
  overrides: poolFields.nullish().describe('pool fields forced on every pool of the group\'s clusters (a cluster\'s own overrides win)'),
  teams: map(fileId, groupTeam).optional().describe('team id -> pool fields on the group\'s clusters, with pools.<key> for its pools\' and a budget'),
});
