/** Millicores of a CPU quantity the schema accepted for a smoke test (`2`, `0.5`, `500m`). */
export function cpuMillis(q: string | number): number {
  const text = String(q);
  return text.endsWith('m') ? Number(text.slice(0, -1)) : Math.round(Number(text) * 1000);
}

/** MiB of a memory quantity the schema accepted for a smoke test (`512Mi`, `2Gi`). */
export function memoryMiB(q: string): number {
  const m = /^([0-9]+)(Mi|Gi)$/.exec(q);
  if (!m) throw new Error(`smoke test memory "${q}" passed validation but is not Mi or Gi`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
}

const BINARY: Readonly<Record<string, number>> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Readonly<Record<string, number>> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/**
 * The value of a Kubernetes quantity (`500m` → 0.5, `64Gi` → 68719476736, `1e3` → 1000),
 * or undefined when it is not one.
 * @see https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/
 */
export function quantityValue(q: string | number): number | undefined {
  if (typeof q === 'number') return q;
  const m = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:([KMGTPE]i)|([numkMGTPE]?)|[eE]([+-]?[0-9]+))$/.exec(q);
  if (!m) return undefined;
  const n = Number(m[1]);
  if (m[2]) return n * BINARY[m[2]];
  if (m[4] !== undefined) return n * 10 ** Number(m[4]);
  return n * DECIMAL[m[3] ?? ''];
}
