/**
 * What runs against what the config makes (docs/adopting.md, `npm run diff -- --live`): one
 * cluster's NodePools, EC2NodeClasses and NodeOverlays as the API server stores them, taken from
 * a `kubectl get ... -o yaml` export and from a fresh synth, each reduced to what matters to
 * nodes (kind, name, `spec`) with the CRDs' defaults of the cluster's release applied and each
 * requirement list taken as a set, so two objects Karpenter would treat alike compare equal.
 */
import { stringify } from 'yaml';
import { clusterLayout } from '../output/layout';
import { withCrdDefaults } from '../release/defaults';
import type { CrdKind } from '../release/types';
import { Body, GeneratedTree } from './tree';

/** The API version of each kind compared. */
export const LIVE_API_VERSIONS: Readonly<Record<CrdKind, string>> = {
  NodePool: 'karpenter.sh/v1',
  EC2NodeClass: 'karpenter.k8s.aws/v1',
  NodeOverlay: 'karpenter.sh/v1alpha1',
};

/** One object of a cluster: its kind, name and spec. */
export interface SpecObject {
  readonly kind: CrdKind;
  readonly name: string;
  readonly spec: unknown;
}

/**
 * An object as compared: kind, name and its spec with the CRD's defaults of `version` applied,
 * requirements (of a NodePool's template, of a NodeOverlay) sorted, each one's values sorted,
 * map keys sorted, and quantities (a NodePool's limits, a NodeOverlay's capacity) as text. Lists whose
 * order Karpenter keeps (taints, budgets, selector terms) keep it.
 */
export function normalized(o: SpecObject, version: string): Body {
  const defaulted = withCrdDefaults(o.kind, { spec: o.spec }, version) as { spec: Body };
  const spec = sortKeys(withoutEmpty(defaulted.spec)) as Body;
  const requirementsOf = (holder: unknown): void => {
    if (!isObject(holder) || !Array.isArray(holder.requirements)) return;
    holder.requirements = (holder.requirements as unknown[])
      .map((r) => (isObject(r) && Array.isArray(r.values) ? { ...r, values: [...(r.values as string[])].sort() } : r))
      .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  };
  if (o.kind === 'NodePool') requirementsOf(isObject(spec.template) ? spec.template.spec : undefined);
  if (o.kind === 'NodeOverlay') requirementsOf(spec);
  // Quantities are int-or-string: 1000 and "1000" are one quantity.
  for (const field of ['limits', 'capacity']) if (isObject(spec[field])) spec[field] = Object.fromEntries(Object.entries(spec[field]).map(([k, v]) => [k, String(v)]));
  return { apiVersion: LIVE_API_VERSIONS[o.kind], kind: o.kind, metadata: { name: o.name }, spec };
}

/** The compared objects of a cluster's generated files: its NodePools, EC2NodeClasses and NodeOverlays. */
export function generatedObjects(tree: GeneratedTree, cluster: string): SpecObject[] {
  const dir = `${clusterLayout({ id: cluster }).dir}/`;
  return [...tree.files.keys()].filter((f) => f.startsWith(dir)).flatMap((f) => tree.resourcesIn(f))
    .filter((r) => Object.hasOwn(LIVE_API_VERSIONS, r.kind))
    .map((r) => ({ kind: r.kind as CrdKind, name: r.name, spec: r.body.spec }));
}

/**
 * A tree of one file per object, under the cluster's folder, each object {@link normalized}: a
 * side of a review that compares only what Karpenter reads (`where` names it in errors).
 */
export function objectTree(objects: readonly SpecObject[], cluster: string, version: string, where: string, controllerValues?: string): GeneratedTree {
  const layout = clusterLayout({ id: cluster });
  const files = new Map(objects.map((o) => [`${layout.dir}/${o.kind.toLowerCase()}-${o.name}.yaml`, stringify(normalized(o, version), { lineWidth: 0 })]));
  // The controller's values, where synth writes them: the review reads them as a chart values file (HelmValues).
  if (controllerValues !== undefined) files.set(layout.controllerValues, controllerValues);
  return new GeneratedTree(files, where);
}

/** Whether two object lists are the same once normalized; else the first difference, said for a person. */
export function sameObjects(live: readonly SpecObject[], generated: readonly SpecObject[], version: string): string | undefined {
  const key = (o: SpecObject) => `${o.kind} ${o.name}`;
  const mine = new Map(generated.map((o) => [key(o), o]));
  for (const o of live) {
    const g = mine.get(key(o));
    if (!g) return `${key(o)} runs on the cluster, but the config makes none`;
    const [a, b] = [normalized(o, version).spec, normalized(g, version).spec];
    const where = firstDifference(a, b, 'spec');
    if (where !== undefined) return `${key(o)}: ${where}`;
    mine.delete(key(o));
  }
  const extra = [...mine.keys()];
  return extra.length ? `the config makes ${extra.join(', ')}, which the cluster does not run` : undefined;
}

/** The first path where two JSON values differ, with both values. */
function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  if (isObject(a) && isObject(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const found = firstDifference(a[k], b[k], `${path}.${k}`);
      if (found) return found;
    }
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) {
      const found = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (found) return found;
    }
  }
  return `${path} runs as ${JSON.stringify(a) ?? 'nothing'}, the config makes ${JSON.stringify(b) ?? 'nothing'}`;
}

/**
 * `v` without its empty lists and maps, at any depth: the API server keeps `taints: []` as given,
 * and Karpenter reads it as no taints (Go: a nil and an empty slice or map both have len 0).
 */
function withoutEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutEmpty);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const pruned = withoutEmpty(x);
    if (!((Array.isArray(pruned) && pruned.length === 0) || (isObject(pruned) && Object.keys(pruned).length === 0))) out[k] = pruned;
  }
  return out;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
