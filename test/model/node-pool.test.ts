import { nodePoolModel, requirements } from '../../src/model/node-pool';
import { aPool } from '../pool-builders';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { vendoredVersions } from '../../src/release/release';

describe('nodePoolModel', () => {
  it('taints a dedicated pool with dedicated=<team>:NoSchedule before its own taints', () => {
    const model = nodePoolModel(aPool({ taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] }, { team: 'ml', name: 'ml-gpu' }));
    expect(model.taints).toEqual([
      { key: 'dedicated', value: 'ml', effect: 'NoSchedule' },
      { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' },
    ]);
  });

  it('does not taint a pool with dedicated: false', () => {
    expect(nodePoolModel(aPool({ dedicated: false })).taints).toEqual([]);
  });

  it('labels nodes with the team, merged with the pool labels and sorted by key', () => {
    const model = nodePoolModel(aPool({ labels: { zeta: 'z', 'acme.io/tier': 'batch' } }, { team: 'dataops' }));
    expect(Object.entries(model.labels)).toEqual([['acme.io/tier', 'batch'], ['team', 'dataops'], ['zeta', 'z']]);
  });

  it('writes out the disruption defaults the API server would otherwise add', () => {
    const model = nodePoolModel(aPool());
    expect(model).toMatchObject({
      expireAfter: '720h',
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: '1m',
      budgets: [{ nodes: '10%' }],
    });
  });

  it('passes limits and weight through, and leaves them out when unset', () => {
    expect(nodePoolModel(aPool({ limits: { cpu: '10', 'nvidia.com/gpu': '16' }, weight: 50 }))).toMatchObject({ limits: { cpu: '10', 'nvidia.com/gpu': '16' }, weight: 50 });
    const plain = nodePoolModel(aPool());
    expect(plain.limits).toBeUndefined();
    expect(plain.weight).toBeUndefined();
  });
});

describe('consolidateAfter on every vendored release', () => {
  /** The default each release's NodePool CRD gives spec.disruption when it is left out. */
  const crdDefault = (version: string): unknown => {
    const crd = parse(readFileSync(join(__dirname, `../fixtures/karpenter-crds/v${version}/karpenter.sh_nodepools.yaml`), 'utf8')) as {
      spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: { disruption: { default?: unknown } } } } } } }[] };
    };
    return crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.disruption.default;
  };

  // Every release defaults a missing disruption to consolidateAfter 0s (consolidate at once), which
  // is not the generator's 1m: the NodePool always says its own, so no release's default applies.
  it.each(vendoredVersions())('is written explicitly for Karpenter %s, whose CRD would default it to 0s', (version) => {
    expect(crdDefault(version)).toEqual({ consolidateAfter: '0s' });
    expect(nodePoolModel(aPool()).consolidateAfter).toBe('1m');
    expect(nodePoolModel(aPool({ disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '5m', budgets: [] } })).consolidateAfter).toBe('5m');
  });
});

describe('requirements', () => {
  it('always constrains arch and capacity type', () => {
    expect(requirements(aPool())).toEqual([
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
    ]);
  });

  it('turns instance fields into In requirements and bounds into Gt/Gte/Lt/Lte', () => {
    const reqs = requirements(aPool({
      arch: ['amd64', 'arm64'],
      instanceTypes: ['m7g.large'],
      instanceFamilies: ['g5'],
      instanceCategories: ['c', 'm'],
      instanceGeneration: { gt: 5 },
      instanceCpu: { gte: 4, lte: 32 },
      instanceMemoryMiB: { lt: 65536 },
      zones: ['ap-northeast-2a'],
    }));
    expect(reqs).toEqual(expect.arrayContaining([
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] },
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m7g.large'] },
      { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['g5'] },
      { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm'] },
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['5'] },
      { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gte', values: ['4'] },
      { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lte', values: ['32'] },
      { key: 'karpenter.k8s.aws/instance-memory', operator: 'Lt', values: ['65536'] },
      { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['ap-northeast-2a'] },
    ]));
    expect(reqs).toHaveLength(10);
  });

  it('appends the pool requirements as written, minValues included', () => {
    const own = { key: 'karpenter.k8s.aws/instance-size', operator: 'NotIn' as const, values: ['nano', 'micro'] };
    const flexible = { key: 'karpenter.k8s.aws/instance-family', operator: 'In' as const, values: ['m5', 'm6i', 'm7i'], minValues: 2 };
    const reqs = requirements(aPool({ requirements: [own, flexible] }));
    expect(reqs.slice(-2)).toEqual([own, flexible]);
  });
});
