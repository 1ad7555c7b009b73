/**
 * Karpenter's objects as the API server holds them, and what Karpenter and Argo CD do to
 * them, for the drift gate's tests. Written from kubernetes-sigs/karpenter v1.14.1 and
 * aws/karpenter-provider-aws v1.14.1 (the file and lines of each rule are given) and
 * awslabs/operatorpkg's status conditions (status/condition_set.go at 7a138650, the newest
 * commit at hand; Karpenter v1.14.1 pins a later pseudo-version, v0.0.0-20260708223819-4da4c353c5fa).
 *
 * - The objects' JSON is shaped by their Go types: NodePool (pkg/apis/v1/nodepool.go l. 320,
 *   spec.template.spec.nodeClassRef l. 240; status: nodepool_status.go l. 35-56), NodeClaim
 *   (nodeclaim.go l. 180, spec.nodeClassRef l. 55; status: nodeclaim_status.go l. 39-72),
 *   NodeOverlay (v1alpha1/nodeoverlay.go l. 108, status: nodeoverlay_status.go l. 30-37),
 *   EC2NodeClass (provider pkg/apis/v1/ec2nodeclass.go l. 575, status: ec2nodeclass_status.go
 *   l. 144-167), their labels and annotations (labels.go of each: l. 41, 52-53; l. 174-176).
 * - A status condition is set by operatorpkg's `ConditionSet.Set` (l. 109-156): stamped with the
 *   object's generation (l. 113); the root `Ready` is then recomputed (l. 232-261): True when
 *   every dependent is True at the current generation, else False when a current dependent is
 *   False, else Unknown (`ReconcilingDependents`). `For` first sets missing dependents Unknown
 *   (`AwaitingReconciliation`, l. 54-64, 206-208).
 * - The hashes are opaque to the gate, which only compares them: the model's is a digest of
 *   the spec (Karpenter's `NodePool.Hash()`, nodepool.go l. 336, hashes the spec's static fields).
 *
 * Upstream: MODELS.karpenter, MODELS.karpenterAws (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import { createHash } from 'node:crypto';

/** A condition as operatorpkg writes it (`metav1.Condition`). */
export interface SimCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** An object as the API server holds it: the fields the tests touch. */
export interface SimObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    generation: number;
    resourceVersion: string;
    creationTimestamp: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: Record<string, unknown>;
  status: { conditions?: SimCondition[]; [field: string]: unknown };
}

/** Root `Ready` and its dependents, per kind (the `StatusConditions()` of each type). */
const DEPENDENTS: Record<string, readonly string[]> = {
  // nodepool_status.go l. 58-63
  NodePool: ['ValidationSucceeded', 'NodeClassReady'],
  // ec2nodeclass_status.go l. 169-182 (CapacityReservationsReady only with the feature on: off here)
  EC2NodeClass: ['AMIsReady', 'SubnetsReady', 'SecurityGroupsReady', 'InstanceProfileReady', 'ValidationSucceeded', 'PlacementGroupReady'],
  // nodeoverlay_status.go l. 39-43
  NodeOverlay: ['ValidationSucceeded'],
  // nodeclaim_status.go l. 74-80
  NodeClaim: ['Launched', 'Registered', 'Initialized'],
};

/** The digest annotation the generator writes (src/gate/spec.ts DIGEST_ANNOTATION). */
const DIGEST = 'karpenter-gitops.io/digest';
export const NODEPOOL_HASH_VERSION = 'v3'; // nodepool.go l. 334
export const EC2NODECLASS_HASH_VERSION = 'v5'; // provider ec2nodeclass.go l. 595
const EPOCH = '2026-01-01T00:00:00Z';
let uids = 0;

function object(apiVersion: string, kind: string, name: string, spec: Record<string, unknown>): SimObject {
  uids += 1;
  return {
    apiVersion,
    kind,
    metadata: { name, uid: `00000000-0000-0000-0000-${String(uids).padStart(12, '0')}`, generation: 1, resourceVersion: String(uids), creationTimestamp: EPOCH },
    spec,
    status: {},
  };
}

/** A NodePool as Argo CD creates it: the generator's digest, no status yet. */
export function aNodePool(name: string, options: { digest?: string; nodeClass?: string } = {}): SimObject {
  const pool = object('karpenter.sh/v1', 'NodePool', name, {
    template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: options.nodeClass ?? name }, requirements: [], expireAfter: '720h' } },
    disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s', budgets: [{ nodes: '10%' }] },
  });
  pool.metadata.annotations = { [DIGEST]: options.digest ?? 'rev1' };
  return pool;
}

/** An EC2NodeClass as Argo CD creates it. */
export function anEC2NodeClass(name: string, options: { digest?: string } = {}): SimObject {
  const nodeClass = object('karpenter.k8s.aws/v1', 'EC2NodeClass', name, {
    role: 'KarpenterNodeRole', amiSelectorTerms: [{ alias: 'al2023@latest' }],
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'c' } }], securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'c' } }],
  });
  nodeClass.metadata.annotations = { [DIGEST]: options.digest ?? 'rev1' };
  return nodeClass;
}

/** A NodeOverlay as Argo CD creates it. */
export function aNodeOverlay(name: string, options: { digest?: string } = {}): SimObject {
  const overlay = object('karpenter.sh/v1alpha1', 'NodeOverlay', name, { requirements: [], priceAdjustment: '-10%' });
  overlay.metadata.annotations = { [DIGEST]: options.digest ?? 'rev1' };
  return overlay;
}

/** The Karpenter controller Deployment as the chart makes it, rolled out. */
export function aDeployment(options: { chart?: string; valuesDigest?: string; replicas?: number; available?: number } = {}): SimObject {
  const replicas = options.replicas ?? 2;
  const d = object('apps/v1', 'Deployment', 'karpenter', {
    replicas,
    template: { metadata: { labels: { 'app.kubernetes.io/name': 'karpenter' }, annotations: { 'karpenter-gitops.io/values-digest': options.valuesDigest ?? 'values1' } } },
  });
  d.metadata.namespace = 'karpenter';
  // charts/karpenter/templates/_helpers.tpl l. 29-37 (provider v1.14.1)
  d.metadata.labels = { 'helm.sh/chart': options.chart ?? 'karpenter-1.14.1', 'app.kubernetes.io/name': 'karpenter', 'app.kubernetes.io/managed-by': 'Helm' };
  d.status = { observedGeneration: 1, replicas, updatedReplicas: replicas, readyReplicas: options.available ?? replicas, availableReplicas: options.available ?? replicas };
  return d;
}

/** The conditions of an object, as `For` leaves them: every dependent and the root present. */
function conditions(obj: SimObject): SimCondition[] {
  obj.status.conditions ??= [];
  for (const type of ['Ready', ...DEPENDENTS[obj.kind]]) {
    if (!obj.status.conditions.some((c) => c.type === type)) {
      obj.status.conditions.push({ type, status: 'Unknown', observedGeneration: obj.metadata.generation, lastTransitionTime: EPOCH, reason: 'AwaitingReconciliation', message: 'object is awaiting reconciliation' });
    }
  }
  return obj.status.conditions;
}

/** operatorpkg `ConditionSet.Set`: the condition at the object's generation, then the root recomputed. */
export function setCondition(obj: SimObject, type: string, status: SimCondition['status'], reason = type, message = ''): void {
  const list = conditions(obj);
  const next: SimCondition = { type, status, observedGeneration: obj.metadata.generation, lastTransitionTime: EPOCH, reason, message };
  const at = list.findIndex((c) => c.type === type);
  if (at >= 0) list[at] = next;
  else list.push(next);
  if (type === 'Ready') return;
  const unhealthy = list.filter((c) => DEPENDENTS[obj.kind].includes(c.type) && (c.status !== 'True' || c.observedGeneration !== obj.metadata.generation));
  const root = list.findIndex((c) => c.type === 'Ready');
  const rootStatus = !unhealthy.length ? 'True' : unhealthy.some((c) => c.status === 'False' && c.observedGeneration === obj.metadata.generation) ? 'False' : 'Unknown';
  list[root] = {
    type: 'Ready', status: rootStatus, observedGeneration: obj.metadata.generation, lastTransitionTime: EPOCH,
    reason: rootStatus === 'True' ? 'Ready' : rootStatus === 'Unknown' ? 'ReconcilingDependents' : 'UnhealthyDependents',
    message: unhealthy.map((c) => `${c.type}=${c.status}`).join(', '),
  };
}

/** Clears an independent condition (operatorpkg `Clear`, condition_set.go l. 160-185). */
function clearCondition(obj: SimObject, type: string): void {
  obj.status.conditions = (obj.status.conditions ?? []).filter((c) => c.type !== type);
}

const digestOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

/**
 * Argo CD applies a new revision of an object: the generator's new digest and spec. The API
 * server bumps `metadata.generation` when the spec changes (a custom resource with the status
 * subresource: changes to metadata and status do not).
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#status-subresource
 */
export function argoApplies(obj: SimObject, digest: string, spec: Record<string, unknown> = obj.spec): void {
  obj.metadata.annotations = { ...obj.metadata.annotations, [DIGEST]: digest };
  if (JSON.stringify(spec) !== JSON.stringify(obj.spec)) {
    obj.spec = spec;
    obj.metadata.generation += 1;
  }
}

/**
 * Karpenter reconciles an EC2NodeClass: every dependent condition set True (the nodeclass
 * controller resolves AMIs, subnets, security groups, instance profile; pkg/controllers/nodeclass),
 * the resolved AMIs in status, and the hash controller's annotations
 * (provider pkg/controllers/nodeclass/hash/controller.go l. 59-62).
 */
export function karpenterReconcilesNodeClass(nodeClass: SimObject): void {
  for (const type of DEPENDENTS.EC2NodeClass) setCondition(nodeClass, type, 'True');
  nodeClass.status.amis = [{ id: 'ami-0123456789abcdef0', name: 'al2023', requirements: [] }];
  nodeClass.metadata.annotations = {
    ...nodeClass.metadata.annotations,
    'karpenter.k8s.aws/ec2nodeclass-hash': digestOf(nodeClass.spec),
    'karpenter.k8s.aws/ec2nodeclass-hash-version': EC2NODECLASS_HASH_VERSION,
  };
}

/**
 * Karpenter reconciles a NodePool: ValidationSucceeded (pkg/controllers/nodepool/validation/controller.go
 * l. 66-68), NodeClassReady from its EC2NodeClass's Ready (readiness/controller.go l. 74-102),
 * NodeRegistrationHealthy Unknown on a new generation (registrationhealth/controller.go l. 91-97),
 * and the hash controller's annotations (hash/controller.go l. 72-75).
 */
export function karpenterReconcilesNodePool(pool: SimObject, nodeClass: SimObject | undefined): void {
  setCondition(pool, 'ValidationSucceeded', 'True');
  const classReady = nodeClass?.status.conditions?.find((c) => c.type === 'Ready');
  if (!nodeClass) setCondition(pool, 'NodeClassReady', 'False', 'NodeClassNotFound', 'NodeClass not found on cluster');
  else if (classReady?.status === 'True') setCondition(pool, 'NodeClassReady', 'True');
  else setCondition(pool, 'NodeClassReady', 'False', 'NodeClassReadinessUnknown', 'Node Class Readiness Unknown');
  const health = pool.status.conditions?.find((c) => c.type === 'NodeRegistrationHealthy');
  if (!health || health.observedGeneration !== pool.metadata.generation) setCondition(pool, 'NodeRegistrationHealthy', 'Unknown', 'AwaitingReconciliation', 'object is awaiting reconciliation');
  pool.metadata.annotations = {
    ...pool.metadata.annotations,
    'karpenter.sh/nodepool-hash': digestOf((pool.spec.template as { spec: unknown }).spec),
    'karpenter.sh/nodepool-hash-version': NODEPOOL_HASH_VERSION,
  };
}

/** Karpenter's NodeOverlay controller validates every overlay (pkg/controllers/nodeoverlay/controller.go l. 271-281). */
export function karpenterReconcilesNodeOverlay(overlay: SimObject): void {
  setCondition(overlay, 'ValidationSucceeded', 'True');
}

/**
 * A NodeClaim Karpenter launched for a pool: the pool's label, the pool's hash at launch
 * (provisioning/scheduling/nodeclaimtemplate.go l. 76-77), the EC2NodeClass's hash set by
 * the provider's Create (provider pkg/cloudprovider/cloudprovider.go l. 157-161), launched,
 * registered and initialized.
 */
export function aLaunchedNodeClaim(name: string, pool: SimObject, nodeClass: SimObject): SimObject {
  const claim = object('karpenter.sh/v1', 'NodeClaim', name, {
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: nodeClass.metadata.name },
    requirements: [],
  });
  claim.metadata.labels = { 'karpenter.sh/nodepool': pool.metadata.name, 'node.kubernetes.io/instance-type': 'm7g.large' };
  claim.metadata.annotations = {
    'karpenter.sh/nodepool-hash': pool.metadata.annotations?.['karpenter.sh/nodepool-hash'] ?? '',
    'karpenter.sh/nodepool-hash-version': NODEPOOL_HASH_VERSION,
    'karpenter.k8s.aws/ec2nodeclass-hash': nodeClass.metadata.annotations?.['karpenter.k8s.aws/ec2nodeclass-hash'] ?? '',
    'karpenter.k8s.aws/ec2nodeclass-hash-version': EC2NODECLASS_HASH_VERSION,
  };
  for (const type of DEPENDENTS.NodeClaim) setCondition(claim, type, 'True');
  claim.status.imageID = 'ami-0123456789abcdef0';
  claim.status.providerID = `aws:///eu-west-1a/i-${name}`;
  return claim;
}

/**
 * Karpenter's drift controller on a launched NodeClaim: `Drifted` True with the reason when
 * drifted (nodeclaim/disruption/drift.go l. 76-82), cleared when not (l. 68-75).
 */
export function karpenterMarksDrift(claim: SimObject, reason: string | undefined): void {
  if (reason) setCondition(claim, 'Drifted', 'True', reason, reason);
  else clearCondition(claim, 'Drifted');
}
