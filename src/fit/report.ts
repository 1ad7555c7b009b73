/**
 * The answer of `fit`, for people (terminal) and for programs (one JSON object).
 */
import { karpenterCatalog } from '../catalog/catalog';
import { SkippedObject, WORKLOAD_KINDS } from './manifest';
import type { Fit, PoolRef, WorkloadFit } from './placement';

/**
 * One JSON object: `{workloads: [{kind, namespace, name, fits, refused, rejected}], skipped:
 * [{apiVersion, kind, namespace, name}]}`. Every pool of every cluster is in exactly one of a
 * workload's lists, in the platform's order:
 *
 * - `fits: [{cluster, pool, instanceTypes, onDemandPricePerHour, static?}]`: the pools it runs
 *   on, with how many instance types (after the cluster's overlays) can hold one pod and their
 *   on-demand list price range per node-hour after overlays (`{min, max, region}`, as `explain`
 *   gives the pool's; null when none is priced); a static pool launches no node for it and has
 *   `static: {nodes, admittedTypes}` (the pod fits if its nodes are of one of the
 *   `instanceTypes` of the `admittedTypes` it admits);
 * - `refused: [{cluster, pool, reason, instanceTypes}]`: pools Karpenter could place it on but
 *   whose cluster's tenancy policy refuses its pods (action Deny), with the policy's reason;
 * - `rejected: [{cluster, pool, reason}]`: pools it cannot run on, with the first reason.
 *
 * On a cluster with a tenancy policy each pool also has `admission: {allowed, reason?}`.
 */
export function fitJson(workloads: readonly WorkloadFit[], skipped: readonly SkippedObject[]): string {
  return JSON.stringify({
    workloads: workloads.map((w) => ({
      kind: w.kind,
      namespace: w.namespace,
      name: w.name,
      fits: w.fits.map((f) => ({
        cluster: f.cluster,
        pool: f.pool,
        instanceTypes: f.instanceTypes,
        onDemandPricePerHour: f.prices ? { min: f.prices.min, max: f.prices.max, region: karpenterCatalog().pricingRegion } : null,
        ...(f.static ? { static: f.static } : {}),
        ...(f.admission ? { admission: f.admission } : {}),
      })),
      refused: w.refused.map(({ cluster, pool, reason, instanceTypes, admission }) => ({ cluster, pool, reason, instanceTypes, ...(admission ? { admission } : {}) })),
      rejected: w.rejected.map(({ cluster, pool, reason, admission }) => ({ cluster, pool, reason, ...(admission ? { admission } : {}) })),
    })),
    skipped: skipped.map(({ apiVersion, kind, namespace, name }) => ({ apiVersion, kind, namespace, name })),
  }, null, 2);
}

/**
 * Per workload, a heading that says how many pools it runs on (and on how many more admission
 * refuses it), then one line per pool: `✓ cluster/pool` with the number of instance types that
 * can hold it and their price range (on a static pool, whether its nodes can; see fitText);
 * `⊘ cluster/pool` where it would fit but the tenancy policy refuses it, with the policy's
 * reason; `✗ cluster/pool` with the reason it cannot run there; fits and rejections followed, on
 * a cluster with a tenancy policy, by what admission says; then the objects skipped.
 */
export function fitTerminal(workloads: readonly WorkloadFit[], skipped: readonly SkippedObject[]): string[] {
  const lines: string[] = [];
  if (workloads.length === 0) lines.push(`no workloads found (fit reads ${kinds()})`);
  for (const w of workloads) {
    const total = w.fits.length + w.refused.length + w.rejected.length;
    const rows = [
      ...w.fits.map((f) => ['✓', `${f.cluster}/${f.pool}`, `${fitText(f)}${admissionText(f)}`]),
      ...w.refused.map((r) => ['⊘', `${r.cluster}/${r.pool}`, `${r.reason}; ${typesText(r.instanceTypes)} could hold it`]),
      ...w.rejected.map((r) => ['✗', `${r.cluster}/${r.pool}`, `${r.reason}${admissionText(r)}`]),
    ];
    const width = Math.max(0, ...rows.map((r) => r[1].length));
    const fits = w.fits.length === 0 ? 'fits no pool' : `fits ${w.fits.length} of ${total} pool${total === 1 ? '' : 's'}`;
    const refused = w.refused.length === 0 ? '' : `; admission refuses it on ${w.refused.length} ${w.fits.length === 0 ? 'it would fit' : 'more'}`;
    lines.push(`${w.kind} ${w.namespace}/${w.name}: ${fits}${refused}`);
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

/**
 * `134 instance types can hold it ($0.0416 to $9.6768 per node-hour)`; on a static pool, which
 * launches no node for it, whether its nodes can: `fits on the pool's 4 nodes if they are of the
 * 3 of its 12 instance types that can hold it (…); no node is launched for it`, or `fits on any of
 * the pool's 4 nodes: all 12 …`.
 */
function fitText(f: Fit): string {
  if (!f.static) return `${typesText(f.instanceTypes)} can hold it${priceText(f)}`;
  const { nodes, admittedTypes } = f.static;
  const theNodes = `the pool's ${nodes} node${nodes === 1 ? '' : 's'}`;
  const which = f.instanceTypes === admittedTypes
    ? `fits on any of ${theNodes}: ${admittedTypes === 1 ? 'the one instance type' : admittedTypes === 2 ? 'both instance types' : `all ${admittedTypes} instance types`} it admits can hold it`
    : `fits on ${theNodes} if ${nodes === 1 ? 'it is' : 'they are'} of the ${f.instanceTypes} of its ${typesText(admittedTypes)} that can hold it`;
  return `${which}${priceText(f)}; no node is launched for it`;
}

/** ` ($0.0416 to $9.6768 per node-hour)`: the on-demand list prices of those types after overlays, as explain shows a pool's; empty when none is priced. */
function priceText(f: Fit): string {
  if (!f.prices) return '';
  const { min, max } = f.prices;
  return min === max ? ` ($${min.toFixed(4)} per node-hour)` : ` ($${min.toFixed(4)} to $${max.toFixed(4)} per node-hour)`;
}

/** `1 instance type`, `134 instance types`. */
function typesText(n: number): string {
  return `${n} instance type${n === 1 ? '' : 's'}`;
}

/**
 * `; admission: allowed` or `; admission: <why not>` (`; admission refuses the pod: …` when the
 * reason already names admission), on a cluster with a tenancy policy.
 */
function admissionText(p: PoolRef): string {
  if (!p.admission) return '';
  if (p.admission.allowed) return '; admission: allowed';
  const reason = p.admission.reason ?? 'refused';
  return reason.startsWith('admission ') ? `; ${reason}` : `; admission: ${reason}`;
}

function kinds(): string {
  return `${WORKLOAD_KINDS.slice(0, -1).join(', ')} and ${WORKLOAD_KINDS[WORKLOAD_KINDS.length - 1]}`;
}
