import { stringify } from 'yaml';

/**
 * Serializes Kubernetes objects as one multi-document YAML file. No line folding,
 * so long strings (userData) stay byte-stable across runs. Written for YAML 1.1
 * readers (kubectl, Argo CD, Helm): strings such as `yes`, `on`, `n` or `1_000` are
 * quoted, or they would come back as booleans and numbers.
 */
export function renderYaml(docs: readonly unknown[]): string {
  return docs.map((d) => stringify(d, YAML_OPTIONS)).join('---\n');
}

/** Options of every YAML file the generator writes. */
export const YAML_OPTIONS = { lineWidth: 0, version: '1.1' } as const;

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
