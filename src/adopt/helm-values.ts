/**
 * The running controller's user-supplied Helm values (`helm get values karpenter -n NS -o yaml`)
 * as a cluster's `karpenter`: the values the config owns go to their fields (replicas, log level,
 * resources, settings, feature gates), the ones Terraform outputs own must agree with them, keys
 * the cluster's chart no longer has (`webhook`, from before 1.0) are dropped with a note, and the
 * rest are kept in `helmValues`, so the controller keeps its settings and scale.
 * @see https://helm.sh/docs/helm/helm_get_values/
 */
import { unknownChartKeys } from '../release/chart-keys';
import type { TerraformOutputs } from '../config/terraform';
import { hasNodePoolDoesNotExist, keepsOffKarpenterNodes } from '../config/controller';
import { isObject } from './live';

/** A cluster's `karpenter` from Helm values, what was dropped, and what disagrees with Terraform. */
export interface AdoptedController {
  /** `controller.*` fields. @default {} */
  readonly controller: Record<string, unknown>;
  /** What stays in `helmValues`. @default {} */
  readonly helmValues: Record<string, unknown>;
  /** One line per value dropped. */
  readonly notes: readonly string[];
  /** The dropped values' dotted paths. */
  readonly dropped: readonly string[];
  /** One line per value a Terraform output owns that differs from it. */
  readonly conflicts: readonly string[];
}

/** Values the Terraform outputs say: equal, they are left out; different, the outputs must change. */
const TERRAFORM_OWNED: readonly { readonly path: readonly string[]; readonly output: string; readonly of: (tf: TerraformOutputs) => string | undefined }[] = [
  { path: ['settings', 'clusterName'], output: 'cluster_name', of: (tf) => tf.clusterName },
  { path: ['settings', 'interruptionQueue'], output: 'karpenter_interruption_queue_name', of: (tf) => tf.interruptionQueueName },
  { path: ['settings', 'clusterEndpoint'], output: 'cluster_endpoint', of: (tf) => tf.clusterEndpoint },
  { path: ['serviceAccount', 'annotations', 'eks.amazonaws.com/role-arn'], output: 'karpenter_controller_role_arn', of: (tf) => tf.controllerRoleArn },
];

/** The controller fields of chart values, by their path in the values. */
const CONTROLLER_FIELDS: readonly { readonly path: readonly string[]; readonly field: string }[] = [
  { path: ['replicas'], field: 'replicas' },
  { path: ['logLevel'], field: 'logLevel' },
  { path: ['controller', 'resources'], field: 'resources' },
  { path: ['settings', 'featureGates'], field: 'featureGates' },
];

/** Reads user-supplied Helm values into a cluster's `karpenter`. */
export function adoptController(values: unknown, tf: TerraformOutputs): AdoptedController {
  const rest = isObject(values) ? copyJson(values) : {};
  const notes: string[] = [];
  const dropped: string[] = [];
  const conflicts: string[] = [];
  for (const unknown of unknownChartKeys(rest)) {
    notes.push(`dropped the Helm value ${unknown.path.join('.')}: the chart of this Karpenter release has no such key (Helm ignores it)`);
    dropped.push(unknown.path.join('.'));
    remove(rest, unknown.path);
  }
  for (const owned of TERRAFORM_OWNED) {
    const live = take(rest, owned.path);
    const mine = owned.of(tf);
    if (live !== undefined && live !== mine) {
      conflicts.push(`the running controller has ${owned.path.join('.')} ${JSON.stringify(live)}, but the Terraform output ${owned.output} is ${JSON.stringify(mine ?? null)}: `
        + 'point the output at what runs (docs/adopting.md, "Existing IAM roles and the interruption queue")');
    }
  }
  offKarpenterNodes(rest, notes, dropped);
  const controller: Record<string, unknown> = {};
  for (const { path, field } of CONTROLLER_FIELDS) {
    const value = take(rest, path);
    if (value !== undefined) controller[field] = value;
  }
  const settings = isObject(rest.settings) ? rest.settings : undefined;
  if (settings) {
    delete rest.settings;
    if (Object.keys(settings).length) controller.settings = settings;
  }
  return { controller, helmValues: rest, notes, dropped, conflicts };
}

/**
 * The running controller's node affinity, merged with what the generator needs: every required
 * term keeps it off Karpenter's nodes (`karpenter.sh/nodepool DoesNotExist`, config/controller.ts).
 * A term without it gets it, said in a note (the controller's pods roll once); the chart's and
 * the migration guide's affinity already have it and are kept as they are.
 */
function offKarpenterNodes(values: Record<string, unknown>, notes: string[], dropped: string[]): void {
  const affinity = values.affinity;
  const nodeAffinity = isObject(affinity) ? affinity.nodeAffinity : undefined;
  if (!isObject(affinity) || nodeAffinity === undefined || keepsOffKarpenterNodes(nodeAffinity)) return;
  const required = isObject(nodeAffinity) ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution : undefined;
  const terms = isObject(required) && Array.isArray(required.nodeSelectorTerms) && required.nodeSelectorTerms.length ? required.nodeSelectorTerms : [{}];
  const doesNotExist = { key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' };
  const merged = terms.map((t) => (hasNodePoolDoesNotExist(t) ? t : { ...(isObject(t) ? t : {}), matchExpressions: [...(isObject(t) && Array.isArray(t.matchExpressions) ? t.matchExpressions : []), doesNotExist] }));
  affinity.nodeAffinity = { ...(isObject(nodeAffinity) ? nodeAffinity : {}), requiredDuringSchedulingIgnoredDuringExecution: { ...(isObject(required) ? required : {}), nodeSelectorTerms: merged } };
  dropped.push('affinity.nodeAffinity');
  notes.push('the controller\'s node affinity gains karpenter.sh/nodepool DoesNotExist in every required term, so it never runs on a node it manages (its pods roll once at the first sync)');
}

/** The value at `path`, removed from `values` (and empty parents with it). */
function take(values: Record<string, unknown>, path: readonly string[]): unknown {
  let node: unknown = values;
  for (const key of path.slice(0, -1)) node = isObject(node) ? node[key] : undefined;
  if (!isObject(node)) return undefined;
  const last = path[path.length - 1];
  const value = node[last];
  remove(values, path);
  return value;
}

function remove(values: Record<string, unknown>, path: readonly string[]): void {
  const parents: Record<string, unknown>[] = [];
  let node: unknown = values;
  for (const key of path.slice(0, -1)) {
    if (!isObject(node)) return;
    parents.push(node);
    node = node[key];
  }
  if (!isObject(node)) return;
  delete node[path[path.length - 1]];
  for (let i = path.length - 2; i >= 0; i--) {
    const child = parents[i][path[i]];
    if (isObject(child) && Object.keys(child).length === 0) delete parents[i][path[i]];
  }
}

/** A deep copy of JSON data (plain objects of this realm, which the chart-key walk and the YAML writer take). */
function copyJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
