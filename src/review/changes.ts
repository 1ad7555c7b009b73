import diff from 'microdiff';
import { parseAllDocuments } from 'yaml';

/**
 * How a change lands on a cluster, loudest first.
 * @see https://karpenter.sh/docs/concepts/disruption/#drift
 */
export const RISKS = ['destructive', 'replaces-nodes', 'capacity', 'controller', 'other'] as const;
/** One of {@link RISKS}. */
export type Risk = (typeof RISKS)[number];

/** A resource of the generated tree: a Kubernetes object, or a cluster's chart values file. */
export interface Resource {
  /** `kind/namespace/name`, unique in the tree. */
  readonly id: string;
  readonly kind: string;
  readonly name: string;
  /** The cluster folder it comes from (`dist/<cluster>/...`); empty for `argocd/argocd-cm-patch.yaml`. */
  readonly cluster: string;
  readonly file: string;
  readonly body: Record<string, unknown>;
}

/** One field that changed. */
export interface FieldChange {
  /** `spec.template.spec.requirements[0].values[1]`. */
  readonly path: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** What a PR does to one resource, classified. */
export interface Change {
  readonly risk: Risk;
  readonly resource: Resource;
  readonly action: 'added' | 'removed' | 'changed';
  /** Why this risk, in a few words a reviewer understands. */
  readonly why: string;
  /** The fields behind this risk (changed resources only). */
  readonly fields: readonly FieldChange[];
  /** For node replacements: the disruption budgets that pace the rollout. */
  readonly pacedBy?: string;
}

/** A generated file that does not parse as what the generator writes (a hand edit or a bad merge on the base branch). */
export class TreeError extends Error {}

/** The YAML documents of a generated file; a file that is not valid YAML, or not maps, is a {@link TreeError} naming it. */
function documentsOf(file: string, text: string, where: string): Record<string, unknown>[] {
  return parseAllDocuments(text).map((doc, i) => {
    const error = doc.errors[0];
    if (error) {
      const at = error.linePos?.[0];
      const why = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      throw new TreeError(`${file}${at ? `:${at.line}:${at.col}` : ''} in ${where} is not valid YAML (${why}): fix or regenerate it there first`);
    }
    const body: unknown = doc.toJS();
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new TreeError(`${file} in ${where}: document ${i + 1} is not a map: fix or regenerate it there first`);
    }
    return body as Record<string, unknown>;
  });
}

/**
 * Every resource in a set of generated files (YAML only; SUMMARY.md is not a resource).
 * @param where what the files are, for errors (`origin/main`, `the working tree`)
 */
export function resourcesOf(files: ReadonlyMap<string, string>, where = 'the working tree'): Map<string, Resource> {
  const out = new Map<string, Resource>();
  for (const [file, text] of files) {
    if (!file.endsWith('.yaml')) continue;
    const cluster = /^dist\/([^/]+)\//.exec(file)?.[1] ?? /^argocd\/([^/]+)\.yaml$/.exec(file)?.[1] ?? '';
    if (file.endsWith('/karpenter/values.yaml')) {
      const body = documentsOf(file, text, where)[0] ?? {};
      const r = { id: `HelmValues//${cluster}`, kind: 'HelmValues', name: cluster, cluster, file, body };
      out.set(r.id, r);
      continue;
    }
    for (const body of documentsOf(file, text, where)) {
      const meta = (body.metadata ?? {}) as { name?: string; namespace?: string };
      const kind = String(body.kind);
      const r = { id: `${kind}/${meta.namespace ?? ''}/${meta.name ?? ''}`, kind, name: meta.name ?? '', cluster, file, body };
      out.set(r.id, r);
    }
  }
  return out;
}

/** Classifies every difference between two generated trees, resource by resource and field by field. */
export function classify(base: ReadonlyMap<string, Resource>, head: ReadonlyMap<string, Resource>): Change[] {
  const changes: Change[] = [];
  const added = [...head.values()].filter((r) => !base.has(r.id));
  for (const before of base.values()) {
    const after = head.get(before.id);
    if (!after) changes.push(removed(before, added));
  }
  for (const r of added) changes.push(addition(r));
  for (const after of head.values()) {
    const before = base.get(after.id);
    if (before) changes.push(...changed(before, after, head));
  }
  return changes.sort((a, b) => RISKS.indexOf(a.risk) - RISKS.indexOf(b.risk) || a.resource.id.localeCompare(b.resource.id));
}

function removed(r: Resource, added: readonly Resource[]): Change {
  if (r.kind === 'NodePool' || r.kind === 'EC2NodeClass') {
    const team = labels(r).team;
    const successor = added.find((a) => a.kind === r.kind && a.cluster === r.cluster && team !== undefined && labels(a).team === team);
    const renamed = successor ? ` (renamed to ${successor.name}? a rename deletes the old pool and creates a new one)` : '';
    const what = r.kind === 'NodePool' ? 'every node of the pool drains' : 'the NodePools using it can no longer launch nodes, and theirs drain';
    return { risk: 'destructive', resource: r, action: 'removed', fields: [], why: `${what}, whatever the disruption budgets say${renamed}; Argo CD asks a person to confirm (Prune=confirm)` };
  }
  if (r.kind === 'Application' && ((r.body.metadata as { finalizers?: string[] } | undefined)?.finalizers ?? []).includes('resources-finalizer.argocd.argoproj.io')) {
    return {
      risk: 'destructive', resource: r, action: 'removed', fields: [],
      why: 'its resources finalizer makes Argo CD delete everything it deployed (CRDs, NodePools): their nodes drain',
    };
  }
  const risk: Risk = isController(r) ? 'controller' : 'other';
  return { risk, resource: r, action: 'removed', fields: [], why: risk === 'controller' ? 'changes the Karpenter controller' : 'no effect on nodes' };
}

function addition(r: Resource): Change {
  if (r.kind === 'NodePool') return { risk: 'capacity', resource: r, action: 'added', fields: [], why: 'new pool: Karpenter may launch nodes for it' };
  return { risk: isController(r) ? 'controller' : 'other', resource: r, action: 'added', fields: [], why: isController(r) ? 'changes the Karpenter controller' : 'no effect on nodes' };
}

/** A changed resource yields one change per risk its fields fall in. */
function changed(before: Resource, after: Resource, head: ReadonlyMap<string, Resource>): Change[] {
  const byRisk = new Map<Risk, FieldChange[]>();
  for (const d of diff(before.body, after.body)) {
    const path = renderPath(d.path);
    const risk = fieldRisk(after, d.path);
    const field: FieldChange = { path, before: 'oldValue' in d ? d.oldValue : undefined, after: 'value' in d ? d.value : undefined };
    byRisk.set(risk, [...(byRisk.get(risk) ?? []), field]);
  }
  return [...byRisk].map(([risk, fields]) => ({
    risk, resource: after, action: 'changed' as const, fields,
    why: WHY[risk](after),
    pacedBy: risk === 'replaces-nodes' ? pacing(after, head) : undefined,
  }));
}

const WHY: Record<Risk, (r: Resource) => string> = {
  'destructive': () => 'deletes nodes',
  'replaces-nodes': (r) => (r.kind === 'NodePool'
    ? 'Karpenter treats the change as drift and replaces the pool\'s nodes (requirements: the nodes that no longer match)'
    : 'Karpenter treats the change as drift and replaces the nodes of every NodePool using this EC2NodeClass'),
  'capacity': () => 'changes how much and when Karpenter scales or consolidates (no node is replaced for it)',
  'controller': () => 'changes the Karpenter controller (chart version or values)',
  'other': () => 'no effect on nodes',
};

/**
 * The risk of one changed field, from Karpenter's drift rules: the NodePool's
 * template and every EC2NodeClass setting are drift (static fields hashed, selector
 * terms and requirements resolved); weight, limits and disruption are behavioral.
 */
export function fieldRisk(r: Resource, path: readonly (string | number)[]): Risk {
  const [top, second] = path;
  if (r.kind === 'NodePool') {
    if (top === 'spec' && second === 'template') return 'replaces-nodes';
    if (top === 'spec') return 'capacity';
    return 'other';
  }
  if (r.kind === 'EC2NodeClass') return top === 'spec' ? 'replaces-nodes' : 'other';
  return isController(r) ? 'controller' : 'other';
}

function isController(r: Resource): boolean {
  return r.kind === 'HelmValues' || (r.kind === 'Application' && /-karpenter(-crd)?$/.test(r.name));
}

/** The budgets of the NodePools a drift-causing change replaces nodes of. */
function pacing(r: Resource, head: ReadonlyMap<string, Resource>): string {
  const pools = r.kind === 'NodePool' ? [r] : [...head.values()].filter((p) => p.kind === 'NodePool' && p.cluster === r.cluster
    && (p.body.spec as { template?: { spec?: { nodeClassRef?: { name?: string } } } })?.template?.spec?.nodeClassRef?.name === r.name);
  if (pools.length === 0) return 'no NodePool uses it';
  return pools.map((p) => `NodePool ${p.name}: ${budgets(p)}`).join('; ');
}

function budgets(pool: Resource): string {
  const list = ((pool.body.spec as { disruption?: { budgets?: Budget[] } })?.disruption?.budgets ?? [{ nodes: '10%' }])
    .filter((b) => !b.reasons || b.reasons.includes('Drifted'));
  if (list.length === 0) return 'no budget limits drift';
  return list.map((b) => (b.schedule ? `${b.nodes} at a time during "${b.schedule}" for ${b.duration}` : `${b.nodes} at a time`)).join(', ');
}

type Budget = { nodes: string; schedule?: string; duration?: string; reasons?: string[] };

function labels(r: Resource): Record<string, string> {
  return ((r.body.metadata as { labels?: Record<string, string> } | undefined)?.labels) ?? {};
}

function renderPath(path: readonly (string | number)[]): string {
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : /^[A-Za-z0-9_-]+$/.test(s) ? `${i ? '.' : ''}${s}` : `[${JSON.stringify(s)}]`)).join('');
}
