import { writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { MAX_EXPORT_BYTES, readLiveExport } from '../adopt/live';
import { notTheClusters } from '../adopt/owned';
import type { CommandLine, CommandSpec, Given } from '../command-line/args';
import type { Colour } from '../command-line/colour';
import { CONFIG_OPTION, formatOption, outdirOption } from '../command-line/options';
import { suggest } from '../input/issues';
import { InputError, Problem } from '../input/problems';
import { SourceFile } from '../input/source';
import { clusterLayout } from '../output/layout';
import { count } from '../model/cluster-sets';
import { givenShard, MAX_SHARDS, Shard, SHARD_OPTION, shardName, shardProblems } from '../output/shard';
import { review, reviewWithEdges } from '../review/changes';
import { changedPaths, commitOf, commitTime, treeAt } from '../review/git';
import { assemble, readPart, reviewPart, ReviewPart, ShardReview, writePart } from '../review/parts';
import { changeScope, shardScope } from '../review/scope';
import { generatedObjects, objectTree } from '../review/live';
import { markdownReport, terminalReport } from '../review/report';
import { atLeast, Risk } from '../review/risk';
import { summaryDataOf } from '../review/summary-data';
import { FLEET, GeneratedTree } from '../review/tree';
import { stageAdoptionLine, stageAdoptions } from '../review/windows';
import { build, Options } from './build';
import { Context, locations } from './context';
import { EXIT, Reporter } from './reporter';

/** `npm run diff`: the review of a change. */
export const spec = {
  name: 'diff',
  summary: 'what the working tree changes against a git ref (or what runs), by cluster, resource and field, loudest first',
  description: 'Compares dist/ and argocd/ as committed at REF with a fresh synth of the working tree; with --live,\n'
    + 'compares what a cluster runs (an export of its NodePools, EC2NodeClasses and NodeOverlays) with what\n'
    + 'the config makes for it. Each change says whether it deletes pools, replaces nodes, changes capacity\n'
    + 'or the controller, and why.',
  options: [
    { name: 'base', value: 'REF', help: 'the git ref to compare with, e.g. origin/main (this or --live)' },
    { name: 'head', value: 'REF', help: 'with --base: compare with dist/ and argocd/ as committed at REF instead of a fresh synth (the pull-request workflow: what Argo CD would apply, reviewed by the base branch\'s tool)' },
    { name: 'live', value: 'FILE', help: 'instead of a ref: what runs, kubectl get nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh -o yaml (with --cluster)' },
    { name: 'cluster', value: 'CLUSTER', help: 'with --live: the cluster the export is of' },
    { name: 'helm-values', value: 'FILE', help: 'with --live: the running controller\'s values (helm get values karpenter -n NS -o yaml), compared with the values the config makes' },
    CONFIG_OPTION, outdirOption('compare DIR/dist and DIR/argocd as committed at REF (nothing is written)'),
    formatOption(['terminal', 'markdown'], '; markdown writes a PR comment'),
    { name: 'full', help: 'list every changed field (default: the first 8 of each resource)' },
    {
      name: 'fail-on', value: 'CLASS', choices: ['destructive', 'replaces-nodes', 'cost'], noun: 'class',
      help: 'destructive or replaces-nodes: exit 3 when the report holds a change of that class or a louder one; cost: exit 3 when a team\'s cost ceiling rises',
    },
    { name: 'report-url', value: 'URL', help: 'with --format markdown or --markdown-out: where the full report is, linked when the comment is shortened' },
    { name: 'markdown-out', value: 'FILE', help: 'with --base or --parts: also write the PR comment (--format markdown, without --full) to FILE, from the same review' },
    { ...SHARD_OPTION, help: `with --base and --part-out: review only the clusters of shard I of N (by a hash of the cluster id; the fleet's own files in shard 1), N at most ${MAX_SHARDS}` },
    { name: 'part-out', value: 'FILE', help: 'with --base: write this review (of --shard I/N, or the whole) to FILE as a part for --parts, and print no report' },
    { name: 'parts', value: 'FILE[,FILE…]', help: 'instead of --base: the report of the parts every shard wrote with --part-out, assembled (the same report as one run of the whole)' },
  ],
  examples: [
    'npm run diff -- --base origin/main', 'npm run diff -- --base origin/main --format markdown --fail-on destructive', 'npm run diff -- --live prod.live.yaml --cluster prod --fail-on replaces-nodes',
    'npm run diff -- --base origin/main --head HEAD --shard 2/8 --part-out part-2.json', 'npm run diff -- --parts part-1.json,part-2.json --format markdown',
  ],
  notes: 'exit codes: 0 done, 1 failed, 2 bad command line, 3 --fail-on found a change of that class or louder',
  constraints: baseProblems,
} as const satisfies CommandSpec;

/** What `diff` needs of its options beyond each one alone: a base to compare with, git's or what runs. */
function baseProblems(given: Given): string[] {
  const [base, live, cluster, parts] = [given.has('base'), given.has('live'), given.has('cluster'), given.has('parts')];
  if (parts) return base || live || given.has('head') || given.has('shard') || given.has('part-out') ? ['diff --parts assembles what the shards reviewed: give it without --base, --head, --live, --shard or --part-out'] : [];
  if (!base && !live) return ['diff needs --base REF (e.g. --base origin/main), or --live FILE --cluster CLUSTER, or --parts FILE,…'];
  if (given.has('shard') && !given.has('part-out')) return ['diff --shard needs --part-out FILE: a shard\'s review is a part of the report, assembled with --parts (alone it would hide the other shards\' clusters)', ...shardProblems(given)];
  if (given.has('part-out') && (!base || given.has('markdown-out') || given.has('fail-on'))) return ['diff --part-out writes a part for --parts: give it with --base, and --markdown-out or --fail-on to the run with --parts'];
  const shard = shardProblems(given);
  if (shard.length) return shard;
  if (base && live) return ['diff takes --base REF or --live FILE, not both'];
  if (live && !cluster) return ['diff --live needs --cluster CLUSTER: the cluster the export is of'];
  if (cluster && !live) return ['diff takes --cluster only with --live FILE'];
  if (live && given.has('markdown-out')) return ['diff takes --markdown-out only with --base REF'];
  if (!live && given.has('helm-values')) return ['diff takes --helm-values only with --live FILE'];
  if (live && given.has('head')) return ['diff takes --head only with --base REF'];
  return [];
}

/** Colour of the line of each class of change in `diff`. */
const RISK_COLOURS: Partial<Record<Risk, Colour>> = { 'destructive': 'red', 'replaces-nodes': 'yellow', 'capacity': 'cyan', 'access': 'bold', 'controller': 'magenta' };

/** What `diff` is asked for. */
interface DiffOptions {
  /** The git ref to compare with. */
  readonly base: string;
  /** Compare with the tree committed at this ref, not a fresh synth. @default - a fresh synth of the working tree */
  readonly head?: string;
  readonly format: 'terminal' | 'markdown';
  /** Every changed field, not the first few of each resource. */
  readonly full: boolean;
  /** Exit {@link EXIT.gate} when a change of this class or a louder one is reported. @default - always exit 0 */
  readonly failOn?: Risk | 'cost';
  /** Where the full report is, linked from a shortened PR comment. @default - no link */
  readonly reportUrl?: string;
  /** Also write the markdown report (without `full`) to this file, absolute: a PR's comment from the same review. @default - none */
  readonly markdownOut?: string;
  /** Review only this shard's clusters. @default - the whole fleet */
  readonly shard: Shard;
  /** Write the review as a part to this file, absolute, and print no report. @default - print the report */
  readonly partOut?: string;
  /** Instead of `base`: assemble the report from these parts, absolute paths. @default - review `base` */
  readonly parts?: readonly string[];
  /**
   * Compare with what runs instead of `base`: an export of a cluster's NodePools, EC2NodeClasses
   * and NodeOverlays (docs/adopting.md). @default - compare with `base`
   */
  readonly live?: {
    readonly file: string;
    readonly cluster: string;
    /** The running release's user-supplied values, compared with the generated values file. @default - the controller is not compared */
    readonly helmValues?: string;
  };
}

/** `diff --base REF` or `diff --live FILE --cluster CLUSTER`. */
export async function run({ options: given }: CommandLine<typeof spec>, context: Context): Promise<number> {
  const options = locations(context, given);
  return diff(context.say, options, {
    base: given.base ?? '', ...(given.head !== undefined ? { head: given.head } : {}), format: given.format ?? 'terminal', full: given.full, failOn: given['fail-on'], reportUrl: given['report-url'],
    ...(given['markdown-out'] !== undefined ? { markdownOut: context.say.paths.resolve(given['markdown-out']) } : {}),
    shard: givenShard(given.shard),
    ...(given['part-out'] !== undefined ? { partOut: context.say.paths.resolve(given['part-out']) } : {}),
    ...(given.parts !== undefined ? { parts: given.parts.split(',').filter(Boolean).map((f) => context.say.paths.resolve(f)) } : {}),
    ...(given.live !== undefined ? { live: {
      file: context.say.paths.resolve(given.live), cluster: given.cluster ?? '',
      ...(given['helm-values'] !== undefined ? { helmValues: context.say.paths.resolve(given['helm-values']) } : {}),
    } } : {}),
  });
}

/**
 * What a PR changes: the output committed at `base` against a fresh synth of the working tree,
 * or against the output committed at `head`. Only the files of the clusters the change touches
 * are read (review/scope.ts); with `head`, git names them and nothing else is read. The report is
 * always made from parts (review/parts.ts): the whole review is the one part of shard 1/1.
 */
async function diff(say: Reporter, options: Options, diffOptions: DiffOptions): Promise<number> {
  if (diffOptions.live) return diffLive(say, options, diffOptions, diffOptions.live);
  if (diffOptions.parts) {
    return reportParts(say, diffOptions.parts.map((f) => {
      const part = readPart(f);
      return 'problem' in part ? { file: say.paths.show(f), line: 0, col: 0, path: '', message: part.problem } : part;
    }), diffOptions);
  }
  const part = reviewPart(await shardReview(say, options, diffOptions));
  if (diffOptions.partOut === undefined) return reportParts(say, [part], diffOptions);
  writePart(diffOptions.partOut, part);
  const clusters = new Set(part.review.changes.map((c) => c.resource.cluster).filter((c) => c !== FLEET)).size + part.review.edges.length;
  say.out(`${shardName(diffOptions.shard) || 'the whole review'}: ${count(part.review.changes.length, 'change')} on ${count(clusters, 'cluster')} written to ${say.paths.show(diffOptions.partOut)}`);
  return EXIT.ok;
}

/** One shard's review (the whole fleet's as shard 1/1): the scoped trees of both sides compared. */
async function shardReview(say: Reporter, options: Options, diffOptions: DiffOptions): Promise<ShardReview> {
  const { head, shard } = diffOptions;
  let scope = shardScope(shard);
  let files: Map<string, string>;
  let documents: ReadonlyMap<string, readonly unknown[]> | undefined;
  if (head !== undefined) {
    // --head: the files as committed (what Argo CD applies), read by this tool; nothing of the config is run.
    scope = changeScope(changedPaths(diffOptions.base, head, options.root), shard);
    files = treeAt(head, options.root, new Map(), scope);
  } else {
    ({ files, documents } = await build(say, options, { documents: true, shard, fleetFiles: true }));
  }
  const baseTree = new GeneratedTree(treeAt(diffOptions.base, options.root, files, scope), diffOptions.base);
  const headTree = new GeneratedTree(files, head ?? 'the working tree', documents);
  // A cluster moving onto a stage ref (docs/windows.md), said with the report, at its head.
  const baseCommit = commitOf(diffOptions.base, options.root) ?? diffOptions.base;
  const adoptions = stageAdoptions(baseTree, headTree).map((a) => ({ cluster: a.cluster, line: stageAdoptionLine(a, commitOf(a.ref, options.root), baseCommit) }));
  // The rollout is counted from the head commit's time, not this machine's clock (docs/review.md).
  const data = summaryDataOf(headTree);
  return {
    shard, base: diffOptions.base, head: head ?? 'the working tree', review: reviewWithEdges(baseTree, headTree), adoptions,
    ...('data' in data ? { fleet: { data: data.data, at: commitTime(head ?? 'HEAD', options.root) ?? new Date() } } : {}),
  };
}

/** The report of the parts of a review (one, or every shard's), printed, written as the PR comment, and gated. */
function reportParts(say: Reporter, parts: readonly (ReviewPart | Problem)[], diffOptions: DiffOptions): number {
  const unread = parts.filter((p): p is Problem => !('format' in p));
  if (unread.length) throw new InputError(unread);
  const assembled = assemble(parts.filter((p): p is ReviewPart => 'format' in p));
  if ('problems' in assembled) {
    for (const problem of assembled.problems) say.error(problem);
    return EXIT.failed;
  }
  const { review: result, base, fleet } = assembled;
  const style = (risk: Risk, text: string) => {
    const colour = RISK_COLOURS[risk];
    return colour ? say.paintOut(colour, text) : text;
  };
  say.out(diffOptions.format === 'markdown'
    ? markdownReport(result, base, { fullReportUrl: diffOptions.reportUrl, full: diffOptions.full, fleet })
    : terminalReport(result, base, { full: diffOptions.full, style, fleet }));
  // The pull-request workflow's comment and its full report from one synth and one review (docs/review.md).
  if (diffOptions.markdownOut !== undefined) {
    const comment = markdownReport(result, base, { fullReportUrl: diffOptions.reportUrl, full: false, fleet });
    writeFileSync(diffOptions.markdownOut, comment.endsWith('\n') ? comment : `${comment}\n`);
  }
  return gated(say, result, diffOptions);
}

/**
 * The running release's user-supplied values as YAML (`helm get values -o yaml` prints no header;
 * helm v3.21.4 cmd/helm/get_values.go L83-L98), compared as the generated values file is: the
 * values each side gives the chart, the chart's defaults applied by neither.
 */
function runningValues(path: string, say: Reporter): string {
  const file = SourceFile.read(path, { maxBytes: MAX_EXPORT_BYTES }, say.paths.show(path));
  if (file.problems.length) throw new InputError(file.problems);
  return valuesAsText(file.value ?? {});
}

/** Values as YAML with every number as its text: the chart passes `cpu: 1` and `cpu: "1"` on alike (as adopt compares them). */
function valuesAsText(values: unknown): string {
  const text = (v: unknown): unknown => (typeof v === 'number' ? String(v) : Array.isArray(v) ? v.map(text)
    : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, text(x)])) : v);
  return stringify(text(values), { lineWidth: 0 });
}

/** The exit code of a report under `--fail-on`, said on stderr when it gates. */
function gated(say: Reporter, result: ReturnType<typeof review>, diffOptions: DiffOptions): number {
  const gate = diffOptions.failOn;
  if (gate === 'cost') {
    // A PR that lets a team spend more needs the same explicit approval as a drain (docs/cost.md).
    const rises = (result.costs ?? []).filter((c) => c.rises && c.team !== 'all teams');
    if (rises.length === 0) return EXIT.ok;
    say.err(`karpenter-gitops diff: --fail-on cost: the ceiling of ${rises.map((c) => `team ${c.team}`).join(', ')} rises`);
    return EXIT.gate;
  }
  if (gate !== undefined && result.changes.some((c) => atLeast(c.risk, gate))) {
    say.err(`karpenter-gitops diff: --fail-on ${gate}: the report holds ${result.changes.filter((c) => atLeast(c.risk, gate)).length} change(s) of class ${gate} or louder`);
    return EXIT.gate;
  }
  return EXIT.ok;
}

/**
 * `diff --live FILE --cluster CLUSTER`: what the config makes for one cluster against what it runs,
 * the export as the base: its NodePools, EC2NodeClasses and NodeOverlays compared by spec, the CRD
 * defaults of the cluster's release applied on both sides, requirements as sets (review/live.ts).
 */
async function diffLive(say: Reporter, options: Options, diffOptions: DiffOptions, live: NonNullable<DiffOptions['live']>): Promise<number> {
  const { plan, platform, files, documents } = await build(say, options, { documents: true });
  const cluster = plan.clusters.find((c) => c.id === live.cluster);
  if (!cluster) {
    const near = suggest(live.cluster, plan.clusters.map((c) => c.id));
    say.error(`the config has no cluster ${live.cluster} (${near ? `did you mean ${near}? ` : ''}its clusters: ${plan.clusters.map((c) => c.id).join(', ')})`);
    return EXIT.failed;
  }
  const show = say.paths.show(live.file);
  const { live: exported, problems } = readLiveExport(SourceFile.readDocuments(live.file, { maxBytes: MAX_EXPORT_BYTES }, show), show);
  if (!exported) throw new InputError(problems);
  const tf = platform.clusters.find((c) => c.id === live.cluster)?.terraform;
  const foreign = tf ? notTheClusters(exported, tf) : [];
  if (foreign.length) throw new InputError(foreign);
  for (const note of exported.notes) say.err(`note: ${note}`);
  const version = cluster.karpenterVersion;
  const values = live.helmValues === undefined ? undefined : runningValues(live.helmValues, say);
  const generatedValues = files.get(clusterLayout(live.cluster).controllerValues);
  const made = objectTree(generatedObjects(new GeneratedTree(files, 'the working tree', documents), live.cluster), live.cluster, version, 'the working tree',
    values === undefined ? undefined : valuesAsText(parse(generatedValues ?? '') ?? {}));
  const running = objectTree([...exported.nodePools, ...exported.nodeClasses, ...exported.overlays], live.cluster, version, show, values);
  const result = review(running, made);
  const style = (risk: Risk, text: string) => {
    const colour = RISK_COLOURS[risk];
    return colour ? say.paintOut(colour, text) : text;
  };
  const base = `what cluster ${live.cluster} runs (${show})`;
  say.out(diffOptions.format === 'markdown' ? markdownReport(result, base, { fullReportUrl: diffOptions.reportUrl, full: diffOptions.full })
    : terminalReport(result, base, { full: diffOptions.full, style }));
  return gated(say, result, diffOptions);
}
