import { join } from 'node:path';
import type { CommandLine, CommandSpec } from '../command-line/args';
import { CONFIG_OPTION, outdirOption } from '../command-line/options';
import { OutputDir } from '../output/output-dir';
import { givenShard, holdsPath, SHARD_OPTION, shardName, shardProblems } from '../output/shard';
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
  options: [CONFIG_OPTION, outdirOption('compare DIR/dist and DIR/argocd on disk (nothing is written)'), SHARD_OPTION],
  examples: ['npm run check', 'npm run check -- --shard 3/8'],
  notes: 'exit codes: 0 up to date, 1 differs (or input problems), 2 bad command line',
  constraints: shardProblems,
} as const satisfies CommandSpec;

/** The CI drift check: the committed output must be exactly what synth makes of the committed config. */
export async function run({ options: given }: CommandLine<typeof spec>, context: Context): Promise<number> {
  const { say } = context;
  const options = locations(context, given);
  const output = OutputDir.open(options.root, 'check');
  // A shard checks its own files; the N shards together check every file (output/shard.ts).
  const shard = givenShard(given.shard);
  let drifts;
  let files;
  try {
    files = (await build(say, options, { shard })).files;
    drifts = checkTree(output.read(shard.count === 1 ? undefined : (path) => holdsPath(shard, path)).files, files);
  } finally {
    output.close();
  }
  if (drifts.length === 0) {
    say.out(`dist/ and argocd/ are up to date (${files.size} files${shard.count > 1 ? ` of ${shardName(shard)}` : ''})`);
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
