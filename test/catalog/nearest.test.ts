/**
 * The value a typo most likely meant (src/catalog/nearest.ts): fewest edits first, then the one
 * most like the values written beside it, by the instance types' own labels.
 */
import { catalogMatcher, createMatcher, MatchDiagnostic } from '../../src/catalog/match';
import { editDistance } from '../../src/catalog/nearest';
import { aType, FAMILY, INSTANCE_TYPE, req } from './builders';

const GENERATION = 'karpenter.k8s.aws/instance-generation';
const CATEGORY = 'karpenter.k8s.aws/instance-category';
const MAKER = 'karpenter.k8s.aws/instance-cpu-manufacturer';
const SIZE = 'karpenter.k8s.aws/instance-size';

/** The unknown-value diagnostics of one `In` requirement against the committed catalog. */
const unknown = (key: string, ...values: string[]): MatchDiagnostic[] =>
  catalogMatcher().match([req(key, 'In', ...values)]).diagnostics.filter((d) => d.kind === 'unknown-value');

describe('against the committed catalog, on real typos', () => {
  it('m7l beside c7i is m7i: of the families one edit away (m7a, m7g, m7i) only m7i is 7th-generation Intel like c7i', () => {
    expect(unknown(FAMILY, 'm7l', 'c7i')).toEqual([{
      kind: 'unknown-value', requirements: [0], valueIndex: 0, suggestion: 'm7i',
      message: 'no instance type has karpenter.k8s.aws/instance-family=m7l (did you mean "m7i"? it shares generation 7, suffix "i" and intel cpu with c7i beside it, which m7a and m7g do not)',
    }]);
  });

  it('m7l alone names every family as close, for nothing tells them apart', () => {
    expect(unknown(FAMILY, 'm7l')).toEqual([expect.objectContaining({ suggestion: 'm7a', meant: ['m7a', 'm7g', 'm7i'] })]);
  });

  it('a sibling of another generation still tells the processor: m7l beside c8i is m7i', () => {
    expect(unknown(FAMILY, 'm7l', 'c8i')[0]).toMatchObject({ suggestion: 'm7i', message: expect.stringContaining('it shares suffix "i" and intel cpu with c8i beside it') });
  });

  it.each([
    ['c7ii (a doubled letter)', FAMILY, ['c7ii'], 'c7i'],
    ['r8dg beside m8g (two letters swapped, one edit)', FAMILY, ['r8dg', 'm8g'], 'r8g'],
    ['m5.xlargee (an instance type)', INSTANCE_TYPE, ['m5.large', 'm5.xlargee'], 'm5.xlarge'],
    ['xlargee (a size)', SIZE, ['xlargee'], 'xlarge'],
    ['M7I (the case of a real family)', FAMILY, ['M7I'], 'm7i'],
    ['m7i-flx', FAMILY, ['m7i-flx'], 'm7i-flex'],
  ])('%s', (_what, key, values, meant) => {
    expect(unknown(key, ...values)).toEqual([expect.objectContaining({ suggestion: meant })]);
  });

  it('takes a real family that reads like a typo (r8gd) as it is', () => {
    expect(unknown(FAMILY, 'r8gd', 'm7i')).toEqual([]);
  });

  it('does not suggest a value for being like itself: a typo of a listed value is told by closeness alone', () => {
    expect(unknown(FAMILY, 'c7gn', 'm7gnn')[0]).toMatchObject({ meant: ['m7g', 'm7gd', 'm8gn'] });
  });
});

describe('the attributes come from the labels, not the names', () => {
  // Names that say nothing: only the labels tell x1b (generation 9, intel) from x1c (generation 2, amd).
  const type = (name: string, family: string, generation: string, maker: string) =>
    aType({ name, labels: { [FAMILY]: family, [CATEGORY]: 'x', [GENERATION]: generation, [MAKER]: maker } });
  const types = [type('x1b.large', 'x1b', '9', 'intel'), type('x1c.large', 'x1c', '2', 'amd'), type('y2q.large', 'y2q', '9', 'intel')];

  it('ranks by the sibling\'s generation and cpu maker as labelled', () => {
    const [d] = createMatcher(types).match([req(FAMILY, 'In', 'x1z', 'y2q')]).diagnostics;
    expect(d).toMatchObject({ suggestion: 'x1b', message: expect.stringContaining('it shares generation 9 and intel cpu with y2q beside it, which x1c does not') });
  });
});

describe('editDistance', () => {
  it.each([
    ['m7l', 'm7i', 1], ['r8dg', 'r8gd', 1], ['c7ii', 'c7i', 1], ['m5.xlargee', 'm5.xlarge', 1], ['m7l', 'c7i', 2], ['', 'ab', 2], ['abc', 'abc', 0],
  ])('%s to %s is %i', (a, b, n) => {
    expect(editDistance(a, b)).toBe(n);
  });
});
