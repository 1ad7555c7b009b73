import { CostChange, costChanges } from './cost';
import { summaryDataOf } from './summary-data';
import { chartsOf, fieldChanges, hasResourcesFinalizer, isControllerApp, prunes } from './fields';
import { atLeast, FieldChange, Risk, RISKS } from './risk';
import { Guarded, guardedByPool, isTenancy, tenancyAddition, tenancyRemoval } from './tenancy';
import { catalogMatcher } from '../catalog/match';
import { release } from '../release/release';
import type { NodeSelectorRequirement } from '../catalog/requirements';
import { clusterOfPath } from '../output/layout';
import { Body, describe, FLEET, FolderIndex, GeneratedTree, isSmokeTest, labelsOf, Resource, sourcePaths } from './tree';
import { WindowChange, windowChanges } from './windows';

/** What a pull request does to one resource, classified. */
export interface Change {
  readonly risk: Risk;
  /** The resource as it is after the change (as it was, for a removal). */
  readonly resource: Resource;
  readonly action: 'added' | 'removed' | 'changed';
  /** What happens on the cluster, in a few words a reviewer understands. */
  readonly why: string;
  /** The fields behind this class (changed resources only), each with its own why. */
  readonly fields: readonly FieldChange[];
  /** For node replacements: the disruption budgets that pace the rollout. @default - not a node replacement */
  readonly pacedBy?: string;
}

/** A whole cluster that a pull request adds or removes. */
export interface ClusterChange {
  readonly cluster: string;
  readonly action: 'added' | 'removed';
  /** A likely rename, when a removed and an added cluster run on the same EKS cluster. @default - none */
  readonly note?: string;
  /** Its stage (null: none), as the summary data of the side it is on says (the base's for a removal). @default - unknown: no summary data */
  readonly stage?: number | null;
  /** Its window's name (null: none), as that summary data says. @default - unknown: no summary data */
  readonly window?: string | null;
}

/** Everything a pull request does to the fleet. */
export interface Review {
  /** Grouped by cluster (clusters with the loudest change first, the fleet last among equals), loudest class first within each. */
  readonly changes: readonly Change[];
  readonly clusters: readonly ClusterChange[];
  /** Teams whose cost ceiling changes (dist/summary.json at both refs). @default - none */
  readonly costs?: readonly CostChange[];
  /** What the review could not compare, and why (a ref without readable summary data). @default - none */
  readonly notes?: readonly string[];
  /** Clusters whose window changes, as the config says it (dist/summary.json at both refs). @default - none */
  readonly windows?: readonly WindowChange[];
}

/** The kinds whose removal drains nodes. */
const POOL_KINDS = new Set(['NodePool', 'EC2NodeClass']);

/**
 * Classifies every difference between two generated trees, resource by resource and
 * field by field. Only files whose text differs are read: a resource in a file that
 * is the same on both sides is the same resource.
 */
export function review(base: GeneratedTree, head: GeneratedTree): Review {
  const changedFiles = [...new Set([...base.files.keys(), ...head.files.keys()])].filter((f) => base.files.get(f) !== head.files.get(f));
  const before = resources(base, changedFiles);
  const after = resources(head, changedFiles);
  const context = new Context(base, head, before, after);
  const changes: Change[] = [];
  const removed = [...before.values()].filter((r) => !after.has(r.key));
  const added = [...after.values()].filter((r) => !before.has(r.key));
  const renames = likelyRenames(removed, added);
  for (const r of removed) changes.push(removal(r, context, renames.get(r)));
  for (const r of added) changes.push(addition(r, context, renames.get(r)));
  for (const a of after.values()) {
    const b = before.get(a.key);
    if (b) changes.push(...modification(b, a, context));
  }
  changes.push(...ownerChanges(context));
  const costs = costChanges(base, head);
  // The working tree always has summary data; a base generated before it has none.
  const [was, now] = [summaryDataOf(base), summaryDataOf(head)];
  const notes = 'missing' in was && 'data' in now ? [`cost ceilings and Kubernetes versions are not compared: ${was.missing}`] : [];
  const windows = 'data' in was && 'data' in now ? windowChanges(was.data, now.data) : [];
  // Where a cluster added or removed sits (stage, window), from the side it is on: when it happens depends on it.
  const placed = (e: ClusterChange): ClusterChange => {
    const side = e.action === 'removed' ? was : now;
    const c = 'data' in side ? side.data.clusters.find((x) => x.id === e.cluster) : undefined;
    return c ? { ...e, stage: c.stage, window: c.window?.name ?? null } : e;
  };
  return {
    changes: sortByCluster(withHashVersionBumps(withKubernetesUpgrades(changes.map((c) => (c.resource.kind === 'NodeOverlay' ? overlayChange(c, context) : c)), context), context)),
    clusters: clusterChanges(base, head, before, after).map(placed),
    ...(costs.length ? { costs } : {}),
    ...(notes.length ? { notes } : {}),
    ...(windows.length ? { windows } : {}),
  };
}

/** What each side holds and how to look further into it, read lazily. */
class Context {
  private readonly owners = new Map<GeneratedTree, FolderIndex<Resource>>();
  private readonly pools = new Map<string, Map<string, Resource[]>>();
  private poolsBefore?: Map<string, Resource>;
  private readonly guarded = new Map<string, Map<string, Guarded>>();

  public constructor(
    public readonly base: GeneratedTree,
    public readonly head: GeneratedTree,
    public readonly before: ReadonlyMap<string, Resource>,
    public readonly after: ReadonlyMap<string, Resource>,
  ) {}

  /**
   * The Applications of a tree that sync a file. The first call reads every
   * Application of the tree: only a pull request that moves files or repoints an
   * Application asks.
   */
  public ownersOf(tree: GeneratedTree, file: string): Resource[] {
    let index = this.owners.get(tree);
    if (!index) {
      const apps = [...tree.files].filter(([, text]) => text.includes('Application'))
        .flatMap(([f]) => tree.resourcesIn(f).filter((r) => r.kind === 'Application'));
      index = new FolderIndex(apps.map((app) => ({ owner: app, paths: sourcePaths(app.body) })));
      this.owners.set(tree, index);
    }
    return index.ownersOf(file);
  }

  /** The Application of this key in the head tree, if it is still there. */
  public headVersion(app: Resource): Resource | undefined {
    return this.after.get(app.key) ?? (this.base.files.get(app.file) === this.head.files.get(app.file) ? app : undefined);
  }

  /**
   * The pools a cluster's tenancy objects guard, in the base (`before`) or the head (`after`)
   * tree: its parameters and policy live in one file, so when one changed, all of them are in
   * the changed files' resources.
   */
  public tenancyOf(side: 'before' | 'after', cluster: string): Map<string, Guarded> {
    const key = `${side}\0${cluster}`;
    let found = this.guarded.get(key);
    if (!found) {
      found = guardedByPool([...this[side].values()].filter((r) => r.cluster === cluster && isTenancy(r)));
      this.guarded.set(key, found);
    }
    return found;
  }

  /** Every NodePool of a cluster in the head tree. */
  public headPools(cluster: string): Resource[] {
    return [...this.head.files].filter(([f, text]) => clusterOfPath(f) === cluster && text.includes('NodePool'))
      .flatMap(([f]) => this.head.resourcesIn(f).filter((r) => r.kind === 'NodePool'));
  }

  /** The base NodePool (from a changed file) that uses an EC2NodeClass. */
  public basePoolUsing(nodeClass: Resource): Resource | undefined {
    if (!this.poolsBefore) {
      this.poolsBefore = new Map();
      for (const p of this.before.values()) if (p.kind === 'NodePool') this.poolsBefore.set(`${p.cluster}\0${nodeClassOf(p)}`, p);
    }
    return this.poolsBefore.get(`${nodeClass.cluster}\0${nodeClass.name}`);
  }

  /**
   * The head NodePools of a cluster that use an EC2NodeClass: those in changed files,
   * and those in unchanged files that mention the class's name (only those are read).
   */
  public poolsUsing(nodeClass: Resource): Resource[] {
    let byClass = this.pools.get(nodeClass.cluster);
    if (!byClass) {
      byClass = new Map();
      const changedClasses = new Set([...this.after.values()].filter((r) => r.kind === 'EC2NodeClass' && r.cluster === nodeClass.cluster).map((r) => r.name));
      const candidates = [...this.after.values()].filter((r) => r.kind === 'NodePool' && r.cluster === nodeClass.cluster);
      for (const [file, text] of this.head.files) {
        if (clusterOfPath(file) !== nodeClass.cluster || this.base.files.get(file) !== text || !text.includes('NodePool')) continue;
        if (![...names(text)].some((n) => changedClasses.has(n))) continue;
        candidates.push(...this.head.resourcesIn(file).filter((r) => r.kind === 'NodePool'));
      }
      for (const pool of candidates) {
        const ref = obj(obj(obj(obj(pool.body.spec).template).spec).nodeClassRef);
        if (ref.kind !== undefined && ref.kind !== 'EC2NodeClass') continue;
        const name = String(ref.name);
        byClass.set(name, [...(byClass.get(name) ?? []), pool]);
      }
      this.pools.set(nodeClass.cluster, byClass);
    }
    return byClass.get(nodeClass.name) ?? [];
  }
}

/** The resources of the given files of a tree, by key. */
function resources(tree: GeneratedTree, files: readonly string[]): Map<string, Resource> {
  const out = new Map<string, Resource>();
  for (const file of files) for (const r of tree.resourcesIn(file)) out.set(r.key, r);
  return out;
}

function removal(r: Resource, context: Context, rename?: string): Change {
  const change = (risk: Risk, why: string): Change => ({ risk, resource: r, action: 'removed', fields: [], why });
  if (r.kind === 'NodePool') {
    const option = goesWithItsApplication(r, context) ? 'Delete=confirm' : 'Prune=confirm';
    const confirm = syncOptions(r).split(',').map((o) => o.trim()).includes(option) ? `; Argo CD asks a person to confirm (${option})` : '';
    return change('destructive', `every node of the pool drains, whatever the disruption budgets say${confirm}${rename ? `; ${rename}` : ''}`);
  }
  if (r.kind === 'EC2NodeClass') {
    const pool = context.basePoolUsing(r);
    const gone = pool && !context.after.has(pool.key) ? `; NodePool ${pool.name} goes with it` : '';
    return change('destructive', `the NodePools using it can no longer launch nodes (Karpenter deletes it once no node uses it)${gone}${rename ? `; ${rename}` : ''}`);
  }
  if (isTenancy(r)) {
    // The policy, its binding or its CRD: as loud as a removed pool, every pool it guarded opens to every namespace.
    const option = goesWithItsApplication(r, context) ? 'Delete=confirm' : 'Prune=confirm';
    const confirm = syncOptions(r).split(',').map((o) => o.trim()).includes(option) ? `; Argo CD asks a person to confirm (${option})` : '';
    const policyGoes = ![...context.after.values()].some((x) => x.cluster === r.cluster && x.kind === 'ValidatingAdmissionPolicy');
    const { risk, why } = tenancyRemoval(r, context.tenancyOf('before', r.cluster), context.tenancyOf('after', r.cluster), policyGoes);
    return change(risk, `${why}${confirm}`);
  }
  if (r.kind === 'Application') return applicationRemoval(r, context);
  if (isDriftGate(r)) return change('other', driftGateRemovalWhy(r, context));
  if (isSmokeTest(r)) return change('other', 'a smoke test: no effect on nodes');
  if (r.kind === 'HelmValues') return change('controller', 'the Karpenter controller loses its values');
  return change('other', 'no effect on nodes');
}

/**
 * Whether a removed object goes with the Application that synced it: every Application
 * of the base that synced its file is removed too, one of them with the resources
 * finalizer. Argo CD then deletes it as part of deleting that Application, which the
 * object's `Delete=confirm` holds for a person; `Prune=confirm` only holds a prune by an
 * Application that stays (a pool removed from a team that keeps others).
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/#resource-deletion-with-confirmation
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/#resource-pruning-with-confirmation
 */
function goesWithItsApplication(r: Resource, context: Context): boolean {
  const owners = context.ownersOf(context.base, r.file);
  return owners.length > 0 && owners.every((o) => !context.headVersion(o)) && owners.some((o) => hasResourcesFinalizer(o.body));
}

/**
 * An Application removed: with the resources finalizer, Argo CD deletes everything
 * it deployed (cascading through child Applications); without it, what it deployed stays.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/app_deletion/
 */
function applicationRemoval(app: Resource, context: Context): Change {
  const paths = sourcePaths(app.body);
  const index = new FolderIndex([{ owner: app, paths }]);
  const deployed = paths.length === 0 ? [] : [...context.base.files.keys()].filter((f) => index.ownersOf(f).length > 0).flatMap((f) => context.base.resourcesIn(f));
  const kinds = countKinds(deployed);
  const charts = chartsOf(app.body).map((c) => `chart ${c}`);
  const what = [...charts, ...kinds].join(', ') || 'nothing in this tree';
  const pools = deployed.some((d) => POOL_KINDS.has(d.kind));
  const tenancy = deployed.some(isTenancy);
  const apps = deployed.some((d) => d.kind === 'Application');
  const change = (risk: Risk, why: string): Change => ({ risk, resource: app, action: 'removed', fields: [], why });
  if (!hasResourcesFinalizer(app.body)) {
    return change(isControllerApp(app.body) ? 'controller' : 'other', `no resources finalizer: Argo CD removes the Application and keeps what it deployed (${what})`);
  }
  const consequence = chartsOf(app.body).some((c) => c.startsWith('karpenter-crd'))
    ? 'deleting the Karpenter CRDs deletes every NodePool, EC2NodeClass and NodeClaim: every Karpenter node drains'
    : isControllerApp(app.body) ? 'the Karpenter controller is uninstalled, and nothing launches or replaces nodes until it is back'
      : pools ? 'every node of those pools drains'
        : tenancy ? 'the tenancy policy goes: pods of any namespace may use every team\'s pools again'
          : apps ? 'their finalizers delete what they deployed in turn'
          : undefined;
  if (consequence === undefined) return change('other', `its resources finalizer deletes what it deployed (${what}); no node drains`);
  return change('destructive', `its resources finalizer deletes what it deployed (${what}) — ${consequence}`);
}

function addition(r: Resource, context: Context, rename?: string): Change {
  const change = (risk: Risk, why: string): Change => ({ risk, resource: r, action: 'added', fields: [], why: `${why}${rename ? `; ${rename}` : ''}` });
  if (r.kind === 'NodePool') return change('capacity', 'new pool: Karpenter may launch nodes for it');
  if (r.kind === 'EC2NodeClass') return change('other', 'no node until a NodePool uses it');
  if (isTenancy(r)) {
    const { risk, why } = tenancyAddition(r, context.tenancyOf('before', r.cluster));
    return change(risk, why);
  }
  if (r.kind === 'Application') {
    const paths = sourcePaths(r.body).map((p) => p.path);
    const what = [...chartsOf(r.body).map((c) => `chart ${c}`), ...paths].join(', ');
    return change(isControllerApp(r.body) ? 'controller' : 'other', `Argo CD starts syncing ${what || 'it'}`);
  }
  if (isDriftGate(r)) return change('other', driftGateAdditionWhy(r, context));
  if (isSmokeTest(r)) return change('other', 'a smoke test: no effect on nodes');
  if (r.kind === 'HelmValues') return change('controller', 'new values for the Karpenter controller');
  return change('other', 'no effect on nodes');
}

/** The drift gate's Job of a cluster a later stage waits for (docs/windows.md). */
function isDriftGate(r: Resource): boolean {
  return r.kind === 'Job' && labelsOf(r.body)['app.kubernetes.io/component'] === 'drift-gate';
}

/** A gate Job's image and what it waits for (its `GATE` environment variable). */
function gateOf(r: Resource): { image: string; spec: Record<string, unknown> } {
  const container = ((obj(obj(obj(r.body.spec).template).spec).containers as Body[] | undefined) ?? [])[0] ?? {};
  const env = ((container.env as { name: string; value?: string }[] | undefined) ?? []).find((e) => e.name === 'GATE');
  let spec: Record<string, unknown> = {};
  try {
    spec = JSON.parse(env?.value ?? '{}') as Record<string, unknown>;
  } catch {
    // A hand-edited gate: nothing to compare but its image.
  }
  return { image: String(container.image ?? ''), spec };
}

/** The other side's gate Job of the same cluster, when the change replaces one gate by another. */
function counterpartGate(r: Resource, side: ReadonlyMap<string, Resource>, other: ReadonlyMap<string, Resource>): Resource | undefined {
  return [...side.values()].find((x) => isDriftGate(x) && x.cluster === r.cluster && x.key !== r.key && !other.has(x.key));
}

/**
 * A new gate Job: a new name is a new gate, because it is named by everything in it. Argo CD
 * prunes the old one and creates it at once (its own Application, in the root's last wave: no
 * sync waits for it); it touches no node, and the next stage is promoted once it has seen
 * Karpenter finish with the revision.
 */
function driftGateAdditionWhy(r: Resource, context: Context): string {
  const old = counterpartGate(r, context.before, context.after);
  const what = 'it touches no node and no sync waits for it; the next stage is promoted once it sees Karpenter finish with this revision';
  if (!old) return `a drift gate for cluster ${r.cluster}: ${what}`;
  const [a, b] = [gateOf(old), gateOf(r)];
  const changed = [
    a.image !== b.image ? `image ${a.image} -> ${b.image}` : undefined,
    ...['controller', 'nodePools', 'nodeClasses', 'nodeOverlays', 'settleSeconds', 'pollSeconds']
      .filter((k) => JSON.stringify(a.spec[k]) !== JSON.stringify(b.spec[k]))
      .map((k) => ({ controller: 'the controller it waits for', nodePools: 'the NodePools', nodeClasses: 'the EC2NodeClasses', nodeOverlays: 'the NodeOverlays', settleSeconds: 'how long it settles', pollSeconds: 'how often it looks' } as Record<string, string>)[k]),
  ].filter((x): x is string => x !== undefined);
  return `replaces drift gate ${old.name} of cluster ${r.cluster} (${changed.join(', ') || 'its program'} changed): a new Job, never an edit of the old one (a Job's template cannot change); ${what}`;
}

function driftGateRemovalWhy(r: Resource, context: Context): string {
  const next = counterpartGate(r, context.after, context.before);
  return next ? `replaced by drift gate ${next.name} (see there): no node is touched` : `cluster ${r.cluster} no longer gates a later stage: no node is touched`;
}

/**
 * A resource on both sides: one change, under the loudest class its fields fall in, listing
 * every changed field (loudest first) with its own class and why. Drift of a class no
 * NodePool uses replaces no node, so those fields count as `other`.
 */
function modification(before: Resource, after: Resource, context: Context): Change[] {
  const order = (list: FieldChange[]) => list.map((f, i) => [f, i] as const)
    .sort(([a, i], [b, j]) => RISKS.indexOf(a.risk) - RISKS.indexOf(b.risk) || i - j).map(([f]) => f);
  let fields = order(fieldChanges(before, after));
  if (fields.length === 0) return [];
  const drifts = fields.some((f) => f.risk === 'replaces-nodes');
  const pools = !drifts ? [] : after.kind === 'NodePool' ? [after] : context.poolsUsing(after);
  const unused = drifts && pools.length === 0;
  if (unused) fields = order(fields.map((f) => (f.risk === 'replaces-nodes' ? { ...f, risk: 'other' as Risk } : f)));
  const risk = fields[0].risk;
  if (risk === 'replaces-nodes') {
    const every = fields.some((f) => f.risk === risk && f.scope === 'every');
    const which = after.kind === 'NodePool' ? 'of the pool' : `of NodePool ${pools.map((p) => p.name).join(', ')}`;
    return [{
      risk, resource: after, action: 'changed', fields,
      why: every ? `Karpenter replaces every node ${which} (drift)` : `Karpenter may replace some nodes ${which}: those that no longer match (drift)`,
      pacedBy: pools.map((p) => `NodePool ${p.name}: ${budgets(p)}`).join('; '),
    }];
  }
  const why = unused && risk === 'other' ? 'no NodePool uses it: no node is replaced' : summary(risk, after);
  return [{ risk, resource: after, action: 'changed', fields, why }];
}

/**
 * A NodeOverlay added, changed or removed: it replaces no node, but changes the price or
 * capacity Karpenter sees for the instance types it picks, and so what consolidation and new
 * launches choose. The change names the head NodePools of its cluster that admit one of those
 * types (before or after the change), by the catalog's requirement semantics.
 * @see https://karpenter.sh/docs/concepts/nodeoverlays/
 */
function overlayChange(c: Change, context: Context): Change {
  const before = context.before.get(c.resource.key);
  const after = context.after.get(c.resource.key);
  const matcher = catalogMatcher();
  const picked = new Set([before, after].flatMap((o) => (o ? matcher.match(overlayRequirements(o)).admitted.map((t) => t.name) : [])));
  const poolNames = new Set([before, after].flatMap((o) => (o ? overlayRequirements(o) : []))
    .filter((r) => r.key === 'karpenter.sh/nodepool' && r.operator === 'In').flatMap((r) => r.values ?? []));
  const pools = context.headPools(c.resource.cluster).filter((p) => (poolNames.size === 0 || poolNames.has(p.name))
    && matcher.match(list<NodeSelectorRequirement>(obj(obj(obj(p.body.spec).template).spec).requirements)).admitted.some((t) => picked.has(t.name)));
  const which = pools.length ? `NodePool ${pools.map((p) => p.name).join(', ')}` : 'no NodePool of the cluster';
  return {
    ...c,
    risk: pools.length ? 'capacity' : 'other',
    why: `changes the prices or capacity Karpenter sees for ${which}: no node is replaced, but consolidation and new launches may pick other instance types`,
  };
}

function overlayRequirements(o: Resource): NodeSelectorRequirement[] {
  return list<NodeSelectorRequirement>(obj(o.body.spec).requirements);
}

function list<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** Each cluster's Kubernetes minor version, as a tree's summary data states it (`dist/summary.json`; none without it). */
function kubernetesVersions(tree: GeneratedTree): Map<string, string> {
  const read = summaryDataOf(tree);
  if (!('data' in read)) return new Map();
  return new Map(read.data.clusters.flatMap((c) => (c.kubernetesVersion !== null ? [[c.id, c.kubernetesVersion] as [string, string]] : [])));
}

/**
 * A cluster whose Kubernetes version changes: every AMI alias of it resolves through the SSM
 * parameter of its Kubernetes version, so once the control plane runs the new version every
 * node of a pool whose EC2NodeClass selects by alias drifts (AMIDrift). Pinned AMI ids do not
 * re-resolve. Each such pool gets the field, merged into its own entry when it has one.
 * @see https://karpenter.sh/docs/concepts/nodeclasses/#specamiselectorterms (alias resolution through SSM)
 * @see https://karpenter.sh/docs/concepts/disruption/#drift
 */
function withKubernetesUpgrades(changes: Change[], context: Context): Change[] {
  const was = kubernetesVersions(context.base);
  const now = kubernetesVersions(context.head);
  const out = [...changes];
  for (const [cluster, to] of now) {
    const from = was.get(cluster);
    if (from === undefined || from === to) continue;
    const files = [...context.head.files.keys()].filter((f) => clusterOfPath(f) === cluster && f.endsWith('.yaml'));
    const all = files.filter((f) => /EC2NodeClass|NodePool/.test(context.head.files.get(f) ?? '')).flatMap((f) => context.head.resourcesIn(f));
    const aliases = new Map<string, string[]>();
    for (const c of all) {
      if (c.kind !== 'EC2NodeClass') continue;
      const terms = obj(c.body.spec).amiSelectorTerms;
      const list = (Array.isArray(terms) ? terms : []).map((t) => obj(t).alias).filter((a): a is string => typeof a === 'string');
      if (list.length) aliases.set(c.name, list);
    }
    for (const pool of all) {
      // A pool this change adds has its own entry, and no node yet to replace.
      if (pool.kind !== 'NodePool' || (context.after.has(pool.key) && !context.before.has(pool.key))) continue;
      const nodeClass = nodeClassOf(pool);
      const alias = nodeClass !== undefined ? aliases.get(nodeClass) : undefined;
      if (!alias) continue;
      const field: FieldChange = {
        risk: 'replaces-nodes', scope: 'every',
        text: `Kubernetes ${from} -> ${to}: AMI alias ${alias.join(', ')} (EC2NodeClass ${nodeClass}) re-resolves for ${to}`,
        why: `an alias resolves through the SSM parameter of the cluster's Kubernetes version: once the control plane runs ${to}, every node of the pool drifts (AMIDrift) and is replaced; `
          + `order: 1. pin AMIs that exist for both ${from} and ${to} (synth checks the pins against ${to}) and let Argo CD sync them, 2. upgrade the control plane, 3. Karpenter replaces the nodes, paced by the budgets`,
      };
      const i = out.findIndex((c) => c.resource.key === pool.key && c.action === 'changed');
      const existing = i >= 0 ? out[i] : undefined;
      const why = `Karpenter replaces every node of the pool once the control plane runs Kubernetes ${to} (AMI drift)`;
      const merged: Change = existing
        ? { ...existing, risk: atLeast(existing.risk, 'replaces-nodes') ? existing.risk : 'replaces-nodes', fields: [field, ...existing.fields].sort((a, b) => RISKS.indexOf(a.risk) - RISKS.indexOf(b.risk)),
          why: atLeast(existing.risk, 'replaces-nodes') ? existing.why : why,
          pacedBy: existing.pacedBy ?? `NodePool ${pool.name}: ${budgets(pool)}` }
        : { risk: 'replaces-nodes', resource: pool, action: 'changed', fields: [field], why, pacedBy: `NodePool ${pool.name}: ${budgets(pool)}` };
      if (i >= 0) out[i] = merged;
      else out.push(merged);
    }
  }
  return out;
}

/** Each cluster's Karpenter version, as a tree's summary data states it (none without it). */
function karpenterVersions(tree: GeneratedTree): Map<string, string> {
  const read = summaryDataOf(tree);
  return 'data' in read ? new Map(read.data.clusters.map((c) => [c.id, c.karpenterVersion])) : new Map();
}

/**
 * EC2NodeClass fields its hash leaves out (`hash:"ignore"`: checked for drift another way, or
 * hashed through a resolved value); an edit of any other spec field changes the hash.
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/ec2nodeclass.go#L41-L86
 */
const UNHASHED_NODE_CLASS_FIELDS = new Set(['subnetSelectorTerms', 'securityGroupSelectorTerms', 'capacityReservationSelectorTerms', 'ipPrefixCount', 'amiSelectorTerms', 'amiFamily']);

/**
 * A change that edits an EC2NodeClass's hashed fields and, in the same change, moves its cluster's
 * controller across a bump of `EC2NodeClassHashVersion` (v5 -> v6 in 1.15). Whether existing nodes
 * roll for the edit is then a race, which the review says rather than guess:
 * - the upgraded controller, on its first look at an EC2NodeClass of the old hash version, re-stamps
 *   every NodeClaim not yet Drifted with the hash of the EC2NodeClass as it is at that moment
 *   (hash/controller.go L54-L61, L88-L120): with the edit already in place, those nodes never drift
 *   for it and keep the old fields until replaced for another reason;
 * - but the old controller marks NodeClaims Drifted within seconds of the edit (the disruption
 *   controller watches NodeClasses: core nodeclaim/disruption/controller.go L122-L123), and a
 *   Drifted NodeClaim stays Drifted (hash/controller.go L104-L110: its hash is not re-stamped); and an edit synced after the
 *   upgraded controller's re-stamp drifts the nodes as usual. Argo CD syncs the controller and the
 *   pools in their own Applications, so neither order is guaranteed.
 * A release read without its Go code (the upgrade's OPTIONAL_RELEASE_FILES) has no known hash
 * version: it may bump, and the review says so.
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/controllers/nodeclass/hash/controller.go#L54-L61
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/controllers/nodeclass/hash/controller.go#L88-L120
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/nodeclaim/disruption/controller.go#L122-L123
 * @see https://github.com/kubernetes-sigs/karpenter/blob/main/designs/drift-hash-versioning.md
 */
function withHashVersionBumps(changes: Change[], context: Context): Change[] {
  const was = karpenterVersions(context.base);
  const now = karpenterVersions(context.head);
  const bumps = new Map<string, { from: string; to: string; hashFrom?: string; hashTo?: string }>();
  for (const [cluster, to] of now) {
    const from = was.get(cluster);
    if (from === undefined || from === to) continue;
    const hashFrom = release(from)?.ec2NodeClassHashVersion;
    const hashTo = release(to)?.ec2NodeClassHashVersion;
    if (hashFrom === undefined || hashTo === undefined || hashFrom !== hashTo) bumps.set(cluster, { from, to, hashFrom, hashTo });
  }
  if (bumps.size === 0) return changes;
  return changes.map((c) => {
    const bump = bumps.get(c.resource.cluster);
    const before = context.before.get(c.resource.key);
    if (!bump || c.resource.kind !== 'EC2NodeClass' || c.action !== 'changed' || !before) return c;
    const [a, b] = [obj(before.body.spec), obj(c.resource.body.spec)];
    const edited = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !UNHASHED_NODE_CLASS_FIELDS.has(k) && JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort().join(', ');
    if (edited === '') return c;
    const known = bump.hashFrom !== undefined && bump.hashTo !== undefined;
    const unknown = [bump.hashFrom === undefined ? bump.from : undefined, bump.hashTo === undefined ? bump.to : undefined].filter((v) => v !== undefined).join(' and ');
    const field: FieldChange = {
      risk: c.risk,
      text: known
        ? `Karpenter ${bump.from} -> ${bump.to} in the same change: EC2NodeClass hash version ${bump.hashFrom} -> ${bump.hashTo}, with ${edited} edited`
        : `Karpenter ${bump.from} -> ${bump.to} in the same change, with ${edited} edited; the EC2NodeClass hash version of ${unknown} is unknown (read without pkg/apis/v1/ec2nodeclass.go)`,
      why: `${known ? '' : 'if the upgrade moves the hash version, '}whether existing nodes roll for this edit is a race: the upgraded controller re-stamps every NodeClaim not yet Drifted `
        + `with the hash of the EC2NodeClass as it is when it first looks; if the edit is in place by then and the old controller has not yet marked them Drifted, those nodes never roll `
        + `and keep the old ${edited} until replaced for another reason; otherwise they roll as usual. Argo CD syncs the controller and the pools separately, so either may come first. `
        + 'Safe order: upgrade the controller first (its own pull request, synced), then edit the EC2NodeClass',
    };
    const fields = c.fields.map((f) => ({ ...f, why: `${f.why}, unless the controller upgrade in this change re-stamps them first (above)` }));
    return { ...c, fields: [field, ...fields], why: `${c.why}; or some never do: the controller upgrade in the same change may re-stamp them first (upgrade it first, then edit)` };
  });
}

function summary(risk: Risk, r: Resource): string {
  switch (risk) {
    case 'capacity': return 'no node is replaced: changes how much Karpenter launches, or when it consolidates';
    case 'controller': return 'changes the Karpenter controller (chart version or values)';
    case 'access': return 'changes which namespaces may use which teams\' pools; no node is replaced';
    case 'destructive': return 'deletes nodes';
    case 'replaces-nodes': return 'replaces nodes';
    default: return isSmokeTest(r) ? 'a smoke test: no effect on nodes' : 'no effect on nodes';
  }
}

/**
 * Resources whose Application changes while they stay: a file moved to another
 * folder (pools moving to per-team folders), or an Application added, removed or
 * pointed elsewhere. The old Application matters: if it still prunes, Argo CD may
 * delete the resource before the new one adopts it.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/auto_sync/#automatic-pruning
 */
function ownerChanges(context: Context): Change[] {
  const { base, head, before, after } = context;
  const candidates = new Map<string, [Resource, Resource]>();
  for (const a of after.values()) {
    const b = before.get(a.key);
    if (b && b.file !== a.file) candidates.set(a.key, [b, a]);
  }
  const repointed = [...new Set([...before.keys(), ...after.keys()])]
    .map((k) => [before.get(k), after.get(k)] as const)
    .filter(([b, a]) => (b ?? a)?.kind === 'Application' && JSON.stringify(b && sourcePaths(b.body)) !== JSON.stringify(a && sourcePaths(a.body)));
  if (repointed.length > 0) {
    const index = new FolderIndex(repointed.map(([b, a]) => ({ owner: true, paths: [...(b ? sourcePaths(b.body) : []), ...(a ? sourcePaths(a.body) : [])] })));
    const files = new Set([...base.files.keys(), ...head.files.keys()].filter((f) => index.ownersOf(f).length > 0));
    const inBase = new Map([...files].flatMap((f) => base.resourcesIn(f)).map((r) => [r.key, r]));
    for (const a of [...files].flatMap((f) => head.resourcesIn(f))) {
      const b = inBase.get(a.key);
      if (b) candidates.set(a.key, [b, a]);
    }
  }
  const out: Change[] = [];
  for (const [b, a] of candidates.values()) {
    const was = context.ownersOf(base, b.file);
    const now = context.ownersOf(head, a.file);
    const names = (apps: Resource[]) => apps.map((x) => x.name).sort();
    if (names(was).join() === names(now).join()) continue;
    const who = (apps: Resource[]) => (apps.length ? `Application ${names(apps).join(', ')}` : 'no Application');
    const text = `synced by ${who(now)} (before: ${who(was)})`;
    const nowNames = new Set(names(now));
    const lost = was.filter((o) => !nowNames.has(o.name));
    const adopter = now.length ? `Application ${names(now).join(', ')} adopts it` : 'no Application syncs it any more: Argo CD leaves it as it is';
    // An Application removed with nothing taking over: its own line says what becomes of what it deployed.
    if (now.length === 0 && lost.every((o) => !context.headVersion(o))) continue;
    const fields = lost.length === 0 ? [{ risk: 'other' as const, text, why: adopter }] : lost.map((o) => ownerLoss(o, a, text, adopter, context));
    const risk = RISKS.find((r) => fields.some((f) => f.risk === r)) ?? 'other';
    out.push({ risk, resource: a, action: 'changed', fields, why: risk === 'destructive' ? fields.find((f) => f.risk === 'destructive')?.why ?? '' : adopter });
  }
  return out;
}

function ownerLoss(old: Resource, r: Resource, text: string, adopter: string, context: Context): FieldChange {
  const current = context.headVersion(old);
  if (!current) return { risk: 'other', text, why: `Application ${old.name} is removed (see its own line); ${adopter}` };
  if (!prunes(current.body)) return { risk: 'other', text, why: `Application ${old.name} does not prune: it leaves the object alone, and ${adopter}` };
  const drains = POOL_KINDS.has(r.kind);
  const why = `Application ${old.name} still prunes and no longer holds it: Argo CD may delete it before the new Application adopts it`
    + `${drains ? ', and every node of the pool drains' : ''}${/Prune=confirm/.test(syncOptions(r)) ? ' (Prune=confirm asks a person first)' : ''}`
    + `; turn off prune on ${old.name} for this release`;
  return { risk: drains ? 'destructive' : 'other', text, why };
}

/**
 * A NodePool removed and one added in the same cluster with the same spec apart
 * from its name and team is likely a rename (of the pool, or of its team); their
 * EC2NodeClasses are renamed with them. Both sides get a note.
 */
function likelyRenames(removed: readonly Resource[], added: readonly Resource[]): Map<Resource, string> {
  const notes = new Map<Resource, string>();
  const pairs = pairUp(removed.filter((r) => r.kind === 'NodePool'), added.filter((r) => r.kind === 'NodePool'));
  const classes = (rs: readonly Resource[]) => new Map(rs.filter((r) => r.kind === 'EC2NodeClass').map((r) => [`${r.cluster}\0${r.name}`, r]));
  const [removedClasses, addedClasses] = [classes(removed), classes(added)];
  const poolOfClass = new Map(removed.filter((r) => r.kind === 'NodePool').map((p) => [`${p.cluster}\0${nodeClassOf(p)}`, p]));
  for (const [old, { to, others }] of pairs) {
    note(old, to, others);
    const [oldClass, newClass] = [removedClasses.get(`${old.cluster}\0${nodeClassOf(old)}`), addedClasses.get(`${to.cluster}\0${nodeClassOf(to)}`)];
    if (oldClass && newClass && signature(oldClass) === signature(newClass)) note(oldClass, newClass, []);
  }
  // A class removed without its NodePool: matched on its own.
  const alone = [...removedClasses.values()].filter((c) => !poolOfClass.has(`${c.cluster}\0${c.name}`));
  for (const [old, { to, others }] of pairUp(alone, [...addedClasses.values()])) note(old, to, others);
  return notes;

  function note(old: Resource, to: Resource, others: readonly Resource[]): void {
    const [team, newTeam] = [labelsOf(old.body).team, labelsOf(to.body).team];
    const teamNote = newTeam !== undefined && newTeam !== team ? ` of team ${newTeam} (team ${team} renamed?)` : '';
    const more = others.length ? ` (or ${others.slice(0, 3).map((m) => m.name).join(', ')}${others.length > 3 ? ', ...' : ''})` : '';
    notes.set(old, `likely renamed to ${to.name}${teamNote}${more}: a rename deletes the old ${old.kind} and creates a new one`);
    if (!notes.has(to)) notes.set(to, `likely the new name of ${old.name}${teamNote}`);
  }
}

/** Each removed resource with the added one of the same signature (the same team first), and the other candidates. */
function pairUp(removed: readonly Resource[], added: readonly Resource[]): Map<Resource, { to: Resource; others: Resource[] }> {
  const bySignature = new Map<string, Resource[]>();
  for (const r of added) {
    const sig = signature(r);
    bySignature.set(sig, [...(bySignature.get(sig) ?? []), r]);
  }
  const out = new Map<Resource, { to: Resource; others: Resource[] }>();
  for (const r of removed) {
    const matches = bySignature.get(signature(r)) ?? [];
    if (matches.length === 0) continue;
    const to = matches.find((m) => labelsOf(m.body).team === labelsOf(r.body).team) ?? matches[0];
    out.set(r, { to, others: matches.filter((m) => m !== to) });
  }
  return out;
}

/**
 * A resource's body with its own name and its team replaced by one placeholder, as
 * canonical JSON: a pool `web` that becomes `web-v2` of team `web`, or `ml-gpu` that
 * becomes `ai-gpu` of team `ai`, keeps its signature.
 */
function signature(r: Resource): string {
  const team = labelsOf(r.body).team;
  const own = (v: string) => v === r.name || (team !== undefined && v === team);
  const swap = (v: unknown): unknown => {
    if (typeof v === 'string') return v.split('/').map((part) => (own(part) ? '\0' : part)).join('/');
    if (Array.isArray(v)) return v.map(swap);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, swap((v as Body)[k])]));
    return v;
  };
  return `${r.cluster}\0${r.kind}\0${JSON.stringify(swap({ ...r.body, metadata: { ...obj(r.body.metadata), name: undefined } }))}`;
}

function clusterChanges(base: GeneratedTree, head: GeneratedTree, before: ReadonlyMap<string, Resource>, after: ReadonlyMap<string, Resource>): ClusterChange[] {
  const [was, now] = [base.clusters(), head.clusters()];
  const eks = (rs: ReadonlyMap<string, Resource>, cluster: string) => [...rs.values()]
    .filter((r) => r.kind === 'HelmValues' && r.cluster === cluster)
    .map((r) => obj(r.body.settings).clusterName).find((n) => typeof n === 'string') as string | undefined;
  const removed = [...was].filter((c) => !now.has(c)).sort();
  const added = [...now].filter((c) => !was.has(c)).sort();
  return [
    ...removed.map((cluster) => {
      const name = eks(before, cluster);
      const twin = name === undefined ? undefined : added.find((a) => eks(after, a) === name);
      const note = twin ? `renamed to ${twin}? both run on EKS cluster ${name}: a rename deletes every Application and pool of ${cluster} (its nodes drain) and creates them again under ${twin}` : undefined;
      return { cluster, action: 'removed' as const, ...(note ? { note } : {}) };
    }),
    ...added.map((cluster) => ({ cluster, action: 'added' as const })),
  ];
}

/** Changes grouped by cluster: clusters with the loudest change first (the fleet after clusters of equal loudness), loudest class first within each. */
function sortByCluster(changes: Change[]): Change[] {
  const loudest = new Map<string, number>();
  for (const c of changes) loudest.set(c.resource.cluster, Math.min(loudest.get(c.resource.cluster) ?? RISKS.length, RISKS.indexOf(c.risk)));
  const rank = (cluster: string) => [loudest.get(cluster) ?? RISKS.length, cluster === FLEET ? 1 : 0, cluster] as const;
  const order = { removed: 0, changed: 1, added: 2 };
  return changes.sort((a, b) => {
    const [x, y] = [rank(a.resource.cluster), rank(b.resource.cluster)];
    return x[0] - y[0] || x[1] - y[1] || cmp(x[2], y[2])
      || RISKS.indexOf(a.risk) - RISKS.indexOf(b.risk) || order[a.action] - order[b.action] || cmp(describe(a.resource), describe(b.resource));
  });
}

/**
 * The disruption budgets of a NodePool that apply to drift (those without reasons, or with `Drifted`).
 * @see https://karpenter.sh/docs/concepts/disruption/#disruption-budgets
 */
function budgets(pool: Resource): string {
  type Budget = { nodes: string; schedule?: string; duration?: string; reasons?: string[] };
  const all = (obj(obj(pool.body.spec).disruption).budgets as Budget[] | undefined) ?? [{ nodes: '10%' }];
  const list = all.filter((b) => !b.reasons || b.reasons.includes('Drifted'));
  if (list.length === 0) return 'no budget limits drift';
  return list.map((b) => (b.schedule ? `${b.nodes} at a time during "${b.schedule}" (UTC) for ${b.duration}` : `${b.nodes} at a time`)).join(', ');
}

function countKinds(rs: readonly Resource[]): string[] {
  const counts = new Map<string, number>();
  for (const r of rs) {
    const kind = isSmokeTest(r) ? 'smoke test' : r.kind;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => cmp(a, b)).map(([kind, n]) => `${n} ${kind}${n === 1 ? '' : kind.endsWith('s') ? 'es' : 's'}`);
}

function nodeClassOf(pool: Resource): string | undefined {
  const name = obj(obj(obj(obj(pool.body.spec).template).spec).nodeClassRef).name;
  return typeof name === 'string' ? name : undefined;
}

function syncOptions(r: Resource): string {
  return String(obj(obj(r.body.metadata).annotations)['argocd.argoproj.io/sync-options'] ?? '');
}

/** Every `name:` value in a YAML text: a cheap test of whether a file may mention a name. */
function names(text: string): Set<string> {
  return new Set([...text.matchAll(/name:\s*["']?([^\s"'#]+)/g)].map((m) => m[1]));
}

function obj(v: unknown): Body {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Body) : {};
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
