import type { Cluster } from '../config/platform';
import { SETTINGS_RULES, SettingKey } from '../release/settings-rules.generated';
import { release } from '../release/release';
import { hasExpressions } from './kubelet-expressions';

type Quantities = Readonly<Record<string, string | number>>;
type Scalar = string | number | boolean;

/**
 * The keys of the Karpenter 1.14.1 chart values that karpenter-gitops sets.
 * Everything else keeps the chart's default unless `helmValues` sets it.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/charts/karpenter/values.yaml
 */
export interface KarpenterChartValues {
  /** Controller replicas. */
  readonly replicas: number;
  /** Controller log level. @default - the chart's (info) */
  readonly logLevel?: 'debug' | 'info' | 'error';
  /** The controller container. @default - the chart's */
  readonly controller?: { readonly resources: { readonly requests?: Quantities; readonly limits?: Quantities } };
  /** IRSA annotation, only when Terraform gives a controller role ARN. @default - EKS Pod Identity */
  readonly serviceAccount?: { readonly annotations: { readonly 'eks.amazonaws.com/role-arn': string } };
  /** Controller settings. */
  readonly settings: {
    readonly clusterName: string;
    readonly clusterEndpoint?: string;
    readonly interruptionQueue?: string;
    readonly featureGates?: Readonly<Record<string, Scalar>>;
    readonly [setting: string]: Scalar | Readonly<Record<string, Scalar>> | undefined;
  };
  /** Scheduling: never on a node Karpenter manages (it could be consolidating its own node away). */
  readonly affinity: {
    readonly nodeAffinity: {
      readonly requiredDuringSchedulingIgnoredDuringExecution: {
        readonly nodeSelectorTerms: readonly { readonly matchExpressions: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[] }[];
      };
    };
  };
}

/** The node affinity that keeps the controller off Karpenter-managed nodes. */
export const OFF_KARPENTER_NODES: KarpenterChartValues['affinity'] = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }],
    },
  },
};

/**
 * While a cluster moves to EKS Auto Mode (`compute: both`), every node is an Auto Mode node
 * (labelled karpenter.sh/nodepool) or one of the pools the controller itself runs: it is pinned to
 * Auto Mode's built-in `system` pool, whose CriticalAddonsOnly taint the chart's default
 * tolerations take (the cluster needs that pool turned on).
 * @see https://docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html (system: CriticalAddonsOnly taint)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/charts/karpenter/values.yaml (affinity karpenter.sh/nodepool DoesNotExist; tolerations CriticalAddonsOnly Exists)
 */
export const ON_AUTO_MODE_SYSTEM_POOL: KarpenterChartValues['affinity'] = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'In', values: ['system'] }] }],
    },
  },
};

/** The generator's own chart values for one cluster, before `helmValues`. */
export function controllerValues(cluster: Cluster): KarpenterChartValues {
  const c = cluster.karpenter.controller;
  const tf = cluster.terraform;
  return prune({
    replicas: c.replicas,
    logLevel: c.logLevel,
    controller: c.resources && { resources: c.resources },
    serviceAccount: tf.controllerRoleArn !== undefined ? { annotations: { 'eks.amazonaws.com/role-arn': tf.controllerRoleArn } } : undefined,
    settings: {
      ...Object.fromEntries(Object.entries(c.settings).map(([key, value]) => [key, settingValue(key, value)])),
      clusterName: tf.clusterName,
      clusterEndpoint: tf.clusterEndpoint,
      interruptionQueue: tf.interruptionQueueName,
      ...settingsMaps(cluster),
    },
    affinity: cluster.compute === 'both' ? ON_AUTO_MODE_SYSTEM_POOL : OFF_KARPENTER_NODES,
  });
}

/**
 * The controller's names of the gates of features this cluster uses: StaticCapacity for a pool
 * with replicas, NodeOverlay for overlays, CapacityBuffer for a team's buffer, and (1.15's AWS
 * gate) NodeClassCEL for a kubelet CEL expression, which the controller refuses while the gate
 * is off (aws pkg/controllers/nodeclass/validation.go L181-L191 at 1d927085). The config refuses
 * a user's `false` for one in use, and a feature its release has no gate for.
 * @see https://karpenter.sh/docs/reference/settings/#feature-gates
 */
function gatesInUse(cluster: Cluster): string[] {
  return [
    ...(cluster.pools.some((p) => p.settings.replicas !== undefined) ? ['StaticCapacity'] : []),
    ...(cluster.overlays.length > 0 ? ['NodeOverlay'] : []),
    ...(cluster.buffers.length > 0 ? ['CapacityBuffer'] : []),
    ...(cluster.pools.some((p) => hasExpressions(p.settings.kubelet)) ? ['NodeClassCEL'] : []),
  ];
}

/**
 * Every map of gates under the chart's `settings` the cluster sets: the user's `featureGates`,
 * then each gate in use turned on in whichever map of the cluster's release holds it, found by the
 * name the controller reads (the release facts map each chart key to it), so `featureGates` and
 * 1.15's `awsFeatureGates` follow use the same way.
 */
function settingsMaps(cluster: Cluster): Readonly<Record<string, Readonly<Record<string, boolean>>>> {
  const maps = release(cluster.karpenter.version)?.settingsMaps ?? {};
  const { featureGates: user = {}, awsFeatureGates: userAws = {} } = cluster.karpenter.controller;
  const out: Record<string, Record<string, boolean>> = {
    ...(Object.keys(user).length ? { featureGates: { ...user } } : {}),
    ...(Object.keys(userAws).length ? { awsFeatureGates: { ...userAws } } : {}),
  };
  for (const name of gatesInUse(cluster)) {
    for (const [map, keys] of Object.entries(maps)) {
      for (const [key, named] of Object.entries(keys)) if (named === name) (out[map] ??= {})[key] = true;
    }
  }
  return out;
}

/**
 * The values file of a cluster: the generator's values with `helmValues`
 * deep-merged last, as Helm merges values files (maps key by key, lists replaced).
 */
export function chartValues(cluster: Cluster): Record<string, unknown> {
  return mergeValues({ ...controllerValues(cluster) }, cluster.karpenter.helmValues);
}

/**
 * A setting as the chart must be given it. The chart wraps most settings in
 * `{{- with .Values.settings.x }}`, which drops `false` and `0` silently (the controller then
 * uses its own default: `ignoreDRARequests: false` would become true), and Helm reads every
 * number as a float (`1000000` would reach the controller as `1e+06`, which it cannot parse).
 * As a string, each reaches the controller exactly as written.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/charts/karpenter/templates/deployment.yaml
 */
export function settingValue(key: string, value: string | number | boolean): string | number | boolean {
  const rule = Object.hasOwn(SETTINGS_RULES, key) ? SETTINGS_RULES[key as SettingKey] : undefined;
  return rule?.withGuarded ? String(value) : value;
}

/**
 * Helm's merge of two values files: maps merge key by key, anything else replaces. Every
 * key is an ordinary key, `__proto__` and `constructor` included (deepmerge drops them).
 */
export function mergeValues(base: Readonly<Record<string, unknown>>, over: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out = Object.assign(Object.create(null) as Record<string, unknown>, base);
  for (const [key, value] of Object.entries(over)) {
    const prev = Object.hasOwn(out, key) ? out[key] : undefined;
    out[key] = isMap(prev) && isMap(value) ? mergeValues(prev, value) : value;
  }
  return out;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Drops undefined fields, so the values file lists only what is set. */
function prune<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The Helm release name of the controller (its Application's `helm.releaseName`). */
export const KARPENTER_RELEASE_NAME = 'karpenter';

/**
 * The name of the controller's Deployment: the chart's `karpenter.fullname` for the release
 * `karpenter` (`fullnameOverride`, else the release name when it contains the chart name,
 * else `<release>-<name>`).
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/charts/karpenter/templates/_helpers.tpl (karpenter.fullname)
 */
export function controllerDeploymentName(values: Record<string, unknown>): string {
  const release = KARPENTER_RELEASE_NAME;
  const cut = (s: string) => s.slice(0, 63).replace(/-+$/, '');
  if (typeof values.fullnameOverride === 'string' && values.fullnameOverride !== '') return cut(values.fullnameOverride);
  const name = typeof values.nameOverride === 'string' && values.nameOverride !== '' ? values.nameOverride : 'karpenter';
  return cut(release.includes(name) ? release : `${release}-${name}`);
}
