import { join } from 'node:path';
import type { CommandSpec } from '../command-line/args';
import { CONFIG_DIR, InitRefused, InitRequest, initRepository, InitUsageError } from '../init/init';
import { CHART_VERSION } from '../release/chart-values-keys.generated';
import { EXIT, Reporter, usage } from './reporter';

/**
 * `init CLUSTER --terraform FILE`: config/ becomes the user's first cluster (src/init). Says
 * what it wrote and removed, what it kept, whether gitops.repoURL still needs changing, and
 * the commands to run next.
 */
export async function init(say: Reporter, spec: CommandSpec, request: InitRequest): Promise<number> {
  let result;
  try {
    result = await initRepository(request);
  } catch (err) {
    if (err instanceof InitUsageError) return usage(say, spec, [err.message]);
    if (!(err instanceof InitRefused)) throw err;
    say.error(`${err.message}; nothing was written`);
    return EXIT.failed;
  }
  const show = (path: string) => say.paths.show(join(request.root, path));
  for (const w of result.warnings) say.warning(w);
  for (const path of result.written) {
    say.out(path.endsWith('/platform.yaml')
      ? `wrote ${show(path)}: cluster ${request.cluster} (terraform/${request.cluster}.json), Karpenter ${CHART_VERSION}, one example team: ${result.team}`
      : `wrote ${show(path)}: a copy of ${say.paths.show(request.terraformFile)}`);
  }
  for (const path of result.removed) say.out(`removed ${show(path)} (the example's)`);
  for (const path of result.kept) say.out(`kept ${show(path)}: not the example's; remove it if your fleet does not use it`);
  const repo = result.repo;
  if (repo.from === 'example') {
    say.outIn('yellow', `gitops.repoURL is still the example's, ${repo.url}: set it in ${show(`${CONFIG_DIR}/platform.yaml`)} to the URL Argo CD clones this repository from (or run init again with --repo URL)`);
  } else {
    say.out(`gitops.repoURL: ${repo.url}${repo.from === 'old-config' ? ' (kept from the config it replaced)' : ''}`);
  }
  say.out('');
  say.out('next:');
  say.out(`  1. rename team ${result.team} in ${show(`${CONFIG_DIR}/platform.yaml`)} to your first team (or keep it), then: npm run synth`);
  say.out('     synth replaces the example\'s dist/ and argocd/ with your fleet\'s');
  say.out('  2. npm run check, then commit config/, dist/ and argocd/ together (docs/making-it-yours.md)');
  return EXIT.ok;
}
