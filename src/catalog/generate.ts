/**
 * Builds the instance-type catalog from two files of a Karpenter release: the
 * instance-types reference page (labels and allocatable of every type) and the
 * generated on-demand price list. Pure: text in, data out; `npm run upgrade`
 * (src/upgrade/plan.ts) reads and writes the files.
 */
import { Quantity } from '../quantity/quantity';
import { catalogUnitOf, inCatalogUnits, type ResourceUnit } from '../quantity/resource-units';

export type { ResourceUnit } from '../quantity/resource-units';

/** Where the instance-types page lives in aws/karpenter-provider-aws. */
export const INSTANCE_TYPES_PATH = 'website/content/en/docs/reference/instance-types.md';
/** Where the on-demand price list lives in aws/karpenter-provider-aws. */
export const PRICING_PATH = 'pkg/providers/pricing/zz_generated.pricing_aws.go';
/** The layout version of `instance-types.json`; bump it when the layout changes. */
export const CATALOG_FORMAT = 1;

/**
 * One instance type, compact: its name; its label values aligned with
 * {@link CatalogData.labelKeys} (null where the type lacks the label); its
 * allocatable aligned with {@link CatalogData.resourceKeys} (0 where it has none);
 * its on-demand price per hour (null where the price list has none).
 */
export type CatalogRow = readonly [
  name: string,
  labels: readonly (string | null)[],
  allocatable: readonly number[],
  price: number | null,
];

/**
 * The content of `src/catalog/instance-types.json`.
 * @see https://karpenter.sh/docs/reference/instance-types/
 */
export interface CatalogData {
  /** {@link CATALOG_FORMAT} of the generator that wrote it. */
  readonly format: number;
  /** The Karpenter release the two sources come from, e.g. "1.14.1". */
  readonly karpenterVersion: string;
  /** Paths of the two sources in aws/karpenter-provider-aws at that release. */
  readonly sources: { readonly instanceTypes: string; readonly pricing: string };
  /** The price list's "generated at" timestamp, e.g. "2026-07-06T14:20:29Z". */
  readonly pricingGeneratedAt: string;
  /** The region of the prices, e.g. "us-east-1". */
  readonly pricingRegion: string;
  /** The assumptions the instance-types page states (AMI family, block devices). */
  readonly assumptions: readonly string[];
  /** Every label key of the page's Labels tables, sorted. */
  readonly labelKeys: readonly string[];
  /** Every resource of the page's Resources tables, sorted. */
  readonly resourceKeys: readonly string[];
  /** The unit of each resource, aligned with `resourceKeys`. */
  readonly resourceUnits: readonly ResourceUnit[];
  /** The instance types, in the page's order. */
  readonly types: readonly CatalogRow[];
}

/** Input of {@link buildCatalog}. */
export interface BuildCatalogInput {
  /** The text of {@link INSTANCE_TYPES_PATH} at the release. */
  readonly instanceTypesMd: string;
  /** The text of {@link PRICING_PATH} at the release. */
  readonly pricingGo: string;
  /** The release, e.g. "1.14.1" (no leading "v"). */
  readonly karpenterVersion: string;
}

const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';
const REQUIRED_RESOURCES = ['cpu', 'memory', 'pods'];

/**
 * The catalog data of one Karpenter release. Throws one Error listing every
 * problem (one line each) when an input is not in the expected shape, so an
 * upgrade never produces a silently empty or partial catalog.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/hack/docs/instancetypes_gen/main.go (writes the page)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/hack/code/prices_gen/main.go (writes the price list)
 */
export function buildCatalog(input: BuildCatalogInput): CatalogData {
  const problems: string[] = [];
  if (!/^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$/.test(input.karpenterVersion)) {
    problems.push(`karpenter version "${input.karpenterVersion}" is not a release such as 1.14.1`);
  }
  const page = parseInstanceTypesPage(input.instanceTypesMd, problems);
  const pricing = parsePricing(input.pricingGo, problems);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  const labelKeys = sortedUnion(page.types.map((t) => t.labels.keys()));
  const resourceKeys = sortedUnion(page.types.map((t) => t.resources.keys()));
  return {
    format: CATALOG_FORMAT,
    karpenterVersion: input.karpenterVersion,
    sources: { instanceTypes: INSTANCE_TYPES_PATH, pricing: PRICING_PATH },
    pricingGeneratedAt: pricing.generatedAt,
    pricingRegion: pricing.region,
    assumptions: page.assumptions,
    labelKeys,
    resourceKeys,
    resourceUnits: resourceKeys.map(catalogUnitOf),
    types: page.types.map((t): CatalogRow => [
      t.name,
      labelKeys.map((k) => t.labels.get(k) ?? null),
      resourceKeys.map((k) => t.resources.get(k) ?? 0),
      pricing.prices.get(t.name) ?? null,
    ]),
  };
}

/**
 * The committed text of `instance-types.json`: the header pretty-printed, then one
 * line per instance type, so an upgrade's diff shows one line per changed type.
 */
export function renderCatalog(data: CatalogData): string {
  const header = {
    format: data.format,
    karpenterVersion: data.karpenterVersion,
    sources: { instanceTypes: data.sources.instanceTypes, pricing: data.sources.pricing },
    pricingGeneratedAt: data.pricingGeneratedAt,
    pricingRegion: data.pricingRegion,
    assumptions: data.assumptions,
    labelKeys: data.labelKeys,
    resourceKeys: data.resourceKeys,
    resourceUnits: data.resourceUnits,
  };
  const head = JSON.stringify(header, null, 2).replace(/\n}$/, '');
  const rows = data.types.map((row) => `    ${JSON.stringify(row)}`).join(',\n');
  return `${head},\n  "types": [\n${rows}\n  ]\n}\n`;
}

/**
 * An allocatable amount in the catalog's unit, rounded down so an allocatable never
 * promises more than the node has; a count must be whole ("8", not "1.5" or "500m").
 */
function toUnit(resource: string, text: string): number | undefined {
  const q = Quantity.parse(text);
  if (typeof q === 'string') return undefined;
  const amount = inCatalogUnits(resource, q, 'down');
  if (catalogUnitOf(resource) === 'count' && amount !== inCatalogUnits(resource, q, 'up')) return undefined;
  return amount;
}

function sortedUnion(lists: Iterable<string>[]): string[] {
  const all = new Set<string>();
  for (const list of lists) for (const item of list) all.add(item);
  return [...all].sort(byCodePoint);
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// --- instance-types.md ------------------------------------------------------

interface ParsedType {
  readonly name: string;
  readonly line: number;
  readonly labels: Map<string, string>;
  readonly resources: Map<string, number>;
}

interface ParsedPage {
  readonly assumptions: string[];
  readonly types: ParsedType[];
}

type Section = 'intro' | 'family' | 'heading' | 'labels' | 'resources';

const TYPE_HEADING = /^### `([^`]+)`$/;
const FAMILY_HEADING = /^## (\S+) Family$/;
const TABLE_ROW = /^\s*\|([^|]*)\|([^|]*)\|\s*$/;
const TABLE_HEADER = /^\s*\|\s*(Label\s*\|\s*Value|Resource\s*\|\s*Quantity|--\s*\|\s*--)\s*\|\s*$/;

/**
 * Reads the instance-types page: `## <family> Family`, then per type
 * "### `name`", "#### Labels" and "#### Resources", each a two-column table.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/hack/docs/instancetypes_gen/main.go
 */
function parseInstanceTypesPage(text: string, problems: string[]): ParsedPage {
  const page: ParsedPage = { assumptions: [], types: [] };
  const at = (line: number) => `instance-types.md:${line}`;
  let section: Section = 'intro';
  let current: ParsedType | undefined;
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    const n = i + 1;
    const heading = TYPE_HEADING.exec(line);
    if (heading) {
      current = { name: heading[1], line: n, labels: new Map(), resources: new Map() };
      page.types.push(current);
      section = 'heading';
    } else if (FAMILY_HEADING.test(line)) {
      current = undefined;
      section = 'family';
    } else if (section === 'intro') {
      if (line.startsWith('- ')) page.assumptions.push(line.slice(2).trim());
    } else if (line === '#### Labels' && current) {
      section = 'labels';
    } else if (line === '#### Resources' && current) {
      section = 'resources';
    } else if (line.trim() === '' || TABLE_HEADER.test(line)) {
      // Blank lines and table headers carry nothing.
    } else {
      const row = TABLE_ROW.exec(line);
      if (row && current && (section === 'labels' || section === 'resources')) {
        addRow(current, section, { key: row[1].trim(), value: row[2].trim(), where: `${at(n)}: ${current.name}` }, problems);
      } else {
        problems.push(`${at(n)}: unexpected line ${JSON.stringify(line.slice(0, 80))} (expected a "### \`type\`" heading, "#### Labels", "#### Resources" or a "|key|value|" row)`);
      }
    }
  });
  if (page.types.length === 0) {
    problems.push('instance-types.md: no instance types found (expected "### `m5.large`" headings with Labels and Resources tables)');
  }
  checkTypes(page.types, at, problems);
  return page;
}

/** A row of a type's Labels or Resources table, and where it is (for problems). */
interface Row {
  readonly key: string;
  readonly value: string;
  readonly where: string;
}

function addRow(type: ParsedType, section: 'labels' | 'resources', { key, value, where }: Row, problems: string[]): void {
  const what = section === 'labels' ? 'label' : 'resource';
  const target: Map<string, unknown> = section === 'labels' ? type.labels : type.resources;
  if (key === '') {
    problems.push(`${where}: ${what} row without a key`);
  } else if (target.has(key)) {
    problems.push(`${where}: ${what} "${key}" appears twice`);
  } else if (section === 'labels') {
    type.labels.set(key, value);
  } else {
    const unit = catalogUnitOf(key);
    const amount = toUnit(key, value);
    if (amount !== undefined) type.resources.set(key, amount);
    else problems.push(`${where}: resource "${key}" has quantity "${value}", expected ${unit === 'count' ? 'a whole number' : 'a Kubernetes quantity'}`);
  }
}

function checkTypes(types: readonly ParsedType[], at: (line: number) => string, problems: string[]): void {
  const seen = new Set<string>();
  for (const t of types) {
    const where = `${at(t.line)}: ${t.name}`;
    if (seen.has(t.name)) problems.push(`${where}: instance type appears twice`);
    seen.add(t.name);
    const label = t.labels.get(INSTANCE_TYPE_LABEL);
    if (label === undefined) problems.push(`${where}: no ${INSTANCE_TYPE_LABEL} label`);
    else if (label !== t.name) problems.push(`${where}: label ${INSTANCE_TYPE_LABEL} is "${label}", not the heading's "${t.name}"`);
    const missing = REQUIRED_RESOURCES.filter((r) => !t.resources.has(r));
    if (missing.length > 0) problems.push(`${where}: no ${missing.join(', ')} in its Resources table`);
  }
}

// --- zz_generated.pricing_aws.go ---------------------------------------------

interface ParsedPricing {
  readonly generatedAt: string;
  readonly region: string;
  readonly prices: Map<string, number>;
}

const GENERATED_AT = /^\/\/ generated at (\S+) for (\S+)\s*$/m;
const PRICE_ENTRY = /"([^"]+)":\s*([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*,?/g;
const PRICE_LINE = /^\s*("[^"]+":\s*[0-9.eE+-]+\s*,?\s*)+$/;

/**
 * Reads the on-demand prices of the region the file says it was generated for:
 * `// generated at <time> for <region>`, then `"<region>": { "a1.large": 0.051, … },`.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/hack/code/prices_gen/main.go
 */
function parsePricing(text: string, problems: string[]): ParsedPricing {
  const prices = new Map<string, number>();
  const stamp = GENERATED_AT.exec(text);
  if (!stamp) {
    problems.push('zz_generated.pricing_aws.go: no "// generated at <time> for <region>" line');
    return { generatedAt: '', region: '', prices };
  }
  const [, generatedAt, region] = stamp;
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === `${JSON.stringify(region)}: {`);
  if (start < 0) {
    problems.push(`zz_generated.pricing_aws.go: no price block "${region}": { … } for the region of its "generated at" line`);
    return { generatedAt, region, prices };
  }
  for (let i = start + 1; i < lines.length && !/^\s*},?\s*$/.test(lines[i]); i++) {
    readPriceLine(lines[i], i + 1, prices, problems);
  }
  if (prices.size === 0) problems.push(`zz_generated.pricing_aws.go: no prices in the "${region}" block`);
  return { generatedAt, region, prices };
}

function readPriceLine(line: string, n: number, prices: Map<string, number>, problems: string[]): void {
  const trimmed = line.trim();
  if (trimmed === '' || trimmed.startsWith('//')) return;
  if (!PRICE_LINE.test(line)) {
    problems.push(`zz_generated.pricing_aws.go:${n}: unexpected line ${JSON.stringify(trimmed.slice(0, 80))} (expected "type": price entries)`);
    return;
  }
  for (const [, name, price] of line.matchAll(PRICE_ENTRY)) {
    if (prices.has(name)) problems.push(`zz_generated.pricing_aws.go:${n}: ${name} has two prices`);
    prices.set(name, Number(price));
  }
}
