/**
 * The answer of `fit`, for people (terminal) and for programs (one JSON object).
 */
import { SkippedObject, WORKLOAD_KINDS } from './manifest';
import type { PoolRef, WorkloadFit } from './placement';

/**
 * One JSON object: `{workloads: [{kind, namespace, name, fits: [{cluster, pool}],
 * rejected: [{cluster, pool, reason}]}], skipped: [{apiVersion, kind, namespace, name}]}`;
 * on a cluster with a tenancy policy each pool also has `admission: {allowed, reason?}`.
 */
export function fitJson(workloads: readonly WorkloadFit[], skipped: readonly SkippedObject[]): string {
  return JSON.stringify({
    workloads: workloads.map((w) => ({
      kind: w.kind,
      namespace: w.namespace,
      name: w.name,
      fits: w.fits.map(({ cluster, pool, admission }) => ({ cluster, pool, ...(admission ? { admission } : {}) })),
      rejected: w.rejected.map(({ cluster, pool, reason, admission }) => ({ cluster, pool, reason, ...(admission ? { admission } : {}) })),
    })),
    skipped: skipped.map(({ apiVersion, kind, namespace, name }) => ({ apiVersion, kind, namespace, name })),
  }, null, 2);
}

/**
 * Per workload, a heading that says how many pools it fits, then one line per pool:
 * `✓ cluster/pool` with the number of instance types that can hold it, or
 * `✗ cluster/pool` with the reason, each followed, on a cluster with a tenancy policy, by
 * what admission says; then the objects skipped.
 */
export function fitTerminal(workloads: readonly WorkloadFit[], skipped: readonly SkippedObject[]): string[] {
  const lines: string[] = [];
  if (workloads.length === 0) lines.push(`no workloads found (fit reads ${kinds()})`);
  for (const w of workloads) {
    const total = w.fits.length + w.rejected.length;
    const rows = [
      ...w.fits.map((f) => ['✓', `${f.cluster}/${f.pool}`, `${f.instanceTypes} instance type${f.instanceTypes === 1 ? '' : 's'} can hold it${admissionText(f)}`]),
      ...w.rejected.map((r) => ['✗', `${r.cluster}/${r.pool}`, `${r.reason}${admissionText(r)}`]),
    ];
    const width = Math.max(0, ...rows.map((r) => r[1].length));
    lines.push(`${w.kind} ${w.namespace}/${w.name}: ${w.fits.length === 0 ? 'fits no pool' : `fits ${w.fits.length} of ${total} pool${total === 1 ? '' : 's'}`}`);
    for (const [mark, pool, what] of rows) lines.push(`  ${mark} ${pool.padEnd(width)}  ${what}`);
    lines.push('');
  }
  if (skipped.length > 0) {
    lines.push(`skipped (fit reads ${kinds()}):`);
    for (const s of skipped) {
      const foreign = (WORKLOAD_KINDS as readonly string[]).includes(s.kind) ? ` (${s.apiVersion})` : '';
      lines.push(`  ${s.kind}${foreign} ${s.namespace}/${s.name}`);
    }
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `; admission: allowed` or `; admission: <why not>`, on a cluster with a tenancy policy. */
function admissionText(p: PoolRef): string {
  if (!p.admission) return '';
  return p.admission.allowed ? '; admission: allowed' : `; admission: ${p.admission.reason ?? 'refused'}`;
}

function kinds(): string {
  return `${WORKLOAD_KINDS.slice(0, -1).join(', ')} and ${WORKLOAD_KINDS[WORKLOAD_KINDS.length - 1]}`;
}
