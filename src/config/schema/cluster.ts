import { z } from 'zod';
import { dnsLabel, fileId, labelKey, labelValue, listOrMap, map, WINDOWS_RESERVED } from './fields';
import { compute } from './compute';
import { karpenterFields, version } from './karpenter';
import { overlay } from './overlay';
import { poolFields } from './pool';
import { ARGOCD_FILES } from '../../output/layout';
import { tenancy } from './tenancy';

// A cluster: where its Terraform outputs and API server are, which teams it runs and with
// what, its Karpenter, its window and stage, its overlays.

/** Files of argocd/ beside the root Applications (`argocd/<cluster>.yaml`): no cluster may be called so. */
const RESERVED_CLUSTER_IDS: readonly string[] = Object.values(ARGOCD_FILES);

/** A key of `clusters`: a file id that is not a file the generator writes in argocd/. */
export const clusterId = fileId.refine((id) => !RESERVED_CLUSTER_IDS.includes(id), {
  error: `is the name of a file the generator writes in argocd/ (${RESERVED_CLUSTER_IDS.join(', ')}): choose another cluster id`,
}).meta({ not: { anyOf: [{ pattern: WINDOWS_RESERVED.source }, { enum: RESERVED_CLUSTER_IDS }] } });

/** A team's pool fields for one cluster, and its pools' (only pools the team defines); null: nothing of its own here. */
export const clusterTeam = poolFields.extend({
  pools: map(dnsLabel, poolFields.nullable()).optional().describe('fields for this cluster of pools the team defines'),
}).nullable();

/** One entry of `clusters`. */
export const cluster = z.strictObject({
  terraformOutputs: z.string().min(1).describe('the `terraform output -json` file, relative to platform.yaml'),
  destination: z.strictObject({
    server: z.url({ protocol: /^https?$/, error: 'must be an https:// URL of a Kubernetes API server' }).optional(),
    name: z.string().min(1).optional(),
  }).refine((d) => (d.server === undefined) !== (d.name === undefined), { error: 'set exactly one of server, name' })
    .meta({ oneOf: [{ required: ['server'] }, { required: ['name'] }] }).optional(),
  labels: map(labelKey, labelValue).optional().describe('labels of the cluster (env: prod, geo: eu), which groups match on'),
  argocd: dnsLabel.optional().describe('the Argo CD instance (a key of gitops.argocd) that deploys this cluster; default the only one'),
  teams: listOrMap(z.array(fileId), map(fileId, clusterTeam))
    .optional().describe('default: every team; a list of team ids, or team id -> pool fields for this cluster'),
  smokeTests: z.boolean().optional().describe('default true'),
  overrides: poolFields.nullish().describe('pool fields forced on every pool of this cluster'),
  karpenter: z.strictObject({ version: version.optional(), ...karpenterFields }).optional()
    .describe('deep-merged over the top-level karpenter for this cluster (staged upgrades)'),
  compute: compute.optional(),
  kubernetesVersion: z.string().regex(/^1\.[0-9]{1,2}$/, { error: 'must be a Kubernetes minor version such as "1.33" (quote it)' })
    .optional().describe('otherwise the terraform output cluster_version'),
  tenancy: tenancy.optional().describe('the tenancy policy of this cluster, over the top-level tenancy'),
  window: dnsLabel.nullable().optional()
    .describe('a key of windows: Drifted nodes are replaced and the pools synced only then (docs/windows.md); null: no window, whatever the cluster\'s groups say (an adopted cluster keeps its running budgets, docs/adopting.md)'),
  stage: z.number().int().min(1).max(20).optional().describe('rollout order: a stage-N cluster\'s pools get a change after every stage-(N-1) cluster has it (docs/windows.md)'),
  overlays: map(dnsLabel, overlay.nullable()).optional()
    .describe('NodeOverlays of this cluster, over the fleet-wide overlays (null: not on this cluster)'),
  manualSync: z.boolean().optional()
    .describe('true: Argo CD syncs none of this cluster\'s Applications by itself (no automated sync), so the first sync of an adopted cluster is a person\'s (docs/adopting.md); default false'),
  legacyNodepoolsApp: z.literal('orphan', { error: 'the only value is orphan' }).optional()
    .describe('keep the single <cluster>-karpenter-nodepools Application of earlier releases, without finalizer, prune or automated sync, while the per-team Applications take the pools over'),
});
