import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import type { CrdDefault, CrdKind, ReleaseFacts } from '../release/types';
import { compareRelease } from '../release/versions';

/** The release files the facts are generated from. */
export interface ReleaseFactsInput {
  readonly version: string;
  readonly nodePoolCrd: string;
  readonly ec2NodeClassCrd: string;
  readonly nodeOverlayCrd: string;
  /** `pkg/apis/v1/ec2nodeclass.go`: the EC2NodeClass hash version; empty when the release was read without it. */
  readonly ec2NodeClassGo: string;
  /** The chart's `settings.featureGates` keys. */
  readonly featureGates: readonly string[];
  /** Every map under the chart's `settings`: per key, the controller's name of it. */
  readonly settingsMaps: Readonly<Record<string, Readonly<Record<string, string | null>>>>;
  /** The chart's plain `settings` keys. */
  readonly settings: readonly string[];
  /** Paths of the release files, for the header. */
  readonly paths: { readonly nodePoolCrd: string; readonly ec2NodeClassCrd: string; readonly nodeOverlayCrd: string; readonly ec2NodeClassGo: string };
  /** Every field path of each CRD (as the upgrade's CRD report computes them). */
  readonly nodePoolFields: readonly string[];
  readonly ec2NodeClassFields: readonly string[];
  /** Every `default:` of each kind's CRD ({@link crdDefaults} of its text). */
  readonly crdDefaults: Readonly<Record<CrdKind, readonly CrdDefault[]>>;
}

/** Builds a release's facts from its CRDs and chart. */
export function buildReleaseFacts(input: ReleaseFactsInput): ReleaseFacts {
  return {
    version: input.version,
    nodePoolFields: [...input.nodePoolFields],
    ec2NodeClassFields: [...input.ec2NodeClassFields],
    crdDefaults: { NodePool: [...input.crdDefaults.NodePool], EC2NodeClass: [...input.crdDefaults.EC2NodeClass], NodeOverlay: [...input.crdDefaults.NodeOverlay] },
    consolidationPolicies: consolidationPolicies(input.nodePoolCrd),
    disruptionReasons: disruptionReasons(input.nodePoolCrd),
    featureGates: [...input.featureGates].sort(),
    settingsMaps: input.settingsMaps,
    settings: [...input.settings].sort(),
    kubeletValidatedBy: kubeletValidatedBy(input.ec2NodeClassCrd),
    ...(input.ec2NodeClassGo !== '' ? { ec2NodeClassHashVersion: hashVersion(input.ec2NodeClassGo) } : {}),
    sources: {
      [input.paths.nodePoolCrd]: sha256(input.nodePoolCrd),
      [input.paths.ec2NodeClassCrd]: sha256(input.ec2NodeClassCrd),
      [input.paths.nodeOverlayCrd]: sha256(input.nodeOverlayCrd),
      ...(input.ec2NodeClassGo !== '' ? { [input.paths.ec2NodeClassGo]: sha256(input.ec2NodeClassGo) } : {}),
    },
  };
}

/**
 * `crd` when the EC2NodeClass CRD gives `spec.kubelet` a schema of its own (properties), as 1.13
 * and 1.14 do; `controller` when it leaves it open (`x-kubernetes-preserve-unknown-fields` and no
 * properties, from 1.15: "spec.kubelet is an open map the API server does no validation of").
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/kubeletconfiguration_validation.go#L101
 */
function kubeletValidatedBy(crdText: string): 'crd' | 'controller' {
  type S = { properties?: Record<string, S>; 'x-kubernetes-preserve-unknown-fields'?: boolean };
  const crd = parseYaml(crdText) as { spec?: { versions?: { name: string; storage?: boolean; schema?: { openAPIV3Schema?: S } }[] } } | null;
  const version = crd?.spec?.versions?.find((x) => x.storage) ?? crd?.spec?.versions?.[0];
  const kubelet = version?.schema?.openAPIV3Schema?.properties?.spec?.properties?.kubelet;
  if (!kubelet) throw new Error('the EC2NodeClass CRD has no spec.kubelet');
  if (kubelet.properties && Object.keys(kubelet.properties).length > 0) return 'crd';
  if (kubelet['x-kubernetes-preserve-unknown-fields'] === true) return 'controller';
  throw new Error('the EC2NodeClass CRD\'s spec.kubelet has neither properties nor x-kubernetes-preserve-unknown-fields: read the CRD and teach src/upgrade/release-facts-generator.ts what it means');
}

/**
 * The value of `const EC2NodeClassHashVersion = "v6"` in the release's Go code.
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/ec2nodeclass.go#L539
 */
function hashVersion(goText: string): string {
  const found = /^const EC2NodeClassHashVersion = "(v\d+)"/m.exec(goText);
  if (!found) throw new Error('no const EC2NodeClassHashVersion = "vN" in it');
  return found[1];
}

/** A NodePool CRD schema, as far as `spec.disruption` goes. */
type DisruptionSchema = { properties?: Record<string, DisruptionSchema>; items?: DisruptionSchema; enum?: unknown[] };

/** `spec.disruption` of the NodePool CRD's storage-version schema. */
function disruptionSchema(crdText: string): DisruptionSchema | undefined {
  const crd = parseYaml(crdText) as { spec?: { versions?: { name: string; storage?: boolean; schema?: { openAPIV3Schema?: DisruptionSchema } }[] } } | null;
  const version = crd?.spec?.versions?.find((x) => x.storage) ?? crd?.spec?.versions?.[0];
  return version?.schema?.openAPIV3Schema?.properties?.spec?.properties?.disruption;
}

/** The enum of `spec.disruption.consolidationPolicy` in the NodePool CRD's served v1 schema. */
function consolidationPolicies(crdText: string): string[] {
  const policy = disruptionSchema(crdText)?.properties?.consolidationPolicy;
  if (!policy?.enum) throw new Error('the NodePool CRD has no enum for spec.disruption.consolidationPolicy');
  return policy.enum.map(String);
}

/** The enum of `spec.disruption.budgets[].reasons[]` in the NodePool CRD's served v1 schema. */
function disruptionReasons(crdText: string): string[] {
  const reasons = disruptionSchema(crdText)?.properties?.budgets?.items?.properties?.reasons?.items;
  if (!reasons?.enum) throw new Error('the NodePool CRD has no enum for spec.disruption.budgets[].reasons');
  return reasons.enum.map(String);
}

/** A CRD schema as far as its defaults go. */
interface DefaultsSchema {
  readonly properties?: Readonly<Record<string, DefaultsSchema>>;
  readonly items?: DefaultsSchema;
  readonly additionalProperties?: DefaultsSchema | boolean;
  readonly default?: unknown;
  readonly nullable?: boolean;
}

/**
 * Every `default:` of the `kind` CRD's storage-version schema (the version `schemaPaths` lists
 * the fields of), status left out, in schema order: a property's default before those inside it,
 * then its items' (`[]`) and its map values' (`.*`), as the API server walks them. A default
 * can only be on `properties`, `items` and `additionalProperties`: a structural schema forbids
 * one inside `allOf`, `anyOf`, `oneOf` or `not`.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#defaulting
 * @see https://github.com/kubernetes/kubernetes/blob/94341df30b4aef29676b997d0e2320534d05bfab/staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting/algorithm.go
 */
export function crdDefaults(crdText: string, kind: CrdKind): CrdDefault[] {
  const crd = parseYaml(crdText) as { spec?: { names?: { kind?: string }; versions?: { name: string; storage?: boolean; schema?: { openAPIV3Schema?: DefaultsSchema } }[] } } | null;
  if (crd?.spec?.names?.kind !== kind) throw new Error(`not the ${kind} CustomResourceDefinition`);
  const version = crd.spec.versions?.find((x) => x.storage) ?? crd.spec.versions?.[0];
  const schema = version?.schema?.openAPIV3Schema;
  if (!schema) throw new Error(`the ${kind} CRD has no openAPIV3Schema`);
  const out: CrdDefault[] = [];
  const walk = (s: DefaultsSchema, path: string) => {
    if (s.default !== undefined) {
      // withCrdDefaults fills a null as the API server fills a non-nullable one; a nullable field keeps its null.
      if (s.nullable === true) throw new Error(`${path}: a nullable field with a default, which keeps a null where crdDefaults says the default goes: teach src/upgrade/release-facts-generator.ts and src/release/defaults.ts what it means`);
      out.push({ path, value: s.default });
    }
    for (const [key, child] of Object.entries(s.properties ?? {})) {
      if (path === '' && key === 'status') continue;
      // The notation has no escape: a name with `.`, `[`, `]` or `*` would read as another field.
      if (/[.[\]*]/.test(key) && hasDefault(child)) throw new Error(`${path === '' ? '' : `${path}.`}${key}: a field name the paths of crdDefaults cannot write, with a default at or below it`);
      walk(child, path === '' ? key : `${path}.${key}`);
    }
    if (s.items) walk(s.items, `${path}[]`);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${path}.*`);
  };
  walk(schema, '');
  return out;
}

/** Whether a schema has a default, or one of the schemas in it has. */
function hasDefault(s: DefaultsSchema): boolean {
  const additional = typeof s.additionalProperties === 'object' ? [s.additionalProperties] : [];
  return s.default !== undefined || [...Object.values(s.properties ?? {}), ...(s.items ? [s.items] : []), ...additional].some(hasDefault);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The folder of a release's generated data, relative to the repository root. */
export function releaseDir(version: string): string {
  return `src/release/v${version}`;
}

/** `src/release/v<version>/release.generated.ts`: data only, typed by the hand-written module. */
export function renderReleaseFacts(facts: ReleaseFacts): string {
  const list = (xs: readonly string[]) => `[\n${xs.map((x) => `    '${x}',`).join('\n')}\n  ]`;
  return `// GENERATED FILE - DO NOT EDIT BY HAND.
//
// Generated by \`npm run upgrade\` (src/upgrade/release-facts-generator.ts) from Karpenter ${facts.version}'s
${Object.entries(facts.sources).map(([p, h]) => `//   ${p} (sha256 ${h})`).join('\n')}

import type { ReleaseFacts } from '../types';

/**
 * What Karpenter ${facts.version} accepts.
 * @see https://github.com/aws/karpenter-provider-aws/tree/v${facts.version}/pkg/apis/crds
 */
export const RELEASE: ReleaseFacts = {
  version: '${facts.version}',
  nodePoolFields: ${list(facts.nodePoolFields)},
  ec2NodeClassFields: ${list(facts.ec2NodeClassFields)},
  crdDefaults: {
${(Object.entries(facts.crdDefaults) as [CrdKind, readonly CrdDefault[]][]).map(([kind, defaults]) => `    ${kind}: ${defaults.length === 0 ? '[]' : `[\n${defaults.map((d) => `      { path: ${tsLiteral(d.path)}, value: ${tsLiteral(d.value)} },`).join('\n')}\n    ]`},`).join('\n')}
  },
  consolidationPolicies: [${facts.consolidationPolicies.map((p) => `'${p}'`).join(', ')}],
${facts.disruptionReasons !== undefined ? `  disruptionReasons: [${facts.disruptionReasons.map((p) => `'${p}'`).join(', ')}],\n` : ''}  featureGates: [${facts.featureGates.map((p) => `'${p}'`).join(', ')}],
  settingsMaps: {
${Object.entries(facts.settingsMaps).map(([map, keys]) => `    ${map}: { ${Object.entries(keys).map(([k, n]) => `${k}: ${n === null ? 'null' : `'${n}'`}`).join(', ')} },`).join('\n')}
  },
  settings: [${facts.settings.map((p) => `'${p}'`).join(', ')}],
  kubeletValidatedBy: '${facts.kubeletValidatedBy}',
${facts.ec2NodeClassHashVersion !== undefined ? `  ec2NodeClassHashVersion: '${facts.ec2NodeClassHashVersion}',\n` : ''}  sources: {
${Object.entries(facts.sources).map(([p, h]) => `    '${p}': '${h}',`).join('\n')}
  },
};
`;
}

/** A JSON value as a TypeScript literal in the generated files' style: single quotes, `{ key: value }`. */
function tsLiteral(value: unknown): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return `'${JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map(tsLiteral).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    // A computed key: `__proto__: x` (quoted or not) in a literal would set the prototype, not a member.
    const key = (k: string) => (k === '__proto__' ? `['__proto__']` : /^[A-Za-z_$][\w$]*$/.test(k) ? k : tsLiteral(k));
    return `{ ${entries.map(([k, v]) => `${key(k)}: ${tsLiteral(v)}`).join(', ')} }`;
  }
  throw new Error(`${String(value)}: not a JSON value`);
}

/** `src/release/vendored.generated.ts`: every vendored release's facts, oldest first. */
export function renderVendored(versions: readonly string[]): string {
  const sorted = [...new Set(versions)].sort(compareRelease);
  const id = (v: string) => `V${v.replace(/[.-]/g, '_')}`;
  return `// GENERATED FILE - DO NOT EDIT BY HAND.
//
// Generated by \`npm run upgrade\` (src/upgrade/release-facts-generator.ts): one import per folder
// src/release/v<version>/. An upgrade adds the new release and keeps the ones before it.

import type { ReleaseFacts } from './types';
${sorted.map((v) => `import { RELEASE as ${id(v)} } from './v${v}/release.generated';`).join('\n')}

/** Every vendored release, oldest first. */
export const VENDORED_RELEASES: readonly ReleaseFacts[] = [${sorted.map(id).join(', ')}];
`;
}
