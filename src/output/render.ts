import { Schema, stringify } from 'yaml';
import type { ScalarTag, Tags } from 'yaml';

/**
 * Strings go-yaml v2 reads as numbers or times, beyond what the YAML 1.1 and 1.2 schemas
 * say. Kubernetes tools read YAML with it (sigs.k8s.io/yaml: kubectl, Argo CD, Helm): a
 * plain scalar starting with a digit or sign has every `_` removed, then is tried as a Go
 * integer (base prefixes 0x, 0o, 0b, a leading 0 for octal, in either case) and as a float.
 * Also `<<` (a merge key) and `=` (YAML 1.1's value key, which PyYAML cannot construct).
 * @see https://github.com/go-yaml/yaml/blob/v2.4.0/resolve.go
 */
function goYamlReadsAsNonString(s: string): boolean {
  if (s === '<<' || s === '=') return true;
  if (!/^[-+.0-9]/.test(s)) return false;
  const plain = s.replace(/_/g, '');
  return /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[0-9]+)$/.test(plain)
    || /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(plain)
    || /^[-+]?\.(inf|Inf|INF|nan|NaN|NAN)$/.test(plain)
    || /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ]|$)/.test(s);
}

/**
 * Every other reader's non-string types, as "compat" tags: the writer quotes a string that
 * any of them would read as something else. YAML 1.1 is the writer's own schema; YAML 1.2
 * core and go-yaml v2 are added.
 */
const OTHER_READERS: ScalarTag[] = [
  ...(new Schema({ schema: 'core' }).tags as ScalarTag[]),
  {
    tag: 'tag:karpenter-gitops,2026:go-yaml-v2-number', default: true,
    // yaml calls `test.test(string)` to decide whether a plain string would be misread.
    test: { test: goYamlReadsAsNonString } as unknown as RegExp,
    resolve: (s: string) => s,
  },
];

/**
 * Serializes Kubernetes objects as one multi-document YAML file. No line folding,
 * so long strings (userData) stay byte-stable across runs. Every string that a YAML 1.1
 * reader, a YAML 1.2 reader or go-yaml v2 (kubectl, Argo CD, Helm) would read as a
 * boolean, number, null or time (`yes`, `on`, `0o17`, `0X1F`, `1_0e_3`, `1e3`, `2026-01-01`)
 * is quoted.
 */
export function renderYaml(docs: readonly unknown[]): string {
  return docs.map((d) => stringify(d, YAML_OPTIONS)).join('---\n');
}

/**
 * The schema of every YAML file the generator writes: YAML 1.1, as `version: '1.1'` makes it.
 * Built once: `stringify` builds one per document otherwise, a tenth of rendering's time.
 */
const SCHEMA = new Schema({
  schema: 'yaml-1.1',
  resolveKnownTags: false,
  // Without its merge tag, the 1.1 schema writes a `<<` key as the string it is (quoted).
  customTags: (tags: Tags) => tags.filter((t) => (typeof t === 'string' ? t !== 'merge' : t.tag !== 'tag:yaml.org,2002:merge')),
  compat: OTHER_READERS,
});

/**
 * Options of every YAML file the generator writes. `directives: false`: it writes no `%YAML` or
 * `%TAG` line, which yaml would otherwise look for by walking every document once more.
 */
const YAML_OPTIONS = { lineWidth: 0, version: '1.1', schema: SCHEMA, directives: false } as const;

/** One generated file before rendering: its path (relative to the output root) and documents, or its text. */
export interface GeneratedFile {
  readonly path: string;
  /** The YAML documents. @default - none */
  readonly docs?: readonly unknown[];
  /** Comment lines written above the documents. @default - none */
  readonly header?: string;
  /** The whole content of a file that is not YAML (SUMMARY.md). @default - the rendered docs */
  readonly text?: string;
}

/** The text of a generated file. */
export function renderFile(file: GeneratedFile): string {
  return file.text ?? (file.header ?? '') + renderYaml(file.docs ?? []);
}

/** A copy of a file map in path order, so output and reports never depend on build order. */
export function sortedByPath(files: ReadonlyMap<string, string>): Map<string, string> {
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
}
