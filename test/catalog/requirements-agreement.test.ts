/**
 * The dry run (which instance types a pool's requirements admit) and the review (whether a
 * change of requirements widens or narrows them) read requirements through one module,
 * src/catalog/requirements.ts. Here both are asked about the same requirements near the
 * int64 bounds and with aliased keys, and must agree: a change the review calls wider
 * admits every type the old requirements admitted; one it calls narrower loses one.
 */
import { createMatcher } from '../../src/catalog/match';
import type { NodeSelectorRequirement } from '../../src/catalog/requirements';
import { compareRequirements } from '../../src/review/requirements';
import { aType, ARCH, GPU_COUNT, names, req } from './builders';

const MAX = '9223372036854775807'; // 2^63 - 1
const MIN = '-9223372036854775808'; // -2^63
const PAST_MAX = '9223372036854775808'; // 2^63: strconv.Atoi fails, NewRequirement takes the clamped value

// Types with no GPU label, one GPU, and the largest int64 as a GPU count (as a label could be).
const TYPES = [
  aType({ name: 'none.large', labels: { [ARCH]: 'amd64' } }),
  aType({ name: 'one.large', labels: { [ARCH]: 'arm64', [GPU_COUNT]: '1' } }),
  aType({ name: 'max.large', labels: { [ARCH]: 'amd64', [GPU_COUNT]: MAX } }),
];
const matcher = createMatcher(TYPES);
const admitted = (rs: NodeSelectorRequirement[]) => names(matcher.match(rs).admitted);

/** The review's verdict on before → after, and whether the dry run's admitted sets agree with it. */
function verdict(before: NodeSelectorRequirement[], after: NodeSelectorRequirement[]) {
  const [change] = compareRequirements(before, after);
  const was = admitted(before);
  const now = admitted(after);
  const kept = was.every((t) => now.includes(t));
  return { effect: change?.effect ?? 'same', kept, was, now };
}

describe('the dry run and the review agree', () => {
  it.each([
    // before, after, the review's effect, the types the dry run admits before and after
    ['Gt MaxInt is DoesNotExist (Karpenter parses it so)', [req(GPU_COUNT, 'Gt', MAX)], [req(GPU_COUNT, 'DoesNotExist')], 'wider', ['none.large'], ['none.large']],
    ['Gt past MaxInt clamps to Gt MaxInt', [req(GPU_COUNT, 'Gt', PAST_MAX)], [req(GPU_COUNT, 'DoesNotExist')], 'wider', ['none.large'], ['none.large']],
    ['Lt MinInt wraps to <= MaxInt, as Go\'s int does', [req(GPU_COUNT, 'Lt', MIN)], [req(GPU_COUNT, 'Lte', MAX)], 'wider', ['one.large', 'max.large'], ['one.large', 'max.large']],
    ['Gte MaxInt narrows Exists to the MaxInt type', [req(GPU_COUNT, 'Exists')], [req(GPU_COUNT, 'Gte', MAX)], 'narrower', ['one.large', 'max.large'], ['max.large']],
    ['Gt MaxInt-1 admits the MaxInt type', [req(GPU_COUNT, 'Gte', MAX)], [req(GPU_COUNT, 'Gt', '9223372036854775806')], 'wider', ['max.large'], ['max.large']],
    ['Exists to Gt MaxInt drops every labelled type and admits the unlabelled', [req(GPU_COUNT, 'Exists')], [req(GPU_COUNT, 'Gt', MAX)], 'narrower', ['one.large', 'max.large'], ['none.large']],
    ['NotIn with a bound still admits a type without the label (its operator is NotIn)', [req(GPU_COUNT, 'NotIn', '5')], [req(GPU_COUNT, 'NotIn', '5'), req(GPU_COUNT, 'Gt', '0')], 'narrower', ['none.large', 'one.large', 'max.large'], ['none.large', 'one.large', 'max.large']],
    ['an aliased key is its well-known label', [req(ARCH, 'In', 'arm64')], [req('beta.kubernetes.io/arch', 'In', 'arm64', 'amd64')], 'wider', ['one.large'], ['none.large', 'one.large', 'max.large']],
    ['an alias narrowing the well-known label', [req('beta.kubernetes.io/arch', 'In', 'arm64', 'amd64')], [req(ARCH, 'In', 'amd64')], 'narrower', ['none.large', 'one.large', 'max.large'], ['none.large', 'max.large']],
  ] as [string, NodeSelectorRequirement[], NodeSelectorRequirement[], string, string[], string[]][])('%s (fails when they read it differently)', (_, before, after, effect, was, now) => {
    const v = verdict(before, after);
    expect([v.effect, v.was, v.now]).toEqual([effect, was, now]);
    // Wider keeps every admitted type; narrower may lose some (nodes whose labels fall outside drift).
    if (effect === 'wider') expect(v.kept).toBe(true);
  });

  it('reports an aliased key and its well-known label as one key, not a removal and an addition', () => {
    const changes = compareRequirements([req(ARCH, 'In', 'arm64')], [req('beta.kubernetes.io/arch', 'In', 'arm64')]);
    expect(changes).toEqual([]);
  });
});
