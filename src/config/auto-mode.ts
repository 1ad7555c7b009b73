/**
 * A pool on EKS Auto Mode (contract 9.6, docs/auto-mode.md): AWS runs Karpenter there and the
 * pool's nodes come from an `eks.amazonaws.com/v1` NodeClass, which has no AMI selection, no user
 * data, no kubelet, no block devices, no instance metadata options and no instance store policy
 * (AWS picks and patches the image: the node's configuration is EKS's), and whose nodes live at
 * most 21 days. A pool field Auto Mode cannot honour is an error at the line that set it, naming
 * the cluster; one the fleet's `defaults` set is the self-managed clusters' (an Auto Mode cluster
 * simply has no use for it) and is not reported.
 * @see https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html (the NodeClass spec: role, subnet and security group selectors, ephemeralStorage, networking, tags; nothing else)
 * @see https://docs.aws.amazon.com/eks/latest/userguide/auto-migrate-karpenter.html (custom AMIs and user data are not supported)
 * @see https://docs.aws.amazon.com/eks/latest/userguide/auto-security.html ("EC2 managed instances operated by EKS Auto Mode have maximum lifetime of 21 days")
 * @see https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html (default expireAfter 336h; kubernetes.io/os and node.kubernetes.io/windows-build are not supported)
 */
import type { FieldPath, Problem } from '../input/problems';
import type { ComputeMode } from './schema';
import type { Pool, PoolSettings } from './platform';
import { parseGoDuration } from '../release/go-values';

/** The longest an Auto Mode node lives, in hours: 21 days. */
export const AUTO_MODE_MAX_HOURS = 21 * 24;

/** What Auto Mode sets when a NodePool says nothing: 14 days. */
export const AUTO_MODE_DEFAULT_EXPIRE_AFTER = '336h';

/** The pool fields an Auto Mode NodeClass has no place for, and what runs instead. */
const NOT_ON_AUTO_MODE: readonly { readonly field: keyof PoolSettings; readonly why: string }[] = [
  { field: 'ami', why: 'EKS Auto Mode picks and patches the node image itself (no AMI selection)' },
  { field: 'userData', why: 'EKS Auto Mode runs no user data on its nodes' },
  { field: 'kubelet', why: 'EKS Auto Mode configures the kubelet itself (its NodeClass has no kubelet)' },
  { field: 'volume', why: 'an Auto Mode node\'s disk is its NodeClass\'s ephemeralStorage (80Gi by default), not a block device of the pool' },
  { field: 'blockDeviceMappings', why: 'an Auto Mode NodeClass has no block device mappings (only ephemeralStorage)' },
  { field: 'metadataOptions', why: 'EKS Auto Mode sets the instance metadata options itself (IMDSv2 only)' },
  { field: 'instanceStorePolicy', why: 'an Auto Mode NodeClass has no instance store policy' },
];

/** Where each field of a pool was set: the path of the level that wrote it, or undefined for the tool's own default. */
export type OriginOf = (path: FieldPath) => FieldPath | undefined;

/**
 * The problems of a pool on an Auto Mode cluster (`compute: autoMode`), or of its Auto Mode twin
 * on a cluster that moves (`compute: both`: warnings, since the self-managed pool still uses the
 * field until the move ends; but a hole in tenancy is an error on both).
 * @param problem locates a message at a field of the pool (its line)
 */
export function autoModeFindings(
  settings: PoolSettings, { cluster, team, compute, originOf, problem, guarded }: {
    readonly cluster: string; readonly team: string; readonly compute: ComputeMode; readonly originOf: OriginOf;
    /** The team lists namespaces: the tenancy policy guards its pools. */
    readonly guarded: boolean;
    readonly problem: (path: FieldPath, message: string) => Problem;
  },
): { readonly errors: Problem[]; readonly warnings: Problem[] } {
  if (compute === 'karpenter') return { errors: [], warnings: [] };
  const out: Problem[] = [];
  const errors: Problem[] = [];
  const set = (field: string) => {
    const origin = originOf([field]);
    return origin !== undefined && origin[0] !== 'defaults';
  };
  const then = compute === 'autoMode'
    ? `set it only for the self-managed clusters (a group's teams.${team}), run cluster ${cluster} without team ${team} (clusters.${cluster}.teams), or keep the cluster on compute: karpenter`
    : `its Auto Mode twin goes without it; when the move ends (compute: autoMode) it is an error`;
  for (const { field, why } of NOT_ON_AUTO_MODE) {
    if (settings[field] !== undefined && set(field)) out.push(problem([field], `cluster ${cluster} runs on EKS Auto Mode (compute: ${compute}): ${why}; ${then}`));
  }
  // Auto Mode nodes carry eks.amazonaws.com/nodeclass, which the tenancy policy does not yet count as
  // naming a pool: only the team's dedicated taint keeps other namespaces off them (docs/auto-mode.md).
  if (guarded && settings.dedicated === false) {
    errors.push(problem(['dedicated'], `cluster ${cluster} runs on EKS Auto Mode (compute: ${compute}), whose nodes the tenancy policy knows only by team ${team}'s dedicated taint: `
      + 'a guarded team\'s pools stay dedicated there; remove dedicated: false, or run the cluster on compute: karpenter'));
  }
  const hours = durationHours(settings.expireAfter);
  if (settings.expireAfter !== undefined && originOf(['expireAfter']) !== undefined && (hours === undefined || hours > AUTO_MODE_MAX_HOURS)) {
    out.push(problem(['expireAfter'], `cluster ${cluster} runs on EKS Auto Mode (compute: ${compute}), whose nodes live at most 21 days (${AUTO_MODE_MAX_HOURS}h): `
      + `expireAfter ${settings.expireAfter} is longer; set ${AUTO_MODE_MAX_HOURS}h or less (Auto Mode's own default is ${AUTO_MODE_DEFAULT_EXPIRE_AFTER})`));
  }
  // On a cluster that moves, the self-managed pool still uses what its twin cannot: a warning there.
  return compute === 'autoMode' ? { errors: [...errors, ...out], warnings: [] } : { errors, warnings: out };
}

/** A Go duration (`720h`, `1h30m`) in hours, read as Go reads it; undefined for `Never` or what Go refuses. */
function durationHours(text: string | undefined): number | undefined {
  if (text === undefined || text === 'Never') return undefined;
  const nanos = parseGoDuration(text);
  return typeof nanos === 'string' ? undefined : Number(nanos) / 3.6e12;
}

/** The taint of an Auto Mode twin while its cluster moves: only workloads that tolerate it go there (AWS's migration, step 2). */
export const AUTO_MODE_TAINT = { key: 'eks-auto-mode', effect: 'NoSchedule' } as const;

/** A pool's Auto Mode facts: how long its nodes live (its own expireAfter when set and within 21 days, else Auto Mode's default). */
export function onAutoMode(settings: PoolSettings, expireAfterSet: boolean): NonNullable<Pool['autoMode']> {
  const hours = durationHours(settings.expireAfter);
  return { expireAfter: expireAfterSet && hours !== undefined && hours <= AUTO_MODE_MAX_HOURS ? settings.expireAfter : AUTO_MODE_DEFAULT_EXPIRE_AFTER };
}

/**
 * A pool as it runs on EKS Auto Mode: the same team, requirements, limits, budgets and window,
 * named `<pool>-auto` on every Auto Mode cluster, so that a cluster that moves keeps, when the move
 * ends, the pool its workloads moved to (a NodePool's nodeClassRef group and kind cannot change in
 * place, and a rename is a delete: its nodes would drain). While the cluster moves (`moving`), it is
 * tainted {@link AUTO_MODE_TAINT}, so that only the workloads moved on purpose (a toleration and
 * `eks.amazonaws.com/compute-type: auto`) land there.
 * @see https://docs.aws.amazon.com/eks/latest/userguide/auto-migrate-karpenter.html (steps 2 and 3: a tainted Auto Mode NodePool; workloads tolerate it and select compute-type auto; step 6: the taint removed)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/crds/karpenter.sh_nodepools.yaml (nodeClassRef: "nodeClassRef.group is immutable", "nodeClassRef.kind is immutable")
 */
export function autoModeTwin(pool: Pool, { expireAfterSet, moving }: { readonly expireAfterSet: boolean; readonly moving: boolean }): Pool {
  const taints = pool.settings.taints.filter((t) => t.key !== AUTO_MODE_TAINT.key);
  const autoMode = onAutoMode(pool.settings, expireAfterSet);
  // explain says what runs: Auto Mode's lifetime where the pool sets none.
  const provenance = pool.provenance?.map((f) => (f.path === 'expireAfter' && !expireAfterSet ? { ...f, value: autoMode.expireAfter } : f));
  return {
    ...pool, name: `${pool.name}-auto`,
    settings: { ...pool.settings, taints: moving ? [...taints, AUTO_MODE_TAINT] : taints },
    autoMode,
    ...(provenance ? { provenance } : {}),
  };
}

/**
 * EKS Auto Mode's built-in pools as the cluster's Terraform turned them on (output
 * `auto_mode_node_pools`): a move pins the controller to `system`, so it must be on; and
 * `general-purpose` is not selective, so pods move before they are moved (AWS turns it off for the move).
 * @see https://docs.aws.amazon.com/eks/latest/userguide/auto-migrate-karpenter.html (step 1: enable Auto Mode without the general-purpose pool)
 * @see https://docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html (system, general-purpose)
 */
export function builtInPoolFindings(
  cluster: string, compute: ComputeMode, tf: { readonly outputs?: { readonly autoModeNodePools?: readonly string[] }; readonly at?: (output: string, message: string) => Problem },
): { readonly errors: Problem[]; readonly warnings: Problem[] } {
  const pools = tf.outputs?.autoModeNodePools;
  if (!pools || compute !== 'both' || !tf.at) return { errors: [], warnings: [] };
  const at = tf.at;
  return {
    errors: pools.includes('system') ? [] : [at('auto_mode_node_pools', `cluster ${cluster} moves to EKS Auto Mode (compute: both): its controller is pinned to Auto Mode's built-in system pool, which the cluster has not turned on (compute_config.node_pools): turn it on before the move`)],
    warnings: pools.includes('general-purpose') ? [at('auto_mode_node_pools', `cluster ${cluster} moves to EKS Auto Mode (compute: both) with the built-in general-purpose pool on: it is not selective, so workloads may move before you move them; AWS turns it off during the move`)] : [],
  };
}
