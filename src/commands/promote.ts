import { readFileSync } from 'node:fs';
import { loadPlatform } from '../config/load';
import type { Cluster } from '../config/platform';
import { clusterLayout } from '../output/layout';
import { promotion } from '../promote/promote';
import { commitOf, sameFiles } from '../review/git';
import type { Options } from './build';
import { EXIT, Reporter } from './reporter';

/** `promote STAGE --revision SHA --applications FILE` (docs/windows.md). */
export function promote(say: Reporter, { configPath, root }: Options, stage: number, { revision, file, main }: { revision: string; file: string; main?: string }): number {
  const { platform } = loadPlatform(configPath, say.loadOptions);
  let applications: unknown;
  try {
    applications = JSON.parse(file === '-' ? readFileSync(0, 'utf8') : readFileSync(say.paths.resolve(file), 'utf8'));
  } catch (err) {
    say.error(`cannot read the Applications from ${file === '-' ? 'stdin' : file}: ${(err as Error).message} (give kubectl -n argocd get applications -o json)`);
    return EXIT.failed;
  }
  // Main must still want the revision for the stage's clusters (a revert is never overtaken).
  const mainCommit = [main, 'origin/HEAD', 'origin/main'].filter((r): r is string => r !== undefined).map((r) => commitOf(r, root)).find((c) => c !== undefined);
  const stillWanted = (cluster: Cluster) => (mainCommit === undefined ? undefined : sameFiles(revision, mainCommit, clusterLayout(cluster).owned, root));
  const decision = promotion(platform, stage, revision, applications, stillWanted);
  if (decision.ready) {
    say.out(`stage ${stage - 1} has ${revision}, synced and healthy (${decision.checked.join(', ')}); promote with:`);
    say.out(decision.command ?? '');
    return EXIT.ok;
  }
  say.err(`not promoting ${revision} to stage ${stage}:`);
  for (const b of decision.blockers) say.err(`  ${b}`);
  // 2: there is no such stage (the promote workflow's loop over the stages ends there); 1: not yet.
  return decision.noSuchStage ? EXIT.usage : EXIT.failed;
}
