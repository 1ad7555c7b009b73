import { catalogMatcher, fits, largestAllocatable, Matcher, MatchResult, ResourceAmounts } from '../catalog/match';
import type { PoolSettings } from './platform';
import { FieldPath, renderPath } from '../input/problems';
import { Quantity } from '../quantity/quantity';
import { inCatalogUnits } from '../quantity/resource-units';
import type { SourcedRequirement } from './platform';

/** A finding of the dry run, at a pool field. */
export interface DryRunProblem {
  readonly field: FieldPath;
  readonly message: string;
  readonly severity: 'error' | 'warning';
}

/** Spot pools with fewer instance types to choose from than this get a warning. */
export const SPOT_DIVERSITY = 10;

/**
 * Fewer instance types than this and Karpenter does not replace a single spot node by a
 * cheaper spot node (SpotToSpotConsolidation), to avoid a race to the bottom.
 * @see https://karpenter.sh/docs/concepts/disruption/#consolidation (spot-to-spot: "a minimum of 15 instance types")
 */
export const SPOT_TO_SPOT_MIN_TYPES = 15;

/** The extended resources that are accelerators (a GPU pool's smoke test requests one). */
export const ACCELERATORS = ['nvidia.com/gpu', 'amd.com/gpu', 'aws.amazon.com/neuron', 'aws.amazon.com/neuroncore', 'habana.ai/gaudi'];


/**
 * Will the pool ever launch a node? Its requirements against Karpenter's instance-type
 * catalog, exactly as Karpenter matches them (src/catalog/match.ts): errors for a value no
 * instance type has (a family, type, category, size ...: a typo the other values would hide,
 * with the real value the catalog and the sibling values rank first), a pool that admits no
 * instance type (at the field that empties the set, or naming the fields that conflict), a
 * `minValues` the admitted types cannot meet, and a smoke test that fits none of them or, in a
 * GPU pool, requests no GPU (when the cluster runs smoke tests: `options.smokeTests`, default
 * true); warnings for a spot pool with few instance types.
 * @see https://karpenter.sh/docs/concepts/nodepools/#spectemplatespecrequirements
 */
export function dryRun(name: string, s: PoolSettings, requirements: readonly SourcedRequirement[], options: { readonly smokeTests?: boolean; readonly matcher?: Matcher } = {}): DryRunProblem[] {
  const matcher = options.matcher ?? catalogMatcher();
  const result = matcher.match(requirements.map((r) => r.requirement));
  const problems: DryRunProblem[] = [];
  const at = (i: number, valueIndex?: number): FieldPath => {
    const field = requirements[i].field;
    if (valueIndex === undefined) return field;
    // A value of a list field (instanceFamilies[1]) or of a requirement's values.
    return field[0] === 'requirements' ? [...field, 'values', valueIndex] : [...field, valueIndex];
  };
  const label = (i: number) => renderPath(requirements[i].field);
  const empty = result.admitted.length === 0;
  // A conflict the typos alone make (m7l beside instanceCategories [m]) is theirs: said once, at them.
  const typosOnly = empty && admitsWithSuggestions(matcher, requirements, result);
  for (const d of result.diagnostics) {
    const last = d.requirements[d.requirements.length - 1];
    switch (d.kind) {
      case 'unknown-value':
        problems.push({ field: at(last, d.valueIndex), severity: 'error', message: d.message });
        break;
      case 'admits-nothing':
      case 'collapsed':
        if (!result.diagnostics.some((u) => u.kind === 'unknown-value' && u.requirements.includes(last))) {
          problems.push({ field: at(last), severity: 'error', message: `pool ${name} can never launch a node: ${d.message}` });
        }
        break;
      case 'conflict':
        if (typosOnly) break;
        problems.push({
          field: at(last), severity: 'error',
          message: `pool ${name} can never launch a node: ${d.requirements.map(label).join(' and ')} conflict: ${d.message}`,
        });
        break;
      case 'min-values':
        problems.push({ field: [...requirements[last].field, ...(requirements[last].field[0] === 'requirements' ? ['minValues'] : [])], severity: 'error', message: `pool ${name} can never launch a node: ${d.message}` });
        break;
    }
  }
  // A cluster without smoke tests runs none, so there is nothing of them to check.
  if (!empty) problems.push(...(options.smokeTests === false ? [] : smokeTestProblems(name, s, result)), ...capacityWarnings(name, s, result));
  return problems;
}

/**
 * Whether the requirements admit some type once each unknown value is what it likely meant (every
 * value as likely, when several are: one of them fixes it if their union does).
 */
function admitsWithSuggestions(matcher: Matcher, requirements: readonly SourcedRequirement[], result: MatchResult): boolean {
  const meant = new Map<string, readonly string[]>();
  for (const d of result.diagnostics) {
    if (d.kind !== 'unknown-value' || d.valueIndex === undefined || d.suggestion === undefined) continue;
    meant.set(`${d.requirements[0]}:${d.valueIndex}`, d.meant ?? [d.suggestion]);
  }
  if (meant.size === 0) return false;
  const fixed = requirements.map((r, i) => {
    const values = r.requirement.values?.flatMap((v, j) => meant.get(`${i}:${j}`) ?? [v]);
    return values === undefined ? r.requirement : { ...r.requirement, values };
  });
  return matcher.match(fixed).admitted.length > 0;
}

/** The smoke test must fit one admitted type, and in a GPU pool request a GPU (or it proves nothing about them). */
function smokeTestProblems(name: string, s: PoolSettings, result: MatchResult): DryRunProblem[] {
  const t = s.smokeTest;
  const requests: Record<string, number> = {
    cpu: inCatalogUnits('cpu', Quantity.of(t.cpu), 'up'), memory: inCatalogUnits('memory', Quantity.of(t.memory), 'up'), pods: 1, ...t.resources,
  };
  const problems: DryRunProblem[] = [];
  const fit = smokeTestFit(result, requests);
  if (!fit.fits) {
    const largest = largestAllocatable(result.admitted);
    const over = Object.keys(requests).find((r) => (largest.get(r)?.amount ?? 0) < (requests[r] ?? 0)) ?? 'cpu';
    const most = largest.get(over);
    const field: FieldPath = over === 'cpu' || over === 'memory' ? ['smokeTest', over] : ['smokeTest', 'resources', over];
    problems.push({
      field, severity: 'error',
      message: `pool ${name}'s smoke test requests ${amount(over, requests[over])} ${over}, more than any instance type the pool admits can give a pod `
        + `(${most ? `at most ${amount(over, most.amount)} on ${most.type}` : 'none has any'}): it would stay Pending`,
    });
  }
  if (fit.accelerator !== undefined && !ACCELERATORS.some((r) => (requests[r] ?? 0) > 0)) {
    const resource = fit.accelerator;
    problems.push({
      field: ['smokeTest'], severity: 'error',
      message: `pool ${name} admits only accelerator instance types, but its smoke test requests none, so it would not show that pods can get one: set smokeTest.resources: { ${resource}: 1 }`,
    });
  }
  return problems;
}

/** What a smoke test's requests come to against the types a pool admits. */
interface SmokeTestFit {
  /** Some admitted type's allocatable holds the requests. */
  readonly fits: boolean;
  /**
   * When every admitted type has an accelerator: the first of {@link ACCELERATORS} every one of
   * them has (`nvidia.com/gpu` when none is common to all). @default - some type has none: not a GPU pool
   */
  readonly accelerator?: string;
}

/**
 * {@link SmokeTestFit}s by match result, then by requests. Every pool of one shape (the same
 * requirements against the same matcher) shares a match result (the matcher caches it), so a
 * fleet pays for each shape once, not once per cluster. Keyed weakly on the result, it lives
 * as long as the matcher that made it; the answer reads nothing but the admitted types and the
 * requests, so pool names stay out of it (they are only in the messages, built per pool).
 */
const smokeTestFits = new WeakMap<MatchResult, Map<string, SmokeTestFit>>();

function smokeTestFit(result: MatchResult, requests: ResourceAmounts): SmokeTestFit {
  // Every amount, in a fixed order: String keeps NaN apart from null (JSON would not).
  const key = Object.keys(requests).sort().map((r) => `${JSON.stringify(r)}=${String(requests[r])}`).join(',');
  let byRequests = smokeTestFits.get(result);
  if (!byRequests) smokeTestFits.set(result, byRequests = new Map());
  let fit = byRequests.get(key);
  if (!fit) {
    const gpuPool = result.admitted.every((type) => ACCELERATORS.some((r) => (type.allocatable.get(r) ?? 0) > 0));
    const accelerator = gpuPool ? ACCELERATORS.find((r) => result.admitted.every((type) => (type.allocatable.get(r) ?? 0) > 0)) ?? 'nvidia.com/gpu' : undefined;
    fit = Object.freeze({ fits: result.admitted.some((type) => fits(type, requests)), ...(accelerator !== undefined ? { accelerator } : {}) });
    byRequests.set(key, fit);
  }
  return fit;
}

function capacityWarnings(name: string, s: PoolSettings, result: MatchResult): DryRunProblem[] {
  // A pool whose limits bound nothing is the plan's finding (model/checks.ts): what bounds a pool
  // is its ceiling, after overlays, replicas and every limit, derived once.
  const problems: DryRunProblem[] = [];
  const n = result.admitted.length;
  if (s.capacityTypes.includes('spot') && n < SPOT_DIVERSITY) {
    problems.push({
      field: ['capacityTypes'], severity: 'warning',
      message: `pool ${name} uses spot with only ${n} instance type(s) to choose from: spot capacity of few types runs out and is interrupted more often, `
        + `and single-node spot-to-spot consolidation needs ${SPOT_TO_SPOT_MIN_TYPES}; allow at least ${SPOT_DIVERSITY} (widen instanceTypes, instanceFamilies or instanceCategories)`,
    });
  } else if (s.capacityTypes.includes('spot') && n < SPOT_TO_SPOT_MIN_TYPES) {
    problems.push({
      field: ['capacityTypes'], severity: 'warning',
      message: `pool ${name} uses spot with ${n} instance types: single-node spot-to-spot consolidation needs at least ${SPOT_TO_SPOT_MIN_TYPES} `
        + `(SpotToSpotConsolidation), so Karpenter never replaces one spot node by a cheaper one; widen instanceTypes, instanceFamilies or instanceCategories to ${SPOT_TO_SPOT_MIN_TYPES} or more`,
    });
  }
  return problems;
}

/** How an amount of a resource reads: cpu from millicores, memory from MiB. */
function amount(resource: string, value: number): string {
  if (resource === 'cpu') return `${value % 1000 === 0 ? value / 1000 : `${value}m`}`;
  if (resource === 'memory' || resource === 'ephemeral-storage') return value % 1024 === 0 ? `${value / 1024}Gi` : `${value}Mi`;
  return String(value);
}
