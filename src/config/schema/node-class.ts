import { z } from 'zod';
import { ALIAS_RELEASES } from '../kubernetes';
import { QUANTITY_PATTERN } from '../../quantity/quantity';
import { DURATION, int32, map, quantityString } from './fields';
import { restrictedTagKey, restrictedTagKeyRule } from './keys';
import { allOfOwnerFix, emptySelectorValueReason, SelectorValue } from '../../release/behaviour-changes';

// The pool fields an EC2NodeClass carries: AMI, root volume, kubelet, instance metadata,
// subnets, security groups, capacity reservations and tags.
// @see https://karpenter.sh/docs/concepts/nodeclasses/

/** The AMI families a pool may use. */
export const AMI_FAMILIES = ['AL2023', 'Bottlerocket', 'AL2', 'Custom'] as const;
/** AMI family, as in `EC2NodeClass.spec.amiFamily`. */
export type AmiFamily = (typeof AMI_FAMILIES)[number];
const ALIAS_FAMILIES: ReadonlyMap<string, AmiFamily> = new Map([['al2023', 'AL2023'], ['bottlerocket', 'Bottlerocket'], ['al2', 'AL2']]);
const ALIAS = /^[a-zA-Z0-9]+@.+$/;

/** The family an alias such as `al2023@v20250505` implies, or undefined for an unknown family. */
export function aliasFamily(alias: string): AmiFamily | undefined {
  return ALIAS_FAMILIES.get(alias.split('@')[0]);
}

// The EC2NodeClass CRD's volumeSize pattern without its empty alternatives (which accept a bare
// "Ti" or "T"); like the CRD it refuses 18Ti, 19Ti, 28Ti, ... (write those in Gi).
const VOLUME_SIZE = /^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]|[1-5][0-7]|58)Ti|([1-9]|[1-5][0-9]|6[0-3]|64)T)$/;
const EVICTION_SIGNALS = ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'] as const;
const RESERVED_RESOURCES = ['cpu', 'memory', 'ephemeral-storage', 'pid'] as const;
const EVICTION_THRESHOLD = new RegExp(`^((\\d{1,2}(\\.\\d{1,2})?|100(\\.0{1,2})?)%||${QUANTITY_PATTERN.source.slice(1, -1)})$`);

/** For editors: exactly one of `names` is set. */
const exactlyOne = (...names: string[]) => ({ oneOf: names.map((n) => ({ required: [n] })) });
/** For editors: at least one of `names` is set. */
const someOf = (...names: string[]) => ({ anyOf: names.map((n) => ({ required: [n] })) });

/**
 * An empty tags map, name, ssmParameter or id of a selector term: Karpenter 1.9.4, 1.14.4 and
 * 1.15.3 ignore such a term (aws/karpenter-provider-aws#9964), and what earlier releases make of
 * it is no better (src/release/behaviour-changes.ts). Refused whatever the cluster's release, at the value.
 * @see https://github.com/aws/karpenter-provider-aws/issues/9964
 */
function refuseEmpty(term: Readonly<Partial<Record<SelectorValue, unknown>>>, ctx: z.RefinementCtx, values: readonly SelectorValue[], ami?: { readonly owner?: string }): void {
  for (const value of values) {
    const v = term[value];
    if (v === '' || (value === 'tags' && typeof v === 'object' && v !== null && Object.keys(v).length === 0)) {
      ctx.addIssue({ code: 'custom', path: [value], message: emptySelectorValueReason(value, ami) });
    }
  }
}

/** For editors: what {@link refuseEmpty} refuses (a selector string is never empty, a tags map has a tag). */
const nonEmpty = z.string().meta({ minLength: 1 });

/** The tags a selector term selects by (they are not written). */
const selectorTags = map(z.string().min(1, { error: 'empty tag keys are not supported' }), z.string().min(1, { error: 'empty tag values are not supported' }))
  .refine((t) => Object.keys(t).length <= 20, { error: 'at most 20 tags per selector term' }).meta({ minProperties: 1, maxProperties: 20 });

const amiSelectorTerm = z.strictObject({
  id: z.string().regex(/ami-[0-9a-z]+/, { error: 'must be an AMI id such as ami-0123456789abcdef0' }).optional(),
  name: nonEmpty.optional(),
  owner: z.string().optional(),
  tags: selectorTags.optional(),
  ssmParameter: nonEmpty.optional(),
}).superRefine((t, ctx) => {
  refuseEmpty(t, ctx, ['tags', 'name', 'ssmParameter'], { owner: t.owner });
  if (t.id === undefined && t.name === undefined && t.tags === undefined && t.ssmParameter === undefined) {
    // Only an owner: the CRD refuses it (ec2nodeclasses CRD v1.14.1 L134: at least one of tags, id, name, alias, ssmParameter).
    ctx.addIssue({ code: 'custom', message: `a selector term needs one of id, name, tags, ssmParameter${t.owner !== undefined ? `: ${allOfOwnerFix(t.owner)}` : ''}` });
  }
  if (t.id !== undefined && (t.name !== undefined || t.tags !== undefined || t.owner !== undefined)) {
    ctx.addIssue({ code: 'custom', path: ['id'], message: 'id cannot be combined with name, owner or tags in one term' });
  }
}).meta({ ...someOf('id', 'name', 'tags', 'ssmParameter'), if: { required: ['id'] }, then: { not: someOf('name', 'tags', 'owner') } });

/** A pool's AMI: one unit (never merged across levels), so every rule about it is checked here. */
export const ami = z.strictObject({
  family: z.enum(AMI_FAMILIES).optional(),
  alias: z.string().max(30, { error: 'an alias is at most 30 characters' }).regex(ALIAS, {
    error: 'must be family@version, e.g. al2023@v20250505 or bottlerocket@v1.39.1',
  }).meta({ pattern: `^(${Object.entries(ALIAS_RELEASES).map(([family, r]) => `${family}@${r.pattern.source.slice(1, -1)}`).join('|')})$` }).optional(),
  allowLatest: z.boolean().optional(),
  selectorTerms: z.array(amiSelectorTerm).min(1).max(30).optional(),
}).superRefine((a, ctx) => {
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
}).meta({
  ...exactlyOne('alias', 'selectorTerms'),
  dependencies: { selectorTerms: ['family'] },
  allOf: [
    { if: { required: ['alias'], properties: { alias: { pattern: '@latest$' } } }, then: { required: ['allowLatest'], properties: { allowLatest: { const: true } } } },
    ...[...ALIAS_FAMILIES].map(([prefix, family]) => ({
      if: { required: ['alias', 'family'], properties: { alias: { pattern: `^${prefix}@` } } },
      then: { properties: { family: { enum: [family, 'Custom'] } } },
    })),
  ],
});

/** The root volume. */
export const volume = z.strictObject({
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
// A value that is not a quantity is a CEL expression: the cluster's release says whether it takes one (src/config/kubelet.ts).
const reserved = map(z.enum(RESERVED_RESOURCES), z.union([quantityString('must be a quantity such as "100m" or "1Gi"'), z.string().min(1)]));

/**
 * The kubelet's configuration. The twelve fields every vendored release's EC2NodeClass accepts are
 * typed here; any other field is kept for the cluster's release to judge (src/config/kubelet.ts): a
 * release whose CRD types spec.kubelet (1.13, 1.14) refuses it, one that leaves it open (1.15)
 * takes any KubeletConfiguration field on AL2023. A string maxPods, or a kubeReserved or
 * systemReserved value that is not a quantity, is a CEL expression, which only such a release takes.
 */
export const kubelet = z.object({
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
  maxPods: z.union([int32.nonnegative(), z.string().min(1).meta({ description: 'a CEL expression (Karpenter 1.15 or later), e.g. "min(110, max_pods)"' })]).optional(),
  podsPerCore: int32.nonnegative().optional(),
}).catchall(z.unknown());

/** The instance metadata service's options. */
export const metadataOptions = z.strictObject({
  httpEndpoint: z.enum(['enabled', 'disabled']).optional(),
  httpProtocolIPv6: z.enum(['enabled', 'disabled']).optional(),
  httpPutResponseHopLimit: z.number().int().min(1).max(64).optional(),
  httpTokens: z.enum(['required', 'optional']).optional(),
});

/** A subnet selector term. */
export const subnetTerm = z.strictObject({
  id: z.string().regex(/subnet-[0-9a-z]+/, { error: 'must be a subnet id such as subnet-0123456789abcdef0' }).optional(),
  tags: selectorTags.optional(),
}).superRefine((t, ctx) => {
  if ((t.id === undefined) === (t.tags === undefined)) ctx.addIssue({ code: 'custom', message: 'a subnet selector term needs exactly one of id, tags' });
  refuseEmpty(t, ctx, ['tags']);
}).meta(exactlyOne('id', 'tags'));

/** A security group selector term. */
export const securityGroupTerm = z.strictObject({
  id: z.string().regex(/sg-[0-9a-z]+/, { error: 'must be a security group id such as sg-0123456789abcdef0' }).optional(),
  name: nonEmpty.optional(),
  tags: selectorTags.optional(),
}).superRefine((t, ctx) => {
  if ([t.id, t.name, t.tags].filter((v) => v !== undefined).length !== 1) ctx.addIssue({ code: 'custom', message: 'a security group selector term needs exactly one of id, name, tags' });
  refuseEmpty(t, ctx, ['tags', 'name']);
}).meta(exactlyOne('id', 'name', 'tags'));

/** A capacity reservation selector term. */
export const capacityReservationTerm = z.strictObject({
  id: z.string().regex(/^cr-[0-9a-z]+$/, { error: 'must be a capacity reservation id such as cr-0123456789abcdef0' }).optional(),
  ownerID: z.string().regex(/^[0-9]{12}$/, { error: 'must be a 12-digit AWS account id' }).optional(),
  instanceMatchCriteria: z.enum(['open', 'targeted']).optional(),
  tags: selectorTags.optional(),
}).superRefine((t, ctx) => {
  refuseEmpty(t, ctx, ['tags']);
  if (t.id === undefined && t.tags === undefined && t.instanceMatchCriteria === undefined) {
    ctx.addIssue({ code: 'custom', message: 'a capacity reservation term needs one of id, tags, instanceMatchCriteria' });
  }
  if (t.id !== undefined && (t.tags !== undefined || t.ownerID !== undefined || t.instanceMatchCriteria !== undefined)) {
    ctx.addIssue({ code: 'custom', path: ['id'], message: 'id cannot be combined with tags, ownerID or instanceMatchCriteria in one term' });
  }
}).meta({ ...someOf('id', 'tags', 'instanceMatchCriteria'), if: { required: ['id'] }, then: { not: someOf('tags', 'ownerID', 'instanceMatchCriteria') } });

/** The EC2 tags of a pool's instances (editors also refuse the generator's own, which pools.ts reports). */
export const tags = map(z.string().max(128).meta(restrictedTagKeyRule([])), z.string().max(256)).superRefine((t, ctx) => {
  for (const key of Object.keys(t)) {
    const why = restrictedTagKey(key);
    if (why) ctx.addIssue({ code: 'custom', path: [key], message: why });
  }
});

/**
 * An EBS block device mapping, as the EC2NodeClass CRD writes it: for a pool whose devices are not
 * one root volume (`volume`), such as an adopted one. The CRD's own rules stand (one root volume at
 * most; the API server refuses the rest).
 * @see https://karpenter.sh/docs/concepts/nodeclasses/#specblockdevicemappings
 */
export const blockDeviceMapping = z.strictObject({
  deviceName: z.string().min(1),
  rootVolume: z.boolean().optional(),
  ebs: z.strictObject({
    volumeSize: z.string().regex(VOLUME_SIZE, { error: 'must be a whole size in Gi, G, Ti or T, such as "100Gi"' }).optional(),
    volumeType: z.enum(['gp3', 'gp2', 'io1', 'io2', 'sc1', 'st1', 'standard']).optional(),
    // 0 as the CRD allows it: Karpenter sends EC2 no value for 0 (lo.EmptyableToPtr in
    // aws/karpenter-provider-aws pkg/providers/launchtemplate/launchtemplate.go), the volume type's default.
    iops: z.number().int().nonnegative().optional(),
    throughput: z.number().int().nonnegative().optional(),
    encrypted: z.boolean().optional(),
    kmsKeyID: z.string().min(1).optional(),
    snapshotID: z.string().min(1).optional(),
    deleteOnTermination: z.boolean().optional(),
    volumeInitializationRate: z.number().int().min(100).max(300).optional(),
  }).optional(),
});

/**
 * The EC2NodeClass fields the pool fields above do not model, as the CRD writes them (Karpenter
 * 1.14): the instance's placement group, network interfaces, connection tracking and CPU options,
 * an IP prefix count, and the `context` of a launch. A cluster whose release lacks one is told so.
 * @see https://karpenter.sh/docs/concepts/nodeclasses/
 */
export const nodeClassExtras = {
  ipPrefixCount: z.number().int().min(0).optional().describe('spec.ipPrefixCount: IPv4 prefixes per network interface'),
  context: z.string().min(1).optional().describe('spec.context: the launch context (EC2 Fleet Context)'),
  placementGroupSelector: z.strictObject({
    // The CRD's pattern for the id (placementGroupSelector.id of the v1.14.1 EC2NodeClass CRD).
    id: z.string().meta({ pattern: '^pg-[0-9a-z]+$' }).optional(), name: nonEmpty.optional(),
  }).superRefine((p, ctx) => {
    if ((p.id === undefined) === (p.name === undefined)) ctx.addIssue({ code: 'custom', message: 'set exactly one of id, name' });
    refuseEmpty(p, ctx, ['id', 'name']);
    if (p.id !== undefined && p.id !== '' && !/^pg-[0-9a-z]+$/.test(p.id)) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: `"${p.id}": must be a placement group id such as pg-0123456789abcdef0` });
    }
  }).optional(),
  connectionTracking: z.strictObject({
    tcpEstablishedTimeout: z.number().int().min(60).max(432000).optional(), udpStreamTimeout: z.number().int().min(60).max(180).optional(),
    udpTimeout: z.number().int().min(30).max(60).optional(),
  }).optional().describe('spec.connectionTracking: idle timeouts in seconds'),
  cpuOptions: z.strictObject({ nestedVirtualization: z.enum(['enabled', 'disabled']).optional() }).optional(),
  networkInterfaces: z.array(z.strictObject({
    networkCardIndex: z.number().int().min(0), deviceIndex: z.number().int().min(0), interfaceType: z.enum(['interface', 'efa-only']),
  })).min(1).optional(),
} as const;
