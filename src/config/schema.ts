import { z } from 'zod';
import { cronProblem } from './cron';
import { suggest } from '../input/issues';
import { ALIAS_RELEASES } from './kubernetes';
import { listOrMapOf, userMap } from '../input/user-map';
import { QUANTITY_PATTERN } from '../quantity/quantity';
import { DAYS, durationMinutes, isTimeZone, MIN_WINDOW_MINUTES, WEEK } from '../schedule/windows';
import { OVERLAY_PRICE, OVERLAY_PRICE_ADJUSTMENT } from '../catalog/overlays';

// Patterns copied from the Karpenter v1.14.1 CRDs, so that a value the API server
// would reject is rejected here first, with the config's file and line.

/** Kubernetes resource quantity, e.g. `500m`, `64Gi`, `10`: the quantity module's one pattern. */
export const QUANTITY = QUANTITY_PATTERN;
const DURATION_OR_NEVER = /^(([0-9]+(s|m|h))+|Never)$/;
const DURATION = /^([0-9]+(s|m|h))+$/;
const BUDGET_DURATION = /^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/;
export const BUDGET_NODES = /^((100|[0-9]{1,2})%|[0-9]+)$/;
/** Label or taint key: optional DNS-subdomain prefix, then a name. */
export const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// The EC2NodeClass CRD's volumeSize pattern without its empty alternatives (which accept a bare
// "Ti" or "T"); like the CRD it refuses 18Ti, 19Ti, 28Ti, ... (write those in Gi).
const VOLUME_SIZE = /^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]|[1-5][0-7]|58)Ti|([1-9]|[1-5][0-9]|6[0-3]|64)T)$/;
/** Files of argocd/ beside the root Applications (`argocd/<cluster>.yaml`): no cluster may be called so. */
export const RESERVED_CLUSTER_IDS: readonly string[] = ['bootstrap', 'project', 'argocd-cm-patch', 'helm-repository'];
/** The largest value an int64 holds: the CRDs' CEL rules parse requirement bounds with int(). */
const INT64_MAX = 9223372036854775807n;
/** Names Windows reserves for files (`con.yaml` cannot be checked out there): not a team or cluster id. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
/** Resource names without a domain that Kubernetes and Karpenter know; others need one (`nvidia.com/gpu`). */
const STANDARD_RESOURCES = ['cpu', 'memory', 'ephemeral-storage', 'pods', 'nodes'] as const;
/** The standard resources a container requests. */
const CONTAINER_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'] as const;

/**
 * Why a resource name is wrong, or undefined: a standard name (`cpu`, `memory`, `hugepages-2Mi`,
 * and, where `standard` allows, `pods`, `nodes`) or a domain-qualified extended resource.
 * A misspelt `cpus` would otherwise be a limit nothing ever reaches.
 */
export function resourceNameProblem(name: string, standard: readonly string[] = STANDARD_RESOURCES): string | undefined {
  if (name.includes('/')) {
    return QUALIFIED_NAME.test(name) ? undefined : `"${name}" is not a resource name: use domain/name, e.g. nvidia.com/gpu`;
  }
  if (standard.includes(name) || /^hugepages-[0-9]+(Ki|Mi|Gi)$/.test(name)) return undefined;
  const best = suggest(name, standard);
  return `unknown resource "${name}"${best ? ` (did you mean "${best}"?)` : ''} (allowed: ${standard.join(', ')}, hugepages-<size>, or domain/name such as nvidia.com/gpu)`;
}
const ALIAS = /^[a-zA-Z0-9]+@.+$/;

/** Label keys the NodePool CRD accepts in the karpenter.k8s.aws domain. */
const AWS_WELL_KNOWN_LABELS = new Set([
  'karpenter.k8s.aws/instance-tenancy', 'karpenter.k8s.aws/capacity-reservation-type',
  'karpenter.k8s.aws/capacity-reservation-id', 'karpenter.k8s.aws/capacity-reservation-interruptible',
  'karpenter.k8s.aws/ec2nodeclass', 'karpenter.k8s.aws/instance-encryption-in-transit-supported',
  'karpenter.k8s.aws/instance-category', 'karpenter.k8s.aws/instance-hypervisor',
  'karpenter.k8s.aws/instance-family', 'karpenter.k8s.aws/instance-generation',
  'karpenter.k8s.aws/instance-local-nvme', 'karpenter.k8s.aws/instance-size',
  'karpenter.k8s.aws/instance-cpu', 'karpenter.k8s.aws/instance-cpu-manufacturer',
  'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz', 'karpenter.k8s.aws/instance-memory',
  'karpenter.k8s.aws/instance-ebs-bandwidth', 'karpenter.k8s.aws/instance-network-bandwidth',
  'karpenter.k8s.aws/instance-gpu-name', 'karpenter.k8s.aws/instance-gpu-manufacturer',
  'karpenter.k8s.aws/instance-gpu-count', 'karpenter.k8s.aws/instance-gpu-memory',
  'karpenter.k8s.aws/instance-accelerator-name', 'karpenter.k8s.aws/instance-accelerator-manufacturer',
  'karpenter.k8s.aws/instance-accelerator-count', 'karpenter.k8s.aws/instance-capability-flex',
  'karpenter.k8s.aws/placement-group-id', 'karpenter.k8s.aws/placement-group-partition',
]);

/**
 * Why the NodePool CRD would reject a label or requirement key, or undefined if it accepts it.
 * Mirrors the CRD's `x-kubernetes-validations` on labels and requirement keys.
 */
export function restrictedLabelKey(key: string): string | undefined {
  const domain = /^([^/]+)/.exec(key)?.[1] ?? '';
  if (key === 'karpenter.sh/nodepool') return 'label "karpenter.sh/nodepool" is restricted (Karpenter sets it)';
  if (key === 'kubernetes.io/hostname') return 'label "kubernetes.io/hostname" is restricted';
  if (domain.endsWith('karpenter.sh') && key !== 'karpenter.sh/capacity-type') {
    return 'label domain "karpenter.sh" is restricted (only karpenter.sh/capacity-type may be used)';
  }
  if (domain.endsWith('karpenter.k8s.aws') && !AWS_WELL_KNOWN_LABELS.has(key)) {
    return 'label domain "karpenter.k8s.aws" is restricted to its well-known labels (see karpenter.sh/docs/reference/instance-types)';
  }
  return undefined;
}

/** Keys of karpenter.k8s.aws the NodeOverlay CRD accepts in requirements (fewer than the NodePool's). */
const OVERLAY_AWS_LABELS = new Set([...AWS_WELL_KNOWN_LABELS].filter((k) => !/instance-tenancy|capacity-reservation|placement-group/.test(k)));

/**
 * Why the NodeOverlay CRD would reject a requirement key, or undefined: like a NodePool's, but
 * `karpenter.sh/nodepool` is allowed (an overlay may pick pools) and fewer AWS labels are.
 */
export function restrictedOverlayKey(key: string): string | undefined {
  const domain = /^([^/]+)/.exec(key)?.[1] ?? '';
  if (key === 'kubernetes.io/hostname') return 'label "kubernetes.io/hostname" is restricted';
  if (domain.endsWith('karpenter.sh') && key !== 'karpenter.sh/capacity-type' && key !== 'karpenter.sh/nodepool') {
    return 'label domain "karpenter.sh" is restricted (only karpenter.sh/capacity-type and karpenter.sh/nodepool may be used)';
  }
  if (domain.endsWith('karpenter.k8s.aws') && !OVERLAY_AWS_LABELS.has(key)) {
    return 'label domain "karpenter.k8s.aws" is restricted to its well-known instance labels in a NodeOverlay';
  }
  return undefined;
}

/**
 * Why the EC2NodeClass CRD would reject a tag key, or undefined if it accepts it.
 * Mirrors the CRD's `spec.tags` validations.
 */
export function restrictedTagKey(key: string): string | undefined {
  if (key === '') return 'empty tag keys are not supported';
  if (key === 'eks:eks-cluster-name' || key.startsWith('kubernetes.io/cluster')
    || key === 'karpenter.sh/nodepool' || key === 'karpenter.sh/nodeclaim' || key === 'karpenter.k8s.aws/ec2nodeclass') {
    return `tag key "${key}" is restricted (Karpenter sets it)`;
  }
  return undefined;
}

/**
 * What the tenancy policy's binding does with a pod it refuses: `Deny` refuses it, `Warn` admits
 * it with a warning to the client, `Audit` admits it and records the refusal in the audit log.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/#validation-actions
 */
export const TENANCY_ACTIONS = ['Deny', 'Warn', 'Audit'] as const;
/** One of {@link TENANCY_ACTIONS}. */
export type TenancyAction = (typeof TENANCY_ACTIONS)[number];

/** The AMI families a pool may use. */
export const AMI_FAMILIES = ['AL2023', 'Bottlerocket', 'AL2', 'Custom'] as const;
/** AMI family, as in `EC2NodeClass.spec.amiFamily`. */
export type AmiFamily = (typeof AMI_FAMILIES)[number];
const ALIAS_FAMILIES: ReadonlyMap<string, AmiFamily> = new Map([['al2023', 'AL2023'], ['bottlerocket', 'Bottlerocket'], ['al2', 'AL2']]);

/** The family an alias such as `al2023@v20250505` implies, or undefined for an unknown family. */
export function aliasFamily(alias: string): AmiFamily | undefined {
  return ALIAS_FAMILIES.get(alias.split('@')[0]);
}

const EVICTION_SIGNALS = ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'] as const;
const RESERVED_RESOURCES = ['cpu', 'memory', 'ephemeral-storage', 'pid'] as const;
const EVICTION_THRESHOLD = new RegExp(`^((\\d{1,2}(\\.\\d{1,2})?|100(\\.0{1,2})?)%||${QUANTITY_PATTERN.source.slice(1, -1)})$`);

/** How a schema validates a map whose keys the user writes: {@link userMap}, or a plain record for the editor schema. */
type MapOf = <K extends z.ZodType<string>, V extends z.ZodType>(key: K, value: V) => z.ZodType<Record<string, z.output<V>>, Record<string, z.input<V>>>;

/** For the editor schema: a userMap is a transform, which JSON Schema cannot express; the record it validates as can. */
const recordMap = ((key: z.ZodType<string>, value: z.ZodType) => z.partialRecord(key, value)) as unknown as MapOf;

/** How a schema validates a value that is either a list or a map: {@link listOrMapOf}, or a union for the editor schema. */
type ListOrMap = <L extends z.ZodType, M extends z.ZodType>(list: L, mapSchema: M) => z.ZodType<z.output<L> | z.output<M>, z.input<L> | z.input<M>>;
const unionOf = ((list: z.ZodType, mapSchema: z.ZodType) => z.union([list, mapSchema])) as unknown as ListOrMap;

/**
 * Every schema of the config, built with `map` for the maps whose keys the user writes:
 * the validating schemas use {@link userMap}, the editor schema plain records.
 */
function defineSchemas(map: MapOf, listOrMap: ListOrMap) {
  const dnsLabel = z.string().max(63).regex(DNS_LABEL, {
    error: 'must be a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit',
  });
  // Team and cluster ids name files and folders of dist/.
  const fileId = dnsLabel.refine((id) => !WINDOWS_RESERVED.test(id), {
    error: 'is a name Windows reserves for devices (con, prn, aux, nul, com1-9, lpt1-9): its files could not be checked out there; choose another',
  });
  // argocd/<cluster>.yaml sits beside the generator's own files there.
  const clusterId = fileId.refine((id) => !RESERVED_CLUSTER_IDS.includes(id), {
    error: `is the name of a file the generator writes in argocd/ (${RESERVED_CLUSTER_IDS.join(', ')}): choose another cluster id`,
  });
  const resourceName = (standard?: readonly string[]) => z.string().superRefine((name, ctx) => {
    const why = resourceNameProblem(name, standard);
    if (why) ctx.addIssue({ code: 'custom', message: why });
  });
  // Numbers become strings: the CRDs take an integer or a string, never a float like 0.5.
  const quantity = z.union([
    z.string().regex(QUANTITY, { error: 'expected a Kubernetes quantity such as "2", "500m" or "64Gi"' })
      .refine((q) => !q.startsWith('-'), { error: 'cannot be negative' }),
    z.number().nonnegative(),
  ], { error: 'expected a Kubernetes quantity such as "2", "500m" or "64Gi"' }).transform(String);
  const int32 = z.number().int().max(2147483647);
  const labelValue = z.string().max(63).regex(LABEL_VALUE, {
    error: 'must be a label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
  });
  const labelKey = z.string().max(316).regex(QUALIFIED_NAME, {
    error: 'must be a label key such as "example.com/role" or "role"',
  }).superRefine((key, ctx) => {
    const why = restrictedLabelKey(key);
    if (why) ctx.addIssue({ code: 'custom', message: why });
  });
  const durationOrNever = z.string().regex(DURATION_OR_NEVER, { error: 'must be a duration such as "30s", "10m", "720h" or "Never"' });
  const selectorTags = map(z.string().min(1, { error: 'empty tag keys are not supported' }), z.string().min(1, { error: 'empty tag values are not supported' }))
    .refine((t) => Object.keys(t).length <= 20, { error: 'at most 20 tags per selector term' });
  const nonNegInt = z.number().int().nonnegative();

  const taint = z.strictObject({
    key: z.string().min(1).regex(QUALIFIED_NAME, { error: 'must be a taint key such as "example.com/gpu"' }),
    value: z.string().regex(QUALIFIED_NAME, { error: 'must be a taint value: letters, digits, "-", "_", "." or "/"' }).optional(),
    effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
  });

  const bounds = z.strictObject({ gt: nonNegInt.optional(), gte: nonNegInt.optional(), lt: nonNegInt.optional(), lte: nonNegInt.optional() })
    .refine((b) => Object.keys(b).length > 0, { error: 'set at least one of gt, gte, lt, lte' });

  const requirement = z.strictObject({
    key: labelKey,
    operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Gte', 'Lt', 'Lte']),
    values: z.array(labelValue).optional(),
    minValues: z.number().int().min(1).max(50).optional(),
  }).superRefine((r, ctx) => {
    const values = r.values ?? [];
    if ((r.operator === 'In' || r.operator === 'NotIn') && values.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${r.operator} needs at least one value` });
    }
    if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && values.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${r.operator} takes no values` });
    }
    if (['Gt', 'Gte', 'Lt', 'Lte'].includes(r.operator) && (values.length !== 1 || !/^[0-9]+$/.test(values[0]))) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${r.operator} needs exactly one non-negative integer value, e.g. ["5"]` });
    } else if (['Gt', 'Gte', 'Lt', 'Lte'].includes(r.operator) && BigInt(values[0]) > INT64_MAX) {
      ctx.addIssue({ code: 'custom', path: ['values', 0], message: `${values[0]} is larger than the largest 64-bit integer (${INT64_MAX}), which the NodePool CRD reads it as` });
    }
    if (r.minValues !== undefined && r.operator === 'In' && values.length < r.minValues) {
      ctx.addIssue({ code: 'custom', path: ['minValues'], message: `minValues ${r.minValues} is more than the ${values.length} value(s) given` });
    }
  });

  const budget = z.strictObject({
    nodes: z.union([z.string(), nonNegInt], { error: 'expected a node count or percentage such as "10%" or "0"' })
      .transform(String)
      .pipe(z.string().regex(BUDGET_NODES, { error: 'must be a node count or percentage such as "10%" or "0"' })),
    schedule: z.string().superRefine((schedule, ctx) => {
      const why = cronProblem(schedule);
      if (why) ctx.addIssue({ code: 'custom', message: why });
    }).optional(),
    duration: z.string().regex(BUDGET_DURATION, { error: 'must be minutes and/or hours such as "30m" or "8h"' }).optional(),
    reasons: z.array(z.enum(['Underutilized', 'Empty', 'Drifted'])).max(50)
      .refine((r) => new Set(r).size === r.length, { error: 'each reason may appear once' }).optional(),
  }).superRefine((b, ctx) => {
    if ((b.schedule === undefined) !== (b.duration === undefined)) {
      const missing = b.schedule === undefined ? 'schedule' : 'duration';
      ctx.addIssue({ code: 'custom', path: [], message: `schedule and duration go together: add ${missing}` });
    }
  });

  const amiSelectorTerm = z.strictObject({
    id: z.string().regex(/ami-[0-9a-z]+/, { error: 'must be an AMI id such as ami-0123456789abcdef0' }).optional(),
    name: z.string().optional(),
    owner: z.string().optional(),
    tags: selectorTags.optional(),
    ssmParameter: z.string().optional(),
  }).superRefine((t, ctx) => {
    if (t.id === undefined && t.name === undefined && t.tags === undefined && t.ssmParameter === undefined) {
      ctx.addIssue({ code: 'custom', message: 'a selector term needs one of id, name, tags, ssmParameter' });
    }
    if (t.id !== undefined && (t.name !== undefined || t.tags !== undefined || t.owner !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: 'id cannot be combined with name, owner or tags in one term' });
    }
  });

  const ami = z.strictObject({
    family: z.enum(AMI_FAMILIES).optional(),
    alias: z.string().max(30, { error: 'an alias is at most 30 characters' }).regex(ALIAS, {
      error: 'must be family@version, e.g. al2023@v20250505 or bottlerocket@v1.39.1',
    }).optional(),
    allowLatest: z.boolean().optional(),
    selectorTerms: z.array(amiSelectorTerm).min(1).max(30).optional(),
  }).superRefine((a, ctx) => {
    // ami is one unit (never merged across levels), so every rule about it is checked here.
    if (a.alias !== undefined && a.selectorTerms !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['selectorTerms'], message: 'set either alias or selectorTerms, not both' });
    }
    if (a.alias === undefined && a.selectorTerms === undefined) {
      ctx.addIssue({ code: 'custom', message: 'set alias (e.g. al2023@v20250505) or selectorTerms with family' });
    }
    if (a.selectorTerms !== undefined && a.family === undefined) {
      ctx.addIssue({ code: 'custom', path: ['family'], message: `family is required with selectorTerms (one of ${AMI_FAMILIES.join(', ')})` });
    }
    if (a.alias !== undefined && ALIAS.test(a.alias)) {
      const [prefix, version] = a.alias.split('@');
      const implied = aliasFamily(a.alias);
      if (!implied) {
        ctx.addIssue({ code: 'custom', path: ['alias'], message: `unknown alias family "${prefix}" (allowed: al2023, bottlerocket, al2)` });
      } else if (a.family !== undefined && a.family !== implied && a.family !== 'Custom') {
        ctx.addIssue({ code: 'custom', path: ['family'], message: `family ${a.family} does not match alias ${a.alias} (use ${implied}, or leave family out)` });
      }
      const releases = ALIAS_RELEASES[prefix];
      if (implied && releases && !releases.pattern.test(version)) {
        ctx.addIssue({ code: 'custom', path: ['alias'], message: `"${version}" is not a ${prefix} release: write ${prefix}@${releases.example} (a release tag) or ${prefix}@latest` });
      } else if (version === 'latest' && a.allowLatest !== true) {
        ctx.addIssue({
          code: 'custom', path: ['alias'],
          message: `"${a.alias}" replaces every node on each AMI release: pin a version (e.g. ${prefix}@v20250505) or set allowLatest: true`,
        });
      }
    }
  });

  const volume = z.strictObject({
    size: z.string().regex(VOLUME_SIZE, {
      error: 'must be a whole size in Gi, G, Ti or T that the EC2NodeClass CRD accepts, such as "20Gi" (at most 59000Gi, 64000G, 58Ti or 64T; the CRD refuses some Ti sizes such as 18Ti: write them in Gi)',
    }).optional(),
    type: z.enum(['gp3', 'gp2', 'io1', 'io2', 'sc1', 'st1', 'standard']).optional(),
    iops: z.number().int().positive().optional(),
    throughput: z.number().int().positive().optional(),
    encrypted: z.boolean().optional(),
    kmsKeyID: z.string().min(1).optional(),
    deleteOnTermination: z.boolean().optional(),
  });

  const threshold = z.string().regex(EVICTION_THRESHOLD, { error: 'must be a percentage or quantity such as "5%" or "100Mi"' });
  const reserved = map(z.enum(RESERVED_RESOURCES), z.string().regex(QUANTITY, { error: 'must be a quantity such as "100m" or "1Gi"' })
    .refine((v) => !v.startsWith('-'), { error: 'cannot be negative' }));

  const kubelet = z.strictObject({
    clusterDNS: z.array(z.string()).optional(),
    cpuCFSQuota: z.boolean().optional(),
    evictionHard: map(z.enum(EVICTION_SIGNALS), threshold).optional(),
    evictionSoft: map(z.enum(EVICTION_SIGNALS), threshold).optional(),
    evictionSoftGracePeriod: map(z.enum(EVICTION_SIGNALS), z.string().regex(DURATION, { error: 'must be a duration such as "1m30s"' })).optional(),
    evictionMaxPodGracePeriod: int32.optional(),
    imageGCHighThresholdPercent: z.number().int().min(0).max(100).optional(),
    imageGCLowThresholdPercent: z.number().int().min(0).max(100).optional(),
    kubeReserved: reserved.optional(),
    systemReserved: reserved.optional(),
    maxPods: int32.nonnegative().optional(),
    podsPerCore: int32.nonnegative().optional(),
  });

  const metadataOptions = z.strictObject({
    httpEndpoint: z.enum(['enabled', 'disabled']).optional(),
    httpProtocolIPv6: z.enum(['enabled', 'disabled']).optional(),
    httpPutResponseHopLimit: z.number().int().min(1).max(64).optional(),
    httpTokens: z.enum(['required', 'optional']).optional(),
  });

  const subnetTerm = z.strictObject({
    id: z.string().regex(/subnet-[0-9a-z]+/, { error: 'must be a subnet id such as subnet-0123456789abcdef0' }).optional(),
    tags: selectorTags.optional(),
  }).refine((t) => (t.id === undefined) !== (t.tags === undefined), { error: 'a subnet selector term needs exactly one of id, tags' });

  const securityGroupTerm = z.strictObject({
    id: z.string().regex(/sg-[0-9a-z]+/, { error: 'must be a security group id such as sg-0123456789abcdef0' }).optional(),
    name: z.string().optional(),
    tags: selectorTags.optional(),
  }).refine((t) => [t.id, t.name, t.tags].filter((v) => v !== undefined).length === 1, {
    error: 'a security group selector term needs exactly one of id, name, tags',
  });

  const capacityReservationTerm = z.strictObject({
    id: z.string().regex(/^cr-[0-9a-z]+$/, { error: 'must be a capacity reservation id such as cr-0123456789abcdef0' }).optional(),
    ownerID: z.string().regex(/^[0-9]{12}$/, { error: 'must be a 12-digit AWS account id' }).optional(),
    instanceMatchCriteria: z.enum(['open', 'targeted']).optional(),
    tags: selectorTags.optional(),
  }).superRefine((t, ctx) => {
    if (t.id === undefined && t.tags === undefined && t.instanceMatchCriteria === undefined) {
      ctx.addIssue({ code: 'custom', message: 'a capacity reservation term needs one of id, tags, instanceMatchCriteria' });
    }
    if (t.id !== undefined && (t.tags !== undefined || t.ownerID !== undefined || t.instanceMatchCriteria !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: 'id cannot be combined with tags, ownerID or instanceMatchCriteria in one term' });
    }
  });

  const tags = map(z.string().max(128), z.string().max(256)).superRefine((t, ctx) => {
    for (const key of Object.keys(t)) {
      const why = restrictedTagKey(key);
      if (why) ctx.addIssue({ code: 'custom', path: [key], message: why });
    }
  });

  /** Every field a pool can set; each level of the inheritance chain uses this shape. */
  const poolFieldsSchema = z.strictObject({
    dedicated: z.boolean().optional().describe('taint dedicated=<team>:NoSchedule on the nodes (default true)'),
    labels: map(labelKey, labelValue).optional().describe('node labels, added to team: <team>'),
    taints: z.array(taint).optional(),
    startupTaints: z.array(taint).optional(),
    arch: z.array(z.enum(['amd64', 'arm64'])).min(1).optional().describe('default [amd64]'),
    capacityTypes: z.array(z.enum(['on-demand', 'spot', 'reserved'])).min(1).optional().describe('default [on-demand]'),
    capacityReservationSelectorTerms: z.array(capacityReservationTerm).min(1).max(30).optional(),
    instanceTypes: z.array(labelValue).min(1).optional(),
    instanceFamilies: z.array(labelValue).min(1).optional(),
    instanceCategories: z.array(labelValue).min(1).optional(),
    instanceGeneration: bounds.optional(),
    instanceCpu: bounds.optional(),
    instanceMemoryMiB: bounds.optional(),
    zones: z.array(labelValue).min(1).optional(),
    requirements: z.array(requirement).max(100).optional(),
    limits: map(resourceName(), quantity).optional(),
    weight: z.number().int().min(1).max(100).optional(),
    replicas: nonNegInt.optional().describe('a static pool (NodePool spec.replicas, gate StaticCapacity): exactly this many nodes; only limits.nodes, no weight'),
    expireAfter: durationOrNever.optional().describe('default 720h'),
    terminationGracePeriod: z.string().regex(DURATION, { error: 'must be a duration such as "30s", "10m" or "24h"' }).optional(),
    disruption: z.strictObject({
      consolidationPolicy: z.enum(['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced']).optional(),
      consolidateAfter: durationOrNever.optional(),
      budgets: z.array(budget).max(50).optional(),
    }).optional(),
    ami: ami.optional(),
    volume: volume.optional(),
    kubelet: kubelet.optional(),
    metadataOptions: metadataOptions.optional(),
    userData: z.string().optional(),
    tags: tags.optional(),
    subnetSelectorTerms: z.array(subnetTerm).min(1).max(30).optional(),
    securityGroupSelectorTerms: z.array(securityGroupTerm).min(1).max(30).optional(),
    associatePublicIPAddress: z.boolean().optional(),
    detailedMonitoring: z.boolean().optional(),
    instanceStorePolicy: z.enum(['RAID0']).optional(),
    smokeTest: z.strictObject({
      replicas: nonNegInt.optional(),
      cpu: z.union([z.number().positive(), z.string().regex(/^([0-9]+m|[0-9]+(\.[0-9]{1,3})?)$/)], {
        error: 'expected CPU as cores or millicores, such as "1", "0.5" or "500m"',
      }).optional(),
      memory: z.string().regex(/^[1-9][0-9]*(Mi|Gi)$/, { error: 'expected memory in Mi or Gi, such as "512Mi" or "2Gi"' }).optional(),
      resources: map(z.string().regex(/\//, { error: 'must be an extended resource such as nvidia.com/gpu (set cpu and memory above)' }).pipe(resourceName()),
        z.number().int().positive()).optional().describe('extended resources the test requests, e.g. { nvidia.com/gpu: 1 }'),
      image: z.string().min(1).optional(),
    }).optional(),
  });


  const teamSchema = poolFieldsSchema.extend({
    owner: z.string().min(1).max(256).optional().describe('EC2 tag "owner"'),
    costCenter: z.string().min(1).max(256).optional().describe('EC2 tag "cost-center"; also the node label "cost-center" when it is a label value (docs/cost.md)'),
    budget: z.strictObject({
      perHour: z.string().regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/, { error: 'must be a decimal number of USD per hour written as a string, such as "40" or "12.5"' })
        .refine((v) => Number(v) > 0, { error: 'must be more than 0' })
        .describe('USD per hour the team\'s pools may cost at their limits, across every cluster (us-east-1 on-demand list prices)'),
    }).optional().describe('the most the team\'s pools may cost per hour at their limits (see docs/cost.md)'),
    defaultPool: z.boolean().optional().describe('false: no pool named <team>, only its pools (default true)'),
    pools: map(dnsLabel, poolFieldsSchema).optional().describe('extra pools, each named <team>-<key>'),
    buffer: z.strictObject({
      replicas: z.number().int().min(1).max(2147483647),
      cpu: quantity,
      memory: quantity,
      pool: dnsLabel.optional().describe('the key of one of the team\'s pools; default the team\'s own pool, or its first'),
    }).optional().describe('a CapacityBuffer (gate CapacityBuffer): replicas placeholder pods of cpu and memory kept ready on the team\'s pool'),
    namespaces: z.array(dnsLabel).min(1, { error: 'list at least one namespace, or leave namespaces out (any namespace may then use the team\'s pools)' })
      .refine((ns) => new Set(ns).size === ns.length, { error: 'each namespace may appear once' })
      .optional().describe('the namespaces whose pods may use the team\'s pools (an admission policy refuses the others); default: any namespace'),
  });

  /**
   * A NodeOverlay (gate NodeOverlay): a price or extra capacity for the instance types its
   * requirements pick, checked as its CRD checks it.
   * @see https://karpenter.sh/docs/concepts/nodeoverlays/
   */
  const overlayRequirement = z.strictObject({
    key: z.string().max(316).regex(QUALIFIED_NAME, { error: 'must be a label key such as "karpenter.k8s.aws/instance-family"' }).superRefine((key, ctx) => {
      const why = restrictedOverlayKey(key);
      if (why) ctx.addIssue({ code: 'custom', message: why });
    }),
    operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Gte', 'Lt', 'Lte']),
    values: z.array(labelValue).optional(),
  }).superRefine((r, ctx) => {
    const values = r.values ?? [];
    if ((r.operator === 'In' || r.operator === 'NotIn') && values.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${r.operator} needs at least one value` });
    }
    if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && values.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${r.operator} takes no values` });
    }
    if (['Gt', 'Gte', 'Lt', 'Lte'].includes(r.operator) && (values.length !== 1 || !/^[0-9]+$/.test(values[0]) || BigInt(values[0]) > INT64_MAX)) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${r.operator} needs exactly one non-negative 64-bit integer value, e.g. ["5"]` });
    }
  });
  const overlaySchema = z.strictObject({
    requirements: z.array(overlayRequirement).min(1, { error: 'list at least one requirement: an overlay picks the instance types it applies to' }).max(100),
    price: z.union([z.string(), z.number()]).transform(String)
      .pipe(z.string().regex(OVERLAY_PRICE, { error: 'must be a price per hour such as "0.12" (digits, an optional decimal point)' })).optional(),
    priceAdjustment: z.string().regex(OVERLAY_PRICE_ADJUSTMENT, {
      error: 'must be a signed adjustment such as "-28%", "+10%", "-0.05" or "+1.2" (a percentage decrease is -0% to -100%)',
    }).optional(),
    capacity: map(resourceName().superRefine((name, ctx) => {
      if (['cpu', 'memory', 'ephemeral-storage', 'pods'].includes(name)) ctx.addIssue({ code: 'custom', message: `an overlay cannot set "${name}" capacity (the NodeOverlay CRD refuses cpu, memory, ephemeral-storage and pods): use an extended resource such as example.com/gpu-slice` });
    }), quantity).optional(),
    weight: z.number().int().min(1).max(10000).optional(),
  }).superRefine((o, ctx) => {
    if (o.price !== undefined && o.priceAdjustment !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['priceAdjustment'], message: 'an overlay sets price or priceAdjustment, never both (the NodeOverlay CRD refuses both): remove one' });
    }
  });

  /** How the API server acts on a pod the tenancy policy refuses. */
  const tenancySchema = z.strictObject({
    action: z.enum(TENANCY_ACTIONS).optional().describe('Deny (default): refuse the pod; Warn: admit it with a warning to the client; Audit: admit it and record it in the audit log (start with Audit on a cluster that already runs workloads, see docs/tenancy.md)'),
  });

  /** Keys of the controller chart values that `karpenter.controller` maps to. */
  const controllerSchema = z.strictObject({
    replicas: z.number().int().min(1).optional().describe('default 2'),
    resources: z.strictObject({
      requests: map(resourceName(CONTAINER_RESOURCES), quantity).optional(),
      limits: map(resourceName(CONTAINER_RESOURCES), quantity).optional(),
    }).optional(),
    logLevel: z.enum(['debug', 'info', 'error']).optional(),
    host: z.enum(['nodeGroup', 'fargate']).optional().describe('where the controller runs, default nodeGroup (never on a node Karpenter manages)'),
    featureGates: map(z.string(), z.boolean({ error: 'feature gates are true or false' })).optional(),
    settings: map(z.string(), z.union([z.boolean(), z.string(), z.number()])).optional(),
  });

  const version = z.string().regex(/^[0-9]+\.[0-9]+\.[0-9]+$/, { error: 'must be an exact version such as 1.14.1 (no "v", no ranges)' });
  /** `karpenter`, and `clusters.<id>.karpenter` deep-merged over it for one cluster. */
  const karpenterFields = {
    namespace: dnsLabel.optional().describe('default kube-system'),
    controller: controllerSchema.optional(),
    helmValues: map(z.string(), z.unknown()).nullish().describe('deep-merged into the chart values last'),
  };

  /** A team's pool fields for one cluster, and its pools' (only pools the team defines). */
  const clusterTeamSchema = poolFieldsSchema.extend({
    pools: map(dnsLabel, poolFieldsSchema.nullable()).optional().describe('fields for this cluster of pools the team defines'),
  }).nullable();

  const clusterSchema = z.strictObject({
    terraformOutputs: z.string().min(1).describe('the `terraform output -json` file, relative to platform.yaml'),
    destination: z.strictObject({
      server: z.url({ protocol: /^https?$/, error: 'must be an https:// URL of a Kubernetes API server' }).optional(),
      name: z.string().min(1).optional(),
    }).refine((d) => (d.server === undefined) !== (d.name === undefined), { error: 'set exactly one of server, name' }).optional(),
    teams: listOrMap(z.array(fileId), map(fileId, clusterTeamSchema))
      .optional().describe('default: every team; a list of team ids, or team id -> pool fields for this cluster'),
    smokeTests: z.boolean().optional().describe('default true'),
    overrides: poolFieldsSchema.nullish().describe('pool fields forced on every pool of this cluster'),
    karpenter: z.strictObject({ version: version.optional(), ...karpenterFields }).optional()
      .describe('deep-merged over the top-level karpenter for this cluster (staged upgrades)'),
    kubernetesVersion: z.string().regex(/^1\.[0-9]{1,2}$/, { error: 'must be a Kubernetes minor version such as "1.33" (quote it)' })
      .optional().describe('otherwise the terraform output cluster_version'),
    tenancy: tenancySchema.optional().describe('the tenancy policy of this cluster, over the top-level tenancy'),
    window: dnsLabel.optional().describe('a key of windows: Drifted nodes are replaced and the pools synced only then (docs/windows.md)'),
    stage: z.number().int().min(1).max(20).optional().describe('rollout order: a stage-N cluster\'s pools get a change after every stage-(N-1) cluster has it (docs/windows.md)'),
    overlays: map(dnsLabel, overlaySchema.nullable()).optional()
      .describe('NodeOverlays of this cluster, over the fleet-wide overlays (null: not on this cluster)'),
    legacyNodepoolsApp: z.literal('orphan', { error: 'the only value is orphan' }).optional()
      .describe('keep the single <cluster>-karpenter-nodepools Application of earlier releases, without finalizer, prune or automated sync, while the per-team Applications take the pools over'),
  });

  /** A maintenance window (docs/windows.md): when Drifted nodes may be replaced and pool Applications sync. */
  const windowSchema = z.strictObject({
    timeZone: z.string().min(1).superRefine((tz, ctx) => {
      if (!isTimeZone(tz)) ctx.addIssue({ code: 'custom', message: `unknown time zone "${tz}": use an IANA name such as Europe/Berlin, America/New_York or UTC` });
    }).describe('IANA time zone the start is written in, e.g. Europe/Berlin'),
    days: z.array(z.enum(DAYS)).min(1).refine((d) => new Set(d).size === d.length, { error: 'each day may appear once' })
      .describe('the days the window opens on, local time: sun, mon, tue, wed, thu, fri, sat'),
    start: z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, { error: 'must be a local time "HH:MM" such as "22:00" (quote it)' }),
    duration: z.string().superRefine((d, ctx) => {
      const minutes = durationMinutes(d);
      if (minutes === undefined) ctx.addIssue({ code: 'custom', message: 'must be hours and/or minutes such as "6h", "90m" or "1h30m"' });
      else if (minutes < MIN_WINDOW_MINUTES) {
        ctx.addIssue({ code: 'custom', message: `is shorter than ${MIN_WINDOW_MINUTES}m: Argo CD retries a sync the window held back only every few minutes (timeout.reconciliation), so a shorter window may close before it does; make it at least ${MIN_WINDOW_MINUTES}m` });
      } else if (minutes >= WEEK) ctx.addIssue({ code: 'custom', message: 'covers the whole week: leave the window out instead' });
    }).describe('how long the window stays open, e.g. 6h or 1h30m (at least 15m)'),
  });

  /** The whole of `config/platform.yaml`. */
  const platformSchema = z.strictObject({
    $schema: z.string().optional(),
    gitops: z.strictObject({
      repoURL: z.string().min(1).describe('the git repository Argo CD reads dist/ from'),
      targetRevision: z.string().min(1).optional().describe('default HEAD'),
      argocdNamespace: dnsLabel.optional().describe('default argocd'),
      project: dnsLabel.optional().describe('Argo CD AppProject, default "default"'),
      stageRefPrefix: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, { error: 'must be a git branch name prefix such as "karpenter-gitops/stage-"' })
        .optional().describe('the branch everything of a stage-N cluster tracks is <prefix>N (N >= 2); default karpenter-gitops/stage-'),
      driftGateImage: z.string().min(1).optional().describe('image of the drift gate Job: runs `node -e`, no shell; default the official Node.js image pinned by digest (see docs/windows.md)'),
    }),
    karpenter: z.strictObject({ version, ...karpenterFields }),
    windows: map(dnsLabel, windowSchema).optional().describe('named maintenance windows; clusters.<id>.window picks one (docs/windows.md)'),
    clusters: map(clusterId, clusterSchema).refine((c) => Object.keys(c).length > 0, { error: 'define at least one cluster' }),
    defaults: poolFieldsSchema.nullish(),
    overlays: map(dnsLabel, overlaySchema).optional().describe('NodeOverlays on every cluster: prices and extra capacity of instance types (gate NodeOverlay)'),
    tenancy: tenancySchema.optional().describe('how the policy that keeps teams\' pools to their namespaces acts (see docs/tenancy.md)'),
    teams: map(fileId, teamSchema.nullable()),
  });

  return { overlay: overlaySchema, poolFields: poolFieldsSchema, team: teamSchema, cluster: clusterSchema, clusterTeam: clusterTeamSchema, platform: platformSchema, clusterId };
}

const SCHEMAS = defineSchemas(userMap, listOrMapOf);
/** Every field a pool can set; each level of the inheritance chain uses this shape. */
export const poolFieldsSchema = SCHEMAS.poolFields;
/** The whole of `config/platform.yaml`. */
export const platformSchema = SCHEMAS.platform;
/**
 * Why `id` cannot be a cluster id (a key of `clusters`), by the schema's own rules, or undefined:
 * `npm run init` checks the id it is given before it writes it.
 */
export function clusterIdProblem(id: string): string | undefined {
  const issue = SCHEMAS.clusterId.safeParse(id).error?.issues[0];
  if (!issue) return undefined;
  return issue.code === 'too_big' ? 'is longer than 63 characters, the most a DNS-1123 label has' : issue.message;
}

/** Pool fields as written at one level of the inheritance chain. */
export type PoolFields = z.infer<typeof poolFieldsSchema>;

/** `config/platform.yaml` after schema validation, before inheritance is resolved. */
export type PlatformFile = z.infer<typeof platformSchema>;
/** `karpenter`, or a cluster's `karpenter` merged over it. */
export type KarpenterFile = PlatformFile['karpenter'];
/** One entry of `teams` (a bare `web:` is an empty team). */
export type TeamFile = z.infer<typeof SCHEMAS.team>;
/** One entry of `overlays`. */
export type OverlayFile = z.infer<typeof SCHEMAS.overlay>;
/** One entry of `clusters`. */
export type ClusterFile = z.infer<typeof SCHEMAS.cluster>;
/** One entry of `clusters.<id>.teams` written as a map (null: the team with nothing of its own here). */
export type ClusterTeamFile = z.infer<typeof SCHEMAS.clusterTeam>;

/**
 * The platform schema for a JSON Schema (maps as records, lists-or-maps as unions): what
 * `platformJsonSchema()` in src/config/json-schema.ts turns into `schema/platform.schema.json`.
 */
export function platformSchemaFor(_purpose: 'json-schema'): z.ZodType {
  return defineSchemas(recordMap, unionOf).platform;
}
