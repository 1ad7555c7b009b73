/**
 * `npm run fit` against a pool's limits, for every kind of limit: a type launches only if
 * its capacity is within every limit. Figures computed by hand from the catalog (1.14.1):
 *
 * | type       | vCPUs | memory size MiB | ephemeral-storage MiB | pods | GPUs |
 * | ---------- | ----- | --------------- | --------------------- | ---- | ---- |
 * | m7g.large  | 2     | 8192            | 17408                 | 29   | -    |
 * | m7g.xlarge | 4     | 16384           | 17408                 | 58   | -    |
 * | g5.xlarge  | 4     | 16384           | 17408                 | 58   | 1    |
 * | g5.2xlarge | 8     | 32768           | 17408                 | 58   | 1    |
 *
 * Memory capacity is the size less 64 MiB on Graviton, less ceil(7.5%) VM overhead:
 * m7g.large 8192 − 64 = 8128, − ceil(609.6) = 7518 MiB = 7883194368 bytes;
 * m7g.xlarge 16384 − 64 = 16320, − ceil(1224) = 15096 MiB.
 */
import { catalogMatcher } from '../../src/catalog/match';
import type { PodConstraints } from '../../src/fit/manifest';
import { aCluster, aKarpenter, aPool } from '../pool-builders';
import { SETTINGS_RULES } from '../../src/release/settings-rules.generated';
import { poolBounds } from '../../src/fit/resources';
import { nodePoolModel } from '../../src/model/node-pool';
import { aContainer, aPodSpec, placeOn, podOf } from './builders';

const matcher = catalogMatcher();
const M7G = ['m7g.large', 'm7g.xlarge'];
const G5 = ['g5.xlarge', 'g5.2xlarge'];
const small: PodConstraints = podOf(aPodSpec({ tolerations: [{ operator: 'Exists' }] }));

function place(instanceTypes: string[], limits: Record<string, string>, pod: PodConstraints = small) {
  const pool = aPool({ dedicated: false, arch: [instanceTypes[0].startsWith('m7g') ? 'arm64' : 'amd64'], instanceTypes, limits });
  return placeOn(pod, pool, aCluster([pool]), matcher);
}
const NONE = (limits: string) => ({ reason: `the pool can launch no node: every instance type it admits is larger than its limits (${limits})` });

describe('a pool\'s limits, kind by kind', () => {
  it('cpu: 3 admits m7g.large (2000m) but not m7g.xlarge (4000m); 1999m admits neither', () => {
    expect(place(M7G, { cpu: '3' })).toMatchObject({ instanceTypes: 1 });
    expect(place(M7G, { cpu: '2' })).toMatchObject({ instanceTypes: 1 });
    expect(place(M7G, { cpu: '1999m' })).toEqual(NONE('cpu=1999m'));
  });

  it('cpu: a pod larger than what the limit leaves is told the largest within the limits (m7g.large allocatable 1930m)', () => {
    const big = podOf(aPodSpec({ containers: [aContainer({ requests: { cpu: '3' } })] }));
    expect(place(M7G, { cpu: '3' }, big)).toEqual({ reason: 'requests 3 cpu: the largest the pool can offer within its limits (cpu=3) is 1930m (m7g.large)' });
  });

  it('memory: 7518Mi admits m7g.large (capacity 7518 MiB), one byte less (7883194367) admits none', () => {
    expect(place(M7G, { memory: '7518Mi' })).toMatchObject({ instanceTypes: 1 });
    expect(place(M7G, { memory: '7883194368' })).toMatchObject({ instanceTypes: 1 });
    expect(place(M7G, { memory: '7883194367' })).toEqual(NONE('memory=7883194367'));
    expect(place(M7G, { memory: '15096Mi' })).toMatchObject({ instanceTypes: 2 });
  });

  it('ephemeral-storage: 17Gi (17408 MiB) admits both, 17407Mi neither', () => {
    expect(place(M7G, { 'ephemeral-storage': '17Gi' })).toMatchObject({ instanceTypes: 2 });
    expect(place(M7G, { 'ephemeral-storage': '17407Mi' })).toEqual(NONE('ephemeral-storage=17407Mi'));
  });

  it('hugepages-2Mi: no type lists hugepages (capacity 0), so even a limit of 0 admits both; a pod asking for them fits none', () => {
    expect(place(M7G, { 'hugepages-2Mi': '0' })).toMatchObject({ instanceTypes: 2 });
    const huge = podOf(aPodSpec({ containers: [aContainer({ requests: { cpu: '100m', memory: '128Mi', 'hugepages-2Mi': '4Mi' } })] }));
    expect(place(M7G, { 'hugepages-2Mi': '1Gi' }, huge)).toEqual({ reason: 'requests 4Mi hugepages-2Mi: no instance type the pool admits has hugepages-2Mi' });
  });

  it('pods: 29 admits m7g.large (29 pods) but not m7g.xlarge (58); 28 admits neither', () => {
    expect(place(M7G, { pods: '29' })).toMatchObject({ instanceTypes: 1 });
    expect(place(M7G, { pods: '28' })).toEqual(NONE('pods=28'));
  });

  it('nodes: 0 allows no node; 1 limits nothing about the types', () => {
    expect(place(M7G, { nodes: '0' })).toEqual({ reason: 'the pool can launch no node: its limits allow none (nodes=0)' });
    expect(place(M7G, { nodes: '1' })).toMatchObject({ instanceTypes: 2 });
  });

  it('nvidia.com/gpu: 1 admits both g5 types (1 GPU each), 0 neither', () => {
    expect(place(G5, { 'nvidia.com/gpu': '1' })).toMatchObject({ instanceTypes: 2 });
    expect(place(G5, { 'nvidia.com/gpu': '0' })).toEqual(NONE('nvidia.com/gpu=0'));
  });
});

describe('the VM memory overhead', () => {
  it('is the release\'s default (0.075 in 1.14.1) when the cluster sets none', () => {
    const pool = aPool({ dedicated: false, arch: ['arm64'], instanceTypes: M7G });
    expect(SETTINGS_RULES.vmMemoryOverheadPercent.controllerDefault).toBe(0.075);
    expect(poolBounds(nodePoolModel(pool), aCluster([pool]), matcher).vmMemoryOverhead).toBe(0.075);
  });

  it('fails when the cluster\'s vmMemoryOverheadPercent is ignored: at 0.1, m7g.large has 8128 − ceil(812.8) = 7315 MiB, within a 7315Mi limit', () => {
    const pool = aPool({ dedicated: false, arch: ['arm64'], instanceTypes: M7G, limits: { memory: '7315Mi' } });
    const tenPercent = aCluster([pool], { karpenter: aKarpenter({}, { settings: { vmMemoryOverheadPercent: 0.1 } }) });
    expect(placeOn(small, pool, tenPercent, matcher)).toMatchObject({ instanceTypes: 1 });
    // At the default 0.075 its capacity is 7518 MiB, over the limit.
    expect(placeOn(small, pool, aCluster([pool]), matcher)).toEqual(NONE('memory=7315Mi'));
  });
});
