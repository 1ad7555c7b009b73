import { z } from 'zod';
import { CHART_VALUES_KEYS } from '../../release/chart-values-keys.generated';
import type { ChartKeyNode } from '../../release/types';
import { dnsLabel, map, quantity, resourceName } from './fields';
import { CONTAINER_RESOURCES } from './keys';

// `karpenter`: the Karpenter release, its controller, and the chart's values. A cluster's
// `karpenter` is deep-merged over it.

/** An exact Karpenter version. */
export const version = z.string().regex(/^[0-9]+\.[0-9]+\.[0-9]+$/, { error: 'must be an exact version such as 1.14.1 (no "v", no ranges)' });

/** The keys of the controller chart values that `karpenter.controller` maps to. */
const controller = z.strictObject({
  replicas: z.number().int().min(1).optional().describe('default 2'),
  resources: z.strictObject({
    requests: map(resourceName(CONTAINER_RESOURCES), quantity).optional(),
    limits: map(resourceName(CONTAINER_RESOURCES), quantity).optional(),
  }).optional(),
  logLevel: z.enum(['debug', 'info', 'error']).optional(),
  host: z.enum(['nodeGroup', 'fargate']).optional().describe('where the controller runs, default nodeGroup (never on a node Karpenter manages)'),
  featureGates: map(z.string(), z.boolean({ error: 'feature gates are true or false' })).optional(),
  awsFeatureGates: map(z.string(), z.boolean({ error: 'feature gates are true or false' })).optional().describe('the chart\'s settings.awsFeatureGates (Karpenter 1.15 and later)'),
  settings: map(z.string(), z.union([z.boolean(), z.string(), z.number()])).optional(),
});

/**
 * For editors, the chart's values keys (src/config/controller.ts checks `helmValues` against
 * them): closed maps list their keys, free-form nodes take anything.
 */
function chartKeys(node: ChartKeyNode): Record<string, unknown> {
  if (node.freeForm || !node.children) return {};
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(node.children).map(([k, child]) => [k, chartKeys(child)])),
    additionalProperties: false,
  };
}

/** The fields of `karpenter` and of `clusters.<id>.karpenter`, but `version` (required at the top only). */
export const karpenterFields = {
  namespace: dnsLabel.optional().describe('default kube-system'),
  controller: controller.optional(),
  syncInWindow: z.boolean().optional()
    .describe('true: the controller and CRD Applications of a cluster with a window sync only inside it, as its pools do (the controller rolls, the CRDs change, in the window); default false: at once'),
  besideAutoMode: z.boolean().optional()
    .describe('true: EKS Auto Mode also runs on the cluster, with NodePools of its own that the config leaves to EKS; EKS manages the shared karpenter.sh CRDs there, so the CRDs\' Application is held (no automated sync, no resources finalizer), as while a cluster moves (compute: both; docs/auto-mode.md). Only with compute: karpenter'),
  helmValues: map(z.string(), z.unknown()).meta(chartKeys(CHART_VALUES_KEYS)).nullish().describe('deep-merged into the chart values last'),
};
