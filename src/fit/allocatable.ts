/**
 * What a node of a pool can give pods: the catalog's allocatable, which assumes a
 * 20Gi root volume and the kubelet's defaults, adjusted to the pool's EC2NodeClass (the
 * plan's: its volumes, instance store policy and kubelet settings) the way Karpenter's AWS
 * provider computes capacity and overhead.
 */
import type { InstanceType } from '../catalog/catalog';
import { BOTTLEROCKET_DATA_DEVICE, NodeClassModel, resolvedAmiFamily, ROOT_DEVICE } from '../model/node-class';
import { kubeletForType } from '../model/kubelet-expressions';
import { Quantity, UNITS } from '../quantity/quantity';
import { VM_MEMORY_OVERHEAD_DEFAULT } from './resources';

const MIB = 2 ** 20;
const GIB = 2 ** 30;
/** The volume size Karpenter assumes when the EC2NodeClass sizes none (amifamily.DefaultEBS). */
const DEFAULT_VOLUME_SIZE = '20Gi';

/** The kubelet settings that change a node's allocatable. */
type Kubelet = NonNullable<NodeClassModel['kubelet']>;

/** By node class, then instance type (after overlays: a type object of its own), then vmMemoryOverhead. */
const adjusted = new WeakMap<NodeClassModel, WeakMap<InstanceType, Map<number, InstanceType>>>();

/**
 * The instance type with the allocatable a node of this EC2NodeClass has:
 *
 * - ephemeral-storage: capacity is the instance store with `instanceStorePolicy: RAID0`, else
 *   the volume pods use (see ephemeralVolumeSize); less kube-reserved (1Gi unless set),
 *   system-reserved and the `nodefs.available` eviction threshold (10% unless set);
 * - cpu and memory: less the pool's kube-reserved and system-reserved where they replace
 *   or add to Karpenter's defaults, and memory less its `memory.available` threshold
 *   instead of the default 100Mi;
 * - pods: `maxPods`, and at most `podsPerCore` per vCPU.
 *
 * A node class with none of these set (a 20Gi volume) gets the catalog's allocatable unchanged.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/instancetype/types.go (NewInstanceType, ephemeralStorage, kubeReservedResources, evictionThreshold, pods)
 */
export function nodeAllocatable(t: InstanceType, nodeClass: NodeClassModel, vmMemoryOverhead: number = VM_MEMORY_OVERHEAD_DEFAULT): InstanceType {
  let byType = adjusted.get(nodeClass);
  if (!byType) adjusted.set(nodeClass, byType = new WeakMap());
  let byOverhead = byType.get(t);
  if (!byOverhead) byType.set(t, byOverhead = new Map());
  let node = byOverhead.get(vmMemoryOverhead);
  if (!node) byOverhead.set(vmMemoryOverhead, node = adjust(t, nodeClass, vmMemoryOverhead));
  return node;
}

/**
 * The size of the volume that holds pods' ephemeral storage: the block device mapping marked
 * `rootVolume`; else, with a Custom AMI, the last mapping; else the AMI family's ephemeral
 * device (Bottlerocket's data volume `/dev/xvdb`, the root device `/dev/xvda` of the others);
 * else 20Gi.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/instancetype/types.go (ephemeralStorage)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/amifamily/bottlerocket.go (EphemeralBlockDevice)
 */
function ephemeralVolumeSize(nodeClass: NodeClassModel): string {
  const mappings = nodeClass.blockDeviceMappings ?? [];
  const family = resolvedAmiFamily(nodeClass);
  const root = mappings.find((m) => m.rootVolume);
  if (root) return root.ebs?.volumeSize ?? DEFAULT_VOLUME_SIZE;
  if (family === 'Custom') return mappings[mappings.length - 1]?.ebs?.volumeSize ?? DEFAULT_VOLUME_SIZE;
  const device = family === 'Bottlerocket' ? BOTTLEROCKET_DATA_DEVICE : ROOT_DEVICE;
  return mappings.find((m) => m.deviceName === device)?.ebs?.volumeSize ?? DEFAULT_VOLUME_SIZE;
}

function adjust(t: InstanceType, nodeClass: NodeClassModel, vmMemoryOverhead: number): InstanceType {
  // CEL expressions (Karpenter 1.15) as the controller evaluates them for this type.
  const kubelet: Kubelet = kubeletForType(nodeClass.kubelet ?? {}, t);
  const allocatable = new Map(t.allocatable);
  const vcpus = Number(t.labels.get('karpenter.k8s.aws/instance-cpu') ?? 0);

  const nvme = t.labels.get('karpenter.k8s.aws/instance-local-nvme');
  const storage = nodeClass.instanceStorePolicy === 'RAID0' && nvme !== undefined ? Number(nvme) * 1e9 : bytes(ephemeralVolumeSize(nodeClass));
  const ephemeral = storage - (bytesOf(kubelet.kubeReserved?.['ephemeral-storage']) ?? GIB) - (bytesOf(kubelet.systemReserved?.['ephemeral-storage']) ?? 0)
    - threshold(storage, kubelet.evictionHard?.['nodefs.available'] ?? '10%', '10%');
  allocatable.set('ephemeral-storage', ephemeral / MIB);

  const cpu = allocatable.get('cpu');
  if (cpu !== undefined) {
    const defaultReserved = kubeReservedCpu(vcpus * 1000);
    const reserved = millicores(kubelet.kubeReserved?.cpu) ?? defaultReserved;
    allocatable.set('cpu', cpu + defaultReserved - reserved - (millicores(kubelet.systemReserved?.cpu) ?? 0));
  }

  const memory = allocatable.get('memory');
  const pods = allocatable.get('pods');
  if (memory !== undefined) {
    // Karpenter's default kube-reserved memory follows the ENI-limited pod count the catalog lists.
    const defaultReserved = 11 * (pods ?? 0) + 255;
    const reserved = mib(kubelet.kubeReserved?.memory) ?? defaultReserved;
    const capacity = memoryCapacityBytes(t, vmMemoryOverhead);
    const eviction = threshold(capacity, kubelet.evictionHard?.['memory.available'] ?? '100Mi', '100Mi') / MIB;
    allocatable.set('memory', memory + defaultReserved - reserved - (mib(kubelet.systemReserved?.memory) ?? 0) + 100 - eviction);
  }

  // A CEL expression that could not be evaluated for this type was left out: the type's default stands.
  const maxPods = typeof kubelet.maxPods === 'number' ? kubelet.maxPods : undefined;
  if (pods !== undefined && (maxPods !== undefined || kubelet.podsPerCore)) {
    let count = maxPods ?? pods;
    if (kubelet.podsPerCore) count = Math.min(count, kubelet.podsPerCore * vcpus);
    allocatable.set('pods', count);
  }
  return { ...t, allocatable };
}

/**
 * Karpenter's default kube-reserved cpu, in millicores: 6% of the first core, 1% of the
 * second, 0.5% of the third and fourth, 0.25% of the rest.
 */
function kubeReservedCpu(millis: number): number {
  let reserved = 0;
  for (const [start, end, share] of [[0, 1000, 0.06], [1000, 2000, 0.01], [2000, 4000, 0.005], [4000, 2 ** 31, 0.0025]]) {
    if (millis >= start) reserved += Math.trunc((Math.min(millis, end) - start) * share);
  }
  return reserved;
}

/** Memory capacity in bytes: the size, less 64 MiB on Graviton, less the VM overhead (vmMemoryOverheadPercent). */
function memoryCapacityBytes(t: InstanceType, vmMemoryOverhead: number): number {
  const size = Number(t.labels.get('karpenter.k8s.aws/instance-memory') ?? 0) - (t.labels.get('kubernetes.io/arch') === 'arm64' ? 64 : 0);
  return (size - Math.ceil(size * vmMemoryOverhead)) * MIB;
}

/**
 * An eviction threshold in bytes: a percentage of the capacity (rounded up), or a quantity.
 * The CRD's pattern also lets an empty threshold through; it is read as the default.
 */
function threshold(capacity: number, signal: string, fallback: string): number {
  const given = signal === '' ? fallback : signal;
  if (given.endsWith('%')) return Math.ceil((capacity / 100) * Number(given.slice(0, -1)));
  return bytes(given);
}

/** Bytes of a quantity the schema accepted (rounded up: a reservation never shrinks). */
function bytes(quantity: string): number {
  return Number(Quantity.of(quantity).toBytes('up'));
}

function bytesOf(quantity: string | undefined): number | undefined {
  return quantity === undefined ? undefined : bytes(quantity);
}

function mib(quantity: string | undefined): number | undefined {
  return quantity === undefined ? undefined : Quantity.of(quantity).toNumber(UNITS.MiB);
}

function millicores(quantity: string | undefined): number | undefined {
  return quantity === undefined ? undefined : Number(Quantity.of(quantity).toMilli('up'));
}
