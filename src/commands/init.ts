import { join } from 'node:path';
import type { CommandLine, CommandSpec } from '../command-line/args';
import { CONFIG_DIR, InitRefused, initRepository, InitUsageError } from '../init/init';
import { CHART_VERSION } from '../release/chart-values-keys.generated';
import type { Context } from './context';
import { EXIT, usage } from './reporter';

/** `npm run init`: the repository becomes the user's. */
export const spec = {
  name: 'init',
  summary: 'make the cloned repository yours: config/ becomes your first cluster, the example goes',
  description: 'Replaces config/platform.yaml with a fleet of one cluster, CLUSTER, that reads\n'
    + 'terraform/CLUSTER.json: the gitops block, the Karpenter release the generator targets and one\n'
    + 'example team. Copies FILE (the cluster\'s `terraform output -json`, from where you run npm) to\n'
    + 'config/terraform/CLUSTER.json and removes the example\'s files. Checks everything first: on any\n'
    + 'problem nothing is written. Refuses when config/ is no longer the untouched example (which\n'
    + 'config/example.sha256 describes) unless --force. Then npm run synth replaces the example\'s dist/\n'
    + 'and argocd/ with your fleet\'s (docs/making-it-yours.md).',
  argument: {
    name: 'CLUSTER',
    missing: 'init needs the id of your first cluster, e.g. npm run init -- lab --terraform lab.json',
  },
  options: [
    {
      name: 'terraform', value: 'FILE', required: 'init needs --terraform FILE: the cluster\'s `terraform output -json` saved in a file',
      help: 'the cluster\'s `terraform output -json`, from where you run npm (required)',
    },
    { name: 'repo', value: 'URL', help: 'gitops.repoURL, where Argo CD reads dist/ (default: config/platform.yaml\'s)' },
    { name: 'force', help: 'replace config/platform.yaml even when config/ is not the example (other files stay)' },
  ],
  examples: [
    'npm run init -- lab --terraform ../infra/lab.json',
    'npm run init -- lab --terraform lab.json --repo https://github.com/acme/platform-gitops.git',
  ],
  notes: 'exit codes: 0 done, 1 failed (problems, or config/ not the example: nothing written), 2 bad usage',
} as const satisfies CommandSpec;

/**
 * `init CLUSTER --terraform FILE`: config/ becomes the user's first cluster (src/init). Says
 * what it wrote and removed, what it kept, whether gitops.repoURL still needs changing, and
 * the commands to run next.
 */
export async function run({ options, argument: cluster }: CommandLine<typeof spec>, { say }: Context): Promise<number> {
  const request = {
    root: process.cwd(), cluster, terraformFile: say.paths.resolve(options.terraform), repoURL: options.repo, force: options.force,
    showPath: say.loadOptions.showPath,
  };
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
