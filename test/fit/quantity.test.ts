import { formatAmount, inCatalogUnits, parseQuantity } from '../../src/fit/quantity';

const units = (resource: string, value: string | number) => {
  const q = parseQuantity(value);
  if (typeof q === 'string') throw new Error(q);
  return inCatalogUnits(resource, q);
};

describe('quantities in the catalog\'s units', () => {
  it.each([
    ['cpu', '500m', 500], ['cpu', '2', 2000], ['cpu', 0.5, 500], ['cpu', '0.1', 100], ['cpu', '1.25', 1250],
    ['cpu', '0.0001', 1], // rounded up to a whole millicore, as the API server stores it
    ['cpu', '1e1', 10000], ['cpu', '.5', 500],
    ['memory', '1Gi', 1024], ['memory', '1.5Gi', 1536], ['memory', '512Mi', 512], ['memory', '1024Ki', 1],
    ['memory', '1G', 1e9 / 2 ** 20], ['memory', 1073741824, 1024], ['memory', '1E3', 1000 / 2 ** 20],
    ['ephemeral-storage', '20Gi', 20480], ['hugepages-2Mi', '4Mi', 4],
    ['nvidia.com/gpu', 1, 1], ['nvidia.com/gpu', '2', 2], ['pods', '1k', 1000],
  ] as const)('%s %s is %s', (resource, value, expected) => {
    expect(units(resource, value)).toBeCloseTo(expected, 9);
  });

  it.each([['abc'], ['1.2.3'], ['5 Gi'], ['1gi'], [''], ['Gi']])('fails on %j, saying what a quantity looks like', (value) => {
    expect(parseQuantity(value)).toBe(`invalid quantity ${JSON.stringify(value)} (e.g. 500m, 2, 1.5Gi)`);
  });

  it('fails on a negative quantity', () => {
    expect(parseQuantity('-1')).toBe('"-1" is negative: requests and limits are at least 0');
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
