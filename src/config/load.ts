import { dirname, relative, resolve } from 'node:path';
import { CHART_VERSION } from './chart-values-keys';
import { checkControllerValues } from './controller';
import { suggest, zodProblems } from './issues';
import { BUILT_IN_POOL_DEFAULTS, Cluster, Platform, Pool, PoolSettings } from './platform';
import { FieldPath, InputError, Problem, renderPath } from './problems';
import { DEDICATED_TAINT_KEY, GENERATED_TAG_KEYS, TEAM_LABEL } from './reserved';
import { Layer, MergedFields, mergeLayers } from './resolve';
import { aliasFamily, ClusterFile, PlatformFile, platformSchema, PoolFields, TeamFile } from './schema';
import { InputOptions, repositoryOf } from './input-file';
import { SourceFile } from './source';
import { readTerraformOutputs, TerraformOutputs } from './terraform';

/** What a successful load returns: the platform and the warnings to print. */
export interface LoadResult {
  /** The validated, frozen platform. */
  readonly platform: Platform;
  /** Problems that do not stop the run (printed as warnings). */
  readonly warnings: readonly Problem[];
}

const TEAM_ONLY_KEYS = ['owner', 'costCenter', 'defaultPool', 'pools'] as const;
/** Requirement keys that a dedicated pool field sets; writing them in `requirements` too is a conflict. */
const FIELD_OF_KEY: ReadonlyMap<string, keyof PoolFields> = new Map(Object.entries({
  'kubernetes.io/arch': 'arch',
  'karpenter.sh/capacity-type': 'capacityTypes',
  'node.kubernetes.io/instance-type': 'instanceTypes',
  'karpenter.k8s.aws/instance-family': 'instanceFamilies',
  'karpenter.k8s.aws/instance-category': 'instanceCategories',
  'karpenter.k8s.aws/instance-generation': 'instanceGeneration',
  'karpenter.k8s.aws/instance-cpu': 'instanceCpu',
  'karpenter.k8s.aws/instance-memory': 'instanceMemoryMiB',
  'topology.kubernetes.io/zone': 'zones',
}) as [string, keyof PoolFields][]);

/**
 * Reads `platform.yaml` and every Terraform outputs file it names, validates
 * everything, resolves inheritance, and returns frozen data. Throws an
 * {@link InputError} with every problem found when anything is wrong.
 */
export function loadPlatform(configPath: string): LoadResult {
  const source = SourceFile.read(configPath, inputOptions(configPath, MAX_CONFIG_BYTES));
  if (source.problems.length) throw new InputError(source.problems);
  const data = source.value ?? {};
  const parsed = platformSchema.safeParse(data);
  if (parsed.success) {
    const { platform, problems, warnings } = resolvePlatform(source, configPath, parsed.data);
    if (problems.length) throw new InputError(dedupe(problems));
    return { platform: deepFreeze(platform), warnings: dedupe(warnings) };
  }
  // Check the rest as if the broken fields were absent, so one run reports every problem;
  // problems about the fields dropped (or the levels holding them) would only echo the first.
  const schemaProblems = zodProblems(source, platformSchema, data, parsed.error.issues);
  const { rest, dropped } = withoutInvalid(data, parsed.error.issues);
  const retry = rest === undefined ? undefined : platformSchema.safeParse(rest);
  const more = retry?.success
    ? resolvePlatform(source, configPath, retry.data).problems
      .filter((p) => p.file !== source.displayPath || !overlapsAny(p.path, dropped))
    : Object.entries(rawClusters(data)).flatMap(([id, path]) => readClusterTerraform(source, configPath, id, path).problems);
  throw new InputError(dedupe([...schemaProblems, ...more]));
}

/** Validates what the schema accepted: controller values, Terraform outputs, pools. */
function resolvePlatform(source: SourceFile, configPath: string, file: PlatformFile): { platform: Platform; problems: Problem[]; warnings: Problem[] } {
  const problems: Problem[] = [...checkControllerValues(source, file.karpenter)];
  const warnings: Problem[] = [];
  if (file.karpenter.version !== CHART_VERSION) {
    warnings.push(source.problem(['karpenter', 'version'], `the generator's CRD classes and chart keys are those of Karpenter ${CHART_VERSION}: `
      + 'regenerate imports/ and src/config/chart-values-keys.ts (README, "Bumping the Karpenter version")'));
  }

  const clusters: Cluster[] = [];
  for (const [id, cluster] of Object.entries(file.clusters)) {
    const tf = readClusterTerraform(source, configPath, id, cluster.terraformOutputs);
    problems.push(...tf.problems);
    warnings.push(...tf.warnings);
    const pools = resolvePools(source, file, id, cluster, tf.outputs, problems, warnings);
    if (tf.outputs) {
      clusters.push({
        id,
        terraform: tf.outputs,
        destination: cluster.destination?.server !== undefined ? { server: cluster.destination.server }
          : cluster.destination?.name !== undefined ? { name: cluster.destination.name }
            : { server: 'https://kubernetes.default.svc' },
        smokeTests: cluster.smokeTests ?? true,
        pools,
      });
    }
  }

  const controller = file.karpenter.controller ?? {};
  const platform: Platform = {
    gitops: {
      repoURL: file.gitops.repoURL,
      targetRevision: file.gitops.targetRevision ?? 'HEAD',
      argocdNamespace: file.gitops.argocdNamespace ?? 'argocd',
      project: file.gitops.project ?? 'default',
    },
    karpenter: {
      version: file.karpenter.version,
      namespace: file.karpenter.namespace ?? 'kube-system',
      controller: {
        replicas: controller.replicas ?? 2,
        resources: controller.resources,
        logLevel: controller.logLevel,
        featureGates: controller.featureGates ?? {},
        settings: controller.settings ?? {},
      },
      helmValues: file.karpenter.helmValues ?? {},
    },
    clusters,
  };
  return { platform, problems, warnings };
}

/**
 * A copy of `data` without the fields the schema rejected (a broken list element
 * drops the whole list), and the rendered paths dropped. `rest` is undefined when
 * the whole document is broken.
 */
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
const MAX_TERRAFORM_BYTES = 1024 * 1024;

/** Input files resolve inside the config's repository (its folder without one): a planted link reads nothing else. */
function inputOptions(configPath: string, maxBytes: number): InputOptions {
  const repo = repositoryOf(resolve(configPath));
  return { confineTo: repo.dir, confineName: repo.name, maxBytes };
}

/** Reads a cluster's Terraform outputs; a missing file is reported at the config line that names it. */
function readClusterTerraform(source: SourceFile, configPath: string, id: string, path: string): ReturnType<typeof readTerraformOutputs> {
  const tfPath = resolve(dirname(configPath), path);
  const tfDisplay = relative(process.cwd(), tfPath) || tfPath;
  const tf = readTerraformOutputs(tfPath, tfDisplay, inputOptions(configPath, MAX_TERRAFORM_BYTES));
  if (tf.problems.length === 1 && tf.problems[0].message === 'file not found') {
    const repo = repositoryOf(resolve(configPath));
    const how = repo.isRepository
      ? `write it from the repository root with: terraform -chdir=terraform output -json > ${relative(repo.dir, tfPath)}`
      : `write it with: terraform output -json > ${tfDisplay}`;
    return { problems: [source.problem(['clusters', id, 'terraformOutputs'], `file not found: ${tfDisplay} (${how})`)], warnings: [] };
  }
  return tf;
}

/** `clusters.<id>.terraformOutputs` of a config that failed validation, where they are strings. */
function rawClusters(data: unknown): Record<string, string> {
  const clusters = (data as { clusters?: unknown } | null)?.clusters;
  if (!clusters || typeof clusters !== 'object') return {};
  return Object.fromEntries(Object.entries(clusters as Record<string, { terraformOutputs?: unknown } | null>)
    .filter(([, c]) => typeof c?.terraformOutputs === 'string')
    .map(([id, c]) => [id, c?.terraformOutputs as string]));
}

function resolvePools(
  source: SourceFile, file: PlatformFile, clusterId: string, cluster: ClusterFile,
  tf: TerraformOutputs | undefined, problems: Problem[], warnings: Problem[],
): Pool[] {
  const teamIds = Object.keys(file.teams);
  const selected = cluster.teams ?? teamIds;
  const pools: Pool[] = [];
  const names = new Map<string, FieldPath>();
  selected.forEach((teamId, i) => {
    const first = selected.indexOf(teamId);
    if (first !== i) {
      problems.push(source.problem(['clusters', clusterId, 'teams', i], `team "${teamId}" is listed twice (also at teams[${first}]): remove one`));
      return;
    }
    if (!(teamId in file.teams)) {
      const best = suggest(teamId, teamIds);
      problems.push(source.problem(['clusters', clusterId, 'teams', i],
        `unknown team "${teamId}"${best ? ` (did you mean "${best}"?)` : ` (teams: ${teamIds.join(', ')})`}`));
      return;
    }
    // A bare `web:` is a team with nothing of its own, like a bare `defaults:`.
    const team: TeamFile = file.teams[teamId] ?? {};
    const teamAt = ['teams', teamId];
    const candidates: { name: string; at: FieldPath; layers: Layer[] }[] = [];
    const base: Layer[] = [
      ...(file.defaults ? [{ fields: file.defaults, at: ['defaults'] }] : []),
      { fields: poolFieldsOf(team), at: teamAt },
    ];
    const overrides: Layer[] = cluster.overrides ? [{ fields: cluster.overrides, at: ['clusters', clusterId, 'overrides'] }] : [];
    if (team.defaultPool !== false) candidates.push({ name: teamId, at: teamAt, layers: [...base, ...overrides] });
    for (const [key, fields] of Object.entries(team.pools ?? {})) {
      const at = [...teamAt, 'pools', key];
      candidates.push({ name: `${teamId}-${key}`, at, layers: [...base, { fields, at }, ...overrides] });
    }
    if (candidates.length === 0) {
      problems.push(source.problem([...teamAt, 'defaultPool'], 'team has no pools: with defaultPool: false, define at least one entry under pools'));
    }
    for (const c of candidates) {
      if (c.name.length > 63) {
        problems.push(source.problem(c.at, `pool name "${c.name}" is ${c.name.length} characters; Kubernetes names of NodePools are at most 63: shorten the team or pool key`, 'key'));
        continue;
      }
      const clash = names.get(c.name);
      if (clash) {
        problems.push(source.problem(c.at, `pool name "${c.name}" is also the name of the pool at ${clash.join('.')}: rename one of them`, 'key'));
        continue;
      }
      names.set(c.name, c.at);
      const merged = mergeLayers(c.layers);
      const settings = applyBuiltIns(merged.fields);
      const ctx = new PoolContext(source, merged, c.name, c.at, clusterId);
      checkPool(ctx, settings, problems, warnings);
      if (tf && !tf.interruptionQueueName && settings.capacityTypes.includes('spot')) {
        warnings.push(ctx.problem(['capacityTypes'],
          `pool ${c.name} uses spot capacity but cluster ${clusterId} has no karpenter_interruption_queue_name output: spot interruptions will not be handled gracefully`));
      }
      if (settings.ami) pools.push({ name: c.name, team: teamId, owner: team.owner, costCenter: team.costCenter, settings });
    }
  });
  return pools;
}

function poolFieldsOf(team: TeamFile): PoolFields {
  const fields: Record<string, unknown> = { ...team };
  for (const k of TEAM_ONLY_KEYS) delete fields[k];
  return fields as PoolFields;
}

function applyBuiltIns(fields: PoolFields): PoolSettings {
  const d = BUILT_IN_POOL_DEFAULTS;
  return {
    ...d,
    ...fields,
    disruption: { ...d.disruption, ...fields.disruption },
    volume: { ...d.volume, ...fields.volume },
    metadataOptions: { ...d.metadataOptions, ...fields.metadataOptions },
    smokeTest: { ...d.smokeTest, ...fields.smokeTest },
  } as PoolSettings;
}

/** Locates problems about a merged pool at the line that set the value. */
class PoolContext {
  public constructor(
    private readonly source: SourceFile,
    private readonly merged: MergedFields,
    public readonly name: string,
    private readonly at: FieldPath,
    public readonly cluster: string,
  ) {}

  public problem(path: FieldPath, message: string): Problem {
    return this.source.problem(this.merged.origin(path) ?? this.at, message);
  }

  /** True when some level of the chain set this field (not the built-in default). */
  public isSet(path: FieldPath): boolean {
    return this.merged.origin(path) !== undefined;
  }
}

/**
 * Rules that involve several fields, possibly set at different levels; the
 * single-field rules are in the schema. Mirrors the CRDs' CEL rules and what
 * EC2 rejects at launch.
 */
function checkPool(ctx: PoolContext, s: PoolSettings, problems: Problem[], warnings: Problem[]): void {
  const add = (path: FieldPath, message: string) => problems.push(ctx.problem(path, message));
  if (!s.ami) {
    add([], `pool ${ctx.name} has no ami: set ami.alias (e.g. al2023@v20250505) under defaults or this team`);
    return;
  }
  const family = s.ami.family ?? (s.ami.alias ? aliasFamily(s.ami.alias) : undefined);
  if (s.capacityTypes.includes('reserved') && !s.capacityReservationSelectorTerms) {
    add(['capacityTypes'], `pool ${ctx.name} uses reserved capacity: add capacityReservationSelectorTerms (e.g. [{ id: cr-0123456789abcdef0 }])`);
  }
  if (s.capacityReservationSelectorTerms && !s.capacityTypes.includes('reserved')) {
    add(['capacityReservationSelectorTerms'], `pool ${ctx.name} never uses capacityReservationSelectorTerms: add reserved to capacityTypes`);
  }
  if ((family === 'AL2023' || family === 'AL2') && gibibytes(s.volume.size) < 20) {
    add(['volume', 'size'], `${family} root volume must be at least 20Gi (the AMI snapshot size), got ${s.volume.size}`);
  }
  checkVolume(s, add);
  // A warning, not an error: some custom AMIs join the cluster on their own.
  if (family === 'Custom' && s.userData === undefined) {
    warnings.push(ctx.problem(['ami', 'family'], `pool ${ctx.name} uses family Custom, which Karpenter does not bootstrap: unless the AMI joins the cluster on its own, set userData that does`));
  }
  const k = s.kubelet;
  if (k?.imageGCHighThresholdPercent !== undefined && k.imageGCLowThresholdPercent !== undefined
    && k.imageGCHighThresholdPercent <= k.imageGCLowThresholdPercent) {
    add(['kubelet', 'imageGCHighThresholdPercent'], 'must be greater than imageGCLowThresholdPercent');
  }
  const soft = Object.keys(k?.evictionSoft ?? {});
  const grace = Object.keys(k?.evictionSoftGracePeriod ?? {});
  for (const signal of soft.filter((x) => !grace.includes(x))) {
    add(['kubelet', 'evictionSoft', signal], `needs a matching kubelet.evictionSoftGracePeriod.${signal}`);
  }
  for (const signal of grace.filter((x) => !soft.includes(x))) {
    add(['kubelet', 'evictionSoftGracePeriod', signal], `needs a matching kubelet.evictionSoft.${signal}`);
  }
  s.requirements.forEach((r, i) => {
    const field = FIELD_OF_KEY.get(r.key);
    if (field && (ctx.isSet([field]) || field === 'arch' || field === 'capacityTypes')) {
      add(['requirements', i, 'key'], `${r.key} is already set by the field ${field}: change it there instead`);
    }
  });
  const generated = generatedRequirements(s);
  if (generated.length + s.requirements.length > MAX_REQUIREMENTS) {
    add(s.requirements.length ? ['requirements'] : [generated[generated.length - 1]],
      `a NodePool takes at most ${MAX_REQUIREMENTS} requirements; this pool has ${generated.length + s.requirements.length}: `
      + `${s.requirements.length} in requirements and ${generated.length} from ${[...new Set(generated)].join(', ')}`);
  }
  if (TEAM_LABEL in s.labels) add(['labels', TEAM_LABEL], `the label "${TEAM_LABEL}" is set by the generator to the team id: remove it`);
  if (Object.keys(s.labels).length + 1 > 100) add(['labels'], 'at most 99 labels (the generator adds "team")');
  for (const key of Object.keys(s.tags)) {
    if (GENERATED_TAG_KEYS.includes(key)) add(['tags', key], `the tag "${key}" is set by the generator: remove it (use owner/costCenter on the team)`);
  }
  if (s.dedicated) {
    for (const [list, taints] of [['taints', s.taints], ['startupTaints', s.startupTaints]] as const) {
      taints.forEach((t, i) => {
        if (t.key === DEDICATED_TAINT_KEY) add([list, i, 'key'], `the taint "${DEDICATED_TAINT_KEY}" is set by dedicated: true; remove it or set dedicated: false`);
      });
    }
  }
}

/** The NodePool CRD's `maxItems` for requirements. */
const MAX_REQUIREMENTS = 100;

/** The field behind each requirement the generator writes from pool fields (arch and capacity types always). */
function generatedRequirements(s: PoolSettings): (keyof PoolFields)[] {
  const out: (keyof PoolFields)[] = ['arch', 'capacityTypes'];
  for (const field of ['instanceTypes', 'instanceFamilies', 'instanceCategories', 'zones'] as const) if (s[field]) out.push(field);
  for (const field of ['instanceGeneration', 'instanceCpu', 'instanceMemoryMiB'] as const) {
    for (const bound of Object.keys(s[field] ?? {})) if (bound) out.push(field);
  }
  return out;
}

function checkVolume(s: PoolSettings, add: (path: FieldPath, message: string) => void): void {
  const v = s.volume;
  if (v.throughput !== undefined && v.type !== 'gp3') add(['volume', 'throughput'], `throughput applies to gp3 volumes only (type is ${v.type})`);
  if (v.iops !== undefined && !['gp3', 'io1', 'io2'].includes(v.type)) add(['volume', 'iops'], `iops applies to gp3, io1 and io2 volumes only (type is ${v.type})`);
  if (v.type === 'gp3' && v.iops !== undefined && (v.iops < 3000 || v.iops > 16000)) add(['volume', 'iops'], `gp3 iops must be 3000..16000, got ${v.iops}`);
  if (v.type === 'gp3' && v.throughput !== undefined && (v.throughput < 125 || v.throughput > 1000)) add(['volume', 'throughput'], `gp3 throughput must be 125..1000 MiB/s, got ${v.throughput}`);
  if (v.kmsKeyID !== undefined && !v.encrypted) add(['volume', 'kmsKeyID'], 'kmsKeyID needs encrypted: true');
  // EC2 refuses to launch a node whose volume is outside its type's sizes.
  const [min, max] = EBS_SIZES_GIB[v.type];
  const size = gibibytes(v.size);
  if (size < min || size > max) add(['volume', 'size'], `${v.type} volumes are ${min}Gi to ${max}Gi, got ${v.size}`);
  // EC2 caps provisioned IOPS per GiB; the volume the pool sizes is the one these apply to.
  const perGiB = { gp3: 500, io1: 50, io2: 1000 }[v.type as 'gp3' | 'io1' | 'io2'];
  if (perGiB !== undefined && v.iops !== undefined && v.iops > perGiB * gibibytes(v.size)) {
    add(['volume', 'iops'], `${v.type} allows at most ${perGiB} iops per GiB: ${v.iops} iops needs at least ${Math.ceil(v.iops / perGiB)}Gi, volume.size is ${v.size}`);
  }
}

/**
 * Sizes EC2 accepts per EBS volume type, in GiB.
 * @see https://docs.aws.amazon.com/ebs/latest/userguide/ebs-volume-types.html
 */
const EBS_SIZES_GIB: Readonly<Record<PoolSettings['volume']['type'], readonly [number, number]>> = {
  gp3: [1, 16384], gp2: [1, 16384], io1: [4, 16384], io2: [4, 65536], st1: [125, 16384], sc1: [125, 16384], standard: [1, 1024],
};

/** Size in GiB of a volume size such as `20Gi`, `100G`, `1Ti`. */
function gibibytes(size: string): number {
  const m = /^([0-9]+)(Gi|G|Ti|T)$/.exec(size);
  if (!m) return 0;
  const n = Number(m[1]);
  return { Gi: n, G: n / 1.073741824, Ti: n * 1024, T: (n * 1000) / 1.073741824 }[m[2] as 'Gi' | 'G' | 'Ti' | 'T'];
}

/** Drops repeated problems and orders them by file (in order of appearance), line and column. */
function dedupe(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  const files = [...new Set(problems.map((p) => p.file))];
  return problems.filter((p) => {
    const k = `${p.file}:${p.line}:${p.col}:${p.path}:${p.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  }).sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file) || a.line - b.line || a.col - b.col);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
