import { join } from 'node:path';
import type { CommandLine, CommandSpec } from '../command-line/args';
import { CONFIG_OPTION, outdirOption } from '../command-line/options';
import { OutputDir } from '../output/output-dir';
import { checkTree, Drift } from '../review/check';
import { build } from './build';
import { Context, locations } from './context';
import { EXIT } from './reporter';

/** `npm run check`. */
export const spec = {
  name: 'check',
  summary: 'exit 1 when dist/ or argocd/ differ from a fresh synth (the CI drift check)',
  description: 'Synthesizes in memory and compares with dist/ and argocd/ on disk, naming every stale, missing or\n'
    + 'extra file with a short diff. Writes nothing.',
  options: [CONFIG_OPTION, outdirOption('compare DIR/dist and DIR/argocd on disk (nothing is written)')],
  examples: ['npm run check'],
  notes: 'exit codes: 0 up to date, 1 differs (or input problems), 2 bad command line',
} as const satisfies CommandSpec;

/** The CI drift check: the committed output must be exactly what synth makes of the committed config. */
export async function run({ options: given }: CommandLine<typeof spec>, context: Context): Promise<number> {
  const { say } = context;
  const options = locations(context, given);
  const output = OutputDir.open(options.root, 'check');
  let drifts;
  let files;
  try {
    files = (await build(say, options)).files;
    drifts = checkTree(output.read().files, files);
  } finally {
    output.close();
  }
  if (drifts.length === 0) {
    say.out(`dist/ and argocd/ are up to date (${files.size} files)`);
    return EXIT.ok;
  }
  const shown = (d: Drift) => say.paths.show(join(options.root, d.path));
  for (const d of drifts) {
    if (d.kind === 'line-endings') {
      say.err(`${shown(d)} differs only in line endings (CRLF): your git converts them; .gitattributes keeps them LF — run git add --renormalize . or re-checkout`);
      continue;
    }
    say.err(`${d.kind}: ${shown(d)}`);
    say.err(d.diff.split('\n').map((l) => `    ${l}`).join('\n'));
  }
  const content = drifts.filter((d) => d.kind !== 'line-endings').length;
  const endings = drifts.length - content;
  if (content > 0) {
    say.err(`${content} file(s) differ from a fresh synth: run \`npm run synth\` and commit dist/ and argocd/ (never edit them by hand)`);
  }
  if (endings > 0) say.err(`${endings} file(s) differ only in line endings`);
  return EXIT.failed;
}
