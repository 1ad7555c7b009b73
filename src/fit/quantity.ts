/**
 * Kubernetes resource quantities (`500m`, `2`, `1.5Gi`, `1e3`) as the catalog counts
 * them: cpu in millicores, memory, ephemeral-storage and hugepages in MiB, anything
 * else (nvidia.com/gpu, pods, …) counted.
 * @see https://github.com/kubernetes/apimachinery/blob/v0.35.0/pkg/api/resource/quantity.go (the quantity grammar)
 */

/** An exact non-negative decimal or binary quantity, `num / den`. */
interface Exact {
  readonly num: bigint;
  readonly den: bigint;
}

const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const GRAMMAR = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/;

/**
 * Parses a quantity as the API server does, or says what is wrong with it: not a
 * quantity, or negative (no resource request or limit may be).
 */
export function parseQuantity(value: string | number): Exact | string {
  const text = String(value);
  const m = GRAMMAR.exec(text);
  if (!m) return `invalid quantity ${JSON.stringify(text)} (e.g. 500m, 2, 1.5Gi)`;
  const [, sign, number, suffix = ''] = m;
  const [whole, fraction = ''] = number.split('.');
  let num = BigInt(`${whole}${fraction}` || '0');
  let den = 10n ** BigInt(fraction.length);
  if (sign === '-' && num !== 0n) return `${JSON.stringify(text)} is negative: requests and limits are at least 0`;
  if (suffix in BINARY) {
    num *= 2n ** BigInt(BINARY[suffix]);
  } else {
    const exponent = suffix in DECIMAL ? DECIMAL[suffix] : Number(suffix.slice(1));
    if (exponent >= 0) num *= 10n ** BigInt(exponent);
    else den *= 10n ** BigInt(-exponent);
  }
  return { num, den };
}

/** The resources the catalog counts in MiB. */
function inMiB(resource: string): boolean {
  return resource === 'memory' || resource === 'ephemeral-storage' || resource.startsWith('hugepages-');
}

/**
 * A parsed quantity of `resource` in the catalog's unit. CPU rounds up to a whole
 * millicore, as the API server stores it (SetDefaults_ResourceList rounds every
 * quantity up to milli scale).
 * @see https://github.com/kubernetes/kubernetes/blob/v1.35.0/pkg/apis/core/v1/defaults.go (SetDefaults_ResourceList)
 */
export function inCatalogUnits(resource: string, q: Exact): number {
  if (resource === 'cpu') return Number((q.num * 1000n + q.den - 1n) / q.den);
  if (inMiB(resource)) return Number(q.num) / Number(q.den) / 2 ** 20;
  return Number(q.num) / Number(q.den);
}

/**
 * An amount in the catalog's unit as people write it: `2`, `1500m`, `4Gi`, `346.94Gi`,
 * `512Mi`, `1`. Memory not a whole number of GiB shows two decimals, rounded `up` (what
 * a pod asks) or `down` (what a node offers), so a shortfall never reads as equal.
 */
export function formatAmount(resource: string, amount: number, round: 'up' | 'down' = 'up'): string {
  const decimals = (n: number) => String((round === 'up' ? Math.ceil : Math.floor)(Number((n * 100).toFixed(6))) / 100);
  if (resource === 'cpu') return amount % 1000 === 0 ? String(amount / 1000) : `${amount}m`;
  if (inMiB(resource)) {
    if (amount >= 1024) return Number.isInteger(amount / 1024) ? `${amount / 1024}Gi` : `${decimals(amount / 1024)}Gi`;
    return `${decimals(amount)}Mi`;
  }
  return decimals(amount);
}
