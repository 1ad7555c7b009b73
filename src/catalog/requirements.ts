/**
 * Karpenter's requirement semantics, in one place: the operators, key normalization
 * (well-known label aliases), parsing with int64 bounds, intersection, whether an
 * instance type's labels are admitted, whether two requirement lists can both hold, and
 * containment (which label states one requirement admits that another does not). The
 * dry run (src/catalog/match.ts, src/config/dry-run.ts) and the review
 * (src/review/requirements.ts) both ask here, so they cannot disagree.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/labels.go (NormalizedLabels)
 */

/** A node selector operator of a NodePool requirement. */
export type Operator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Gte' | 'Lt' | 'Lte';

/**
 * A NodePool requirement as the CRD writes it (the model's `Requirement` has this shape).
 * @see https://karpenter.sh/docs/concepts/nodepools/#spectemplatespecrequirements
 */
export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: Operator;
  /** @default [] */
  readonly values?: readonly string[];
  /** @default - no minimum */
  readonly minValues?: number;
}

/**
 * Deprecated label keys Karpenter rewrites to their current names before matching.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/labels.go (NormalizedLabels)
 */
export const NORMALIZED_LABELS: ReadonlyMap<string, string> = new Map([
  ['failure-domain.beta.kubernetes.io/zone', 'topology.kubernetes.io/zone'],
  ['beta.kubernetes.io/arch', 'kubernetes.io/arch'],
  ['beta.kubernetes.io/os', 'kubernetes.io/os'],
  ['beta.kubernetes.io/instance-type', 'node.kubernetes.io/instance-type'],
  ['failure-domain.beta.kubernetes.io/region', 'topology.kubernetes.io/region'],
]);

/** The label key Karpenter uses for `key`: its well-known alias resolved (`beta.kubernetes.io/arch` → `kubernetes.io/arch`). */
export function normalizeKey(key: string): string {
  return NORMALIZED_LABELS.get(key) ?? key;
}

/**
 * A requirement as Karpenter holds it after parsing: a value set or its
 * complement, with optional inclusive integer bounds.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go (Requirement)
 */
export interface KarpenterRequirement {
  readonly key: string;
  readonly complement: boolean;
  readonly values: ReadonlySet<string>;
  readonly gte?: bigint;
  readonly lte?: bigint;
  readonly minValues?: number;
}

/** Go's int64 maximum, where `Gt` stops admitting anything. */
export const MAX_INT = 2n ** 63n - 1n;
const MIN_INT = -(2n ** 63n);
const NO_VALUES: ReadonlySet<string> = new Set();

/**
 * Parses a requirement the way NewRequirementWithFlexibility does: the key
 * normalized; `Gt n` becomes `>= n+1` (and `Gt MaxInt` becomes `DoesNotExist`,
 * dropping minValues), `Lt n` becomes `<= n-1` (wrapping at MinInt as Go's int does).
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go (NewRequirementWithFlexibility)
 */
export function parseRequirement(r: NodeSelectorRequirement): KarpenterRequirement {
  const key = normalizeKey(r.key);
  const values = r.values ?? [];
  const base = { key, minValues: r.minValues };
  const bound = () => goAtoiIgnoringErrors(values[0] ?? '');
  switch (r.operator) {
    case 'In': return { ...base, complement: false, values: new Set(values) };
    case 'NotIn': return { ...base, complement: true, values: new Set(values) };
    case 'Exists': return { ...base, complement: true, values: NO_VALUES };
    case 'DoesNotExist': return { ...base, complement: false, values: NO_VALUES };
    case 'Gt': {
      const n = bound();
      if (n === MAX_INT) return { key, complement: false, values: NO_VALUES };
      return { ...base, complement: true, values: NO_VALUES, gte: n + 1n };
    }
    case 'Lt': {
      const n = bound();
      return { ...base, complement: true, values: NO_VALUES, lte: n === MIN_INT ? MAX_INT : n - 1n };
    }
    case 'Gte': return { ...base, complement: true, values: NO_VALUES, gte: bound() };
    case 'Lte': return { ...base, complement: true, values: NO_VALUES, lte: bound() };
  }
}

/**
 * Two requirements on one key as one: values intersected (a complement
 * subtracts), bounds tightened, the larger minValues kept; crossing bounds, or a
 * value set left empty, mean `DoesNotExist`.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go (Intersection)
 */
export function intersect(a: KarpenterRequirement, b: KarpenterRequirement): KarpenterRequirement {
  const complement = a.complement && b.complement;
  const gte = a.gte === undefined ? b.gte : b.gte === undefined ? a.gte : (a.gte > b.gte ? a.gte : b.gte);
  const lte = a.lte === undefined ? b.lte : b.lte === undefined ? a.lte : (a.lte < b.lte ? a.lte : b.lte);
  const minValues = a.minValues === undefined ? b.minValues : b.minValues === undefined ? a.minValues : Math.max(a.minValues, b.minValues);
  if (gte !== undefined && lte !== undefined && gte > lte) return { key: a.key, complement: false, values: NO_VALUES, minValues };
  let values: string[];
  if (a.complement && b.complement) values = [...a.values, ...b.values];
  else if (a.complement) values = [...b.values].filter((v) => !a.values.has(v));
  else if (b.complement) values = [...a.values].filter((v) => !b.values.has(v));
  else values = [...a.values].filter((v) => b.values.has(v));
  values = values.filter((v) => withinBounds(v, gte, lte));
  // Bounds only constrain a complement; a concrete set has been filtered by them already.
  const result = { key: a.key, complement, values: new Set(values), minValues };
  return complement ? { ...result, gte, lte } : result;
}

/** @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go (Operator) */
export function operatorOf(r: KarpenterRequirement): 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' {
  if (r.complement) return r.values.size > 0 ? 'NotIn' : 'Exists';
  return r.values.size > 0 ? 'In' : 'DoesNotExist';
}

/**
 * Whether an instance type whose requirement on the key is `In typeValues`
 * (`DoesNotExist` when empty) is compatible with `r`: their values overlap, or
 * neither side wants the label (`NotIn`/`DoesNotExist` against `DoesNotExist`).
 * So `In`, `Exists` and the bounds need the label; `NotIn` and `DoesNotExist` hold without it.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go (Intersects)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go (HasIntersection)
 */
export function typeSatisfies(typeValues: readonly string[], r: KarpenterRequirement): boolean {
  if (hasIntersection(typeValues, r)) return true;
  const incoming = operatorOf(r);
  return typeValues.length === 0 && (incoming === 'NotIn' || incoming === 'DoesNotExist');
}

export function hasIntersection(typeValues: readonly string[], r: KarpenterRequirement): boolean {
  if (r.gte !== undefined && r.lte !== undefined && r.gte > r.lte) return false;
  return typeValues.some((v) => r.values.has(v) !== r.complement && withinBounds(v, r.gte, r.lte));
}

/**
 * Whether a label value lies within integer bounds; with bounds set, a value
 * that is not an integer (by Go's strconv.Atoi: optional sign, digits, int64) never does.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go (withinBounds)
 */
export function withinBounds(value: string, gte: bigint | undefined, lte: bigint | undefined): boolean {
  if (gte === undefined && lte === undefined) return true;
  const n = goAtoi(value);
  if (n === undefined) return false;
  return (gte === undefined || n >= gte) && (lte === undefined || n <= lte);
}

// --- requirement lists against each other -----------------------------------------

/**
 * The operator each key of a requirement list adds up to, keys normalized and the
 * requirements on one key intersected: `In`, `NotIn`, `Exists` (bounds included) or
 * `DoesNotExist` (a set left empty).
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go (Add)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go (Operator)
 */
export function keyOperators(requirements: readonly NodeSelectorRequirement[]): Map<string, 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'> {
  return new Map([...groupByKey(requirements)].map(([key, g]) => [key, operatorOf(g.requirement)]));
}

/**
 * The keys on which two requirement lists cannot both hold, as Requirements.Intersects
 * decides: for each key both lists constrain (each list's requirements on it
 * intersected first), the two must share a value within their bounds, unless neither
 * needs the label (each side `NotIn` or `DoesNotExist`). A key only one list has never
 * conflicts. Keys normalized, in the order `incoming` first names them.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go (Intersects)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go (HasIntersection)
 */
export function conflictingKeys(existing: readonly NodeSelectorRequirement[], incoming: readonly NodeSelectorRequirement[]): string[] {
  const mine = groupByKey(existing);
  const negative = (r: KarpenterRequirement) => operatorOf(r) === 'NotIn' || operatorOf(r) === 'DoesNotExist';
  const out: string[] = [];
  for (const [key, theirs] of groupByKey(incoming)) {
    const own = mine.get(key);
    if (!own || requirementsIntersect(own.requirement, theirs.requirement)) continue;
    if (negative(own.requirement) && negative(theirs.requirement)) continue;
    out.push(key);
  }
  return out;
}

/** @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go (HasIntersection) */
export function requirementsIntersect(a: KarpenterRequirement, b: KarpenterRequirement): boolean {
  const gte = a.gte === undefined ? b.gte : b.gte === undefined ? a.gte : (a.gte > b.gte ? a.gte : b.gte);
  const lte = a.lte === undefined ? b.lte : b.lte === undefined ? a.lte : (a.lte < b.lte ? a.lte : b.lte);
  if (gte !== undefined && lte !== undefined && gte > lte) return false;
  if (a.complement && b.complement) return true;
  const [concrete, other] = a.complement ? [b, a] : [a, b];
  return [...concrete.values].some((v) => other.values.has(v) !== other.complement && withinBounds(v, gte, lte));
}

const integers = new Map<string, bigint | undefined>();

/** Go's strconv.Atoi on a 64-bit platform, or undefined where it returns an error. */
export function goAtoi(text: string): bigint | undefined {
  if (integers.has(text)) return integers.get(text);
  const n = /^[+-]?[0-9]+$/.test(text) ? BigInt(text) : undefined;
  const result = n !== undefined && n >= MIN_INT && n <= MAX_INT ? n : undefined;
  if (integers.size < 100_000) integers.set(text, result);
  return result;
}

/**
 * What NewRequirementWithFlexibility gets from `value, _ := strconv.Atoi(...)`:
 * 0 for text that is not an integer, the int64 limit for one out of range.
 * The CRD only lets non-negative integers through, so these cases are academic.
 */
function goAtoiIgnoringErrors(text: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(text)) return 0n;
  const n = BigInt(text);
  return n > MAX_INT ? MAX_INT : n < MIN_INT ? MIN_INT : n;
}

/** A key's requirements intersected, and where they are in the list. */
export interface KeyGroup {
  readonly requirement: KarpenterRequirement;
  readonly indexes: readonly number[];
}

/**
 * The requirements grouped by normalized key, each group intersected in list
 * order, as Requirements.Add does.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go (Add)
 */
export function groupByKey(requirements: readonly NodeSelectorRequirement[], only?: readonly number[]): Map<string, KeyGroup> {
  const groups = new Map<string, KeyGroup>();
  for (const i of only ?? requirements.map((_, k) => k)) {
    const parsed = parseRequirement(requirements[i]);
    const existing = groups.get(parsed.key);
    groups.set(parsed.key, existing
      ? { requirement: intersect(parsed, existing.requirement), indexes: [...existing.indexes, i] }
      : { requirement: parsed, indexes: [i] });
  }
  return groups;
}

// --- containment: which label states a key's requirements admit ------------------

/**
 * Every state a node's label may be in under a key's requirements (all of them at
 * once, intersected as Karpenter does): whether the label may be absent, and which
 * values it may have — a set, or everything but a set, within integer bounds. A node
 * without the label is compatible only when the requirement's operator is `NotIn` or
 * `DoesNotExist` (`Compatible`: any other operator needs the key).
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go (Compatible)
 */
export interface LabelStates {
  readonly absent: boolean;
  readonly complement: boolean;
  readonly values: ReadonlySet<string>;
  readonly gte?: bigint;
  readonly lte?: bigint;
}

/** No requirement on a key: any value, or none. */
export const ANY_LABEL_STATE: LabelStates = { absent: true, complement: true, values: NO_VALUES };

/** The label states a key's requirements admit (keys assumed normalized and equal). */
export function labelStates(requirements: readonly NodeSelectorRequirement[]): LabelStates {
  if (requirements.length === 0) return ANY_LABEL_STATE;
  const r = requirements.map(parseRequirement).reduce((a, b) => intersect(b, a));
  const op = operatorOf(r);
  return { absent: op === 'NotIn' || op === 'DoesNotExist', complement: r.complement, values: r.values, gte: r.gte, lte: r.lte };
}

/** Whether a label value is one of the states. */
export function admitsValue(s: LabelStates, value: string): boolean {
  return s.values.has(value) !== s.complement && withinBounds(value, s.gte, s.lte);
}

/** Whether every label state `inner` admits, `outer` admits too (so `outer` is as wide or wider). */
export function containsStates(outer: LabelStates, inner: LabelStates): boolean {
  if (inner.absent && !outer.absent) return false;
  if (!inner.complement) return [...inner.values].every((v) => admitsValue(outer, v));
  // inner admits infinitely many values: so must outer, and no fewer.
  if (!outer.complement) return false;
  if ([...outer.values].some((v) => admitsValue(inner, v))) return false;
  const lowerOk = outer.gte === undefined || (inner.gte !== undefined && inner.gte >= outer.gte);
  const upperOk = outer.lte === undefined || (inner.lte !== undefined && inner.lte <= outer.lte);
  return lowerOk && upperOk;
}
