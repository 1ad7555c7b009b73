import { z } from 'zod';
import { compute } from './schema/compute';
import { cluster, clusterId, clusterTeam } from './schema/cluster';
import { dnsLabel, fileId, map } from './schema/fields';
import { gitops } from './schema/gitops';
import { group } from './schema/group';
import { karpenterFields, version } from './schema/karpenter';
import { overlay } from './schema/overlay';
import { poolFields } from './schema/pool';
import { team } from './schema/team';
import { tenancy } from './schema/tenancy';
import { window } from './schema/window';

// The one schema of `config/platform.yaml`: the command line validates with it, and
// src/config/json-schema.ts derives the editor schema from it. One file per section in
// src/config/schema/.

export { aliasFamily, type AmiFamily } from './schema/node-class';
export { type TenancyAction } from './schema/tenancy';
export { type ComputeMode } from './schema/compute';

/** The whole of `config/platform.yaml`. */
export const platformSchema = z.strictObject({
  $schema: z.string().optional(),
  gitops,
  karpenter: z.strictObject({ version, ...karpenterFields }),
  compute: compute.optional(),
  windows: map(dnsLabel, window).optional().describe('named maintenance windows; clusters.<id>.window picks one (docs/windows.md)'),
  groups: map(dnsLabel, group).optional().describe('groups of clusters by labels, stage or id, each carrying what a cluster may (window, tenancy, karpenter, overrides, teams); applied in file order (docs/config.md, Groups)'),
  clusters: map(clusterId, cluster).refine((c) => Object.keys(c).length > 0, { error: 'define at least one cluster' }).meta({ minProperties: 1 }),
  defaults: poolFields.nullish(),
  overlays: map(dnsLabel, overlay).optional().describe('NodeOverlays on every cluster: prices and extra capacity of instance types (gate NodeOverlay)'),
  tenancy: tenancy.optional().describe('how the policy that keeps teams\' pools to their namespaces acts (see docs/tenancy.md)'),
  teams: map(fileId, team.nullable()),
});

/**
 * Why `id` cannot be a cluster id (a key of `clusters`), by the schema's own rules, or undefined:
 * `npm run init` checks the id it is given before it writes it.
 */
export function clusterIdProblem(id: string): string | undefined {
  const issue = clusterId.safeParse(id).error?.issues[0];
  if (!issue) return undefined;
  return issue.code === 'too_big' ? 'is longer than 63 characters, the most a DNS-1123 label has' : issue.message;
}

/** Pool fields as written at one level of the inheritance chain. */
export type PoolFields = z.infer<typeof poolFields>;

/** `config/platform.yaml` after schema validation, before inheritance is resolved. */
export type PlatformFile = z.infer<typeof platformSchema>;
/** `karpenter`, or a cluster's `karpenter` merged over it. */
export type KarpenterFile = PlatformFile['karpenter'];
/** One entry of `teams` (a bare `web:` is an empty team). */
export type TeamFile = z.infer<typeof team>;
/** One entry of `overlays`. */
export type OverlayFile = z.infer<typeof overlay>;
/** One entry of `groups`. */
export type GroupFile = z.infer<typeof group>;
/** One entry of `clusters`. */
export type ClusterFile = z.infer<typeof cluster>;
/** One entry of `clusters.<id>.teams` written as a map (null: the team with nothing of its own here). */
export type ClusterTeamFile = z.infer<typeof clusterTeam>;
