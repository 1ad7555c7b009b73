import { CHART_VERSION } from '../../src/release/chart-values-keys.generated';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogFromData, karpenterCatalog } from '../../src/catalog/catalog';
import { type CatalogData, renderCatalog } from '../../src/catalog/generate';
import { createMatcher, largestAllocatable, priceRange } from '../../src/catalog/match';
import { ARCH, FAMILY, GPU_COUNT, INSTANCE_TYPE, names, req } from './builders';

const catalog = karpenterCatalog();

describe('the committed catalog', () => {
  it('is the catalog of the Karpenter release in use with us-east-1 on-demand prices', () => {
    expect(catalog).toMatchObject({
      karpenterVersion: CHART_VERSION,
      sources: {
        instanceTypes: 'website/content/en/docs/reference/instance-types.md',
        pricing: 'pkg/providers/pricing/zz_generated.pricing_aws.go',
      },
      pricingGeneratedAt: '2026-07-06T14:20:29Z',
      pricingRegion: 'us-east-1',
    });
    expect(catalog.assumptions).toContain('`amiFamily` is set to `AL2023`');
    expect(catalog.types.length).toBeGreaterThan(1000);
  });

  it('knows m7g.large: arm64, 2 vCPU, its allocatable and price', () => {
    const t = catalog.instanceType('m7g.large');
    expect(t?.labels.get(ARCH)).toBe('arm64');
    expect(t?.labels.get('karpenter.k8s.aws/instance-cpu')).toBe('2');
    expect(t?.labels.get(FAMILY)).toBe('m7g');
    expect(t?.allocatable.get('cpu')).toBeLessThan(2000);
    expect(t?.price).toBe(0.0816);
  });

  it('knows g5.xlarge has one NVIDIA GPU', () => {
    const t = catalog.instanceType('g5.xlarge');
    expect(t?.allocatable.get('nvidia.com/gpu')).toBe(1);
    expect(t?.labels.get(GPU_COUNT)).toBe('1');
  });

  it('keeps types the price list does not know, without a price', () => {
    expect(catalog.instanceType('p5e.48xlarge')).toMatchObject({ name: 'p5e.48xlarge' });
    expect(catalog.instanceType('p5e.48xlarge')?.price).toBeUndefined();
  });

  it('looks up by name, and nothing for unknown or object-like names', () => {
    expect(catalog.instanceType('m5.large')?.name).toBe('m5.large');
    expect(catalog.instanceType('m5.huge')).toBeUndefined();
    expect(catalog.instanceType('constructor')).toBeUndefined();
    expect(catalog.instanceType('__proto__')).toBeUndefined();
  });

  it('lists every value of a label, numbers in numeric order', () => {
    expect(catalog.labelValues(FAMILY)).toEqual(expect.arrayContaining(['m5', 'm7g', 'g6', 'p5']));
    expect(catalog.labelValues(ARCH)).toEqual(['amd64', 'arm64']);
    expect(catalog.labelValues('karpenter.k8s.aws/instance-cpu').slice(0, 4)).toEqual(['1', '2', '4', '8']);
    expect(catalog.labelValues('example.com/nothing')).toEqual([]);
    expect(catalog.labelKeys).toContain(INSTANCE_TYPE);
    expect(catalog.resourceUnits.get('memory')).toBe('MiB');
  });

  it('is the text the generator writes for its own data (regenerating it changes nothing)', () => {
    const text = readFileSync(join(__dirname, '..', '..', 'src', 'catalog', 'instance-types.json'), 'utf8');
    expect(renderCatalog(JSON.parse(text) as CatalogData)).toBe(text);
    expect(text.length).toBeLessThan(1_000_000);
  });

  it('fails when the data has another layout', () => {
    const text = readFileSync(join(__dirname, '..', '..', 'src', 'catalog', 'instance-types.json'), 'utf8');
    const data = JSON.parse(text) as CatalogData;
    expect(() => catalogFromData({ ...data, format: 2 })).toThrow(/instance-type catalog has format 2, this code reads format 1/);
    expect(() => catalogFromData({ ...data, types: [['x.large', [], [], null]] })).toThrow(/row x.large does not align/);
  });
});

describe('the matcher on the committed catalog', () => {
  const matcher = createMatcher(catalog.types);

  it('finds the arm64 GPU types', () => {
    const result = matcher.match([req(ARCH, 'In', 'arm64'), req(GPU_COUNT, 'Exists')]);
    expect(new Set(result.admitted.map((t) => t.labels.get(FAMILY)))).toEqual(new Set(['g5g']));
    expect(priceRange(result.admitted)?.min).toBeGreaterThan(0);
    expect(largestAllocatable(result.admitted).get('nvidia.com/gpu')?.amount).toBe(2);
  });

  it('suggests g6 for the family g6x, and the family of an instance type given as a family', () => {
    const { diagnostics } = matcher.match([req(FAMILY, 'In', 'g6x', 'p5.48xlarge')]);
    expect(diagnostics.filter((d) => d.kind === 'unknown-value').map((d) => [d.valueIndex, d.suggestion])).toEqual([[0, 'g6'], [1, 'p5']]);
    expect(diagnostics[1].message).toBe('"p5.48xlarge" is an instance type, not a karpenter.k8s.aws/instance-family; its karpenter.k8s.aws/instance-family is "p5"');
  });

  it('names the pair when an arm64 type is required on amd64', () => {
    const { admitted, diagnostics } = matcher.match([req(INSTANCE_TYPE, 'In', 'm7g.large'), req(ARCH, 'In', 'amd64')]);
    expect(names(admitted)).toEqual([]);
    expect(diagnostics).toEqual([expect.objectContaining({ kind: 'conflict', requirements: [0, 1], message: expect.stringMatching(/m7g.large has kubernetes.io\/arch=arm64$/) })]);
  });
});
