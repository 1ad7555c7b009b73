/**
 * Adopting several clusters in one run (contract 9.2, docs/adopting.md "Several clusters in one
 * run"), and the config each adoption is judged against. Clusters are adopted one after the
 * other into one config text: a cluster whose NodePools an adopted team already makes (the same
 * names, its differences sayable per cluster) joins that team; any other gets a team of its own,
 * `platform` (or `--team`) when that name is free, else named after the cluster. Nothing of a
 * cluster's pre-adoption config is judged: before adoption, the clusters being adopted run no team.
 */
import { parse, parseDocument } from 'yaml';
import type { TerraformOutputs } from '../config/terraform';
import { platformSchema } from '../config/schema';
import { AdoptionError, adoptConfig, Adoption } from './adopt';
import type { LiveExport } from './live';
import { keepUntouchedLines } from './text-edits';

/** One cluster to adopt, with what was read for it. */
export interface ClusterToAdopt {
  readonly clusterId: string;
  readonly live: LiveExport;
  /** Its Terraform outputs, as the config reads them. */
  readonly terraform: TerraformOutputs;
  /** The running release's user-supplied values. @default - none */
  readonly helmValues?: unknown;
  /** The namespace the running release is in. @default - the config's */
  readonly namespace?: string;
}

/** The config text after every adoption, and per cluster the team it went to and what adoption said. */
export interface FleetAdoption {
  readonly text: string;
  readonly clusters: readonly { readonly clusterId: string; readonly team: string; readonly adoption: Adoption }[];
}

/**
 * The config `text` with each of `clusterIds` running no team and no smoke test: what "before"
 * means when they are adopted, so that only what adoption writes for them is judged, never the
 * teams their entries ran by default (an adopted team of another cluster, whose pools they could
 * not run).
 */
export function baselineText(text: string, clusterIds: readonly string[]): string {
  const doc = parseDocument(text);
  for (const id of clusterIds) {
    if (!doc.hasIn(['clusters', id])) continue;
    doc.setIn(['clusters', id, 'teams'], doc.createNode([], { flow: true }));
    doc.setIn(['clusters', id, 'smokeTests'], false);
  }
  return doc.toString({ lineWidth: 0 });
}

/**
 * Adopts `clusters` in order into `text`. With `team` given every cluster goes to it (joining
 * it when it exists); without, as the module says.
 * @throws AdoptionError with every problem of every cluster
 */
export function adoptClusters(text: string, clusters: readonly ClusterToAdopt[], team: string | undefined): FleetAdoption {
  const problems: string[] = [];
  const done: { clusterId: string; team: string; adoption: Adoption }[] = [];
  let current = text;
  const adopting = clusters.map((c) => c.clusterId);
  for (const c of clusters) {
    const file = platformSchema.parse(parse(current));
    const attempt = (t: string) => adoptConfig(current, file, c.terraform, {
      clusterId: c.clusterId, live: c.live, helmValues: c.helmValues, namespace: c.namespace, team: t, alsoAdopting: adopting,
    });
    const joinable = team !== undefined ? [] : Object.entries(file.teams).filter(([, t]) => t?.adopted === true).map(([id]) => id);
    let result: { team: string; adoption: Adoption } | undefined;
    for (const candidate of joinable) {
      try {
        result = { team: candidate, adoption: attempt(candidate) };
        break;
      } catch (err) {
        // Another shape: the next team, or a team of its own.
        if (!(err instanceof AdoptionError)) throw err;
      }
    }
    if (!result) {
      const own = team ?? freeTeamName(Object.keys(file.teams), c.clusterId);
      try {
        result = { team: own, adoption: attempt(own) };
      } catch (err) {
        if (!(err instanceof AdoptionError)) throw err;
        problems.push(...err.problems);
        continue;
      }
    }
    current = result.adoption.text;
    done.push({ clusterId: c.clusterId, ...result });
  }
  if (problems.length) throw new AdoptionError(problems);
  // Every line no adoption changed, as the user wrote it.
  return { text: keepUntouchedLines(text, current), clusters: done };
}

/** `platform` when no team has that name, else the cluster's id (then `<id>-2`, ...). */
function freeTeamName(teams: readonly string[], clusterId: string): string {
  if (!teams.includes('platform')) return 'platform';
  let name = clusterId;
  for (let i = 2; teams.includes(name); i++) name = `${clusterId}-${i}`;
  return name;
}
