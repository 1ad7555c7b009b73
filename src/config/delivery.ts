/**
 * How the fleet is delivered, checked as a whole: which Argo CD instance deploys each cluster
 * (`gitops.argocd`, `clusters.<id>.argocd`), that no two clusters of one instance share a
 * destination, what each stage's promotion asks (`gitops.stages`), and what could hold a stage
 * for ever on a cluster a later stage waits for (docs/windows.md).
 */
import { suggest } from '../input/issues';
import type { FieldPath, Problem } from '../input/problems';
import type { SourceFile } from '../input/source';
import { isPlainMap } from '../input/user-map';
import { durationMinutes } from '../schedule/windows';
import type { ArgocdInstance, Cluster, Destination, StagePolicy } from './platform';
import type { PlatformFile } from './schema';

/**
 * Argo CD's own cluster, as an Application names it: by server, or by the name Argo CD gives it.
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/common/common.go (KubernetesInternalAPIServerAddr, InClusterName)
 */
export const IN_CLUSTER_SERVER = 'https://kubernetes.default.svc';
const IN_CLUSTER_NAME = 'in-cluster';

/** The instances of `gitops.argocd`, in file order. */
export function argocdInstances(file: PlatformFile): ArgocdInstance[] {
  return Object.entries(file.gitops.argocd ?? {}).map(([name, i]) => ({
    name, eksCluster: i.eksCluster, region: i.region, roleArn: i.roleArn,
    ...(i.runner !== undefined ? { runner: typeof i.runner === 'string' ? [i.runner] : i.runner } : {}),
  }));
}

/** The instance a cluster is deployed by: the one it names, or the fleet's only one; undefined without `gitops.argocd`. */
export function clusterArgocd(file: PlatformFile, clusterId: string): string | undefined {
  const named = file.clusters[clusterId]?.argocd;
  if (named !== undefined) return named;
  const names = Object.keys(file.gitops.argocd ?? {});
  return names.length === 1 ? names[0] : undefined;
}

/** `gitops.stages`, by stage number. */
export function stagePolicies(file: PlatformFile): StagePolicy[] {
  return Object.entries(file.gitops.stages ?? {}).map(([n, s]) => ({
    stage: Number(n),
    soakMinutes: s.soak === undefined ? 0 : durationMinutes(s.soak) ?? 0,
    ...(s.environment !== undefined ? { environment: s.environment } : {}),
  })).sort((a, b) => a.stage - b.stage);
}

/** Every problem and warning of the fleet's delivery. */
export function deliveryFindings(source: SourceFile, file: PlatformFile, clusters: readonly Cluster[]): { problems: Problem[]; warnings: Problem[] } {
  const clashes = destinationClashes(source, file, clusters);
  return {
    problems: [...instanceProblems(source, file), ...clashes.problems, ...stagePolicyProblems(source, file), ...driftFreezes(source, file, clusters)],
    warnings: [...clashes.warnings, ...noGracePeriod(source, file, clusters)],
  };
}

/** Each cluster names an instance of `gitops.argocd` (or there is only one); none does without them. */
function instanceProblems(source: SourceFile, file: PlatformFile): Problem[] {
  const names = Object.keys(file.gitops.argocd ?? {});
  const problems: Problem[] = [];
  for (const [id, c] of Object.entries(file.clusters)) {
    if (c.argocd === undefined) {
      if (names.length > 1) {
        problems.push(source.problem(['clusters', id], `cluster ${id} does not say which Argo CD instance deploys it: set clusters.${id}.argocd to one of ${names.join(', ')}`));
      }
      continue;
    }
    if (names.length === 0) {
      problems.push(source.problem(['clusters', id, 'argocd'], 'names an Argo CD instance, but gitops.argocd lists none: define it there (eksCluster, region, roleArn), or remove this field'));
    } else if (!names.includes(c.argocd)) {
      const best = suggest(c.argocd, names);
      problems.push(source.problem(['clusters', id, 'argocd'], `unknown Argo CD instance "${c.argocd}"${best ? ` (did you mean "${best}"?)` : ''} (gitops.argocd: ${names.join(', ')})`));
    }
  }
  return problems;
}

/** What an Application destination points at, the same for every way of writing it. */
function destinationKey(d: Destination): string {
  if ('server' in d) {
    const server = d.server.replace(/\/+$/, '');
    return server === IN_CLUSTER_SERVER ? 'in-cluster' : `server ${server}`;
  }
  return d.name === IN_CLUSTER_NAME ? 'in-cluster' : `name ${d.name}`;
}

/** How a destination reads in a message. */
function shownDestination(d: Destination, set: boolean): string {
  if (!set) return `Argo CD's own cluster (no destination)`;
  return 'server' in d ? `destination.server ${d.server}` : `destination.name ${d.name}`;
}

/**
 * Two clusters one Argo CD instance deploys to the same cluster would write the same NodePools,
 * EC2NodeClasses and controller (each Application undoing the other's). Written so in both
 * (`destination` set on each): an error at the second, naming the first. Where either leaves it
 * out (Argo CD's own cluster), a warning: a fleet that runs one Argo CD inside each cluster and
 * applies there only that cluster's root Application (argocd/<cluster>.yaml) has no clash, and
 * configs written before destinations were checked keep synthesizing; the warning says both ways
 * to make it explicit.
 */
function destinationClashes(source: SourceFile, file: PlatformFile, clusters: readonly Cluster[]): { problems: Problem[]; warnings: Problem[] } {
  const seen = new Map<string, Cluster>();
  const found: { problems: Problem[]; warnings: Problem[] } = { problems: [], warnings: [] };
  const set = (id: string) => file.clusters[id]?.destination !== undefined;
  for (const c of clusters) {
    const key = `${c.argocd ?? ''}\0${destinationKey(c.destination)}`;
    const first = seen.get(key);
    if (!first) {
      seen.set(key, c);
      continue;
    }
    const at: FieldPath = set(c.id) ? ['clusters', c.id, 'destination'] : ['clusters', c.id];
    const clash = `cluster ${c.id} deploys to ${shownDestination(c.destination, set(c.id))}, as cluster ${first.id} does${first.argocd ? ` (Argo CD ${first.argocd})` : ''}: `;
    if (set(c.id) && set(first.id)) {
      found.problems.push(source.problem(at, `${clash}their Applications would overwrite each other's NodePools and controller; give each its own destination (the name given to argocd cluster add)`));
    } else {
      found.warnings.push(source.problem(at, `${clash}if one Argo CD deploys both, their Applications would overwrite each other's NodePools and controller; give each its own destination (the name given to argocd cluster add), or, with an Argo CD inside each cluster, each its own instance (gitops.argocd, clusters.<id>.argocd)`));
    }
  }
  return found;
}

/** A stage of `gitops.stages` is one some cluster is at. */
function stagePolicyProblems(source: SourceFile, file: PlatformFile): Problem[] {
  const stages = new Set(Object.values(file.clusters).map((c) => c.stage).filter((s): s is number => s !== undefined));
  return Object.keys(file.gitops.stages ?? {}).filter((n) => !stages.has(Number(n))).map((n) => source.problem(['gitops', 'stages', n],
    `no cluster is at stage ${n}${stages.size ? ` (stages: ${[...stages].sort((a, b) => a - b).join(', ')})` : ''}: remove it, or set clusters.<id>.stage: ${n}`, 'key'));
}

/** The stages a later stage waits for: N such that some cluster is at N+1. */
function waitedForStages(clusters: readonly Cluster[]): Set<number> {
  return new Set(clusters.filter((c) => c.stage !== undefined && c.stage > 1).map((c) => c.stage! - 1));
}

/** A budget that allows no Drifted disruption at any time: nodes 0 (or 0%), for Drifted or every reason, and no schedule. */
function freezesDrift(b: { nodes: string; reasons?: readonly string[]; schedule?: string }): boolean {
  return b.schedule === undefined && /^0+%?$/.test(b.nodes) && (!b.reasons || b.reasons.length === 0 || b.reasons.includes('Drifted'));
}

/**
 * On a cluster a later stage waits for, a budget that keeps Drifted at zero for good means its
 * drift gate never passes and every later stage waits for ever: an error naming the pool.
 */
function driftFreezes(source: SourceFile, file: PlatformFile, clusters: readonly Cluster[]): Problem[] {
  const waited = waitedForStages(clusters);
  // One problem per budget as written, naming every cluster it holds.
  const byBudget = new Map<string, { path: FieldPath; pool: string; nodes: string; on: string[] }>();
  for (const c of clusters) {
    const stage = c.stage;
    if (stage === undefined || !waited.has(stage)) continue;
    for (const pool of c.pools) {
      pool.settings.disruption.budgets.forEach((b, i) => {
        if (!freezesDrift(b)) return;
        const path = [...budgetsAt(file, c.id, pool.team, pool.name), i];
        const key = `${pool.name}\0${path.join('.')}`;
        const entry = byBudget.get(key) ?? { path, pool: pool.name, nodes: b.nodes, on: [] };
        entry.on.push(`${c.id} (stage ${stage}, which stage ${stage + 1} waits for)`);
        byBudget.set(key, entry);
      });
    }
  }
  return [...byBudget.values()].map(({ path, pool, nodes, on }) => source.problem(path, `keeps Drifted disruptions of pool ${pool} at ${nodes} at all times on cluster ${on.join(', ')}: `
    + 'its drift gate would never pass and no later stage would get a change of these nodes; give the budget a schedule and duration, or reasons without Drifted'));
}

/**
 * On a cluster a later stage waits for, a pool without `terminationGracePeriod` can be held for
 * ever by any pod that blocks eviction (`karpenter.sh/do-not-disrupt`, a PodDisruptionBudget
 * that allows none): a warning at the pool, naming the clusters.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/disruption/types.go#L188-L197 (NewCandidate: a pod blocking eviction makes a node no candidate unless its NodeClaim has a terminationGracePeriod and the class is eventual, as drift's is: disruption/drift.go#L114-L116)
 */
function noGracePeriod(source: SourceFile, file: PlatformFile, clusters: readonly Cluster[]): Problem[] {
  const waited = waitedForStages(clusters);
  const byPool = new Map<string, { at: Problem; clusters: string[]; pool: string }>();
  for (const c of clusters) {
    if (c.stage === undefined || !waited.has(c.stage)) continue;
    for (const pool of c.pools) {
      if (pool.settings.terminationGracePeriod !== undefined) continue;
      const key = `${pool.team}\0${pool.name}`;
      const entry = byPool.get(key) ?? { at: source.problem(poolAt(file, pool.team, pool.name), ''), clusters: [], pool: pool.name };
      entry.clusters.push(`${c.id} (stage ${c.stage})`);
      byPool.set(key, entry);
    }
  }
  return [...byPool.values()].map(({ at, clusters: ids, pool }) => ({
    ...at,
    message: `pool ${pool} has no terminationGracePeriod on ${ids.join(', ')}, which a later stage waits for: a pod with karpenter.sh/do-not-disrupt or a PodDisruptionBudget that allows no eviction `
      + 'keeps its drifted nodes, and so the stage, waiting for ever; set terminationGracePeriod (e.g. 24h): it is in the NodePool hash, so its nodes drift once, in their window',
  }));
}

/** Where a pool is defined: `teams.<team>` for the team's own pool, `teams.<team>.pools.<key>` otherwise. */
function poolAt(file: PlatformFile, team: string, pool: string): FieldPath {
  const key = Object.entries(file.teams[team]?.pools ?? {}).find(([k, f]) => (f?.name ?? `${team}-${k}`) === pool)?.[0];
  return key === undefined ? ['teams', team] : ['teams', team, 'pools', key];
}

/** Where a pool's budgets are set: the highest level of its inheritance chain that sets them. */
export function budgetsAt(file: PlatformFile, clusterId: string, team: string, pool: string): FieldPath {
  const key = Object.entries(file.teams[team]?.pools ?? {}).find(([k, f]) => (f?.name ?? `${team}-${k}`) === pool)?.[0];
  const clusterTeams = file.clusters[clusterId]?.teams;
  const ct = isPlainMap(clusterTeams) ? (clusterTeams as Record<string, { disruption?: { budgets?: unknown }; pools?: Record<string, { disruption?: { budgets?: unknown } } | null> } | null>)[team] : undefined;
  const levels: [FieldPath, unknown][] = [
    [['clusters', clusterId, 'overrides'], file.clusters[clusterId]?.overrides],
    ...(key ? [[['clusters', clusterId, 'teams', team, 'pools', key], ct?.pools?.[key]] as [FieldPath, unknown]] : []),
    [['clusters', clusterId, 'teams', team], ct],
    ...(key ? [[['teams', team, 'pools', key], file.teams[team]?.pools?.[key]] as [FieldPath, unknown]] : []),
    [['teams', team], file.teams[team]],
    [['defaults'], file.defaults],
  ];
  const found = levels.find(([, v]) => (v as { disruption?: { budgets?: unknown } } | null | undefined)?.disruption?.budgets !== undefined);
  return found ? [...found[0], 'disruption', 'budgets'] : ['teams', team];
}
