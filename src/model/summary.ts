/**
 * `dist/SUMMARY.md`: the fleet at a glance (contract 8.2), readable at any size. Clusters are
 * counted, never drawn or tabled one by one: by stage and group in a picture, by stage, group,
 * region, window and Karpenter release in a table; costs are summed by stage and group, with
 * team totals. Each cluster's detail is its own page, `dist/<cluster>/SUMMARY.md`
 * (cluster-summary.ts), which the index at the end links.
 */
import type { Cluster, Platform } from '../config/platform';
import { regionOf } from '../config/terraform';
import { unsupportedSummaryLines } from '../config/support';
import { compareRelease } from '../release/versions';
import { budgetDuration } from '../schedule/windows';
import { FLEET_FILES, clusterLayout, relativeLink } from '../output/layout';
import { count } from './cluster-sets';
import { nodes, sourceLine, SummaryPool } from './cluster-summary';
import { ClusterSet, costMarkdown, TeamCeiling, usd } from './cost';

/** The fleet's ceilings, as the plan sums them. */
export interface SummaryCosts {
  readonly teams: readonly TeamCeiling[];
  readonly clusters: readonly { readonly cluster: string; readonly perHour: number | null }[];
}

/**
 * `dist/SUMMARY.md`: how many clusters and pools, a picture of the stages and the groups in
 * each, the clusters counted by stage, groups, region, window and Karpenter release, the
 * clusters of each release, the cost ceilings by stage and group, and an index of the clusters'
 * pages. GitHub renders it in a PR's file view.
 * @param configFile the config it comes from, relative to the output root (`/`-separated);
 * linked from `dist/`, where the summary is
 * @param costs the fleet's ceilings (see fleetPlan)
 */
export function summaryMarkdown(platform: Platform, configFile: string, costs: SummaryCosts): string {
  const clusters = platform.clusters;
  const pools = clusters.reduce((n, c) => n + c.pools.length, 0);
  const teams = new Set(clusters.flatMap((c) => c.pools.map((p) => p.team))).size;
  const sets = clusterSets(platform);
  const lines = [
    '# Karpenter pools',
    '',
    sourceLine(FLEET_FILES.summary, configFile),
    '',
    `${count(clusters.length, 'cluster')}, ${count(pools, 'pool')} of ${count(teams, 'team')}. `
      + 'Each cluster\'s pools, tenancy, window, stage, Argo CD waves and cost ceilings are on a page of its own, `dist/<cluster>/SUMMARY.md`, listed under [Clusters](#clusters).',
    '',
    ...fleetPicture(platform, costs),
    ...glance(platform, costs),
    ...releases(platform),
    ...unsupportedSummaryLines(platform),
    ...costMarkdown(sets, costs.teams, platform.budgets ?? []),
    '',
    ...clusterIndex(sets),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * What synth prints with `--verbose`: a header row, then one row per pool (cluster, pool, arch,
 * capacity, instance types admitted after overlays, nodes: a static pool's replicas, its
 * NodePool's limits).
 */
export function summaryRows(platform: Platform, plans: readonly { readonly pools: readonly SummaryPool[] }[]): string[][] {
  const rows = [['CLUSTER', 'POOL', 'ARCH', 'CAPACITY', 'TYPES', 'NODES', 'LIMITS']];
  platform.clusters.forEach((c, i) => {
    c.pools.forEach((p, j) => {
      const { facts, nodePool } = plans[i].pools[j];
      const limits = Object.entries(nodePool.limits ?? {}).map(([k, v]) => `${k}=${v}`).join(',') || '-';
      rows.push([c.id, p.name, p.settings.arch.join(','), p.settings.capacityTypes.join(','), String(facts.admitted.length), nodes(facts.replicas, facts.nodesWhileDrifting), limits]);
    });
  });
  return rows;
}

/** A cluster's stage for ordering and grouping: 0 for none (it takes a change at merge, like stage 1). */
const stageOf = (c: Cluster) => c.stage ?? 0;

/** `stage 3`, or `no stage` (0). */
const stageText = (stage: number) => (stage === 0 ? 'no stage' : `stage ${stage}`);

/** `group dev`, `groups prod, prod-eu`, `no group`. */
function groupsText(groups: readonly string[]): string {
  return groups.length === 0 ? 'no group' : `group${groups.length === 1 ? '' : 's'} ${groups.join(', ')}`;
}

/**
 * The clusters bucketed by `key`, in stage order then the order the fleet first has each
 * bucket: the rows of the tables and the boxes of the picture.
 */
function bucket(clusters: readonly Cluster[], key: (c: Cluster) => string): Cluster[][] {
  const buckets = new Map<string, Cluster[]>();
  for (const c of [...clusters].sort((a, b) => stageOf(a) - stageOf(b))) {
    const k = `${stageOf(c)}\u0000${key(c)}`;
    buckets.set(k, [...(buckets.get(k) ?? []), c]);
  }
  return [...buckets.values()];
}

/** The fleet by stage and groups: what the picture draws, the cost table sums and the index lists. */
function clusterSets(platform: Platform): (ClusterSet & { readonly stage: number; readonly groups: readonly string[] })[] {
  return bucket(platform.clusters, (c) => c.groups.join(',')).map((cs) => {
    const [{ groups }] = cs;
    const stage = stageOf(cs[0]);
    return { stage, groups, label: `${stageText(stage)} · ${groupsText(groups)}`, clusters: cs.map((c) => c.id) };
  });
}

/** `no window`, `window prod-eu`, `windows a, b`, `4 windows`: the windows of some clusters. */
function windowsText(clusters: readonly Cluster[]): string {
  const names = [...new Set(clusters.map((c) => c.window?.name ?? ''))];
  if (names.length === 1) return names[0] === '' ? 'no window' : `window ${names[0]}`;
  const shown = names.map((n) => n || 'none');
  return shown.length <= 3 ? `windows ${shown.join(', ')}` : `${shown.length} windows`;
}

/** `Karpenter 1.14.1`, `Karpenter 1.13.1, 1.14.1`: the releases some clusters run, oldest first. */
function releasesText(clusters: readonly Cluster[]): string {
  const versions = [...new Set(clusters.map((c) => c.karpenter.version))].sort(compareRelease);
  return `Karpenter ${versions.length <= 3 ? versions.join(', ') : `${versions.length} releases`}`;
}

/** The sum of some clusters' ceilings (the plan's), as shown: `$12.34`, or `unbounded`. */
function ceilingOf(ids: readonly string[], costs: SummaryCosts): string {
  const values = ids.map((id) => costs.clusters.find((c) => c.cluster === id)?.perHour ?? null);
  return values.some((v) => v === null) ? 'unbounded' : usd((values as number[]).reduce((a, b) => a + b, 0));
}

/**
 * Most boxes a stage of the picture draws; the rest of its groups are one box. Mermaid 11.17
 * draws a stage's boxes about 250 px apart: 6 keep a stage about 1,500 px tall, however many
 * clusters and groups it has (measured in test/model/fleet-summary.test.ts).
 */
const MAX_STAGE_BOXES = 6;

/**
 * Most stages drawn side by side (each about 400 px wide); a fleet of more stages is drawn top
 * to bottom, each stage's boxes side by side.
 */
const MAX_STAGES_ACROSS = 5;

/**
 * A picture of the fleet (GitHub renders Mermaid in markdown): one box per stage in rollout
 * order; in it, one box per set of groups its clusters are in, with how many clusters and
 * pools, their windows, teams, Karpenter releases and cost ceiling; the arrows are the
 * promotions (a stage gets a change once the stage before has finished it). A box counts
 * clusters (it names them when they are three or fewer) and a stage draws at most
 * {@link MAX_STAGE_BOXES}, so the picture keeps its size as the fleet grows.
 */
function fleetPicture(platform: Platform, costs: SummaryCosts): string[] {
  if (platform.clusters.length === 0) return [];
  const text = (s: string) => s.replace(/"/g, "'");
  const sets = bucket(platform.clusters, (c) => c.groups.join(','));
  const stages = [...new Set(platform.clusters.map(stageOf))].sort((a, b) => a - b);
  // A subgraph with a direction of its own lays its boxes out across the flow: stacked under
  // each other when the stages go left to right.
  const direction = stages.length <= MAX_STAGES_ACROSS ? 'LR' : 'TB';
  const lines = [
    '## The fleet', '',
    'Stages in rollout order (a stage gets a change once every cluster of the stage before has finished it); in each, its clusters by the groups they are in, '
      + 'with how many clusters and pools, their windows, teams, Karpenter releases and cost ceiling per hour.', '',
    '```mermaid', `flowchart ${direction}`,
  ];
  const box = (id: string, cs: readonly Cluster[], title: string) => {
    const ids = cs.map((c) => c.id);
    const pools = cs.reduce((n, c) => n + c.pools.length, 0);
    const teams = new Set(cs.flatMap((c) => c.pools.map((p) => p.team))).size;
    const who = ids.length <= 3 ? ids.join(', ') : count(ids.length, 'cluster');
    const ceiling = ceilingOf(ids, costs);
    lines.push(`    ${id}["${text([
      title, `${who} · ${count(pools, 'pool')}`, `${windowsText(cs)} · ${count(teams, 'team')}`,
      `${releasesText(cs)} · ${ceiling === 'unbounded' ? 'ceiling unbounded' : `ceiling ${ceiling}/h`}`,
    ].join('<br/>'))}"]`);
  };
  for (const stage of stages) {
    const policy = platform.gitops.stages?.find((s) => s.stage === stage);
    const how = stage <= 1 ? ': at merge' : policy ? `: ${[policy.soakMinutes ? `soak ${budgetDuration(policy.soakMinutes)}` : '', policy.environment ? `approved in ${policy.environment}` : ''].filter(Boolean).join(', ')}` : '';
    lines.push(`  subgraph s${stage}["${text(`${stageText(stage)}${how === ': ' ? '' : how}`)}"]`, `    direction ${direction}`);
    const here = sets.filter((cs) => stageOf(cs[0]) === stage);
    const drawn = here.length > MAX_STAGE_BOXES ? here.slice(0, MAX_STAGE_BOXES - 1) : here;
    drawn.forEach((cs, i) => box(`s${stage}_${i}`, cs, groupsText(cs[0].groups)));
    const rest = here.slice(drawn.length);
    if (rest.length) box(`s${stage}_more`, rest.flat(), `${rest.length} more sets of groups`);
    lines.push('  end');
  }
  const staged = stages.filter((s) => s > 0);
  for (let i = 1; i < staged.length; i++) lines.push(`  s${staged[i - 1]} --> s${staged[i]}`);
  lines.push('```', '');
  return lines;
}

/** The clusters counted by stage, groups, region, window and Karpenter release, with their pools and ceiling. */
function glance(platform: Platform, costs: SummaryCosts): string[] {
  const rows = bucket(platform.clusters, (c) => [c.groups.join(','), regionOf(c.terraform) ?? '', c.window?.name ?? '', c.karpenter.version].join('\u0000'));
  return [
    '## Clusters at a glance', '',
    '| stage | groups | region | window | Karpenter | clusters | pools | ceiling per hour |',
    '|---|---|---|---|---|---:|---:|---:|',
    ...rows.map((cs) => {
      const [c] = cs;
      return `| ${stageOf(c) === 0 ? '-' : stageOf(c)} | ${c.groups.join(', ') || '-'} | ${regionOf(c.terraform) ?? '-'} | ${c.window?.name ?? '-'} | ${c.karpenter.version} `
        + `| ${cs.length.toLocaleString('en-US')} | ${cs.reduce((n, x) => n + x.pools.length, 0).toLocaleString('en-US')} | ${ceilingOf(cs.map((x) => x.id), costs)} |`;
    }),
    '',
  ];
}

/** The clusters on each Karpenter release, newest first, every one named. */
function releases(platform: Platform): string[] {
  const versions = [...new Set(platform.clusters.map((c) => c.karpenter.version))].sort((a, b) => compareRelease(b, a));
  return [
    '## Karpenter releases', '',
    ...versions.map((v) => {
      const on = platform.clusters.filter((c) => c.karpenter.version === v);
      return `- **${v}** on ${count(on.length, 'cluster')}: ${on.map((c) => `\`${c.id}\``).join(', ')}`;
    }),
    '',
  ];
}

/** Every cluster's page, linked, by stage and groups. */
function clusterIndex(sets: readonly (ClusterSet & { readonly stage: number })[]): string[] {
  return [
    '## Clusters', '',
    'Each cluster\'s page: its pools, tenancy, window, stage, Argo CD waves and cost ceilings.', '',
    ...sets.map((s) => `- ${s.label} (${s.clusters.length.toLocaleString('en-US')}): ${s.clusters.map((id) => `[\`${id}\`](${relativeLink(FLEET_FILES.summary, clusterLayout(id).summary)})`).join(', ')}`),
    '',
  ];
}
