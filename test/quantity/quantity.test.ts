import { Quantity, QUANTITY_PATTERN, UNITS } from '../../src/quantity/quantity';

const q = (text: string | number) => Quantity.of(text);

describe('parsing a quantity as the API server does', () => {
  it.each([
    // text, nanos
    ['0', 0n], ['1', 1_000_000_000n], ['500m', 500_000_000n], ['.5', 500_000_000n], ['1.', 1_000_000_000n], ['+2', 2_000_000_000n],
    ['1Ki', 1024n * 10n ** 9n], ['1.5Gi', 3n * 2n ** 29n * 10n ** 9n], ['1e3', 10n ** 12n], ['1E-3', 10n ** 6n], ['2n', 2n], ['-1', -(10n ** 9n)],
  ])('%s is %s nanos', (text, nanos) => {
    expect(q(text).nanos).toBe(nanos);
  });

  it('rounds a value finer than a nano up to one nano, as Kubernetes rounds up to the minimum representable value', () => {
    expect(q('0.1n').nanos).toBe(1n);
    expect(q('1e-100').nanos).toBe(1n);
  });

  it('caps a value past 2^63-1 at 2^63-1, as Kubernetes caps at maxAllowed', () => {
    expect(q('1e100').toBytes()).toBe(2n ** 63n - 1n);
    expect(q('16Ei').toBytes()).toBe(2n ** 63n - 1n); // 16Ei = 2^64
    expect(q('8Ei').toBytes()).toBe(2n ** 63n - 1n); // 8Ei = 2^63, one past the maximum
    expect(q('7Ei').toBytes()).toBe(7n * 2n ** 60n);
  });

  it.each([['abc'], ['1.2.3'], ['5 Gi'], ['1gi'], [''], ['Gi'], ['1K'], ['1e1.5'], ['.'], ['1Mi1']])('fails on %j, saying what a quantity looks like', (text) => {
    expect(Quantity.parse(text)).toBe(`invalid quantity ${JSON.stringify(text)} (e.g. 500m, 2, 1.5Gi)`);
    expect(QUANTITY_PATTERN.test(text)).toBe(false);
  });

  it('fails when the exponent is past an int32, as Kubernetes reads it', () => {
    expect(Quantity.parse('1e9999999999')).toMatch(/exponent is out of range/);
  });
});

describe('converting to a unit with explicit rounding', () => {
  it('gives millicores rounded up by default (1.0001 cpu is 1001m) or down', () => {
    expect(q('1.0001').toMilli()).toBe(1001n);
    expect(q('1.0001').toMilli('down')).toBe(1000n);
    expect(q('-1.0001').toMilli('up')).toBe(-1000n);
    expect(q('-1.0001').toMilli('down')).toBe(-1001n);
  });

  it('gives bytes, MiB and GiB', () => {
    expect(q('1Mi').toBytes()).toBe(1048576n);
    expect(q('100Gi').to(UNITS.MiB, 'down')).toBe(102400n); // 100 × 1024
    expect(q('100G').toNumber(UNITS.GiB)).toBeCloseTo(100 / 1.073741824, 12); // 10^11 / 2^30
  });

  it('compares exactly: 1Gi is more than 1G, 1000m equals 1', () => {
    expect(q('1Gi').compare(q('1G'))).toBe(1);
    expect(q('1000m').compare(q('1'))).toBe(0);
  });
});

describe('the canonical form', () => {
  it.each([
    ['1000m', '1'], ['1500m', '1500m'], ['1024Mi', '1Gi'], ['1536Mi', '1536Mi'], ['2000', '2k'], ['1e3', '1e3'], ['1.5e3', '1500'], ['15e-1', '1500e-3'], ['0.5', '500m'], ['0', '0'],
    ['1.5Ki', '1536'], ['-2Gi', '-2Gi'],
  ])('%s is written %s', (text, canonical) => {
    expect(q(text).format()).toBe(canonical);
  });
});
