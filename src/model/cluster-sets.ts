/**
 * Sets of clusters, said and chosen at any fleet size (contract 8.2): the words for a set of
 * clusters that name it by what it is (`group prod (80 clusters)`, `stage 2 (30 clusters)`)
 * before its first few names, which `dist/SUMMARY.md`, `fit`, `explain` and the review's cost
 * lines share; and the clusters `--cluster`, `--stage` and `--group` choose. Pure functions over
 * what a cluster says of itself: a `Cluster` of the platform and a cluster of `dist/summary.json`
 * are both {@link ClusterTags}.
 */
import { suggest } from '../input/issues';

/** What sets read of a cluster. */
export interface ClusterTags {
  readonly id: string;
  /** Its rollout stage. @default - none (null in `dist/summary.json`) */
  readonly stage?: number | null;
  /** The groups it is in, in file order. @default [] - none (a `dist/summary.json` written before groups) */
  readonly groups?: readonly string[];
}

/** How many names a set shows before `… and N more`. */
const SHOWN = 6;

/** `a, b, c … and 97 more`: at most `max` names, then how many more. */
export function someNames(names: readonly string[], max = SHOWN): string {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} … and ${(names.length - max).toLocaleString('en-US')} more`;
}

/** `1 cluster`, `1,200 clusters`. */
export function count(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

/** Every group of the fleet, in the order clusters first name them, with its clusters' ids. */
function groupsOf(fleet: readonly ClusterTags[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const c of fleet) for (const g of c.groups ?? []) groups.set(g, [...(groups.get(g) ?? []), c.id]);
  return groups;
}

/**
 * The words for the clusters `ids` of `fleet`, by what they are when they are all of something:
 * `cluster prod-eu-01`, `all 120 clusters`, `group prod (80 clusters)`, `stage 2 (30 clusters)`;
 * else by the smallest group that holds them, `12 of group prod's 80 clusters (prod-eu-01, …
 * and 6 more)`, or by their first names, `5 clusters (a, b, c, d, e)`. Ids are shown in the
 * order given.
 */
export function describeClusters(ids: readonly string[], fleet: readonly ClusterTags[]): string {
  if (ids.length === 1) return `cluster ${ids[0]}`;
  const wanted = new Set(ids);
  const exactly = (members: readonly string[]) => members.length === wanted.size && members.every((m) => wanted.has(m));
  const n = count(wanted.size, 'cluster');
  if (exactly(fleet.map((c) => c.id))) return `all ${n}`;
  const groups = groupsOf(fleet);
  for (const [group, members] of groups) if (exactly(members)) return `group ${group} (${n})`;
  const stages = [...new Set(fleet.map((c) => c.stage).filter((s): s is number => typeof s === 'number'))];
  for (const stage of stages) if (exactly(fleet.filter((c) => c.stage === stage).map((c) => c.id))) return `stage ${stage} (${n})`;
  const holding = [...groups].filter(([, members]) => ids.every((id) => members.includes(id))).sort(([, a], [, b]) => a.length - b.length)[0];
  if (holding) return `${wanted.size.toLocaleString('en-US')} of group ${holding[0]}'s ${count(holding[1].length, 'cluster')} (${someNames(ids)})`;
  return `${n} (${someNames(ids)})`;
}

/**
 * Which clusters a command looks at: `--cluster`, `--stage` and `--group`, each a list of values
 * (comma-separated on the command line). A cluster is chosen when it meets every option given
 * (one of its values each), as a group's `match` is met.
 */
export interface ClusterSelector {
  /** Cluster ids. @default - any cluster */
  readonly clusters?: readonly string[];
  /** Stage numbers, as typed. @default - any stage */
  readonly stages?: readonly string[];
  /** Group names. @default - any group, or none */
  readonly groups?: readonly string[];
}

/** The values of a comma-separated option: `a, b` and `a,,b` are `a` and `b`; none when it is not given. */
export function listOption(value: string | undefined): string[] | undefined {
  return value === undefined ? undefined : value.split(',').map((v) => v.trim()).filter((v) => v !== '');
}

/** Whether a selector chooses anything: some option is given. */
export function selects(selector: ClusterSelector): boolean {
  return selector.clusters !== undefined || selector.stages !== undefined || selector.groups !== undefined;
}

/**
 * The ids of the clusters of `fleet` a selector chooses, in fleet order; or every problem with it:
 * a value no cluster has (with the closest one that exists), a stage that is not a number, and
 * options that together choose no cluster.
 */
export function selectClusters(fleet: readonly ClusterTags[], selector: ClusterSelector): { readonly ids: readonly string[] } | { readonly problems: readonly string[] } {
  const problems: string[] = [];
  const ids = fleet.map((c) => c.id);
  const groups = [...groupsOf(fleet).keys()];
  const stages = [...new Set(fleet.map((c) => c.stage).filter((s): s is number => typeof s === 'number'))].sort((a, b) => a - b);
  const unknown = (option: string, what: string, value: string, known: readonly string[]) => {
    const near = suggest(value, known);
    problems.push(`--${option}: no ${what} "${value}" ${near !== undefined ? `(did you mean "${near}"?)` : known.length ? `(${what}s: ${someNames(known, 10)})` : `(the fleet has no ${what}s)`}`);
  };
  for (const id of selector.clusters ?? []) if (!ids.includes(id)) unknown('cluster', 'cluster', id, ids);
  const wantedStages: number[] = [];
  for (const stage of selector.stages ?? []) {
    const n = /^[0-9]+$/.test(stage) ? Number(stage) : undefined;
    if (n === undefined) problems.push(`--stage: "${stage}" is not a stage number (${stages.length ? `stages: ${stages.join(', ')}` : 'no cluster has a stage'})`);
    else if (!stages.includes(n)) problems.push(`--stage: no cluster is at stage ${n} (${stages.length ? `stages: ${stages.join(', ')}` : 'no cluster has a stage'})`);
    else wantedStages.push(n);
  }
  for (const group of selector.groups ?? []) if (!groups.includes(group)) unknown('group', 'group', group, groups);
  for (const [option, values] of [['cluster', selector.clusters], ['stage', selector.stages], ['group', selector.groups]] as const) {
    if (values !== undefined && values.length === 0) problems.push(`--${option} needs at least one value`);
  }
  if (problems.length) return { problems };
  const chosen = fleet.filter((c) => (selector.clusters === undefined || selector.clusters.includes(c.id))
    && (selector.stages === undefined || (typeof c.stage === 'number' && wantedStages.includes(c.stage)))
    && (selector.groups === undefined || (c.groups ?? []).some((g) => selector.groups!.includes(g)))).map((c) => c.id);
  if (chosen.length === 0) {
    const given = [
      selector.clusters && `--cluster ${selector.clusters.join(',')}`, selector.stages && `--stage ${selector.stages.join(',')}`, selector.groups && `--group ${selector.groups.join(',')}`,
    ].filter(Boolean);
    return { problems: [`${given.join(' and ')} choose no cluster together: each cluster meets every option given`] };
  }
  return { ids: chosen };
}
