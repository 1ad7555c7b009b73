/**
 * Adoption (docs/adopting.md): the config a running cluster's Karpenter objects need, written
 * into the user's `config/platform.yaml` (comments and the rest of the file kept), so that synth
 * generates exactly what runs. The cluster's NodePools become the pools of one adopted team
 * (`adopted: true`: the generator adds nothing of its own), each NodePool under its own name,
 * sharing EC2NodeClasses as the cluster does; what every pool of the team says alike is said once
 * on the team. A second cluster of the same shape joins the same team, and only what differs on
 * it goes under `clusters.<id>.teams`. The cluster runs that team only, no smoke tests, and the
 * live NodeOverlays; the controller keeps the live Helm values.
 */
import { isMap, parseDocument } from 'yaml';
import type { PlatformFile } from '../config/schema';
import { ClusterSettings, clusterSettings } from '../config/settings';
import { formatProblem } from '../input/problems';
import type { TerraformOutputs } from '../config/terraform';
import { ClusterFacts, Fields, overlayFields, poolFields, Unsayable } from './fields';
import { undoGroups } from './groups';
import { adoptController } from './helm-values';
import { LiveExport } from './live';
import { canonical, mapDelta, mergedFields, sharedFields } from './shared';

/** What adoption is asked to do. */
export interface AdoptRequest {
  readonly clusterId: string;
  readonly live: LiveExport;
  /** The running release's user-supplied Helm values. @default - none: the controller's config is left as it is */
  readonly helmValues?: unknown;
  /** The namespace the running release is in. @default - the config's karpenter.namespace */
  readonly namespace?: string;
  /** The team the cluster's NodePools become the pools of. */
  readonly team: string;
  /** Clusters adopted in the same run: a new team leaves their team lists to their own adoption. @default [] */
  readonly alsoAdopting?: readonly string[];
}

/** The config text adoption would write, and what it says about it. */
export interface Adoption {
  readonly text: string;
  /** What was written, and what was left out, one line each. */
  readonly notes: readonly string[];
  /** The Helm values left out (`webhook`), as dotted paths: the chart of the release has no such key. */
  readonly dropped: readonly string[];
}

/** Why adoption cannot write: each problem, naming the object or config field. */
export class AdoptionError extends Error {
  public constructor(public readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/**
 * The config text for `request`, from the config's text and what it parsed to. Pure: it checks
 * nothing against the generator's output (the command does, before it writes).
 * @throws AdoptionError listing every problem: a field the config cannot say, a team of another
 *   shape, a value a Terraform output owns that differs
 */
export function adoptConfig(text: string, file: PlatformFile, tf: TerraformOutputs, request: AdoptRequest): Adoption {
  const { clusterId, live, team } = request;
  const problems: string[] = [];
  const notes: string[] = [...live.notes];
  const dropped: string[] = [];
  if (!Object.hasOwn(file.clusters, clusterId)) {
    throw new AdoptionError([`the config has no cluster ${clusterId}: add it first (npm run init, or clusters.${clusterId}.terraformOutputs)`]);
  }
  const facts: ClusterFacts = { clusterName: tf.clusterName, nodeRoleName: tf.nodeRoleName };
  const unsayable: Unsayable[] = [];
  const classes = new Map(live.nodeClasses.map((c) => [c.name, c]));
  const desired = new Map<string, Fields>();
  for (const np of live.nodePools) {
    const ref = ((np.spec.template as Fields).spec as Fields).nodeClassRef as Fields;
    const nodeClass = classes.get(String(ref.name));
    if (nodeClass) desired.set(np.name, poolFields(np, nodeClass, facts, unsayable));
  }
  const overlays = new Map(live.overlays.map((o) => [o.name, overlayFields(o, unsayable)]));
  // A class several pools use is read once per pool: each field is said once.
  const located = unsayable.map((u) => formatProblem(u.object.source.problem([...u.object.at, ...u.path], `${u.object.kind} ${u.object.name}: ${u.message}${u.refused ? '' : ' (the config cannot say it yet)'}`)));
  problems.push(...new Set(located));
  const unusedClasses = live.nodeClasses.filter((c) => !live.nodePools.some((np) => ((np.spec.template as Fields).spec as Fields).nodeClassRef && (((np.spec.template as Fields).spec as Fields).nodeClassRef as Fields).name === c.name));
  for (const c of unusedClasses) notes.push(`left out EC2NodeClass ${c.name}: no NodePool uses it (Argo CD will not touch it; delete it by hand once no node uses it)`);

  // compat: values YAML 1.1 reads as another type (yes, 010, 0o17, 1e3) are written quoted.
  const doc = parseDocument(text, { keepSourceTokens: false, compat: 'yaml-1.1', uniqueKeys: false });
  const existing = file.teams[team];
  const clusterAt = ['clusters', clusterId];
  if (existing === undefined || existing === null) {
    doc.setIn(['teams', team], doc.createNode(newTeam(desired)));
    notes.push(`team ${team}: ${desired.size} adopted pool(s) (${[...desired.keys()].join(', ')})`);
    for (const [id, c] of Object.entries(file.clusters)) {
      if (id === clusterId || c.teams !== undefined || request.alsoAdopting?.includes(id)) continue;
      // A cluster that runs every team would run this one too: it keeps the teams it runs.
      doc.setIn(['clusters', id, 'teams'], doc.createNode(Object.keys(file.teams), { flow: true }));
      notes.push(`cluster ${id}: now lists the teams it runs (${Object.keys(file.teams).join(', ') || 'none'}), so it does not run team ${team}`);
    }
    doc.setIn([...clusterAt, 'teams'], doc.createNode([team], { flow: true }));
  } else {
    const overrides = sameShapeOverrides(existing as Fields, desired, team, problems);
    doc.setIn([...clusterAt, 'teams'], Object.keys(overrides).length ? doc.createNode({ [team]: { pools: overrides } }) : doc.createNode([team], { flow: true }));
    notes.push(`team ${team}: cluster ${clusterId} joins its ${desired.size} pool(s)${Object.keys(overrides).length ? `, with its own fields for ${Object.keys(overrides).join(', ')}` : ''}`);
  }
  const listed = file.clusters[clusterId].teams;
  const before = listed === undefined ? undefined : Array.isArray(listed) ? listed : Object.keys(listed);
  const others = before?.filter((t) => t !== team) ?? [];
  if (others.length) notes.push(`cluster ${clusterId}: runs team ${team} only, as the export says (it listed ${others.join(', ')}, whose pools it does not run)`);
  const settings = clusterSettings(file, clusterId);
  const beside = besideAutoMode(settings, clusterId, live);
  problems.push(...beside.problems);
  notes.push(...beside.notes);
  if (beside.write) doc.setIn([...clusterAt, 'karpenter', 'besideAutoMode'], true);
  doc.setIn([...clusterAt, 'smokeTests'], false);
  // The first sync is a person's, after the checks of docs/adopting.md.
  doc.setIn([...clusterAt, 'manualSync'], true);
  const fleetOverlays = Object.keys(file.overlays ?? {});
  const clusterOverlays: Fields = Object.fromEntries([...overlays].map(([name, fields]) => [name, fields]));
  for (const name of fleetOverlays) if (!overlays.has(name)) clusterOverlays[name] = null;
  if (Object.keys(clusterOverlays).length) doc.setIn([...clusterAt, 'overlays'], doc.createNode(clusterOverlays));
  else if (doc.hasIn([...clusterAt, 'overlays'])) doc.deleteIn([...clusterAt, 'overlays']);
  const namespace = request.namespace;
  // The namespace the config gives the cluster now, by the fleet, a group or the cluster itself.
  if (namespace !== undefined && namespace !== settings.karpenterNamespace.value) {
    doc.setIn([...clusterAt, 'karpenter', 'namespace'], namespace);
  }
  let running: Fields | undefined;
  if (request.helmValues === undefined) {
    notes.push(`no --helm-values: the controller's Application will deploy the config's controller values over the running release's at its first sync; `
      + `to keep them, run adopt again with --helm-values FILE (helm get values karpenter -n ${request.namespace ?? 'NS'} -o yaml)`);
  } else {
    const controller = adoptController(request.helmValues, tf);
    running = controller.controller;
    problems.push(...controller.conflicts);
    notes.push(...controller.notes);
    dropped.push(...controller.dropped);
    for (const [key, value] of Object.entries(controller.controller)) doc.setIn([...clusterAt, 'karpenter', 'controller', key], doc.createNode(value));
    if (Object.keys(controller.helmValues).length) doc.setIn([...clusterAt, 'karpenter', 'helmValues'], doc.createNode(controller.helmValues));
  }
  // What the cluster's groups would change on what runs, said as the cluster's own instead.
  const undo = undoGroups(file, clusterId, desired, running);
  problems.push(...undo.problems);
  notes.push(...undo.notes);
  for (const edit of undo.edits) doc.setIn([...clusterAt, ...edit.path], doc.createNode(edit.value));
  if (problems.length) throw new AdoptionError(problems);
  return { text: doc.toString({ lineWidth: 0 }), notes, dropped };
}

/**
 * What adoption says of EKS Auto Mode on the cluster: a cluster that runs its own controller is
 * adopted as `compute: karpenter`, with `karpenter.besideAutoMode: true` (`write`) when Auto Mode
 * runs pools beside it (adopt/auto-mode.ts); the config's `besideAutoMode` is kept when the export
 * shows no Auto Mode pool, since Auto Mode may run with none (its built-in pools off).
 */
function besideAutoMode(settings: ClusterSettings, clusterId: string, live: LiveExport): { write: boolean; problems: string[]; notes: string[] } {
  const compute = settings.compute.value;
  const problems = compute === 'karpenter' ? [] : [`cluster ${clusterId} has compute: ${compute} in the config, but adoption takes over a cluster that runs its own Karpenter controller: `
    + 'set compute: karpenter for it (with karpenter.besideAutoMode: true, which adopt writes, when EKS Auto Mode runs pools beside it), adopt, then move it to Auto Mode as docs/auto-mode.md says'];
  const write = live.autoModePools.length > 0;
  const notes = !write && settings.karpenter.besideAutoMode === true
    ? [`cluster ${clusterId}: kept karpenter.besideAutoMode: true, though the export has no NodePool of EKS Auto Mode; remove it once Auto Mode is off on the cluster (the review says what that changes)`]
    : [];
  return { write, problems, notes };
}

/** A new adopted team: no default pool, a pool per NodePool, and what all of them say alike once on the team. */
function newTeam(desired: ReadonlyMap<string, Fields>): Fields {
  const { shared, own } = sharedFields([...desired.values()].map((f) => Object.fromEntries(Object.entries(f).filter(([k]) => k !== 'adopted'))));
  const keys = poolKeys([...desired.keys()]);
  return {
    adopted: true,
    defaultPool: false,
    ...shared,
    pools: Object.fromEntries([...desired.keys()].map((name, i) => [keys.get(name), own[i]])),
  };
}

/** A pool key (a DNS label) for each NodePool name, distinct. */
function poolKeys(names: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set<string>();
  for (const name of names) {
    const base = name.replace(/[^a-z0-9-]/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'pool';
    let key = base;
    for (let i = 2; used.has(key); i++) key = `${base}-${i}`;
    used.add(key);
    out.set(name, key);
  }
  return out;
}

/**
 * What a cluster must say of its own for an existing adopted team to make its NodePools: per
 * pool key, the fields whose value differs from what the team and its pool say. The team must
 * have the same NodePools (by name), and a field the team says that the cluster's does not (a
 * label, a limit) cannot be unsaid per cluster.
 */
function sameShapeOverrides(team: Fields, desired: ReadonlyMap<string, Fields>, teamId: string, problems: string[]): Record<string, Fields> {
  if (team.adopted !== true) {
    problems.push(`team ${teamId} is not adopted (adopted: true): adopt into another team (--team NAME)`);
    return {};
  }
  const pools = (team.pools ?? {}) as Record<string, Fields | null>;
  const byName = new Map(Object.entries(pools).map(([key, f]) => [String((f ?? {}).name ?? `${teamId}-${key}`), { key, fields: f ?? {} }]));
  const missing = [...desired.keys()].filter((n) => !byName.has(n));
  const extra = [...byName.keys()].filter((n) => !desired.has(n));
  if (missing.length || extra.length) {
    problems.push(`team ${teamId} has NodePools ${[...byName.keys()].join(', ') || 'none'}, the cluster ${[...desired.keys()].join(', ')}`
      + `${missing.length ? ` (not in the team: ${missing.join(', ')})` : ''}${extra.length ? ` (not on the cluster: ${extra.join(', ')})` : ''}: `
      + 'clusters of one team run the same NodePools; adopt this cluster into another team (--team NAME)');
    return {};
  }
  const teamFields = Object.fromEntries(Object.entries(team).filter(([k]) => !['owner', 'costCenter', 'budget', 'defaultPool', 'pools', 'namespaces', 'buffer', 'name'].includes(k)));
  const out: Record<string, Fields> = {};
  for (const [name, want] of desired) {
    const { key, fields } = byName.get(name) as { key: string; fields: Fields };
    const have = mergedFields(teamFields, fields);
    const own: Fields = {};
    for (const field of new Set([...Object.keys(have), ...Object.keys(want)])) {
      if (field === 'name') continue;
      const [a, b] = [have[field], want[field]];
      if (canonical(a) === canonical(b)) continue;
      if (b === undefined) {
        problems.push(`NodePool ${name}: team ${teamId} says ${field} ${JSON.stringify(a)}, the cluster's says none, and a cluster cannot unsay a field: adopt into another team (--team NAME)`);
        continue;
      }
      if (isMap(a) || (a !== null && typeof a === 'object' && !Array.isArray(a) && field !== 'ami')) {
        // Maps merge key by key (src/config/resolve.ts): the cluster says only the keys that differ.
        const { delta, dropped } = mapDelta(a, b);
        if (dropped.length) {
          problems.push(`NodePool ${name}: team ${teamId}'s ${field} has ${dropped.join(', ')}, the cluster's does not, and a cluster cannot unsay them: adopt into another team (--team NAME)`);
          continue;
        }
        own[field] = delta;
        continue;
      }
      own[field] = b;
    }
    if (Object.keys(own).length) out[key] = own;
  }
  return out;
}
