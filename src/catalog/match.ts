/**
 * Which instance types a NodePool's requirements admit, exactly as Karpenter
 * v1.14.1 decides it, with diagnostics that say why a set is empty or odd; and
 * what the admitted types can hold and cost.
 *
 * Karpenter turns each NodePool requirement into a `scheduling.Requirement`,
 * intersects those on the same key, and keeps an instance type when its own
 * requirements (one per well-known label: `In [value]`, or `DoesNotExist` when the
 * type lacks the label) intersect every one of them.
 *
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/scheduler.go (NewScheduler: a NodePool's instance type options)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/nodeclaim.go (filterInstanceTypesByRequirements)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/instancetype/types.go (computeRequirements)
 */
import { distinctLabelValues, karpenterCatalog, type InstanceType } from './catalog';
import { NearestValues } from './nearest';
import {
  goAtoi, groupByKey, KarpenterRequirement, KeyGroup, NodeSelectorRequirement, normalizeKey, operatorOf, Operator, typeSatisfies,
} from './requirements';

// --- catalog labels ------------------------------------------------------------

/**
 * Labels every AWS instance type carries a requirement for, so a type that lacks
 * one is `DoesNotExist` on it (not "unconstrained"). Keys of the catalog's Labels
 * tables count too; these are the ones some or all types lack.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/instancetype/types.go (computeRequirements)
 */
export const INSTANCE_TYPE_LABELS: readonly string[] = [
  'node.kubernetes.io/instance-type', 'kubernetes.io/arch', 'kubernetes.io/os',
  'karpenter.k8s.aws/instance-cpu', 'karpenter.k8s.aws/instance-cpu-manufacturer',
  'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz', 'karpenter.k8s.aws/instance-memory',
  'karpenter.k8s.aws/instance-ebs-bandwidth', 'karpenter.k8s.aws/instance-network-bandwidth',
  'karpenter.k8s.aws/instance-category', 'karpenter.k8s.aws/instance-capability-flex',
  'karpenter.k8s.aws/instance-family', 'karpenter.k8s.aws/instance-generation',
  'karpenter.k8s.aws/instance-local-nvme', 'karpenter.k8s.aws/instance-size',
  'karpenter.k8s.aws/instance-gpu-name', 'karpenter.k8s.aws/instance-gpu-manufacturer',
  'karpenter.k8s.aws/instance-gpu-count', 'karpenter.k8s.aws/instance-gpu-memory',
  'karpenter.k8s.aws/instance-accelerator-name', 'karpenter.k8s.aws/instance-accelerator-manufacturer',
  'karpenter.k8s.aws/instance-accelerator-count', 'karpenter.k8s.aws/instance-hypervisor',
  'karpenter.k8s.aws/instance-encryption-in-transit-supported',
];

/**
 * Requirements computeRequirements gives every instance type alike, which the
 * instance-types page cannot show (it lists single-valued labels only): tenancy is
 * `In [default, dedicated]`; the Windows build is `DoesNotExist` with the page's
 * AL2023 AMI family.
 * Zone, region, capacity type, zone id and capacity reservations are left out on
 * purpose: they depend on the cluster's region, subnets and reservations.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/instancetype/types.go (computeRequirements)
 */
export const UNIFORM_LABELS: ReadonlyMap<string, readonly string[]> = new Map([
  ['karpenter.k8s.aws/instance-tenancy', ['default', 'dedicated']],
  ['node.kubernetes.io/windows-build', []],
]);

// --- results -------------------------------------------------------------------

/** What a {@link MatchDiagnostic} is about. */
export type DiagnosticKind =
  /** A value of an `In`/`NotIn` requirement that no instance type has for that key. */
  | 'unknown-value'
  /** A requirement that on its own admits no instance type. */
  | 'admits-nothing'
  /** Requirements that each admit some types but together admit none. */
  | 'conflict'
  /** Requirements on one key whose intersection has no value left, which Karpenter reads as `DoesNotExist`. */
  | 'collapsed'
  /** A minValues the admitted types do not reach. */
  | 'min-values';

/**
 * One finding about a requirement list, for the config layer to place at the
 * field that causes it.
 */
export interface MatchDiagnostic {
  readonly kind: DiagnosticKind;
  /** Indexes into the requirement list, ascending; the last is where the set went wrong. */
  readonly requirements: readonly number[];
  /** The index into `values` of the value concerned. @default - the whole requirement */
  readonly valueIndex?: number;
  /** What to write instead, e.g. the closest real value. @default - no suggestion */
  readonly suggestion?: string;
  /**
   * For an `unknown-value`: every value it as likely meant, likeliest first (`suggestion` is the
   * first), when the catalog and the sibling values do not tell them apart. @default - just `suggestion`
   */
  readonly meant?: readonly string[];
  /** What is wrong, lowercase, without a trailing period. */
  readonly message: string;
}

/** How a minValues came out against the admitted types. */
export interface MinValuesCheck {
  /** The requirement carrying the (largest) minValues of its key. */
  readonly requirement: number;
  /** The label key, normalized. */
  readonly key: string;
  readonly minValues: number;
  /**
   * `met`/`unmet` for instance-type labels; `unchecked` for other keys (zone,
   * capacity type, custom labels), whose values depend on the cluster.
   */
  readonly status: 'met' | 'unmet' | 'unchecked';
  /** Distinct values among the admitted types. @default - absent when unchecked */
  readonly distinct?: number;
}

/** The instance types a requirement list admits, and what is worth saying about it. */
export interface MatchResult {
  /** The admitted instance types, in catalog order. */
  readonly admitted: readonly InstanceType[];
  /** One entry per key that has a minValues. */
  readonly minValues: readonly MinValuesCheck[];
  /**
   * Findings, by kind in the order of {@link DiagnosticKind}. When `admitted` is
   * empty there is always an `admits-nothing` or `conflict` naming the requirements
   * responsible (unless the list or the catalog is empty).
   */
  readonly diagnostics: readonly MatchDiagnostic[];
}

/** Answers requirement lists against one set of instance types, remembering every answer. */
export interface Matcher {
  /** The instance types the requirements admit, exactly as Karpenter would. */
  match(requirements: readonly NodeSelectorRequirement[]): MatchResult;
  /**
   * Whether requirements on this key filter instance types: the label keys of the
   * types, {@link INSTANCE_TYPE_LABELS} and {@link UNIFORM_LABELS} (after
   * {@link NORMALIZED_LABELS}). Other keys (zone, capacity type, custom labels) filter nothing here.
   */
  isInstanceTypeLabel(key: string): boolean;
}

// --- the matcher ---------------------------------------------------------------

/**
 * A {@link Matcher} over `types` (the catalog's, or a hand-picked slice).
 * Answers are cached by the exact requirement list, and the types each single
 * key's requirement admits are cached too, so many similar pools cost little.
 */
export function createMatcher(types: readonly InstanceType[]): Matcher {
  return new CachingMatcher(types);
}

type Bits = Uint32Array;

/** The values some type has for a key, sorted for messages and as a set for lookups. */
interface KnownValues {
  readonly sorted: readonly string[];
  readonly set: ReadonlySet<string>;
}


class CachingMatcher implements Matcher {
  private readonly instanceTypeLabels: ReadonlySet<string>;
  private readonly results = new Map<string, MatchResult>();
  private readonly admittedByRequirement = new Map<string, Bits>();
  private readonly knownValues = new Map<string, KnownValues>();
  private readonly nearest: NearestValues;

  constructor(private readonly types: readonly InstanceType[]) {
    this.nearest = new NearestValues(types);
    const keys = new Set([...INSTANCE_TYPE_LABELS, ...UNIFORM_LABELS.keys()]);
    for (const t of types) for (const k of t.labels.keys()) keys.add(k);
    this.instanceTypeLabels = keys;
  }

  match(requirements: readonly NodeSelectorRequirement[]): MatchResult {
    const cacheKey = JSON.stringify(requirements.map((r) => [r.key, r.operator, r.values ?? [], r.minValues ?? null]));
    let result = this.results.get(cacheKey);
    if (!result) this.results.set(cacheKey, result = this.evaluate(requirements));
    return result;
  }

  private evaluate(requirements: readonly NodeSelectorRequirement[]): MatchResult {
    const groups = groupByKey(requirements);
    const bits = this.admit(groups);
    const admitted = members(bits).map((i) => this.types[i]);
    const minValues = this.checkMinValues(groups, requirements, admitted);
    const diagnostics = [
      ...this.unknownValues(requirements),
      ...(admitted.length === 0 ? this.emptiness(requirements) : []),
      ...this.collapsed(groups, requirements),
      ...minValuesDiagnostics(minValues, requirements, admitted),
    ];
    return freeze({ admitted, minValues, diagnostics });
  }

  isInstanceTypeLabel(key: string): boolean {
    return this.instanceTypeLabels.has(normalizeKey(key));
  }

  /** The types every group admits; groups on other keys (zone, custom labels) admit all. */
  private admit(groups: ReadonlyMap<string, KeyGroup>): Bits {
    let bits = fullBits(this.types.length);
    for (const g of groups.values()) {
      if (this.isInstanceTypeLabel(g.requirement.key)) bits = and(bits, this.admittedBy(g.requirement));
    }
    return bits;
  }

  private admittedBy(r: KarpenterRequirement): Bits {
    const cacheKey = JSON.stringify([r.key, r.complement, [...r.values].sort(), r.gte?.toString() ?? null, r.lte?.toString() ?? null]);
    let bits = this.admittedByRequirement.get(cacheKey);
    if (!bits) {
      bits = new Uint32Array(wordsFor(this.types.length));
      this.types.forEach((t, i) => {
        if (typeSatisfies(valuesOf(t, r.key), r)) bits![i >>> 5] |= 1 << (i & 31);
      });
      this.admittedByRequirement.set(cacheKey, bits);
    }
    return bits;
  }

  /** The types a subset of the requirements admits (by index), with Karpenter's per-key intersection. */
  private admitSubset(requirements: readonly NodeSelectorRequirement[], indexes: readonly number[]): Bits {
    return this.admit(groupByKey(requirements, indexes));
  }

  /**
   * minValues counts the distinct values of the key over the admitted types;
   * a type lacking the label adds none.
   * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/cloudprovider/types.go (SatisfiesMinValues)
   */
  private checkMinValues(
    groups: ReadonlyMap<string, KeyGroup>, requirements: readonly NodeSelectorRequirement[], admitted: readonly InstanceType[],
  ): MinValuesCheck[] {
    const checks: MinValuesCheck[] = [];
    for (const g of groups.values()) {
      const { key, minValues } = g.requirement;
      if (minValues === undefined) continue;
      const requirement = g.indexes.find((i) => requirements[i].minValues === minValues) ?? g.indexes[0];
      if (!this.isInstanceTypeLabel(key)) {
        checks.push({ requirement, key, minValues, status: 'unchecked' });
        continue;
      }
      const distinct = new Set(admitted.flatMap((t) => valuesOf(t, key))).size;
      checks.push({ requirement, key, minValues, status: distinct >= minValues ? 'met' : 'unmet', distinct });
    }
    return checks;
  }

  /** Every value of the key some type has (the uniform values for tenancy and the like). */
  private known(key: string): KnownValues {
    let known = this.knownValues.get(key);
    if (!known) {
      const sorted = UNIFORM_LABELS.get(key) ?? distinctLabelValues(this.types, key);
      this.knownValues.set(key, known = { sorted, set: new Set(sorted) });
    }
    return known;
  }

  private unknownValues(requirements: readonly NodeSelectorRequirement[]): MatchDiagnostic[] {
    const out: MatchDiagnostic[] = [];
    requirements.forEach((r, i) => {
      const key = normalizeKey(r.key);
      if ((r.operator !== 'In' && r.operator !== 'NotIn') || !this.isInstanceTypeLabel(key)) return;
      const known = this.known(key).set;
      // The values written beside a typo are what its author meant alike (m7l beside c7i: a 7th-generation Intel).
      const siblings = (r.values ?? []).filter((v) => known.has(v));
      (r.values ?? []).forEach((value, valueIndex) => {
        if (!known.has(value)) out.push({ kind: 'unknown-value', requirements: [i], valueIndex, ...this.unknownValue(key, value, siblings) });
      });
    });
    return out;
  }

  private unknownValue(key: string, value: string, siblings: readonly string[]): { message: string; suggestion?: string; meant?: readonly string[] } {
    const known = this.known(key).sorted;
    const asType = key === INSTANCE_TYPE ? undefined : this.types.find((t) => t.name === value);
    if (asType) {
      const own = asType.labels.get(key);
      return own === undefined
        ? { message: `"${value}" is an instance type, not a ${key}, and it has no ${key} label` }
        : { message: `"${value}" is an instance type, not a ${key}; its ${key} is "${own}"`, suggestion: own };
    }
    if (key === INSTANCE_TYPE && this.known(FAMILY).set.has(value)) {
      return { message: `"${value}" is an instance family, not an instance type (use ${FAMILY})` };
    }
    if (known.length === 0) return { message: `no instance type has the label ${key}` };
    const all = known.length <= 10 ? [`known: ${known.join(', ')}`] : [];
    const number = closestNumber(value, known);
    if (number !== undefined) return { message: `no instance type has ${key}=${value} (${[`did you mean "${number}"?`, ...all].join(' ')})`, suggestion: number };
    const { best, like, alsoClose } = this.nearest.rank(key, value, known, siblings);
    const meant = `did you mean ${words(best.map((v) => `"${v}"`), 'or')}?`;
    const why = like ? [`it shares ${words(like.shared, 'and')} with ${like.sibling} beside it, which ${words(alsoClose, 'and')} do${alsoClose.length === 1 ? 'es' : ''} not`] : [];
    return {
      message: `no instance type has ${key}=${value} (${[meant, [...why, ...all].join('; ')].filter(Boolean).join(' ')})`,
      suggestion: best[0], ...(best.length > 1 ? { meant: best } : {}),
    };
  }

  /** Which requirements empty the set: each that admits nothing alone, else a smallest conflicting subset. */
  private emptiness(requirements: readonly NodeSelectorRequirement[]): MatchDiagnostic[] {
    if (this.types.length === 0) return [];
    const alone = requirements.map((_, i) => this.admitSubset(requirements, [i]));
    const lonely = requirements.flatMap((r, i) => (isEmpty(alone[i]) ? [{ r, i }] : []));
    if (lonely.length > 0) {
      return lonely.map(({ r, i }) => ({
        kind: 'admits-nothing' as const,
        requirements: [i],
        message: `${describe(r)} admits no instance type: ${this.whyNothing(r)}`,
      }));
    }
    const culprits = this.minimalEmptySubset(requirements);
    return [{ kind: 'conflict', requirements: culprits, message: this.conflictMessage(requirements, culprits, alone) }];
  }

  /** Drops requirements one by one while the rest still admit nothing; what remains conflicts. */
  private minimalEmptySubset(requirements: readonly NodeSelectorRequirement[]): number[] {
    let kept = requirements.map((_, i) => i);
    for (const i of [...kept]) {
      const without = kept.filter((k) => k !== i);
      if (isEmpty(this.admitSubset(requirements, without))) kept = without;
    }
    return kept;
  }

  private whyNothing(r: NodeSelectorRequirement): string {
    const key = normalizeKey(r.key);
    const known = this.known(key).sorted;
    switch (r.operator) {
      case 'In': return `no instance type has ${key} in ${list(r.values ?? [])}`;
      case 'NotIn': return `every instance type has ${key} and it excludes every value`;
      case 'Exists': return `no instance type has the label ${key}`;
      case 'DoesNotExist': return `every instance type has the label ${key}`;
      default: {
        const ints = known.filter((v) => goAtoi(v) !== undefined);
        const range = ints.length > 0 ? `; the values range from ${ints[0]} to ${ints[ints.length - 1]}` : '';
        return `no instance type has an integer ${key} ${SYMBOL.get(r.operator)} ${(r.values ?? [])[0] ?? ''}${range}`;
      }
    }
  }

  private conflictMessage(requirements: readonly NodeSelectorRequirement[], culprits: readonly number[], alone: readonly Bits[]): string {
    const described = culprits.map((i) => describe(requirements[i])).join(' and ');
    if (culprits.length !== 2) return `${described} together admit no instance type`;
    const [i, j] = culprits;
    const [ki, kj] = [i, j].map((k) => normalizeKey(requirements[k].key));
    if (ki === kj) return `${described} together admit no instance type: no ${ki} satisfies both`;
    // Explain from the side that admits fewer types, in terms of the other side's key.
    const [side, otherKey] = popcount(alone[i]) <= popcount(alone[j]) ? [i, kj] : [j, ki];
    const types = members(alone[side]).map((k) => this.types[k]);
    return `${described} together admit no instance type: ${explain(types, describe(requirements[side]), otherKey)}`;
  }

  /** Requirements on one key that intersect to nothing: Karpenter then admits only types lacking the label. */
  private collapsed(groups: ReadonlyMap<string, KeyGroup>, requirements: readonly NodeSelectorRequirement[]): MatchDiagnostic[] {
    const out: MatchDiagnostic[] = [];
    for (const g of groups.values()) {
      const { key } = g.requirement;
      if (g.indexes.length < 2 || operatorOf(g.requirement) !== 'DoesNotExist' || !this.isInstanceTypeLabel(key)) continue;
      if (g.indexes.some((i) => requirements[i].operator === 'DoesNotExist')) continue;
      out.push({
        kind: 'collapsed',
        requirements: g.indexes,
        message: `${g.indexes.map((i) => describe(requirements[i])).join(' and ')} leave no ${key} value, `
          + `which Karpenter reads as "${key} DoesNotExist": only instance types without the label qualify`,
      });
    }
    return out;
  }
}

const INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
const FAMILY = 'karpenter.k8s.aws/instance-family';
const SYMBOL: ReadonlyMap<Operator, string> = new Map([['Gt', '>'], ['Gte', '>='], ['Lt', '<'], ['Lte', '<=']]);

/** "m7g.large has kubernetes.io/arch=arm64", or a summary when the requirement admits many types. */
function explain(types: readonly InstanceType[], admittedBy: string, key: string): string {
  const valueOf = (t: InstanceType) => valuesOf(t, key).join('|');
  if (types.length <= 3) {
    return types.map((t) => (valueOf(t) === '' ? `${t.name} has no ${key} label` : `${t.name} has ${key}=${valueOf(t)}`)).join(', ');
  }
  const values = [...new Set(types.map(valueOf))];
  const shown = values.filter((v) => v !== '');
  const lacking = values.length > shown.length ? `${shown.length > 0 ? ' or ' : ''}no ${key} label` : '';
  return `the ${types.length} instance types ${admittedBy} admits have ${shown.length > 0 ? `${key} ${list(shown)}` : ''}${lacking}`;
}

function minValuesDiagnostics(
  checks: readonly MinValuesCheck[], requirements: readonly NodeSelectorRequirement[], admitted: readonly InstanceType[],
): MatchDiagnostic[] {
  return checks.filter((c) => c.status === 'unmet').map((c) => {
    const values = new Set(admitted.flatMap((t) => valuesOf(t, c.key)));
    const found = c.distinct === 0 ? 'none' : `${c.distinct} (${[...values].slice(0, 5).join(', ')}${values.size > 5 ? ', …' : ''})`;
    return {
      kind: 'min-values' as const,
      requirements: [c.requirement],
      message: `${describe(requirements[c.requirement])} needs ${c.minValues} distinct ${c.key} values `
        + `among the admitted instance types, they have ${found}`,
    };
  });
}

/** The type's requirement values on a key: its label value, the uniform values, or none (`DoesNotExist`). */
function valuesOf(t: InstanceType, key: string): readonly string[] {
  const uniform = UNIFORM_LABELS.get(key);
  if (uniform) return uniform;
  const v = t.labels.get(key);
  return v === undefined ? [] : [v];
}

/** `key Op [a, b]` the way Karpenter prints a requirement (at most five values). */
export function describe(r: NodeSelectorRequirement): string {
  if (r.operator === 'Exists' || r.operator === 'DoesNotExist') return `${r.key} ${r.operator}`;
  return `${r.key} ${r.operator} ${list(r.values ?? [])}`;
}

function list(values: readonly string[]): string {
  const shown = values.length > 5 ? [...values.slice(0, 5), `and ${values.length - 5} others`] : values;
  return `[${shown.join(', ')}]`;
}

/** How many values a message lists before "and N more". */
const MAX_LISTED = 4;

/** `a`, `a or b`, `a, b, c or d`, `a, b, c, d or 3 more` (with `and` for `or` as asked). */
function words(values: readonly string[], conjunction: 'and' | 'or'): string {
  const shown = values.length > MAX_LISTED ? [...values.slice(0, MAX_LISTED), `${values.length - MAX_LISTED} more`] : [...values];
  return shown.length <= 1 ? shown.join('') : `${shown.slice(0, -1).join(', ')} ${conjunction} ${shown[shown.length - 1]}`;
}

/** The known value numerically nearest to an integer `value` of an integer label (first wins a tie); undefined for other values. */
function closestNumber(value: string, known: readonly string[]): string | undefined {
  const n = goAtoi(value);
  const ints = known.map(goAtoi);
  if (n === undefined || !ints.every((k) => k !== undefined)) return undefined;
  const gap = (k: bigint) => (k > n ? k - n : n - k);
  let best = 0;
  ints.forEach((k, i) => { if (gap(k!) < gap(ints[best]!)) best = i; });
  return known[best];
}

// --- bit sets of type indexes ----------------------------------------------------

function wordsFor(n: number): number {
  return (n + 31) >>> 5;
}

function fullBits(n: number): Bits {
  const bits = new Uint32Array(wordsFor(n)).fill(0xffffffff);
  if (n % 32 !== 0) bits[bits.length - 1] = (2 ** (n % 32)) - 1;
  return bits;
}

function and(a: Bits, b: Bits): Bits {
  return a.map((w, i) => w & b[i]);
}

function isEmpty(bits: Bits): boolean {
  return bits.every((w) => w === 0);
}

function members(bits: Bits): number[] {
  const out: number[] = [];
  bits.forEach((w, word) => {
    for (let b = 0; b < 32; b++) if (w & (1 << b)) out.push(word * 32 + b);
  });
  return out;
}

function popcount(bits: Bits): number {
  return members(bits).length;
}

function freeze(result: MatchResult): MatchResult {
  return Object.freeze({
    admitted: Object.freeze(result.admitted),
    minValues: Object.freeze(result.minValues),
    diagnostics: Object.freeze(result.diagnostics),
  });
}

// --- fit questions ---------------------------------------------------------------

/**
 * Resource amounts in the catalog's units: cpu in millicores, memory and
 * ephemeral-storage in MiB, anything else (nvidia.com/gpu, pods, …) counted.
 */
export type ResourceAmounts = Readonly<Record<string, number>>;

/**
 * Whether the requests fit the type's allocatable: every requested amount at
 * most what it has (a resource it lacks has 0), and no allocatable negative.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/resources/resources.go (Fits)
 */
export function fits(type: InstanceType, requests: ResourceAmounts): boolean {
  for (const amount of type.allocatable.values()) if (amount < 0) return false;
  return Object.entries(requests).every(([resource, amount]) => amount <= (type.allocatable.get(resource) ?? 0));
}

/** The types whose allocatable holds the requests (empty when none does). */
export function typesThatFit(types: readonly InstanceType[], requests: ResourceAmounts): InstanceType[] {
  return types.filter((t) => fits(t, requests));
}

/** The largest allocatable of one resource among some types, and a type that has it. */
export interface LargestAmount {
  readonly amount: number;
  readonly type: string;
}

/** Per resource, the largest allocatable among the types (each resource's maximum may come from a different type). */
export function largestAllocatable(types: readonly InstanceType[]): ReadonlyMap<string, LargestAmount> {
  const largest = new Map<string, LargestAmount>();
  for (const t of types) {
    for (const [resource, amount] of t.allocatable) {
      const best = largest.get(resource);
      if (!best || amount > best.amount) largest.set(resource, { amount, type: t.name });
    }
  }
  return largest;
}

/** The on-demand price range of some types. */
export interface PriceRange {
  /** Lowest price per hour, USD. */
  readonly min: number;
  readonly minType: string;
  /** Highest price per hour, USD. */
  readonly max: number;
  readonly maxType: string;
  /** How many of the types have no price (left out of min and max). */
  readonly unpriced: number;
}

/**
 * The price range of the types that have a price, or undefined when none has. A frozen list (the
 * plan's admitted types, shared by the pools of a shape: catalog/overlays.ts overlaidAdmitted)
 * is ranged once; a list that can still change is ranged every time.
 */
export function priceRange(types: readonly InstanceType[]): PriceRange | undefined {
  if (!Object.isFrozen(types)) return rangeOf(types);
  if (!priceRanges.has(types)) priceRanges.set(types, rangeOf(types));
  return priceRanges.get(types);
}

/** {@link priceRange}s of frozen lists, held weakly by the list. */
const priceRanges = new WeakMap<readonly InstanceType[], PriceRange | undefined>();

function rangeOf(types: readonly InstanceType[]): PriceRange | undefined {
  const priced = types.filter((t): t is InstanceType & { price: number } => t.price !== undefined);
  if (priced.length === 0) return undefined;
  let lo = priced[0];
  let hi = priced[0];
  for (const t of priced) {
    if (t.price < lo.price) lo = t;
    if (t.price > hi.price) hi = t;
  }
  return Object.freeze({ min: lo.price, minType: lo.name, max: hi.price, maxType: hi.name, unpriced: types.length - priced.length });
}

let shared: Matcher | undefined;

/** The matcher over the committed catalog, shared by every pool of a run (its cache makes similar pools cheap). */
export function catalogMatcher(): Matcher {
  shared ??= createMatcher(karpenterCatalog().types);
  return shared;
}
