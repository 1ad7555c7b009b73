import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { AdoptionError, adoptConfig } from '../adopt/adopt';
import type { CommandLine, CommandSpec } from '../command-line/args';
import { CONFIG_OPTION, EXIT_CODES_NOTE } from '../command-line/options';
import { autoModeVerdict } from '../adopt/auto-mode';
import { controllerRelease, handOverSteps } from '../adopt/handover';
import { MAX_EXPORT_BYTES, readLiveExport } from '../adopt/live';
import { APP_NAMES } from '../config/reserved';
import { notTheClusters } from '../adopt/owned';
import { platformSchema } from '../config/schema';
import { suggest } from '../input/issues';
import { collapseShared, InputError } from '../input/problems';
import { clusterApplications } from '../model/applications';
import { readPlan } from '../model/checks';
import { SourceFile } from '../input/source';
import { ConfigFileLock, lockConfigFile } from '../output/config-file';
import { clusterLayout, FLEET_FILES } from '../output/layout';
import { generatedObjects, sameObjects } from '../review/live';
import { GeneratedTree } from '../review/tree';
import { synthesize } from '../synth';
import { Context, locations } from './context';
import { EXIT, Reporter } from './reporter';

/** `npm run adopt`: take over a running cluster. */
export const spec = {
  name: 'adopt',
  summary: 'take over a cluster that already runs Karpenter: write the config that makes exactly what runs',
  description: 'Reads FILE, CLUSTER\'s NodePools, EC2NodeClasses and NodeOverlays as kubectl prints them (the first\n'
    + 'example; CLUSTER is an entry of config/platform.yaml), and writes the config under which synth\n'
    + 'makes, for that cluster, exactly those objects: the same names, the same specs once the CRD defaults\n'
    + 'apply, nothing of the generator\'s own (an adopted team). With --helm-values, the controller keeps\n'
    + 'the running release\'s values. Checks the result against FILE and every other cluster\'s files before\n'
    + 'it writes; on any problem nothing is written (docs/adopting.md).',
  argument: { name: 'CLUSTER', missing: 'adopt needs a CLUSTER of config/platform.yaml, e.g. npm run adopt -- prod --live live.yaml' },
  options: [
    { name: 'live', value: 'FILE', required: 'adopt needs --live FILE: kubectl get nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh -o yaml > FILE', help: 'the cluster\'s NodePools, EC2NodeClasses and NodeOverlays as kubectl prints them, from where you run npm (required)' },
    { name: 'helm-values', value: 'FILE', help: 'helm get values karpenter -n NS -o yaml: the running controller\'s user-supplied values' },
    { name: 'release', value: 'NAME', help: 'the running Helm release of the controller (checked: it must be the release the controller\'s Application installs, karpenter)' },
    { name: 'helm-list', value: 'FILE', help: 'helm list -A -o json: the cluster\'s releases, of which the one of chart karpenter is checked as --release is' },
    { name: 'namespace', value: 'NS', help: 'the namespace the running release is in (default: the config\'s karpenter.namespace)' },
    { name: 'team', value: 'TEAM', help: 'the team the NodePools become the pools of (default: platform); clusters of one shape share one' },
    CONFIG_OPTION,
  ],
  examples: [
    'kubectl get nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh -o yaml > prod.live.yaml',
    'helm get values karpenter -n kube-system -o yaml > prod.values.yaml',
    'helm list -A -o json > prod.releases.json',
    'npm run adopt -- prod --live prod.live.yaml --helm-values prod.values.yaml --helm-list prod.releases.json',
  ],
  notes: EXIT_CODES_NOTE,
} as const satisfies CommandSpec;

/** `adopt CLUSTER --live FILE [--helm-values FILE]`, paths read from where the user ran npm. */
export function run({ options, argument: cluster }: CommandLine<typeof spec>, context: Context): number {
  const { say } = context;
  const helmValues = options['helm-values'];
  const helmList = options['helm-list'];
  return adopt(say, {
    configPath: locations(context, options).configPath, cluster, live: say.paths.resolve(options.live),
    ...(helmValues !== undefined ? { helmValues: say.paths.resolve(helmValues) } : {}),
    ...(helmList !== undefined ? { helmList: say.paths.resolve(helmList) } : {}),
    namespace: options.namespace, team: options.team, release: options.release,
  });
}

/** What `adopt` is asked for, paths absolute. */
interface AdoptOptions {
  readonly configPath: string;
  readonly cluster: string;
  readonly live: string;
  /** @default - the controller's config is left as it is */
  readonly helmValues?: string;
  /** @default - the config's karpenter.namespace */
  readonly namespace?: string;
  /** @default "platform" */
  readonly team?: string;
  /** The running release's name. @default - read from helmList, or not checked */
  readonly release?: string;
  /** `helm list -A -o json`. @default - the release is not checked against a list */
  readonly helmList?: string;
}


/**
 * `adopt CLUSTER --live FILE`: writes the config under which synth makes exactly what the cluster
 * runs (src/adopt), after checking, with the config it would write, that synth makes the export's
 * objects for the cluster (CRD defaults applied, requirements as sets) and every other cluster's
 * files as before, and that the controller keeps the running values. On any problem nothing is written.
 */
function adopt(say: Reporter, o: AdoptOptions): number {
  const lock = lockConfigFile(o.configPath, 'adopt');
  try {
    return adoptLocked(say, o, lock);
  } finally {
    lock.release();
  }
}

/** {@link adopt}, the config held under `lock`. */
function adoptLocked(say: Reporter, o: AdoptOptions, lock: ConfigFileLock): number {
  const text = readFileSync(o.configPath, 'utf8');
  const before = readPlan(o.configPath, say.loadOptions);
  if (!before.platform || before.problems.length) throw new InputError(before.problems);
  const cluster = before.platform.clusters.find((c) => c.id === o.cluster);
  const show = say.paths.show.bind(say.paths);
  if (!cluster) {
    const near = suggest(o.cluster, before.platform.clusters.map((c) => c.id));
    say.error(`${show(o.configPath)} has no cluster ${o.cluster}${near ? ` (did you mean ${near}?)` : ''}: add it first (npm run init -- ${o.cluster} --terraform FILE, or clusters.${o.cluster}); nothing was written`);
    return EXIT.failed;
  }
  const namespace = o.namespace ?? cluster.karpenter.namespace;
  const helmList = o.helmList === undefined ? undefined : SourceFile.read(o.helmList, { maxBytes: MAX_EXPORT_BYTES }, show(o.helmList));
  if (helmList?.problems.length) throw new InputError(helmList.problems);
  const release = controllerRelease(namespace, o.release, helmList);
  if (release.problems.length) {
    for (const p of release.problems) say.error(p);
    say.err(`${release.problems.length} problem(s) found; nothing was written`);
    return EXIT.failed;
  }
  const sources = SourceFile.readDocuments(o.live, { maxBytes: MAX_EXPORT_BYTES }, show(o.live));
  const { live, problems } = readLiveExport(sources, show(o.live));
  if (!live) throw new InputError(problems);
  const foreign = notTheClusters(live, cluster.terraform);
  if (foreign.length) throw new InputError(foreign);
  let values: unknown;
  if (o.helmValues !== undefined) {
    const file = SourceFile.read(o.helmValues, { maxBytes: MAX_EXPORT_BYTES }, show(o.helmValues));
    if (file.problems.length) throw new InputError(file.problems);
    values = file.value ?? {};
  }
  // uniqueKeys: false: readPlan checked the text's keys already, in linear time (yaml's own check is quadratic).
  const file = platformSchema.parse(parse(text, { uniqueKeys: false }));
  let adoption;
  try {
    adoption = adoptConfig(text, file, cluster.terraform, { clusterId: o.cluster, live, helmValues: values, namespace: o.namespace, team: o.team ?? 'platform' });
  } catch (err) {
    if (!(err instanceof AdoptionError)) throw err;
    for (const p of err.problems) say.error(p);
    say.err(`${err.problems.length} problem(s) found; nothing was written`);
    return EXIT.failed;
  }
  const after = readPlan(o.configPath, { ...say.loadOptions, configText: adoption.text });
  if (!after.platform || after.problems.length) {
    for (const p of collapseShared(after.problems)) say.error(`the config adoption would write: ${p.path ? `${p.path}: ` : ''}${p.message}`);
    say.err('adoption would write a config synth refuses (a bug of adopt, please report it); nothing was written');
    return EXIT.failed;
  }
  const version = after.platform.clusters.find((c) => c.id === o.cluster)?.karpenter.version ?? cluster.karpenter.version;
  const [was, now] = [synthesize(before.platform), synthesize(after.platform)];
  const mismatch = sameObjects([...live.nodePools, ...live.nodeClasses, ...live.overlays], generatedObjects(new GeneratedTree(now, 'adoption'), o.cluster), version);
  // The fleet's summaries say every cluster, the adopted one too.
  const own = clusterLayout(o.cluster);
  const others = [...new Set([...was.keys(), ...now.keys()])]
    .filter((f) => !f.startsWith(`${own.dir}/`) && f !== own.root && !(Object.values(FLEET_FILES) as string[]).includes(f) && was.get(f) !== now.get(f));
  const valuesFile = now.get(clusterLayout(o.cluster).controllerValues);
  const lost = values === undefined || valuesFile === undefined ? [] : lostValues(values, parse(valuesFile.replace(/^#.*\n/gm, ''), { uniqueKeys: false }) as unknown, adoption.dropped);
  // EKS Auto Mode's pools are left to EKS; the shared karpenter.sh CRDs must not be installed there (adopt/auto-mode.ts).
  const adopted = after.platform.clusters.find((c) => c.id === o.cluster);
  const installsCrds = adopted !== undefined && clusterApplications(after.platform, adopted).some((a) => a.name === APP_NAMES.crds(o.cluster));
  const autoMode = autoModeVerdict(o.cluster, live.autoModePools, installsCrds);
  const checks = [
    ...autoMode.problems,
    ...(mismatch ? [`synth would not make what cluster ${o.cluster} runs: ${mismatch}`] : []),
    ...lost.map((path) => `the controller would lose its Helm value ${path}`),
    ...(others.length ? [`adoption would change files of other clusters: ${others.slice(0, 5).join(', ')}${others.length > 5 ? ', ...' : ''}`] : []),
  ];
  if (checks.length) {
    for (const note of autoMode.notes) say.out(note);
    for (const c of checks) say.error(c);
    say.err('nothing was written');
    return EXIT.failed;
  }
  lock.write(adoption.text);
  for (const note of [...autoMode.notes, ...adoption.notes]) say.out(note);
  say.out(`wrote ${show(o.configPath)}: synth makes for cluster ${o.cluster} exactly the ${live.nodePools.length} NodePool(s), ${live.nodeClasses.length} EC2NodeClass(es) `
    + `and ${live.overlays.length} NodeOverlay(s) it runs`);
  say.out('');
  say.out('next (docs/adopting.md):');
  say.out(`  1. set clusters.${o.cluster}.karpenter.version to the release that runs (helm list -n ${o.namespace ?? cluster.karpenter.namespace}), then: npm run synth`);
  say.out(`  2. npm run diff -- --live ${show(o.live)} --cluster ${o.cluster} --fail-on replaces-nodes   (quiet: nothing to replace)`);
  say.out('  3. commit config/, dist/ and argocd/; sync the cluster\'s Applications by hand the first time');
  say.out('');
  for (const line of handOverSteps({ cluster: o.cluster, namespace, objects: [...live.nodePools, ...live.nodeClasses, ...live.overlays] })) say.out(line);
  return EXIT.ok;
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
