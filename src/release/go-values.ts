/**
 * Go's grammars for the values Karpenter's controller reads from its environment:
 * durations (`time.ParseDuration`), booleans (`strconv.ParseBool`), integers
 * (`strconv.Atoi`/`ParseInt`, base 10) and floats (`strconv.ParseFloat`). The config
 * loader and the settings generator both ask here, so they accept the same values
 * Karpenter does: `0`, `.5s`, `1h1m`, `-1m` are durations; `1d`, `""` and `1` are not.
 * @see https://pkg.go.dev/time#ParseDuration
 * @see https://pkg.go.dev/strconv#ParseBool
 * @see https://pkg.go.dev/strconv#ParseFloat
 * @see https://pkg.go.dev/strconv#ParseInt
 */

/** Go's duration units in nanoseconds (`µs` is U+00B5 or U+03BC). */
const UNIT_NANOS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n], ['us', 1_000n], ['\u00b5s', 1_000n], ['\u03bcs', 1_000n], ['ms', 1_000_000n], ['s', 1_000_000_000n], ['m', 60_000_000_000n], ['h', 3_600_000_000_000n],
]);

/**
 * What `time.ParseDuration` accepts: an optional sign, then `0` alone or one or more
 * decimal numbers (digits on at least one side of the point) each with a unit.
 */
export const GO_DURATION = /^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h))+)$/;

const INT64_MAX = 2n ** 63n - 1n;

/**
 * The nanoseconds of a Go duration, or why `time.ParseDuration` refuses it. Each
 * fraction is truncated to a whole nanosecond, as Go does; past ±2^63-1 ns is an error.
 */
export function parseGoDuration(text: string): bigint | string {
  if (!GO_DURATION.test(text)) return `is not a Go duration such as "10s", "1m30s", "1.5h" or "0" (units ns, us, ms, s, m, h; no d)`;
  const negative = text.startsWith('-');
  let total = 0n;
  for (const [, whole = '', fraction = '', unit] of text.matchAll(/(\d*)(?:\.(\d*))?(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/g)) {
    const scale = UNIT_NANOS.get(unit) as bigint;
    total += BigInt(whole || '0') * scale + (BigInt(fraction || '0') * scale) / 10n ** BigInt(fraction.length);
    if (total > INT64_MAX + (negative ? 1n : 0n)) return 'is out of range of a Go duration (about 292 years)';
  }
  return negative ? -total : total;
}

/** What `strconv.ParseBool` accepts, and what each means. */
const GO_BOOLEANS: ReadonlyMap<string, boolean> = new Map([
  ...['1', 't', 'T', 'TRUE', 'true', 'True'].map((t): [string, boolean] => [t, true]),
  ...['0', 'f', 'F', 'FALSE', 'false', 'False'].map((t): [string, boolean] => [t, false]),
]);

/** The boolean `strconv.ParseBool` reads, or undefined for any other text (`yes`, `on`, `tRuE`). */
export function parseGoBool(text: string): boolean | undefined {
  return GO_BOOLEANS.get(text);
}

/** What `strconv.ParseInt(s, 10, 64)` (and `Atoi`) accepts: a sign and decimal digits, no underscores. */
export const GO_INTEGER = /^[-+]?\d+$/;

/** The integer `strconv.ParseInt(text, 10, 64)` reads, or why it refuses it. */
export function parseGoInt(text: string): bigint | string {
  if (!GO_INTEGER.test(text)) return 'is not a whole number';
  const n = BigInt(text);
  return n > INT64_MAX || n < -INT64_MAX - 1n ? 'is out of range of a 64-bit integer' : n;
}

/** What `strconv.ParseFloat` accepts in decimal: `1`, `-0.5`, `.5`, `1.`, `1e-3`. */
export const GO_FLOAT = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
/** Its hexadecimal form (`0x1p-2`) and the special values (`inf`, `+Infinity`, `NaN`, any case). */
const GO_FLOAT_OTHER = /^[-+]?(0[xX](_?[0-9a-fA-F])*\.?(_?[0-9a-fA-F])*[pP][-+]?\d+|inf|infinity)$|^nan$/i;

/** The number `strconv.ParseFloat(text, 64)` reads, or why it refuses it (overflow is an error in Go). */
export function parseGoFloat(text: string): number | string {
  if (GO_FLOAT.test(text)) {
    const n = Number(text);
    return Number.isFinite(n) ? n : 'is out of range of a 64-bit float';
  }
  if (!GO_FLOAT_OTHER.test(text)) return 'is not a number';
  const lower = text.toLowerCase().replace(/^\+/, '');
  if (lower === 'nan') return Number.NaN;
  if (lower.endsWith('inf') || lower.endsWith('infinity')) return lower.startsWith('-') ? -Infinity : Infinity;
  const m = /^(-?)0x([0-9a-f_]*)\.?([0-9a-f_]*)p([-+]?\d+)$/.exec(lower) as RegExpExecArray;
  const [, sign, whole, fraction, exponent] = m;
  const digits = `${whole}${fraction}`.replace(/_/g, '');
  if (digits === '') return 'is not a number';
  const value = Number.parseInt(digits, 16) * 2 ** (Number(exponent) - 4 * fraction.replace(/_/g, '').length);
  return sign === '-' ? -value : value;
}
