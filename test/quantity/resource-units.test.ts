import { Quantity } from '../../src/quantity/quantity';
import { catalogUnitOf, formatAmount, inCatalogUnits } from '../../src/quantity/resource-units';

const units = (resource: string, value: string | number, rounding: 'up' | 'down' | 'exact' = 'exact') => inCatalogUnits(resource, Quantity.of(value), rounding);

describe('the unit the catalog stores each resource in', () => {
  it.each([
    ['cpu', 'millicores'], ['memory', 'MiB'], ['ephemeral-storage', 'MiB'], ['hugepages-2Mi', 'MiB'], ['hugepages-1Gi', 'MiB'],
    ['pods', 'count'], ['nvidia.com/gpu', 'count'], ['nodes', 'count'],
  ])('%s is stored in %s', (resource, unit) => {
    expect(catalogUnitOf(resource)).toBe(unit);
  });
});

describe('quantities in the catalog\'s units', () => {
  it.each([
    ['cpu', '500m', 500], ['cpu', '2', 2000], ['cpu', 0.5, 500], ['cpu', '0.1', 100], ['cpu', '1.25', 1250],
    ['cpu', '1e1', 10000], ['cpu', '.5', 500],
    ['memory', '1Gi', 1024], ['memory', '1.5Gi', 1536], ['memory', '512Mi', 512], ['memory', '1024Ki', 1],
    ['memory', '1G', 1e9 / 2 ** 20], ['memory', 1073741824, 1024], ['memory', '1E3', 1000 / 2 ** 20],
    ['ephemeral-storage', '20Gi', 20480], ['ephemeral-storage', '100Gi', 102400], ['hugepages-2Mi', '4Mi', 4],
    ['nvidia.com/gpu', 1, 1], ['nvidia.com/gpu', '2', 2], ['pods', '1k', 1000],
  ] as const)('%s %s is %s', (resource, value, expected) => {
    expect(units(resource, value)).toBeCloseTo(expected, 9);
  });

  it('rounds as asked: cpu 0.0001 is 1 millicore up (as the API server stores it), 0 down', () => {
    expect(units('cpu', '0.0001', 'up')).toBe(1);
    expect(units('cpu', '0.0001', 'down')).toBe(0);
    // 1G = 10^9 bytes = 953.674… MiB
    expect(units('memory', '1G', 'up')).toBe(954);
    expect(units('memory', '1G', 'down')).toBe(953);
  });
});

describe('amounts as people read them', () => {
  it.each([
    ['cpu', 2000, 'up', '2'], ['cpu', 31850, 'down', '31850m'],
    ['memory', 4096, 'up', '4Gi'], ['memory', 512, 'up', '512Mi'], ['memory', 355262, 'down', '346.93Gi'],
    ['memory', 1e9 / 2 ** 20, 'up', '953.68Mi'], ['memory', 1e9 / 2 ** 20, 'down', '953.67Mi'],
    ['nvidia.com/gpu', 1, 'up', '1'],
  ] as const)('%s %s rounded %s is %s', (resource, amount, round, expected) => {
    expect(formatAmount(resource, amount, round)).toBe(expected);
  });
});
