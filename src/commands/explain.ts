import { explainPool, explainPools, renderExplanation } from '../explain/explain';
import { ClusterSelector, describeClusters, selectClusters, selects } from '../model/cluster-sets';
import { loadPlan } from '../model/checks';
import type { Options } from './build';
import { EXIT, Reporter } from './reporter';

/**
 * `explain CLUSTER/POOL`, or `explain POOL` on the clusters `--cluster`, `--stage` and `--group`
 * choose (every cluster without them): every resolved field with its origin, the instance
 * types, prices and the cost bound (contract 5.3, 8.2). One cluster: its pool, as one JSON
 * object. Several: the pool once for each set of clusters where it is the same, as
 * `{pool, explanations: [{clusters, ...}]}`.
 */
export function explain(say: Reporter, { configPath }: Options, target: string, format: 'terminal' | 'json', selector: ClusterSelector = {}): number {
  const slash = target.indexOf('/');
  const [clusterId, poolName] = slash < 0 ? [undefined, target] : [target.slice(0, slash), target.slice(slash + 1)];
  const { platform, plan } = loadPlan(configPath, { ...say.loadOptions, provenance: true });
  const fail = (messages: readonly string[]) => {
    for (const m of messages) say.error(m);
    return EXIT.failed;
  };
  let ids = platform.clusters.map((c) => c.id);
  if (selects(selector)) {
    const chosen = selectClusters(platform.clusters, selector);
    if ('problems' in chosen) return fail(chosen.problems);
    ids = [...chosen.ids];
  }
  if (clusterId !== undefined) {
    if (!ids.includes(clusterId) && platform.clusters.some((c) => c.id === clusterId)) {
      return fail([`cluster ${clusterId} is not one of the clusters --cluster, --stage and --group choose (${describeClusters(ids, platform.clusters)})`]);
    }
    ids = [clusterId];
  }
  if (ids.length === 1) {
    const explanation = explainPool(platform, ids[0], poolName, plan);
    if (typeof explanation === 'string') return fail([explanation]);
    say.out(format === 'json' ? JSON.stringify(explanation, null, 2) : renderExplanation(explanation).trimEnd());
    return EXIT.ok;
  }
  const explanations = explainPools(platform, poolName, ids, plan);
  if (typeof explanations === 'string') return fail([explanations]);
  if (format === 'json') {
    say.out(JSON.stringify({ pool: poolName, explanations: explanations.map(({ clusters, ...e }) => ({ clusters, ...e })) }, null, 2));
    return EXIT.ok;
  }
  say.out(explanations.map((e) => renderExplanation(e, describeClusters(e.clusters, platform.clusters)).trimEnd()).join('\n\n'));
  return EXIT.ok;
}
