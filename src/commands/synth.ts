import type { FleetPlan } from '../model/plan';
import { OutputDir } from '../output/output-dir';
import { OutputError } from '../output/output-error';
import { legacyPoolsAppProblems } from '../review/guard';
import { build, Options } from './build';
import { EXIT, Reporter } from './reporter';

/** `synth`: validates the config and makes dist/ and argocd/ hold exactly the generated files (contract section 3). */
export async function synth(say: Reporter, options: Options): Promise<number> {
  const output = OutputDir.open(options.root, 'synth');
  try {
    const { plan, warnings, files } = await build(say, options);
    const old = output.read();
    const cascade = legacyPoolsAppProblems(old.files, files);
    if (cascade.length) throw new OutputError(cascade.join('\n'));
    const result = await output.replace(files, old);
    for (const w of warnings) say.warning(w);
    const [header, ...rows] = summary(plan);
    say.outIn('bold', header);
    for (const row of rows) say.out(row);
    const shown = say.paths.show(options.root);
    const at = shown === '.' ? '' : `${shown}/`;
    if (output.finishedInterrupted) say.out('finished the change of an earlier run that was interrupted');
    for (const path of result.removed) say.out(`removed ${at}${path}`);
    say.out(`${at}dist and ${at}argocd: ${files.size} files (${result.written.length} written, ${result.removed.length} removed, ${result.unchanged} unchanged)`);
    return EXIT.ok;
  } finally {
    output.close();
  }
}

/** The short table synth prints: one row per pool, with the number of instance types it admits. */
function summary(plan: FleetPlan): string[] {
  const rows = plan.summaryRows;
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd());
}
