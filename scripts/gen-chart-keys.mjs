#!/usr/bin/env node
// Generates src/config/chart-values-keys.ts: the key tree of the Karpenter Helm
// chart's values.yaml, so the project can check user-supplied chart values
// against it without reading the chart at run time.
//
// Usage:
//   node scripts/gen-chart-keys.mjs PATH/TO/values.yaml [CHART_VERSION] > src/config/chart-values-keys.ts
//
// CHART_VERSION defaults to the version found in PATH (".../karpenter-v1.14.1/...").
// The TypeScript goes to stdout; notes about commented-out keys go to stderr.
//
// Rules:
//   - a key whose default is an empty map `{}` or any list is free-form
//     (any keys may appear below it);
//   - a key whose default is null is a leaf, unless it is followed by
//     commented-out keys indented below it (a map documented only in
//     comments), then free-form;
//   - keys named in PASS_THROUGH_KEYS are free-form wherever they appear
//     (they are Kubernetes objects the chart renders with toYaml);
//   - scalars are leaves; maps with keys have children.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';

/** Keys that are Kubernetes pass-through objects: free-form wherever they appear. */
const PASS_THROUGH_KEYS = new Set([
  'affinity',
  'dnsConfig',
  'nodeSelector',
  'podSecurityContext',
  'resources',
  'securityContext',
  'strategy',
]);

/**
 * Keys documented only in comments that must still be accepted, as dotted
 * paths (e.g. 'settings.someOption'). Add one here only when the chart
 * documents it as an option of a map that is not already free-form; the
 * generator lists candidates on stderr. Empty for Karpenter 1.14.1: every
 * commented-out key in that values.yaml is an example under a free-form node.
 */
const KEYS_DOCUMENTED_IN_COMMENTS = [];

const COMMENTED_KEY = /^(\s*)#\s*([A-Za-z_][\w.\/-]*):(\s|$)/;

function fail(message) {
  process.stderr.write(`gen-chart-keys: ${message}\n`);
  process.exit(1);
}

function compare(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

const [file, versionArg] = process.argv.slice(2);
if (!file) fail('usage: node scripts/gen-chart-keys.mjs PATH/TO/values.yaml [CHART_VERSION]');
const version = versionArg ?? /karpenter-v?(\d+\.\d+\.\d+)/.exec(file)?.[1];
if (!version || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) {
  fail(`cannot tell the chart version from "${file}"; pass it as the second argument`);
}

const source = readFileSync(file, 'utf8');
const sha256 = createHash('sha256').update(source).digest('hex');
const doc = parseDocument(source);
if (doc.errors.length > 0) fail(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
if (!isMap(doc.contents)) fail(`${file}: the top level is not a map`);

const lineOf = (offset) => source.slice(0, offset).split('\n').length;
const columnOf = (offset) => offset - source.lastIndexOf('\n', offset - 1) - 1;

// Every real key, in file order, with what it became; used to attach
// commented-out keys to the key above them.
/** @type {{ line: number; column: number; path: string[]; kind: 'leaf' | 'null' | 'map' | 'free' }[]} */
const keyLines = [];

// Pass 1: the tree from the YAML nodes.
function build(node, path) {
  const name = path[path.length - 1];
  if (isAlias(node)) fail(`${path.join('.')}: YAML aliases are not supported`);
  if (name !== undefined && PASS_THROUGH_KEYS.has(name)) return { freeForm: true, reason: 'pass-through' };
  if (isSeq(node)) return { freeForm: true, reason: 'default []' };
  if (isMap(node)) {
    if (node.items.length === 0) return { freeForm: true, reason: 'default {}' };
    const children = {};
    for (const pair of node.items) {
      if (!isScalar(pair.key) || typeof pair.key.value !== 'string') {
        fail(`${path.join('.') || '(top level)'}: non-string key`);
      }
      const key = pair.key.value;
      if (key === '<<' || key === '__proto__') fail(`${[...path, key].join('.')}: unsupported key`);
      const childPath = [...path, key];
      const entry = { line: lineOf(pair.key.range[0]), column: columnOf(pair.key.range[0]), path: childPath, kind: 'leaf' };
      keyLines.push(entry);
      const child = build(pair.value, childPath);
      entry.kind = child.freeForm ? 'free' : child.children ? 'map' : pair.value == null || (isScalar(pair.value) && pair.value.value === null) ? 'null' : 'leaf';
      children[key] = child;
    }
    return { children };
  }
  return {}; // scalar (including null, revisited in pass 2)
}

const tree = build(doc.contents, []);

function nodeAt(path) {
  let node = tree;
  for (const key of path) node = node?.children?.[key];
  return node;
}

// Pass 2: commented-out keys. Each is attached to the nearest real key above
// it (the anchor). "  # key:" at the anchor's own indentation reads as a
// sibling of the anchor; anything indented deeper reads as its child.
const notes = [];
const nullMaps = new Map(); // dotted path -> path
const inFreeForm = (path) => path.some((_, n) => nodeAt(path.slice(0, n + 1)).freeForm);
source.split('\n').forEach((text, i) => {
  const match = COMMENTED_KEY.exec(text);
  if (!match || /^\s*#\s*--/.test(text)) return;
  const line = i + 1;
  const key = match[2];
  const hashColumn = match[1].length;
  const keyColumn = text.indexOf(key, hashColumn);
  const anchor = keyLines.filter((k) => k.line < line).pop();
  if (!anchor) {
    notes.push(`  line ${line}: "${key}" before the first key is NOT covered: review`);
    return;
  }
  const where = anchor.path.join('.');
  const child = hashColumn > anchor.column || keyColumn > anchor.column + 2;
  if (child && inFreeForm(anchor.path)) {
    notes.push(`  line ${line}: "${key}" is an example under free-form ${where}`);
  } else if (child && anchor.kind === 'null') {
    nullMaps.set(where, anchor.path);
    notes.push(`  line ${line}: "${key}" documents null-valued ${where}: made free-form`);
  } else if (!child && inFreeForm(anchor.path.slice(0, -1))) {
    notes.push(`  line ${line}: "${key}" is an example under free-form ${anchor.path.slice(0, -1).join('.')}`);
  } else if (!child && anchor.kind === 'free') {
    notes.push(`  line ${line}: "${key}" right after free-form ${where}, same indentation: taken as its example, check`);
  } else {
    const parent = child ? where : anchor.path.slice(0, -1).join('.') || '(top level)';
    notes.push(`  line ${line}: "${key}" under ${parent} is NOT covered: review, and list it in KEYS_DOCUMENTED_IN_COMMENTS if it is a chart option`);
  }
});
for (const path of nullMaps.values()) Object.assign(nodeAt(path), { freeForm: true, reason: 'default null, documented as a map' });
for (const dotted of KEYS_DOCUMENTED_IN_COMMENTS) {
  const path = dotted.split('.');
  const parent = nodeAt(path.slice(0, -1));
  if (!parent || parent.freeForm) fail(`KEYS_DOCUMENTED_IN_COMMENTS: ${dotted} has no parent map in the tree`);
  parent.children ??= {};
  parent.children[path[path.length - 1]] ??= { reason: 'documented in comments' };
}
process.stderr.write(
  notes.length > 0 ? `gen-chart-keys: commented-out keys in ${file}:\n${notes.join('\n')}\n` : 'gen-chart-keys: no commented-out keys\n',
);

// Output.
const quote = (key) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key));

function emit(node, indent) {
  if (node.freeForm) return `{ freeForm: true },${node.reason ? ` // ${node.reason}` : ''}`;
  if (!node.children) return `{},${node.reason ? ` // ${node.reason}` : ''}`;
  const lines = [`{`, `${indent}  children: {`];
  for (const key of Object.keys(node.children).sort(compare)) {
    lines.push(`${indent}    ${quote(key)}: ${emit(node.children[key], `${indent}    `)}`);
  }
  lines.push(`${indent}  },`, `${indent}},`);
  return lines.join('\n');
}

const out = `// GENERATED FILE - DO NOT EDIT BY HAND.
//
// Generated from the karpenter ${version} Helm chart's values.yaml
// (sha256 ${sha256}) by scripts/gen-chart-keys.mjs.
//
// To regenerate when bumping the Karpenter version:
//   helm show values oci://public.ecr.aws/karpenter/karpenter --version X.Y.Z > /tmp/karpenter-values.yaml
//   node scripts/gen-chart-keys.mjs /tmp/karpenter-values.yaml X.Y.Z > src/config/chart-values-keys.ts
// then review the diff and the notes the script prints on stderr about
// commented-out keys.

/** The Karpenter Helm chart version whose values.yaml this key tree describes. */
export const CHART_VERSION = '${version}';

/**
 * One key of the chart's values. A leaf has neither field; a map with known
 * keys has \`children\`; a free-form node (a default of \`{}\`, a list, or a
 * Kubernetes pass-through object such as \`affinity\`) accepts any keys below it.
 */
export interface ChartKeyNode {
  readonly freeForm?: true;
  readonly children?: { readonly [key: string]: ChartKeyNode };
}

/** Every key of the karpenter ${version} chart's values.yaml, as a tree rooted at the top level. */
export const CHART_VALUES_KEYS: ChartKeyNode = ${emit(tree, '').replace(/,$/, ';')}
`;
process.stdout.write(out);
