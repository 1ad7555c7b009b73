import { compareRequirements, RequirementSpec } from '../../src/review/requirements';

const req = (operator: string, values?: string[], minValues?: number, key = 'k'): RequirementSpec => ({ key, operator, values, minValues });

describe('compareRequirements', () => {
  it('finds nothing when only the order of requirements or values changed', () => {
    expect(compareRequirements(
      [req('In', ['a', 'b']), req('Gt', ['5'], undefined, 'g')],
      [req('Gt', ['5'], undefined, 'g'), req('In', ['b', 'a'])],
    )).toEqual([]);
  });

  it.each<[string, RequirementSpec[], RequirementSpec[], string, string, string?]>([
    ['a value added to In', [req('In', ['a', 'b'])], [req('In', ['a', 'b', 'c'])], 'requirement k: added c', 'wider'],
    ['a value removed from In', [req('In', ['a', 'b'])], [req('In', ['a'])], 'requirement k: removed b', 'narrower', 'nodes whose k is b'],
    ['a value added to NotIn', [req('NotIn', ['a'])], [req('NotIn', ['a', 'b'])], 'requirement k: excluded b', 'narrower', 'nodes whose k is b'],
    ['a value removed from NotIn', [req('NotIn', ['a', 'b'])], [req('NotIn', ['a'])], 'requirement k: no longer excluded b', 'wider'],
    ['a requirement added', [], [req('In', ['c7i', 'm7i'])], 'requirement k added: In [c7i, m7i]', 'narrower', 'nodes whose k is not one of c7i, m7i'],
    ['a requirement removed', [req('In', ['a'])], [], 'requirement k removed (was In [a])', 'wider'],
    ['DoesNotExist added', [], [req('DoesNotExist')], 'requirement k added: DoesNotExist', 'narrower', 'nodes whose k is set'],
    ['In to Exists', [req('In', ['a'])], [req('Exists')], 'requirement k: In [a] -> Exists', 'wider'],
    ['Exists to In', [req('Exists')], [req('In', ['a'])], 'requirement k: Exists -> In [a]', 'narrower', 'nodes whose k is not one of a'],
    ['a higher Gt', [req('Gt', ['5'])], [req('Gt', ['6'])], 'requirement k: Gt 5 -> Gt 6', 'narrower', 'nodes whose k is not >= 7'],
    ['a lower Gt', [req('Gt', ['6'])], [req('Gt', ['5'])], 'requirement k: Gt 6 -> Gt 5', 'wider'],
    ['Gt n to Gte n+1, the same bound', [req('Gt', ['5'])], [req('Gte', ['6'])], 'requirement k: Gt 5 -> Gte 6', 'wider'],
    ['In values to a bound that holds them', [req('In', ['5', '6'])], [req('Gt', ['4'])], 'requirement k: In [5, 6] -> Gt 4', 'wider'],
    ['a bound to In values', [req('Gt', ['4'])], [req('In', ['5'])], 'requirement k: Gt 4 -> In [5]', 'narrower', 'nodes whose k is not one of 5'],
    ['two requirements on one key, one tightened', [req('Gt', ['2']), req('Lt', ['10'])], [req('Gt', ['2']), req('Lt', ['8'])],
      'requirement k: Gt 2, Lt 10 -> Gt 2, Lt 8', 'narrower', 'nodes whose k is not >= 3 and <= 7'],
    ['minValues only', [req('In', ['a', 'b'], 1)], [req('In', ['a', 'b'], 2)], 'requirement k: minValues 1 -> 2', 'min-values'],
    // A default, not an optional parameter: jest would pass a done callback in its place.
  ])('%s', (_what, before, after, text, effect, drifts = undefined) => {
    expect(compareRequirements(before, after)).toEqual([{ key: 'k', text, effect, drifts }]);
  });

  it('names the capacity type', () => {
    const key = 'karpenter.sh/capacity-type';
    expect(compareRequirements([req('In', ['on-demand'], undefined, key)], [req('In', ['on-demand', 'spot'], undefined, key)]).map((c) => c.text))
      .toEqual(['capacity type: added spot']);
  });
});
