/**
 * Sets of clusters said by what they are, and chosen by `--cluster`, `--stage` and `--group`
 * (contract 8.2): src/model/cluster-sets.ts on a small fleet of three stages and two groups.
 */
import { describeClusters, listOption, selectClusters } from '../../src/model/cluster-sets';

const FLEET = [
  { id: 'dev-1', stage: 1, groups: ['dev'] },
  { id: 'dev-2', stage: 1, groups: ['dev'] },
  { id: 'prod-eu-1', stage: 2, groups: ['prod', 'prod-eu'] },
  { id: 'prod-eu-2', stage: 2, groups: ['prod', 'prod-eu'] },
  { id: 'prod-us-1', stage: 2, groups: ['prod', 'prod-us'] },
  { id: 'lab', stage: null },
];

describe('describeClusters', () => {
  it('names a set by what it is: one cluster, all of them, a group, a stage', () => {
    expect(describeClusters(['lab'], FLEET)).toBe('cluster lab');
    expect(describeClusters(FLEET.map((c) => c.id), FLEET)).toBe('all 6 clusters');
    expect(describeClusters(['prod-eu-1', 'prod-eu-2', 'prod-us-1'], FLEET)).toBe('group prod (3 clusters)');
    expect(describeClusters(['prod-eu-1', 'prod-eu-2'], FLEET)).toBe('group prod-eu (2 clusters)');
  });

  it('else by the smallest group that holds it, or by its first names', () => {
    expect(describeClusters(['prod-eu-1', 'prod-us-1'], FLEET)).toBe("2 of group prod's 3 clusters (prod-eu-1, prod-us-1)");
    expect(describeClusters(['dev-1', 'lab'], FLEET)).toBe('2 clusters (dev-1, lab)');
    const many = Array.from({ length: 9 }, (_, i) => ({ id: `c${i}` }));
    expect(describeClusters(many.slice(0, 8).map((c) => c.id), many)).toBe('8 clusters (c0, c1, c2, c3, c4, c5 … and 2 more)');
  });
});

describe('selectClusters', () => {
  it('chooses the clusters that meet every option given, one of its values each, in fleet order', () => {
    expect(selectClusters(FLEET, { groups: ['prod'] })).toEqual({ ids: ['prod-eu-1', 'prod-eu-2', 'prod-us-1'] });
    expect(selectClusters(FLEET, { groups: ['prod-us', 'dev'] })).toEqual({ ids: ['dev-1', 'dev-2', 'prod-us-1'] });
    expect(selectClusters(FLEET, { stages: ['2'], groups: ['prod-eu'] })).toEqual({ ids: ['prod-eu-1', 'prod-eu-2'] });
    expect(selectClusters(FLEET, { clusters: ['lab', 'dev-2'] })).toEqual({ ids: ['dev-2', 'lab'] });
  });

  it('fails when a value is no cluster, stage or group of the fleet, with the closest one, every problem at once', () => {
    expect(selectClusters(FLEET, { clusters: ['prod-eu1'], stages: ['4', 'x'], groups: ['prd', 'staging'] })).toEqual({
      problems: [
        '--cluster: no cluster "prod-eu1" (did you mean "prod-eu-1"?)',
        '--stage: no cluster is at stage 4 (stages: 1, 2)',
        '--stage: "x" is not a stage number (stages: 1, 2)',
        '--group: no group "prd" (did you mean "prod"?)',
        '--group: no group "staging" (groups: dev, prod, prod-eu, prod-us)',
      ],
    });
  });

  it('fails when the options choose no cluster together, or one is given without a value', () => {
    expect(selectClusters(FLEET, { stages: ['1'], groups: ['prod'] })).toEqual({ problems: ['--stage 1 and --group prod choose no cluster together: each cluster meets every option given'] });
    expect(selectClusters(FLEET, { clusters: listOption(',') })).toEqual({ problems: ['--cluster needs at least one value'] });
  });
});

describe('listOption', () => {
  it('reads a comma-separated option: spaces and empty values dropped; undefined when not given', () => {
    expect(listOption('a, b,,c')).toEqual(['a', 'b', 'c']);
    expect(listOption(undefined)).toBeUndefined();
  });
});
