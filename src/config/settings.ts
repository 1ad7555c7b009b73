/**
 * The settings of one cluster (contract 8.2 and 9.3, docs/config.md "Groups"): what the
 * top-level `karpenter` and `tenancy`, each of its groups in file order, then the cluster itself
 * say of its Karpenter, tenancy and window, merged once, each value with the level and the line
 * that set it. Every check of a cluster setting locates its problem from here, so a group can
 * set nothing a cluster may not: there is one source of a setting, not one per check.
 */
import type { FieldPath } from '../input/problems';
import { ClusterGroup, groupsOf } from './groups';
import { valueAt } from './provenance';
import { Layer, mergeLayers } from './resolve';
import type { ClusterFile, ComputeMode, GroupFile, KarpenterFile, PlatformFile, TenancyAction } from './schema';

/** Which level of the file set a cluster setting; `default` when none did. */
export type SettingLevel = 'fleet' | 'group' | 'cluster' | 'default';

/** Where a cluster setting comes from. */
export interface SettingSource {
  readonly level: SettingLevel;
  /** The group that set it. @default - none: `level` is not `group` */
  readonly group?: string;
  /**
   * The path in platform.yaml to locate problems about it at: where it was written
   * (`['groups', 'prod-eu', 'karpenter', 'namespace']`), or the cluster (`['clusters', id]`)
   * for a default.
   */
  readonly path: FieldPath;
}

/** A resolved cluster setting and where it comes from. */
export interface Setting<T> extends SettingSource {
  readonly value: T;
}

/** What every level (fleet, group, cluster) may say of a cluster's settings; a cluster's `window: null` says none. */
type SettingsFields = Pick<GroupFile, 'karpenter' | 'tenancy' | 'compute'> & { readonly window?: string | null };

/** The settings of one cluster, see {@link clusterSettings}. */
export interface ClusterSettings {
  readonly clusterId: string;
  /** The groups it is in, in file order. */
  readonly groups: readonly ClusterGroup[];
  /**
   * `karpenter` with each group's then the cluster's deep-merged over it (maps key by key,
   * anything else replaced), before defaults.
   */
  readonly karpenter: KarpenterFile;
  /** `karpenter.version`. */
  readonly karpenterVersion: Setting<string>;
  /** `karpenter.namespace`. @default "kube-system" */
  readonly karpenterNamespace: Setting<string>;
  /** `tenancy.action`. @default "Deny" */
  readonly tenancyAction: Setting<TenancyAction>;
  /** `tenancy.exemptNamespaces`, a list set whole. @default [] */
  readonly tenancyExemptNamespaces: Setting<readonly string[]>;
  /** `window`, the name of a window (unknown ones included: they are reported). @default - none (also when the cluster says `window: null`) */
  readonly window: Setting<string | undefined>;
  /** `compute`: who runs Karpenter (docs/auto-mode.md). @default "karpenter" */
  readonly compute: Setting<ComputeMode>;
  /**
   * Where the value at any path of the settings was set (`['karpenter', 'controller',
   * 'featureGates', 'nodeOverlay']`): the level and path that wrote it (inside a map a level
   * wrote whole, the path below it); `default` at the cluster when there is no value there.
   */
  sourceOf(path: FieldPath): SettingSource;
}

/**
 * The settings of cluster `clusterId`: the fleet's (`karpenter`, `tenancy`), then each of its
 * groups' (`groups.<name>.karpenter`, `.tenancy`, `.window`) in file order, then the cluster's
 * own, merged as pool fields are (maps key by key, lists and scalars replaced whole), so a later
 * level wins field by field and each value keeps the line that set it.
 */
export function clusterSettings(file: PlatformFile, clusterId: string, groups: readonly ClusterGroup[] = groupsOf(file, clusterId)): ClusterSettings {
  const cluster: ClusterFile | undefined = file.clusters[clusterId];
  const layers: Layer<SettingsFields>[] = [
    { fields: { karpenter: file.karpenter, tenancy: file.tenancy, compute: file.compute }, at: [] },
    ...groups.map((g) => ({ fields: { karpenter: g.group.karpenter, tenancy: g.group.tenancy, window: g.group.window, compute: g.group.compute }, at: g.at })),
    { fields: { karpenter: cluster?.karpenter, tenancy: cluster?.tenancy, window: cluster?.window, compute: cluster?.compute }, at: ['clusters', clusterId] },
  ];
  const merged = mergeLayers(layers);
  const sourceOf = (path: FieldPath): SettingSource => {
    // A path below a map a level wrote, with no value there, is a default all the same.
    const origin = valueAt(merged.fields, path) === undefined ? undefined : merged.origin(path);
    if (!origin) return { level: 'default', path: ['clusters', clusterId] };
    if (origin[0] === 'groups') return { level: 'group', group: String(origin[1]), path: origin };
    return { level: origin[0] === 'clusters' ? 'cluster' : 'fleet', path: origin };
  };
  const setting = <T>(path: FieldPath, value: T | undefined, fallback: T): Setting<T> =>
    (value === undefined ? { value: fallback, level: 'default', path: ['clusters', clusterId] } : { value, ...sourceOf(path) });
  const { karpenter = {}, tenancy = {}, window, compute } = merged.fields;
  const karpenterVersion = setting(['karpenter', 'version'], karpenter.version, file.karpenter.version);
  return {
    clusterId,
    groups,
    karpenter: { ...karpenter, version: karpenterVersion.value },
    karpenterVersion,
    karpenterNamespace: setting(['karpenter', 'namespace'], karpenter.namespace, 'kube-system'),
    tenancyAction: setting<TenancyAction>(['tenancy', 'action'], tenancy.action, 'Deny'),
    tenancyExemptNamespaces: setting<readonly string[]>(['tenancy', 'exemptNamespaces'], tenancy.exemptNamespaces, []),
    window: setting<string | undefined>(['window'], window ?? undefined, undefined),
    compute: setting<ComputeMode>(['compute'], compute, 'karpenter'),
    sourceOf,
  };
}
