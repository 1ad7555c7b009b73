/**
 * A live NodePool and its EC2NodeClass as an adopted pool's config fields, and a live
 * NodeOverlay as an overlay's: the inverse of what the model and constructs render for an
 * adopted pool (src/model/node-pool.ts, node-class.ts, src/constructs/team-node-pool.ts), so
 * that synth writes the same spec back. What the generator would say anyway is left out: a
 * field equal to its built-in (which equals the CRD's default), the cluster's own node role and
 * discovery tags (so clusters of one shape adopt into one set of teams). A spec field the config
 * has no place for is a problem naming the object and field.
 */
import type { FieldPath } from '../input/problems';
import { resourceNameProblem } from '../config/schema/keys';
import { EMPTY_SELECTOR_TERMS, emptySelectorValueReason, SelectorValue } from '../release/behaviour-changes';
import { isObject, LiveObject } from './live';

/** Fields written for one pool, or for one overlay: plain data, as the config file takes it. */
export type Fields = Record<string, unknown>;

/** A spec field the config cannot say, located in the export. */
export interface Unsayable {
  readonly object: LiveObject;
  readonly path: FieldPath;
  readonly message: string;
  /**
   * The config refuses the value (an empty selector value), rather than having no field for it yet.
   * @default false - the config has no field for it yet
   */
  readonly refused?: boolean;
}

/** What of a cluster adoption reads to leave out what the generator derives itself. */
export interface ClusterFacts {
  /** Terraform's cluster_name: `karpenter.sh/discovery` selector terms of it are the generator's default. */
  readonly clusterName: string;
  /** Terraform's karpenter_node_role_name: the default `role`. */
  readonly nodeRoleName: string;
}

/** The disruption of a NodePool the CRD and the built-ins agree on: left out when live says the same. */
const DEFAULT_CONSOLIDATION_POLICY = 'WhenEmptyOrUnderutilized';
const DEFAULT_BUDGETS = [{ nodes: '10%' }];
const DEFAULT_EXPIRE_AFTER = '720h';
const DEFAULT_METADATA_OPTIONS = { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' };

/** The pool fields adoption leaves out when the live object says their built-in, with that value (src/adopt/groups.ts reads what runs from it). */
export const ADOPTED_BUILT_INS: Readonly<Record<string, unknown>> = { expireAfter: DEFAULT_EXPIRE_AFTER, metadataOptions: DEFAULT_METADATA_OPTIONS };

/** EC2NodeClass spec fields that are pool fields of the same name and shape. */
const SAME_NAMED_CLASS_FIELDS = [
  'capacityReservationSelectorTerms', 'blockDeviceMappings', 'kubelet', 'userData', 'associatePublicIPAddress', 'detailedMonitoring', 'instanceStorePolicy',
  'instanceProfile', 'ipPrefixCount', 'context', 'placementGroupSelector', 'connectionTracking', 'cpuOptions', 'networkInterfaces',
] as const;

/**
 * The fields of an adopted pool for a NodePool (and the EC2NodeClass it uses): `adopted`, its
 * own `name`, `nodeClass` when the class is not named after it, then every field of both specs.
 */
export function poolFields(nodePool: LiveObject, nodeClass: LiveObject, cluster: ClusterFacts, unsayable: Unsayable[]): Fields {
  const say = (object: LiveObject, path: FieldPath, message: string) => unsayable.push({ object, path, message });
  const out: Fields = { adopted: true, name: nodePool.name, ...(nodeClass.name !== nodePool.name ? { nodeClass: nodeClass.name } : {}) };
  const spec = nodePool.spec;
  const template = isObject(spec.template) ? spec.template : {};
  const metadata = isObject(template.metadata) ? template.metadata : {};
  const t = isObject(template.spec) ? template.spec : {};
  for (const key of Object.keys(spec)) {
    if (!['template', 'disruption', 'limits', 'weight', 'replicas'].includes(key)) say(nodePool, ['spec', key], 'has no pool field yet');
  }
  for (const key of Object.keys(metadata)) if (!['labels', 'annotations'].includes(key)) say(nodePool, ['spec', 'template', 'metadata', key], 'has no pool field yet');
  for (const key of Object.keys(t)) {
    if (!['nodeClassRef', 'requirements', 'taints', 'startupTaints', 'expireAfter', 'terminationGracePeriod'].includes(key)) say(nodePool, ['spec', 'template', 'spec', key], 'has no pool field yet');
  }
  if (isObject(metadata.labels) && Object.keys(metadata.labels).length) out.labels = { ...metadata.labels };
  if (isObject(metadata.annotations) && Object.keys(metadata.annotations).length) out.annotations = { ...metadata.annotations };
  windowsRequirements(nodePool, t.requirements, unsayable);
  if (Array.isArray(t.requirements) && t.requirements.length) out.requirements = t.requirements.map((r) => withoutEmpty(r));
  for (const list of ['taints', 'startupTaints'] as const) {
    const taints = t[list];
    if (!Array.isArray(taints) || taints.length === 0) continue;
    taints.forEach((taint, i) => {
      if (isObject(taint) && taint.timeAdded !== undefined) say(nodePool, ['spec', 'template', 'spec', list, i, 'timeAdded'], 'is set by the controllers, never in a NodePool\'s template: remove it from the NodePool first');
    });
    out[list] = taints.map((taint) => ({ ...(taint as Fields) }));
  }
  if (t.expireAfter !== undefined && t.expireAfter !== DEFAULT_EXPIRE_AFTER) out.expireAfter = t.expireAfter;
  if (t.terminationGracePeriod !== undefined) out.terminationGracePeriod = t.terminationGracePeriod;
  const d = isObject(spec.disruption) ? spec.disruption : {};
  for (const key of Object.keys(d)) if (!['consolidationPolicy', 'consolidateAfter', 'budgets'].includes(key)) say(nodePool, ['spec', 'disruption', key], 'has no pool field yet');
  const disruption: Fields = {};
  if (d.consolidationPolicy !== undefined && d.consolidationPolicy !== DEFAULT_CONSOLIDATION_POLICY) disruption.consolidationPolicy = d.consolidationPolicy;
  // The CRD defaults consolidateAfter to 0s, the built-in is 1m: always said.
  if (d.consolidateAfter !== undefined) disruption.consolidateAfter = d.consolidateAfter;
  if (d.budgets !== undefined && JSON.stringify(d.budgets) !== JSON.stringify(DEFAULT_BUDGETS)) disruption.budgets = (d.budgets as Fields[]).map((b) => ({ ...b }));
  if (Object.keys(disruption).length) out.disruption = disruption;
  if (isObject(spec.limits)) {
    for (const key of Object.keys(spec.limits)) {
      const why = resourceNameProblem(key);
      if (why) unsayable.push({ object: nodePool, path: ['spec', 'limits', key], refused: true, message: `${why}: a limit no node's resource reaches never binds, and the config refuses it; remove it from the NodePool first` });
    }
  }
  if (isObject(spec.limits) && Object.keys(spec.limits).length) out.limits = { ...spec.limits };
  if (spec.weight !== undefined) out.weight = spec.weight;
  if (spec.replicas !== undefined) out.replicas = spec.replicas;
  return { ...out, ...classFields(nodeClass, cluster, unsayable) };
}

/** The pool fields of an EC2NodeClass's spec. */
function classFields(nodeClass: LiveObject, cluster: ClusterFacts, unsayable: Unsayable[]): Fields {
  const spec = nodeClass.spec;
  const out: Fields = {};
  const handled = new Set<string>(['amiFamily', 'amiSelectorTerms', 'role', 'subnetSelectorTerms', 'securityGroupSelectorTerms', 'metadataOptions', 'tags', ...SAME_NAMED_CLASS_FIELDS]);
  for (const key of Object.keys(spec)) if (!handled.has(key)) unsayable.push({ object: nodeClass, path: ['spec', key], message: 'has no pool field yet' });
  emptySelectorValues(nodeClass, unsayable);
  unnamedDevices(nodeClass, unsayable);
  windowsClass(nodeClass, unsayable);
  combinedTerms(nodeClass, unsayable);
  const terms = Array.isArray(spec.amiSelectorTerms) ? spec.amiSelectorTerms.filter(isObject) : [];
  const alias = terms.length === 1 && typeof terms[0].alias === 'string' ? terms[0].alias : undefined;
  if (alias !== undefined) {
    out.ami = { ...(spec.amiFamily !== undefined ? { family: spec.amiFamily } : {}), alias, ...(alias.endsWith('@latest') ? { allowLatest: true } : {}) };
  } else {
    out.ami = { ...(spec.amiFamily !== undefined ? { family: spec.amiFamily } : {}), selectorTerms: terms.map((x) => ({ ...x })) };
  }
  if (typeof spec.role === 'string' && spec.role !== cluster.nodeRoleName) out.role = spec.role;
  const discovery = JSON.stringify([{ tags: { 'karpenter.sh/discovery': cluster.clusterName } }]);
  for (const key of ['subnetSelectorTerms', 'securityGroupSelectorTerms'] as const) {
    if (spec[key] !== undefined && JSON.stringify(spec[key]) !== discovery) out[key] = (spec[key] as Fields[]).map((x) => ({ ...x }));
  }
  if (spec.metadataOptions !== undefined && JSON.stringify(sortedKeys(spec.metadataOptions)) !== JSON.stringify(sortedKeys(DEFAULT_METADATA_OPTIONS))) {
    out.metadataOptions = { ...(spec.metadataOptions as Fields) };
  }
  if (isObject(spec.tags) && Object.keys(spec.tags).length) out.tags = { ...spec.tags };
  for (const key of SAME_NAMED_CLASS_FIELDS) if (spec[key] !== undefined && !isEmpty(withoutEmpty(spec[key]))) out[key] = withoutEmpty(spec[key]);
  return out;
}

/**
 * A selector term of the live EC2NodeClass with an empty value (aws/karpenter-provider-aws#9964):
 * refused as the config refuses it (src/config/schema/node-class.ts), with the same reason.
 */
function emptySelectorValues(nodeClass: LiveObject, unsayable: Unsayable[]): void {
  const spec = nodeClass.spec;
  const refuse = (path: FieldPath, value: SelectorValue, ami?: { owner?: string }) => unsayable.push({ object: nodeClass, path, message: emptySelectorValueReason(value, ami), refused: true });
  const empty = (v: unknown) => v === '' || (isObject(v) && Object.keys(v).length === 0);
  for (const [key, { values }] of Object.entries(EMPTY_SELECTOR_TERMS)) {
    const terms = spec[key];
    if (!Array.isArray(terms)) continue;
    terms.forEach((term, i) => {
      if (!isObject(term)) return;
      const ami = key === 'amiSelectorTerms' ? { owner: typeof term.owner === 'string' ? term.owner : undefined } : undefined;
      for (const value of values) if (Object.hasOwn(term, value) && empty(term[value])) refuse(['spec', key, i, value], value, ami);
    });
  }
  const group = spec.placementGroupSelector;
  if (isObject(group)) for (const value of ['id', 'name'] as const) if (group[value] === '') refuse(['spec', 'placementGroupSelector', value], value);
}

/** Why a Windows pool is refused: the generator makes Linux nodes only (src/release: al2023, bottlerocket, al2). */
const WINDOWS = 'Windows pools are not supported: the config makes Linux nodes only (AL2023, Bottlerocket, AL2); leave this pool out of the export and keep managing it as today';

/**
 * A NodePool that asks for Windows nodes (`kubernetes.io/os In [windows]`), gives values to an
 * operator that takes none, or none to `NotIn`: refused, naming the requirement.
 */
function windowsRequirements(nodePool: LiveObject, requirements: unknown, unsayable: Unsayable[]): void {
  if (!Array.isArray(requirements)) return;
  requirements.forEach((r, i) => {
    if (isObject(r) && (r.operator === 'Exists' || r.operator === 'DoesNotExist') && Array.isArray(r.values) && r.values.length) {
      unsayable.push({ object: nodePool, path: ['spec', 'template', 'spec', 'requirements', i, 'values'], refused: true,
        message: `operator ${r.operator} takes no values (Karpenter ignores them; the config refuses them): remove them from the NodePool first` });
    }
    // The CRD requires values of In only; Karpenter makes NotIn of no values the requirement it
    // makes of Exists (kubernetes-sigs/karpenter pkg/scheduling/requirement.go, NewRequirementWithFlexibility
    // and Operator), and the config says that as Exists.
    if (isObject(r) && r.operator === 'NotIn' && (r.values === undefined || (Array.isArray(r.values) && r.values.length === 0))) {
      unsayable.push({ object: nodePool, path: ['spec', 'template', 'spec', 'requirements', i], refused: true,
        message: 'operator NotIn with no values is what Karpenter reads as Exists (the label must be there, with any value); the config refuses NotIn without values: write operator: Exists in the NodePool first' });
    }
    if (isObject(r) && r.key === 'kubernetes.io/os' && r.operator === 'In' && Array.isArray(r.values) && r.values.includes('windows')) {
      unsayable.push({ object: nodePool, path: ['spec', 'template', 'spec', 'requirements', i], message: `${WINDOWS} (kubernetes.io/os In [${r.values.join(', ')}])`, refused: true });
    }
  });
}

/**
 * A block device mapping without `deviceName`, which the CRD lets through: Karpenter hands it to EC2
 * as the launch template's device name (aws/karpenter-provider-aws pkg/providers/launchtemplate/launchtemplate.go
 * `blockDeviceMappings`) and, when no root volume gives a size, dereferences it to find the AMI's
 * root device (pkg/providers/instancetype/types.go `ephemeralStorage`). Refused, naming the mapping.
 */
function unnamedDevices(nodeClass: LiveObject, unsayable: Unsayable[]): void {
  const mappings = nodeClass.spec.blockDeviceMappings;
  if (!Array.isArray(mappings)) return;
  mappings.forEach((m, i) => {
    if (isObject(m) && m.deviceName === undefined) {
      unsayable.push({ object: nodeClass, path: ['spec', 'blockDeviceMappings', i], refused: true,
        message: 'has no deviceName: Karpenter gives EC2 each mapping\'s device name and reads it to find the root volume, and the config requires one: set deviceName (such as /dev/xvda) in the EC2NodeClass first' });
    }
  });
}

/** An EC2NodeClass of a Windows AMI (an alias `windows2022@…`, an amiFamily `Windows2022`): refused, naming the field. */
function windowsClass(nodeClass: LiveObject, unsayable: Unsayable[]): void {
  const spec = nodeClass.spec;
  const refuse = (path: FieldPath, given: string) => unsayable.push({ object: nodeClass, path, message: `${WINDOWS} (${given})`, refused: true });
  if (typeof spec.amiFamily === 'string' && /^windows/i.test(spec.amiFamily)) refuse(['spec', 'amiFamily'], `amiFamily ${spec.amiFamily}`);
  const terms = Array.isArray(spec.amiSelectorTerms) ? spec.amiSelectorTerms : [];
  terms.forEach((term, i) => {
    if (isObject(term) && typeof term.alias === 'string' && /^windows/i.test(term.alias)) refuse(['spec', 'amiSelectorTerms', i, 'alias'], `alias ${term.alias}`);
  });
}

/**
 * Selector terms that combine what the config says one at a time (an `id` with tags, a name or an
 * owner): the CRDs' rules test the whole list (`!self.all(x, has(x.id) && has(x.tags))`,
 * ec2nodeclasses CRD v1.14.1 L293-L294, L666-L669, L700-L701), so such a term passes beside a
 * term without it; the config checks each term (src/config/schema/node-class.ts). Refused, named.
 */
function combinedTerms(nodeClass: LiveObject, unsayable: Unsayable[]): void {
  const rules: readonly { readonly list: string; readonly combined: (t: Fields) => boolean; readonly say: string }[] = [
    { list: 'subnetSelectorTerms', combined: (t) => t.id !== undefined && t.tags !== undefined, say: 'id with tags' },
    { list: 'securityGroupSelectorTerms', combined: (t) => [t.id, t.name, t.tags].filter((v) => v !== undefined).length > 1, say: 'more than one of id, name, tags' },
    { list: 'capacityReservationSelectorTerms', combined: (t) => t.id !== undefined && (t.tags !== undefined || t.ownerID !== undefined || t.instanceMatchCriteria !== undefined), say: 'id with tags, ownerID or instanceMatchCriteria' },
  ];
  for (const { list, combined, say } of rules) {
    const terms = nodeClass.spec[list];
    if (!Array.isArray(terms)) continue;
    terms.forEach((term, i) => {
      if (isObject(term) && combined(term)) {
        unsayable.push({ object: nodeClass, path: ['spec', list, i], refused: true,
          message: `combines ${say} in one term, which the CRD lets through only beside a term that does not (its rule tests the list, not each term); the config takes one per term: split it, or keep only the id, on the cluster first` });
      }
    });
  }
}

/** An empty list or map: Karpenter reads it as no value (Go: len 0, as nil); the API server keeps it as given. */
function isEmpty(v: unknown): boolean {
  return (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
}

/** A deep copy of JSON data without the empty lists and maps in it (at any depth). */
function withoutEmpty<T>(value: T): T {
  const prune = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(prune);
    if (!isObject(v)) return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, prune(x)]).filter(([, x]) => !isEmpty(x)));
  };
  return copyJson(prune(value)) as T;
}

/** The fields of a cluster's overlay for a live NodeOverlay. */
export function overlayFields(overlay: LiveObject, unsayable: Unsayable[]): Fields {
  const out: Fields = {};
  for (const [key, value] of Object.entries(overlay.spec)) {
    if (['requirements', 'price', 'priceAdjustment', 'capacity', 'weight'].includes(key)) out[key] = copyJson(value);
    else unsayable.push({ object: overlay, path: ['spec', key], message: 'has no overlay field yet' });
  }
  return out;
}

function sortedKeys(v: unknown): unknown {
  return isObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v;
}

/** A deep copy of JSON data (plain objects of this realm, which the chart-key walk and the YAML writer take). */
function copyJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
