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
        readonly nodeSelectorTerms: readonly { readonly matchExpressions: readonly { readonly key: string; readonly operator: string }[] }[];
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
      featureGates: featureGates(cluster),
      ...settingsMapsInUse(cluster),
    },
    affinity: OFF_KARPENTER_NODES,
  });
}

/**
 * The gates of features this cluster uses, each on exactly when it is used: StaticCapacity for a
 * pool with replicas, NodeOverlay for overlays, CapacityBuffer for a team's buffer (the config refuses a user's `false` there, and a release without the gate).
 * @see https://karpenter.sh/docs/reference/settings/#feature-gates
 */
export function gatesInUse(cluster: Cluster): Readonly<Record<string, boolean>> {
  const gates: Record<string, boolean> = {};
  if (cluster.pools.some((p) => p.settings.replicas !== undefined)) gates.staticCapacity = true;
  if (cluster.overlays.length > 0) gates.nodeOverlay = true;
  if (cluster.buffers.length > 0) gates.capacityBuffer = true;
  return gates;
}

/**
 * The controller's name of the gate CEL expressions in an EC2NodeClass's kubelet need: the
 * controller refuses an EC2NodeClass with one while it is off.
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/controllers/nodeclass/validation.go#L181-L191
 */
export const KUBELET_EXPRESSIONS_GATE = 'NodeClassCEL';

/**
 * Gates of the cluster's release in settings maps other than `featureGates` (1.15's
 * `awsFeatureGates`), each on exactly where the cluster uses its feature, found by the name the
 * controller reads (the release facts map chart keys to it): NodeClassCEL for a kubelet CEL
 * expression. Nothing for a release without the gate (the config refuses the expression there).
 */
export function settingsMapsInUse(cluster: Cluster): Readonly<Record<string, Readonly<Record<string, boolean>>>> {
  const facts = release(cluster.karpenter.version);
  const out: Record<string, Record<string, boolean>> = {};
  const turnOn = (name: string) => {
    for (const [map, keys] of Object.entries(facts?.settingsMaps ?? {})) {
      if (map === 'featureGates') continue;
      for (const [key, named] of Object.entries(keys)) if (named === name) (out[map] ??= {})[key] = true;
    }
  };
  if (cluster.pools.some((p) => hasExpressions(p.settings.kubelet))) turnOn(KUBELET_EXPRESSIONS_GATE);
  return out;
}

/** The user's gates with the gates of features in use over them, or undefined when there are none. */
function featureGates(cluster: Cluster): Readonly<Record<string, boolean>> | undefined {
  const gates = { ...cluster.karpenter.controller.featureGates, ...gatesInUse(cluster) };
  return Object.keys(gates).length ? gates : undefined;
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
