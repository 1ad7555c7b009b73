import { stringify } from 'yaml';

/**
 * Serializes Kubernetes objects as one multi-document YAML file. No line folding,
 * so long strings (userData) stay byte-stable across runs.
 */
export function renderYaml(docs: readonly unknown[]): string {
  return docs.map((d) => stringify(d, { lineWidth: 0 })).join('---\n');
}
