import { suggest, unknownKeyMessage } from '../input/issues';
import { FieldPath, Problem } from '../input/problems';
import { ParseError, printParseErrorCode } from 'jsonc-parser';
import { scanJson } from '../input/json-text';
import { InputOptions, linePositions, readInput } from '../input/input-file';
import { SourceFile } from '../input/source';

/** The Terraform outputs the loader reads (contract section 2); the companion module declares exactly these. */
export const TERRAFORM_OUTPUTS = {
  required: ['cluster_name', 'karpenter_node_role_name'],
  optional: [
    'karpenter_interruption_queue_name', 'karpenter_controller_role_arn', 'cluster_endpoint',
    'karpenter_pod_identity_namespace', 'karpenter_pod_identity_service_account', 'cluster_version', 'region',
    'karpenter_can_reboot_instances', 'auto_mode_node_role_name', 'auto_mode_node_pools',
  ],
} as const;

/** One cluster's IAM and SQS wiring, read from `terraform output -json`. */
export interface TerraformOutputs {
  /** The EKS cluster name: `settings.clusterName` and the discovery selectors. */
  readonly clusterName: string;
  /** IAM role name for the nodes: `EC2NodeClass.spec.role`. */
  readonly nodeRoleName: string;
  /** SQS queue name for interruption handling. @default - no interruption handling */
  readonly interruptionQueueName?: string;
  /** IRSA role ARN for the controller. @default - EKS Pod Identity */
  readonly controllerRoleArn?: string;
  /** EKS API endpoint. @default - discovered by the controller */
  readonly clusterEndpoint?: string;
  /** Namespace of the EKS Pod Identity association of the controller role. @default - not checked */
  readonly podIdentityNamespace?: string;
  /** ServiceAccount of the EKS Pod Identity association of the controller role. @default - not checked */
  readonly podIdentityServiceAccount?: string;
  /** The control plane's Kubernetes minor version (`1.34`). @default - `clusters.<id>.kubernetesVersion`, or unknown */
  readonly kubernetesVersion?: string;
  /** The cluster's AWS region (`eu-west-1`). @default - the region in the host of `cluster_endpoint`, or unknown */
  readonly region?: string;
  /**
   * The controller role may call `ec2:RebootInstances` (Karpenter 1.15's `awsFeatureGates.rebootForRepair`
   * needs it): the output `karpenter_can_reboot_instances`. @default false - not granted
   */
  readonly canRebootInstances?: boolean;
  /**
   * The IAM role of the nodes of an EKS Auto Mode NodeClass (`NodeClass.spec.role`, docs/auto-mode.md):
   * the output `auto_mode_node_role_name`; the role needs an EKS access entry of type EC2.
   * @default - `nodeRoleName`
   */
  readonly autoModeNodeRoleName?: string;
  /**
   * EKS Auto Mode's built-in pools the cluster has turned on (`compute_config.node_pools`: `system`,
   * `general-purpose`), the output `auto_mode_node_pools`. @default - not said
   */
  readonly autoModeNodePools?: readonly string[];
}

/** What reading one Terraform outputs file found. */
export interface TerraformResult {
  /** The outputs, when the file is valid. */
  readonly outputs?: TerraformOutputs;
  readonly problems: Problem[];
  readonly warnings: Problem[];
  /** A problem located at an output's value in the file. @default - absent when the file is not valid */
  readonly at?: (output: string, message: string) => Problem;
}

const ROLE_NAME = /^[\w+=,.@-]{1,64}$/;
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}(\.fifo)?$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::[0-9]{12}:role\/(.+\/)?([\w+=,.@-]{1,64})$/;
const ARN = /^arn:aws[a-z-]*:([a-z0-9-]+):[^:]*:[^:]*:(.+)$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/**
 * The cluster's region: the `region` output, else the region in the host of `cluster_endpoint`
 * (`https://XXXX.gr7.eu-west-1.eks.amazonaws.com`); undefined when neither says.
 * @see https://docs.aws.amazon.com/eks/latest/userguide/cluster-endpoint.html
 */
export function regionOf(tf: TerraformOutputs): string | undefined {
  if (tf.region !== undefined) return tf.region;
  const host = tf.clusterEndpoint !== undefined ? /^https:\/\/([^/:]+)/.exec(tf.clusterEndpoint)?.[1] : undefined;
  return host ? /\.([a-z]{2}(?:-[a-z]+)+-\d+)\.eks\.amazonaws\.com(\.cn)?$/.exec(host)?.[1] : undefined;
}

/**
 * Why a zone is not a zone of `region`, or undefined: zone names are the region and a letter
 * (`eu-west-1a`) or a Local Zone of it (`us-west-2-lax-1a`); a zone ID (`euw1-az1`) belongs in
 * the label topology.k8s.aws/zone-id, not in `zones`.
 * @see https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-availability-zones.html
 */
export function zoneProblem(zone: string, region: string): string | undefined {
  if (/^[a-z]{2,5}\d+-(az|lz)\d+$/.test(zone) || /^[a-z]{2,5}\d+-[a-z]+\d*-(az|lz)\d+$/.test(zone)) {
    return `"${zone}" is a zone ID; zones takes zone names (topology.kubernetes.io/zone) of ${region}, such as ${region}a: `
      + 'write the zone name, or require the ID with requirements: [{ key: topology.k8s.aws/zone-id, operator: In, values: [...] }]';
  }
  if (zone.startsWith(region) && /^[a-z]$|^-[a-z0-9-]+[a-z]$/.test(zone.slice(region.length))) return undefined;
  const other = /^([a-z]{2}(?:-[a-z]+)+-\d+)/.exec(zone)?.[1];
  return `"${zone}" is not a zone of the cluster's region ${region}${other && other !== region ? ` (it is in ${other})` : ''}: `
    + `Karpenter would never find capacity there; use zones of ${region}, such as ${region}a`;
}

/**
 * Reads a Terraform outputs file. Both shapes are accepted: the one
 * `terraform output -json` writes (`{"name": {"value": ...}}`) and a flat
 * `{"name": value}`. An output whose value is null counts as absent. `given` is the file's
 * text when the caller already holds it. @default - read from `path`
 */
export function readTerraformOutputs(path: string, displayPath: string, options: InputOptions, given?: string): TerraformResult {
  // `given`: the file's text, already held by the caller (LoadOptions.files), in place of the disk.
  const text = given ?? readInput(path, displayPath, {
    ...options, utf16Hint: 'in PowerShell: terraform output -json | Out-File -Encoding utf8 <file>',
  });
  if (typeof text !== 'string') return { problems: [text], warnings: [] };
  // Strict JSON first: the user knows this file as JSON, so say what JSON says is wrong.
  const scan = scanJson(text);
  const strict = jsonSyntaxProblem(text, displayPath, scan.errors);
  if (strict) return { problems: [strict], warnings: [] };
  // The positions only when a problem needs them: a valid file of a large fleet is read with JSON.parse.
  let located: SourceFile | undefined;
  const source = () => (located ??= SourceFile.parse(text, displayPath));
  if (!scan.plain && source().problems.length) return { problems: [...source().problems], warnings: [] };
  const problem = (path: FieldPath, message: string, at?: 'key') => source().problem(path, message, at);
  const data = scan.plain ? scan.plain.value : source().value;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { problems: [problem([], 'expected a JSON object of outputs, as `terraform output -json` writes')], warnings: [] };
  }
  const entries = Object.entries(data as Record<string, unknown>);
  // `terraform output -json` wraps every output in an object; a flat file has plain values.
  const wrapped = entries.filter(([, v]) => isObject(v)).length * 2 > entries.length;
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  // `broken`: the output is there but its entry is malformed (already reported).
  const values = new Map<string, { value: unknown; at: (string | number)[]; broken?: boolean }>();
  for (const [name, raw] of entries) {
    if (wrapped && isObject(raw)) {
      const extra = Object.keys(raw).filter((k) => !['value', 'type', 'sensitive'].includes(k));
      for (const k of extra) problems.push(problem([name, k], unknownKeyMessage('key', k, ['value', 'type', 'sensitive']), 'key'));
      if (!('value' in raw)) {
        // A misspelt "value" was just reported as such; otherwise say what is missing.
        if (!extra.some((k) => suggest(k, ['value']) === 'value')) {
          problems.push(problem([name], `output "${name}" has no "value" (the shape \`terraform output -json\` writes: {"value": ...})`));
        }
        values.set(name, { value: undefined, at: [name], broken: true });
      } else {
        values.set(name, { value: raw.value, at: [name, 'value'] });
      }
    } else if (wrapped || isObject(raw)) {
      problems.push(problem([name], 'mixes the `terraform output -json` shape ({"value": ...}) with the flat shape: use one'));
      values.set(name, { value: undefined, at: [name], broken: true });
    } else {
      values.set(name, { value: raw, at: [name] });
    }
  }
  const known: readonly string[] = [...TERRAFORM_OUTPUTS.required, ...TERRAFORM_OUTPUTS.optional];
  for (const name of values.keys()) {
    if (known.includes(name)) continue;
    const best = suggest(name, known);
    // Extra outputs of a larger root module are fine; a near-miss of one of ours that is missing is a typo.
    if (best && !values.has(best)) problems.push(problem([name], `unknown output "${name}" (did you mean "${best}"?)`, 'key'));
    else warnings.push(problem([name], `output "${name}" is not used by karpenter-gitops`, 'key'));
  }

  const read = (name: string, required: boolean): string | undefined => {
    const entry = values.get(name);
    if (entry?.broken) return undefined;
    if (!entry || entry.value === null || entry.value === undefined) {
      if (required) problems.push(problem([], `required output "${name}" is missing (see terraform/outputs.tf)`));
      return undefined;
    }
    if (typeof entry.value !== 'string' || entry.value === '') {
      problems.push(problem(entry.at, `output "${name}" must be a non-empty string, got ${JSON.stringify(entry.value)}`));
      return undefined;
    }
    const why = checkOutput(name, entry.value);
    if (why) problems.push(problem(entry.at, why));
    return why ? undefined : entry.value;
  };

  const outputs = {
    clusterName: read('cluster_name', true),
    nodeRoleName: read('karpenter_node_role_name', true),
    interruptionQueueName: read('karpenter_interruption_queue_name', false),
    controllerRoleArn: read('karpenter_controller_role_arn', false),
    clusterEndpoint: read('cluster_endpoint', false),
    podIdentityNamespace: read('karpenter_pod_identity_namespace', false),
    podIdentityServiceAccount: read('karpenter_pod_identity_service_account', false),
    kubernetesVersion: read('cluster_version', false),
    region: read('region', false),
    autoModeNodeRoleName: read('auto_mode_node_role_name', false),
    autoModeNodePools: readNodePools(values.get('auto_mode_node_pools'), (at, m) => problems.push(problem(at, m))),
    canRebootInstances: readBool(values.get('karpenter_can_reboot_instances'), (at, m) => problems.push(problem(at, m))),
  };
  if (problems.length || !outputs.clusterName || !outputs.nodeRoleName) return { problems, warnings };
  const at = (name: string, message: string) => problem(values.get(name)?.at ?? [], message);
  return { outputs: Object.freeze(dropUndefined(outputs)) as TerraformOutputs, problems, warnings, at };
}

/** A boolean output (`karpenter_can_reboot_instances`), or undefined when absent or not a boolean (reported). */
function readBool(entry: { value: unknown; at: (string | number)[]; broken?: boolean } | undefined, report: (at: (string | number)[], message: string) => void): boolean | undefined {
  if (!entry || entry.broken || entry.value === null || entry.value === undefined) return undefined;
  if (typeof entry.value === 'boolean') return entry.value;
  report(entry.at, `output "${entry.at[0]}" must be true or false, got ${JSON.stringify(entry.value)}`);
  return undefined;
}

/** The built-in Auto Mode pools a cluster turned on: a list of `system` and `general-purpose` (reported otherwise). */
function readNodePools(entry: { value: unknown; at: (string | number)[]; broken?: boolean } | undefined, report: (at: (string | number)[], message: string) => void): readonly string[] | undefined {
  if (!entry || entry.broken || entry.value === null || entry.value === undefined) return undefined;
  const value: unknown = entry.value;
  if (Array.isArray(value) && value.every((v) => v === 'system' || v === 'general-purpose')) return value.map(String);
  report(entry.at, `output "${entry.at[0]}" must be a list of EKS Auto Mode's built-in pools (system, general-purpose), got ${JSON.stringify(value)}`);
  return undefined;
}

/** Why a value is wrong for its output (mix-ups of names, ARNs and URLs), or undefined. */
function checkOutput(name: string, value: string): string | undefined {
  const arn = ARN.exec(value);
  switch (name) {
    case 'cluster_name':
      if (arn) return `expected the cluster name, got an ARN: use "${value.split('/').pop()}"`;
      return /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/.test(value) ? undefined : `"${value}" is not an EKS cluster name`;
    case 'karpenter_node_role_name':
    case 'auto_mode_node_role_name':
      if (arn) return `expected the IAM role name, got an ARN: use "${value.split('/').pop()}" (output node_iam_role_name, not node_iam_role_arn)`;
      return ROLE_NAME.test(value) ? undefined : `"${value}" is not an IAM role name`;
    case 'karpenter_interruption_queue_name':
      if (arn && arn[1] !== 'sqs') return `expected the SQS queue name, got the ARN of ${arn[1] === 'iam' ? 'an IAM ' : `a ${arn[1]} `}${arn[2].split('/')[0]}: output the interruption queue's name (module.karpenter.queue_name)`;
      if (arn) return `expected the SQS queue name, got an ARN: use "${value.split(':').pop()}" (output queue_name, not queue_arn)`;
      if (/^https?:\/\//.test(value)) return `expected the SQS queue name, got its URL: use "${value.split('/').pop()}" (output queue_name, not queue_url)`;
      return QUEUE_NAME.test(value) ? undefined : `"${value}" is not an SQS queue name`;
    case 'karpenter_controller_role_arn':
      if (ROLE_ARN.test(value)) return undefined;
      if (arn) return `expected an IAM role ARN (arn:aws:iam::<account>:role/<name>), got an ARN of service "${arn[1]}" and kind "${arn[2].split('/')[0]}"`;
      return `expected an IAM role ARN (arn:aws:iam::<account>:role/<name>), got "${value}"; leave the output out to use EKS Pod Identity`;
    case 'cluster_endpoint':
      return /^https:\/\/[^\s/]+/.test(value) ? undefined : `expected the cluster's https:// API endpoint, got "${value}"`;
    case 'cluster_version': {
      const minor = /^(1\.\d{1,2})\.\d+/.exec(value)?.[1];
      if (minor) return `expected the Kubernetes minor version such as "1.34" (the EKS module's cluster_version), got "${value}": use "${minor}"`;
      return /^1\.\d{1,2}$/.test(value) ? undefined : `expected the Kubernetes minor version such as "1.34" (the EKS module's cluster_version), got "${value}"`;
    }
    case 'region':
      return REGION.test(value) ? undefined : `expected an AWS region such as "eu-west-1", got "${value}"`;
    case 'karpenter_pod_identity_namespace':
    case 'karpenter_pod_identity_service_account':
      return /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(value) && value.length <= 253 ? undefined : `"${value}" is not a Kubernetes name`;
    default:
      return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * YAML accepts some text JSON does not; a Terraform outputs file must be strict JSON. The
 * problem names the line and column and the offending token only, never more of the file,
 * with a hint for the usual mistakes: an empty file, `terraform output` without `-json`,
 * a trailing comma.
 */
function jsonSyntaxProblem(text: string, displayPath: string, errors: readonly ParseError[]): Problem | undefined {
  const at = (offset: number, message: string): Problem => ({ file: displayPath, ...linePositions(text).linePos(offset), path: '', message });
  const write = 'write it with: terraform -chdir=terraform output -json > <file>';
  if (text.trim() === '') return { file: displayPath, line: 0, col: 0, path: '', message: `empty file: ${write}` };
  const first = text.search(/\S/);
  if (text[first] !== '{' && /^[A-Za-z_][\w-]*\s*=/.test(text.slice(first))) {
    return at(first, `this is what \`terraform output\` prints without -json: ${write}`);
  }
  if (errors.length === 0) return undefined;
  const e = errors[0];
  const token = text.slice(e.offset, e.offset + Math.max(1, Math.min(e.length, 20))).split('\n')[0];
  const previous = text.slice(0, e.offset).trimEnd();
  if (previous.endsWith(',') && /^[}\]]/.test(token)) return at(previous.length - 1, 'invalid JSON: trailing comma (JSON allows none before } or ]): remove it');
  const what = printParseErrorCode(e.error).replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return at(e.offset, `invalid JSON: ${what}${token ? ` at ${JSON.stringify(token)}` : ' at the end of the file'}`);
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
