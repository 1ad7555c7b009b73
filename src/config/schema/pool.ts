import { z } from 'zod';
import { COST_CENTER_LABEL, TEAM_LABEL } from '../reserved';
import { disruption } from './disruption';
import { durationOrNever, DURATION, labelKey, labelValue, map, nonNegInt, quantity, resourceName } from './fields';
import { DOMAIN_RESOURCE } from './keys';
import { ami, capacityReservationTerm, kubelet, metadataOptions, securityGroupTerm, subnetTerm, tags, volume } from './node-class';
import { bounds, requirement, taint } from './requirements';

// The fields of a pool, at every level of the inheritance chain (defaults, team, the team's
// pools, a cluster's team and its pools, a cluster's overrides): what its NodePool,
// EC2NodeClass and smoke test say.

/** The smoke test of a pool: a Deployment that proves a node of the pool can start. */
const smokeTest = z.strictObject({
  replicas: nonNegInt.optional(),
  cpu: z.union([z.number().positive(), z.string().regex(/^([0-9]+m|[0-9]+(\.[0-9]{1,3})?)$/)], {
    error: 'expected CPU as cores or millicores, such as "1", "0.5" or "500m"',
  }).optional(),
  memory: z.string().regex(/^[1-9][0-9]*(Mi|Gi)$/, { error: 'expected memory in Mi or Gi, such as "512Mi" or "2Gi"' }).optional(),
  resources: map(z.string().regex(/\//, { error: 'must be an extended resource such as nvidia.com/gpu (set cpu and memory above)' }).pipe(resourceName())
    .meta({ pattern: DOMAIN_RESOURCE }), z.number().int().positive()).optional().describe('extended resources the test requests, e.g. { nvidia.com/gpu: 1 }'),
  image: z.string().min(1).optional(),
});

/** Every field a pool can set; each level of the inheritance chain uses this shape. */
export const poolFields = z.strictObject({
  dedicated: z.boolean().optional().describe('taint dedicated=<team>:NoSchedule on the nodes (default true)'),
  // Editors also refuse the labels the generator sets, which pools.ts reports.
  labels: map(labelKey.meta({ not: { enum: [TEAM_LABEL, COST_CENTER_LABEL] } }), labelValue).optional().describe('node labels, added to team: <team>'),
  taints: z.array(taint).optional(),
  startupTaints: z.array(taint).optional(),
  arch: z.array(z.enum(['amd64', 'arm64'])).min(1).optional().describe('default [amd64]'),
  capacityTypes: z.array(z.enum(['on-demand', 'spot', 'reserved'])).min(1).optional().describe('default [on-demand]'),
  capacityReservationSelectorTerms: z.array(capacityReservationTerm).min(1).max(30).optional(),
  instanceTypes: z.array(labelValue).min(1).optional(),
  instanceFamilies: z.array(labelValue).min(1).optional(),
  instanceCategories: z.array(labelValue).min(1).optional(),
  instanceGeneration: bounds.optional(),
  instanceCpu: bounds.optional(),
  instanceMemoryMiB: bounds.optional(),
  zones: z.array(labelValue).min(1).optional(),
  requirements: z.array(requirement).max(100).optional(),
  limits: map(resourceName(), quantity).optional(),
  weight: z.number().int().min(1).max(100).optional(),
  replicas: nonNegInt.optional().describe('a static pool (NodePool spec.replicas, gate StaticCapacity): exactly this many nodes; only limits.nodes, no weight'),
  expireAfter: durationOrNever.optional().describe('default 720h'),
  terminationGracePeriod: z.string().regex(DURATION, { error: 'must be a duration such as "30s", "10m" or "24h"' }).optional(),
  disruption: disruption.optional(),
  ami: ami.optional(),
  volume: volume.optional(),
  kubelet: kubelet.optional(),
  metadataOptions: metadataOptions.optional(),
  userData: z.string().optional(),
  tags: tags.optional(),
  subnetSelectorTerms: z.array(subnetTerm).min(1).max(30).optional(),
  securityGroupSelectorTerms: z.array(securityGroupTerm).min(1).max(30).optional(),
  associatePublicIPAddress: z.boolean().optional(),
  detailedMonitoring: z.boolean().optional(),
  instanceStorePolicy: z.enum(['RAID0']).optional(),
  smokeTest: smokeTest.optional(),
});
