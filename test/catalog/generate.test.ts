import { buildCatalog, type CatalogData, type CatalogRow, renderCatalog } from '../../src/catalog/generate';
import { aPage, aPriceList, fixture, INSTANCE_TYPE } from './builders';

const fromFixture = () => buildCatalog({
  instanceTypesMd: fixture('instance-types.md'),
  pricingGo: fixture('zz_generated.pricing_aws.go'),
  karpenterVersion: '1.14.1',
});

/** A type's row as a readable object: labels and allocatable by key. */
function row(data: CatalogData, name: string) {
  const found = data.types.find((r) => r[0] === name);
  if (!found) throw new Error(`no row ${name}`);
  const [, labels, allocatable, price] = found;
  return {
    labels: Object.fromEntries(data.labelKeys.map((k, i) => [k, labels[i]]).filter(([, v]) => v !== null)),
    allocatable: Object.fromEntries(data.resourceKeys.map((k, i) => [k, allocatable[i]]).filter(([, v]) => v !== 0)),
    price,
  };
}

const build = (instanceTypesMd: string, pricingGo: string = aPriceList({ 'a1.medium': 0.0255 }), karpenterVersion = '1.14.1') =>
  () => buildCatalog({ instanceTypesMd, pricingGo, karpenterVersion });

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    return (e as Error).message;
  }
  return '';
}

describe('buildCatalog on the vendored 1.14.1 excerpt', () => {
  const data = fromFixture();

  it('stamps the release, the upstream paths and the price list it was built from', () => {
    expect(data).toMatchObject({
      format: 1,
      karpenterVersion: '1.14.1',
      sources: {
        instanceTypes: 'website/content/en/docs/reference/instance-types.md',
        pricing: 'pkg/providers/pricing/zz_generated.pricing_aws.go',
      },
      pricingGeneratedAt: '2026-07-06T14:20:29Z',
      pricingRegion: 'us-east-1',
      assumptions: ['`blockDeviceMappings` are not configured', '`amiFamily` is set to `AL2023`'],
    });
  });

  it('keeps every type in the page order', () => {
    expect(data.types.map((r) => r[0])).toEqual(['a1.medium', 'a1.large', 'g5.xlarge', 'inf2.xlarge', 'm7g.large', 'p5e.48xlarge']);
  });

  it('lists label and resource keys once, sorted, with a unit per resource', () => {
    expect(data.labelKeys).toContain('karpenter.k8s.aws/instance-gpu-count');
    expect([...data.labelKeys].sort()).toEqual(data.labelKeys);
    expect(Object.fromEntries(data.resourceKeys.map((k, i) => [k, data.resourceUnits[i]]))).toEqual({
      'aws.amazon.com/neuron': 'count', 'aws.amazon.com/neuroncore': 'count', 'cpu': 'millicores',
      'ephemeral-storage': 'MiB', 'memory': 'MiB', 'nvidia.com/gpu': 'count', 'pods': 'count',
      'vpc.amazonaws.com/efa': 'count', 'vpc.amazonaws.com/pod-eni': 'count',
    });
  });

  it('converts quantities: cpu to millicores, memory and ephemeral-storage to MiB', () => {
    expect(row(data, 'a1.medium')).toEqual({
      labels: expect.objectContaining({ 'kubernetes.io/arch': 'arm64', 'karpenter.k8s.aws/instance-cpu': '1', [INSTANCE_TYPE]: 'a1.medium' }),
      allocatable: { 'cpu': 940, 'ephemeral-storage': 17408, 'memory': 1392, 'pods': 8, 'vpc.amazonaws.com/pod-eni': 10 },
      price: 0.0255,
    });
  });

  it('keeps GPU, Neuron and EFA counts and the labels only some types have', () => {
    expect(row(data, 'g5.xlarge').allocatable).toMatchObject({ 'nvidia.com/gpu': 1 });
    expect(row(data, 'g5.xlarge').labels).toMatchObject({ 'karpenter.k8s.aws/instance-gpu-name': 'a10g' });
    expect(row(data, 'inf2.xlarge').allocatable).toMatchObject({ 'aws.amazon.com/neuron': 1, 'aws.amazon.com/neuroncore': 2 });
    expect(row(data, 'inf2.xlarge').labels).toMatchObject({ 'karpenter.k8s.aws/instance-accelerator-name': 'inferentia2' });
    expect(row(data, 'p5e.48xlarge').allocatable).toMatchObject({ 'nvidia.com/gpu': 8, 'vpc.amazonaws.com/efa': 32 });
    expect(row(data, 'm7g.large').labels).not.toHaveProperty('karpenter.k8s.aws/instance-gpu-count');
  });

  it('keeps a type the price list does not know, without a price', () => {
    expect(row(data, 'p5e.48xlarge').price).toBeNull();
    expect(row(data, 'g5.xlarge').price).toBe(1.006);
  });
});

describe('renderCatalog', () => {
  const data = fromFixture();
  const text = renderCatalog(data);

  it('writes JSON that reads back as the same data', () => {
    expect(JSON.parse(text)).toEqual(data);
  });

  it('writes the same text every time, one line per instance type', () => {
    expect(renderCatalog(fromFixture())).toBe(text);
    const typeLines = text.split('\n').filter((l) => l.startsWith('    ["'));
    expect(typeLines.map((l) => (JSON.parse(l.replace(/,$/, '')) as CatalogRow)[0])).toEqual(data.types.map((r) => r[0]));
    expect(text.endsWith(']\n}\n')).toBe(true);
  });

  it('writes the header fields in a fixed order whatever the order of the object', () => {
    const { types, ...header } = data;
    const shuffled = Object.fromEntries(Object.entries(header).reverse()) as unknown as Omit<CatalogData, 'types'>;
    expect(renderCatalog({ ...shuffled, types })).toBe(text);
  });
});

describe('buildCatalog quantities', () => {
  it('reads any Kubernetes quantity, rounding bytes and cores down', () => {
    const data = build(aPage([{
      name: 'x1.large',
      resources: { 'cpu': '1.5', 'memory': '1Gi', 'ephemeral-storage': '1000000Ki', 'pods': '1e1', 'hugepages-2Mi': '4Mi' },
    }]))();
    expect(row(data, 'x1.large').allocatable).toEqual({ 'cpu': 1500, 'memory': 1024, 'ephemeral-storage': 976, 'pods': 10, 'hugepages-2Mi': 4 });
  });
});

describe('buildCatalog input shape', () => {
  const good = { name: 'a1.medium' };

  it('fails when the page has no instance types', () => {
    expect(build('# Instance types\n\nnothing here\n')).toThrow(/instance-types.md: no instance types found/);
  });

  it('fails when the page is not the instance-types page at all', () => {
    expect(build('')).toThrow(/no instance types found/);
  });

  it('fails when a type has no cpu, memory or pods', () => {
    expect(build(aPage([{ name: 'a1.medium', resources: { memory: '1392Mi' } }]))).toThrow(/instance-types.md:7: a1.medium: no cpu, pods in its Resources table/);
  });

  it('fails when a type\'s instance-type label differs from its heading', () => {
    expect(build(aPage([{ name: 'a1.medium', labels: { [INSTANCE_TYPE]: 'a1.large' } }])))
      .toThrow(/a1.medium: label node.kubernetes.io\/instance-type is "a1.large", not the heading's "a1.medium"/);
  });

  it('fails when a type has no instance-type label', () => {
    expect(build(aPage([{ name: 'a1.medium', labels: { 'kubernetes.io/arch': 'arm64' } }]))).toThrow(/a1.medium: no node.kubernetes.io\/instance-type label/);
  });

  it('fails when a quantity is not a quantity, or a count is not whole', () => {
    const page = aPage([{ name: 'a1.medium', resources: { 'cpu': 'lots', 'memory': '1392Mi', 'pods': '8', 'nvidia.com/gpu': '0.5' } }]);
    expect(build(page)).toThrow(/resource "cpu" has quantity "lots", expected a Kubernetes quantity/);
    expect(build(page)).toThrow(/resource "nvidia.com\/gpu" has quantity "0.5", expected a whole number/);
  });

  it('fails when a type or a label appears twice', () => {
    expect(build(aPage([good, good]))).toThrow(/a1.medium: instance type appears twice/);
    const page = aPage([good]).replace(' |node.kubernetes.io/instance-type|a1.medium|', ' |kubernetes.io/arch|arm64|\n |kubernetes.io/arch|amd64|\n |node.kubernetes.io/instance-type|a1.medium|');
    expect(build(page)).toThrow(/label "kubernetes.io\/arch" appears twice/);
  });

  it('fails when a line is not part of the layout, naming its line', () => {
    const page = aPage([good]).replace('#### Resources', '#### Resources\nsome prose');
    expect(build(page)).toThrow(/instance-types.md:13: unexpected line "some prose"/);
  });

  it('fails when a table row comes before the Labels heading', () => {
    const page = aPage([good]).replace('#### Labels\n', '');
    expect(build(page)).toThrow(/unexpected line " \|node.kubernetes.io\/instance-type\|a1.medium\|"/);
  });

  it('fails when the price list has no "generated at" line', () => {
    expect(build(aPage([good]), aPriceList({ 'a1.medium': 1 }).replace(/\/\/ generated at.*/, ''))).toThrow(/zz_generated.pricing_aws.go: no "\/\/ generated at <time> for <region>" line/);
  });

  it('fails when the price list has no block for its region', () => {
    const prices = aPriceList({ 'a1.medium': 1 }).replace('for us-east-1', 'for eu-west-1');
    expect(build(aPage([good]), prices)).toThrow(/no price block "eu-west-1": \{ … \}/);
  });

  it('fails when the region block has no prices', () => {
    expect(build(aPage([good]), aPriceList({}).replace('\t\t,\n', ''))).toThrow(/no prices in the "us-east-1" block/);
  });

  it('fails when a price line is not in the expected form', () => {
    const prices = aPriceList({ 'a1.medium': 1 }).replace('"a1.medium": 1.000000', '"a1.medium": price("1")');
    expect(build(aPage([good]), prices)).toThrow(/zz_generated.pricing_aws.go:8: unexpected line/);
  });

  it('fails when the version is not a release number', () => {
    expect(build(aPage([good]), undefined, 'v1.14.1')).toThrow(/karpenter version "v1.14.1" is not a release such as 1.14.1/);
  });

  it('reports every problem at once, one line each', () => {
    const run = build(aPage([{ name: 'a1.medium', resources: {} }, { name: 'a1.large', labels: {} }]), 'package pricing\n', '1.x');
    expect(run).toThrow(Error);
    expect(messageOf(run).split('\n')).toEqual([
      'karpenter version "1.x" is not a release such as 1.14.1',
      'instance-types.md:7: a1.medium: no cpu, memory, pods in its Resources table',
      'instance-types.md:16: a1.large: no node.kubernetes.io/instance-type label',
      'zz_generated.pricing_aws.go: no "// generated at <time> for <region>" line',
    ]);
  });
});
