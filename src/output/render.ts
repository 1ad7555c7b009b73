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
