/**
 * Karpenter on one simulated cluster, written from kubernetes-sigs/karpenter v1.14.1 and
 * aws/karpenter-provider-aws v1.14.1. It runs only while the controller Deployment the chart
 * delivered has available pods (`KubeControllers.servingTemplate`), at the chart version those
 * pods run, and each simulated minute it does what these controllers do:
 *
 * - **hashes** (`nodepool.hash`, kubernetes-sigs/karpenter pkg/controllers/nodepool/hash/controller.go
 *   l. 59-83; `nodeclass.hash`, karpenter-provider-aws pkg/controllers/nodeclass/hash/controller.go
 *   l. 49-71): writes `karpenter.sh/nodepool-hash` and `-hash-version` on each NodePool, and
 *   `karpenter.k8s.aws/ec2nodeclass-hash` and `-hash-version` on each EC2NodeClass; when the
 *   version differs, first re-stamps the NodeClaims that are not Drifted (l. 97-129; l. 88-121).
 *   The hash is `hashstructure.Hash(spec.template, SlicesAsSets, IgnoreZeroValue, ZeroNil)`
 *   (pkg/apis/v1/nodepool.go l. 336-342) without `spec.template.spec.requirements`, which is
 *   `hash:"ignore"` (l. 234); for an EC2NodeClass the spec without its `hash:"ignore"` fields
 *   (the selector terms, `ipPrefixCount`, `amiFamily`; pkg/apis/v1/ec2nodeclass.go l. 40-85) plus
 *   the resolved AMI family (l. 597-610). Here the hash is a digest of that JSON with keys sorted,
 *   arrays taken as sets and zero values dropped: equal inputs give equal hashes, as in Karpenter,
 *   but the values differ (no test compares them with Karpenter's). Hash versions: v3 and v5 in
 *   both releases simulated (nodepool.go l. 334 at v1.14.1, l. 320 at v1.13.0; ec2nodeclass.go
 *   l. 595 at v1.14.1 and v1.13.1);
 * - **status**: every condition it sets carries `observedGeneration` = the object's generation
 *   (awslabs/operatorpkg status/condition_set.go l. 113-118 at 7a13865): NodePool `Ready`, EC2NodeClass
 *   `Ready` with every dependent (PlacementGroupReady too, provider pkg/controllers/nodeclass/placementgroup.go
 *   l. 63, 72) and `status.amis` (the alias resolved, pkg/controllers/nodeclass/ami.go l. 61-97),
 *   NodeOverlay `ValidationSucceeded` and `Ready` (pkg/controllers/nodeoverlay/controller.go
 *   l. 275), CapacityBuffer `ReadyForProvisioning` and `Provisioning`;
 * - **drift** (pkg/controllers/nodeclaim/disruption/drift.go): each launched NodeClaim is looked
 *   at again 5 minutes after its last look (l. 74, 82), and at once when its NodePool or
 *   EC2NodeClass changes (the controller watches both, controller.go l. 119-123). It is Drifted
 *   when the hashes differ at the same hash version (static drift, l. 154-168; provider
 *   pkg/cloudprovider/drift.go l. 181-195), when its labels no longer meet the NodePool's
 *   requirements (l. 170-180: `In` and `NotIn` on the labels it has), or when its image is not
 *   among the EC2NodeClass's resolved AMIs (AMI drift, provider drift.go l. 84-108). The
 *   condition is set True, or removed, never set False (l. 69-82);
 * - **disruption** (pkg/controllers/disruption/controller.go): one pass every 10 s (l. 71), each
 *   starting at most one command (l. 166-179) and a drift command has one candidate (drift.go
 *   l. 63-108), the oldest Drifted first, in a NodePool whose budget allows it:
 *   `GetAllowedDisruptionsByReason(numNodes, Drifted)` minus the NodePool's nodes already being
 *   disrupted (helpers.go l. 262-313), numNodes counting initialized NodeClaims only. A command
 *   launches a replacement (with the current hashes and image: nodeclaimtemplate.go l. 76,
 *   provider cloudprovider.go l. 158), waits until it is initialized (2 minutes here), then
 *   deletes the candidate (drained in a minute here);
 * - **pods that block disruption**: a NodeClaim is a candidate only if no pod on its node blocks
 *   eviction (`NewCandidate`, pkg/controllers/disruption/types.go l. 188-197, through
 *   `StateNode.ValidatePodsDisruptable`, pkg/controllers/state/statenode.go l. 244-264): an active
 *   pod (not terminal, not terminating) whose `karpenter.sh/do-not-disrupt` is `"true"` or a
 *   duration not yet elapsed since the pod started (pkg/utils/pod/scheduling.go `IsDisruptable`
 *   l. 115-117, `IsDoNotDisruptActive` l. 205-252), or an evictable pod matched by more than one
 *   PodDisruptionBudget or by one whose `status.disruptionsAllowed` is 0 (pkg/utils/pdb/pdb.go
 *   `CanEvictPods` l. 63-130). Drift is of the eventual class (disruption/drift.go l. 114-116), so a
 *   NodeClaim with `spec.terminationGracePeriod` stays a candidate despite such a pod (types.go
 *   l. 189-193); it carries the NodePool's value from its launch (pkg/apis/v1/nodepool.go l. 272-287:
 *   a NodeClaim launched before the NodePool had one has none);
 * - **termination** of a deleted NodeClaim: its termination time is its deletion plus its
 *   `terminationGracePeriod` (pkg/controllers/nodeclaim/lifecycle/controller.go l. 289-304); the
 *   drain (pkg/controllers/node/termination/terminator/terminator.go `Drain` l. 96-117) evicts every
 *   evictable pod at once (`IsEvictable`: not do-not-disrupt; a PodDisruptionBudget that allows no
 *   eviction refuses it) and waits for every pod not terminal, do-not-disrupt ones included
 *   (`IsWaitingEviction`, scheduling.go l. 65-85), except that from `termination time − the pod's
 *   terminationGracePeriodSeconds` a pod is deleted whatever blocks it (`DeleteExpiringPods`,
 *   terminator.go l. 140-178); once no pod waits, the instance is terminated (a minute here). A
 *   deleted pod is gone at once, and nothing schedules it again.
 *
 * NodeClaims are written full size, as Karpenter writes them (karpenter-nodeclaim.ts): the drift
 * gate lists them, and their size is what its memory is for. Pods are made by the tests
 * (`spec.nodeName` the NodeClaim's `status.nodeName`).
 *
 * Not simulated: provisioning for pods (each NodePool starts with a given number of
 * NodeClaims, the workload), consolidation, expiration, interruption, instance-type drift
 * (not checked in the first hour anyway, drift.go l. 93-107), subnet and security-group drift,
 * and CRD defaulting (a field left out and its default written would hash alike in Karpenter).
 * A controller that restarts forgets its commands (the orchestration queue is in memory):
 * candidates stay Drifted and are taken again.
 *
 * Upstream: MODELS.karpenter, MODELS.karpenterAws (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import { createHash } from 'node:crypto';
import type { NodeSelectorRequirement } from '../../src/catalog/requirements';
import { BudgetSimulator, SimBudget } from './karpenter-budgets';
import { karpenterNodeClaimParts } from './karpenter-nodeclaim';
import { KubeApi, KubeControllers, KubeObject, Live } from './kube-sim';

/** Hash versions of the releases simulated (see the file comment). */
const HASH_VERSIONS: Readonly<Record<string, { readonly nodePool: string; readonly ec2NodeClass: string }>> = {
  '1.13.1': { nodePool: 'v3', ec2NodeClass: 'v5' },
  '1.14.1': { nodePool: 'v3', ec2NodeClass: 'v5' },
};

const NODEPOOL_HASH = 'karpenter.sh/nodepool-hash';
const NODEPOOL_HASH_VERSION = 'karpenter.sh/nodepool-hash-version';
const NODECLASS_HASH = 'karpenter.k8s.aws/ec2nodeclass-hash';
const NODECLASS_HASH_VERSION = 'karpenter.k8s.aws/ec2nodeclass-hash-version';
const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
const MINUTE = 60_000;
/** A replacement is launched, registered and initialized in this long. */
const INITIALIZE_MS = 2 * MINUTE;
/** A NodeClaim being deleted is drained and its instance terminated in this long. */
const DRAIN_MS = MINUTE;
/** drift.go l. 74, 82. */
const DRIFT_REQUEUE_MS = 5 * MINUTE;
/** Disruption passes a minute: controller.go l. 71 (`pollingPeriod = 10 * time.Second`). */
const PASSES_PER_MINUTE = 6;

/** `hashstructure` with SlicesAsSets, IgnoreZeroValue and ZeroNil, as a digest of canonical JSON. */
export function karpenterHash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(canonical(value) ?? null)).digest('hex').slice(0, 20);
}

function canonical(value: unknown): unknown {
  if (value === null || value === undefined || value === '' || value === 0 || value === false) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(canonical).filter((v) => v !== undefined).map((v) => JSON.stringify(v)).sort();
    return items.length === 0 ? undefined : items;
  }
  if (typeof value === 'object') {
    const entries = Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])] as const).filter(([, v]) => v !== undefined);
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  return value;
}

/** The NodePool hash Karpenter writes: spec.template without its requirements. */
export function nodePoolHash(nodePool: KubeObject): string {
  const template = structuredClone((nodePool.spec as { template?: { spec?: Record<string, unknown> } }).template ?? {});
  if (template.spec) delete template.spec.requirements;
  return karpenterHash(template);
}

/** The EC2NodeClass hash Karpenter writes: the spec without its `hash:"ignore"` fields, with the resolved AMI family. */
export function ec2NodeClassHash(nodeClass: KubeObject): string {
  const spec = { ...((nodeClass.spec ?? {}) as Record<string, unknown>) };
  for (const ignored of ['subnetSelectorTerms', 'securityGroupSelectorTerms', 'capacityReservationSelectorTerms', 'ipPrefixCount', 'amiSelectorTerms', 'amiFamily']) delete spec[ignored];
  return karpenterHash([spec, amiFamily(nodeClass)]);
}

/** `AMIFamily()`: the field, or the family of the alias (ec2nodeclass.go). */
function amiFamily(nodeClass: KubeObject): string {
  const spec = (nodeClass.spec ?? {}) as { amiFamily?: string; amiSelectorTerms?: { alias?: string }[] };
  const alias = spec.amiSelectorTerms?.find((t) => t.alias)?.alias;
  const families: Record<string, string> = { al2023: 'AL2023', al2: 'AL2', bottlerocket: 'Bottlerocket', windows2019: 'Windows2019', windows2022: 'Windows2022', windows2025: 'Windows2025' };
  return spec.amiFamily ?? (alias ? families[alias.split('@')[0]] ?? 'Custom' : 'Custom');
}

/** The AMIs an EC2NodeClass resolves to (an SSM parameter per alias and architecture): one per architecture. */
function resolveAmis(nodeClass: KubeObject): { readonly id: string; readonly arch: string }[] {
  const terms = ((nodeClass.spec ?? {}) as { amiSelectorTerms?: Record<string, unknown>[] }).amiSelectorTerms ?? [];
  const aliases = terms.map((t) => t.alias);
  if (aliases.some((a) => typeof a !== 'string')) throw new Error(`EC2NodeClass ${nodeClass.metadata.name}: only alias AMI selector terms are simulated`);
  return (aliases as string[]).flatMap((alias) => ['amd64', 'arm64'].map((arch) => ({ id: `ami-${createHash('sha256').update(`${alias}/${arch}`).digest('hex').slice(0, 17)}`, arch })));
}

interface Requirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

/** What Karpenter does to one NodeClaim, beside the object. */
interface ClaimState {
  readonly pool: string;
  readonly createdAt: number;
  readonly initializedAt: number;
  nextDriftCheck: number;
  /** The NodePool and EC2NodeClass inputs at the last look (a change is a watch event). */
  lastInputs?: string;
  /** The replacement of its drift command, while it runs. */
  command?: { readonly replacement: string };
  driftedSince?: number;
  /** What its status last said: initialized, drifted since. */
  written?: string;
  /** Its node's name (its status' `nodeName`): the pods on it name it in `spec.nodeName`. */
  readonly node: string;
  /** Its `spec.terminationGracePeriod` in ms, from its NodePool at launch. @default - none */
  readonly terminationGracePeriodMs?: number;
  /** What its status says beside its image and conditions (capacity, allocatable, node name, provider ID). */
  readonly statusBase: Record<string, unknown>;
  /** When its drain ended: no pod left waiting. */
  drainedAt?: number;
}

/** One drift command: when Karpenter started it. */
export interface Disruption {
  readonly at: number;
  readonly pool: string;
  readonly nodeClaim: string;
  readonly replacement: string;
}

/** Options of {@link KarpenterSim}. */
export interface KarpenterSimOptions {
  /** How many NodeClaims a NodePool starts with (the cluster's workload). */
  readonly initialNodeClaims: (pool: string) => number;
  /** The span simulated, for the budgets' schedules. */
  readonly from: Date;
  readonly to: Date;
}

/** Karpenter on one cluster. */
export class KarpenterSim {
  private readonly claims = new Map<string, ClaimState>();
  private readonly seenPools = new Set<string>();
  private readonly budgets = new Map<string, BudgetSimulator>();
  /** Hashes and statuses already written, by what they were computed from. */
  private readonly written = new Map<string, string>();
  private serial = 0;
  private now = 0;
  /** Every drift command started, in order. */
  public readonly disruptions: Disruption[] = [];

  /** Whether an object Karpenter watches changed since its last minute (its own writes included). */
  private dirty = true;

  public constructor(public readonly cluster: string, private readonly api: KubeApi, private readonly kube: KubeControllers, private readonly options: KarpenterSimOptions) {
    api.watch((live) => {
      if (['NodePool', 'EC2NodeClass', 'NodeOverlay', 'CapacityBuffer', 'NodeClaim', 'Deployment', 'Pod', 'PodDisruptionBudget'].includes(live.kind)) this.dirty = true;
    });
  }

  /** The chart version the serving controller pods run (`helm.sh/chart: karpenter-<version>`), or undefined when it is down or not installed. */
  public runningVersion(): string | undefined {
    for (const d of this.api.list('Deployment')) {
      const chart = (d.applied.metadata.labels ?? {})['helm.sh/chart'];
      if (!chart?.startsWith('karpenter-')) continue;
      if (this.kube.servingTemplate(d.namespace!, d.name) === undefined) return undefined;
      return chart.slice('karpenter-'.length);
    }
    return undefined;
  }

  /** Whether nothing is under way: no NodeClaim Drifted, being replaced, launching or deleted. */
  public idle(now: number): boolean {
    if (this.runningVersion() === undefined) return true;
    if (this.dirty) return false;
    for (const live of this.api.list('NodeClaim')) {
      const state = this.claims.get(live.name);
      if (!state || live.deletionAt !== undefined || state.command || state.driftedSince !== undefined || now < state.initializedAt) return false;
    }
    return true;
  }

  /** One simulated minute. */
  public tick(now: number): void {
    this.now = now;
    const dirty = this.dirty;
    this.dirty = false;
    const version = this.runningVersion();
    if (version === undefined) {
      // In-memory commands die with the controller (see the file comment).
      for (const c of this.claims.values()) c.command = undefined;
      return;
    }
    const hashVersions = HASH_VERSIONS[version];
    if (!hashVersions) throw new Error(`Karpenter ${version}: hash versions not transcribed`);
    // Nothing changed and nothing under way: a minute of Karpenter would write nothing.
    if (!dirty && this.idle(now)) return;
    for (const nc of this.api.list('EC2NodeClass')) this.reconcileNodeClass(nc, hashVersions.ec2NodeClass);
    for (const np of this.api.list('NodePool')) this.reconcileNodePool(np, hashVersions.nodePool, now);
    for (const o of this.api.list('NodeOverlay')) this.setConditions(o, ['ValidationSucceeded', 'Ready'].map((type) => ({ type, status: 'True', reason: type })));
    for (const b of this.api.list('CapacityBuffer')) {
      this.setConditions(b, [
        { type: 'ReadyForProvisioning', status: 'True', reason: 'Ready' },
        { type: 'Provisioning', status: 'True', reason: 'FitsExistingCapacity' },
      ]);
    }
    this.lifecycle(now);
    this.drift(now);
    for (let pass = 0; pass < PASSES_PER_MINUTE && this.disrupt(now); pass++);
  }

  /** Sets the conditions (all at the object's generation) once per generation and inputs. */
  private setConditions(live: Live, conditions: { type: string; status: string; reason: string }[], extra: Record<string, unknown> = {}, extraKey = ''): void {
    const key = `${live.generation}/${conditions.map((c) => c.status).join()}/${extraKey}`;
    if (this.written.get(`status/${live.uid}`) === key) return;
    this.written.set(`status/${live.uid}`, key);
    const old = ((live.status ?? {}) as { conditions?: { type: string; status: string; lastTransitionTime: string }[] }).conditions ?? [];
    const at = (type: string, status: string) => old.find((c) => c.type === type && c.status === status)?.lastTransitionTime ?? new Date(this.now).toISOString();
    this.api.setStatus(live, {
      ...extra,
      conditions: conditions.map((c) => ({ ...c, observedGeneration: live.generation, lastTransitionTime: at(c.type, c.status), message: '' })),
    });
  }

  /** `compute(applied)`, once per applied manifest. */
  private memo(kind: string, live: Live, compute: (obj: KubeObject) => string): string {
    const key = `${kind}/${live.uid}/${live.generation}/${live.appliedJson.length}`;
    let value = this.written.get(key);
    if (value === undefined) {
      value = compute(live.applied);
      this.written.set(key, value);
    }
    return value;
  }

  private reconcileNodeClass(live: Live, hashVersion: string): void {
    if (live.deletionAt !== undefined) return;
    const hash = this.memo('EC2NodeClass', live, ec2NodeClassHash);
    if (live.controllerAnnotations[NODECLASS_HASH_VERSION] !== hashVersion) {
      for (const claim of this.api.list('NodeClaim')) {
        const ref = (claim.applied.spec as { nodeClassRef?: { name?: string } }).nodeClassRef;
        if (ref?.name !== live.name || claim.controllerAnnotations[NODECLASS_HASH_VERSION] === hashVersion) continue;
        const drifted = conditionsOf(claim).some((c) => c.type === 'Drifted');
        this.api.annotate(claim, { [NODECLASS_HASH_VERSION]: hashVersion, ...(drifted ? {} : { [NODECLASS_HASH]: hash }) });
      }
    }
    this.api.annotate(live, { [NODECLASS_HASH]: hash, [NODECLASS_HASH_VERSION]: hashVersion });
    const amis = this.memo('amis', live, (obj) => JSON.stringify(resolveAmis(obj).map((a) => ({ id: a.id, name: a.id, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: [a.arch] }] }))));
    // Every dependent of Ready (ec2nodeclass_status.go l. 169-182); PlacementGroupReady is True without a placement group (nodeclass/placementgroup.go l. 63, 72).
    this.setConditions(live, ['AMIsReady', 'SubnetsReady', 'SecurityGroupsReady', 'InstanceProfileReady', 'ValidationSucceeded', 'PlacementGroupReady', 'Ready'].map((type) => ({ type, status: 'True', reason: type })),
      { amis: JSON.parse(amis) as unknown }, amis);
  }

  private reconcileNodePool(live: Live, hashVersion: string, now: number): void {
    if (live.deletionAt !== undefined) return;
    const hash = this.memo('NodePool', live, nodePoolHash);
    if (live.controllerAnnotations[NODEPOOL_HASH_VERSION] !== hashVersion) {
      for (const claim of this.api.list('NodeClaim')) {
        if (claim.applied.metadata.labels?.[NODEPOOL_LABEL] !== live.name || claim.controllerAnnotations[NODEPOOL_HASH_VERSION] === hashVersion) continue;
        const drifted = conditionsOf(claim).some((c) => c.type === 'Drifted');
        this.api.annotate(claim, { [NODEPOOL_HASH_VERSION]: hashVersion, ...(drifted ? {} : { [NODEPOOL_HASH]: hash }) });
      }
    }
    this.api.annotate(live, { [NODEPOOL_HASH]: hash, [NODEPOOL_HASH_VERSION]: hashVersion });
    const classRef = ((live.applied.spec as { template?: { spec?: { nodeClassRef?: { name: string } } } }).template?.spec?.nodeClassRef)?.name;
    const nodeClass = classRef === undefined ? undefined : this.api.get('EC2NodeClass', classRef);
    const classReady = nodeClass !== undefined && conditionsOf(nodeClass).some((c) => c.type === 'Ready' && c.status === 'True');
    this.setConditions(live, [
      { type: 'ValidationSucceeded', status: 'True', reason: 'ValidationSucceeded' },
      { type: 'NodeClassReady', status: classReady ? 'True' : 'False', reason: classReady ? 'NodeClassReady' : 'NodeClassNotReady' },
      { type: 'Ready', status: classReady ? 'True' : 'False', reason: classReady ? 'Ready' : 'NodeClassNotReady' },
    ]);
    if (!this.seenPools.has(live.name) && classReady) {
      this.seenPools.add(live.name);
      for (let i = 0; i < this.options.initialNodeClaims(live.name); i++) this.launch(live.name, now, now);
    }
  }

  /** Creates a NodeClaim of `pool` with the pool's and its class's current hashes and image, as Karpenter writes it (karpenter-nodeclaim.ts). */
  private launch(pool: string, now: number, initializedAt: number): string {
    const poolLive = this.api.get('NodePool', pool)!;
    const np = this.api.render(poolLive);
    const template = (np.spec as { template: { spec: { nodeClassRef: { group: string; kind: string; name: string }; requirements?: Requirement[]; terminationGracePeriod?: string; expireAfter?: string } } }).template;
    const nodeClass = this.api.get('EC2NodeClass', template.spec.nodeClassRef.name)!;
    const name = `${pool}-${(++this.serial).toString(36).padStart(5, '0')}`;
    // The hashes computed now, not read from the annotations (nodeclaimtemplate.go l. 76, provider cloudprovider.go l. 158).
    const versions = HASH_VERSIONS[this.runningVersion()!];
    const hashes = {
      [NODEPOOL_HASH]: this.memo('NodePool', poolLive, nodePoolHash), [NODEPOOL_HASH_VERSION]: versions.nodePool,
      [NODECLASS_HASH]: this.memo('EC2NodeClass', nodeClass, ec2NodeClassHash), [NODECLASS_HASH_VERSION]: versions.ec2NodeClass,
    };
    const requirements = template.spec.requirements ?? [];
    const parts = karpenterNodeClaimParts({
      name,
      nodePool: { name: pool, uid: poolLive.uid, requirements: requirements as NodeSelectorRequirement[], nodeClassRef: template.spec.nodeClassRef, terminationGracePeriod: template.spec.terminationGracePeriod, expireAfter: template.spec.expireAfter },
      hashes, imageID: '', createdAt: new Date(now),
    });
    const labels = { ...parts.metadata.labels };
    // The labels meet the NodePool's In and NotIn requirements, as a launched NodeClaim's do (the sim's drift compares them).
    for (const r of requirements) {
      if (r.operator === 'In' && r.values?.length && !r.values.includes(labels[r.key] ?? '')) labels[r.key] = r.values[0];
      if (r.operator === 'NotIn' && (r.values ?? []).includes(labels[r.key] ?? '')) delete labels[r.key];
    }
    const arch = labels['kubernetes.io/arch'] ?? 'amd64';
    const amis = ((nodeClass.status ?? {}) as { amis?: { id: string; requirements: Requirement[] }[] }).amis ?? [];
    const image = amis.find((a) => a.requirements[0].values?.includes(arch))?.id;
    const { annotations: _hashes, ...metadata } = parts.metadata;
    const live = this.api.apply({ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { ...metadata, labels }, spec: parts.spec });
    this.api.annotate(live, parts.metadata.annotations);
    const { imageID: _image, conditions: _conditions, ...statusBase } = parts.status;
    const grace = template.spec.terminationGracePeriod;
    this.claims.set(name, {
      pool, createdAt: now, initializedAt, nextDriftCheck: now + DRIFT_REQUEUE_MS, node: String(parts.status.nodeName), statusBase,
      ...(grace !== undefined ? { terminationGracePeriodMs: durationMs(grace) } : {}),
    });
    this.writeClaimStatus(live, now, image);
    return name;
  }

  private writeClaimStatus(live: Live, now: number, image?: string): void {
    const state = this.claims.get(live.name)!;
    const initialized = now >= state.initializedAt;
    const written = `${initialized}/${state.driftedSince}`;
    if (image === undefined && state.written === written) return;
    state.written = written;
    const at = (t: number) => new Date(t).toISOString();
    const imageID = image ?? ((live.status ?? {}) as { imageID?: string }).imageID;
    this.api.setStatus(live, {
      ...state.statusBase,
      imageID,
      conditions: [
        { type: 'Launched', status: 'True', lastTransitionTime: at(state.createdAt) },
        { type: 'Registered', status: initialized ? 'True' : 'Unknown', lastTransitionTime: at(initialized ? state.initializedAt : state.createdAt) },
        { type: 'Initialized', status: initialized ? 'True' : 'Unknown', lastTransitionTime: at(initialized ? state.initializedAt : state.createdAt) },
        ...(state.driftedSince !== undefined ? [{ type: 'Drifted', status: 'True', reason: 'Drifted', lastTransitionTime: at(state.driftedSince) }] : []),
      ],
    });
  }

  /** Initialization of replacements, and the end of commands: the candidate deleted once its replacement is initialized, gone once drained. */
  private lifecycle(now: number): void {
    for (const live of this.api.list('NodeClaim')) {
      const state = this.claims.get(live.name);
      if (!state) continue;
      if (live.deletionAt !== undefined) {
        state.drainedAt ??= this.drain(live, state, now);
        if (state.drainedAt !== undefined && now - state.drainedAt >= DRAIN_MS) {
          this.claims.delete(live.name);
          this.api.removeFinalizer(live);
        }
        continue;
      }
      this.writeClaimStatus(live, now);
      if (state.command) {
        const replacement = this.claims.get(state.command.replacement);
        if (replacement && now >= replacement.initializedAt) this.api.delete(live);
      }
    }
  }

  /**
   * One pass of the drain of a deleted NodeClaim's node (terminator.go `Drain`, `DeleteExpiringPods`):
   * evicts what may be evicted, deletes what its termination time says must go, and answers
   * when the node was drained once no pod is left waiting, or undefined while one is.
   */
  private drain(live: Live, state: ClaimState, now: number): number | undefined {
    const terminationAt = state.terminationGracePeriodMs === undefined ? undefined : live.deletionAt! + state.terminationGracePeriodMs;
    if (terminationAt !== undefined) this.api.annotate(live, { [TERMINATION_TIMESTAMP]: new Date(terminationAt).toISOString().replace(/\.\d{3}Z$/, 'Z') });
    let waiting = 0;
    for (const pod of this.podsOn(state.node)) {
      if (isTerminal(pod)) continue;
      const grace = (((pod.applied.spec ?? {}) as { terminationGracePeriodSeconds?: number }).terminationGracePeriodSeconds ?? 30) * 1000;
      const expiring = terminationAt !== undefined && now >= terminationAt - grace;
      if (expiring || (!doNotDisruptActive(pod, now) && this.pdbAllowsEviction(pod))) this.api.delete(pod);
      else waiting++;
    }
    if (waiting > 0) return undefined;
    // Pods evicted at once leave within the minute of the deletion; a pod that waited, when it went.
    return now - live.deletionAt! <= MINUTE ? live.deletionAt! : now;
  }

  /** The pods bound to a node. */
  private podsOn(node: string): Live[] {
    return this.api.list('Pod').filter((p) => ((p.applied.spec ?? {}) as { nodeName?: string }).nodeName === node);
  }

  /**
   * Whether the PodDisruptionBudgets let an evictable pod be evicted: none or one matches it,
   * and that one's `status.disruptionsAllowed` is not 0 (pdb.go `isEvictable` l. 88-130).
   */
  private pdbAllowsEviction(pod: Live): boolean {
    const labels = pod.applied.metadata.labels ?? {};
    const matching = this.api.list('PodDisruptionBudget').filter((b) => b.namespace === pod.namespace
      && Object.entries(((b.applied.spec ?? {}) as { selector?: { matchLabels?: Record<string, string> } }).selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v));
    if (matching.length > 1) return false;
    return matching.every((b) => ((b.status ?? {}) as { disruptionsAllowed?: number }).disruptionsAllowed !== 0);
  }

  /**
   * Why a node's pods make it no disruption candidate (`ValidatePodsDisruptable`), if they do:
   * an active pod with do-not-disrupt, or an evictable one a PodDisruptionBudget keeps.
   */
  private blockingPod(node: string, now: number): string | undefined {
    for (const pod of this.podsOn(node)) {
      if (isTerminal(pod) || pod.deletionAt !== undefined) continue;
      if (doNotDisruptActive(pod, now)) return `pod ${pod.namespace}/${pod.name} has "karpenter.sh/do-not-disrupt" annotation`;
      if (!this.pdbAllowsEviction(pod)) return `pdb prevents pod evictions (pod ${pod.namespace}/${pod.name})`;
    }
    return undefined;
  }

  /** The inputs of the NodeClaims' drift, by NodePool and EC2NodeClass name: hashes, requirements, AMIs (a change is a watch event). */
  private driftInputs(kind: 'NodePool' | 'EC2NodeClass', name: string, memo: Map<string, string>): string {
    const key = `${kind}/${name}`;
    let inputs = memo.get(key);
    if (inputs === undefined) {
      const live = this.api.get(kind, name);
      inputs = live === undefined ? '' : JSON.stringify(kind === 'NodePool'
        ? [live.controllerAnnotations, (live.applied.spec as { template?: { spec?: { requirements?: unknown } } }).template?.spec?.requirements]
        : [live.controllerAnnotations, (live.status as { amis?: unknown } | undefined)?.amis]);
      memo.set(key, inputs);
    }
    return inputs;
  }

  private drift(now: number): void {
    const memo = new Map<string, string>();
    for (const live of this.api.list('NodeClaim')) {
      const state = this.claims.get(live.name);
      if (!state || live.deletionAt !== undefined) continue;
      const className = (live.applied.spec as { nodeClassRef: { name: string } }).nodeClassRef.name;
      const inputs = `${this.driftInputs('NodePool', state.pool, memo)}|${this.driftInputs('EC2NodeClass', className, memo)}`;
      if (now < state.nextDriftCheck && inputs === state.lastInputs) continue;
      state.lastInputs = inputs;
      state.nextDriftCheck = now + DRIFT_REQUEUE_MS;
      const pool = this.api.get('NodePool', state.pool);
      if (!pool) continue;
      const drifted = this.isDrifted(live, pool, this.api.get('EC2NodeClass', className));
      if (drifted && state.driftedSince === undefined) state.driftedSince = now;
      if (!drifted) state.driftedSince = undefined;
      this.writeClaimStatus(live, now);
    }
  }

  private isDrifted(claim: Live, pool: Live, nodeClass: Live | undefined): boolean {
    const a = claim.controllerAnnotations;
    const p = pool.controllerAnnotations;
    if (a[NODEPOOL_HASH] && p[NODEPOOL_HASH] && a[NODEPOOL_HASH_VERSION] === p[NODEPOOL_HASH_VERSION] && a[NODEPOOL_HASH] !== p[NODEPOOL_HASH]) return true;
    const labels = claim.applied.metadata.labels ?? {};
    const requirements = ((pool.applied.spec as { template?: { spec?: { requirements?: Requirement[] } } }).template?.spec?.requirements) ?? [];
    for (const r of requirements) {
      const value = labels[r.key];
      if (value === undefined) continue;
      if (r.operator === 'In' && !(r.values ?? []).includes(value)) return true;
      if (r.operator === 'NotIn' && (r.values ?? []).includes(value)) return true;
    }
    if (!nodeClass) return false;
    const c = nodeClass.controllerAnnotations;
    if (a[NODECLASS_HASH] && c[NODECLASS_HASH] && a[NODECLASS_HASH_VERSION] === c[NODECLASS_HASH_VERSION] && a[NODECLASS_HASH] !== c[NODECLASS_HASH]) return true;
    const amis = ((nodeClass.status ?? {}) as { amis?: { id: string }[] }).amis ?? [];
    const image = ((claim.status ?? {}) as { imageID?: string }).imageID;
    return amis.length > 0 && image !== undefined && !amis.some((ami) => ami.id === image);
  }

  /** One disruption pass: starts at most one drift command; whether it did. */
  private disrupt(now: number): boolean {
    const numNodes = new Map<string, number>();
    const disrupting = new Map<string, number>();
    const candidates: { live: Live; state: ClaimState }[] = [];
    for (const live of this.api.list('NodeClaim')) {
      const state = this.claims.get(live.name);
      if (!state || now < state.initializedAt) continue;
      numNodes.set(state.pool, (numNodes.get(state.pool) ?? 0) + 1);
      if (live.deletionAt !== undefined || state.command) disrupting.set(state.pool, (disrupting.get(state.pool) ?? 0) + 1);
      else if (state.driftedSince !== undefined) candidates.push({ live, state });
    }
    candidates.sort((x, y) => x.state.driftedSince! - y.state.driftedSince! || x.live.name.localeCompare(y.live.name));
    for (const { live, state } of candidates) {
      const pool = this.api.get('NodePool', state.pool);
      if (!pool) continue;
      // NewCandidate: a pod that blocks eviction makes it no candidate, unless it has a terminationGracePeriod (drift is eventual).
      if (state.terminationGracePeriodMs === undefined && this.blockingPod(state.node, now) !== undefined) continue;
      const allowed = this.budgetOf(pool).allowed(now, 'Drifted', numNodes.get(state.pool) ?? 0) - (disrupting.get(state.pool) ?? 0);
      if (allowed <= 0) continue;
      const replacement = this.launch(state.pool, now, now + INITIALIZE_MS);
      state.command = { replacement };
      this.disruptions.push({ at: now, pool: state.pool, nodeClaim: live.name, replacement });
      return true;
    }
    return false;
  }

  private budgetOf(pool: Live): BudgetSimulator {
    const budgets = ((pool.applied.spec as { disruption?: { budgets?: SimBudget[] } }).disruption?.budgets) ?? [{ nodes: '10%' }];
    const key = JSON.stringify(budgets);
    let sim = this.budgets.get(key);
    if (!sim) {
      sim = new BudgetSimulator(budgets, this.options.from, this.options.to);
      this.budgets.set(key, sim);
    }
    return sim;
  }
}

/** The annotation of a deleted NodeClaim's termination time (pkg/apis/v1/labels.go l. 54). */
const TERMINATION_TIMESTAMP = 'karpenter.sh/nodeclaim-termination-timestamp';

/** A Go duration of hours, minutes and seconds (`1h30m`, `90s`) in ms; undefined for anything else. */
function durationMs(text: string): number | undefined {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!m || text === '') return undefined;
  return ((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 1000;
}

/** A pod that has finished (`IsTerminal`, scheduling.go l. 146-148). */
function isTerminal(pod: Live): boolean {
  const phase = ((pod.status ?? {}) as { phase?: string }).phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * `IsDoNotDisruptActive` (scheduling.go l. 205-252): `karpenter.sh/do-not-disrupt` is `"true"`, or a
 * positive duration not yet elapsed since the pod started (no start time: active); anything else
 * is as if absent.
 */
function doNotDisruptActive(pod: Live, now: number): boolean {
  const value = pod.applied.metadata.annotations?.['karpenter.sh/do-not-disrupt'];
  if (value === undefined) return false;
  if (value === 'true') return true;
  const ms = durationMs(value);
  if (ms === undefined || ms <= 0) return false;
  const started = ((pod.status ?? {}) as { startTime?: string }).startTime;
  return started === undefined || now - Date.parse(started) < ms;
}

/** The status conditions of an object. */
export function conditionsOf(live: Live): { readonly type: string; readonly status: string; readonly observedGeneration?: number; readonly reason?: string }[] {
  return ((live.status ?? {}) as { conditions?: { type: string; status: string }[] }).conditions ?? [];
}
