/**
 * Writes src/config/settings-rules.ts from the settings docs, values.yaml and
 * deployment template of one Karpenter release (see src/upgrade/settings-rules.ts).
 *
 * Usage:
 *   npx esbuild scripts/gen-settings-rules.ts --bundle --platform=node --outfile=/tmp/gen-settings-rules.js
 *   node /tmp/gen-settings-rules.js FOLDER VERSION [OUT]
 *
 * FOLDER holds `settings.md`, `values.yaml` and `deployment.yaml` of release
 * VERSION (e.g. test/fixtures/karpenter-1.14.1 1.14.1); OUT defaults to
 * src/config/settings-rules.ts. Problems go to stderr, one a line, exit 1.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/website/content/en/docs/reference/settings.md
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSettingsRules, renderSettingsRules } from '../src/upgrade/settings-rules';

function main(argv: readonly string[]): number {
  const [folder, karpenterVersion, out = 'src/config/settings-rules.ts'] = argv;
  if (!folder || !karpenterVersion) {
    process.stderr.write('usage: node gen-settings-rules.js FOLDER VERSION [OUT]  (FOLDER holds settings.md, values.yaml, deployment.yaml)\n');
    return 2;
  }
  const read = (name: string): string => readFileSync(join(folder, name), 'utf8');
  try {
    const data = buildSettingsRules({
      settingsMd: read('settings.md'),
      valuesYaml: read('values.yaml'),
      deploymentTemplate: read('deployment.yaml'),
      karpenterVersion,
    });
    writeFileSync(out, renderSettingsRules(data));
    process.stderr.write(`gen-settings-rules: wrote ${out}: ${Object.keys(data.settings).length} settings, ${Object.keys(data.featureGates).length} feature gates\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`gen-settings-rules: ${error instanceof Error ? error.message : String(error)}\n`.replace(/\n(?=.)/g, '\ngen-settings-rules: '));
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
