import { builtInPoolFindings } from './auto-mode';
import type { z } from 'zod';
import { groupProblems, groupsOf } from './groups';
import { argocdInstances, clusterArgocd, deliveryFindings, stagePolicies } from './delivery';
import { readdirSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import { InputOptions, repositoryOf } from '../input/input-file';
import { suggest, zodProblems } from '../input/issues';
import { resolveKarpenter } from './karpenter';
import { release, releaseProblem } from '../release/release';
import { compareMinor } from '../release/versions';
import { compatibilityFinding } from './kubernetes';
import { Cluster, Platform, TeamBudget } from './platform';
import { APP_NAMES, costCenterLabel } from './reserved';
import { resolvePools } from './pools';
import { resolveBuffers, resolveOverlays, unusedGateProblems } from './overlays';
import { aboutCluster, collapseShared, inFileOrder, InputError, Problem, renderPath } from '../input/problems';
import { ClusterFile, PlatformFile, platformSchema } from './schema';
import { SourceFile } from '../input/source';
import { ClusterSettings, clusterSettings } from './settings';
import { readTerraformOutputs, TerraformResult } from './terraform';
import { clusterWindow, windowFindings } from './windows';

/** Options of {@link loadPlatform}. */
export interface LoadOptions {
  /** Record, for every pool field, the level and line that set it (`npm run explain`). @default false */
  readonly provenance?: boolean;
  /**
   * How a file is named in problems and inside their messages, given its absolute path (the
   * command line shows files from where the user ran npm). @default - relative to the working directory
   */
  readonly showPath?: (path: string) => string;
  /**
   * The config's text, in place of reading `configPath` (which still names it, and resolves the
   * Terraform outputs files it names): what `adopt` checks before it writes. @default - read the file
   */
  readonly configText?: string;
  /**
   * Texts of input files by absolute path, read in place of the disk: the config (when
   * `configText` is not given) and the Terraform outputs files it names. A caller that already
   * holds them (a test, an editor) loads without writing them; a path not here is read from
   * disk. @default - every file is read from disk
   */
  readonly files?: ReadonlyMap<string, string>;
  /** Told of each input file read from disk (input-file.ts `seen`): what an incremental synth records of its inputs. @default - no one */
  readonly seen?: InputOptions['seen'];
}

/** A path relative to the working directory. */
const fromWorkingDirectory = (path: string): string => relative(process.cwd(), path) || '.';

/** What a successful load returns: the platform and the warnings to print. */
export interface LoadResult {
  /** The validated, frozen platform. */
  readonly platform: Platform;
  /** Problems that do not stop the run (printed as warnings). */
  readonly warnings: readonly Problem[];
}

/**
 * Reads `platform.yaml` and every Terraform outputs file it names, validates
 * everything, resolves inheritance, and returns frozen data. Throws an
 * {@link InputError} with every problem found when anything is wrong.
 */
export function loadPlatform(configPath: string, options: LoadOptions = {}): LoadResult {
  const { platform, problems, warnings } = readPlatform(configPath, options);
  if (problems.length || !platform) throw new InputError(problems);
  return { platform, warnings: collapseShared(warnings) };
}

/** What {@link readPlatform} found: every problem, and the platform as far as it could be built. */
export interface ReadResult {
  /**
   * The platform of what parsed (the fields the schema refused left out), even when there are
   * problems, so checks that need more than the config (budgets against the plan's ceilings) can
   * report in the same run. @default - none: the file could not be read or parsed at all
   */
  readonly platform?: Platform;
  readonly problems: readonly Problem[];
  readonly warnings: readonly Problem[];
}

/**
 * {@link loadPlatform} without throwing for the config's problems: every problem of the config
 * and its Terraform outputs, and the platform built from what parsed.
 */
export function readPlatform(configPath: string, options: LoadOptions = {}): ReadResult {
  const show = options.showPath ?? fromWorkingDirectory;
  const configText = options.configText ?? options.files?.get(resolve(configPath));
  const source = configText !== undefined ? SourceFile.parse(configText, show(resolve(configPath)))
    : SourceFile.read(configPath, inputOptions(configPath, MAX_CONFIG_BYTES, show, options.seen), show(resolve(configPath)));
  if (source.problems.length) return { problems: source.problems, warnings: [] };
  const data = source.value ?? {};
  const parsed = platformSchema.safeParse(data);
  if (parsed.success) {
    const { platform, problems, warnings } = resolvePlatform(source, configPath, parsed.data, options);
    return { platform: deepFreeze(platform), problems: dedupe(problems), warnings: dedupe(warnings) };
  }
  // Check the rest as if the broken fields were absent, so one run reports every problem;
  // problems about the fields dropped (or the levels holding them) would only echo the first.
  const schemaProblems = zodProblems(source, platformSchema, data, parsed.error.issues);
  const { retry, dropped } = retryWithout(data, parsed.error.issues);
  if (retry) {
    const resolved = resolvePlatform(source, configPath, retry, { ...options, showPath: show });
    const entries = droppedEntries(dropped);
    const echoes = (p: Problem) => entries.some((e) => p.message.includes(`"${e.name}"`) && /\bunknown\b/.test(p.message));
    const more = resolved.problems.filter((p) => p.file !== source.displayPath || (!overlapsAny(p.path, dropped) && !echoes(p)));
    return { platform: deepFreeze(resolved.platform), problems: dedupe([...schemaProblems, ...more]), warnings: dedupe(resolved.warnings) };
  }
  const input = inputOptions(configPath, MAX_TERRAFORM_BYTES, show, options.seen);
  const more = Object.entries(rawClusters(data)).flatMap(([id, path]) => readClusterTerraform(source, { configPath, id, path, show, input, files: options.files }).problems);
  return { problems: dedupe([...schemaProblems, ...more]), warnings: [] };
}

/** Validates what the schema accepted: each cluster's Terraform outputs, Karpenter and pools, and the fleet's Application names. */
function resolvePlatform(source: SourceFile, configPath: string, file: PlatformFile, options: LoadOptions = {}): { platform: Platform; problems: Problem[]; warnings: Problem[] } {
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const clusters: Cluster[] = [];
  const settingsOf = new Map<string, ClusterSettings>();
  problems.push(...groupProblems(source, file));
  const show = options.showPath ?? fromWorkingDirectory;
  // One repository for every outputs file: looked up once, not once per cluster.
  const outputsInput = inputOptions(configPath, MAX_TERRAFORM_BYTES, show, options.seen);
  for (const [id, cluster] of Object.entries(file.clusters)) {
    const [problemsBefore, warningsBefore] = [problems.length, warnings.length];
    const groups = groupsOf(file, id);
    const settings = clusterSettings(file, id, groups);
    settingsOf.set(id, settings);
    const tf = readClusterTerraform(source, { configPath, id, path: cluster.terraformOutputs, show, input: outputsInput, files: options.files });
    problems.push(...tf.problems);
    warnings.push(...tf.warnings);
    const k = resolveKarpenter(source, settings, tf.outputs);
    const builtIn = builtInPoolFindings(id, settings.compute.value, tf);
    problems.push(...builtIn.errors, ...k.problems);
    warnings.push(...builtIn.warnings, ...k.warnings);
    const kubernetes = kubernetesVersionOf(source, id, cluster, tf, k.karpenter.version);
    problems.push(...kubernetes.problems);
    warnings.push(...kubernetes.warnings);
    const facts = releaseProblem(k.karpenter.version) === undefined ? release(k.karpenter.version) : undefined;
    const pools = resolvePools({ source, file, clusterId: id, cluster, groups, compute: settings.compute.value, tf: tf.outputs, kubernetesVersion: kubernetes.version, withProvenance: options.provenance ?? false, karpenter: { version: k.karpenter.version, facts, featureGates: k.karpenter.controller.featureGates, settings: k.karpenter.controller.settings } }, problems, warnings);
    const input = { source, file, clusterId: id, karpenter: k.karpenter, facts, problems };
    const overlays = resolveOverlays(input, cluster);
    const buffers = resolveBuffers(input, pools);
    unusedGateProblems(input, settings, { staticCapacity: pools.some((p) => p.settings.replicas !== undefined), nodeOverlay: overlays.length > 0, capacityBuffer: buffers.length > 0 });
    const window = clusterWindow(file, settings);
    if (tf.outputs) {
      clusters.push({
        overlays,
        buffers,
        id,
        terraform: tf.outputs,
        destination: cluster.destination?.server !== undefined ? { server: cluster.destination.server }
          : cluster.destination?.name !== undefined ? { name: cluster.destination.name }
            : { server: 'https://kubernetes.default.svc' },
        smokeTests: cluster.smokeTests ?? true,
        karpenter: k.karpenter,
        kubernetesVersion: kubernetes.version,
        legacyNodepoolsApp: cluster.legacyNodepoolsApp === 'orphan',
        ...(cluster.manualSync === true ? { manualSync: true } : {}),
        ...(settings.compute.value !== 'karpenter' ? { compute: settings.compute.value } : {}),
        tenancyAction: settings.tenancyAction.value,
        tenancyExemptNamespaces: settings.tenancyExemptNamespaces.value,
        labels: cluster.labels ?? {},
        groups: groups.map((g) => g.name),
        pools,
        ...(window ? { window } : {}),
        ...(cluster.stage !== undefined ? { stage: cluster.stage } : {}),
        ...(clusterArgocd(file, id) !== undefined ? { argocd: clusterArgocd(file, id) } : {}),
      });
    }
    // What this cluster's checks found and say of it, one line however many clusters share it.
    markCluster(problems, problemsBefore, id);
    markCluster(warnings, warningsBefore, id);
  }
  const windows = windowFindings(source, file, clusters, settingsOf);
  problems.push(...windows.problems);
  warnings.push(...windows.warnings);
  problems.push(...applicationNameClashes(source, clusters));
  const delivery = deliveryFindings(source, file, clusters);
  problems.push(...delivery.problems);
  warnings.push(...delivery.warnings);
  for (const [team, t] of Object.entries(file.teams)) {
    if (t?.costCenter !== undefined && costCenterLabel(t.costCenter) === undefined) {
      warnings.push(source.problem(['teams', team, 'costCenter'], `is not a label value (at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit): `
        + `it stays the EC2 tag cost-center, but nodes get no cost-center label, so OpenCost and Kubecost cannot allocate by it (docs/cost.md)`));
    }
  }
  const tenancy = tenancyFindings(source, file, clusters, settingsOf);
  problems.push(...tenancy.problems);
  warnings.push(...tenancy.warnings);
  const platform: Platform = {
    gitops: {
      repoURL: file.gitops.repoURL,
      targetRevision: file.gitops.targetRevision ?? 'HEAD',
      argocdNamespace: file.gitops.argocdNamespace ?? 'argocd',
      project: file.gitops.project ?? 'default',
      ...(file.gitops.stageRefPrefix !== undefined ? { stageRefPrefix: file.gitops.stageRefPrefix } : {}),
      ...(file.gitops.driftGateImage !== undefined ? { driftGateImage: file.gitops.driftGateImage } : {}),
      ...(file.gitops.driftGateMemory !== undefined ? { driftGateMemory: file.gitops.driftGateMemory } : {}),
      ...(file.gitops.argocd !== undefined ? { argocdInstances: argocdInstances(file) } : {}),
      ...(file.gitops.stages !== undefined ? { stages: stagePolicies(file) } : {}),
    },
    clusters,
    ...budgetsOf(source, file),
  };
  return { platform, problems, warnings };
}

/** Marks the problems of `list` from index `from` on as about cluster `id` where their message names it. */
function markCluster(list: Problem[], from: number, id: string): void {
  for (let i = from; i < list.length; i++) list[i] = aboutCluster(list[i], id);
}

/**
 * A cluster's Kubernetes version: `clusters.<id>.kubernetesVersion` or the Terraform output
 * `cluster_version` (both must agree when both are given), checked against Karpenter's
 * compatibility matrix for the cluster's Karpenter release, located where it was set.
 */
function kubernetesVersionOf(source: SourceFile, id: string, cluster: ClusterFile, tf: TerraformResult, karpenter: string): { version?: string; problems: Problem[]; warnings: Problem[] } {
  const fromConfig = cluster.kubernetesVersion;
  const fromTerraform = tf.outputs?.kubernetesVersion;
  const configAt = ['clusters', id, 'kubernetesVersion'];
  if (fromConfig !== undefined && fromTerraform !== undefined && fromConfig !== fromTerraform) {
    const where = tf.at?.('cluster_version', '');
    return {
      problems: [source.problem(configAt, `is "${fromConfig}", but cluster ${id}'s Terraform output cluster_version is "${fromTerraform}"${where ? ` (${where.file}:${where.line})` : ''}: `
        + 'they must agree; remove kubernetesVersion to follow Terraform, or re-run terraform output -json after the control-plane upgrade')],
      warnings: [],
    };
  }
  const version = fromConfig ?? fromTerraform;
  if (version === undefined) return { problems: [], warnings: [] };
  const finding = compatibilityFinding(id, version, karpenter);
  if (!finding) return { version, problems: [], warnings: [] };
  const problem = fromConfig !== undefined || !tf.at ? source.problem(fromConfig !== undefined ? configAt : ['clusters', id], finding.message)
    : tf.at('cluster_version', finding.message);
  return finding.severity === 'error' ? { version, problems: [problem], warnings: [] } : { version, problems: [], warnings: [problem] };
}

/**
 * The tenancy policy (docs/tenancy.md): once any team lists `namespaces`, every team without
 * them is a warning (any namespace's pods may still use its pools); a cluster whose Kubernetes
 * version is known to be older than 1.30 cannot hold a ValidatingAdmissionPolicy of
 * admissionregistration.k8s.io/v1, an error at the namespaces of each team it runs.
 */
function tenancyFindings(
  source: SourceFile, file: PlatformFile, clusters: readonly Cluster[], settingsOf: ReadonlyMap<string, ClusterSettings>,
): { problems: Problem[]; warnings: Problem[] } {
  const teams = Object.entries(file.teams);
  if (!teams.some(([, t]) => t?.namespaces)) return { problems: [], warnings: [] };
  const warnings = teams.filter(([, t]) => !t?.namespaces).map(([id]) => source.problem(['teams', id],
    `team ${id} has no namespaces: pods of any namespace may use its pools (list the namespaces whose pods may, as other teams do)`, 'key'));
  const problems: Problem[] = [...exemptionProblems(source, file, clusters, settingsOf)];
  for (const c of clusters) {
    if (c.kubernetesVersion === undefined || compareMinor(c.kubernetesVersion, TENANCY_MIN_KUBERNETES) >= 0) continue;
    for (const team of new Set(c.pools.filter((p) => p.namespaces).map((p) => p.team))) {
      problems.push(aboutCluster(source.problem(['teams', team, 'namespaces'], `cluster ${c.id} runs Kubernetes ${c.kubernetesVersion}, and the policy that keeps team ${team}'s pools to its namespaces `
        + `(a ValidatingAdmissionPolicy of admissionregistration.k8s.io/v1) needs ${TENANCY_MIN_KUBERNETES} or later: upgrade the cluster first, or leave ${c.id} out of the team's clusters`), c.id));
    }
  }
  return { problems, warnings };
}

/**
 * The namespaces the policy never looks at, on each cluster with a policy: Karpenter's own and
 * `tenancy.exemptNamespaces` may be neither `default` (where anyone's pods run) nor a team's
 * namespace (its pods could then use every team's pools), and no team lists `kube-system`.
 * Each problem is located where the namespace was written, by the fleet, a group or the cluster
 * (src/config/settings.ts); the same one on many clusters is one.
 */
function exemptionProblems(source: SourceFile, file: PlatformFile, clusters: readonly Cluster[], settingsOf: ReadonlyMap<string, ClusterSettings>): Problem[] {
  const problems: Problem[] = [];
  const teamsOf = (c: Cluster, ns: string) => [...new Set(c.pools.filter((p) => p.namespaces?.includes(ns)).map((p) => p.team))];
  for (const [team, t] of Object.entries(file.teams)) {
    t?.namespaces?.forEach((ns, i) => {
      if (ns === 'kube-system') {
        problems.push(source.problem(['teams', team, 'namespaces', i], 'is kube-system, which the tenancy policy never looks at (only cluster administrators create pods there): list the team\'s own namespaces'));
      }
    });
  }
  for (const c of clusters) {
    const settings = settingsOf.get(c.id);
    if (!settings || !c.pools.some((p) => p.namespaces !== undefined)) continue;
    // Unset, it is kube-system: neither default nor a team's (teams may not list it).
    const { value: k, path: karpenterAt } = settings.karpenterNamespace;
    if (k === 'default') {
      problems.push(source.problem(karpenterAt, 'is default: the tenancy policy never looks at Karpenter\'s namespace, and default is where anyone\'s pods run, so they could use every team\'s pools; '
        + 'run Karpenter in a namespace of its own (kube-system, or karpenter)'));
    } else if (k !== 'kube-system' && teamsOf(c, k).length > 0) {
      problems.push(source.problem(karpenterAt, `is also team ${teamsOf(c, k).join(', ')}'s namespace (teams.<team>.namespaces): the tenancy policy never looks at Karpenter's namespace, `
        + 'so that team\'s pods could use every team\'s pools; run Karpenter in a namespace of its own'));
    }
    const exempt = settings.tenancyExemptNamespaces;
    exempt.value.forEach((ns, i) => {
      if (ns === 'default') {
        problems.push(source.problem([...exempt.path, i], 'is default, where anyone\'s pods run: exempt it and they could use every team\'s pools; exempt only namespaces where administrators run platform agents'));
      } else if (teamsOf(c, ns).length > 0) {
        problems.push(source.problem([...exempt.path, i], `is also team ${teamsOf(c, ns).join(', ')}'s namespace (teams.<team>.namespaces): a namespace is either exempt (it may use every pool) or a team's; remove it from one of the two`));
      }
    });
  }
  return problems;
}

/** The first Kubernetes minor with admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (GA in 1.30). */
const TENANCY_MIN_KUBERNETES = '1.30';

/** The teams' budgets, located at `teams.<team>.budget.perHour` (docs/cost.md). */
function budgetsOf(source: SourceFile, file: PlatformFile): { budgets?: TeamBudget[] } {
  const budgets: TeamBudget[] = Object.entries(file.teams).flatMap(([team, t]) => {
    if (!t?.budget) return [];
    const { file: at, line, col, path } = source.problem(['teams', team, 'budget', 'perHour'], '');
    return [{ team, perHour: t.budget.perHour, at: { file: at, line, col, path } }];
  });
  // Each cluster's groups are looked up once, and only when a group sets a budget.
  let members: Map<string, string[]> | undefined;
  const clustersOf = (name: string): string[] => {
    members ??= groupMembers(file);
    return members.get(name) ?? [];
  };
  for (const [name, g] of Object.entries(file.groups ?? {})) {
    for (const [team, t] of Object.entries(g.teams ?? {})) {
      if (!t?.budget || !Object.hasOwn(file.teams, team)) continue;
      const { file: at, line, col, path } = source.problem(['groups', name, 'teams', team, 'budget', 'perHour'], '');
      budgets.push({ team, perHour: t.budget.perHour, group: { name, clusters: clustersOf(name) }, at: { file: at, line, col, path } });
    }
  }
  return budgets.length ? { budgets } : {};
}

/** The clusters of each group, in file order. */
function groupMembers(file: PlatformFile): Map<string, string[]> {
  const members = new Map<string, string[]>(Object.keys(file.groups ?? {}).map((name) => [name, []]));
  for (const id of Object.keys(file.clusters)) for (const { name } of groupsOf(file, id)) members.get(name)?.push(id);
  return members;
}

/**
 * Every Application lives in Argo CD's one namespace: names built from cluster and team ids
 * must not collide (cluster `a-pools-b`'s root and team `b-karpenter-root` of cluster `a`).
 */
function applicationNameClashes(source: SourceFile, clusters: readonly Cluster[]): Problem[] {
  const seen = new Map<string, string>();
  const problems: Problem[] = [];
  for (const c of clusters) {
    const teams = [...new Set(c.pools.map((p) => p.team))];
    const names: [string, string][] = [
      [APP_NAMES.crds(c.id), 'its CRD Application'], [APP_NAMES.controller(c.id), 'its controller Application'],
      [APP_NAMES.root(c.id), 'its root Application'], [APP_NAMES.smokeTests(c.id), 'its smoke-test Application'],
      [APP_NAMES.legacyPools(c.id), 'its pools Application of earlier releases'], [APP_NAMES.policies(c.id), 'its tenancy policy Application'],
      [APP_NAMES.overlays(c.id), 'its overlays Application'], [APP_NAMES.driftGate(c.id), 'its drift gate Application'],
      ...teams.map((t): [string, string] => [APP_NAMES.pools(c.id, t), `the pools Application of team ${t}`]),
    ];
    for (const [name, what] of names) {
      const other = seen.get(name);
      const mine = `cluster ${c.id}: ${what}`;
      if (other) problems.push(source.problem(['clusters', c.id], `Application name ${name} (${mine}) is also ${other}'s: rename the cluster or the team`, 'key'));
      else seen.set(name, mine);
    }
  }
  return problems;
}

/**
 * A copy of `data` without the fields the schema rejected (a broken list element
 * drops the whole list), and the rendered paths dropped. `rest` is undefined when
 * the whole document is broken.
 */
/**
 * The config with its invalid fields left out, parsed again; when leaving a field out leaves its
 * object without a required field (a window without its `timeZone`), the object goes too, and so
 * on up, a few levels at most: the checks that do not depend on what was left out still run.
 */
function retryWithout(data: unknown, issues: readonly z.core.$ZodIssue[]): { retry?: PlatformFile; dropped: string[] } {
  let current = data;
  let pending = issues;
  const dropped: string[] = [];
  for (let round = 0; round < 4; round++) {
    // After the first round only an entry of a named map may go whole (a window without its timeZone):
    // anything else left incomplete would make the checks that read it echo the first error.
    const entryOf = (i: z.core.$ZodIssue) => (i.code === 'invalid_type' && i.path.length === 3 && NAMED_MAPS.includes(String(i.path[0])) ? { ...i, path: i.path.slice(0, 2) } : undefined);
    const next = round === 0 ? pending : pending.map(entryOf);
    if (next.some((i) => i === undefined)) return { dropped };
    const cut = withoutInvalid(current, next.filter((i): i is z.core.$ZodIssue => i !== undefined));
    dropped.push(...cut.dropped);
    if (cut.rest === undefined) return { dropped };
    const again = platformSchema.safeParse(cut.rest);
    if (again.success) return { retry: again.data, dropped };
    current = cut.rest;
    pending = again.error.issues;
  }
  return { dropped };
}

/** The config's maps whose entries other fields name (a cluster's `window`, a group's teams). */
const NAMED_MAPS = ['windows', 'groups', 'teams', 'overlays', 'clusters'];

/** The entries of {@link NAMED_MAPS} that were left out whole. */
function droppedEntries(dropped: readonly string[]): { readonly map: string; readonly name: string }[] {
  return dropped.map((d) => /^(windows|groups|teams|overlays|clusters)\.([^.[\]]+)$/.exec(d)).filter((m): m is RegExpExecArray => m !== null).map((m) => ({ map: m[1], name: m[2] }));
}

function withoutInvalid(data: unknown, issues: readonly { readonly code: string; readonly path: readonly PropertyKey[]; readonly keys?: readonly string[] }[]): { rest?: unknown; dropped: string[] } {
  const rest = structuredClone(data) as Record<string, unknown>;
  const dropped: string[] = [];
  const drop = (path: readonly (string | number)[]) => {
    const cut = path.findIndex((seg) => typeof seg === 'number');
    const at = cut >= 0 ? path.slice(0, cut) : path;
    if (at.length === 0) return false;
    let parent: unknown = rest;
    for (const seg of at.slice(0, -1)) parent = (parent as Record<string, unknown> | undefined)?.[seg];
    if (parent && typeof parent === 'object') delete (parent as Record<string, unknown>)[at[at.length - 1]];
    dropped.push(renderPath(at));
    return true;
  };
  for (const issue of issues) {
    const path = issue.path as (string | number)[];
    const ok = issue.code === 'unrecognized_keys' ? (issue.keys ?? []).every((k) => drop([...path, k])) : drop(path);
    if (!ok) return { dropped };
  }
  return { rest, dropped };
}

/**
 * Whether a rendered path lies within one of `dropped`, or holds one of them. Linear in
 * the path's length: a config with thousands of broken fields stays fast to report.
 */
function overlapsAny(path: string, dropped: readonly string[]): boolean {
  const index = droppedIndex(dropped);
  const prefixes = pathPrefixes(path);
  return prefixes.some((p) => index.paths.has(p)) || index.prefixes.has(path);
}

const droppedIndexes = new WeakMap<readonly string[], { paths: Set<string>; prefixes: Set<string> }>();

function droppedIndex(dropped: readonly string[]): { paths: Set<string>; prefixes: Set<string> } {
  let index = droppedIndexes.get(dropped);
  if (!index) {
    index = { paths: new Set(dropped), prefixes: new Set(dropped.flatMap(pathPrefixes)) };
    droppedIndexes.set(dropped, index);
  }
  return index;
}

/** `teams.web.arch[0]` → `teams`, `teams.web`, `teams.web.arch`, `teams.web.arch[0]`. */
function pathPrefixes(path: string): string[] {
  const out: string[] = [];
  for (const m of path.matchAll(/\[(?:"(?:[^"\\]|\\.)*"|\d+)\]|\.?[^.[]+/g)) out.push(path.slice(0, (m.index ?? 0) + m[0].length));
  return out;
}

/** Largest platform.yaml accepted: a fleet of thousands of teams is well below it. */
const MAX_CONFIG_BYTES = 16 * 1024 * 1024;
/** Largest Terraform outputs file accepted: a real one is a few KiB. */
export const MAX_TERRAFORM_BYTES = 1024 * 1024;

/** Input files resolve inside the config's repository (its folder without one): a planted link reads nothing else. */
function inputOptions(configPath: string, maxBytes: number, show: (path: string) => string, seen: InputOptions['seen']): InputOptions {
  const repo = repositoryOf(resolve(configPath), show);
  return { confineTo: repo.dir, confineName: repo.name, maxBytes, ...(seen ? { seen } : {}) };
}

/** Reads a cluster's Terraform outputs; a missing file is reported at the config line that names it. */
function readClusterTerraform(source: SourceFile, { configPath, id, path, show, input, files }: {
  readonly configPath: string;
  readonly id: string;
  /** As the config names it: relative to the config's folder. */
  readonly path: string;
  readonly show: (path: string) => string;
  /** {@link inputOptions} of the config for Terraform outputs files. */
  readonly input: InputOptions;
  readonly files?: ReadonlyMap<string, string>;
}): TerraformResult {
  const tfPath = resolve(dirname(configPath), path);
  const tfDisplay = show(tfPath);
  const tf = readTerraformOutputs(tfPath, tfDisplay, input, files?.get(tfPath));
  if (tf.problems.length === 1 && tf.problems[0].message === 'file not found') {
    const repo = repositoryOf(resolve(configPath));
    const how = repo.isRepository
      ? `write it from the repository root with: terraform -chdir=terraform output -json > ${relative(repo.dir, tfPath)}`
      : `write it with: terraform output -json > ${tfDisplay}`;
    const near = nearestFile(dirname(tfPath), basename(tfPath));
    const advice = near !== undefined ? `did you mean ${near}? (terraformOutputs: ${path.replace(/[^/\\]*$/, near)})` : how;
    return { problems: [source.problem(['clusters', id, 'terraformOutputs'], `file not found: ${tfDisplay} (${advice})`)], warnings: [] };
  }
  return tf;
}

/** The file of `dir` whose name is closest to `name` (a misspelt `stagin.json`), when one is close. */
function nearestFile(dir: string, name: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
  } catch {
    return undefined;
  }
  return suggest(name, names);
}

/** `clusters.<id>.terraformOutputs` of a config that failed validation, where they are strings. */
function rawClusters(data: unknown): Record<string, string> {
  const clusters = (data as { clusters?: unknown } | null)?.clusters;
  if (!clusters || typeof clusters !== 'object') return {};
  return Object.fromEntries(Object.entries(clusters as Record<string, { terraformOutputs?: unknown } | null>)
    .filter(([, c]) => typeof c?.terraformOutputs === 'string')
    .map(([id, c]) => [id, c?.terraformOutputs as string]));
}

/** Drops repeated problems and orders them by file (in order of appearance), line and column. */
function dedupe(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  return inFileOrder(problems.filter((p) => {
    const k = `${p.file}:${p.line}:${p.col}:${p.path}:${p.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  }));
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
