import type { Condition, Deployment, EC2NodeClass, KarpenterObject, NodeClaim, NodeClaimFacts, NodeOverlay, NodePool } from './objects';
import { DIGEST_ANNOTATION, GateObject, GateSpec, VALUES_DIGEST_ANNOTATION } from './spec';

/**
 * The label Karpenter puts on a NodeClaim: the NodePool it was made for.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/labels.go#L41
 */
export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
/**
 * The NodePool's static-drift hash and its version, on the NodePool and on each NodeClaim.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/labels.go#L52-L53
 */
export const NODEPOOL_HASH = 'karpenter.sh/nodepool-hash';
/** The version of {@link NODEPOOL_HASH}'s algorithm: hashes of different versions are not compared. */
export const NODEPOOL_HASH_VERSION = 'karpenter.sh/nodepool-hash-version';
/**
 * The EC2NodeClass's static-drift hash and its version, on the EC2NodeClass and on each NodeClaim.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/v1/labels.go#L174-L176
 */
export const EC2NODECLASS_HASH = 'karpenter.k8s.aws/ec2nodeclass-hash';
/** The version of {@link EC2NODECLASS_HASH}'s algorithm: hashes of different versions are not compared. */
export const EC2NODECLASS_HASH_VERSION = 'karpenter.k8s.aws/ec2nodeclass-hash-version';
/** The chart's label on the controller Deployment: `<chart>-<version>`. */
export const CHART_LABEL = 'helm.sh/chart';

/** What the gate saw at one look: each object as the API server answered, undefined when it answered 404. */
export interface Snapshot {
  readonly deployment: Deployment | undefined;
  /** By name, every NodePool of the spec. */
  readonly nodePools: Readonly<Record<string, NodePool | undefined>>;
  readonly nodeClasses: Readonly<Record<string, EC2NodeClass | undefined>>;
  readonly nodeOverlays: Readonly<Record<string, NodeOverlay | undefined>>;
  /** What the gate keeps of each NodeClaim labelled with one of the spec's NodePools ({@link nodeClaimFacts}); undefined when the API serves no NodeClaims (404). */
  readonly nodeClaims: readonly NodeClaimFacts[] | undefined;
}

/** The gate's verdict on one look. */
export interface Assessment {
  /** Every condition holds at this look (the gate passes once they have held for the settle time). */
  readonly done: boolean;
  /** One line per unmet condition, for people: `nodeclaim web-x7k2: Drifted (AMIDrift)`. */
  readonly waiting: readonly string[];
}

/**
 * Whether Karpenter is done with this revision, at one look: the controller runs the
 * revision's chart and values, rolled out; every NodePool, EC2NodeClass and NodeOverlay of
 * the revision is applied and Ready at its generation; and no NodeClaim of the pools is
 * drifted or built from an older NodePool or EC2NodeClass. Pure: the same snapshot, the same answer.
 */
export function assess(snapshot: Snapshot, spec: GateSpec): Assessment {
  const waiting = [
    ...spec.nodePools.flatMap((p) => [...objectWaits('nodepool', p, snapshot.nodePools[p.name]), ...nodePoolWaits(p.name, snapshot)]),
    ...spec.nodeClasses.flatMap((c) => [...objectWaits('ec2nodeclass', c, snapshot.nodeClasses[c.name]), ...nodeClassWaits(c.name, snapshot)]),
    ...spec.nodeOverlays.flatMap((o) => objectWaits('nodeoverlay', o, snapshot.nodeOverlays[o.name])),
    ...nodeClaimsWaits(snapshot),
    ...controllerWaits(snapshot.deployment, spec),
  ];
  return { done: waiting.length === 0, waiting };
}

/** The lines of a finished gate: what held, in numbers. */
export function doneSummary(snapshot: Snapshot, spec: GateSpec): string {
  const d = snapshot.deployment;
  const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  return [
    `karpenter ${spec.controller.chart} rolled out (${d?.status?.availableReplicas ?? 0}/${replicasOf(d)} available)`,
    `${count(spec.nodePools.length, 'nodepool')}, ${count(spec.nodeClasses.length, 'ec2nodeclass', 'ec2nodeclasses')}, ${count(spec.nodeOverlays.length, 'nodeoverlay')} applied and observed`,
    `${count(snapshot.nodeClaims?.length ?? 0, 'nodeclaim')}, none drifted or built from an older spec`,
  ].join('; ');
}

const annotations = (o: { readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> } } | undefined) => o?.metadata?.annotations ?? {};
const conditionsOf = (o: KarpenterObject | Deployment | undefined): readonly Condition[] => o?.status?.conditions ?? [];
/** A value for a log line: long digests cut to 12 characters. */
const shown = (v: string | undefined) => (v === undefined ? '(none)' : v.length > 12 ? `${v.slice(0, 12)}…` : v);
/** A condition's reason and message, short. */
const why = (c: Condition) => [c.reason, c.message && (c.message.length > 120 ? `${c.message.slice(0, 120)}…` : c.message)].filter(Boolean).join(': ');

/**
 * The conditions the root `Ready` of each kind depends on, as Karpenter names them: each kind's
 * `StatusConditions()` is `status.NewReadyConditions(<these>)`. The same in every release the
 * project vendors ({@link READY_DEPENDENTS_RELEASES}). An EC2NodeClass also counts
 * `CapacityReservationsReady` while the `ReservedCapacity` feature gate is on; the gate does
 * not know the gate's value, and `Ready` at the current generation already covers it then.
 * `NodeRegistrationHealthy` of a NodePool is not one of them.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/nodepool_status.go#L58-L63
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/v1/ec2nodeclass_status.go#L169-L182
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1alpha1/nodeoverlay_status.go#L39-L43
 */
export const READY_DEPENDENTS: Readonly<Record<'nodepool' | 'ec2nodeclass' | 'nodeoverlay', readonly string[]>> = {
  nodepool: ['ValidationSucceeded', 'NodeClassReady'],
  ec2nodeclass: ['AMIsReady', 'SubnetsReady', 'SecurityGroupsReady', 'InstanceProfileReady', 'ValidationSucceeded', 'PlacementGroupReady'],
  nodeoverlay: ['ValidationSucceeded'],
};
/** The Karpenter releases {@link READY_DEPENDENTS} was read from (kubernetes-sigs/karpenter v1.13.0 and v1.14.1, aws/karpenter-provider-aws v1.13.1 and v1.14.1: the same lists). */
export const READY_DEPENDENTS_RELEASES: readonly string[] = ['1.13.1', '1.14.1'];

/**
 * An object of the revision: there, not being deleted, at this revision's digest (Argo CD
 * applied it), and Ready as Karpenter itself decides it for this generation: `Ready` True at
 * the object's generation, and each condition {@link READY_DEPENDENTS} names for its kind True
 * at that generation too.
 *
 * Karpenter's status conditions are operatorpkg's: setting any condition stamps it with the
 * object's generation and recomputes the root `Ready`, which counts a dependent that is not
 * True, or is of an older generation, as unhealthy; so `Ready` True at the current generation
 * means every dependent was True at it (the dependents are checked too, to say which one
 * waits). Other conditions are not waited on: Karpenter does not promise to restamp them. A
 * condition of a feature gate turned off stays at the generation it was last set at: with
 * `ReservedCapacity` off the EC2NodeClass controller skips its capacity-reservation reconciler,
 * so `CapacityReservationsReady` is never set again, and `StatusConditions()` no longer names it.
 * @see https://github.com/awslabs/operatorpkg/blob/7a138650b2d161ffd4147a2af28203f6f35cda71/status/condition_set.go#L113 (Set: ObservedGeneration = object generation)
 * @see https://github.com/awslabs/operatorpkg/blob/7a138650b2d161ffd4147a2af28203f6f35cda71/status/condition_set.go#L153-L154 (Set recomputes the root)
 * @see https://github.com/awslabs/operatorpkg/blob/7a138650b2d161ffd4147a2af28203f6f35cda71/status/condition_set.go#L231-L281 (recomputeRootCondition, findUnhealthyDependents: False, Unknown or of an older generation)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/controllers/nodeclass/controller.go#L149-L152 (the CapacityReservation reconciler skipped with ReservedCapacity off)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/v1/ec2nodeclass_status.go#L178-L180 (CapacityReservationsReady a dependent only with it on)
 */
function objectWaits(kind: keyof typeof READY_DEPENDENTS, want: GateObject, obj: KarpenterObject | undefined): string[] {
  const name = `${kind} ${want.name}`;
  if (!obj) return [`${name}: not found: Argo CD has not applied this revision yet`];
  if (obj.metadata?.deletionTimestamp) return [`${name}: being deleted`];
  const digest = annotations(obj)[DIGEST_ANNOTATION];
  if (digest !== want.digest) return [`${name}: digest ${shown(digest)}, this revision's is ${shown(want.digest)}: Argo CD has not applied this revision yet`];
  const conditions = conditionsOf(obj);
  if (!conditions.length) return [`${name}: no status conditions: Karpenter has not looked at it yet`];
  const generation = obj.metadata?.generation;
  const named = ['Ready', ...READY_DEPENDENTS[kind]].map((type) => ({ type, condition: conditions.find((c) => c.type === type) }));
  const behind = named.filter((n) => n.condition?.observedGeneration !== generation);
  if (behind.length) {
    const at = behind.map((n) => `${n.type} ${n.condition ? `at ${n.condition.observedGeneration ?? 'none'}` : 'not set'}`).join(', ');
    return [`${name}: Karpenter has not observed generation ${generation ?? '(none)'} yet (${at})`];
  }
  const ready = named[0].condition!;
  if (ready.status !== 'True') return [`${name}: not Ready (${[ready.status, why(ready)].filter(Boolean).join(', ')})`];
  const unhealthy = named.filter((n) => n.condition!.status !== 'True');
  if (unhealthy.length) return [`${name}: Ready, but ${unhealthy.map((n) => `${n.type} ${[n.condition!.status, why(n.condition!)].filter(Boolean).join(', ')}`).join('; ')}`];
  return [];
}

/** The hash annotations Karpenter's hash controller writes on a NodePool of the revision, and the EC2NodeClass it points at. */
function nodePoolWaits(name: string, snapshot: Snapshot): string[] {
  const pool = snapshot.nodePools[name];
  if (!pool || pool.metadata?.deletionTimestamp) return [];
  const waits = missingHashes(`nodepool ${name}`, pool, [NODEPOOL_HASH, NODEPOOL_HASH_VERSION]);
  const ref = pool.spec?.template?.spec?.nodeClassRef?.name;
  if (ref !== undefined && !(ref in snapshot.nodeClasses)) {
    waits.push(`nodepool ${name}: its nodeClassRef names EC2NodeClass ${ref}, which this gate does not watch: list it in the gate's nodeClasses`);
  }
  return waits;
}

/** The hash annotations Karpenter's hash controller writes on an EC2NodeClass of the revision. */
function nodeClassWaits(name: string, snapshot: Snapshot): string[] {
  const nodeClass = snapshot.nodeClasses[name];
  if (!nodeClass || nodeClass.metadata?.deletionTimestamp) return [];
  return missingHashes(`ec2nodeclass ${name}`, nodeClass, [EC2NODECLASS_HASH, EC2NODECLASS_HASH_VERSION]);
}

/**
 * Karpenter's hash controllers write these on every NodePool and EC2NodeClass; without them
 * a NodeClaim cannot be checked for static drift.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/nodepool/hash/controller.go#L72-L75
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/controllers/nodeclass/hash/controller.go#L59-L62
 */
function missingHashes(name: string, obj: KarpenterObject, keys: readonly string[]): string[] {
  const missing = keys.filter((k) => annotations(obj)[k] === undefined);
  return missing.length ? [`${name}: no ${missing.join(', ')} annotation yet: Karpenter has not hashed it`] : [];
}

/**
 * Karpenter's static drift: a NodeClaim whose hash differs from its NodePool's (or
 * EC2NodeClass's) at the same hash version is drifted. Karpenter skips the comparison when
 * any of the four annotations is missing or the versions differ; so does the gate.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/nodeclaim/disruption/drift.go#L154-L168
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/cloudprovider/drift.go#L181-L195
 */
function staleHash(owner: KarpenterObject, claim: NodeClaimFacts, hashKey: string, versionKey: string): { claim: string; owner: string } | undefined {
  const o = annotations(owner);
  const c = claim.hashes;
  if (o[hashKey] === undefined || o[versionKey] === undefined || c[hashKey] === undefined || c[versionKey] === undefined) return undefined;
  if (o[versionKey] !== c[versionKey]) return undefined;
  return o[hashKey] === c[hashKey] ? undefined : { claim: c[hashKey], owner: o[hashKey] };
}

/**
 * What the gate keeps of a NodeClaim as the API server served it: the one place it reads a
 * NodeClaim (its label {@link NODEPOOL_LABEL}, the four hash annotations, `Drifted`).
 */
export function nodeClaimFacts(claim: NodeClaim): NodeClaimFacts {
  const meta = claim.metadata ?? {};
  const all = meta.annotations ?? {};
  const hashes = Object.fromEntries([NODEPOOL_HASH, NODEPOOL_HASH_VERSION, EC2NODECLASS_HASH, EC2NODECLASS_HASH_VERSION].filter((k) => all[k] !== undefined).map((k) => [k, all[k]]));
  const drifted = conditionsOf(claim).find((c) => c.type === 'Drifted' && c.status === 'True');
  const pool = meta.labels?.[NODEPOOL_LABEL];
  return {
    name: meta.name ?? '(unnamed)',
    deleting: meta.deletionTimestamp !== undefined,
    ...(pool !== undefined ? { pool } : {}),
    hashes,
    ...(drifted ? { drifted: drifted.reason !== undefined ? { reason: drifted.reason } : {} } : {}),
  };
}

/**
 * Every NodeClaim of the revision's pools: not built from an older NodePool or EC2NodeClass
 * and not `Drifted`. A drifted or stale NodeClaim blocks while it is being deleted too (its
 * node still runs); one that is gone does not.
 *
 * The EC2NodeClass a NodeClaim is compared with is the one its NodePool points at, as the
 * AWS provider resolves it.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/cloudprovider/cloudprovider.go#L267-L294 (IsDrifted: NodePool, then its nodeClassRef)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/cloudprovider/cloudprovider.go#L362-L373 (resolveNodeClassFromNodePool)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/nodeclaim/disruption/drift.go#L76-L82 (Drifted set True with the reason)
 */
function nodeClaimsWaits(snapshot: Snapshot): string[] {
  if (snapshot.nodeClaims === undefined) return ['nodeclaims: the API server serves no karpenter.sh/v1 NodeClaims (404): are Karpenter\'s CRDs installed?'];
  return snapshot.nodeClaims.flatMap((claim) => {
    const name = `nodeclaim ${claim.name}${claim.deleting ? ' (being deleted)' : ''}`;
    const pool = claim.pool === undefined ? undefined : snapshot.nodePools[claim.pool];
    const waits: string[] = [];
    if (claim.drifted) waits.push(`${name}: Drifted (${claim.drifted.reason ?? 'no reason'})`);
    if (pool) {
      const stale = staleHash(pool, claim, NODEPOOL_HASH, NODEPOOL_HASH_VERSION);
      if (stale) waits.push(`${name}: built from an older NodePool ${claim.pool} (${NODEPOOL_HASH} ${shown(stale.claim)}, the NodePool's ${shown(stale.owner)}): Karpenter will drift it`);
      const className = pool.spec?.template?.spec?.nodeClassRef?.name;
      const nodeClass = className === undefined ? undefined : snapshot.nodeClasses[className];
      const staleClass = nodeClass && staleHash(nodeClass, claim, EC2NODECLASS_HASH, EC2NODECLASS_HASH_VERSION);
      if (staleClass) waits.push(`${name}: built from an older EC2NodeClass ${className} (${EC2NODECLASS_HASH} ${shown(staleClass.claim)}, the EC2NodeClass's ${shown(staleClass.owner)}): Karpenter will drift it`);
    }
    return waits;
  });
}

/** `spec.replicas` of a Deployment; the API server defaults it to 1. */
function replicasOf(d: Deployment | undefined): number {
  return d?.spec?.replicas ?? 1;
}

/**
 * The Karpenter controller: the revision's chart and values, rolled out, every replica
 * updated and available, no old one left. `kubectl rollout status` waits for the same: the
 * spec observed, updated replicas at spec.replicas, no old replicas, all updated ones available;
 * the gate also wants at least one available (a controller scaled to zero does nothing).
 * @see https://github.com/kubernetes/kubectl/blob/v0.34.1/pkg/polymorphichelpers/rollout_status.go#L59-L92 (DeploymentStatusViewer.Status)
 * @see https://github.com/kubernetes/kubectl/blob/v0.34.1/pkg/util/deployment/deployment.go#L56 (TimedOutReason, ProgressDeadlineExceeded)
 */
function controllerWaits(d: Deployment | undefined, spec: GateSpec): string[] {
  const c = spec.controller;
  if (!d) return [`karpenter: deployment ${c.namespace}/${c.deployment} not found`];
  const waits: string[] = [];
  const chart = d.metadata?.labels?.[CHART_LABEL];
  if (chart !== c.chart) waits.push(`karpenter: runs chart ${chart ?? '(no helm.sh/chart label)'}, this revision's is ${c.chart}`);
  const values = d.spec?.template?.metadata?.annotations?.[VALUES_DIGEST_ANNOTATION];
  if (values !== c.valuesDigest) waits.push(`karpenter: values digest ${shown(values)}, this revision's is ${shown(c.valuesDigest)}: Argo CD has not applied this revision yet`);
  const status = d.status ?? {};
  const generation = d.metadata?.generation ?? 0;
  if ((status.observedGeneration ?? 0) < generation) {
    // The counts below describe an older spec until the Deployment controller observes this one.
    waits.push(`karpenter: rollout not observed yet (generation ${generation}, observed ${status.observedGeneration ?? 'none'})`);
    return waits;
  }
  const want = replicasOf(d);
  const updated = status.updatedReplicas ?? 0;
  const replicas = status.replicas ?? 0;
  const available = status.availableReplicas ?? 0;
  if (updated !== want) waits.push(`karpenter: ${updated}/${want} replicas updated`);
  if (replicas > updated) waits.push(`karpenter: ${replicas - updated} old replica(s) pending termination`);
  else if (replicas !== want) waits.push(`karpenter: ${replicas}/${want} replicas`);
  if (available < 1 || available !== want) waits.push(`karpenter: ${available}/${want} replicas available${want === 0 ? ' (scaled to zero: no controller runs)' : ''}`);
  const progressing = conditionsOf(d).find((x) => x.type === 'Progressing');
  // Why the counts above are short; the Deployment controller replaces the reason once the rollout completes.
  if (waits.length && progressing?.reason === 'ProgressDeadlineExceeded') waits.push(`karpenter: rollout exceeded its progress deadline (${why(progressing)})`);
  return waits;
}
