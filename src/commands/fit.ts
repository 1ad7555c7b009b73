import type { CommandLine, CommandSpec } from '../command-line/args';
import { CONFIG_OPTION, formatOption, SELECT_OPTIONS } from '../command-line/options';
import { readManifest } from '../fit/manifest';
import { fitWorkloads } from '../fit/placement';
import { fitJson, fitTerminal } from '../fit/report';
import { InputError, Problem } from '../input/problems';
import { selectClusters, selects } from '../model/cluster-sets';
import { loadPlan } from '../model/checks';
import { chosenClusters, Context, locations } from './context';
import { EXIT } from './reporter';

/** `npm run fit`: will it fit? */
export const spec = {
  name: 'fit',
  summary: 'which clusters and pools each workload of a manifest can run on, and why not the others',
  description: 'For each Pod, Deployment, StatefulSet, DaemonSet, Job or CronJob in MANIFEST (a YAML file, relative\n'
    + 'to where you run npm): every cluster and pool it can schedule on, and the first reason each other\n'
    + 'pool rejects it; only on the clusters --cluster, --stage and --group choose, when given. Exits 0\n'
    + 'even when nothing fits: it answers a question, it is not a gate.',
  argument: { name: 'MANIFEST', missing: 'fit needs a MANIFEST: a YAML file of Kubernetes objects' },
  options: [CONFIG_OPTION, ...SELECT_OPTIONS, formatOption(['terminal', 'json'], '; json prints one object')],
  examples: ['npm run fit -- shop.yaml', 'npm run fit -- shop.yaml --format json', 'npm run fit -- shop.yaml --cluster prod-eu-01'],
  notes: 'exit codes: 0 answered, 1 problems in the manifest or the config, 2 bad command line',
} as const satisfies CommandSpec;

/**
 * `fit MANIFEST`: for each workload in the manifest, the clusters and pools it can run on
 * and why not the others, read from the fleet's plan (what synth would write); only on the
 * clusters `selector` chooses (`--cluster`, `--stage`, `--group`) when it chooses. Exit 0 even
 * when nothing fits (a question, not a gate); 1 when the manifest or the config (or its plan)
 * has problems, or the selector names what the fleet does not have, all printed.
 */
export function run({ options, argument: manifestPath }: CommandLine<typeof spec>, context: Context): number {
  const { say } = context;
  const { configPath } = locations(context, options);
  const [format, selector] = [options.format ?? 'terminal', chosenClusters(options)];
  const problems: Problem[] = [];
  const read = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      problems.push(...err.problems);
      return undefined;
    }
  };
  // The manifest is named as the user gave it, and read from where they ran npm.
  const manifest = read(() => readManifest(say.paths.resolve(manifestPath), manifestPath));
  const loaded = read(() => loadPlan(configPath, say.loadOptions));
  if (!manifest || !loaded) {
    // The manifest is named as the user gave it; the config's files, from where they ran npm.
    for (const p of problems) say.problem(p);
    say.err(`${problems.length} problem(s) found`);
    return EXIT.failed;
  }
  let clusters: readonly string[] | undefined;
  if (selects(selector)) {
    const chosen = selectClusters(loaded.platform.clusters, selector);
    if ('problems' in chosen) {
      for (const p of chosen.problems) say.error(p);
      return EXIT.failed;
    }
    clusters = chosen.ids;
  }
  const answers = fitWorkloads(manifest.workloads, loaded.platform, loaded.plan, undefined, clusters);
  if (format === 'json') say.out(fitJson(answers, manifest.skipped));
  else for (const line of fitTerminal(answers, manifest.skipped)) say.out(line);
  return EXIT.ok;
}
