import { createHash } from 'node:crypto';

/**
 * The digest of everything one of a cluster's files is built from: its path and its inputs (synth.ts
 * `clusterFiles`: the chart's name and props, parts of the cluster's plan; a pool's without its
 * `facts`, which only the pages read). Two files with one digest are built to the same bytes with
 * the same tool, which is what an incremental synth relies on (docs/performance.md#incremental-synth).
 *
 * The plan is plain data (a test holds it to that: no Map, Set, function or class instance,
 * which JSON would flatten), built in code, so its JSON is deterministic.
 */
export function fileInputs(path: string, inputs: unknown): string {
  return createHash('sha256').update(JSON.stringify([path, inputs])).digest('hex');
}
