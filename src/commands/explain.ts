import type { CommandLine, CommandSpec } from '../command-line/args';
import { CONFIG_OPTION, EXIT_CODES_NOTE, formatOption, SELECT_OPTIONS } from '../command-line/options';
import { explainPool, explainPools, renderExplanation } from '../explain/explain';
import { describeClusters, selectClusters, selects } from '../model/cluster-sets';
import { loadPlan } from '../model/checks';
import { chosenClusters, Context, locations } from './context';
import { EXIT } from './reporter';

/** `npm run explain`. */
export const spec = {
  name: 'explain',
  summary: 'every resolved field of a pool with the level that set it, its instance types, prices and cost bound',
  description: 'Prints each field of the pool after inheritance with the level and the line that set it, the\n'
    + 'instance types it admits, their on-demand price range and the most the pool can cost per hour.\n'
    + 'POOL alone explains it on every cluster that has it (or those --cluster, --stage and --group\n'
    + 'choose), once for each set of clusters where it is the same.',
  argument: {
    name: '[CLUSTER/]POOL', pattern: /^(?:[^/]+\/)?[^/]+$/,
    missing: 'explain needs a pool: CLUSTER/POOL, or POOL (with --cluster, --stage or --group to choose clusters), e.g. npm run explain -- demo/web',
    invalid: 'explain takes CLUSTER/POOL or POOL, e.g. npm run explain -- demo/web',
  },
  options: [CONFIG_OPTION, ...SELECT_OPTIONS, formatOption(['terminal', 'json'], '; json prints one object')],
  examples: ['npm run explain -- demo/web', 'npm run explain -- demo/ml-gpu --format json', 'npm run explain -- checkout --group prod'],
  notes: EXIT_CODES_NOTE,
} as const satisfies CommandSpec;

/**
 * `explain CLUSTER/POOL`, or `explain POOL` on the clusters `--cluster`, `--stage` and `--group`
 * choose (every cluster without them): every resolved field with its origin, the instance
 * types, prices and the cost bound (contract 5.3, 8.2). One cluster: its pool, as one JSON
 * object. Several: the pool once for each set of clusters where it is the same, as
 * `{pool, explanations: [{clusters, ...}]}`.
 */
export function run({ options, argument: target }: CommandLine<typeof spec>, context: Context): number {
  const { say } = context;
  const { configPath } = locations(context, options);
  const [format, selector] = [options.format ?? 'terminal', chosenClusters(options)];
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
