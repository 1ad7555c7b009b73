import { join, resolve } from 'node:path';
import type { CommandLine, CommandSpec } from '../command-line/args';
import { CONFIG_OPTION, EXIT_CODES_NOTE, outdirOption } from '../command-line/options';
import { count, describeClusters, someNames } from '../model/cluster-sets';
import type { FleetPlan } from '../model/plan';
import { clusterLayout, clusterOfPath } from '../output/layout';
import { OutputDir } from '../output/output-dir';
import { OutputError } from '../output/output-error';
import type { ChangeResult } from '../output/transaction';
import { FileRecord, InputsManifest, keptFile, OutputRecord, recordOf, RunRecord, toolDigest } from '../output/synth-cache';
import { runKey, seenRecord, unchangedRun } from '../output/unchanged-run';
import { runDate } from '../config/support';
import { formatProblem } from '../input/problems';
import { givenShard, holdsCluster, holdsPath, Shard, SHARD_OPTION, shardName, shardProblems } from '../output/shard';
import { legacyPoolsAppProblems } from '../review/guard';
import { build, BuiltCluster, Options } from './build';
import { Context, locations } from './context';
import { EXIT, Reporter } from './reporter';

/** `npm run synth`, the default command. */
export const spec = {
  name: 'synth',
  summary: 'validate the config and write dist/ and argocd/ (the default command)',
  description: 'Reads the platform config and every Terraform outputs file it names, reports every problem at once\n'
    + '(nothing is written then), and makes dist/ and argocd/ hold exactly the generated files: new and\n'
    + 'changed files written, files of removed pools removed. Prints any warnings and a short summary: how\n'
    + 'many clusters and pools, which clusters\' files changed, the files removed, and the files written,\n'
    + 'removed and unchanged.',
  options: [
    CONFIG_OPTION, outdirOption('write DIR/dist and DIR/argocd'),
    { name: 'verbose', help: 'also print a row per pool (cluster, pool, arch, capacity, instance types, nodes, limits), every file removed, how many clusters and files were rendered, and a warning shared by many clusters once per cluster' },
    SHARD_OPTION,
  ],
  examples: ['npm run synth', 'npm run synth -- --config staging/platform.yaml --outdir staging', 'npm run synth -- --verbose', 'npm run synth -- --shard 1/4'],
  notes: EXIT_CODES_NOTE,
  constraints: shardProblems,
} as const satisfies CommandSpec;

/** What synth says when it changed no file. */
const NOTHING_CHANGED = 'nothing changed';

/** Most files removed that the short summary names one by one; `--verbose` names every one. */
const REMOVED_SHOWN = 20;

/**
 * `synth`: validates the config and makes dist/ and argocd/ hold exactly the generated files
 * (contract section 3), then prints a short summary (contract 8.2): the fleet's counts, what
 * changed by cluster, the files removed, the files written, removed and unchanged; with
 * `--verbose`, a row per pool first and every file removed.
 */
export async function run({ options: given }: CommandLine<typeof spec>, context: Context): Promise<number> {
  const { say } = context;
  const options = locations(context, given);
  const output = OutputDir.open(options.root, 'synth');
  try {
    // A shard reads, writes and removes only its own files; the other shards' stay as they are.
    const shard = givenShard(given.shard);
    const tool = runningTool();
    const manifest = output.readInputs();
    // Nothing to do (output/unchanged-run.ts): a run of the whole fleet whose every input and output is as the last one left them.
    const key = shard.count === 1 && !given.verbose && !output.finishedInterrupted ? wholeRunKey(tool, options) : undefined;
    const same = key === undefined ? undefined : unchangedRun(manifest, key, options.root, output.listing);
    if (same) {
      if (same.refreshed) output.writeInputs(same.manifest);
      return unchangedReport(say, options.root, same.run, output.listing.files.length);
    }
    const seen = new Map<string, FileRecord>();
    // An unchanged cluster's files are kept as they are, never read (output/synth-cache.ts).
    const { plan, warnings, files, clusters, kept } = await build(say, options, {
      shard, reuse: (id, path, inputs) => keptFile(manifest, tool, options.root, { cluster: id, path, inputs }), seen: (path, file) => seen.set(resolve(path), seenRecord(file)),
    });
    const old = output.read((path) => !kept.has(path) && (shard.count === 1 || holdsPath(shard, path)));
    const cascade = legacyPoolsAppProblems(old.files, new Set([...files.keys(), ...kept]));
    if (cascade.length) throw new OutputError(cascade.join('\n'));
    const result = await output.replace(files, old, kept);
    const run = key === undefined ? undefined : { key, inputs: Object.fromEntries(seen), warnings: warnings.map(formatProblem), fleetLine: fleetLine(plan) };
    output.writeInputs(inputsManifest({ tool, clusters, files, root: options.root }, manifest?.manifest, shard, run));
    // A warning shared by many clusters is one line; --verbose lists each.
    for (const w of warnings) for (const each of given.verbose && w.grouped ? w.grouped : [w]) say.warning(each);
    if (given.verbose) {
      const [header, ...rows] = table(plan);
      say.outIn('bold', header);
      for (const row of rows) say.out(row);
    }
    const at = rootPrefix(say, options.root);
    say.out(withWarnings(fleetLine(plan), warnings.length));
    if (shard.count > 1) say.out(`${shardName(shard)}: ${count(clusters.length, 'cluster')}${shard.index === 1 ? ' and the fleet\'s own files' : ''}; the other shards' files are as they were`);
    say.out(changedLine(plan, [...result.written, ...result.removed]));
    if (output.finishedInterrupted) say.out('finished the change of an earlier run that was interrupted');
    const removed = given.verbose || result.removed.length <= REMOVED_SHOWN ? result.removed : result.removed.slice(0, REMOVED_SHOWN - 1);
    for (const path of removed) say.out(`removed ${at}${path}`);
    if (removed.length < result.removed.length) say.out(`… and ${count(result.removed.length - removed.length, 'more file')} removed (--verbose names every one)`);
    say.out(countsLine(at, files.size + kept.size, result));
    if (given.verbose) say.out(renderedLine(clusters));
    return EXIT.ok;
  } finally {
    output.close();
  }
}

/** The key of a run of the whole fleet (unchanged-run.ts); none when the day is not one (the run then reports it). */
function wholeRunKey(tool: string, { configPath, root }: Options): string | undefined {
  try {
    return runKey({ tool, today: runDate(), configPath, root, cwd: process.cwd() });
  } catch {
    return undefined;
  }
}

/** What a synth with nothing to do prints: what the last run printed of the fleet, and that nothing changed. */
function unchangedReport(say: Reporter, root: string, run: RunRecord, files: number): number {
  for (const line of run.warnings) say.warningLine(line);
  say.out(withWarnings(run.fleetLine, run.warnings.length));
  say.out(NOTHING_CHANGED);
  say.out(countsLine(rootPrefix(say, root), files, { written: [], removed: [], unchanged: files }));
  return EXIT.ok;
}

/** The fleet's line with its count of warnings: `120 clusters, …; 1 warning`. */
function withWarnings(line: string, warnings: number): string {
  return `${line}${warnings ? `; ${count(warnings, 'warning')}` : ''}`;
}

/** How the output root is shown before `dist`: nothing for the current folder, else `out/`. */
function rootPrefix(say: Reporter, root: string): string {
  const shown = say.paths.show(root);
  return shown === '.' ? '' : `${shown}/`;
}

/** `dist and argocd: 120 files (3 written, 0 removed, 117 unchanged)`. */
function countsLine(at: string, files: number, result: Pick<ChangeResult, 'written' | 'removed' | 'unchanged'>): string {
  return `${at}dist and ${at}argocd: ${files} files (${result.written.length} written, ${result.removed.length} removed, ${result.unchanged} unchanged)`;
}

/**
 * `rendered 3 of 120 clusters (40 files); the files of the others were as the last synth left
 * them`: a cluster is rendered when any of its files is (docs/performance.md#incremental-synth).
 */
function renderedLine(clusters: readonly BuiltCluster[]): string {
  const rendered = clusters.filter((c) => c.kept.size < c.inputs.size);
  const files = rendered.reduce((n, c) => n + c.inputs.size - c.kept.size, 0);
  return `rendered ${rendered.length.toLocaleString('en-US')} of ${count(clusters.length, 'cluster')} (${count(files, 'file')})`
    + `${rendered.length < clusters.length ? '; the files of the others were as the last synth left them' : ''}`;
}

/** `120 clusters, 1,200 pools of 8 teams; Karpenter 1.14.1 on 90, 1.13.1 on 30` (the warnings are counted after it). */
function fleetLine(plan: FleetPlan): string {
  const pools = plan.clusters.reduce((n, c) => n + c.pools.length, 0);
  const teams = new Set(plan.clusters.flatMap((c) => c.pools.map((p) => p.team))).size;
  const releases = new Map<string, number>();
  for (const c of plan.clusters) releases.set(c.karpenterVersion, (releases.get(c.karpenterVersion) ?? 0) + 1);
  return `${count(plan.clusters.length, 'cluster')}, ${count(pools, 'pool')} of ${count(teams, 'team')}; `
    + `Karpenter ${[...releases].map(([v, n]) => (releases.size === 1 ? v : `${v} on ${n.toLocaleString('en-US')}`)).join(', ')}`;
}

/**
 * What the run changed, by cluster: `changed: group prod (80 clusters), 160 files;
 * dist/SUMMARY.md, dist/summary.json`, or `nothing changed`. A cluster's files are its folder
 * and its root Application (layout.ts); the rest are the fleet's, named from the output root
 * (the last line says where it is).
 */
function changedLine(plan: FleetPlan, paths: readonly string[]): string {
  if (paths.length === 0) return NOTHING_CHANGED;
  const roots = new Map(plan.clusters.map((c) => [clusterLayout(c.id).root, c.id]));
  const byCluster = new Map<string, number>();
  const fleet: string[] = [];
  for (const path of paths) {
    const cluster = clusterOfPath(path) ?? roots.get(path);
    if (cluster === undefined) fleet.push(path);
    else byCluster.set(cluster, (byCluster.get(cluster) ?? 0) + 1);
  }
  // In the fleet's order, as the summary data lists the clusters with their stages and groups.
  const tags = plan.summaryData.model.clusters;
  const ids = tags.map((c) => c.id).filter((id) => byCluster.has(id));
  const gone = [...byCluster.keys()].filter((id) => !ids.includes(id)).sort();
  const files = ids.reduce((n, id) => n + (byCluster.get(id) ?? 0), 0);
  return `changed: ${[
    ids.length ? `${describeClusters(ids, tags)}, ${count(files, 'file')}` : '',
    gone.length ? `${count(gone.length, 'cluster')} no longer in the config (${someNames(gone)})` : '',
    fleet.length ? someNames([...fleet].sort()) : '',
  ].filter(Boolean).join('; ')}`;
}

/** The table `--verbose` prints: one row per pool, with the number of instance types it admits. */
function table(plan: FleetPlan): string[] {
  const rows = plan.summaryRows;
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd());
}

/**
 * The running tool's digest: bundled (`lib/karpenter-gitops.cjs`, as `npm run synth` runs it),
 * its bundle and render worker; from the TypeScript sources (tests), `src/` and `imports/`.
 */
function runningTool(): string {
  const bundled = __filename.endsWith('.cjs');
  return toolDigest(
    bundled ? { file: __filename, worker: join(__dirname, 'render-worker.cjs') } : undefined,
    [join(__dirname, '..'), join(__dirname, '..', '..', 'imports')],
  );
}

/** What this synth made, for its manifest: the tool, each cluster's files, the rendered files' text, where they are. */
interface Made {
  readonly tool: string;
  readonly clusters: readonly BuiltCluster[];
  readonly files: ReadonlyMap<string, string>;
  readonly root: string;
}

/**
 * The manifest of what this synth wrote: a kept cluster's records as just verified, a rendered
 * one's files recorded as they now are on disk; in a shard, the other shards' records carried over
 * when the same tool made them (another tool's are never trusted).
 */
function inputsManifest(
  { tool, clusters, files, root }: Made, last: InputsManifest | undefined, shard: Shard, run: Omit<RunRecord, 'fleet'> | undefined,
): InputsManifest {
  const others = shard.count > 1 && last?.tool === tool ? Object.entries(last.clusters).filter(([id]) => !holdsCluster(shard, id)) : [];
  const records: InputsManifest['clusters'] = Object.fromEntries([...others, ...clusters.map((c) => {
    const made: Record<string, OutputRecord> = {};
    for (const [p, inputs] of c.inputs) {
      const r = c.kept.get(p) ?? recordOf(root, p, files.get(p));
      // A file that is not on disk as written (it cannot be, but never record a guess) is built next time.
      if (r) made[p] = { ...r, inputs };
    }
    return [c.id, { files: made }] as const;
  })]);
  if (!run) return { version: 3, tool, clusters: records };
  // The fleet's files: every one rendered that no cluster's render made (the pages are the fleet's render's, in clusters' folders).
  const ofClusters = new Set(clusters.flatMap((c) => [...c.inputs.keys()]));
  const fleet: Record<string, FileRecord> = {};
  for (const [path, text] of files) {
    if (ofClusters.has(path)) continue;
    const r = recordOf(root, path, text);
    if (!r) return { version: 3, tool, clusters: records };
    fleet[path] = r;
  }
  return { version: 3, tool, clusters: records, run: { ...run, fleet } };
}
