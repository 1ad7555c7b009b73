import { autoModeFindings, autoModeTwin } from './auto-mode';
import { suggest } from '../input/issues';
import { BUILT_IN_POOL_DEFAULTS, Pool, PoolSettings, ProblemLocation } from './platform';
import { FieldPath, Problem } from '../input/problems';
import { COST_CENTER_LABEL, DEDICATED_TAINT_KEY, GENERATED_TAG_KEYS, TEAM_LABEL } from './reserved';
import { Layer, MergedFields, mergeLayers } from './resolve';
import { aliasFamily, ClusterFile, ClusterTeamFile, ComputeMode, PlatformFile, PoolFields, TeamFile } from './schema';
import { dryRun } from './dry-run';
import type { ClusterGroup } from './groups';
import { amiAliasFinding } from './kubernetes';
import { provenance } from './provenance';
import { Quantity, UNITS } from '../quantity/quantity';
import { fieldOfRequirementKey, poolRequirements, REQUIREMENT_FIELDS } from './requirements';
import { SourceFile } from '../input/source';
import { regionOf, TerraformOutputs, zoneProblem } from './terraform';
import type { ReleaseFacts } from '../release/types';
import { budgetReasonProblems, repairHoldWarnings } from './budget-release';
import { controllerKubeletFindings, isQuantity } from './kubelet';
import { checkStaticPool, staticPoolReleaseProblems } from './static-pools';

const TEAM_ONLY_KEYS = ['owner', 'costCenter', 'budget', 'defaultPool', 'pools', 'namespaces', 'buffer'] as const;




/** What {@link resolvePools} resolves one cluster's pools from. */
export interface ClusterPoolsInput {
  /** The config file, for locating problems. */
  readonly source: SourceFile;
  readonly file: PlatformFile;
  readonly clusterId: string;
  readonly cluster: ClusterFile;
  /** The groups the cluster is in, in file order. @default [] - none */
  readonly groups?: readonly ClusterGroup[];
  /** The cluster's Terraform outputs. @default - none: they could not be read */
  readonly tf?: TerraformOutputs;
  /** The cluster's Kubernetes version. @default - unknown */
  readonly kubernetesVersion?: string;
  /** Record where each field's value comes from (for explain). @default false */
  readonly withProvenance?: boolean;
  /** Who runs Karpenter on the cluster (config/auto-mode.ts). @default "karpenter" */
  readonly compute?: ComputeMode;
  /** The cluster's Karpenter release and its facts. @default - not checked against a release */
  readonly karpenter?: {
    readonly version: string;
    readonly facts?: ReleaseFacts;
    readonly featureGates?: Readonly<Record<string, boolean>>;
    readonly settings?: Readonly<Record<string, string | number | boolean>>;
  };
}

/**
 * Whether the levels make a pool adopted: `adopted` is a scalar, so the most specific level that
 * sets it decides, as merging the levels would (resolve.ts mergeLayers), without merging them.
 */
function adoptedBy(layers: readonly Layer[]): boolean {
  for (let i = layers.length - 1; i >= 0; i--) {
    const adopted = layers[i].fields.adopted;
    if (adopted !== undefined) return adopted === true;
  }
  return false;
}

/**
 * The pools of one cluster, each with its fields merged along the inheritance chain:
 * built-in < `defaults` < team < team.pools.<key> < each of the cluster's groups (its
 * teams.<team>, then teams.<team>.pools.<key>) < cluster.teams.<team> <
 * cluster.teams.<team>.pools.<key> < the groups' `overrides` < the cluster's `overrides`;
 * problems located at the level that set the value.
 */
export function resolvePools(input: ClusterPoolsInput, problems: Problem[], warnings: Problem[]): Pool[] {
  const { source, file, clusterId, cluster, groups = [], tf, kubernetesVersion, withProvenance = false, karpenter } = input;
  const teamIds = Object.keys(file.teams);
  const pools: Pool[] = [];
  const names = new Map<string, FieldPath>();
  for (const { teamId, at: selectedAt, fields: clusterTeam } of selectedTeams(source, clusterId, cluster, teamIds, problems)) {
    // A bare `web:` is a team with nothing of its own, like a bare `defaults:`.
    const team: TeamFile = file.teams[teamId] ?? {};
    const teamAt = ['teams', teamId];
    const candidates: { name: string; at: FieldPath; layers: Layer[] }[] = [];
    const defaults: Layer[] = file.defaults ? [{ fields: file.defaults, at: ['defaults'] }] : [];
    const teamLayer: Layer = { fields: poolFieldsOf(team), at: teamAt };
    const forCluster: Layer[] = clusterTeam ? [{ fields: poolFieldsOf(clusterTeam), at: selectedAt }] : [];
    // The cluster's groups, in file order: each its team's fields, then (for a pool) the pool's.
    const inGroups = groups.flatMap((g) => {
      const t = g.group.teams?.[teamId];
      return t === undefined ? [] : [{ at: [...g.at, 'teams', teamId], fields: t ?? {} }];
    });
    const forGroups = (key?: string): Layer[] => inGroups.flatMap(({ at, fields }) => [
      { fields: poolFieldsOf(fields as NonNullable<ClusterTeamFile>), at },
      ...(key !== undefined && fields.pools?.[key] ? [{ fields: fields.pools[key] as PoolFields, at: [...at, 'pools', key] }] : []),
    ]);
    const overrides: Layer[] = [
      ...groups.filter((g) => g.group.overrides).map((g) => ({ fields: g.group.overrides as PoolFields, at: [...g.at, 'overrides'] })),
      ...(cluster.overrides ? [{ fields: cluster.overrides, at: ['clusters', clusterId, 'overrides'] }] : []),
    ];
    // An adopted pool (docs/adopting.md) is verbatim: the fleet's defaults do not apply to it.
    const chain = (own: Layer[]) => (adoptedBy(own) ? own : [...defaults, ...own]);
    // A NodePool's own name is set where the pool is defined and never inherited (a team's name is its default pool's).
    if (team.defaultPool !== false) candidates.push({ name: team.name ?? teamId, at: teamAt, layers: chain([teamLayer, ...forGroups(), ...forCluster, ...overrides]) });
    for (const [key, fields] of Object.entries(team.pools ?? {})) {
      const at = [...teamAt, 'pools', key];
      const clusterPool = clusterTeam?.pools?.[key];
      const forClusterPool: Layer[] = clusterPool ? [{ fields: clusterPool, at: [...selectedAt, 'pools', key] }] : [];
      candidates.push({ name: fields?.name ?? `${teamId}-${key}`, at, layers: chain([{ fields: { ...teamLayer.fields, name: undefined }, at: teamAt }, { fields, at }, ...forGroups(key), ...forCluster, ...forClusterPool, ...overrides]) });
    }
    for (const [where, fields] of [[['defaults'], file.defaults], [selectedAt, clusterTeam], [['clusters', clusterId, 'overrides'], cluster.overrides],
      ...Object.entries(clusterTeam?.pools ?? {}).map(([key, f]) => [[...selectedAt, 'pools', key], f] as const),
      ...inGroups.flatMap(({ at, fields }) => [[at, fields] as const, ...Object.entries(fields.pools ?? {}).map(([key, f]) => [[...at, 'pools', key], f] as const)]),
      ...groups.map((g) => [[...g.at, 'overrides'], g.group.overrides] as const)] as const) {
      if (fields?.name !== undefined) {
        problems.push(source.problem([...where, 'name'], 'a NodePool\'s name is set where its pool is defined (teams.<team>.name for the team\'s pool, teams.<team>.pools.<key>.name), never inherited or set per cluster', 'key'));
      }
    }
    if (file.defaults?.adopted !== undefined) {
      problems.push(source.problem(['defaults', 'adopted'], 'adopted is set on a team, a pool or a cluster\'s team, not in defaults (an adopted pool does not take defaults)', 'key'));
    }
    for (const key of Object.keys(clusterTeam?.pools ?? {})) {
      if (!Object.hasOwn(team.pools ?? {}, key)) {
        const known = Object.keys(team.pools ?? {});
        const best = suggest(key, known);
        problems.push(source.problem([...selectedAt, 'pools', key], `team ${teamId} has no pool "${key}"${best ? ` (did you mean "${best}"?)` : ''} `
          + `(its pools: ${known.join(', ') || 'none'}): a cluster sets fields of pools its team defines; add it under teams.${teamId}.pools first`, 'key'));
      }
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
      const settings = merged.fields.adopted === true ? applyAdoptedBuiltIns(merged.fields) : applyBuiltIns(merged.fields);
      const ctx = new PoolContext(source, merged, c.name, c.at, clusterId);
      const before = problems.length;
      checkPool(ctx, settings, problems, warnings);
      // EKS Auto Mode cannot honour some fields (config/auto-mode.ts): an error there, a warning on a cluster that moves to it.
      const onAuto = autoModeFindings(settings, { cluster: clusterId, team: teamId, compute: input.compute ?? 'karpenter', guarded: team.namespaces !== undefined, originOf: (p) => merged.origin(p), problem: (p, m) => ctx.problem(p, m) });
      problems.push(...onAuto.errors);
      warnings.push(...onAuto.warnings);
      if (kubernetesVersion !== undefined && settings.ami?.alias !== undefined) {
        const finding = amiAliasFinding(clusterId, kubernetesVersion, settings.ami.alias);
        if (finding) (finding.severity === 'error' ? problems : warnings).push(ctx.problem(['ami', 'alias'], finding.message));
      }
      const facts = karpenter?.facts;
      if (facts && !facts.consolidationPolicies.includes(settings.disruption.consolidationPolicy)) {
        problems.push(ctx.problem(['disruption', 'consolidationPolicy'], `cluster ${clusterId} runs Karpenter ${karpenter?.version}, whose NodePool CRD does not accept `
          + `consolidationPolicy ${settings.disruption.consolidationPolicy} (allowed: ${facts.consolidationPolicies.join(', ')}): `
          + `upgrade this cluster's Karpenter first (clusters.${clusterId}.karpenter.version), or set clusters.${clusterId}.overrides.disruption.consolidationPolicy`));
      }
      if (facts) problems.push(...budgetReasonProblems(ctx, karpenter?.version ?? '', facts, settings.disruption.budgets));
      if (karpenter) warnings.push(...repairHoldWarnings(ctx, karpenter, settings.disruption.budgets));
      if (facts && settings.replicas !== undefined) problems.push(...staticPoolReleaseProblems(ctx, settings, { version: karpenter?.version ?? '', facts, featureGates: karpenter?.featureGates }));
      if (facts && settings.kubelet) problems.push(...kubeletReleaseProblems(ctx, karpenter?.version ?? '', facts, settings));
      const region = tf ? regionOf(tf) : undefined;
      if (region !== undefined) {
        (settings.zones ?? []).forEach((zone, i) => {
          const why = zoneProblem(zone, region);
          if (why) problems.push(ctx.problem(['zones', i], `cluster ${clusterId}: ${why}`));
        });
      }
      if (tf && !tf.interruptionQueueName && settings.capacityTypes.includes('spot')) {
        warnings.push(ctx.problem(['capacityTypes'],
          `pool ${c.name} uses spot capacity but cluster ${clusterId} has no karpenter_interruption_queue_name output: spot interruptions will not be handled gracefully`));
      }
      if (!settings.ami) continue;
      const requirements = poolRequirements(settings);
      // The dry run needs requirements the CRD would take: after a problem with one of them its
      // findings would only echo it. Any other problem of the pool leaves it to run, in the same run.
      const echoes = problems.slice(before).some((p) => DRY_RUN_INPUTS.has(ctx.fieldOf(p) ?? ''));
      const found = echoes ? [] : dryRun(c.name, settings, requirements, { smokeTests: cluster.smokeTests ?? true });
      for (const p of found) (p.severity === 'error' ? problems : warnings).push(ctx.problem(p.field, p.message));
      const expireAfterSet = merged.origin(['expireAfter']) !== undefined;
      pools.push({
        name: c.name, team: teamId, owner: team.owner, costCenter: team.costCenter, settings, requirements,
        ...(team.namespaces ? { namespaces: team.namespaces } : {}),
        limitsAt: location(ctx.problem(settings.limits ? ['limits'] : [], '')),
        nodeClassAt: location(ctx.problem(settings.nodeClass !== undefined ? ['nodeClass'] : [], '')),
        ...expressionsAt(ctx, settings),
        ...(withProvenance ? { provenance: provenance(source, merged, settings) } : {}),
      });
      // On Auto Mode a pool is its Auto Mode twin, <pool>-auto; a cluster that moves runs both (config/auto-mode.ts).
      const compute = input.compute ?? 'karpenter';
      if (compute !== 'karpenter') {
        const own = pools[pools.length - 1];
        if (compute === 'autoMode') pools.length -= 1;
        const twin = autoModeTwin(own, { expireAfterSet, moving: compute === 'both' });
        const clash = names.get(twin.name);
        if (clash) problems.push(ctx.problem([], `cluster ${clusterId} runs on EKS Auto Mode (compute: ${compute}): pool ${c.name} is ${twin.name} there, the name of the pool at ${clash.join('.')}: rename one of them`));
        else if (twin.name.length > 63) problems.push(ctx.problem([], `cluster ${clusterId} runs on EKS Auto Mode (compute: ${compute}): pool ${c.name} is ${twin.name} there, longer than the 63 characters of a NodePool's name: shorten the pool's name`));
        else {
          names.set(twin.name, c.at);
          pools.push(twin);
        }
      }
    }
  }
  return pools;
}

/** A team a cluster runs: its id, where the cluster names it, and the cluster's fields for it. */
interface SelectedTeam {
  readonly teamId: string;
  readonly at: FieldPath;
  readonly fields?: NonNullable<ClusterTeamFile>;
}

/** The teams of a cluster: every team, the ids `teams` lists, or the keys of the map `teams` is. */
function selectedTeams(source: SourceFile, clusterId: string, cluster: ClusterFile, teamIds: readonly string[], problems: Problem[]): SelectedTeam[] {
  const unknown = (id: string, at: FieldPath) => {
    const best = suggest(id, teamIds);
    problems.push(source.problem(at, `unknown team "${id}"${best ? ` (did you mean "${best}"?)` : ` (teams: ${teamIds.join(', ')})`}`, 'key'));
  };
  const listed = cluster.teams;
  if (listed === undefined) return teamIds.map((teamId) => ({ teamId, at: ['clusters', clusterId] }));
  const out: SelectedTeam[] = [];
  if (Array.isArray(listed)) {
    listed.forEach((teamId, i) => {
      const at = ['clusters', clusterId, 'teams', i];
      const first = listed.indexOf(teamId);
      if (first !== i) problems.push(source.problem(at, `team "${teamId}" is listed twice (also at teams[${first}]): remove one`));
      else if (!teamIds.includes(teamId)) unknown(teamId, at);
      else out.push({ teamId, at });
    });
    return out;
  }
  for (const [teamId, fields] of Object.entries(listed)) {
    const at = ['clusters', clusterId, 'teams', teamId];
    if (!teamIds.includes(teamId)) unknown(teamId, at);
    else out.push({ teamId, at, fields: fields ?? undefined });
  }
  return out;
}

/** The pool fields of a team or cluster-team entry (without owner, costCenter, defaultPool, pools, namespaces). */
function poolFieldsOf(team: TeamFile | NonNullable<ClusterTeamFile>): PoolFields {
  const fields: Record<string, unknown> = { ...team };
  for (const k of TEAM_ONLY_KEYS) delete fields[k];
  return fields as PoolFields;
}

/**
 * An adopted pool's settings: nothing the generator would add of its own. Its requirements are
 * only those its fields set (no built-in arch or capacity types), it is not dedicated unless it
 * says so, and it has no block devices but those it names (`volume` stays the built-in for the
 * checks that read it, and renders nothing). Fields the CRD defaults (expireAfter, disruption,
 * metadataOptions) keep built-ins equal to those defaults, or the values adoption wrote.
 */
function applyAdoptedBuiltIns(fields: PoolFields): PoolSettings {
  const built = applyBuiltIns(fields);
  return { ...built, arch: fields.arch ?? [], capacityTypes: fields.capacityTypes ?? [], dedicated: fields.dedicated ?? false };
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

/**
 * The pool fields the dry run matches against the catalog: a problem with one of them is what
 * to fix first. Zones and capacity types are not instance-type labels (they filter no type there).
 */
const DRY_RUN_INPUTS: ReadonlySet<string> = new Set(['requirements', ...REQUIREMENT_FIELDS.map((f) => f.field).filter((f) => f !== 'zones' && f !== 'capacityTypes')]);

/** Locates problems about a merged pool at the line that set the value. */
class PoolContext {
  /** The pool field (first segment) each problem made here is about. */
  private readonly fields = new WeakMap<Problem, string>();

  public constructor(
    private readonly source: SourceFile,
    private readonly merged: MergedFields,
    public readonly name: string,
    private readonly at: FieldPath,
    public readonly cluster: string,
  ) {}

  public problem(path: FieldPath, message: string): Problem {
    const problem = this.source.problem(this.merged.origin(path) ?? this.at, message);
    this.fields.set(problem, String(path[0] ?? ''));
    return problem;
  }

  /** The pool field a problem made by {@link PoolContext.problem} is about. */
  public fieldOf(problem: Problem): string | undefined {
    return this.fields.get(problem);
  }

  /** The index in the inheritance chain of the level that set this field (-1: the built-in default). */
  public levelOf(path: FieldPath): number {
    return this.merged.levelOf(path);
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
  // An adopted pool says reserved capacity in its own requirements; Karpenter takes a class's
  // reservations whatever its pools admit (the EC2NodeClass CRD has no rule across objects).
  if (s.capacityReservationSelectorTerms && !s.capacityTypes.includes('reserved') && !s.adopted) {
    add(['capacityReservationSelectorTerms'], `pool ${ctx.name} never uses capacityReservationSelectorTerms: add reserved to capacityTypes`);
  }
  if (s.blockDeviceMappings === undefined && !s.adopted) {
    if ((family === 'AL2023' || family === 'AL2') && gibibytes(s.volume.size) < 20) {
      add(['volume', 'size'], `${family} root volume must be at least 20Gi (the AMI snapshot size), got ${s.volume.size}`);
    }
    checkVolume(s, add);
  }
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
    const field = fieldOfRequirementKey(r.key);
    if (field && (ctx.isSet([field]) || (!s.adopted && (field === 'arch' || field === 'capacityTypes')))) {
      add(['requirements', i, 'key'], `${r.key} is already set by the field ${field}: change it there instead`);
    }
  });
  const all = poolRequirements(s);
  if (all.length > MAX_REQUIREMENTS) {
    const generated = all.filter((r) => r.field[0] !== 'requirements').map((r) => r.field[0]);
    add(s.requirements.length ? ['requirements'] : [generated[generated.length - 1]],
      `a NodePool takes at most ${MAX_REQUIREMENTS} requirements; this pool has ${all.length}: `
      + `${s.requirements.length} in requirements and ${generated.length} from ${[...new Set(generated)].join(', ')}`);
  }
  checkStaticPool(ctx, s, add);
  // An adopted pool sets these itself: the generator adds none of its own.
  if (!s.adopted) {
    if (TEAM_LABEL in s.labels) add(['labels', TEAM_LABEL], `the label "${TEAM_LABEL}" is set by the generator to the team id: remove it`);
    if (COST_CENTER_LABEL in s.labels) add(['labels', COST_CENTER_LABEL], `the label "${COST_CENTER_LABEL}" is set by the generator from the team's costCenter: remove it (set costCenter on the team)`);
    if (Object.keys(s.labels).length + 2 > 100) add(['labels'], 'at most 98 labels (the generator adds "team" and "cost-center")');
    for (const key of Object.keys(s.tags)) {
      if (GENERATED_TAG_KEYS.includes(key)) add(['tags', key], `the tag "${key}" is set by the generator: remove it (use owner/costCenter on the team)`);
    }
  }
  if (s.role !== undefined && s.instanceProfile !== undefined) add(['instanceProfile'], 'set either role or instanceProfile, not both (the EC2NodeClass takes one)');
  if (s.blockDeviceMappings !== undefined && ctx.isSet(['volume'])) add(['blockDeviceMappings'], 'set either volume (one root volume) or blockDeviceMappings, not both');
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

/** Size in GiB of a volume size the schema accepted, such as `20Gi`, `100G`, `1Ti` (`100G` is 93.13… GiB). */
function gibibytes(size: string): number {
  return Quantity.of(size).toNumber(UNITS.GiB);
}

/**
 * The pool's kubelet as the cluster's release takes it. A release whose EC2NodeClass CRD types
 * spec.kubelet (1.13, 1.14) refuses, at the API server, any field but its own and any CEL
 * expression; one that leaves it open (1.15) takes them, and its controller refuses what
 * src/config/kubelet.ts transcribes, marking the EC2NodeClass NotReady while Argo CD shows it synced.
 */
function kubeletReleaseProblems(ctx: PoolContext, version: string, facts: ReleaseFacts, s: PoolSettings): Problem[] {
  const kubelet = (s.kubelet ?? {}) as Readonly<Record<string, unknown>>;
  const problems: Problem[] = [];
  const upgrade = `upgrade this cluster's Karpenter first (clusters.${ctx.cluster}.karpenter.version)`;
  if (facts.kubeletValidatedBy === 'controller') {
    const family = s.ami?.family ?? (s.ami?.alias ? aliasFamily(s.ami.alias) : undefined) ?? 'AL2023';
    for (const f of controllerKubeletFindings(kubelet, family)) {
      problems.push(ctx.problem(['kubelet', ...f.path], `${f.message}: cluster ${ctx.cluster} runs Karpenter ${version}, whose controller refuses it `
        + '(the EC2NodeClass would stay NotReady and launch nothing while the API server and Argo CD show it synced)'));
    }
    return problems;
  }
  const known = facts.ec2NodeClassFields.filter((f) => /^spec\.kubelet\.[^.]+$/.test(f)).map((f) => f.slice('spec.kubelet.'.length));
  for (const key of Object.keys(kubelet)) {
    if (!known.includes(key)) {
      problems.push(ctx.problem(['kubelet', key], `unknown key "${key}": cluster ${ctx.cluster} runs Karpenter ${version}, whose EC2NodeClass CRD has no spec.kubelet.${key} `
        + `(its kubelet fields: ${known.join(', ')}); other KubeletConfiguration fields need a release whose CRD leaves spec.kubelet open (1.15 or later): ${upgrade}, or remove it`));
    }
  }
  if (typeof kubelet.maxPods === 'string') {
    problems.push(ctx.problem(['kubelet', 'maxPods'], `"${kubelet.maxPods}" is a CEL expression: cluster ${ctx.cluster} runs Karpenter ${version}, whose EC2NodeClass CRD takes maxPods as a whole number `
      + `(expressions need 1.15 or later): ${upgrade}, or write a number`));
  }
  for (const field of ['kubeReserved', 'systemReserved'] as const) {
    for (const [key, value] of Object.entries(s.kubelet?.[field] ?? {})) {
      if (value === undefined) continue;
      if (!isQuantity(value)) problems.push(ctx.problem(['kubelet', field, key], `"${value}": must be a quantity such as "100m" or "1Gi" (cluster ${ctx.cluster} runs Karpenter ${version}, whose CRD takes no CEL expression here)`));
      else if (value.startsWith('-')) problems.push(ctx.problem(['kubelet', field, key], 'cannot be negative'));
    }
  }
  return problems;
}

/** Where a problem sits, without its message (a problem found later, against the plan, is reported there). */
/** Where each CEL expression of the pool's kubelet was set (a string maxPods, a reserved value that is not a quantity). */
function expressionsAt(ctx: PoolContext, s: PoolSettings): { kubeletExpressionsAt?: Record<string, ProblemLocation> } {
  const at: Record<string, ProblemLocation> = {};
  if (typeof s.kubelet?.maxPods === 'string') at.maxPods = location(ctx.problem(['kubelet', 'maxPods'], ''));
  for (const field of ['kubeReserved', 'systemReserved'] as const) {
    for (const [key, value] of Object.entries(s.kubelet?.[field] ?? {})) {
      if (value !== undefined && !isQuantity(value)) at[`${field}.${key}`] = location(ctx.problem(['kubelet', field, key], ''));
    }
  }
  return Object.keys(at).length ? { kubeletExpressionsAt: at } : {};
}

function location(p: Problem): ProblemLocation {
  return { file: p.file, line: p.line, col: p.col, path: p.path };
}
