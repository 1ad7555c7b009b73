import { unknownChartKeys } from '../release/chart-keys';
import { unknownKeyMessage } from '../input/issues';
import { FieldPath } from '../input/problems';
import { KarpenterFile } from './schema';
import { parseGoDuration, parseGoFloat, parseGoInt } from '../release/go-values';
import { FEATURE_GATE_DEFAULTS, SETTINGS_MAPS, SETTINGS_RULES, SettingKey } from '../release/settings-rules.generated';
import type { SettingRule, SettingsMapRule } from '../release/types';

/**
 * Chart values the generator sets, and what sets them. `helmValues` may not set
 * them again: two places for one value is how a setting silently stops applying.
 * `when` says whether the config sets it (Terraform-set values are always owned).
 */
export const OWNED_VALUES: readonly {
  readonly path: readonly string[];
  readonly by: string;
  readonly when?: (c: Controller) => boolean;
  /** What to do instead. @default "set it there, not in helmValues" */
  readonly fix?: string;
  /** A value helmValues may give it: one that keeps what the generator needs. @default - none */
  readonly allows?: (value: unknown) => boolean;
}[] = [
  { path: ['replicas'], by: 'karpenter.controller.replicas' },
  { path: ['logLevel'], by: 'karpenter.controller.logLevel', when: (c) => c.logLevel !== undefined },
  { path: ['controller', 'resources'], by: 'karpenter.controller.resources', when: (c) => c.resources !== undefined },
  { path: ['settings', 'clusterName'], by: 'the terraform output cluster_name', fix: 'change the output in the Terraform outputs file, not helmValues' },
  { path: ['settings', 'interruptionQueue'], by: 'the terraform output karpenter_interruption_queue_name', fix: 'change the output in the Terraform outputs file, not helmValues' },
  { path: ['settings', 'clusterEndpoint'], by: 'the terraform output cluster_endpoint', fix: 'change the output in the Terraform outputs file, not helmValues' },
  { path: ['serviceAccount', 'annotations', 'eks.amazonaws.com/role-arn'], by: 'the terraform output karpenter_controller_role_arn', fix: 'change the output in the Terraform outputs file (enable_irsa), not helmValues' },
  // Keeps the controller off the nodes it manages; see controllerValues().
  {
    path: ['affinity', 'nodeAffinity'], by: 'karpenter-gitops (the controller must not run on nodes it manages)',
    fix: 'to choose the controller\'s nodes, use helmValues.nodeSelector (e.g. { eks.amazonaws.com/nodegroup: system }) or karpenter.controller.host: fargate, '
      + 'or give every nodeSelectorTerms entry the expression { key: karpenter.sh/nodepool, operator: DoesNotExist }',
    allows: keepsOffKarpenterNodes,
  },
];

/**
 * A node affinity that keeps the controller off the nodes Karpenter manages, as the chart's
 * default and Karpenter's migration guide write it: required terms, each with
 * `karpenter.sh/nodepool DoesNotExist` (the terms are ORed, the expressions of one ANDed).
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/charts/karpenter/values.yaml#L93-L99
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/website/content/en/docs/getting-started/migrating-from-cas/_index.md#L104-L127
 */
export function keepsOffKarpenterNodes(nodeAffinity: unknown): boolean {
  const required = isMap(nodeAffinity) ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution : undefined;
  const terms = isMap(required) ? required.nodeSelectorTerms : undefined;
  return Array.isArray(terms) && terms.length > 0 && terms.every(hasNodePoolDoesNotExist);
}

/** A node selector term with the expression `karpenter.sh/nodepool DoesNotExist`. */
export function hasNodePoolDoesNotExist(term: unknown): boolean {
  const expressions = isMap(term) ? term.matchExpressions : undefined;
  return Array.isArray(expressions) && expressions.some((e) => isMap(e) && e.key === 'karpenter.sh/nodepool' && e.operator === 'DoesNotExist');
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type Controller = NonNullable<KarpenterFile['controller']>;

/** Settings that come from Terraform or have their own config field, not `controller.settings`. */
const SETTINGS_SET_ELSEWHERE: ReadonlyMap<string, string> = new Map(Object.entries({
  clusterName: 'it comes from the terraform output cluster_name',
  interruptionQueue: 'it comes from the terraform output karpenter_interruption_queue_name',
  clusterEndpoint: 'it comes from the terraform output cluster_endpoint',
  featureGates: 'use karpenter.controller.featureGates',
  awsFeatureGates: 'use karpenter.controller.awsFeatureGates',
}));

/** The keys of the chart's `settings.awsFeatureGates` (none before 1.15). */
const AWS_FEATURE_GATES: Readonly<Record<string, unknown>> = new Map(Object.entries<SettingsMapRule>(SETTINGS_MAPS)).get('awsFeatureGates')?.keys ?? {};

/** The settings a user may set in `karpenter.controller.settings`. */
export const USER_SETTINGS: readonly SettingKey[] = (Object.keys(SETTINGS_RULES) as SettingKey[]).filter((k) => !SETTINGS_SET_ELSEWHERE.has(k));

/** A problem about the `karpenter` config of one cluster, at a path inside it (`['controller', 'settings', 'x']`). */
export interface ControllerProblem {
  readonly path: FieldPath;
  readonly message: string;
  readonly at?: 'key';
}

/**
 * Checks a cluster's `karpenter` (the top-level one with the cluster's merged over it):
 * settings by name, type, enum and range as Karpenter parses them; feature gates by name;
 * `helmValues` against the keys the chart knows (Helm silently ignores unknown keys) and
 * against the values the generator owns.
 */
export function checkControllerValues(karpenter: KarpenterFile): ControllerProblem[] {
  const problems: ControllerProblem[] = [];
  const controller = karpenter.controller ?? {};
  for (const [key, value] of Object.entries(controller.settings ?? {})) {
    const at = ['controller', 'settings', key];
    if (SETTINGS_SET_ELSEWHERE.has(key)) problems.push({ path: at, message: `setting "${key}" is not set here: ${SETTINGS_SET_ELSEWHERE.get(key)}`, at: 'key' });
    else if (!Object.hasOwn(SETTINGS_RULES, key)) problems.push({ path: at, message: unknownKeyMessage('chart setting', key, USER_SETTINGS), at: 'key' });
    else {
      const why = settingValueProblem(key, SETTINGS_RULES[key as SettingKey], value);
      if (why) problems.push({ path: at, message: why });
    }
  }
  const gates = Object.keys(FEATURE_GATE_DEFAULTS);
  for (const key of Object.keys(controller.featureGates ?? {})) {
    if (!gates.includes(key)) problems.push({ path: ['controller', 'featureGates', key], message: unknownKeyMessage('feature gate', key, gates), at: 'key' });
  }
  const awsGates = Object.keys(AWS_FEATURE_GATES);
  // A chart with no awsFeatureGates (before 1.15) is said per cluster, naming its release (release-settings.ts).
  for (const key of Object.keys(controller.awsFeatureGates ?? {})) {
    if (awsGates.length > 0 && !awsGates.includes(key)) problems.push({ path: ['controller', 'awsFeatureGates', key], message: unknownKeyMessage('AWS feature gate', key, awsGates), at: 'key' });
  }

  const helmValues = karpenter.helmValues ?? {};
  for (const u of unknownChartKeys(helmValues)) {
    const key = u.path[u.path.length - 1];
    problems.push({
      path: ['helmValues', ...u.path], at: 'key',
      message: u.known.length
        ? `${unknownKeyMessage('chart key', key, u.known)}: Helm would silently ignore it`
        : `chart key "${u.path.slice(0, -1).join('.')}" is not a map: Helm would silently ignore "${key}"`,
    });
  }
  for (const owned of OWNED_VALUES) {
    if (owned.when && !owned.when(controller)) continue;
    if (has(helmValues, owned.path) && !owned.allows?.(valueAt(helmValues, owned.path))) {
      problems.push({ path: ['helmValues', ...owned.path], message: `already set by ${owned.by}: ${owned.fix ?? 'set it there, not in helmValues'}`, at: 'key' });
    }
  }
  for (const [key, by] of [['settings', 'karpenter.controller.settings'], ['featureGates', 'karpenter.controller.featureGates'], ['awsFeatureGates', 'karpenter.controller.awsFeatureGates']] as const) {
    const prefix = key === 'settings' ? ['settings'] : ['settings', key];
    for (const name of Object.keys(controller[key] ?? {})) {
      if (has(helmValues, [...prefix, name])) {
        problems.push({ path: ['helmValues', ...prefix, name], message: `already set by ${by}.${name}: set it there, not in helmValues`, at: 'key' });
      }
    }
  }
  for (const name of Object.keys((helmValues.settings as Record<string, unknown> | undefined) ?? {})) {
    // Settings that come from Terraform or their own field were reported above (or are).
    if (Object.hasOwn(SETTINGS_RULES, name) && !SETTINGS_SET_ELSEWHERE.has(name)) {
      problems.push({ path: ['helmValues', 'settings', name], message: `set chart settings in karpenter.controller.settings.${name}, where they are checked and reach the controller even when false or 0`, at: 'key' });
    }
  }
  return problems;
}

/**
 * Why the controller would not take a setting's value, or undefined. The value is read
 * with Go's own grammar (src/release/go-values.ts): a value Go cannot parse makes
 * Karpenter's env parser fall back to the default, silently (CONTROLLER_OPTIONS in
 * src/upgrade/controller-options.ts records it from the Go code); a value below a
 * minimum is refused by Karpenter's option validation, and the controller does not start.
 * Nothing else is refused here.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/env/env.go
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/operator/options/options_validation.go
 * @see https://karpenter.sh/docs/reference/settings/
 */
export function settingValueProblem(key: string, rule: SettingRule, value: string | number | boolean): string | undefined {
  const given = JSON.stringify(value);
  const fallback = `Karpenter would silently use its default, ${JSON.stringify(rule.controllerDefault)}`;
  const refused = 'Karpenter\'s option validation refuses it';
  switch (rule.type) {
    case 'boolean':
      // The chart tests it with `if`: a string such as "false" would read as true.
      return typeof value === 'boolean' ? undefined : `setting ${key} is true or false, got ${given}`;
    case 'duration': {
      const nanos = typeof value === 'number' || typeof value === 'string' ? parseGoDuration(String(value)) : 'is not a Go duration';
      if (typeof nanos === 'string') return `setting ${key} ${nanos}, got ${given}: ${fallback}`;
      const minimum = typeof rule.minimum === 'string' ? parseGoDuration(rule.minimum) : undefined;
      if (typeof minimum === 'bigint' && nanos < minimum) return `setting ${key} must be at least ${rule.minimum}, got ${given}: ${refused}`;
      return undefined;
    }
    case 'integer':
    case 'number': {
      const text = typeof value === 'number' || typeof value === 'string' ? String(value) : '';
      const parsed = rule.type === 'integer' ? parseGoInt(text) : parseGoFloat(text);
      if (typeof parsed === 'string') return `setting ${key} ${rule.type === 'integer' ? 'is a whole number' : 'is a number'}, got ${given}: ${fallback}`;
      if (typeof rule.minimum === 'number' && Number(parsed) < rule.minimum) return `setting ${key} must be at least ${rule.minimum}, got ${given}: ${refused}`;
      return undefined;
    }
    case 'enum':
      return typeof value === 'string' && (rule.enum ?? []).includes(value) ? undefined : `setting ${key}: unknown value ${given} (allowed: ${(rule.enum ?? []).join(', ')})`;
    default:
      if (typeof value !== 'string') return `setting ${key} is a string, got ${given}`;
      // The chart passes it through Helm's tpl, which would evaluate a template in it.
      return rule.tpl && value.includes('{{') ? `setting ${key} must not contain "{{": the chart evaluates it as a Helm template` : undefined;
  }
}

function has(values: unknown, path: readonly string[]): boolean {
  let v = values;
  for (const seg of path) {
    if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, seg)) return false;
    v = (v as Record<string, unknown>)[seg];
  }
  return true;
}

function valueAt(values: unknown, path: readonly string[]): unknown {
  let v = values;
  for (const seg of path) v = isMap(v) ? v[seg] : undefined;
  return v;
}
