/**
 * A node's allocatable for a pool: the catalog's (a 20Gi volume, the kubelet's defaults)
 * adjusted to the pool's volume and kubelet settings.
 */
import { karpenterCatalog } from '../../src/catalog/catalog';
import { catalogMatcher } from '../../src/catalog/match';
import type { PoolSettings } from '../../src/config/platform';
import { nodeAllocatable } from '../../src/fit/allocatable';
import { nodeClassModel } from '../../src/model/node-class';
import { aCluster, aPool } from '../pool-builders';
import { aContainer, aPodSpec, placeOn, podOf } from './builders';

const type = (name: string) => {
  const t = karpenterCatalog().instanceType(name);
  if (!t) throw new Error(`no ${name} in the catalog`);
  return t;
};
/** The allocatable of a node of type `name` in a pool of these settings: its EC2NodeClass is what fit reads. */
const allocatable = (name: string, settings: Partial<PoolSettings> = {}) => Object.fromEntries(nodeAllocatable(type(name), nodeClassModel(aPool(settings), aCluster())).allocatable);
const volume = (size: string) => ({ ...aPool().settings.volume, size });

describe('a node\'s allocatable for a pool', () => {
  it('is the catalog\'s for a pool with a 20Gi volume and no kubelet settings (what the catalog assumes)', () => {
    for (const name of ['m5.large', 'c7g.xlarge', 'g5.xlarge']) expect(allocatable(name)).toEqual(Object.fromEntries(type(name).allocatable));
  });

  it('takes ephemeral-storage from the pool\'s volume, less 1Gi kube-reserved and the 10% eviction threshold', () => {
    expect(allocatable('m5.large', { volume: volume('100Gi') })['ephemeral-storage']).toBe(100 * 1024 - 1024 - 10 * 1024);
  });

  it('takes ephemeral-storage from Bottlerocket\'s data volume, not its 4Gi OS volume (the EC2NodeClass\'s /dev/xvdb)', () => {
    expect(allocatable('m5.large', { ami: { alias: 'bottlerocket@v1.53.0' }, volume: volume('100Gi') })['ephemeral-storage']).toBe(100 * 1024 - 1024 - 10 * 1024);
  });

  it('takes ephemeral-storage from the instance store with RAID0, for types that have one', () => {
    const gb = 118e9;
    expect(allocatable('m6id.large', { instanceStorePolicy: 'RAID0' })['ephemeral-storage']).toBeCloseTo((gb - 2 ** 30 - Math.ceil(gb / 10)) / 2 ** 20, 6);
    expect(allocatable('m5.large', { instanceStorePolicy: 'RAID0' })['ephemeral-storage']).toBe(17408);
  });

  it('applies kube-reserved and system-reserved cpu and memory, and a memory.available threshold', () => {
    const kubelet = { kubeReserved: { cpu: '200m', memory: '1Gi' }, systemReserved: { memory: '512Mi' }, evictionHard: { 'memory.available': '500Mi' } };
    // m5.large: default kube-reserved 70m cpu and 11 * 29 + 255 = 574Mi memory, eviction 100Mi.
    expect(allocatable('m5.large', { kubelet })).toMatchObject({ cpu: 1930 + 70 - 200, memory: 6903 + 574 - 1024 - 512 + 100 - 500 });
  });

  it('caps pods at maxPods and at podsPerCore per vCPU', () => {
    expect(allocatable('c7g.xlarge', { kubelet: { maxPods: 20 } }).pods).toBe(20);
    expect(allocatable('c7g.xlarge', { kubelet: { podsPerCore: 4 } }).pods).toBe(16);
  });

  it('evaluates CEL expressions (Karpenter 1.15) for the node\'s own type, rounded as the controller rounds them', () => {
    // m5.large: 2 vCPUs, 8192 MiB, 29 pods. maxPods min(20, 29) = 20; kube-reserved cpu 2 * 35 = 70 -> 70m,
    // memory 11 * 20 + 255 = 475 -> 480Mi (up to 16Mi); system-reserved memory 8192 / 64 = 128Mi.
    const kubelet = { maxPods: 'min(20, max_pods)', kubeReserved: { cpu: 'vcpus * 35', memory: '11 * max_pods + 255' }, systemReserved: { memory: 'memory_mib / 64' } } as never;
    expect(allocatable('m5.large', { kubelet })).toMatchObject({ pods: 20, cpu: 1930 + 70 - 70, memory: 6903 + 574 - 480 - 128 + 100 - 100 });
    // c7g.xlarge: 4 vCPUs, 58 pods: the same expressions give another node.
    expect(allocatable('c7g.xlarge', { kubelet }).pods).toBe(20);
    expect(allocatable('c7g.xlarge', { kubelet: { maxPods: 'max_pods - 8' } as never }).pods).toBe(50);
  });

  it('lets a pod that asks for more scratch space than a 20Gi node has fit a pool with a larger volume', () => {
    const pod = podOf(aPodSpec({ containers: [aContainer({ requests: { 'cpu': '1', 'ephemeral-storage': '50Gi' } })] }));
    const open = { dedicated: false, instanceTypes: ['m5.large', 'm5.xlarge'] };
    expect(placeOn(pod, aPool(open), aCluster(), catalogMatcher()))
      .toEqual({ reason: 'requests 50Gi ephemeral-storage: the largest the pool can offer is 17Gi (m5.large)' });
    expect(placeOn(pod, aPool({ ...open, volume: volume('100Gi') }), aCluster(), catalogMatcher())).toMatchObject({ instanceTypes: 2 });
  });
});
