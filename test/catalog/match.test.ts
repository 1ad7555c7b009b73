import type { InstanceType } from '../../src/catalog/catalog';
import {
  createMatcher, describe as describeRequirement, fits, largestAllocatable, priceRange, typesThatFit,
} from '../../src/catalog/match';
import { conflictingKeys, keyOperators, type NodeSelectorRequirement } from '../../src/catalog/requirements';
import type { Requirement } from '../../src/model/node-pool';
import { ARCH, aType, CPU, FAMILY, GPU_COUNT, INSTANCE_TYPE, names, req, withMin } from './builders';

const m7gLarge = aType({ name: 'm7g.large', labels: { [ARCH]: 'arm64', [FAMILY]: 'm7g', [CPU]: '2' }, price: 0.0816 });
const m5Large = aType({ name: 'm5.large', labels: { [ARCH]: 'amd64', [FAMILY]: 'm5', [CPU]: '2' }, price: 0.096 });
const c5x4 = aType({
  name: 'c5.4xlarge', labels: { [ARCH]: 'amd64', [FAMILY]: 'c5', [CPU]: '16' },
  allocatable: { cpu: 15890, memory: 27381, pods: 234 }, price: 0.68,
});
const g5xl = aType({
  name: 'g5.xlarge', labels: { [ARCH]: 'amd64', [FAMILY]: 'g5', [CPU]: '4', [GPU_COUNT]: '1' },
  allocatable: { 'cpu': 3920, 'memory': 14162, 'pods': 58, 'nvidia.com/gpu': 1 }, price: 1.006,
});
const p5x48 = aType({
  name: 'p5.48xlarge', labels: { [ARCH]: 'amd64', [FAMILY]: 'p5', [CPU]: '192', [GPU_COUNT]: '8' },
  allocatable: { 'cpu': 191450, 'memory': 1938410, 'pods': 100, 'nvidia.com/gpu': 8, 'vpc.amazonaws.com/efa': 32 },
});
const SLICE: readonly InstanceType[] = [m7gLarge, m5Large, c5x4, g5xl, p5x48];
const WITHOUT_GPUS = ['m7g.large', 'm5.large', 'c5.4xlarge'];

const admitted = (...requirements: NodeSelectorRequirement[]) => names(createMatcher(SLICE).match(requirements).admitted);
const diagnostics = (types: readonly InstanceType[], ...requirements: NodeSelectorRequirement[]) => createMatcher(types).match(requirements).diagnostics;

describe('each operator on a label every type has', () => {
  it.each([
    ['In', [FAMILY, 'In', 'm5', 'c5'], ['m5.large', 'c5.4xlarge']],
    ['NotIn', [FAMILY, 'NotIn', 'm5', 'c5'], ['m7g.large', 'g5.xlarge', 'p5.48xlarge']],
    ['Exists', [FAMILY, 'Exists'], names(SLICE)],
    ['DoesNotExist', [FAMILY, 'DoesNotExist'], []],
    ['Gt (strict)', [CPU, 'Gt', '4'], ['c5.4xlarge', 'p5.48xlarge']],
    ['Gte', [CPU, 'Gte', '4'], ['c5.4xlarge', 'g5.xlarge', 'p5.48xlarge']],
    ['Lt (strict)', [CPU, 'Lt', '4'], ['m7g.large', 'm5.large']],
    ['Lte', [CPU, 'Lte', '4'], ['m7g.large', 'm5.large', 'g5.xlarge']],
  ] as const)('%s', (_, [key, operator, ...values], expected) => {
    expect(admitted(req(key, operator, ...values))).toEqual(expected);
  });
});

describe('each operator on a label some types lack (Karpenter: DoesNotExist on the type)', () => {
  it.each([
    ['In needs the label', [GPU_COUNT, 'In', '1'], ['g5.xlarge']],
    ['NotIn holds without it', [GPU_COUNT, 'NotIn', '1'], [...WITHOUT_GPUS, 'p5.48xlarge']],
    ['Exists needs it', [GPU_COUNT, 'Exists'], ['g5.xlarge', 'p5.48xlarge']],
    ['DoesNotExist holds without it', [GPU_COUNT, 'DoesNotExist'], WITHOUT_GPUS],
    ['Gt needs it', [GPU_COUNT, 'Gt', '0'], ['g5.xlarge', 'p5.48xlarge']],
    ['Gte needs it', [GPU_COUNT, 'Gte', '0'], ['g5.xlarge', 'p5.48xlarge']],
    ['Lt needs it', [GPU_COUNT, 'Lt', '100'], ['g5.xlarge', 'p5.48xlarge']],
    ['Lte needs it', [GPU_COUNT, 'Lte', '100'], ['g5.xlarge', 'p5.48xlarge']],
  ] as const)('%s', (_, [key, operator, ...values], expected) => {
    expect(admitted(req(key, operator, ...values))).toEqual(expected);
  });

  it('treats a well-known label no type has as absent on all of them', () => {
    const key = 'karpenter.k8s.aws/instance-accelerator-count';
    expect(admitted(req(key, 'In', '1'))).toEqual([]);
    expect(admitted(req(key, 'Exists'))).toEqual([]);
    expect(admitted(req(key, 'DoesNotExist'))).toEqual(names(SLICE));
    expect(admitted(req(key, 'NotIn', '1'))).toEqual(names(SLICE));
  });
});

describe('integer comparisons', () => {
  const odd = [
    aType({ name: 'x1.a', labels: { [CPU]: 'two' } }),
    aType({ name: 'x1.b', labels: { [CPU]: '08' } }),
    aType({ name: 'x1.c', labels: { [CPU]: '+3' } }),
    aType({ name: 'x1.d', labels: { [CPU]: '99999999999999999999' } }),
  ];
  const admit = (...r: NodeSelectorRequirement[]) => names(createMatcher(odd).match(r).admitted);

  it('never admits a value that is not an integer, and reads integers as Go\'s strconv.Atoi does', () => {
    expect(admit(req(CPU, 'Gte', '0'))).toEqual(['x1.b', 'x1.c']);
    expect(admit(req(CPU, 'Lt', '5'))).toEqual(['x1.c']);
  });

  it('admits nothing for Gt the largest int64, as Karpenter turns it into DoesNotExist', () => {
    expect(admitted(req(CPU, 'Gt', '9223372036854775807'))).toEqual([]);
    expect(admitted(req(GPU_COUNT, 'Gt', '9223372036854775807'))).toEqual(WITHOUT_GPUS);
  });
});

describe('several requirements on one key', () => {
  it('intersects them', () => {
    expect(admitted(req(CPU, 'Gte', '2'), req(CPU, 'Lte', '4'))).toEqual(['m7g.large', 'm5.large', 'g5.xlarge']);
    expect(admitted(req(FAMILY, 'In', 'm5', 'c5', 'm7g'), req(FAMILY, 'NotIn', 'c5'))).toEqual(['m7g.large', 'm5.large']);
    expect(admitted(req(CPU, 'In', '2', '16', '192'), req(CPU, 'Gt', '2'))).toEqual(['c5.4xlarge', 'p5.48xlarge']);
    expect(admitted(req(CPU, 'Exists'), req(CPU, 'Lt', '3'))).toEqual(['m7g.large', 'm5.large']);
  });

  it('admits only types lacking the label when the intersection has no value left, as Karpenter does', () => {
    // Intersection() leaves an empty value set, which is the DoesNotExist requirement.
    expect(admitted(req(GPU_COUNT, 'In', '1'), req(GPU_COUNT, 'In', '8'))).toEqual(WITHOUT_GPUS);
    expect(admitted(req(GPU_COUNT, 'Gt', '4'), req(GPU_COUNT, 'Lt', '2'))).toEqual(WITHOUT_GPUS);
    expect(admitted(req(GPU_COUNT, 'In', '1'), req(GPU_COUNT, 'Gt', '1'))).toEqual(WITHOUT_GPUS);
    expect(admitted(req(GPU_COUNT, 'NotIn', '1'), req(GPU_COUNT, 'DoesNotExist'))).toEqual(WITHOUT_GPUS);
  });

  it('says so when requirements on one key collapse to DoesNotExist', () => {
    expect(diagnostics(SLICE, req(ARCH, 'In', 'arm64'), req(GPU_COUNT, 'In', '1'), req(GPU_COUNT, 'In', '8'))).toEqual([{
      kind: 'collapsed',
      requirements: [1, 2],
      message: expect.stringMatching(/karpenter.k8s.aws\/instance-gpu-count In \[1\] and karpenter.k8s.aws\/instance-gpu-count In \[8\] leave no .* value, which Karpenter reads as ".* DoesNotExist"/),
    }]);
  });

  it('admits types without the label under NotIn and a bound when a NotIn value is within the bound, as Karpenter does', () => {
    // The intersection is "NotIn [8] >=1": its operator is NotIn, which a type without the label satisfies.
    expect(admitted(req(GPU_COUNT, 'NotIn', '8'), req(GPU_COUNT, 'Gt', '0'))).toEqual([...WITHOUT_GPUS, 'g5.xlarge']);
    // Out of bounds, the NotIn value is dropped: "Exists >=3", which needs the label.
    expect(admitted(req(GPU_COUNT, 'NotIn', '1'), req(GPU_COUNT, 'Gt', '2'))).toEqual(['p5.48xlarge']);
  });
});

describe('keys that are not instance-type labels', () => {
  it.each([
    ['topology.kubernetes.io/zone', 'In', 'eu-west-1a'],
    ['topology.kubernetes.io/region', 'In', 'nowhere-1'],
    ['karpenter.sh/capacity-type', 'In', 'spot'],
    ['example.com/team', 'In', 'web'],
    ['example.com/team', 'Exists'],
    ['example.com/team', 'DoesNotExist'],
  ] as const)('%s %s filters nothing', (key, operator, ...values) => {
    expect(admitted(req(key, operator, ...values))).toEqual(names(SLICE));
    expect(createMatcher(SLICE).isInstanceTypeLabel(key)).toBe(false);
  });

  it('reads deprecated keys under their current names', () => {
    expect(admitted(req('beta.kubernetes.io/arch', 'In', 'arm64'))).toEqual(['m7g.large']);
    expect(admitted(req('beta.kubernetes.io/instance-type', 'In', 'm5.large'), req(INSTANCE_TYPE, 'In', 'm5.large', 'c5.4xlarge'))).toEqual(['m5.large']);
  });

  it('applies the requirements every AWS type has alike: tenancy default or dedicated, no Windows build', () => {
    expect(admitted(req('karpenter.k8s.aws/instance-tenancy', 'In', 'dedicated'))).toEqual(names(SLICE));
    expect(admitted(req('karpenter.k8s.aws/instance-tenancy', 'In', 'host'))).toEqual([]);
    expect(admitted(req('node.kubernetes.io/windows-build', 'DoesNotExist'))).toEqual(names(SLICE));
    expect(admitted(req('node.kubernetes.io/windows-build', 'In', '10.0.20348'))).toEqual([]);
  });
});

describe('label values that look like object keys', () => {
  const odd = [aType({ name: 'x1.large', labels: { [FAMILY]: 'constructor' } }), aType({ name: 'x2.large', labels: { [FAMILY]: 'toString' } })];

  it('are ordinary values', () => {
    const matcher = createMatcher(odd);
    expect(names(matcher.match([req(FAMILY, 'In', 'constructor')]).admitted)).toEqual(['x1.large']);
    expect(names(matcher.match([req(FAMILY, 'NotIn', '__proto__', 'hasOwnProperty')]).admitted)).toEqual(['x1.large', 'x2.large']);
    expect(matcher.match([req(FAMILY, 'In', '__proto__')]).diagnostics).toContainEqual(expect.objectContaining({ kind: 'unknown-value', valueIndex: 0 }));
  });
});

describe('minValues', () => {
  const families = req(FAMILY, 'In', 'm5', 'c5', 'm7g');

  it('is met when the admitted types show that many distinct values', () => {
    expect(createMatcher(SLICE).match([req(ARCH, 'In', 'amd64'), withMin(families, 2)]).minValues).toEqual([
      { requirement: 1, key: FAMILY, minValues: 2, status: 'met', distinct: 2 },
    ]);
  });

  it('fails when the admitted types show fewer, pointing at the requirement', () => {
    const result = createMatcher(SLICE).match([req(ARCH, 'In', 'amd64'), withMin(families, 3)]);
    expect(names(result.admitted)).toEqual(['m5.large', 'c5.4xlarge']);
    expect(result.minValues).toEqual([{ requirement: 1, key: FAMILY, minValues: 3, status: 'unmet', distinct: 2 }]);
    expect(result.diagnostics).toEqual([{
      kind: 'min-values', requirements: [1],
      message: 'karpenter.k8s.aws/instance-family In [m5, c5, m7g] needs 3 distinct karpenter.k8s.aws/instance-family values among the admitted instance types, they have 2 (m5, c5)',
    }]);
  });

  it('counts no value for types that lack the label', () => {
    expect(createMatcher(SLICE).match([withMin(req(GPU_COUNT, 'NotIn', '8'), 2)]).minValues).toEqual([
      { requirement: 0, key: GPU_COUNT, minValues: 2, status: 'unmet', distinct: 1 },
    ]);
  });

  it('takes the largest minValues of a key, from the requirement that sets it', () => {
    const result = createMatcher(SLICE).match([withMin(req(CPU, 'Gte', '2'), 1), withMin(req(CPU, 'Lte', '16'), 3)]);
    expect(result.minValues).toEqual([{ requirement: 1, key: CPU, minValues: 3, status: 'met', distinct: 3 }]);
  });

  it('is unchecked, never failing, on keys that are not instance-type labels', () => {
    const result = createMatcher(SLICE).match([withMin(req('topology.kubernetes.io/zone', 'In', 'a', 'b'), 2), withMin(req('example.com/x', 'Exists'), 1)]);
    expect(result.minValues.map((c) => c.status)).toEqual(['unchecked', 'unchecked']);
    expect(result.diagnostics).toEqual([]);
  });
});

describe('diagnostics', () => {
  it('name the requirement that admits nothing on its own, and why', () => {
    expect(diagnostics(SLICE, req(ARCH, 'In', 'arm64'), req(CPU, 'Gt', '500'))).toEqual([{
      kind: 'admits-nothing', requirements: [1],
      message: 'karpenter.k8s.aws/instance-cpu Gt [500] admits no instance type: no instance type has an integer karpenter.k8s.aws/instance-cpu > 500; the values range from 2 to 192',
    }]);
    expect(diagnostics(SLICE, req(FAMILY, 'DoesNotExist'))).toEqual([expect.objectContaining({
      kind: 'admits-nothing', requirements: [0], message: expect.stringMatching(/every instance type has the label karpenter.k8s.aws\/instance-family$/),
    })]);
  });

  it('name a value no type has, with the closest real value', () => {
    expect(diagnostics(SLICE, req(FAMILY, 'In', 'm5', 'g5x'))).toEqual([{
      kind: 'unknown-value', requirements: [0], valueIndex: 1, suggestion: 'g5',
      message: 'no instance type has karpenter.k8s.aws/instance-family=g5x (did you mean "g5"? known: c5, g5, m5, m7g, p5)',
    }]);
  });

  it('suggest the nearest number for numeric labels and list the values of small sets', () => {
    expect(diagnostics(SLICE, req(CPU, 'In', '15', '2'))[0]).toMatchObject({ valueIndex: 0, suggestion: '16' });
    expect(diagnostics(SLICE, req(ARCH, 'NotIn', 'amd46'))[0]).toMatchObject({
      suggestion: 'amd64', message: 'no instance type has kubernetes.io/arch=amd46 (did you mean "amd64"? known: amd64, arm64)',
    });
  });

  it('say when an instance family is given as an instance type, and its family', () => {
    expect(diagnostics(SLICE, req(FAMILY, 'In', 'p5.48xlarge'))[0]).toEqual({
      kind: 'unknown-value', requirements: [0], valueIndex: 0, suggestion: 'p5',
      message: '"p5.48xlarge" is an instance type, not a karpenter.k8s.aws/instance-family; its karpenter.k8s.aws/instance-family is "p5"',
    });
    expect(diagnostics(SLICE, req(INSTANCE_TYPE, 'In', 'm5'))[0]).toMatchObject({
      message: '"m5" is an instance family, not an instance type (use karpenter.k8s.aws/instance-family)',
    });
  });

  it('report both the unknown value and the requirement when it empties the set', () => {
    expect(diagnostics(SLICE, req(FAMILY, 'In', 'g5x')).map((d) => [d.kind, d.requirements])).toEqual([['unknown-value', [0]], ['admits-nothing', [0]]]);
  });

  it('name the pair that admits nothing together, and why', () => {
    const reqs = [req('karpenter.sh/capacity-type', 'In', 'spot'), req(INSTANCE_TYPE, 'In', 'm7g.large'), req(ARCH, 'In', 'amd64')];
    expect(diagnostics(SLICE, ...reqs)).toEqual([{
      kind: 'conflict', requirements: [1, 2],
      message: 'node.kubernetes.io/instance-type In [m7g.large] and kubernetes.io/arch In [amd64] together admit no instance type: m7g.large has kubernetes.io/arch=arm64',
    }]);
  });

  it('explain a conflict with a label some types lack', () => {
    expect(diagnostics(SLICE, req(ARCH, 'In', 'arm64'), req(GPU_COUNT, 'Exists'))[0].message)
      .toMatch(/together admit no instance type: m7g.large has no karpenter.k8s.aws\/instance-gpu-count label$/);
  });

  it('summarize a conflict when both sides admit many types', () => {
    expect(diagnostics(SLICE, req(ARCH, 'In', 'amd64'), req(FAMILY, 'In', 'm7g', 'm5'), req(CPU, 'Gt', '2'))).toEqual([{
      kind: 'conflict', requirements: [1, 2],
      message: 'karpenter.k8s.aws/instance-family In [m7g, m5] and karpenter.k8s.aws/instance-cpu Gt [2] together admit no instance type: m7g.large has karpenter.k8s.aws/instance-cpu=2, m5.large has karpenter.k8s.aws/instance-cpu=2',
    }]);
    expect(diagnostics(SLICE, req(ARCH, 'In', 'arm64'), req(ARCH, 'NotIn', 'arm64')).map((d) => [d.kind, d.message])).toEqual([
      ['conflict', 'kubernetes.io/arch In [arm64] and kubernetes.io/arch NotIn [arm64] together admit no instance type: no kubernetes.io/arch satisfies both'],
      ['collapsed', expect.stringMatching(/^kubernetes.io\/arch In \[arm64\] and kubernetes.io\/arch NotIn \[arm64\] leave no kubernetes.io\/arch value/)],
    ]);
    const tiny = [1, 2, 3, 4, 5].map((n) => aType({ name: `a1.x${n}`, labels: { [ARCH]: 'arm64', [CPU]: '1' } }));
    expect(diagnostics([...SLICE, ...tiny], req(ARCH, 'In', 'amd64'), req(CPU, 'Lt', '2'))[0].message)
      .toBe('kubernetes.io/arch In [amd64] and karpenter.k8s.aws/instance-cpu Lt [2] together admit no instance type: the 4 instance types kubernetes.io/arch In [amd64] admits have karpenter.k8s.aws/instance-cpu [2, 16, 4, 192]');
    const bare = [1, 2, 3, 4].map((n) => aType({ name: `x9.x${n}` }));
    expect(diagnostics([...SLICE, ...bare], req(CPU, 'Gte', '2'), req(ARCH, 'NotIn', 'arm64', 'amd64'))[0].message)
      .toBe('karpenter.k8s.aws/instance-cpu Gte [2] and kubernetes.io/arch NotIn [arm64, amd64] together admit no instance type: the 4 instance types kubernetes.io/arch NotIn [arm64, amd64] admits have no karpenter.k8s.aws/instance-cpu label');
  });

  it('name three requirements that only together admit nothing', () => {
    const reqs = [req(ARCH, 'In', 'arm64'), req(GPU_COUNT, 'DoesNotExist'), req(CPU, 'Gt', '2'), req('example.com/x', 'Exists')];
    const more = [...SLICE, aType({ name: 'm7g.xlarge', labels: { [ARCH]: 'arm64', [CPU]: '4', [GPU_COUNT]: '1' } })];
    expect(diagnostics(more, ...reqs)).toEqual([{
      kind: 'conflict', requirements: [0, 1, 2],
      message: 'kubernetes.io/arch In [arm64] and karpenter.k8s.aws/instance-gpu-count DoesNotExist and karpenter.k8s.aws/instance-cpu Gt [2] together admit no instance type',
    }]);
  });

  it('are empty for requirements that admit something and use real values', () => {
    expect(diagnostics(SLICE, req(ARCH, 'In', 'amd64'), req(GPU_COUNT, 'Exists'))).toEqual([]);
  });
});

describe('caching', () => {
  it('answers the same list with the same result, and a different list afresh', () => {
    const matcher = createMatcher(SLICE);
    const first = matcher.match([req(ARCH, 'In', 'amd64')]);
    expect(matcher.match([req(ARCH, 'In', 'amd64')])).toBe(first);
    expect(matcher.match([req(ARCH, 'In', 'arm64')])).not.toBe(first);
    expect(matcher.match([withMin(req(ARCH, 'In', 'amd64'), 1)])).not.toBe(first);
    expect(Object.isFrozen(first.admitted)).toBe(true);
  });
});

describe('fit questions', () => {
  const gpus = createMatcher(SLICE).match([req(GPU_COUNT, 'Exists')]).admitted;

  it('finds the admitted types whose allocatable holds the requests', () => {
    expect(names(typesThatFit(gpus, { 'cpu': 2000, 'memory': 8192, 'nvidia.com/gpu': 1 }))).toEqual(['g5.xlarge', 'p5.48xlarge']);
    expect(names(typesThatFit(gpus, { 'nvidia.com/gpu': 2 }))).toEqual(['p5.48xlarge']);
    expect(names(typesThatFit(gpus, { 'nvidia.com/gpu': 16 }))).toEqual([]);
    expect(names(typesThatFit(SLICE, { 'amd.com/gpu': 1 }))).toEqual([]);
    expect(names(typesThatFit(SLICE, { 'amd.com/gpu': 0, 'cpu': 15890 }))).toEqual(['c5.4xlarge', 'p5.48xlarge']);
  });

  it('never fits a type with a negative allocatable, as Karpenter', () => {
    expect(fits(aType({ name: 'x.nano', allocatable: { cpu: 100, memory: -5, pods: 4 } }), { cpu: 10 })).toBe(false);
  });

  it('reads requests keyed like object properties as plain resource names', () => {
    const requests = JSON.parse('{"__proto__": 1, "cpu": 1000}') as Record<string, number>;
    expect(names(typesThatFit(SLICE, requests))).toEqual([]);
  });

  it('gives the largest allocatable of each resource and the type that has it', () => {
    expect(Object.fromEntries(largestAllocatable(gpus))).toEqual({
      'cpu': { amount: 191450, type: 'p5.48xlarge' },
      'memory': { amount: 1938410, type: 'p5.48xlarge' },
      'pods': { amount: 100, type: 'p5.48xlarge' },
      'nvidia.com/gpu': { amount: 8, type: 'p5.48xlarge' },
      'vpc.amazonaws.com/efa': { amount: 32, type: 'p5.48xlarge' },
    });
  });

  it('gives the price range of the types that have a price', () => {
    expect(priceRange(SLICE)).toEqual({ min: 0.0816, minType: 'm7g.large', max: 1.006, maxType: 'g5.xlarge', unpriced: 1 });
    expect(priceRange([p5x48])).toBeUndefined();
  });
});

describe('requirement shape', () => {
  it('accepts the model\'s Requirement as it is', () => {
    const fromModel: Requirement = { key: ARCH, operator: 'In', values: ['arm64'], minValues: 1 };
    expect(admitted(fromModel)).toEqual(['m7g.large']);
  });

  it('is printed the way Karpenter prints requirements', () => {
    expect(describeRequirement(req(FAMILY, 'In', 'a', 'b', 'c', 'd', 'e', 'f', 'g'))).toBe('karpenter.k8s.aws/instance-family In [a, b, c, d, e, and 2 others]');
    expect(describeRequirement(req(GPU_COUNT, 'Exists'))).toBe('karpenter.k8s.aws/instance-gpu-count Exists');
  });
});

describe('requirement lists against each other (Requirements.Intersects)', () => {
  const ZONE = 'topology.kubernetes.io/zone';
  const TIER = 'example.com/tier';

  it.each([
    ['In and In sharing a value', [req(ZONE, 'In', 'a', 'b')], [req(ZONE, 'In', 'b')], []],
    ['In and In sharing none', [req(ZONE, 'In', 'a')], [req(ZONE, 'In', 'b')], [ZONE]],
    ['In and NotIn of all its values', [req(ZONE, 'In', 'a')], [req(ZONE, 'NotIn', 'a')], [ZONE]],
    ['In and Exists', [req(ZONE, 'In', 'a')], [req(ZONE, 'Exists')], []],
    ['In and DoesNotExist', [req(ZONE, 'In', 'a')], [req(ZONE, 'DoesNotExist')], [ZONE]],
    ['NotIn and DoesNotExist: neither needs the label', [req(TIER, 'NotIn', 'a')], [req(TIER, 'DoesNotExist')], []],
    ['DoesNotExist and DoesNotExist', [req(TIER, 'DoesNotExist')], [req(TIER, 'DoesNotExist')], []],
    ['Exists and DoesNotExist', [req(TIER, 'Exists')], [req(TIER, 'DoesNotExist')], [TIER]],
    ['Gt and In below it', [req(CPU, 'Gt', '4')], [req(CPU, 'In', '2')], [CPU]],
    ['Gt and In above it', [req(CPU, 'Gt', '4')], [req(CPU, 'In', '8')], []],
    ['Gt and Lt that cross', [req(CPU, 'Gt', '8')], [req(CPU, 'Lt', '4')], [CPU]],
    ['a key only one side has', [req(ZONE, 'In', 'a')], [req(TIER, 'In', 'x')], []],
    ['a deprecated key, normalized', [req('kubernetes.io/arch', 'In', 'amd64')], [req('beta.kubernetes.io/arch', 'In', 'arm64')], [ARCH]],
    ['one side intersected first: In [a, b] and NotIn [b] against In [b]', [req(ZONE, 'In', 'b')], [req(ZONE, 'In', 'a', 'b'), req(ZONE, 'NotIn', 'b')], [ZONE]],
  ] as const)('%s', (_, existing, incoming, expected) => {
    expect(conflictingKeys(existing, incoming)).toEqual(expected);
  });

  it('keyOperators adds up each key: In [a] and NotIn [a] leave DoesNotExist; bounds are Exists', () => {
    expect(keyOperators([req(TIER, 'In', 'a'), req(TIER, 'NotIn', 'a'), req(CPU, 'Gt', '2'), req(ZONE, 'NotIn', 'x')])).toEqual(new Map([
      [TIER, 'DoesNotExist'], [CPU, 'Exists'], [ZONE, 'NotIn'],
    ]));
  });
});
