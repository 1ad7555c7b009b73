/**
 * Small builders for the catalog tests: hand-picked instance types, requirements,
 * and instance-types pages written from a few rows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InstanceType } from '../../src/catalog/catalog';
import type { NodeSelectorRequirement, Operator } from '../../src/catalog/requirements';

export const INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
export const ARCH = 'kubernetes.io/arch';
export const FAMILY = 'karpenter.k8s.aws/instance-family';
export const CPU = 'karpenter.k8s.aws/instance-cpu';
export const GPU_COUNT = 'karpenter.k8s.aws/instance-gpu-count';

/** What {@link aType} builds. */
export interface TypeProps {
  readonly name: string;
  /** Labels besides node.kubernetes.io/instance-type (always the name). @default {} */
  readonly labels?: Readonly<Record<string, string>>;
  /** Allocatable in catalog units. @default { cpu: 1930, memory: 3055, pods: 29 } */
  readonly allocatable?: Readonly<Record<string, number>>;
  /** @default - no price */
  readonly price?: number;
}

/** An instance type as the catalog holds it. */
export function aType(props: TypeProps): InstanceType {
  return {
    name: props.name,
    labels: new Map(Object.entries({ ...props.labels, [INSTANCE_TYPE]: props.name })),
    allocatable: new Map(Object.entries(props.allocatable ?? { cpu: 1930, memory: 3055, pods: 29 })),
    ...(props.price === undefined ? {} : { price: props.price }),
  };
}

/** A requirement: `req(ARCH, 'In', 'arm64')`, `req(GPU_COUNT, 'Exists')`. */
export function req(key: string, operator: Operator, ...values: string[]): NodeSelectorRequirement {
  return values.length > 0 ? { key, operator, values } : { key, operator };
}

/** The same requirement with a minValues. */
export function withMin(r: NodeSelectorRequirement, minValues: number): NodeSelectorRequirement {
  return { ...r, minValues };
}

/** Names of some instance types, for compact assertions. */
export function names(types: readonly InstanceType[]): string[] {
  return types.map((t) => t.name);
}

/** The vendored upstream excerpts in test/fixtures/karpenter-1.14.1-excerpts. */
export function fixture(file: 'instance-types.md' | 'zz_generated.pricing_aws.go'): string {
  return readFileSync(join(__dirname, '..', 'fixtures', 'karpenter-1.14.1-excerpts', file), 'utf8');
}

/** One type of an instance-types page. */
export interface PageType {
  readonly name: string;
  /** @default { [INSTANCE_TYPE]: name } */
  readonly labels?: Readonly<Record<string, string>>;
  /** Quantities as the page writes them. @default { cpu: '940m', memory: '1392Mi', pods: '8' } */
  readonly resources?: Readonly<Record<string, string>>;
}

/** An instance-types page in the upstream layout, one family per type. */
export function aPage(types: readonly PageType[]): string {
  const lines = ['---', 'title: "Instance Types"', '---', 'intro', '- `amiFamily` is set to `AL2023`'];
  for (const t of types) {
    lines.push(`## ${t.name.split('.')[0]} Family`, `### \`${t.name}\``, '#### Labels', ' | Label | Value |', ' |--|--|');
    for (const [k, v] of Object.entries(t.labels ?? { [INSTANCE_TYPE]: t.name })) lines.push(` |${k}|${v}|`);
    lines.push('#### Resources', ' | Resource | Quantity |', ' |--|--|');
    for (const [k, v] of Object.entries(t.resources ?? { cpu: '940m', memory: '1392Mi', pods: '8' })) lines.push(` |${k}|${v}|`);
  }
  return `${lines.join('\n')}\n`;
}

/** A price list in the upstream layout. */
export function aPriceList(prices: Readonly<Record<string, number>>, region: string = 'us-east-1'): string {
  const entries = Object.entries(prices).map(([name, price]) => `"${name}": ${price.toFixed(6)}`).join(', ');
  return [
    'package pricing',
    '',
    `// generated at 2026-07-06T14:20:29Z for ${region}`,
    '',
    'var InitialOnDemandPricesAWS = map[string]map[ec2types.InstanceType]float64{',
    `\t"${region}": {`,
    '\t\t// some family',
    `\t\t${entries},`,
    '\t},',
    '}',
    '',
  ].join('\n');
}
