import { z } from 'zod';
import { disruption } from './disruption';
import { durationOrNever, DURATION, labelKey, labelValue, map, nonNegInt, quantity, resourceName } from './fields';
import { DOMAIN_RESOURCE } from './keys';
import { ami, blockDeviceMapping, capacityReservationTerm, kubelet, metadataOptions, nodeClassExtras, securityGroupTerm, subnetTerm, tags, volume } from './node-class';
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

/** A Kubernetes object name a NodePool or EC2NodeClass may have (it becomes a node label's value: at most 63). */
const objectName = z.string().max(63).regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, { error: 'must be a lowercase name of letters, digits, "-" and ".", at most 63 characters' });

/** Every field a pool can set; each level of the inheritance chain uses this shape. */
export const poolFields = z.strictObject({
  adopted: z.boolean().optional().describe('verbatim (docs/adopting.md): the generator adds nothing of its own to the NodePool and EC2NodeClass (no team label, no dedicated taint, no tags, no built-in arch, capacity types or volume) and defaults does not apply; each convention is opted into field by field'),
  name: objectName.optional().describe('the NodePool\'s name, when it is not <team> or <team>-<pool> (an adopted NodePool keeps its own): only on a team or one of its pools'),
  nodeClass: objectName.optional().describe('the EC2NodeClass\'s name (default: the pool\'s); pools of a cluster that name the same class share it, and must say the same of it'),
  dedicated: z.boolean().optional().describe('taint dedicated=<team>:NoSchedule on the nodes (default true; false for an adopted pool)'),
  // pools.ts refuses the labels the generator sets on a pool that is not adopted.
  labels: map(labelKey, labelValue).optional().describe('node labels, added to team: <team> (an adopted pool: only these)'),
  annotations: map(labelKey, z.string()).optional().describe('annotations of the nodes (the NodePool template\'s metadata.annotations)'),
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
  blockDeviceMappings: z.array(blockDeviceMapping).min(1).max(50).optional().describe('the EC2NodeClass\'s block devices as the CRD writes them, in place of volume'),
  role: z.string().min(1).optional().describe('the nodes\' IAM role (default: the Terraform output karpenter_node_role_name)'),
  instanceProfile: z.string().min(1).optional().describe('an existing instance profile, in place of role'),
  ...nodeClassExtras,
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
