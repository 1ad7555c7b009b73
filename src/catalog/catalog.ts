/**
 * The instance types Karpenter knows, as plain data: labels, allocatable and
 * on-demand price of each type, from the release the catalog was generated for.
 */
import { CATALOG_FORMAT, type CatalogData, type ResourceUnit } from './generate';
import bundled from './instance-types.json';

/**
 * One instance type as Karpenter sees it.
 * @see https://karpenter.sh/docs/reference/instance-types/
 */
export interface InstanceType {
  /** The EC2 instance type, e.g. "m7g.large". */
  readonly name: string;
  /** Its well-known labels; a label it lacks is absent (Karpenter: `DoesNotExist`). */
  readonly labels: ReadonlyMap<string, string>;
  /**
   * What pods can request after Karpenter's overhead, by resource: cpu in
   * millicores, memory and ephemeral-storage in MiB, everything else counted.
   * Resources it has none of are absent.
   */
  readonly allocatable: ReadonlyMap<string, number>;
  /** On-demand price per hour in USD. @default - unknown (the price list has no entry) */
  readonly price?: number;
}

/** The instance types of one Karpenter release, with lookups. */
export interface Catalog {
  /** The Karpenter release, e.g. "1.14.1". */
  readonly karpenterVersion: string;
  /** Paths of the sources in aws/karpenter-provider-aws at that release. */
  readonly sources: { readonly instanceTypes: string; readonly pricing: string };
  /** When the price list was generated, e.g. "2026-07-06T14:20:29Z". */
  readonly pricingGeneratedAt: string;
  /** The region of the prices, e.g. "us-east-1". */
  readonly pricingRegion: string;
  /** What the allocatable amounts assume, as the source states it (AMI family, block devices). */
  readonly assumptions: readonly string[];
  /** Every instance type, in the source's order (family, then size). */
  readonly types: readonly InstanceType[];
  /** Every label key some instance type has, sorted. */
  readonly labelKeys: readonly string[];
  /** The unit of each allocatable resource. */
  readonly resourceUnits: ReadonlyMap<string, ResourceUnit>;
  /** The instance type of that name, if Karpenter knows it. */
  instanceType(name: string): InstanceType | undefined;
  /**
   * Every value a label has on some instance type (e.g. every instance family),
   * integers in numeric order, other values in code-point order; empty for a key no type has.
   */
  labelValues(key: string): readonly string[];
}

let karpenter: Catalog | undefined;

/** The catalog committed in `src/catalog/instance-types.json`, built on first use. */
export function karpenterCatalog(): Catalog {
  karpenter ??= catalogFromData(bundled as unknown as CatalogData);
  return karpenter;
}

/** A {@link Catalog} over generated catalog data; throws when the data's layout is not this code's. */
export function catalogFromData(data: CatalogData): Catalog {
  checkLayout(data);
  const types = data.types.map(([name, labels, allocatable, price]): InstanceType => ({
    name,
    labels: new Map(pairs(data.labelKeys, labels)),
    allocatable: new Map(pairs(data.resourceKeys, allocatable).filter(([, amount]) => amount !== 0)),
    ...(price === null ? {} : { price }),
  }));
  const byName = new Map(types.map((t) => [t.name, t]));
  const valuesByKey = new Map<string, readonly string[]>();
  return {
    karpenterVersion: data.karpenterVersion,
    sources: data.sources,
    pricingGeneratedAt: data.pricingGeneratedAt,
    pricingRegion: data.pricingRegion,
    assumptions: data.assumptions,
    types,
    labelKeys: data.labelKeys,
    resourceUnits: new Map(data.resourceKeys.map((k, i) => [k, data.resourceUnits[i]])),
    instanceType: (name) => byName.get(name),
    labelValues(key) {
      let values = valuesByKey.get(key);
      if (!values) valuesByKey.set(key, values = distinctLabelValues(types, key));
      return values;
    },
  };
}

/** The distinct values of a label over some types, integers in numeric order first, then the rest by code point. */
export function distinctLabelValues(types: readonly InstanceType[], key: string): string[] {
  const values = new Set<string>();
  for (const t of types) {
    const v = t.labels.get(key);
    if (v !== undefined) values.add(v);
  }
  return [...values].sort(compareLabelValues);
}

function compareLabelValues(a: string, b: string): number {
  const numeric = /^[0-9]+$/;
  if (numeric.test(a) && numeric.test(b)) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  if (numeric.test(a) !== numeric.test(b)) return numeric.test(a) ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function pairs<T>(keys: readonly string[], values: readonly (T | null)[]): [string, T][] {
  const out: [string, T][] = [];
  keys.forEach((key, i) => {
    const value = values[i];
    if (value !== null && value !== undefined) out.push([key, value]);
  });
  return out;
}

function checkLayout(data: CatalogData): void {
  if (data.format !== CATALOG_FORMAT) {
    throw new Error(`instance-type catalog has format ${data.format}, this code reads format ${CATALOG_FORMAT} (regenerate it: npm run upgrade -- ${data.karpenterVersion})`);
  }
  const bad = data.types.find(([, labels, allocatable]) => labels.length !== data.labelKeys.length || allocatable.length !== data.resourceKeys.length);
  if (bad) throw new Error(`instance-type catalog row ${bad[0]} does not align with its labelKeys and resourceKeys (regenerate it)`);
}
