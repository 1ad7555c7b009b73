/**
 * Builds the key tree of the Karpenter Helm chart's `values.yaml` (src/release/chart-values-keys.generated.ts),
 * so user-supplied chart values are checked against the chart without reading it at run
 * time. Pure: text in, data or TypeScript out.
 *
 * Rules:
 * - a key whose default is an empty map `{}` or any list is free-form (any keys below it);
 * - a key whose default is null is a leaf, unless commented-out keys indented below it
 *   document it as a map: then free-form;
 * - keys named in {@link PASS_THROUGH_KEYS} are free-form wherever they appear (Kubernetes
 *   objects the chart renders with `toYaml`);
 * - scalars are leaves; maps with keys have children.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/charts/karpenter/values.yaml
 */
import { createHash } from 'node:crypto';
import { valid } from 'semver';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { ChartKeyNode } from '../release/types';

/** Keys that are Kubernetes pass-through objects: free-form wherever they appear. */
const PASS_THROUGH_KEYS = new Set(['affinity', 'dnsConfig', 'nodeSelector', 'podSecurityContext', 'resources', 'securityContext', 'strategy']);

/**
 * Keys documented only in comments that must still be accepted, as dotted paths
 * (`settings.someOption`). Add one only when the chart documents it as an option of a map
 * that is not already free-form; the notes list candidates. Empty for Karpenter 1.14.1:
 * every commented-out key in that values.yaml is an example under a free-form node.
 */
const KEYS_DOCUMENTED_IN_COMMENTS: readonly string[] = [];

const COMMENTED_KEY = /^(\s*)#\s*([A-Za-z_][\w./-]*):(\s|$)/;

/** A node of the tree being built: {@link ChartKeyNode} with why it is what it is. */
interface KeyNode {
  freeForm?: true;
  children?: Record<string, KeyNode>;
  reason?: string;
}

/** The key tree of one chart version and what the commented-out keys were taken as. */
export interface ChartKeys {
  readonly version: string;
  /** sha256 of the values.yaml read. */
  readonly sha256: string;
  readonly tree: ChartKeyNode;
  /** One line per commented-out key: how it was read ("is NOT covered: review" needs a look). */
  readonly notes: readonly string[];
}

/** Where the values live in aws/karpenter-provider-aws. */
export const VALUES_PATH = 'charts/karpenter/values.yaml';

/** Reads a chart's values.yaml into its key tree; throws naming the key on what it cannot read. */
export function buildChartKeys(source: string, version: string): ChartKeys {
  // valid() gives back the version it read: equal only for a plain x.y.z[-pre] (no v, no build).
  if (valid(version) !== version) throw new Error(`"${version}" is not a chart version (x.y.z)`);
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter });
  if (doc.errors.length > 0) throw new Error(`${VALUES_PATH}: ${doc.errors.map((e) => e.message).join('; ')}`);
  if (!isMap(doc.contents)) throw new Error(`${VALUES_PATH}: the top level is not a map`);

  // Every real key, in file order, with what it became: commented-out keys attach to the key above.
  const keyLines: { line: number; column: number; path: string[]; kind: 'leaf' | 'null' | 'map' | 'free' }[] = [];
  const build = (node: unknown, path: string[]): KeyNode => {
    const name = path[path.length - 1];
    if (isAlias(node)) throw new Error(`${VALUES_PATH}: ${path.join('.')}: YAML aliases are not supported`);
    if (name !== undefined && PASS_THROUGH_KEYS.has(name)) return { freeForm: true, reason: 'pass-through' };
    if (isSeq(node)) return { freeForm: true, reason: 'default []' };
    if (!isMap(node)) return {}; // a scalar (null included, revisited with the comments)
    if (node.items.length === 0) return { freeForm: true, reason: 'default {}' };
    const children: Record<string, KeyNode> = Object.create(null) as Record<string, KeyNode>;
    for (const pair of node.items) {
      if (!isScalar(pair.key) || typeof pair.key.value !== 'string') throw new Error(`${VALUES_PATH}: ${path.join('.') || '(top level)'}: a key that is not a string`);
      const key = pair.key.value;
      if (key === '<<' || key === '__proto__') throw new Error(`${VALUES_PATH}: ${[...path, key].join('.')}: unsupported key`);
      const { line, col } = lineCounter.linePos(pair.key.range?.[0] ?? 0);
      // column 0-based: compared below with a commented-out key's indentation.
      const entry = { line, column: col - 1, path: [...path, key], kind: 'leaf' as 'leaf' | 'null' | 'map' | 'free' };
      keyLines.push(entry);
      const child = build(pair.value, entry.path);
      const isNull = pair.value === null || (isScalar(pair.value) && pair.value.value === null);
      entry.kind = child.freeForm ? 'free' : child.children ? 'map' : isNull ? 'null' : 'leaf';
      children[key] = child;
    }
    return { children };
  };
  const tree = build(doc.contents, []);
  const nodeAt = (path: readonly string[]) => {
    let node: KeyNode | undefined = tree;
    for (const key of path) node = node?.children?.[key];
    return node;
  };

  // Commented-out keys. Each attaches to the nearest real key above it (the anchor): "# key:"
  // at the anchor's own indentation reads as a sibling, anything deeper as its child.
  const notes: string[] = [];
  const nullMaps = new Map<string, string[]>();
  const inFreeForm = (path: readonly string[]) => path.some((_, n) => nodeAt(path.slice(0, n + 1))?.freeForm);
  let k = 0;
  source.split('\n').forEach((text, i) => {
    const line = i + 1;
    while (k < keyLines.length && keyLines[k].line < line) k++;
    const match = COMMENTED_KEY.exec(text);
    if (!match || /^\s*#\s*--/.test(text)) return;
    const key = match[2];
    const hashColumn = match[1].length;
    const keyColumn = text.indexOf(key, hashColumn);
    const anchor = keyLines[k - 1];
    if (!anchor) {
      notes.push(`line ${line}: "${key}" before the first key is NOT covered: review`);
      return;
    }
    const where = anchor.path.join('.');
    const child = hashColumn > anchor.column || keyColumn > anchor.column + 2;
    if (child && inFreeForm(anchor.path)) notes.push(`line ${line}: "${key}" is an example under free-form ${where}`);
    else if (child && anchor.kind === 'null') {
      nullMaps.set(where, anchor.path);
      notes.push(`line ${line}: "${key}" documents null-valued ${where}: made free-form`);
    } else if (!child && inFreeForm(anchor.path.slice(0, -1))) notes.push(`line ${line}: "${key}" is an example under free-form ${anchor.path.slice(0, -1).join('.')}`);
    else if (!child && anchor.kind === 'free') notes.push(`line ${line}: "${key}" right after free-form ${where}, same indentation: taken as its example, check`);
    else {
      const parent = child ? where : anchor.path.slice(0, -1).join('.') || '(top level)';
      notes.push(`line ${line}: "${key}" under ${parent} is NOT covered: review, and list it in KEYS_DOCUMENTED_IN_COMMENTS (src/upgrade/chart-keys-generator.ts) if it is a chart option`);
    }
  });
  for (const path of nullMaps.values()) Object.assign(nodeAt(path) ?? {}, { freeForm: true, reason: 'default null, documented as a map' });
  for (const dotted of KEYS_DOCUMENTED_IN_COMMENTS) {
    const path = dotted.split('.');
    const parent = nodeAt(path.slice(0, -1));
    if (!parent || parent.freeForm) throw new Error(`KEYS_DOCUMENTED_IN_COMMENTS: ${dotted} has no parent map in the tree`);
    parent.children ??= {};
    parent.children[path[path.length - 1]] ??= { reason: 'documented in comments' };
  }
  return { version, sha256: createHash('sha256').update(source).digest('hex'), tree, notes };
}

/** The TypeScript of src/release/chart-values-keys.generated.ts. */
export function renderChartKeys(keys: ChartKeys): string {
  const quote = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key));
  const emit = (node: KeyNode, indent: string): string => {
    if (node.freeForm) return `{ freeForm: true },${node.reason ? ` // ${node.reason}` : ''}`;
    if (!node.children) return `{},${node.reason ? ` // ${node.reason}` : ''}`;
    const lines = ['{', `${indent}  children: {`];
    for (const key of Object.keys(node.children).sort(compare)) lines.push(`${indent}    ${quote(key)}: ${emit(node.children[key], `${indent}    `)}`);
    lines.push(`${indent}  },`, `${indent}},`);
    return lines.join('\n');
  };
  return `// GENERATED FILE - DO NOT EDIT BY HAND.
//
// Generated from the karpenter ${keys.version} Helm chart's values.yaml
// (sha256 ${keys.sha256}) by src/upgrade/chart-keys-generator.ts.
//
// To regenerate when bumping the Karpenter version: npm run upgrade -- X.Y.Z
// (README, "Upgrading Karpenter"), then review the diff and the notes it prints about
// commented-out keys.

/** The Karpenter Helm chart version whose values.yaml this key tree describes. */
export const CHART_VERSION = '${keys.version}';

import type { ChartKeyNode } from './types';

/** Every key of the karpenter ${keys.version} chart's values.yaml, as a tree rooted at the top level. */
export const CHART_VALUES_KEYS: ChartKeyNode = ${emit(keys.tree, '').replace(/,$/, ';')}
`;
}

/** Every key path of a tree (`controller.image.tag`), free-form ones marked with `.*`, sorted. */
export function chartKeyPaths(tree: ChartKeyNode): string[] {
  const out: string[] = [];
  const walk = (node: ChartKeyNode, path: string) => {
    if (node.freeForm) out.push(`${path}.*`);
    else if (!node.children) out.push(path);
    for (const [key, child] of Object.entries(node.children ?? {})) walk(child, path ? `${path}.${key}` : key);
  };
  walk(tree, '');
  return out.sort(compare);
}

/** The `.Values` paths a chart's templates read. */
export function templateValuePaths(templates: readonly string[]): string[] {
  const paths = new Set<string>();
  for (const text of templates) for (const m of text.matchAll(/\.Values((?:\.[A-Za-z_][\w]*)+)/g)) paths.add(m[1].slice(1));
  return [...paths].sort(compare);
}

/** Whether a dotted path is a key of the tree (or lies below a free-form key). */
export function hasChartKey(tree: ChartKeyNode, path: string): boolean {
  let node: ChartKeyNode | undefined = tree;
  for (const key of path.split('.')) {
    if (node.freeForm) return true;
    node = node.children?.[key];
    if (!node) return false;
  }
  return true;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
