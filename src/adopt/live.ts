/**
 * What a running cluster's Karpenter objects are, read from what the user exported with
 * `kubectl get nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh -o yaml`
 * (docs/adopting.md): a `List` whose items carry the API server's metadata, Karpenter's
 * annotations and status, of which only the `spec` is what the config must say. Kinds that are
 * not adopted (NodeClaims) are skipped with a note; any other kind, an object without a name,
 * two objects of one kind and name, or a NodePool whose `nodeClassRef` names no EC2NodeClass of
 * the export is an error naming the object and field; a NodePool of EKS Auto Mode (a NodeClass of
 * eks.amazonaws.com) is set apart, for adopt/auto-mode.ts.
 */
import { describeValue } from '../input/issues';
import type { FieldPath, Problem } from '../input/problems';
import type { SourceFile } from '../input/source';
import { AUTO_MODE_NODE_CLASS_KIND, isAutoModeRef } from './auto-mode';

/** The most bytes an export (or a values file) may have: a cluster's objects with their metadata and status. */
export const MAX_EXPORT_BYTES = 32 * 1024 * 1024;

/** The kinds adoption writes config for, by `apiVersion kind`. */
export const ADOPTED_KINDS = {
  'karpenter.sh/v1 NodePool': 'NodePool',
  'karpenter.k8s.aws/v1 EC2NodeClass': 'EC2NodeClass',
  'karpenter.sh/v1alpha1 NodeOverlay': 'NodeOverlay',
} as const;

/** A kind adoption writes config for. */
export type AdoptedKind = (typeof ADOPTED_KINDS)[keyof typeof ADOPTED_KINDS];

/** Kinds an export may hold that adoption leaves alone: the cluster's state, not its config. */
const SKIPPED_KINDS: Readonly<Record<string, string>> = {
  'karpenter.sh/v1 NodeClaim': 'a node Karpenter launched: the NodePools say how it is made, the running nodes stay',
  [AUTO_MODE_NODE_CLASS_KIND]: 'EKS Auto Mode\'s node class: EKS owns it (adopt/auto-mode.ts)',
};

/** One adopted object: its kind, name, spec, and where it is in the export. */
export interface LiveObject {
  readonly kind: AdoptedKind;
  readonly name: string;
  /** Its `spec`, as the API server returned it (the CRD's defaults applied). */
  readonly spec: Readonly<Record<string, unknown>>;
  /** Where it is in the export (`items[3]`). */
  readonly at: FieldPath;
  /** The export file it is in. */
  readonly source: SourceFile;
  /** Who wrote it: `metadata.managedFields[].manager`, in order. @default [] - the export has no managedFields */
  readonly managers: readonly string[];
}

/** The objects of an export, and what was left out. */
export interface LiveExport {
  readonly nodePools: readonly LiveObject[];
  readonly nodeClasses: readonly LiveObject[];
  readonly overlays: readonly LiveObject[];
  /** The NodePools of EKS Auto Mode (a node class of eks.amazonaws.com): left to EKS, not adopted (adopt/auto-mode.ts). */
  readonly autoModePools: readonly LiveObject[];
  /** What was skipped, one line each. */
  readonly notes: readonly string[];
}

/**
 * Reads an export (`file`, as the user gave it, names it when it holds nothing); every problem of
 * it at once. A file of no object (empty, `null`, only comments) is what a failed
 * `kubectl get ... > FILE` leaves, never a cluster that runs nothing (that is a `List` of no items).
 */
export function readLiveExport(sources: readonly SourceFile[], file: string): { readonly live?: LiveExport; readonly problems: Problem[] } {
  const problems: Problem[] = sources.flatMap((s) => s.problems);
  if (problems.length) return { problems };
  if (sources.length === 0) {
    return { problems: [{ file, line: 0, col: 0, path: '', message: 'the export is empty: the kubectl command failed, or wrote to another file; '
      + 'export again with kubectl get nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh -o yaml > FILE and check that it printed no error' }] };
  }
  const objects: LiveObject[] = [];
  const notes: string[] = [];
  for (const source of sources) {
    const value = source.value;
    const items: { item: unknown; at: FieldPath }[] = isObject(value) && typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)
      ? value.items.map((item, i) => ({ item, at: ['items', i] }))
      : [{ item: value, at: [] }];
    for (const { item, at } of items) {
      if (!isObject(item)) {
        problems.push(source.problem(at, `expected a Kubernetes object (a map with apiVersion and kind), got ${describeValue(item)}: export `
          + 'kubectl get nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh -o yaml'));
        continue;
      }
      const o = item;
      const type = `${String(o.apiVersion)} ${String(o.kind)}`;
      const name = isObject(o.metadata) && typeof o.metadata.name === 'string' ? o.metadata.name : undefined;
      const label = `${String(o.kind)} ${name ?? '(no name)'}`;
      if (Object.hasOwn(SKIPPED_KINDS, type)) {
        notes.push(`skipped ${label}: ${SKIPPED_KINDS[type]}`);
        continue;
      }
      if (!Object.hasOwn(ADOPTED_KINDS, type)) {
        problems.push(source.problem([...at, 'kind'], `${label} (${String(o.apiVersion)}) is not what adoption reads: export only `
          + 'kubectl get nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh -o yaml (NodeClaims are skipped)'));
        continue;
      }
      if (name === undefined) {
        problems.push(source.problem([...at, 'metadata'], `a ${String(o.kind)} without metadata.name: export it again with kubectl get ... -o yaml`));
        continue;
      }
      if (!isObject(o.spec)) {
        problems.push(source.problem(at, `${label} has no spec: export it again with kubectl get ... -o yaml`));
        continue;
      }
      const kind = ADOPTED_KINDS[type as keyof typeof ADOPTED_KINDS];
      const twin = objects.find((x) => x.kind === kind && x.name === name);
      if (twin) {
        problems.push(source.problem(at, `${label} is in the export twice (also at ${twin.at.join('.')}): export one cluster at a time`));
        continue;
      }
      const fields = isObject(o.metadata) && Array.isArray(o.metadata.managedFields) ? o.metadata.managedFields : [];
      const managers = [...new Set(fields.flatMap((f) => (isObject(f) && typeof f.manager === 'string' ? [f.manager] : [])))];
      objects.push({ kind, name, spec: o.spec, at, source, managers });
    }
  }
  const classes = new Set(objects.filter((o) => o.kind === 'EC2NodeClass').map((o) => o.name));
  const autoModePools: LiveObject[] = [];
  for (const np of objects.filter((o) => o.kind === 'NodePool')) {
    const ref = isObject(np.spec.template) && isObject(np.spec.template.spec) && isObject(np.spec.template.spec.nodeClassRef) ? np.spec.template.spec.nodeClassRef : {};
    const at = [...np.at, 'spec', 'template', 'spec', 'nodeClassRef'];
    if (isAutoModeRef(ref)) autoModePools.push(np);
    else if (ref.group !== 'karpenter.k8s.aws' || ref.kind !== 'EC2NodeClass') {
      problems.push(np.source.problem(at, `NodePool ${np.name} uses a node class of ${String(ref.group)}/${String(ref.kind)}: only EC2NodeClasses (karpenter.k8s.aws) are adopted`));
    } else if (!classes.has(String(ref.name))) {
      problems.push(np.source.problem([...at, 'name'], `NodePool ${np.name} uses EC2NodeClass ${String(ref.name)}, which is not in the export `
        + `(its EC2NodeClasses: ${[...classes].join(', ') || 'none'}): export the NodePools and EC2NodeClasses of the cluster together`));
    }
  }
  if (problems.length) return { problems };
  const of = (kind: AdoptedKind) => objects.filter((o) => o.kind === kind && !autoModePools.includes(o));
  return { live: { nodePools: of('NodePool'), nodeClasses: of('EC2NodeClass'), overlays: of('NodeOverlay'), autoModePools, notes }, problems };
}

/** A plain object (not an array, not null). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
