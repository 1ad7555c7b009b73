import { createHash } from 'node:crypto';
import type { ClusterPlan } from './plan';

/**
 * The digest of everything a cluster's own files are rendered from: its part of the plan
 * (`render` in synth.ts reads nothing else for them, and decides nothing), less each pool's
 * `facts` (instance types admitted, prices, ceilings: what the pages say, never a chart; a
 * tenth of the JSON). Two clusters plans with one digest render to the same bytes with the same
 * tool, which is what an incremental synth relies on (docs/performance.md#incremental-synth).
 *
 * The plan is plain data (a test holds it to that: no Map, Set, function or class instance,
 * which JSON would flatten), built in code, so its JSON is deterministic.
 */
export function clusterInputs(cluster: ClusterPlan): string {
  const rendered = { ...cluster, pools: cluster.pools.map(({ facts: _facts, ...pool }) => pool) };
  return createHash('sha256').update(JSON.stringify(rendered)).digest('hex');
}
