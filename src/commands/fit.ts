import { readManifest } from '../fit/manifest';
import { fitWorkloads } from '../fit/placement';
import { fitJson, fitTerminal } from '../fit/report';
import { InputError, Problem } from '../input/problems';
import { ClusterSelector, selectClusters, selects } from '../model/cluster-sets';
import { loadPlan } from '../model/checks';
import { EXIT, Reporter } from './reporter';

/**
 * `fit MANIFEST`: for each workload in the manifest, the clusters and pools it can run on
 * and why not the others, read from the fleet's plan (what synth would write); only on the
 * clusters `selector` chooses (`--cluster`, `--stage`, `--group`) when it chooses. Exit 0 even
 * when nothing fits (a question, not a gate); 1 when the manifest or the config (or its plan)
 * has problems, or the selector names what the fleet does not have, all printed.
 */
export function fit(say: Reporter, configPath: string, manifestPath: string, format: 'terminal' | 'json', selector: ClusterSelector = {}): number {
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
