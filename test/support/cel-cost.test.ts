/**
 * The model of the API server's CEL limits in cel-cost.ts: its values agree with @bufbuild/cel
 * (what the policy tests evaluate with), its costs are the ones worked out by hand from cel-go
 * v0.26.0, its over-approximations stay above what cel-go can charge, and its parser limits
 * fall where cel-go's do.
 *
 * Line references in the arithmetic are to cel-go v0.26.0:
 * R = interpreter/runtimecost.go (Observe L132-L204: constant 0 L142-L143, attribute 1 L144-L157,
 * qualifier 1 L138-L141 and L182-L183, call L184-L187, list 10 / map 30 L188-L197; costCall
 * L273-L349), I = interpreter/interpretable.go, D = interpreter/decorators.go,
 * P = interpreter/planner.go, M = parser/macro.go.
 */
import { isCelError } from '@bufbuild/cel';
import { compile, toCel } from './admission-policy';
import { assertCostModelCovers, CelErrorValue, costedEvaluator, evaluateWithCost, expressionLimitProblems } from './cel-cost';

/** A pod as the API server decodes it. */
function aPod({ labels = { app: 'web', tier: 'front' }, containers = [{ name: 'a', image: 'nginx:1.27' }, { name: 'b', image: 'busybox' }] } = {}) {
  return { metadata: { name: 'web-1', labels }, spec: { containers } };
}

/** The activation: `object` and friends as toCel builds them, plus plain test variables. */
function bindings(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const raw: Record<string, unknown> = {
    object: aPod(),
    oldObject: null,
    s: 'abcdefghijklmnopqrstuvwxyzabcd', // 30 code points
    l: ['alpha', 'beta', 'gamma', 'delta', 'epsilon'],
    m: { a: 1, b: 2, c: 3, ax: 4 },
    key: 'a',
    flag: true,
    ...extra,
  };
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, toCel(v)]));
}

const cost = (expression: string, extra?: Record<string, unknown>) => evaluateWithCost(expression, bindings(extra)).cost;

describe('evaluateWithCost values', () => {
  it.each([
    "object.spec.containers.all(c, c.image.startsWith('nginx'))",
    "object.spec.containers.exists(c, c.name == 'b')",
    "object.spec.containers.exists_one(c, c.image.contains('box'))",
    '[1, 2, 3].exists_one(x, x > 1)',
    "object.spec.containers.map(c, c.name).join(',')",
    "object.spec.containers.map(c, c.name != 'a', c.image).join()",
    "size(object.spec.containers.filter(c, c.image.endsWith('box')))",
    "object.metadata.labels.all(k, k.matches('^[a-z]+$'))",
    "object.metadata.labels.exists(k, object.metadata.labels[k] == 'front')",
    "object.metadata.labels.filter(k, k.startsWith('t'))[0]",
    "has(object.spec.nodeName) ? object.spec.nodeName : 'none'",
    "has(object.metadata.labels.app) && !has(object.metadata.labels.team)",
    "'app' in object.metadata.labels && 'web' in ['web', 'api'] && !('x' in [])",
    "object.metadata.name + '/' + string(size(object.spec.containers))",
    'object.spec.containers.all(c, object.spec.containers.exists(d, d.name != c.name))',
    "object.metadata.name < 'x' && 3 >= 2 && 'b' > 'a' && 2 <= 2",
    "{'a': object.metadata.name}.a == 'web-1'",
    "[object.metadata.name, 'b'][0]",
    'object.spec.containers[1].name',
    '(object.spec.containers.size() > 1 ? object.spec.containers[1] : object.spec.containers[0]).name',
    "size(object.metadata.labels) == 2 && size('héllo😀') == 6",
    'm[key + "x"] == 4 && l[1] == "beta"',
    'object.missing == 1 || true',
    'false && object.missing == 1',
    'object.missing',
    'object.spec.containers[5]',
    'true && object.missing == 1',
  ])('agrees with @bufbuild/cel on %s', (expression) => {
    const expected = compile(expression)(bindings());
    const { value } = evaluateWithCost(expression, bindings());
    if (isCelError(expected)) expect(value).toBeInstanceOf(CelErrorValue);
    else expect(value).toEqual(expected);
  });
});

describe('evaluateWithCost costs, worked out from cel-go v0.26.0', () => {
  it.each([
    // Attributes: 1 for the attribute (R L150-L151), 1 per qualifier (R L138-L141).
    ['object.metadata.name', 3, 'object 1 + metadata 1 + name 1'],
    ['has(object.spec.nodeName)', 2, 'spec 1 + the presence qualifier nodeName 1 (R L138-L141); the attribute\'s 1 is given back by PresenceTestHasCost(false) (R L153-L157, I L155-L185)'],
    ['has(object.spec)', 1, 'only the presence qualifier'],
    ['object.missing.x == 1 || true', 3, 'object 1 + missing 1, which fails so x is never applied (attributes.go L1259-L1294); equals charged on the error (size 1): ceil(0.1) = 1; true 0; || 0'],
    ['false && object.missing.x', 0, 'evalAnd stops at false (I L297-L327); && costs nothing (R L168-L171)'],
    ['m[key]', 2, 'm 1 + the index 1; an index that is an attribute is resolved without observing it (P L457-L489, I L880-L920), so key costs 0'],
    ['m[key + "x"]', 4, 'm 1 + the index 1 + key 1 + add_string ceil((1 + 1) × 0.1) = 1'],
    ["[object.metadata.name, 'x'][0]", 15, 'name 3 + list 10 (R L191-L192) + index 1 + the relative attribute 1 (P L713-L732)'],
    ['flag ? object.metadata : object.spec', 2, 'flag 1 + metadata 1: a branch that is an attribute is resolved without observing it (P L429-L453), and the ternary costs 0 (R L146-L148)'],
    // Literals and folding (D L107-L124).
    ["['a', 'b'].size()", 1, 'the constant list is folded (D L184-L192): 0; size 1 (R L337-L345)'],
    ["[key, 'x']", 11, 'key 1 + list 10'],
    ["{'a': key}", 31, 'key 1 + map 30 (R L193-L194)'],
    ['string(7)', 0, 'a conversion of a constant is folded (D L168-L182)'],
    ['string(size(l))', 3, 'l 1 + size 1 + int64_to_string 1'],
    // in (R L297-L300; D L212-L272).
    ["key in ['a', 'b']", 1, 'key 1; `in` a constant list becomes evalSetMembership, which is no InterpretableCall: never charged'],
    ['key in []', 0, 'folded to false: key is never evaluated (D L223-L225)'],
    ["'app' in object.metadata.labels", 4, 'labels 3; in a dyn operand both in_list and in_map match, so the overload is "" and costCall charges 1 (checker.go L297-L381, P L662-L671)'],
    ["'a' in ['a', key]", 13, 'key 1 + list 10 (not constant) + in_list: the list size 2'],
    // Equality and comparisons (R L302-L314).
    ["object.metadata.name == 'web-1'", 4, 'name 3 + ceil(min(5, 5) × 0.1) = 1'],
    ["object.metadata.name == ''", 3, 'name 3 + ceil(min(5, 0) × 0.1) = 0'],
    ['s == s', 5, '1 + 1 + ceil(30 × 0.1) = 3'],
    ["s < 'b'", 2, 's 1 + less_string ceil(min(30, 1) × 0.1) = 1'],
    ['size(l) > 3', 3, 'l 1 + size 1 + greater_int64 1'],
    // Strings (R L295-L296, L316-L318, L320-L335; apiserver library/cost.go L121-L125).
    ["s + '-suffix'", 5, 's 1 + add_string ceil((30 + 7) × 0.1) = 4'],
    ['object.metadata.name + object.metadata.name', 7, 'both dyn: every + overload matches, the overload is "", 1'],
    ["s.matches('^[a-z]+$')", 9, 's 1 + ceil((1 + 30) × 0.1) = 4 × ceil(8 × 0.25) = 2'],
    ["matches(s, '^[a-z]+$')", 2, 's 1 + 1: the global overload is `matches`, not matches_string, and falls to the default'],
    ["object.missing.matches('a')", 2, 'object 1 + missing 1; a constant pattern makes matches an evalVarArgs (optimizations.go L27-L48) that stops at the error, so its arguments are not all on the stack and it is not charged (R L185-L187, L400-L414)'],
    ["object.missing.startsWith('a')", 3, 'evalBinary evaluates both arguments (I L507-L532): starts_with_string ceil(size(error) = 1 × 0.1) = 1'],
    ["s.startsWith('abc')", 4, 's 1 + ceil(30 × 0.1)'],
    ["s.contains('xyz')", 4, 's 1 + ceil(30 × 0.1) × ceil(3 × 0.1)'],
    ["l.join(', ')", 8, 'l 1 + Kubernetes\' join: ceil(size("alpha, beta, gamma, delta, epsilon") = 34 × 2 × 0.1) = 7'],
    // Macros (M L497-L595) as folds (I L1320-L1342): per element the condition, then the step.
    ['[1, 2, 3].all(x, x > 0)', 16, 'range folded 0; per element @not_strictly_false(@result) 1 + 1 and @result && x > 0: 1 + (x 1 + 0 + 1); 3 × 5; the range ends, no 4th condition; result @result 1'],
    ['[1, 0, 3].all(x, x > 0)', 13, '5 + 5, then the condition on false (2) stops the loop; result 1'],
    ['[1, 2, 3].exists(x, x == 2)', 16, 'per element @not_strictly_false(!@result) 3 and @result || x == 2: 1 + 2; 6 + 6, then the condition on true (3) stops; result 1'],
    ['[1, 2, 3].exists_one(x, x == 2)', 10, 'condition true 0; x == 2 ? @result + 1 : @result: 2, plus @result 1 + add 1 when it holds (the false branch @result is not observed); 2 + 4 + 2; result @result == 1: 2'],
    ['[1, 2, 3].filter(x, x > 1)', 33, 'x > 1: 2, plus @result + [x] when it holds: 1 + (1 + 10) + add_list 1; 2 + 15 + 15; result 1'],
    ['[1, 2].map(x, x)', 27, '@result + [x]: 1 + 11 + 1 per element; result 1'],
    ['[1, 2].map(x, 7)', 5, '[7] is folded: @result 1 + 0 + 1 per element; result 1'],
    ["object.spec.containers.map(c, c.name == 'a', c.image).size()", 25, 'containers 3; c.name == a: 3 each, plus @result + [c.image]: 1 + (2 + 10) + 1 when it holds; (3 + 14) + 3; result 1; size 1'],
  ])('charges %s %d: %s', (expression, expected) => {
    expect(cost(expression)).toBe(expected);
  });
});

describe('evaluateWithCost over-approximations', () => {
  const permutations = <T>(xs: readonly T[]): T[][] => (xs.length <= 1 ? [[...xs]] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest])));

  it.each([
    ["m.all(k, k == 'a')", 22],
    ["m.all(k, k != 'b')", 22],
    ["m.exists(k, k == 'c')", 26],
  ])('charges %s over a map %d, no less than cel-go in any order of its keys', (expression, expected) => {
    // cel-go iterates a map in Go's random order and stops at the first decisive element; the
    // same fold over a list of the keys, in each order, is what cel-go charges in that order.
    const charged = cost(expression);
    const inEachOrder = permutations(['a', 'b', 'c', 'ax']).map((order) => cost(expression.replace(/^m\./, 'keys.'), { keys: order }));
    expect(charged).toBe(expected);
    expect(charged).toBeGreaterThanOrEqual(Math.max(...inEachOrder));
  });

  it.each([
    ['s + s', 8, 3, 8],
    ['key in l', 7, 3, 7],
  ])('charges %s %d where the operands\' declared type is not known (cel-go: %d if dyn, %d if typed)', (expression, expected, ifDyn, ifTyped) => {
    // s, l and key are not Kubernetes variables: their type is unknown here. Declared dyn, cel-go
    // keeps several overloads (""): 1; declared string or list, it picks add_string or in_list.
    expect(cost(expression)).toBe(expected);
    expect(expected).toBeGreaterThanOrEqual(Math.max(ifDyn, ifTyped));
  });
});

describe('costedEvaluator', () => {
  const policyVariables = [
    { name: 'names', expression: 'object.spec.containers.map(c, c.name)' },
    { name: 'many', expression: 'size(variables.names) > 1' },
  ];

  it('charges a variable once, to the budget and not to the expression that reads it', () => {
    const evaluator = costedEvaluator(policyVariables, bindings());
    // variables.many 2 (variables 1 + many 1) + variables.names 2 + in_list over its 2 elements.
    expect(evaluator.evaluate("variables.many && 'a' in variables.names")).toEqual({ value: true, cost: 6 });
    // names: containers 3 + 2 × (@result 1 + [c.name] 12 + add 1) + result 1 = 32; many: names 2 + size 1 + > 1 = 4.
    expect(evaluator.variableCosts()).toEqual(new Map([['names', 32], ['many', 4]]));
    expect(evaluator.evaluate('size(variables.names)')).toEqual({ value: 2n, cost: 3 });
    expect(evaluator.variableCosts()).toEqual(new Map([['names', 32], ['many', 4]]));
    expect(evaluator.budgetSpent()).toBe(6 + 32 + 4 + 3);
  });

  it('never computes a variable no expression reads', () => {
    const evaluator = costedEvaluator(policyVariables, bindings());
    expect(evaluator.evaluate('true').cost).toBe(0);
    expect(evaluator.variableCosts().size).toBe(0);
  });

  it('fails when a variable reads a variable defined after it', () => {
    expect(() => costedEvaluator([{ name: 'first', expression: 'variables.second' }, { name: 'second', expression: '1' }], bindings()))
      .toThrow(/undefined field 'second' of variables/);
  });
});

describe('evaluateWithCost refusals', () => {
  it.each([
    ["object.metadata.name.lowerAscii() == 'web-1'", /the function lowerAscii is outside the modelled subset/],
    ['size(l) - 1', /the function _-_ is outside the modelled subset/],
    ['nope.x', /undeclared reference to 'nope'/],
    ["has((flag ? object.metadata : object.spec).name)", /has\(\) of a ternary is outside/],
    ["b'abc' == b'abc'", /bytesValue literal is outside/],
  ])('fails when the expression is outside the subset: %s', (expression, message) => {
    expect(() => cost(expression)).toThrow(message);
  });

  it('fails when a binding is a plain object rather than what toCel builds', () => {
    expect(() => evaluateWithCost('object.metadata.name', { object: aPod() })).toThrow(/binding holds a plain object/);
  });
});

describe('expressionLimitProblems', () => {
  it('reports nothing for an expression within the limits', () => {
    expect(expressionLimitProblems("object.spec.containers.all(c, c.image.startsWith('nginx') && !(c.name in ['a', 'b']))")).toEqual([]);
  });

  it('counts code points, not UTF-16 units', () => {
    // 2 quotes + 99,998 astral characters: 100,000 code points in 199,998 UTF-16 units.
    expect(expressionLimitProblems(`"${'😀'.repeat(99_998)}"`)).toEqual([]);
  });

  it('fails when the expression has 100,001 code points', () => {
    expect(expressionLimitProblems(`"${'😀'.repeat(99_999)}"`)).toEqual(['expression code point size exceeds limit: size: 100001, limit 100000']);
  });

  it('fails when parentheses nest 250 deep', () => {
    // Each parenthesis enters every rule again: 249 leave `expr` open 250 times, 250 open it 251 times.
    const nested = (n: number) => `${'('.repeat(n)}x${')'.repeat(n)}`;
    expect(expressionLimitProblems(nested(249))).toEqual([]);
    expect(expressionLimitProblems(nested(250))).toEqual(['expression recursion limit exceeded: 250']);
    expect(expressionLimitProblems(nested(260))).toEqual(['expression recursion limit exceeded: 250']);
  });

  it('fails when 249 `+` chain, though the AST of the chain is only 250 deep', () => {
    // calc(0) enters once, pushes a context per `+`, and enters again for the last right operand: N + 2.
    const chain = (n: number) => `x${' + x'.repeat(n)}`;
    expect(expressionLimitProblems(chain(248))).toEqual([]);
    expect(expressionLimitProblems(chain(249))).toEqual(['expression recursion limit exceeded: 250']);
  });

  it('fails when selects, `+` and `==` nest 251 deep for the visitor, with no rule open more than 86 times', () => {
    const chains = (selects: number, sums: number, equalities: number) => `a${'.b'.repeat(selects)}${' + x'.repeat(sums)}${' == y'.repeat(equalities)}`;
    expect(expressionLimitProblems(chains(84, 83, 83))).toEqual([]);
    expect(expressionLimitProblems(chains(84, 84, 83))).toEqual(['max recursion depth exceeded']);
  });

  it('reads the whole grammar', () => {
    expect(expressionLimitProblems('[1, 2,].size() + {"a": 1,}.a + b"x" + r"\\" + """a\nb""" + .5 + 1e3 + 0x1Fu + a.`b-c` + pkg.Msg{f: 1, ?g: 2}.f + x[?0] + a.?b // c')).toEqual([]);
  });
});

describe('assertCostModelCovers', () => {
  it('accepts the Kubernetes versions the model was checked against', () => {
    expect(() => assertCostModelCovers('1.34')).not.toThrow();
    expect(() => assertCostModelCovers('1.33')).not.toThrow();
  });

  it('fails when the cluster runs a Kubernetes the model was not checked against', () => {
    expect(() => assertCostModelCovers('1.35')).toThrow(/Kubernetes 1\.35 is not covered \(covered: 1\.33, 1\.34\)/);
  });
});
