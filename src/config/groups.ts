/**
 * Groups of clusters (contract 8.2, docs/config.md "Groups"): which clusters each group
 * matches, and the layers a group adds to a cluster's settings, in file order, between the
 * fleet-wide ones and the cluster's own: its window, tenancy and karpenter (merged under the
 * cluster's by src/config/settings.ts), its teams' pool fields (after the team and its pool,
 * before the cluster's teams) and its overrides (before the cluster's).
 */
import { suggest } from '../input/issues';
import type { FieldPath, Problem } from '../input/problems';
import type { SourceFile } from '../input/source';
import type { ClusterFile, GroupFile, PlatformFile } from './schema';

/** A group a cluster is in: its name and what it says. */
export interface ClusterGroup {
  readonly name: string;
  readonly group: GroupFile;
  /** Where it is in the file (`groups.<name>`). */
  readonly at: FieldPath;
}

/** The ids a group's `match.clusters` lists, as a set built once per list: a group of a large fleet may list hundreds. */
const listedSets = new WeakMap<readonly string[], ReadonlySet<string>>();

function listed(clusters: readonly string[]): ReadonlySet<string> {
  let set = listedSets.get(clusters);
  if (!set) listedSets.set(clusters, set = new Set(clusters));
  return set;
}

/** Whether a cluster meets a group's `match`: every condition given holds. */
function matches(group: GroupFile, id: string, cluster: ClusterFile): boolean {
  const { labels, stage, clusters } = group.match;
  if (clusters !== undefined && !listed(clusters).has(id)) return false;
  if (stage !== undefined && cluster.stage !== stage) return false;
  if (labels !== undefined && !Object.entries(labels).every(([k, v]) => cluster.labels?.[k] === v)) return false;
  return true;
}

/** The groups a cluster is in, in file order. */
export function groupsOf(file: PlatformFile, clusterId: string): ClusterGroup[] {
  const cluster = file.clusters[clusterId];
  if (!cluster) return [];
  return Object.entries(file.groups ?? {}).filter(([, g]) => matches(g, clusterId, cluster)).map(([name, group]) => ({ name, group, at: ['groups', name] }));
}

/**
 * What is wrong with `groups` as a whole: a group that matches no cluster (with what would
 * come close), a cluster id, window or team it names that does not exist, a pool of a team
 * the team does not define.
 */
export function groupProblems(source: SourceFile, file: PlatformFile): Problem[] {
  const problems: Problem[] = [];
  const clusterIds = Object.keys(file.clusters);
  const known = new Set(clusterIds);
  const windows = Object.keys(file.windows ?? {});
  const teams = Object.keys(file.teams);
  for (const [name, g] of Object.entries(file.groups ?? {})) {
    const at: FieldPath = ['groups', name];
    for (const [i, id] of (g.match.clusters ?? []).entries()) {
      if (known.has(id)) continue;
      const best = suggest(id, clusterIds);
      problems.push(source.problem([...at, 'match', 'clusters', i], `no cluster "${id}"${best ? ` (did you mean "${best}"?)` : ''}`));
    }
    if (!clusterIds.some((id) => matches(g, id, file.clusters[id]))) {
      problems.push(source.problem([...at, 'match'], `group ${name} matches no cluster: ${whyNone(g, file)}`));
    }
    if (g.window !== undefined && !windows.includes(g.window)) {
      const best = suggest(g.window, windows);
      problems.push(source.problem([...at, 'window'], `unknown window "${g.window}"${best ? ` (did you mean "${best}"?)` : ''}${windows.length ? ` (defined: ${windows.join(', ')})` : ': define it under windows'}`));
    }
    for (const [team, fields] of Object.entries(g.teams ?? {})) {
      if (!teams.includes(team)) {
        const best = suggest(team, teams);
        problems.push(source.problem([...at, 'teams', team], `unknown team "${team}"${best ? ` (did you mean "${best}"?)` : ''} (teams: ${teams.join(', ')})`, 'key'));
        continue;
      }
      const defined = Object.keys(file.teams[team]?.pools ?? {});
      for (const key of Object.keys(fields?.pools ?? {})) {
        if (defined.includes(key)) continue;
        const best = suggest(key, defined);
        problems.push(source.problem([...at, 'teams', team, 'pools', key], `team ${team} defines no pool "${key}"${best ? ` (did you mean "${best}"?)` : ''}: `
          + `a group sets fields of the team's own pools only (${defined.length ? `its pools: ${defined.join(', ')}` : 'it has none'})`, 'key'));
      }
    }
  }
  return problems;
}

/** Why a group's match holds for no cluster, condition by condition: what the clusters have instead. */
function whyNone(g: GroupFile, file: PlatformFile): string {
  const clusters = Object.entries(file.clusters);
  const parts: string[] = [];
  for (const [k, v] of Object.entries(g.match.labels ?? {})) {
    const values = [...new Set(clusters.map(([, c]) => c.labels?.[k]).filter((x): x is string => x !== undefined))];
    if (!values.includes(v)) {
      const best = suggest(v, values);
      parts.push(values.length ? `no cluster has the label ${k}: ${v}${best ? ` (did you mean ${k}: ${best}?)` : ''} (its values: ${values.sort().join(', ')})` : `no cluster has a label ${k} (clusters.<id>.labels)`);
    }
  }
  if (g.match.stage !== undefined && !clusters.some(([, c]) => c.stage === g.match.stage)) parts.push(`no cluster is at stage ${g.match.stage}`);
  return parts.length ? parts.join('; ') : 'no cluster meets every condition at once (all given must hold)';
}
