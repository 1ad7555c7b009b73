/**
 * A NodeClaim as Karpenter v1.14.1 writes it and the API server serves it, full size: the
 * drift gate's memory tests (test/gate/memory.test.ts) and the rollout simulation's Karpenter
 * (karpenter-sim.ts) list thousands of these, so their size is the point. Written from:
 *
 * - the object: `NodeClaim` (kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodeclaim.go l. 180-189,
 *   spec l. 28-84), its status (nodeclaim_status.go l. 39-72: nodeName, providerID, imageID,
 *   capacity, allocatable, conditions, lastPodEventTime) and its root condition `Ready` over
 *   Launched, Registered and Initialized (l. 74-80);
 * - what the provisioner writes at creation (pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go):
 *   `generateName` `<nodepool>-`, the NodePool as owner (l. 152-168), the hash annotations
 *   (l. 75-78), the labels `karpenter.sh/nodepool` and `karpenter.k8s.aws/ec2nodeclass` (l. 79-82),
 *   and as requirements the NodePool's own plus those labels plus `node.kubernetes.io/instance-type
 *   In` up to `MaxInstanceTypes` (600, l. 50) names ordered by price and `karpenter.sh/capacity-type`
 *   (l. 83-84, 113-127, 148-169), `terminationGracePeriod` and `expireAfter` from the template
 *   (pkg/apis/v1/nodepool.go l. 272-287);
 * - what the AWS provider's Create adds (aws/karpenter-provider-aws v1.14.1 pkg/cloudprovider/cloudprovider.go
 *   l. 156-161, 418-470): a label for every single-valued requirement of the instance type launched
 *   (its well-known labels), zone, zone ID, capacity type and tenancy, capacity and allocatable, the
 *   EC2NodeClass hash annotations and the instance profile (pkg/apis/v1/labels.go l. 167-178);
 * - the finalizer `karpenter.sh/termination` (pkg/apis/v1/labels.go l. 64) and the API server's
 *   `metadata.managedFields`: one entry per manager and subresource, listing every field it set
 *   (https://kubernetes.io/docs/reference/using-api/server-side-apply/#field-management).
 *
 * The instance type is the cheapest the requirements admit in the committed catalog
 * (src/catalog), its allocatable as the catalog says and its capacity from its labels.
 *
 * Upstream: MODELS.karpenter (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import { karpenterCatalog, type InstanceType } from '../../src/catalog/catalog';
import { catalogMatcher } from '../../src/catalog/match';
import type { NodeSelectorRequirement } from '../../src/catalog/requirements';

/** nodeclaimtemplate.go l. 50. */
const MAX_INSTANCE_TYPES = 600;

/** What a NodeClaim is made from: its NodePool and EC2NodeClass, and where and when it launched. */
export interface NodeClaimOrigin {
  readonly name: string;
  readonly nodePool: {
    readonly name: string;
    readonly uid: string;
    /** `spec.template.spec.requirements`. */
    readonly requirements: readonly NodeSelectorRequirement[];
    /** `spec.template.spec.nodeClassRef`. */
    readonly nodeClassRef: { readonly group: string; readonly kind: string; readonly name: string };
    /** `spec.template.spec.terminationGracePeriod`. @default - none */
    readonly terminationGracePeriod?: string;
    /** `spec.template.spec.expireAfter`. @default "720h" */
    readonly expireAfter?: string;
  };
  /** The hash annotations: the NodePool's and the EC2NodeClass's at launch. */
  readonly hashes: Readonly<Record<string, string>>;
  readonly imageID: string;
  readonly createdAt: Date;
  /** @default "eu-west-1a" */
  readonly zone?: string;
  /** Launched, registered and initialized; false while it is still coming up. @default true */
  readonly initialized?: boolean;
  /** `Drifted` True with this reason. @default - not drifted */
  readonly drifted?: string;
}

/** The parts of a NodeClaim: what its creator wrote, and its status. */
export interface NodeClaimParts {
  readonly metadata: Record<string, unknown> & { readonly name: string; readonly labels: Record<string, string>; readonly annotations: Record<string, string> };
  readonly spec: Record<string, unknown>;
  readonly status: Record<string, unknown>;
}

/** The type launched for a set of requirements, and the names written as its options, by requirements. */
const launched = new Map<string, { readonly type: InstanceType; readonly options: readonly string[] }>();

/** The cheapest admitted type and up to 600 admitted names by price (nodeclaimtemplate.go l. 114), or the catalog's first when none is admitted. */
function launchFor(requirements: readonly NodeSelectorRequirement[]): { readonly type: InstanceType; readonly options: readonly string[] } {
  const key = JSON.stringify(requirements);
  let hit = launched.get(key);
  if (!hit) {
    const admitted = catalogMatcher().match(requirements).admitted;
    const byPrice = [...(admitted.length ? admitted : karpenterCatalog().types.slice(0, 1))].sort((a, b) => (a.price ?? Infinity) - (b.price ?? Infinity) || a.name.localeCompare(b.name));
    hit = { type: byPrice[0], options: byPrice.slice(0, MAX_INSTANCE_TYPES).map((t) => t.name) };
    launched.set(key, hit);
  }
  return hit;
}

/** A catalog amount as a quantity: cpu in millicores, memory and storage in MiB, the rest counted. */
function quantity(resource: string, amount: number): string {
  if (resource === 'cpu') return amount % 1000 === 0 ? String(amount / 1000) : `${amount}m`;
  if (resource === 'memory' || resource === 'ephemeral-storage') return `${amount}Mi`;
  return String(amount);
}

/** The fields a manager set, as `fieldsV1` writes them (`f:<name>` per field, `k:` for a list item by key). */
function fieldsOf(value: unknown): unknown {
  if (Array.isArray(value)) return {};
  if (value === null || typeof value !== 'object') return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [`f:${k}`, Array.isArray(v) ? {} : fieldsOf(v)]));
}

/** A NodeClaim as Karpenter writes it (see the file comment), in parts. */
export function karpenterNodeClaimParts(o: NodeClaimOrigin): NodeClaimParts {
  const pool = o.nodePool;
  const { type, options } = launchFor(pool.requirements);
  const zone = o.zone ?? 'eu-west-1a';
  const capacityType = 'on-demand';
  const at = o.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const typeLabels = Object.fromEntries(type.labels);
  const labels: Record<string, string> = {
    ...typeLabels,
    'karpenter.sh/nodepool': pool.name,
    'karpenter.k8s.aws/ec2nodeclass': pool.nodeClassRef.name,
    'topology.kubernetes.io/region': zone.slice(0, -1),
    'topology.kubernetes.io/zone': zone,
    'topology.k8s.aws/zone-id': `euw1-az${zone.charCodeAt(zone.length - 1) - 96}`,
    'karpenter.sh/capacity-type': capacityType,
    'karpenter.k8s.aws/instance-tenancy': 'default',
  };
  // The pool's single-valued In requirements are labels of its NodeClaims too (nodeclaimtemplate.go l. 96-107, 145).
  for (const r of pool.requirements) if (r.operator === 'In' && r.values?.length === 1) labels[r.key] = r.values[0];
  const annotations = { ...o.hashes, 'karpenter.k8s.aws/instance-profile-name': `karpenter-gitops_${pool.nodeClassRef.name}_0123456789abcdef` };
  const requirements = [
    ...pool.requirements,
    { key: 'karpenter.sh/nodepool', operator: 'In', values: [pool.name] },
    { key: 'karpenter.k8s.aws/ec2nodeclass', operator: 'In', values: [pool.nodeClassRef.name] },
    { key: 'node.kubernetes.io/instance-type', operator: 'In', values: options },
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: [capacityType] },
  ];
  const spec = {
    nodeClassRef: pool.nodeClassRef,
    requirements,
    resources: { requests: { cpu: '1750m', memory: '3296Mi', pods: '11' } },
    expireAfter: pool.expireAfter ?? '720h',
    ...(pool.terminationGracePeriod !== undefined ? { terminationGracePeriod: pool.terminationGracePeriod } : {}),
  };
  const allocatable = Object.fromEntries([...type.allocatable].map(([r, n]) => [r, quantity(r, n)]));
  const capacity = {
    ...allocatable,
    cpu: typeLabels['karpenter.k8s.aws/instance-cpu'] ?? allocatable.cpu,
    memory: `${typeLabels['karpenter.k8s.aws/instance-memory'] ?? '0'}Mi`,
    'ephemeral-storage': '20Gi',
  };
  const initialized = o.initialized ?? true;
  const condition = (t: string, status: string, reason = t, message = '') => ({ type: t, status, observedGeneration: 1, lastTransitionTime: at, reason, message });
  const conditions = [
    condition('Launched', 'True'),
    condition('Registered', initialized ? 'True' : 'Unknown', initialized ? 'Registered' : 'AwaitingReconciliation', initialized ? '' : 'object is awaiting reconciliation'),
    condition('Initialized', initialized ? 'True' : 'Unknown', initialized ? 'Initialized' : 'AwaitingReconciliation', initialized ? '' : 'object is awaiting reconciliation'),
    condition('Consolidatable', 'False', 'ConsolidateAfterNotElapsed', 'consolidateAfter has not elapsed'),
    ...(o.drifted ? [condition('Drifted', 'True', o.drifted, o.drifted)] : []),
    condition('Ready', initialized ? 'True' : 'Unknown', initialized ? 'Ready' : 'ReconcilingDependents', initialized ? '' : 'Initialized=Unknown, Registered=Unknown'),
  ];
  const status = {
    nodeName: `ip-10-0-${o.name.length}-${o.name.charCodeAt(o.name.length - 1)}.${zone.slice(0, -1)}.compute.internal`,
    providerID: `aws:///${zone}/i-0${Buffer.from(o.name).toString('hex').padEnd(16, '0').slice(0, 16)}`,
    imageID: o.imageID,
    capacity,
    allocatable,
    conditions,
    lastPodEventTime: at,
  };
  const metadata = {
    name: o.name,
    generateName: `${pool.name}-`,
    finalizers: ['karpenter.sh/termination'],
    ownerReferences: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: pool.name, uid: pool.uid, blockOwnerDeletion: true }],
    labels,
    annotations,
    managedFields: [
      { manager: 'karpenter', operation: 'Update', apiVersion: 'karpenter.sh/v1', time: at, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': fieldsOf({ annotations, finalizers: [], generateName: '', labels, ownerReferences: [] }), 'f:spec': fieldsOf(spec) } },
      { manager: 'karpenter', operation: 'Update', apiVersion: 'karpenter.sh/v1', time: at, fieldsType: 'FieldsV1', fieldsV1: { 'f:status': fieldsOf(status) }, subresource: 'status' },
    ],
  };
  return { metadata, spec, status };
}

/** A NodeClaim as the API server serves it: {@link karpenterNodeClaimParts} with its server-set metadata. */
export function karpenterNodeClaim(o: NodeClaimOrigin, serial: number): Record<string, unknown> {
  const { metadata, spec, status } = karpenterNodeClaimParts(o);
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      ...metadata,
      uid: `4f1c0a3e-7d2b-4c59-9a8e-${serial.toString(16).padStart(12, '0')}`,
      resourceVersion: String(1_000_000 + serial),
      generation: 1,
      creationTimestamp: o.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    },
    spec,
    status,
  };
}
