/**
 * NodePool requirements compared the way Karpenter reads them: matched by key,
 * values as sets, and a change judged by whether a node that matched before can
 * stop matching.
 *
 * Requirements are not in the NodePool hash; instead, a launched node drifts when its
 * labels are no longer compatible with the NodePool's requirements
 * (`areRequirementsDrifted`: `NewLabelRequirements(nodeClaim.Labels).Compatible(nodePoolRequirements)`).
 * So a requirement that admits every label a node could have had before (a wider one)
 * drifts no node, and a narrower one drifts the nodes whose labels fall outside it.
 * minValues is not part of that check.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/nodepool.go (Requirements `hash:"ignore"`)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/nodeclaim/disruption/drift.go (areRequirementsDrifted)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirements.go (Compatible, Intersects)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/requirement.go (NewRequirementWithFlexibility, HasIntersection)
 * @see src/catalog/requirements.ts (the semantics, shared with the dry run)
 */

import { catalogMatcher, MatchDiagnostic } from '../catalog/match';
import {
  admitsValue, containsStates, LabelStates, labelStates, NodeSelectorRequirement, normalizeKey, Operator,
} from '../catalog/requirements';

/** A NodePool requirement as the CRD writes it (read from YAML: the operator may be one the CRD refuses). */
export interface RequirementSpec {
  readonly key: string;
  readonly operator: string;
  /** @default [] */
  readonly values?: readonly string[];
  /** @default - none */
  readonly minValues?: number;
}

/** How one key's requirements changed. */
export interface RequirementChange {
  readonly key: string;
  /** What changed, for a reviewer: `added: In [c7i, m7i]`, `added spot`, `Gt 5 -> Gt 6`. */
  readonly text: string;
  /**
   * `wider`: every node that matched still matches (nothing drifts);
   * `narrower`: nodes whose label falls outside the new requirement drift;
   * `min-values`: only minValues changed (nothing drifts).
   */
  readonly effect: 'wider' | 'narrower' | 'min-values';
  /** For `narrower`: which nodes stop matching, in words (`nodes whose karpenter.sh/capacity-type is spot`). */
  readonly drifts?: string;
}

/** The label of the capacity type, named "capacity type" in reports. */
const CAPACITY_TYPE = 'karpenter.sh/capacity-type';

/** What the instance-type catalog says of a NodePool's requirements, as the dry run reads them (src/catalog/match.ts). */
export interface CatalogReading {
  /** Per (normalized) key, what is wrong with its values: `m7l matches no instance type (did you mean m7i?)`. */
  readonly unmatched: ReadonlyMap<string, readonly string[]>;
  /** Why no instance type meets the requirements together, when none does. @default - some type does */
  readonly admitsNothing?: string;
}

/**
 * The requirements of a generated NodePool against the catalog: values no instance type has
 * (a typo synth refuses, in a base or a forced head), and whether the pool can launch anything.
 * Requirements with an operator the CRD refuses are left unread.
 */
export function catalogReading(requirements: readonly RequirementSpec[]): CatalogReading {
  if (!requirements.every((r) => OPERATORS.has(r.operator))) return { unmatched: new Map() };
  const reqs = requirements as readonly NodeSelectorRequirement[];
  const result = catalogMatcher().match(reqs);
  const unmatched = new Map<string, string[]>();
  for (const d of result.diagnostics) {
    if (d.kind !== 'unknown-value' || d.valueIndex === undefined) continue;
    const key = normalizeKey(reqs[d.requirements[0]].key);
    unmatched.set(key, [...(unmatched.get(key) ?? []), `${(reqs[d.requirements[0]].values ?? [])[d.valueIndex]} matches no instance type${meant(d)}`]);
  }
  const why = result.admitted.length === 0 ? result.diagnostics.find((d) => d.kind === 'admits-nothing' || d.kind === 'conflict') : undefined;
  return { unmatched, ...(why ? { admitsNothing: why.message } : {}) };
}

/** ` (did you mean m7i?)`, ` (did you mean m7a, m7g or m7i?)`, or nothing. */
function meant(d: MatchDiagnostic): string {
  const values = d.meant ?? (d.suggestion !== undefined ? [d.suggestion] : []);
  if (values.length === 0) return '';
  return ` (did you mean ${values.length === 1 ? values[0] : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`}?)`;
}

/** Compares two requirement lists key by key; unchanged keys give nothing. */
export function compareRequirements(before: readonly RequirementSpec[], after: readonly RequirementSpec[]): RequirementChange[] {
  const a = byKey(before);
  const b = byKey(after);
  const keys = [...new Set([...a.keys(), ...b.keys()])];
  const out: RequirementChange[] = [];
  for (const key of keys) {
    const was = a.get(key) ?? [];
    const now = b.get(key) ?? [];
    if (sameList(was, now)) continue;
    out.push(change(key, was, now));
  }
  return out;
}

function change(key: string, was: readonly RequirementSpec[], now: readonly RequirementSpec[]): RequirementChange {
  const before = allowed(was);
  const after = allowed(now);
  const wider = containsStates(after, before);
  const drifts = wider ? undefined : `nodes whose ${key} ${describeLabelStates(before, after)}`;
  const effect = wider ? (sameList(was.map(withoutMinValues), now.map(withoutMinValues)) ? 'min-values' : 'wider') : 'narrower';
  const name = key === CAPACITY_TYPE ? 'capacity type' : `requirement ${key}`;
  if (was.length === 0) return { key, text: `${name} added: ${now.map(show).join(', ')}`, effect, drifts };
  if (now.length === 0) return { key, text: `${name} removed (was ${was.map(show).join(', ')})`, effect, drifts };
  const [x, y] = [was[0], now[0]];
  if (was.length === 1 && now.length === 1 && x.operator === y.operator && (x.operator === 'In' || x.operator === 'NotIn')) {
    const xs = new Set(x.values ?? []);
    const ys = new Set(y.values ?? []);
    const added = [...ys].filter((v) => !xs.has(v));
    const removed = [...xs].filter((v) => !ys.has(v));
    const [plus, minus] = x.operator === 'In' ? ['added', 'removed'] : ['excluded', 'no longer excluded'];
    const parts = [
      ...(added.length ? [`${plus} ${added.join(', ')}`] : []),
      ...(removed.length ? [`${minus} ${removed.join(', ')}`] : []),
      ...(x.minValues !== y.minValues ? [`minValues ${x.minValues ?? '(unset)'} -> ${y.minValues ?? '(unset)'}`] : []),
    ];
    return { key, text: `${name}: ${parts.join('; ')}`, effect, drifts };
  }
  return { key, text: `${name}: ${was.map(show).join(', ')} -> ${now.map(show).join(', ')}`, effect, drifts };
}

/** `In [c7i, m7i]`, `Gt 5`, `Exists`, with `minValues 2` when set. */
function show(r: RequirementSpec): string {
  const values = r.operator === 'Exists' || r.operator === 'DoesNotExist' ? ''
    : /^(Gt|Gte|Lt|Lte)$/.test(r.operator) ? ` ${(r.values ?? [])[0] ?? ''}` : ` [${(r.values ?? []).join(', ')}]`;
  return `${r.operator}${values}${r.minValues !== undefined ? ` (minValues ${r.minValues})` : ''}`;
}

/** The label states a key's requirements admit, by the shared semantics (src/catalog/requirements.ts). */
function allowed(reqs: readonly RequirementSpec[]): LabelStates {
  // An operator the CRD would refuse: assume it admits nothing, so any change of it counts as narrowing.
  if (!reqs.every((r) => OPERATORS.has(r.operator))) return NOTHING;
  return labelStates(reqs as readonly NodeSelectorRequirement[]);
}

const OPERATORS: ReadonlySet<string> = new Set<Operator>(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Gte', 'Lt', 'Lte']);
const NOTHING: LabelStates = { absent: false, complement: false, values: new Set() };

/** Which label states `before` admits that `after` does not, in words: `is spot`, `is not one of c7i, m7i`. */
function describeLabelStates(before: LabelStates, after: LabelStates): string {
  const parts: string[] = [];
  if (!before.complement) {
    const lost = [...before.values].filter((v) => !admitsValue(after, v));
    if (lost.length) parts.push(`is ${lost.join(' or ')}`);
  } else if (!after.complement) {
    parts.push(after.values.size ? `is not one of ${[...after.values].join(', ')}` : 'is set');
  } else {
    const lost = [...after.values].filter((v) => admitsValue(before, v));
    if (lost.length) parts.push(`is ${lost.join(' or ')}`);
    const bounds = [after.gte !== undefined ? `>= ${after.gte}` : '', after.lte !== undefined ? `<= ${after.lte}` : ''].filter(Boolean).join(' and ');
    if (bounds && !containsStates({ ...after, values: new Set(), absent: true }, { ...before, values: new Set(), absent: true })) parts.push(`is not ${bounds}`);
  }
  if (before.absent && !after.absent && !(before.complement && !after.complement)) parts.push('is not set');
  return parts.join(' or ') || 'no longer matches';
}

function byKey(reqs: readonly RequirementSpec[]): Map<string, RequirementSpec[]> {
  const out = new Map<string, RequirementSpec[]>();
  // Karpenter reads an aliased key as its well-known label (beta.kubernetes.io/arch is kubernetes.io/arch).
  for (const r of reqs) out.set(normalizeKey(r.key), [...(out.get(normalizeKey(r.key)) ?? []), { ...r, key: normalizeKey(r.key) }]);
  return out;
}

function withoutMinValues(r: RequirementSpec): RequirementSpec {
  return { key: r.key, operator: r.operator, values: r.values };
}

/** Equal as Karpenter reads them: the same requirements, values as sets, in any order. */
function sameList(a: readonly RequirementSpec[], b: readonly RequirementSpec[]): boolean {
  const canon = (rs: readonly RequirementSpec[]) => rs.map((r) => JSON.stringify([r.operator, [...new Set(r.values ?? [])].sort(), r.minValues ?? null])).sort().join('\n');
  return canon(a) === canon(b);
}
