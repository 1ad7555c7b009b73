/**
 * Go's grammars as Karpenter's controller reads its environment. Each case is what Go's
 * own function returns for it (time.ParseDuration, strconv.ParseBool, ParseInt, ParseFloat).
 */
import { parseGoBool, parseGoDuration, parseGoFloat, parseGoInt } from '../../src/release/go-values';

describe('time.ParseDuration', () => {
  it.each([
    // text, nanoseconds computed by hand
    ['0', 0n], ['+0', 0n], ['-0', 0n], ['.5s', 500_000_000n], ['1.s', 1_000_000_000n], ['1h1m', 3_660_000_000_000n], ['-1m', -60_000_000_000n],
    ['1.5h', 5_400_000_000_000n], ['300ms', 300_000_000n], ['1us', 1_000n], ['1\u00b5s', 1_000n], ['1\u03bcs', 1_000n], ['1ns', 1n],
    ['1m0s', 60_000_000_000n], ['0.0000000001s', 0n], // a tenth of a nanosecond truncates to 0
    ['2562047h47m16.854775807s', 2n ** 63n - 1n], // the largest Go duration
  ])('reads %j as %s ns', (text, nanos) => {
    expect(parseGoDuration(text)).toBe(nanos);
  });

  it.each([['1d'], [''], ['1'], ['-'], ['.s'], ['1 s'], ['1S'], ['s'], ['00']])('fails when given %j, as Go does', (text) => {
    expect(parseGoDuration(text)).toMatch(/^is not a Go duration/);
  });

  it('fails when a duration is past 2^63-1 ns, as Go does', () => {
    expect(parseGoDuration('2562048h')).toMatch(/out of range/);
  });
});

describe('strconv.ParseBool', () => {
  it.each(['1', 't', 'T', 'TRUE', 'true', 'True'])('reads %j as true', (t) => expect(parseGoBool(t)).toBe(true));
  it.each(['0', 'f', 'F', 'FALSE', 'false', 'False'])('reads %j as false', (t) => expect(parseGoBool(t)).toBe(false));
  it.each(['yes', 'on', 'tRuE', '', ' true'])('fails when given %j', (t) => expect(parseGoBool(t)).toBeUndefined());
});

describe('strconv.ParseInt and ParseFloat', () => {
  it('reads base-10 integers with a sign, within int64', () => {
    expect([parseGoInt('+2'), parseGoInt('-0'), parseGoInt('9223372036854775807')]).toEqual([2n, 0n, 2n ** 63n - 1n]);
    expect(parseGoInt('9223372036854775808')).toMatch(/out of range/);
    expect([parseGoInt('1_000'), parseGoInt('0x10'), parseGoInt('1.0')]).toEqual(['is not a whole number', 'is not a whole number', 'is not a whole number']);
  });

  it('reads floats as Go does: decimals, exponents, hex (0x1p-2 = 1 × 2^-2 = 0.25), inf and nan', () => {
    expect([parseGoFloat('.5'), parseGoFloat('1.'), parseGoFloat('7.5e-2'), parseGoFloat('0x1p-2'), parseGoFloat('0x1.8p1')]).toEqual([0.5, 1, 0.075, 0.25, 3]);
    expect([parseGoFloat('+Inf'), parseGoFloat('-infinity')]).toEqual([Infinity, -Infinity]);
    expect(parseGoFloat('NaN')).toBeNaN();
    expect([parseGoFloat('1e400'), parseGoFloat('abc'), parseGoFloat('')]).toEqual(['is out of range of a 64-bit float', 'is not a number', 'is not a number']);
  });
});
