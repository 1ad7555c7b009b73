import { catalogReading, compareRequirements, RequirementSpec } from './requirements';
import { FieldChange, Risk } from './risk';
import { Body, Resource } from './tree';
import { isTenancy, tenancyFieldChanges } from './tenancy';
import { guardGateFieldChanges, isGuardGate } from './guard-gate';
import { DIGEST_ANNOTATION } from '../gate/spec';

/**
 * Why a NodePool field does or does not replace nodes. Karpenter hashes
 * `spec.template` (labels, annotations, taints, startup taints, nodeClassRef,
 * expireAfter, terminationGracePeriod; requirements excluded) with slices as sets;
 * a launched node whose recorded hash differs is drifted and replaced, paced by the
 * budgets that apply to `Drifted`. Everything else of the spec (disruption, limits,
 * weight) is behavioral.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/nodepool.go (Hash: spec.template, SlicesAsSets; Requirements and Budgets `hash:"ignore"`)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/nodeclaim/disruption/drift.go (areStaticFieldsDrifted: NodePoolDrifted)
 * @see https://karpenter.sh/docs/concepts/disruption/#drift
 */
export const NODEPOOL_WHY = {
  hashed: 'in the NodePool hash (spec.template): every node of the pool drifts and is replaced',
  expireAfter: 'in the NodePool hash (spec.template): every node of the pool drifts and is replaced (nodes launched from now on expire after the new value)',
  terminationGracePeriod: 'in the NodePool hash (spec.template): every node of the pool drifts and is replaced (nodes launched from now on get the new grace period)',
  wider: 'wider: requirements are not hashed, and every node still matches them, so none drifts',
  minValues: 'minValues is not part of the drift check: no node drifts',
  narrower: (nodes: string) => `requirements are not hashed, but ${nodes} no longer match them and drift (RequirementsDrifted)`,
  behavioral: 'not in spec.template: no node drifts',
  consolidation: 'not in spec.template: no node drifts, but Karpenter may now consolidate (remove or replace) nodes it kept before',
  budgets: 'budgets pace disruption and are not hashed: no node drifts',
  staticSwitch: 'the API server refuses it (NodePool CEL rule has(self.replicas) == has(oldSelf.replicas)), so the sync fails: '
    + 'give the pool a new name instead (a new pool key), which creates the new pool and drains every node of the old one',
} as const;

/**
 * Why an EC2NodeClass field does or does not replace nodes. The provider hashes the
 * whole spec (slices as sets) except the selector terms, `amiFamily` as written (the
 * family resolved from it or the alias is hashed instead) and `ipPrefixCount`; any
 * change of the hash drifts every node launched with it. Selector terms are resolved:
 * a node drifts when its AMI, subnet or capacity reservation is no longer among the
 * resolved ones, or when the resolved security groups are not exactly its own.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/v1/ec2nodeclass.go (EC2NodeClassSpec `hash:"ignore"` fields, Hash, AMIFamily)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/cloudprovider/drift.go (areStaticFieldsDrifted, isAMIDrifted, isSubnetDrifted, areSecurityGroupsDrifted, isCapacityReservationDrifted)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/controllers/nodeclass/hash/controller.go
 */
export const NODECLASS_WHY = {
  hashed: 'in the EC2NodeClass hash: every node of the NodePools using it drifts',
  tags: 'tags are in the EC2NodeClass hash: every node of the NodePools using it drifts, even for an owner or cost-center edit',
  alias: 'the new alias resolves to other AMIs: every node runs an AMI no longer selected and drifts (AMIDrift)',
  amiTerms: 'selector terms are not hashed, but nodes running an AMI the terms no longer resolve to drift (AMIDrift)',
  subnetTerms: 'selector terms are not hashed, but nodes in a subnet the terms no longer select drift (SubnetDrift)',
  securityGroupTerms: 'selector terms are not hashed, but if the security groups they resolve to change, every node drifts (SecurityGroupDrift compares the whole set)',
  capacityReservationTerms: 'selector terms are not hashed, but reserved nodes in a reservation the terms no longer select drift (CapacityReservationDrift)',
  amiFamilySame: 'amiFamily is hashed as resolved, and it resolves to the same family: no node drifts',
  ipPrefixCount: 'not in the EC2NodeClass hash: applies to nodes launched from now on, no node drifts',
} as const;

/** Why metadata of the object itself never touches nodes. */
const METADATA_WHY = 'metadata of the object, not of its nodes: no node drifts';

/** The resources finalizer: deleting an Application deletes what it deployed. @see https://argo-cd.readthedocs.io/en/stable/user-guide/app_deletion/ */
export const RESOURCES_FINALIZER = 'resources-finalizer.argocd.argoproj.io';

/** The Karpenter charts; an Application deploying one is the controller's. */
const KARPENTER_CHARTS = new Set(['karpenter', 'karpenter-crd']);

/** Every changed field of a resource, set-aware, each with its class and why; none when the two are equal as their readers see them. */
export function fieldChanges(before: Resource, after: Resource): FieldChange[] {
  if (isTenancy(after)) return tenancyFieldChanges(after.kind, before.body, after.body);
  if (isGuardGate(after)) return guardGateFieldChanges(before.body, after.body);
  const out = new Changes();
  switch (after.kind) {
    case 'NodePool': nodePool(before.body, after.body, out); break;
    case 'EC2NodeClass': nodeClass(before.body, after.body, out); break;
    case 'Application': application(before.body, after.body, out); break;
    case 'HelmValues': generic('', before.body, after.body, out.with('controller', 'changes the Karpenter controller: its Deployment rolls; no node drifts for it')); break;
    default: generic('', before.body, after.body, out.with('other', 'no effect on nodes'));
  }
  return out.list;
}

/** Whether an Application deploys a Karpenter chart (the CRDs or the controller). */
export function isControllerApp(app: Body): boolean {
  return sources(app).some((s) => typeof s.chart === 'string' && KARPENTER_CHARTS.has(s.chart));
}

/** The charts an Application deploys: `karpenter-crd 1.14.1`. */
export function chartsOf(app: Body): string[] {
  return sources(app).filter((s) => typeof s.chart === 'string').map((s) => `${s.chart} ${String(s.targetRevision ?? '')}`.trim());
}

/** Whether an Application carries the resources finalizer. */
export function hasResourcesFinalizer(app: Body): boolean {
  return finalizersOf(app).includes(RESOURCES_FINALIZER);
}

/** Whether an auto-synced Application prunes what leaves its source. */
export function prunes(app: Body): boolean {
  const automated = ((app.spec as Body | undefined)?.syncPolicy as Body | undefined)?.automated as Body | undefined;
  return automated !== undefined && automated !== null && automated.enabled !== false && automated.prune === true;
}

/** Collects field changes; `with` gives a sink that files every change it gets under one class and why. */
class Changes {
  public readonly list: FieldChange[] = [];

  public add(risk: Risk, text: string, why: string, scope?: 'every' | 'some'): void {
    this.list.push(scope ? { risk, text, why, scope } : { risk, text, why });
  }

  public with(risk: Risk, why: string, scope?: 'every' | 'some'): Sink {
    return (text) => this.add(risk, text, why, scope);
  }
}

type Sink = (text: string) => void;

function nodePool(a: Body, b: Body, out: Changes): void {
  metadata(a, b, out);
  const [sa, sb] = [obj(a.spec), obj(b.spec)];
  const [ta, tb] = [obj(sa.template), obj(sb.template)];
  const [ma, mb] = [obj(ta.metadata), obj(tb.metadata)];
  const [pa, pb] = [obj(ta.spec), obj(tb.spec)];
  const hashed = out.with('replaces-nodes', NODEPOOL_WHY.hashed, 'every');
  mapDiff('node label', ma.labels, mb.labels, hashed);
  mapDiff('node annotation', ma.annotations, mb.annotations, hashed);
  generic('spec.template.metadata', omit(ma, 'labels', 'annotations'), omit(mb, 'labels', 'annotations'), hashed);
  taints('taint', pa.taints, pb.taints, hashed);
  taints('startup taint', pa.startupTaints, pb.startupTaints, hashed);
  const requirements = compareRequirements(list<RequirementSpec>(pa.requirements), list<RequirementSpec>(pb.requirements));
  // A value no instance type has launches nothing: said on its line, or the change reads as a plain swap.
  const reading = requirements.length ? catalogReading(list<RequirementSpec>(pb.requirements)) : undefined;
  for (const r of requirements) {
    const text = [r.text, ...(reading?.unmatched.get(r.key) ?? [])].join('; ');
    if (r.effect === 'narrower') out.add('replaces-nodes', text, NODEPOOL_WHY.narrower(r.drifts ?? 'some nodes'), 'some');
    else out.add('capacity', text, r.effect === 'wider' ? NODEPOOL_WHY.wider : NODEPOOL_WHY.minValues);
  }
  if (reading?.admitsNothing !== undefined && catalogReading(list<RequirementSpec>(pa.requirements)).admitsNothing === undefined) {
    out.add('capacity', 'its requirements admit no instance type: the pool launches no node', reading.admitsNothing);
  }
  generic('expireAfter', pa.expireAfter, pb.expireAfter, out.with('replaces-nodes', NODEPOOL_WHY.expireAfter, 'every'));
  generic('terminationGracePeriod', pa.terminationGracePeriod, pb.terminationGracePeriod, out.with('replaces-nodes', NODEPOOL_WHY.terminationGracePeriod, 'every'));
  const handled = ['taints', 'startupTaints', 'requirements', 'expireAfter', 'terminationGracePeriod'];
  generic('', omit(pa, ...handled), omit(pb, ...handled), hashed);
  generic('spec.template', omit(ta, 'metadata', 'spec'), omit(tb, 'metadata', 'spec'), hashed);

  const [da, db] = [obj(sa.disruption), obj(sb.disruption)];
  const behavioral = out.with('capacity', NODEPOOL_WHY.behavioral);
  const policyWhy = da.consolidationPolicy === 'WhenEmpty' && db.consolidationPolicy !== 'WhenEmpty' ? NODEPOOL_WHY.consolidation : NODEPOOL_WHY.behavioral;
  generic('consolidationPolicy', da.consolidationPolicy, db.consolidationPolicy, out.with('capacity', policyWhy));
  generic('consolidateAfter', da.consolidateAfter, db.consolidateAfter, behavioral);
  budgets(da.budgets, db.budgets, out.with('capacity', NODEPOOL_WHY.budgets));
  generic('spec.disruption', omit(da, 'consolidationPolicy', 'consolidateAfter', 'budgets'), omit(db, 'consolidationPolicy', 'consolidateAfter', 'budgets'), behavioral);
  mapDiff('limit', sa.limits, sb.limits, behavioral);
  replicas(sa.replicas, sb.replicas, out);
  generic('', omit(sa, 'template', 'disruption', 'limits', 'replicas'), omit(sb, 'template', 'disruption', 'limits', 'replicas'), behavioral);
  generic('', omit(a, 'metadata', 'spec'), omit(b, 'metadata', 'spec'), out.with('other', 'no effect on nodes'));
}

/**
 * A static pool's `replicas`. Adding or removing it is refused by the API server (the NodePool
 * CEL rule `has(self.replicas) == has(oldSelf.replicas)`): blocked, and destructive, since the
 * fix, a pool under a new name, drains the old one. Lowering it removes that many nodes.
 * @see https://karpenter.sh/docs/concepts/nodepools/#specreplicas
 */
function replicas(a: unknown, b: unknown, out: Changes): void {
  if (a === b) return;
  if ((a === undefined) !== (b === undefined)) {
    const turn = a === undefined ? `dynamic to static (replicas: ${String(b)})` : `static (replicas: ${String(a)}) to dynamic`;
    out.add('destructive', `BLOCKED: the pool turns ${turn}`, NODEPOOL_WHY.staticSwitch);
    return;
  }
  const [from, to] = [Number(a), Number(b)];
  out.add('capacity', to < from ? `replicas: ${from} → ${to} (${from - to} node(s) go)` : `replicas: ${from} → ${to} (${to - from} node(s) more)`,
    to < from ? 'a static pool keeps exactly replicas nodes: Karpenter removes the extra ones' : 'a static pool keeps exactly replicas nodes: Karpenter launches the missing ones');
}

function nodeClass(a: Body, b: Body, out: Changes): void {
  metadata(a, b, out);
  const [sa, sb] = [obj(a.spec), obj(b.spec)];
  const hashed = out.with('replaces-nodes', NODECLASS_WHY.hashed, 'every');
  amiTerms(list<Body>(sa.amiSelectorTerms), list<Body>(sb.amiSelectorTerms), out);
  terms('subnet selector term', sa.subnetSelectorTerms, sb.subnetSelectorTerms, out.with('replaces-nodes', NODECLASS_WHY.subnetTerms, 'some'));
  terms('security group selector term', sa.securityGroupSelectorTerms, sb.securityGroupSelectorTerms, out.with('replaces-nodes', NODECLASS_WHY.securityGroupTerms, 'every'));
  terms('capacity reservation selector term', sa.capacityReservationSelectorTerms, sb.capacityReservationSelectorTerms,
    out.with('replaces-nodes', NODECLASS_WHY.capacityReservationTerms, 'some'));
  if (sa.amiFamily !== sb.amiFamily) {
    const same = resolvedFamily(sa) === resolvedFamily(sb);
    generic('amiFamily', sa.amiFamily, sb.amiFamily, same ? out.with('other', NODECLASS_WHY.amiFamilySame) : hashed);
  }
  mapDiff('tag', sa.tags, sb.tags, out.with('replaces-nodes', NODECLASS_WHY.tags, 'every'));
  generic('ipPrefixCount', sa.ipPrefixCount, sb.ipPrefixCount, out.with('other', NODECLASS_WHY.ipPrefixCount));
  const handled = ['amiSelectorTerms', 'subnetSelectorTerms', 'securityGroupSelectorTerms', 'capacityReservationSelectorTerms', 'amiFamily', 'tags', 'ipPrefixCount'];
  generic('', omit(sa, ...handled), omit(sb, ...handled), hashed);
  generic('', omit(a, 'metadata', 'spec'), omit(b, 'metadata', 'spec'), out.with('other', 'no effect on nodes'));
}

/**
 * AMI selector terms. One alias replaced by another of the same family (a version
 * bump) reads as one line; an alias always resolves to other AMIs when its version changes.
 */
function amiTerms(a: Body[], b: Body[], out: Changes): void {
  const aliasA = a.length === 1 && typeof a[0].alias === 'string' ? a[0].alias : undefined;
  const aliasB = b.length === 1 && typeof b[0].alias === 'string' ? b[0].alias : undefined;
  if (aliasA !== undefined && aliasB !== undefined) {
    if (aliasA !== aliasB) out.add('replaces-nodes', `AMI alias ${aliasA} -> ${aliasB}`, NODECLASS_WHY.alias, 'every');
    return;
  }
  terms('AMI selector term', a, b, out.with('replaces-nodes', NODECLASS_WHY.amiTerms, 'some'));
}

/**
 * The AMI family the provider hashes: `amiFamily` when set, else the alias's family.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/v1/ec2nodeclass.go (AMIFamily)
 */
function resolvedFamily(spec: Body): string | undefined {
  if (typeof spec.amiFamily === 'string') return spec.amiFamily;
  const alias = list<Body>(spec.amiSelectorTerms).find((t) => typeof t.alias === 'string')?.alias as string | undefined;
  const family = alias?.split('@')[0];
  const known: Record<string, string> = { al2: 'AL2', al2023: 'AL2023', bottlerocket: 'Bottlerocket', windows2019: 'Windows2019', windows2022: 'Windows2022', windows2025: 'Windows2025' };
  return family === undefined ? undefined : known[family] ?? family;
}

function application(a: Body, b: Body, out: Changes): void {
  const controller = isControllerApp(b) || isControllerApp(a);
  const [risk, why] = controller ? ['controller', 'changes how the Karpenter controller or its CRDs are deployed'] as const : ['other', 'no effect on nodes'] as const;
  const [fa, fb] = [finalizersOf(a), finalizersOf(b)];
  if (fa.includes(RESOURCES_FINALIZER) && !fb.includes(RESOURCES_FINALIZER)) {
    out.add('other', 'resources finalizer removed', 'deleting this Application no longer deletes what it deployed: its resources are kept');
  } else if (!fa.includes(RESOURCES_FINALIZER) && fb.includes(RESOURCES_FINALIZER)) {
    out.add('other', 'resources finalizer added', 'deleting this Application will delete what it deployed');
  }
  const otherFinalizers = (f: string[]) => f.filter((x) => x !== RESOURCES_FINALIZER);
  generic('metadata.finalizers', otherFinalizers(fa), otherFinalizers(fb), out.with('other', 'no effect on nodes'));
  const [ma, mb] = [obj(a.metadata), obj(b.metadata)];
  generic('metadata', omit(ma, 'finalizers'), omit(mb, 'finalizers'), out.with('other', 'no effect on nodes'));

  const [sa, sb] = [sourcesByKey(a), sourcesByKey(b)];
  for (const key of new Set([...sa.keys(), ...sb.keys()])) {
    const [x, y] = [sa.get(key), sb.get(key)];
    const charted = typeof (y ?? x)?.chart === 'string' && KARPENTER_CHARTS.has(String((y ?? x)?.chart));
    const sink = charted ? out.with('controller', 'a new Karpenter chart version: Argo CD upgrades it in this cluster') : out.with(risk, why);
    if (x && y && typeof y.chart === 'string' && x.targetRevision !== y.targetRevision) {
      sink(`chart ${y.chart} ${show(x.targetRevision)} -> ${show(y.targetRevision)}`);
      generic(`source ${key}`, omit(x, 'targetRevision'), omit(y, 'targetRevision'), out.with(risk, why));
    } else {
      generic(`source ${key}`, x, y, out.with(risk, why));
    }
  }
  const [pa, pb] = [prunes(a), prunes(b)];
  if (pa !== pb) {
    out.add('other', `auto-sync prune ${pa ? 'on' : 'off'} -> ${pb ? 'on' : 'off'}`,
      pb ? 'Argo CD deletes what leaves its source path' : 'Argo CD keeps what leaves its source path');
  }
  const specA = omit(obj(a.spec), 'source', 'sources');
  const specB = omit(obj(b.spec), 'source', 'sources');
  const syncA = omit(obj(specA.syncPolicy), 'automated');
  const syncB = omit(obj(specB.syncPolicy), 'automated');
  generic('spec.syncPolicy.automated', omit(obj(obj(specA.syncPolicy).automated), 'prune'), omit(obj(obj(specB.syncPolicy).automated), 'prune'), out.with(risk, why));
  generic('spec.syncPolicy', syncA, syncB, out.with(risk, why));
  generic('spec', omit(specA, 'syncPolicy'), omit(specB, 'syncPolicy'), out.with(risk, why));
  generic('', omit(a, 'metadata', 'spec'), omit(b, 'metadata', 'spec'), out.with(risk, why));
}

/** Labels and annotations of the object itself: maps, key by key. */
function metadata(a: Body, b: Body, out: Changes): void {
  const [ma, mb] = [obj(a.metadata), obj(b.metadata)];
  const sink = out.with('other', METADATA_WHY);
  mapDiff('label', ma.labels, mb.labels, sink);
  const [aa, ab] = [obj(ma.annotations), obj(mb.annotations)];
  const syncOptions = 'argocd.argoproj.io/sync-options';
  const confirmLost = /Prune=confirm/.test(String(aa[syncOptions] ?? '')) && !/Prune=confirm/.test(String(ab[syncOptions] ?? ''));
  mapDiff('annotation', { [syncOptions]: aa[syncOptions] }, { [syncOptions]: ab[syncOptions] },
    out.with('other', confirmLost ? `${METADATA_WHY}; but Argo CD would now prune it without asking a person (Prune=confirm dropped)` : METADATA_WHY));
  // The drift gate's digest changes exactly when the object's spec does: the spec's changes say it all.
  mapDiff('annotation', omit(aa, syncOptions, DIGEST_ANNOTATION), omit(ab, syncOptions, DIGEST_ANNOTATION), sink);
  generic('metadata', omit(ma, 'labels', 'annotations'), omit(mb, 'labels', 'annotations'), sink);
}

/** A map compared key by key: `tag owner: a -> b`, `node label tier added: web`. */
function mapDiff(what: string, a: unknown, b: unknown, sink: Sink): void {
  const [x, y] = [obj(a), obj(b)];
  for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
    const [u, v] = [x[key], y[key]];
    if (equal(u, v)) continue;
    if (u === undefined) sink(`${what} ${key} added: ${show(v)}`);
    else if (v === undefined) sink(`${what} ${key} removed (was ${show(u)})`);
    else sink(`${what} ${key}: ${show(u)} -> ${show(v)}`);
  }
}

/**
 * Taints as Kubernetes matches them: one per key and effect. A taint whose value
 * changes reads as one line.
 */
function taints(what: string, a: unknown, b: unknown, sink: Sink): void {
  type Taint = { key: string; value?: string; effect: string };
  const index = (l: Taint[]) => new Map(l.map((t) => [`${t.key}:${t.effect}`, t]));
  const [x, y] = [index(list<Taint>(a)), index(list<Taint>(b))];
  const render = (t: Taint) => `${t.key}${t.value !== undefined && t.value !== '' ? `=${t.value}` : ''}:${t.effect}`;
  for (const [id, t] of x) {
    const u = y.get(id);
    if (!u) sink(`${what} ${render(t)} removed`);
    else if ((u.value ?? '') !== (t.value ?? '')) sink(`${what} ${id}: value ${show(t.value ?? '')} -> ${show(u.value ?? '')}`);
  }
  for (const [id, t] of y) if (!x.has(id)) sink(`${what} ${render(t)} added`);
}

/**
 * Disruption budgets as a set: Karpenter applies the smallest of those active, in any
 * order. A budget is known by its schedule, duration and reasons; a change of `nodes` alone reads as one line.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/nodepool.go (Budget, GetAllowedDisruptionsByReason)
 */
function budgets(a: unknown, b: unknown, sink: Sink): void {
  type Budget = { nodes?: string; schedule?: string; duration?: string; reasons?: string[] };
  const id = (x: Budget) => JSON.stringify([x.schedule ?? '', x.duration ?? '', [...(x.reasons ?? [])].sort()]);
  const render = (x: Budget, nodes = true) => [
    ...(nodes ? [`${x.nodes}`] : []),
    ...(x.schedule ? [`during "${x.schedule}" (UTC) for ${x.duration}`] : []),
    ...(x.reasons?.length ? [`for ${[...x.reasons].sort().join(', ')}`] : []),
  ].join(' ');
  const group = (l: Budget[]) => {
    const m = new Map<string, Budget[]>();
    for (const x of l) m.set(id(x), [...(m.get(id(x)) ?? []), x]);
    return m;
  };
  const [x, y] = [group(list<Budget>(a)), group(list<Budget>(b))];
  for (const key of new Set([...x.keys(), ...y.keys()])) {
    const [u, v] = [x.get(key) ?? [], y.get(key) ?? []];
    const [un, vn] = [u.map((q) => q.nodes ?? '').sort(), v.map((q) => q.nodes ?? '').sort()];
    if (equal(un, vn)) continue;
    if (u.length === 1 && v.length === 1) {
      const scope = render(u[0], false);
      sink(`budget${scope ? ` ${scope}` : ''}: nodes ${u[0].nodes} -> ${v[0].nodes}`);
      continue;
    }
    for (const q of u.filter((q) => !vn.includes(q.nodes ?? ''))) sink(`budget ${render(q)} removed`);
    for (const q of v.filter((q) => !un.includes(q.nodes ?? ''))) sink(`budget ${render(q)} added`);
  }
}

/** Selector terms as a set (they are ORed); a term is a map, its `tags` a map. */
function terms(what: string, a: unknown, b: unknown, sink: Sink): void {
  const [x, y] = [new Map(list<Body>(a).map((t) => [canonical(t), t])), new Map(list<Body>(b).map((t) => [canonical(t), t]))];
  const removed = [...x].filter(([k]) => !y.has(k)).map(([, t]) => term(t));
  const added = [...y].filter(([k]) => !x.has(k)).map(([, t]) => term(t));
  if (removed.length === 1 && added.length === 1) {
    sink(`${what} ${removed[0]} -> ${added[0]}`);
    return;
  }
  for (const t of removed) sink(`${what} removed: ${t}`);
  for (const t of added) sink(`${what} added: ${t}`);
}

/** `alias=al2023@v20250505`, `tags karpenter.sh/discovery=demo`, `name=my-ami-*, owner=self`. */
function term(t: Body): string {
  return Object.keys(t).sort().map((k) => (k === 'tags'
    ? `tags ${Object.entries(obj(t.tags)).sort(([p], [q]) => (p < q ? -1 : 1)).map(([tk, tv]) => `${tk}=${String(tv)}`).join(', ')}`
    : `${k}=${show(t[k])}`)).join(', ');
}

/**
 * Any other field, walked: maps key by key; lists of scalars as sets (a reordering
 * says so); lists of maps matched by `name`, `key` or `deviceName` when every item has
 * a distinct one, otherwise by position.
 */
function generic(path: string, a: unknown, b: unknown, sink: Sink): void {
  if (equal(a, b)) return;
  if (a === undefined) return sink(`${path || 'value'} added: ${show(b)}`);
  if (b === undefined) return sink(`${path || 'value'} removed (was ${show(a)})`);
  if (isMap(a) && isMap(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) generic(join(path, key), a[key], b[key], sink);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if ([...a, ...b].every((v) => !isMap(v) && !Array.isArray(v))) {
      const [x, y] = [a.map((v) => show(v)), b.map((v) => show(v))];
      const added = y.filter((v) => !x.includes(v));
      const removed = x.filter((v) => !y.includes(v));
      if (!added.length && !removed.length) return sink(`${path}: order ${x.join(', ')} -> ${y.join(', ')}`);
      return sink(`${path}: ${[...(added.length ? [`added ${added.join(', ')}`] : []), ...(removed.length ? [`removed ${removed.join(', ')}`] : [])].join('; ')}`);
    }
    const named = naturalKey(a) && naturalKey(b) && naturalKey(a) === naturalKey(b) ? naturalKey(a) : undefined;
    if (named) {
      const [x, y] = [new Map(a.map((v) => [String((v as Body)[named]), v])), new Map(b.map((v) => [String((v as Body)[named]), v]))];
      for (const key of new Set([...x.keys(), ...y.keys()])) generic(`${path}[${key}]`, x.get(key), y.get(key), sink);
      return;
    }
    for (let i = 0; i < Math.max(a.length, b.length); i++) generic(`${path}[${i}]`, a[i], b[i], sink);
    return;
  }
  sink(`${path || 'value'}: ${show(a)} -> ${show(b)}`);
}

/** The field that names each item of a list of maps, when every item has a distinct one. */
function naturalKey(items: unknown[]): string | undefined {
  return ['name', 'key', 'deviceName'].find((k) => items.every((v) => isMap(v) && typeof v[k] === 'string')
    && new Set(items.map((v) => (v as Body)[k])).size === items.length);
}

function sourcesByKey(app: Body): Map<string, Body> {
  const out = new Map<string, Body>();
  for (const s of sources(app)) out.set(String(s.chart ?? (s.ref !== undefined ? `ref ${String(s.ref)}` : undefined) ?? s.path ?? s.repoURL ?? out.size), s);
  return out;
}

function sources(app: Body): Body[] {
  const spec = obj(app.spec);
  return [spec.source, ...list(spec.sources)].filter(isMap);
}

function finalizersOf(app: Body): string[] {
  return list<string>(obj(app.metadata).finalizers);
}

/**
 * A value as a reviewer reads it: plain strings bare, others as compact JSON; long
 * strings cut, multi-line strings (userData) counted in lines.
 */
export function show(v: unknown): string {
  if (typeof v === 'string') {
    if (v.includes('\n')) return `(${v.split('\n').length} lines)`;
    const text = /^[\w./@:%*+=~-]+$/.test(v) ? v : JSON.stringify(v);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  }
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function join(path: string, key: string): string {
  const part = /^[A-Za-z0-9_-]+$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  return !path ? part : part.startsWith('[') ? `${path}${part}` : `${path}.${part}`;
}

/** Sorted-key JSON, so equal maps compare equal whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isMap(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}

function equal(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function isMap(v: unknown): v is Body {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function obj(v: unknown): Body {
  return isMap(v) ? v : {};
}

function list<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

function omit(o: Body, ...keys: string[]): Body {
  const out: Body = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v;
  return out;
}
