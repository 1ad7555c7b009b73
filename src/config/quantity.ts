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
