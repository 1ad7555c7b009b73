import { unknownChartKeys } from './chart-keys';
import { CHART_VALUES_KEYS } from './chart-values-keys';
import { unknownKeyMessage } from './issues';
import { FieldPath, Problem } from './problems';
import { PlatformFile } from './schema';
import { SourceFile } from './source';

/**
 * Chart values the generator sets, and what sets them. `helmValues` may not set
 * them again: two places for one value is how a setting silently stops applying.
 * `when` says whether the config sets it (Terraform-set values are always owned).
 */
export const OWNED_VALUES: readonly { readonly path: readonly string[]; readonly by: string; readonly when?: (c: Controller) => boolean }[] = [
  { path: ['replicas'], by: 'karpenter.controller.replicas' },
  { path: ['logLevel'], by: 'karpenter.controller.logLevel', when: (c) => c.logLevel !== undefined },
  { path: ['controller', 'resources'], by: 'karpenter.controller.resources', when: (c) => c.resources !== undefined },
  { path: ['settings', 'clusterName'], by: 'the terraform output cluster_name' },
  { path: ['settings', 'interruptionQueue'], by: 'the terraform output karpenter_interruption_queue_name' },
  { path: ['settings', 'clusterEndpoint'], by: 'the terraform output cluster_endpoint' },
  { path: ['serviceAccount', 'annotations', 'eks.amazonaws.com/role-arn'], by: 'the terraform output karpenter_controller_role_arn' },
  // Keeps the controller off the nodes it manages; see controllerValues().
  { path: ['affinity', 'nodeAffinity'], by: 'karpenter-gitops (the controller must not run on nodes it manages)' },
];

type Controller = NonNullable<PlatformFile['karpenter']['controller']>;

/** Settings that come from Terraform or have their own config field, not `controller.settings`. */
const SETTINGS_SET_ELSEWHERE: ReadonlyMap<string, string> = new Map(Object.entries({
  clusterName: 'it comes from the terraform output cluster_name',
  interruptionQueue: 'it comes from the terraform output karpenter_interruption_queue_name',
  clusterEndpoint: 'it comes from the terraform output cluster_endpoint',
  featureGates: 'use karpenter.controller.featureGates',
}));

/**
 * Checks `karpenter.controller.settings`, `karpenter.controller.featureGates` and
 * `karpenter.helmValues` against the keys the chart knows (Helm silently ignores
 * unknown keys), and `helmValues` against the values the generator owns.
 */
export function checkControllerValues(source: SourceFile, karpenter: PlatformFile['karpenter']): Problem[] {
  const problems: Problem[] = [];
  const controller = karpenter.controller ?? {};
  const settingsNode = CHART_VALUES_KEYS.children?.settings;
  const settingKeys = Object.keys(settingsNode?.children ?? {}).filter((k) => !SETTINGS_SET_ELSEWHERE.has(k));
  for (const key of Object.keys(controller.settings ?? {})) {
    const at = ['karpenter', 'controller', 'settings', key];
    if (SETTINGS_SET_ELSEWHERE.has(key)) problems.push(source.problem(at, `setting "${key}" is not set here: ${SETTINGS_SET_ELSEWHERE.get(key)}`, 'key'));
    else if (!settingKeys.includes(key)) problems.push(source.problem(at, unknownKeyMessage('chart setting', key, settingKeys), 'key'));
  }
  const gates = Object.keys(settingsNode?.children?.featureGates?.children ?? {});
  for (const key of Object.keys(controller.featureGates ?? {})) {
    if (!gates.includes(key)) {
      problems.push(source.problem(['karpenter', 'controller', 'featureGates', key], unknownKeyMessage('feature gate', key, gates), 'key'));
    }
  }

  const helmValues = karpenter.helmValues ?? {};
  for (const u of unknownChartKeys(helmValues)) {
    const at: FieldPath = ['karpenter', 'helmValues', ...u.path];
    const key = u.path[u.path.length - 1];
    problems.push(source.problem(at, u.known.length
      ? `${unknownKeyMessage('chart key', key, u.known)}: Helm would silently ignore it`
      : `chart key "${u.path.slice(0, -1).join('.')}" is not a map: Helm would silently ignore "${key}"`, 'key'));
  }
  for (const owned of OWNED_VALUES) {
    if (owned.when && !owned.when(controller)) continue;
    if (has(helmValues, owned.path)) {
      problems.push(source.problem(['karpenter', 'helmValues', ...owned.path], `already set by ${owned.by}: set it there, not in helmValues`, 'key'));
    }
  }
  for (const [key, by] of [['settings', 'karpenter.controller.settings'], ['featureGates', 'karpenter.controller.featureGates']] as const) {
    const prefix = key === 'settings' ? ['settings'] : ['settings', 'featureGates'];
    for (const name of Object.keys(controller[key] ?? {})) {
      if (has(helmValues, [...prefix, name])) {
        problems.push(source.problem(['karpenter', 'helmValues', ...prefix, name], `already set by ${by}.${name}: set it there, not in helmValues`, 'key'));
      }
    }
  }
  return problems;
}

function has(values: unknown, path: readonly string[]): boolean {
  let v = values;
  for (const seg of path) {
    if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, seg)) return false;
    v = (v as Record<string, unknown>)[seg];
  }
  return true;
}
