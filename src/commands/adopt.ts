import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { AdoptionError } from '../adopt/adopt';
import { adoptClusters, baselineText } from '../adopt/fleet';
import type { Platform } from '../config/platform';
import type { CommandLine, CommandSpec } from '../command-line/args';
import { CONFIG_OPTION, EXIT_CODES_NOTE } from '../command-line/options';
import { autoModeVerdict } from '../adopt/auto-mode';
import { controllerRelease, handOverSteps } from '../adopt/handover';
import { LiveExport, MAX_EXPORT_BYTES, readLiveExport } from '../adopt/live';
import { notTheClusters } from '../adopt/owned';
import { APP_NAMES } from '../config/reserved';
import { clusterApplications } from '../model/applications';
import { ConfigFileLock, lockConfigFile } from '../output/config-file';
import { suggest } from '../input/issues';
import { collapseShared, formatProblem, InputError, Problem } from '../input/problems';
import { readPlan } from '../model/checks';
import { SourceFile } from '../input/source';
import { clusterLayout, FLEET_FILES } from '../output/layout';
import { generatedObjects, sameObjects } from '../review/live';
import { GeneratedTree } from '../review/tree';
import { render } from '../synth';
import { renderFile } from '../output/render';
import type { FleetPlan } from '../model/plan';
import { Context, locations } from './context';
import { EXIT, Reporter } from './reporter';

/** `npm run adopt`: take over running clusters. */
export const spec = {
  name: 'adopt',
  summary: 'take over clusters that already run Karpenter: write the config that makes exactly what runs',
  description: 'Reads FILE, CLUSTER\'s NodePools, EC2NodeClasses and NodeOverlays as kubectl prints them (the first\n'
    + 'example; CLUSTER is an entry of config/platform.yaml), and writes the config under which synth\n'
    + 'makes, for that cluster, exactly those objects: the same names, the same specs once the CRD defaults\n'
    + 'apply, nothing of the generator\'s own (an adopted team). With --helm-values, the controller keeps\n'
    + 'the running release\'s values. Several clusters in one run: CLUSTER=FILE pairs, or a folder of\n'
    + 'exports named <cluster>.yaml (with <cluster>.values.yaml, the Helm values, when there); clusters\n'
    + 'of one shape share a team. Checks the result against every export and every other cluster\'s\n'
    + 'files before it writes; on any problem nothing is written (docs/adopting.md).',
  argument: {
    name: 'CLUSTER', many: true,
    missing: 'adopt needs a CLUSTER of config/platform.yaml, e.g. npm run adopt -- prod --live live.yaml, or CLUSTER=FILE pairs, or a folder of exports',
  },
  options: [
    { name: 'live', value: 'FILE', help: 'the cluster\'s NodePools, EC2NodeClasses and NodeOverlays as kubectl prints them, from where you run npm (one CLUSTER)' },
    { name: 'helm-values', value: 'FILE', help: 'helm get values karpenter -n NS -o yaml: the running controller\'s user-supplied values (one CLUSTER)' },
    { name: 'release', value: 'NAME', help: 'the running Helm release of the controller (checked: it must be the release the controller\'s Application installs, karpenter; one CLUSTER)' },
    { name: 'helm-list', value: 'FILE', help: 'helm list -A -o json: the cluster\'s releases, of which the one of chart karpenter is checked as --release is (one CLUSTER)' },
    { name: 'namespace', value: 'NS', help: 'the namespace the running release is in (default: the config\'s karpenter.namespace)' },
    { name: 'team', value: 'TEAM', help: 'the team the NodePools become the pools of (default: an adopted team of the same shape, else platform, else the cluster\'s id)' },
    CONFIG_OPTION,
  ],
  examples: [
    'kubectl get nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh -o yaml > prod.live.yaml',
    'helm get values karpenter -n kube-system -o yaml > prod.values.yaml',
    'helm list -A -o json > prod.releases.json',
    'npm run adopt -- prod --live prod.live.yaml --helm-values prod.values.yaml --helm-list prod.releases.json',
    'npm run adopt -- prod-eu-01=exports/prod-eu-01.yaml prod-eu-02=exports/prod-eu-02.yaml',
    'npm run adopt -- exports/',
  ],
  notes: EXIT_CODES_NOTE,
} as const satisfies CommandSpec;

/** `adopt CLUSTER --live FILE [--helm-values FILE]`, `adopt CLUSTER=FILE...` or `adopt FOLDER`, paths read from where the user ran npm. */
export function run({ options, arguments: args }: CommandLine<typeof spec>, context: Context): number {
  const { say } = context;
  const read = adoptTargets(args, options, say.paths.resolve.bind(say.paths));
  if (read.problems.length) {
    for (const p of read.problems) say.error(p);
    return EXIT.usage;
  }
  const helmList = options['helm-list'];
  const configPath = locations(context, options).configPath;
  const lock = lockConfigFile(configPath, 'adopt');
  try {
    return adopt(say, {
      configPath, targets: read.targets, namespace: options.namespace, team: options.team, release: options.release,
      ...(helmList !== undefined ? { helmList: say.paths.resolve(helmList) } : {}),
    }, lock);
  } finally {
    lock.release();
  }
}

/** One cluster to adopt and its files, paths absolute. */
interface Target {
  readonly cluster: string;
  readonly live: string;
  /** @default - the controller's config is left as it is */
  readonly helmValues?: string;
}

/** The clusters a command line names, with their files: the `--live` form, `CLUSTER=FILE` pairs, or a folder. */
function adoptTargets(args: readonly string[], options: { readonly live?: string; readonly 'helm-values'?: string; readonly namespace?: string; readonly release?: string; readonly 'helm-list'?: string }, resolve: (p: string) => string): { targets: Target[]; problems: string[] } {
  const helmValues = options['helm-values'];
  if (options.live !== undefined) {
    if (args.length !== 1 || args[0].includes('=')) return { targets: [], problems: ['--live goes with one CLUSTER (npm run adopt -- prod --live FILE); for several, give CLUSTER=FILE pairs or a folder of exports, without --live'] };
    return { targets: [{ cluster: args[0], live: resolve(options.live), ...(helmValues !== undefined ? { helmValues: resolve(helmValues) } : {}) }], problems: [] };
  }
  const problems: string[] = [];
  if (helmValues !== undefined || options.namespace !== undefined || options.release !== undefined || options['helm-list'] !== undefined) {
    problems.push('--helm-values, --namespace, --release and --helm-list go with one CLUSTER and --live; in a folder of exports, <cluster>.values.yaml is the cluster\'s Helm values');
  }
  if (args.length === 1 && !args[0].includes('=')) {
    const folder = resolve(args[0]);
    if (!existsSync(folder) || !statSync(folder).isDirectory()) {
      return { targets: [], problems: [`adopt needs --live FILE: kubectl get nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh -o yaml > FILE (or CLUSTER=FILE pairs, or a folder of exports)`] };
    }
    const files = readdirSync(folder).filter((f) => f.endsWith('.yaml') && !f.endsWith('.values.yaml')).sort();
    if (!files.length) problems.push(`${args[0]} has no export: name each <cluster>.yaml`);
    const targets = files.map((f) => {
      const cluster = f.slice(0, -'.yaml'.length);
      const values = join(folder, `${cluster}.values.yaml`);
      return { cluster, live: join(folder, f), ...(existsSync(values) ? { helmValues: values } : {}) };
    });
    return { targets, problems };
  }
  const targets: Target[] = [];
  for (const arg of args) {
    const at = arg.indexOf('=');
    if (at <= 0 || at === arg.length - 1) problems.push(`"${arg}" is not CLUSTER=FILE: several clusters are given as prod-eu-01=prod-eu-01.yaml prod-eu-02=prod-eu-02.yaml`);
    else if (targets.some((t) => t.cluster === arg.slice(0, at))) problems.push(`cluster ${arg.slice(0, at)} is given twice`);
    else targets.push({ cluster: arg.slice(0, at), live: resolve(arg.slice(at + 1)) });
  }
  return { targets, problems };
}

/** What `adopt` is asked for, paths absolute. */
interface AdoptOptions {
  readonly configPath: string;
  readonly targets: readonly Target[];
  /** @default - the config's karpenter.namespace */
  readonly namespace?: string;
  /** @default - an adopted team of the same shape, else platform, else the cluster's id */
  readonly team?: string;
  /** The running release's name (one cluster). @default - read from helmList, or not checked */
  readonly release?: string;
  /** `helm list -A -o json` (one cluster). @default - the release is not checked against a list */
  readonly helmList?: string;
}

/**
 * `adopt`: writes the config under which synth makes exactly what each cluster runs
 * (src/adopt), after checking, with the config it would write, that synth makes each export's
 * objects for its cluster (CRD defaults applied, requirements as sets), every other cluster's
 * files as before, and that each controller keeps its running values. The config before is the
 * user's with the adopted clusters running nothing (src/adopt/fleet.ts): their pre-adoption
 * entries are never judged. On any problem nothing is written.
 */
function adopt(say: Reporter, o: AdoptOptions, lock: ConfigFileLock): number {
  const show = say.paths.show.bind(say.paths);
  const text = readFileSync(o.configPath, 'utf8');
  const ids = o.targets.map((t) => t.cluster);
  const before = readPlan(o.configPath, { ...say.loadOptions, configText: baselineText(text, ids) });
  if (!before.platform || before.problems.length) throw new InputError(before.problems);
  const known = before.platform.clusters.map((c) => c.id);
  const unknown = ids.filter((id) => !known.includes(id));
  for (const id of unknown) {
    const near = suggest(id, known);
    say.error(`${show(o.configPath)} has no cluster ${id}${near ? ` (did you mean ${near}?)` : ''}: add it first (npm run init -- ${id} --terraform FILE, or clusters.${id}); nothing was written`);
  }
  if (unknown.length) return EXIT.failed;
  const release = releaseProblems(o, before.platform, show);
  if (release.length) {
    for (const p of release) say.error(p);
    say.err(`${release.length} problem(s) found; nothing was written`);
    return EXIT.failed;
  }
  const read = readTargets(o.targets, show);
  if (read.problems.length) throw new InputError(read.problems);
  // An export must be its cluster's: what the cluster's Terraform outputs own is compared (adopt/owned.ts).
  const foreign = o.targets.flatMap((t, i) => notTheClusters(read.exports[i].live, before.platform?.clusters.find((c) => c.id === t.cluster)?.terraform ?? missing(t.cluster)));
  if (foreign.length) throw new InputError(foreign);
  let fleet;
  try {
    fleet = adoptClusters(text, o.targets.map((t, i) => ({
      clusterId: t.cluster, live: read.exports[i].live, helmValues: read.exports[i].values, namespace: o.namespace,
      terraform: before.platform?.clusters.find((c) => c.id === t.cluster)?.terraform ?? missing(t.cluster),
    })), o.team);
  } catch (err) {
    if (!(err instanceof AdoptionError)) throw err;
    for (const p of err.problems) say.error(p);
    say.err(`${err.problems.length} problem(s) found; nothing was written`);
    return EXIT.failed;
  }
  const after = readPlan(o.configPath, { ...say.loadOptions, configText: fleet.text });
  if (!after.platform || after.problems.length) return refusedAdoption(say, after.problems);
  if (!before.plan || !after.plan) throw new Error('a config that loads with no problem has a plan');
  const checked = checkAdoption({ platform: before.platform, plan: before.plan }, { platform: after.platform, plan: after.plan }, o.targets.map((t, i) => ({ cluster: t.cluster, ...read.exports[i], dropped: fleet.clusters[i].adoption.dropped })));
  // EKS Auto Mode's pools are left to EKS; the shared karpenter.sh CRDs must not be synced there (adopt/auto-mode.ts).
  const autoMode = o.targets.map((t, i) => {
    const adopted = after.platform?.clusters.find((c) => c.id === t.cluster);
    const syncsCrds = adopted !== undefined && after.platform !== undefined && clusterApplications(after.platform, adopted).some((a) => a.name === APP_NAMES.crds(t.cluster) && a.automated);
    return autoModeVerdict(t.cluster, read.exports[i].live.autoModePools, syncsCrds);
  });
  const problems = [...autoMode.flatMap((v) => v.problems), ...checked.problems];
  if (problems.length) {
    for (const note of autoMode.flatMap((v) => v.notes)) say.out(note);
    for (const c of problems) say.error(c);
    say.err('nothing was written');
    return EXIT.failed;
  }
  lock.write(fleet.text);
  for (const note of autoMode.flatMap((v) => v.notes)) say.out(note);
  for (const { adoption } of fleet.clusters) for (const note of adoption.notes) say.out(note);
  for (const note of checked.notes) say.out(note);
  for (const [i, t] of o.targets.entries()) {
    const { live } = read.exports[i];
    say.out(`wrote ${show(o.configPath)}: synth makes for cluster ${t.cluster} exactly the ${live.nodePools.length} NodePool(s), ${live.nodeClasses.length} EC2NodeClass(es) `
      + `and ${live.overlays.length} NodeOverlay(s) it runs`);
  }
  const one = o.targets.length === 1 ? o.targets[0] : undefined;
  const cluster = one?.cluster ?? 'CLUSTER';
  say.out('');
  say.out('next (docs/adopting.md):');
  say.out(`  1. set clusters.${cluster}.karpenter.version to the release that runs (helm list -n ${o.namespace ?? before.platform.clusters.find((c) => c.id === one?.cluster)?.karpenter.namespace ?? 'NS'}), then: npm run synth`);
  say.out(`  2. npm run diff -- --live ${one ? show(one.live) : 'FILE'} --cluster ${cluster} --fail-on replaces-nodes   (quiet: nothing to replace)`);
  say.out('  3. commit config/, dist/ and argocd/; sync the cluster\'s Applications by hand the first time');
  // Held (karpenter.besideAutoMode): a sync by hand would write the chart's CRDs over EKS's (adopt/auto-mode.ts).
  for (const line of autoMode.flatMap((v) => v.firstSync)) say.out(line);
  for (const [i, t] of o.targets.entries()) {
    const namespace = o.namespace ?? before.platform.clusters.find((c) => c.id === t.cluster)?.karpenter.namespace ?? 'kube-system';
    say.out('');
    for (const line of handOverSteps({ cluster: t.cluster, namespace, objects: [...read.exports[i].live.nodePools, ...read.exports[i].live.nodeClasses, ...read.exports[i].live.overlays] })) say.out(line);
  }
  return EXIT.ok;
}

/** The controller release's problems, when one cluster is adopted with --release or --helm-list (adopt/handover.ts). */
function releaseProblems(o: AdoptOptions, platform: Platform, show: (p: string) => string): readonly string[] {
  if (o.release === undefined && o.helmList === undefined) return [];
  const cluster = platform.clusters.find((c) => c.id === o.targets[0]?.cluster);
  const namespace = o.namespace ?? cluster?.karpenter.namespace ?? 'kube-system';
  const helmList = o.helmList === undefined ? undefined : SourceFile.read(o.helmList, { maxBytes: MAX_EXPORT_BYTES }, show(o.helmList));
  if (helmList?.problems.length) return helmList.problems.map(formatProblem);
  return controllerRelease(namespace, o.release, helmList).problems;
}

/** Never: a cluster of the config has Terraform outputs once it loads. */
function missing(cluster: string): never {
  throw new Error(`cluster ${cluster} has no Terraform outputs after loading`);
}

/** Each target's export and Helm values, read: every problem of every file at once. */
function readTargets(targets: readonly Target[], show: (p: string) => string): { exports: { live: LiveExport; values?: unknown }[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const exports: { live: LiveExport; values?: unknown }[] = [];
  for (const t of targets) {
    const read = readLiveExport(SourceFile.readDocuments(t.live, { maxBytes: MAX_EXPORT_BYTES }, show(t.live)), show(t.live));
    problems.push(...read.problems);
    let values: unknown;
    if (t.helmValues !== undefined) {
      const file = SourceFile.read(t.helmValues, { maxBytes: MAX_EXPORT_BYTES }, show(t.helmValues));
      problems.push(...file.problems);
      values = file.value ?? {};
    }
    if (read.live && read.live.nodePools.length === 0) problems.push(nothingToAdopt(read.live, show(t.live)));
    if (read.live) exports.push({ live: read.live, ...(values !== undefined ? { values } : {}) });
  }
  return { exports, problems };
}

/**
 * An export with no NodePool of the cluster's own Karpenter: a cluster that runs none yet, or one
 * on EKS Auto Mode alone, has nothing to adopt (an adopted team of no pool is no team).
 */
function nothingToAdopt(live: LiveExport, file: string): Problem {
  const auto = live.autoModePools.map((p) => p.name);
  return { file, line: 0, col: 0, path: '', message: `the export holds no NodePool of the cluster's own Karpenter (an EC2NodeClass's)${auto.length ? `, only EKS Auto Mode's (${auto.join(', ')})` : ''}: nothing to adopt. `
    + 'A cluster that runs no pool yet is added as any new cluster (its entry, then npm run synth); one on EKS Auto Mode alone takes compute: autoMode (docs/auto-mode.md)' };
}

/**
 * What synth would make wrong with the adopted config: a cluster's objects that differ from its
 * export, a running Helm value lost, a file of a cluster not adopted that changes. Files of no
 * one cluster (the AppProject, which lists every cluster's destinations; the summaries) may
 * change, and are named in a note. Only the clusters whose plan changed are rendered: synth
 * renders the plan and decides nothing (src/synth.ts), so a cluster whose plan is the same has
 * the same files.
 */
function checkAdoption(was: Planned, now: Planned, adopted: readonly { cluster: string; live: LiveExport; values?: unknown; dropped: readonly string[] }[]): { problems: string[]; notes: string[] } {
  const ids = adopted.map((a) => a.cluster);
  const planOf = new Map(was.plan.clusters.map((c) => [c.id, c]));
  const rendered = new Set(now.plan.clusters.filter((c) => ids.includes(c.id) || !isDeepStrictEqual(c, planOf.get(c.id))).map((c) => c.id));
  const [before, after] = [renderOf(was.plan, rendered), renderOf(now.plan, rendered)];
  const tree = new GeneratedTree(after, 'adoption');
  const problems: string[] = [];
  for (const a of adopted) {
    const version = (now.platform.clusters.find((c) => c.id === a.cluster) ?? was.platform.clusters.find((c) => c.id === a.cluster))?.karpenter.version ?? '';
    const mismatch = sameObjects([...a.live.nodePools, ...a.live.nodeClasses, ...a.live.overlays], generatedObjects(tree, a.cluster), version);
    if (mismatch) problems.push(`synth would not make what cluster ${a.cluster} runs: ${mismatch}`);
    const valuesFile = after.get(clusterLayout(a.cluster).controllerValues);
    const lost = a.values === undefined || valuesFile === undefined ? [] : lostValues(a.values, parse(valuesFile.replace(/^#.*\n/gm, ''), { uniqueKeys: false }) as unknown, a.dropped);
    problems.push(...lost.map((path) => `the controller of cluster ${a.cluster} would lose its Helm value ${path}`));
  }
  const layouts = now.platform.clusters.map((c) => ({ id: c.id, layout: clusterLayout(c.id) }));
  const owner = (f: string) => layouts.find(({ layout }) => f.startsWith(`${layout.dir}/`) || f === layout.root)?.id;
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((f) => before.get(f) !== after.get(f));
  const others = changed.filter((f) => { const id = owner(f); return id !== undefined && !ids.includes(id); });
  if (others.length) problems.push(`adoption would change files of other clusters: ${others.slice(0, 5).join(', ')}${others.length > 5 ? ', ...' : ''}`);
  const shared = changed.filter((f) => owner(f) === undefined && !(Object.values(FLEET_FILES) as string[]).includes(f));
  return { problems, notes: shared.length ? [`also changes ${shared.join(', ')}: files of the whole fleet, for the adopted cluster(s) only`] : [] };
}

/** A config as loaded and its plan. */
interface Planned {
  readonly platform: Platform;
  readonly plan: FleetPlan;
}

/** The files of `plan` for the clusters `ids` and of the whole fleet, as synth writes them. */
function renderOf(plan: FleetPlan, ids: ReadonlySet<string>): Map<string, string> {
  const files = new Map<string, string>();
  render({ ...plan, clusters: plan.clusters.filter((c) => ids.has(c.id)) }, (f) => files.set(f.path, renderFile(f)));
  return files;
}

/**
 * The paths of the running release's values (those adoption keeps) that the generated values
 * file does not hold with the same value: a setting is compared as the chart passes it on, text.
 */
function lostValues(live: unknown, generated: unknown, dropped: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (a: unknown, b: unknown, path: string[]) => {
    if (dropped.includes(path.join('.'))) return;
    if (a !== null && typeof a === 'object' && !Array.isArray(a)) {
      for (const [k, v] of Object.entries(a)) walk(v, b !== null && typeof b === 'object' ? (b as Record<string, unknown>)[k] : undefined, [...path, k]);
      return;
    }
    const same = Array.isArray(a) ? JSON.stringify(a) === JSON.stringify(b) : b !== undefined && String(a) === String(b);
    if (!same) out.push(path.join('.'));
  };
  walk(live, generated, []);
  return out;
}

/**
 * Why the config adoption would write does not load: what the config refuses by design of a state
 * the cluster may run is the cluster's to change; anything else is adopt's own mistake.
 */
function refusedAdoption(say: Reporter, problems: readonly Problem[]): number {
  const running = problems.filter((p) => p.refusesRunningState);
  const bugs = problems.filter((p) => !p.refusesRunningState);
  for (const p of collapseShared(running)) say.error(`the cluster runs what the config refuses: ${p.message}; change it in the cluster first (or leave the pool out of the export), then adopt again`);
  for (const p of collapseShared(bugs)) say.error(`the config adoption would write: ${p.path ? `${p.path}: ` : ''}${p.message}`);
  say.err(bugs.length ? 'adoption would write a config synth refuses (a bug of adopt, please report it); nothing was written' : `${running.length} problem(s) found; nothing was written`);
  return EXIT.failed;
}
