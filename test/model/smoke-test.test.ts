import { Quantity } from '../../src/quantity/quantity';
import { inCatalogUnits } from '../../src/quantity/resource-units';

const cpuMillis = (q: string | number) => inCatalogUnits('cpu', Quantity.of(q), 'up');
const memoryMiB = (q: string) => inCatalogUnits('memory', Quantity.of(q), 'up');
import { smokeTestModel, Toleration } from '../../src/model/smoke-test';
import { nodePoolModel, Taint } from '../../src/model/node-pool';
import { aPool } from '../pool-builders';

/** A node of a pool as Karpenter launches it: its labels (with karpenter.sh/nodepool) and taints. */
function nodeOf(pool: ReturnType<typeof aPool>) {
  const np = nodePoolModel(pool);
  return { labels: { ...np.labels, 'karpenter.sh/nodepool': pool.name }, taints: np.taints };
}

/** Whether the scheduler may place the pod on the node: node selector matches and every NoSchedule/NoExecute taint tolerated. */
function fits(test: ReturnType<typeof smokeTestModel>, node: ReturnType<typeof nodeOf>): boolean {
  const selected = Object.entries(test.nodeSelector).every(([k, v]) => (node.labels as Record<string, string>)[k] === v);
  const tolerated = (t: Taint) => test.tolerations.some((tol: Toleration) => tol.key === t.key && tol.effect === t.effect
    && (tol.operator === 'Exists' || tol.value === t.value));
  return selected && node.taints.filter((t) => t.effect !== 'PreferNoSchedule').every(tolerated);
}

describe('smokeTestModel', () => {
  const pools = [
    aPool({}, { name: 'dataops', team: 'dataops' }),
    aPool({ dedicated: false }, { name: 'web', team: 'web' }),
    aPool({ taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }, { key: 'example.com/flag', effect: 'NoExecute' }] }, { name: 'ml-gpu', team: 'ml' }),
  ];

  it('fits each smoke test on its own pool and on no other', () => {
    for (const pool of pools) {
      for (const other of pools) {
        expect([pool.name, other.name, fits(smokeTestModel(pool), nodeOf(other))]).toEqual([pool.name, other.name, pool === other]);
      }
    }
  });

  it('tolerates exactly the pool taints, each with a keyed toleration', () => {
    expect(smokeTestModel(pools[2]).tolerations).toEqual([
      { key: 'dedicated', operator: 'Equal', value: 'ml', effect: 'NoSchedule' },
      { key: 'nvidia.com/gpu', operator: 'Equal', value: 'true', effect: 'NoSchedule' },
      { key: 'example.com/flag', operator: 'Exists', effect: 'NoExecute' },
    ]);
    expect(smokeTestModel(pools[1]).tolerations).toEqual([]);
  });

  it('requests the configured cpu and memory and defaults to 0 replicas', () => {
    expect(smokeTestModel(aPool())).toMatchObject({ replicas: 0, cpuMillis: 1000, memoryMiB: 1024, image: 'public.ecr.aws/eks-distro/kubernetes/pause:3.7' });
    const sized = smokeTestModel(aPool({ smokeTest: { replicas: 2, cpu: '500m', memory: '2Gi', image: 'pause:3.9', resources: {} } }));
    expect(sized).toMatchObject({ replicas: 2, cpuMillis: 500, memoryMiB: 2048, image: 'pause:3.9' });
  });

  it('converts quantities to millicores and MiB', () => {
    expect([cpuMillis('2'), cpuMillis(0.25), cpuMillis('750m')]).toEqual([2000, 250, 750]);
    expect([memoryMiB('512Mi'), memoryMiB('3Gi')]).toEqual([512, 3072]);
  });
});
