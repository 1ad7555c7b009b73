/**
 * Kubernetes resource quantities (`500m`, `2`, `1.5Gi`, `1e3`), parsed once and exactly.
 * A leaf: it imports nothing from src, so config, catalog, fit, explain and review can all
 * use it. A {@link Quantity} holds what the API server holds: the value rounded up (away
 * from zero) to a whole nano and capped at 2^63-1, as a BigInt count of nanos; every
 * conversion to a unit says how it rounds.
 * @see https://github.com/kubernetes/apimachinery/blob/v0.35.0/pkg/api/resource/quantity.go (ParseQuantity, parseQuantityString, CanonicalizeBytes)
 * @see https://github.com/kubernetes/apimachinery/blob/v0.35.0/pkg/api/resource/suffix.go (the suffixes)
 */

/**
 * What a quantity looks like, as the API server accepts it: the OpenAPI pattern of
 * `resource.Quantity` in the CRDs, less the fractional exponents (`1e1.5`) that the
 * pattern lets through but `ParseQuantity` refuses (its suffix loop reads only digits).
 * The zod schema and the editor's JSON Schema both use this one regex.
 * @see https://github.com/kubernetes/apimachinery/blob/v0.35.0/pkg/api/resource/quantity.go (OpenAPISchemaFormat, parseQuantityString)
 */
export const QUANTITY_PATTERN = /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?[0-9]+))?$/;

/** How a conversion to a coarser unit rounds: toward +∞ or toward −∞. */
export type Rounding = 'up' | 'down';

/** A unit as `10^pow10 × 2^pow2` (millicores: 10^-3; MiB: 2^20; bytes and counts: 1). */
export interface Unit {
  readonly pow10: number;
  readonly pow2: number;
}

/** The units the platform converts to. */
export const UNITS = {
  nano: { pow10: -9, pow2: 0 },
  milli: { pow10: -3, pow2: 0 },
  one: { pow10: 0, pow2: 0 },
  KiB: { pow10: 0, pow2: 10 },
  MiB: { pow10: 0, pow2: 20 },
  GiB: { pow10: 0, pow2: 30 },
} as const satisfies Record<string, Unit>;

const BINARY: ReadonlyMap<string, number> = new Map([['Ki', 10], ['Mi', 20], ['Gi', 30], ['Ti', 40], ['Pi', 50], ['Ei', 60]]);
const DECIMAL: ReadonlyMap<string, number> = new Map([['n', -9], ['u', -6], ['m', -3], ['', 0], ['k', 3], ['M', 6], ['G', 9], ['T', 12], ['P', 15], ['E', 18]]);
const NANOS_PER_ONE = 10n ** 9n;
/** Kubernetes' maxAllowed: the largest value a quantity holds (2^63-1), in nanos. */
const MAX_NANOS = (2n ** 63n - 1n) * NANOS_PER_ONE;
const INT32_MAX = 2 ** 31 - 1;

/** How a quantity was written: a binary suffix, an exponent, or a decimal suffix (or none). */
export type QuantityFormat = 'BinarySI' | 'DecimalExponent' | 'DecimalSI';

/** A parsed Kubernetes quantity. Build one with {@link Quantity.parse} or {@link Quantity.of}. */
export class Quantity {
  /**
   * Parses a quantity as the API server does, or says what is wrong with it. A string the
   * pattern accepts always parses; values beyond 2^63-1 are capped and values finer than a
   * nano rounded up to one, as Kubernetes does.
   */
  public static parse(value: string | number): Quantity | string {
    const text = String(value);
    if (!QUANTITY_PATTERN.test(text)) return `invalid quantity ${JSON.stringify(text)} (e.g. 500m, 2, 1.5Gi)`;
    const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(text) as RegExpExecArray;
    const [, sign, whole, fraction = '', suffix] = m;
    let pow2 = 0;
    let pow10: number;
    let format: QuantityFormat;
    if (BINARY.has(suffix)) {
      pow2 = BINARY.get(suffix) as number;
      pow10 = 0;
      format = 'BinarySI';
    } else if (DECIMAL.has(suffix)) {
      pow10 = DECIMAL.get(suffix) as number;
      format = 'DecimalSI';
    } else {
      pow10 = Number(suffix.slice(1));
      // Kubernetes reads the exponent as an int32 (strconv.ParseInt(…, 10, 32)).
      if (!Number.isSafeInteger(pow10) || Math.abs(pow10) > INT32_MAX) return `invalid quantity ${JSON.stringify(text)}: the exponent is out of range`;
      format = 'DecimalExponent';
    }
    const digits = BigInt(`${whole}${fraction}` || '0');
    const nanos = toNanos(digits, pow10 - fraction.length, pow2);
    return new Quantity(sign === '-' ? -nanos : nanos, format);
  }

  /** A quantity the schema already accepted; throws (a bug, not bad input) when it is not one. */
  public static of(value: string | number): Quantity {
    const q = Quantity.parse(value);
    if (typeof q === 'string') throw new Error(`internal: ${q} passed validation`);
    return q;
  }

  /** An exact amount of a unit, e.g. `Quantity.fromUnit(1536, UNITS.MiB)`. */
  public static fromUnit(amount: bigint, unit: Unit, format: QuantityFormat = unit.pow2 > 0 ? 'BinarySI' : 'DecimalSI'): Quantity {
    const negative = amount < 0n;
    const nanos = toNanos(negative ? -amount : amount, unit.pow10, unit.pow2);
    return new Quantity(negative ? -nanos : nanos, format);
  }

  private constructor(
    /** The value in nanos (10^-9), rounded away from zero, within ±(2^63-1)×10^9. */
    public readonly nanos: bigint,
    /** How it was written, which decides how {@link Quantity.format} writes it back. */
    public readonly writtenAs: QuantityFormat,
  ) {}

  /** Whether it is below zero. */
  public get negative(): boolean {
    return this.nanos < 0n;
  }

  /** The amount of `unit` in it, as a whole number rounded `up` or `down`. */
  public to(unit: Unit, rounding: Rounding): bigint {
    const [num, den] = ratio(this.nanos, unit);
    const q = num / den;
    const exact = q * den === num;
    if (exact) return q;
    // BigInt division truncates toward zero.
    if (rounding === 'up') return num > 0n ? q + 1n : q;
    return num < 0n ? q - 1n : q;
  }

  /** The amount of `unit` in it as the nearest double (e.g. `1G` is 953.67431640625 MiB). */
  public toNumber(unit: Unit): number {
    const [num, den] = ratio(this.nanos, unit);
    const q = num / den;
    return Number(q) + Number(num - q * den) / Number(den);
  }

  /** Millicores, rounded up as the API server rounds a resource list (SetDefaults_ResourceList). */
  public toMilli(rounding: Rounding = 'up'): bigint {
    return this.to(UNITS.milli, rounding);
  }

  /** Bytes (or a count), rounded as asked. */
  public toBytes(rounding: Rounding = 'up'): bigint {
    return this.to(UNITS.one, rounding);
  }

  /** -1, 0 or 1 as this is below, equal to or above `other`. */
  public compare(other: Quantity): number {
    return this.nanos < other.nanos ? -1 : this.nanos > other.nanos ? 1 : 0;
  }

  /**
   * The canonical form Kubernetes writes back: a binary suffix when written with one and
   * the value is a whole number of KiB (the largest suffix that divides it), else the
   * largest decimal suffix (n, u, m, "", k, M, …) that leaves a whole number, or the
   * largest exponent that is a multiple of 3 when written with one.
   * @see https://github.com/kubernetes/apimachinery/blob/v0.35.0/pkg/api/resource/quantity.go (CanonicalizeBytes)
   */
  public format(): string {
    const sign = this.nanos < 0n ? '-' : '';
    const abs = this.nanos < 0n ? -this.nanos : this.nanos;
    if (abs === 0n) return '0';
    if (this.writtenAs === 'BinarySI' && abs % NANOS_PER_ONE === 0n) {
      let whole = abs / NANOS_PER_ONE;
      let i = 0;
      const suffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
      while (i < suffixes.length - 1 && whole % 1024n === 0n) {
        whole /= 1024n;
        i += 1;
      }
      if (i > 0) return `${sign}${whole}${suffixes[i]}`;
    }
    const decimal: readonly [bigint, string][] = [[10n ** 27n, 'E'], [10n ** 24n, 'P'], [10n ** 21n, 'T'], [10n ** 18n, 'G'], [10n ** 15n, 'M'], [10n ** 12n, 'k'], [10n ** 9n, ''], [10n ** 6n, 'm'], [10n ** 3n, 'u'], [1n, 'n']];
    const index = decimal.findIndex(([s]) => abs % s === 0n);
    const [size, suffix] = decimal[index];
    // Written with an exponent, it is written back with one (1e3 stays 1e3, 1.5e3 is 1500).
    const exponent = 18 - 3 * index;
    if (this.writtenAs === 'DecimalExponent') return `${sign}${abs / size}${exponent === 0 ? '' : `e${exponent}`}`;
    return `${sign}${abs / size}${suffix}`;
  }

  /** {@link Quantity.format}. */
  public toString(): string {
    return this.format();
  }
}

/** `digits × 10^pow10 × 2^pow2` in nanos, rounded up to a whole nano and capped at Kubernetes' maximum. */
function toNanos(digits: bigint, pow10: number, pow2: number): bigint {
  if (digits === 0n) return 0n;
  const p10 = pow10 + 9;
  // 2^63 < 10^19 and every digit string is at least 1: past 10^(19+9) nanos the cap applies, without computing 10^huge.
  if (p10 + pow2 * Math.log10(2) > 40) return MAX_NANOS;
  // Below one nano: rounded up to one (the smallest nonzero value), without computing 10^-huge.
  if (p10 < -40 - digits.toString().length) return 1n;
  const num = digits * 10n ** BigInt(Math.max(p10, 0)) * 2n ** BigInt(pow2);
  const den = 10n ** BigInt(Math.max(-p10, 0));
  const nanos = (num + den - 1n) / den;
  return nanos > MAX_NANOS ? MAX_NANOS : nanos;
}

/** `nanos / unit` as a fraction `[num, den]` with `den > 0`. */
function ratio(nanos: bigint, unit: Unit): [bigint, bigint] {
  const p10 = -9 - unit.pow10;
  const p2 = -unit.pow2;
  const num = nanos * 10n ** BigInt(Math.max(p10, 0)) * 2n ** BigInt(Math.max(p2, 0));
  const den = 10n ** BigInt(Math.max(-p10, 0)) * 2n ** BigInt(Math.max(-p2, 0));
  return [num, den];
}
