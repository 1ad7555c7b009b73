/**
 * Pages at their size (issue 38, contract 8.2): the 120-cluster fleet of test/support/big-fleet.ts,
 * planned and synthesized once. `dist/SUMMARY.md` is the fleet at a glance, under 150 KB, and
 * every Mermaid diagram of it and of each cluster's page `dist/<cluster>/SUMMARY.md` renders with
 * the real mermaid (in Chromium where it is installed, else parsed) no larger than 2,400 px
 * either way; each cluster's page holds what SUMMARY.md held for it; Argo CD never reads those
 * pages (test/support/git-sim.ts models its directory sources, argo-cd v3.5.1). A fleet of 500
 * clusters, as plain data (no synth), keeps the fleet's page as small and its picture as readable.
 */
import { parseAllDocuments } from 'yaml';
import type { Cluster, Platform } from '../../src/config/platform';
import { loadPlan } from '../../src/model/checks';
import { PoolCost, teamCeilings, clusterCeilings, usd } from '../../src/model/cost';
import { summaryMarkdown } from '../../src/model/summary';
import { clusterLayout, FLEET_FILES } from '../../src/output/layout';
import { review } from '../../src/review/changes';
import { markdownReport, terminalReport } from '../../src/review/report';
import { Body, GeneratedTree, sourcePaths } from '../../src/review/tree';
import { render } from '../../src/synth';
import { renderFile } from '../../src/output/render';
import { Plain, removeProjects, writeProject } from '../builders';
import { aCluster, aPlatform, aPool } from '../pool-builders';
import { bigFleet, bigFleetClusterIds } from '../support/big-fleet';
import { GitSim } from '../support/git-sim';
import { hasChromium, mermaidBlocks, parseMermaid, renderMermaid } from '../support/mermaid';

afterAll(removeProjects);

/** The issue's bound on a diagram, either way, as GitHub shows it at its natural size. */
const MAX_PX = 2400;
/** The issue's bound on the fleet's page. */
const MAX_SUMMARY_BYTES = 150 * 1024;

const { platform, plan } = loadPlan(writeProject(bigFleet()).configPath);
const files = new Map<string, string>();
render(plan, (f) => files.set(f.path, renderFile(f)));
const summary = files.get(FLEET_FILES.summary)!;
const page = (id: string) => files.get(clusterLayout(id).summary) ?? '';

/**
 * Each diagram's size as mermaid draws it: the width and height of its SVG's viewBox, rendered in
 * headless Chromium; where Chromium is missing (`npm test` without it; CI installs it), only
 * whether mermaid's parser accepts it.
 */
async function drawn(diagrams: readonly string[]): Promise<{ error?: string; width?: number; height?: number }[]> {
  if (!hasChromium()) return (await parseMermaid(diagrams)).map((error) => (error === undefined ? {} : { error }));
  return (await renderMermaid(diagrams)).map((r) => {
    if (r.error !== undefined || r.svg === undefined) return { error: r.error ?? 'no svg' };
    const box = /viewBox="([-\d.]+) ([-\d.]+) ([\d.]+) ([\d.]+)"/.exec(r.svg);
    return box ? { width: Number(box[3]), height: Number(box[4]) } : { error: 'no viewBox' };
  });
}

/** The diagrams that are too large, or fail, by where they are. */
function oversized(where: readonly string[], sizes: readonly { error?: string; width?: number; height?: number }[]): string[] {
  return sizes.flatMap((s, i) => (s.error !== undefined ? [`${where[i]}: ${s.error}`]
    : (s.width ?? 0) > MAX_PX || (s.height ?? 0) > MAX_PX ? [`${where[i]}: ${s.width} × ${s.height} px`] : []));
}

describe('dist/SUMMARY.md of 120 clusters', () => {
  it('is under 150 KB and counts the clusters by stage, groups, region, window and Karpenter release', () => {
    expect(Buffer.byteLength(summary)).toBeLessThan(MAX_SUMMARY_BYTES);
    expect(summary).toContain('120 clusters, 1,200 pools of 8 teams.');
    expect(summary).toContain('| 2 | staging | us-east-1 | - | 1.13.1 | 10 | 100 |');
    expect(summary).toContain('| 3 | prod, prod-eu | eu-west-1 | prod-eu | 1.14.1 | 27 | 270 |');
    // No cluster is a box of the picture, a column of a table or a section of its own.
    expect(summary).not.toMatch(/^## Cluster `/m);
    expect(summary).not.toMatch(/\| `prod-eu-01` \|/);
  });

  it('draws the stages and, in each, the groups with their counts: five boxes, not 120', () => {
    const [picture] = mermaidBlocks(summary);
    expect(picture.split('\n').filter((l) => /^ {4}\S+\["/.test(l))).toEqual([
      expect.stringMatching(/group dev<br\/>10 clusters · 100 pools<br\/>no window · 8 teams<br\/>Karpenter 1\.14\.1 · ceiling \$\d+\.\d\d\/h"/),
      expect.stringMatching(/group staging<br\/>30 clusters · 300 pools<br\/>no window · 8 teams<br\/>Karpenter 1\.13\.1/),
      expect.stringMatching(/groups prod, prod-eu<br\/>27 clusters · 270 pools<br\/>window prod-eu · 8 teams/),
      expect.stringMatching(/groups prod, prod-us<br\/>27 clusters/),
      expect.stringMatching(/groups prod, prod-ap<br\/>26 clusters/),
    ]);
    expect(picture).toMatch(/subgraph s3\["stage 3: soak 24h, approved in production"\]/);
    expect(picture).toContain('  s2 --> s3');
  });

  it('names the clusters on each Karpenter release and links every cluster\'s page', () => {
    const staging = bigFleetClusterIds().filter((id) => id.startsWith('staging-'));
    expect(summary).toContain(`- **1.13.1** on 30 clusters: ${staging.map((id) => `\`${id}\``).join(', ')}`);
    for (const id of bigFleetClusterIds()) expect(summary).toContain(`[\`${id}\`](${id}/SUMMARY.md)`);
  });

  it('sums the cost by stage and group with team totals: a row per team and set, no column per cluster', () => {
    const table = summary.slice(summary.indexOf('## Cost ceilings'), summary.indexOf('## Clusters\n'));
    expect(table).toContain('| team | clusters | each cluster | in all | budget |');
    expect(table).toMatch(/^\| checkout \| stage 3 · groups prod, prod-eu \(27\) \| \$\d+\.\d\d \| \$\d+\.\d\d \| \|$/m);
    expect(table).toMatch(/^\| \*\*checkout\*\* \| in all: 120 clusters \| \| \*\*\$\d+\.\d\d\*\* \| - \|$/m);
    // 8 teams and all teams, each on 5 sets and in all.
    expect(table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| team'))).toHaveLength(9 * 6);
  });
});

describe('each cluster\'s page, dist/<cluster>/SUMMARY.md', () => {
  it('exists for every cluster and holds its detail: pools, window, stage, waves and cost', () => {
    expect(platform.clusters.filter((c) => page(c.id) === '').map((c) => c.id)).toEqual([]);
    const prod = page('prod-eu-01');
    expect(prod).toMatch(/^# Cluster `prod-eu-01` \(EKS `prod-eu-01`\)$/m);
    expect(prod).toContain('Karpenter 1.14.1 in namespace `kube-system`, controller on a node group; Kubernetes 1.34; stage 3; groups prod, prod-eu; region eu-west-1; labels `env=prod`, `geo=eu`.');
    for (const pool of platform.clusters.find((c) => c.id === 'prod-eu-01')!.pools) expect(prod).toMatch(new RegExp(`^\\| \`${pool.name}\` \\| ${pool.team} \\|`, 'm'));
    expect(prod).toMatch(/^Window `prod-eu`: mon, tue, wed, thu 22:00 for 6h \(Europe\/Berlin\)/m);
    expect(prod).toMatch(/^Stage 3: its root and every Application it creates track `karpenter-gitops\/stage-3`, promoted once every cluster of stage 2 runs the revision/m);
    expect(mermaidBlocks(prod)).toEqual([expect.stringMatching(/wave 2: prod-eu-01-pools-checkout/)]);
    expect(prod).toMatch(/^\| all teams \| \$\d+\.\d\d \|$/m);
  });

  it('names no other cluster: a page changes only with its cluster (promote compares a cluster\'s folder)', () => {
    const others = bigFleetClusterIds().filter((id) => id !== 'staging-us-04');
    const text = page('staging-us-04');
    expect(others.filter((id) => new RegExp(`\\b${id}\\b`).test(text))).toEqual([]);
  });

  it('is never read by Argo CD: no Application\'s directory source holds it', () => {
    const git = new GitSim();
    const sha = git.commit(files, 'the fleet', 0);
    // Every Application: the roots and bootstrap of argocd/, the children of each cluster's apps/ (layout.ts).
    const apps = [...files].filter(([path]) => /^argocd\/|\/apps\/[^/]+\.yaml$/.test(path))
      .flatMap(([, text]) => parseAllDocuments(text).map((d) => d.toJS() as Body)).filter((d) => d?.kind === 'Application');
    expect(apps.length).toBeGreaterThan(120 * 10);
    const sources = apps.flatMap((a) => sourcePaths(a));
    // The model reads one folder, as every source here does (none recurses).
    expect(sources.filter((s) => s.recurse)).toEqual([]);
    const read = new Set(sources.flatMap((s) => (git.directory(sha, s.path, s.include) ?? []).map((f) => f.path)));
    expect(read.has('dist/prod-eu-01/nodepools/checkout/checkout.yaml')).toBe(true);
    expect(bigFleetClusterIds().map((id) => clusterLayout(id).summary).filter((p) => read.has(p) || !files.has(p))).toEqual([]);
    expect([...read].filter((p) => !/\.(yaml|yml|json)$/.test(p))).toEqual([]);
  });
});

describe('the review\'s cost section of a change on the 80 clusters of group prod', () => {
  // checkout's limits doubled on prod: its two pools' ceilings double on each prod cluster.
  const head = loadPlan(writeProject(bigFleet((c) => {
    ((c.groups as Plain).prod as Plain).teams = { checkout: { limits: { cpu: '400', memory: '1600Gi' } } };
  })).configPath).plan;
  const tree = (p: typeof plan, where: string) => new GeneratedTree(new Map([[FLEET_FILES.summaryData, `${JSON.stringify(p.summaryData.model)}\n`]]), where);
  const result = review(tree(plan, 'origin/main'), tree(head, 'the working tree'));
  const fleet = { data: head.summaryData.model, at: new Date('2026-11-26T10:00:00Z') };
  const costSection = (report: string) => report.slice(report.indexOf('Cost ceilings per hour'));

  it('says each team\'s change once for the group, not once per cluster, in the terminal and in the PR comment', () => {
    const terminal = costSection(terminalReport(result, 'origin/main', { fleet }));
    const before = plan.teamCeilings.find((t) => t.team === 'checkout')!;
    const each = usd(before.perCluster.get('prod-eu-01')!);
    const line = new RegExp(`^ {2}▲ team checkout: group prod \\(80 clusters\\) \\${each} -> \\$[\\d.]+ each \\(\\+\\$[\\d.]+ in all\\), total \\$[\\d.]+ -> \\$[\\d.]+; budget -$`, 'm');
    expect(terminal).toMatch(line);
    expect(terminal).toMatch(/^ {2}▲ all teams: group prod \(80 clusters\) \$[\d.]+ -> \$[\d.]+ each \(\+\$[\d.]+ in all\), total/m);
    expect(terminal.split('\n').filter((l) => l.startsWith('  ▲'))).toHaveLength(2);
    expect(terminal).not.toMatch(/prod-eu-01/);
    expect(costSection(markdownReport(result, 'origin/main', { fleet }))).toMatch(/^- ▲ team checkout: group prod \(80 clusters\) \$[\d.]+ -> \$[\d.]+ each/m);
  });
});

/**
 * A fleet of 500 clusters as plain data: four stages (dev 50, staging 100, canary 50, prod 300),
 * six regions, prod in groups by region and tier (12 sets, more than a stage draws), two
 * Karpenter releases, eight teams with a pool each; every pool's ceiling $10 an hour.
 */
function fleetOf500(): { platform: Platform; costs: { teams: ReturnType<typeof teamCeilings>; clusters: ReturnType<typeof clusterCeilings> } } {
  const regions = ['eu-west-1', 'eu-central-1', 'us-east-1', 'us-west-2', 'ap-northeast-2', 'ap-southeast-1'];
  const stages = [{ env: 'dev', stage: 1, n: 50 }, { env: 'staging', stage: 2, n: 100 }, { env: 'canary', stage: 3, n: 50 }, { env: 'prod', stage: 4, n: 300 }];
  const teams = ['checkout', 'search', 'payments', 'catalog', 'identity', 'ml', 'data', 'edge'];
  const clusters: Cluster[] = [];
  for (const { env, stage, n } of stages) {
    for (let i = 0; i < n; i++) {
      const region = regions[i % regions.length];
      const tier = i % 12 < 6 ? 'gold' : 'silver';
      const id = `${env}-${region}-${String(Math.floor(i / 6) + 1).padStart(3, '0')}`;
      const groups = env === 'prod' ? ['prod', `prod-${region}-${tier}`] : [env];
      clusters.push(aCluster(teams.map((t) => aPool({}, { name: t, team: t })), {
        id, stage, groups, labels: { env },
        terraform: { clusterName: id, nodeRoleName: 'node', region },
        karpenter: { ...aCluster().karpenter, version: env === 'staging' ? '1.13.1' : '1.14.1' },
        ...(env === 'prod' ? { window: { name: `prod-${region}`, timeZone: 'UTC', days: ['mon'], start: '22:00', duration: '6h' } } : {}),
      }));
    }
  }
  const ids = clusters.map((c) => c.id);
  const pools = clusters.flatMap((c) => c.pools.map((p): PoolCost => ({ cluster: c.id, pool: p.name, team: p.team, perHour: 10 })));
  return { platform: aPlatform(clusters), costs: { teams: teamCeilings(pools, ids), clusters: clusterCeilings(pools, ids) } };
}

const { platform: big, costs } = fleetOf500();
const text = summaryMarkdown(big, 'config/platform.yaml', costs);
/** The same clusters in seven stages, each cluster's by its place. */
const sevenStages = summaryMarkdown(aPlatform(big.clusters.map((c, i) => ({ ...c, stage: (i % 7) + 1 }))), 'config/platform.yaml', costs);

describe('dist/SUMMARY.md of 500 clusters (data only, no synth)', () => {

  it('stays under 150 KB and names every cluster once in the index', () => {
    expect(big.clusters).toHaveLength(500);
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_SUMMARY_BYTES);
    expect(text).toContain('500 clusters, 4,000 pools of 8 teams.');
    for (const c of big.clusters) expect(text).toContain(`[\`${c.id}\`](${c.id}/SUMMARY.md)`);
  });

  it('draws at most 6 boxes a stage, the rest of the groups as one; seven stages top to bottom', () => {
    const [picture] = mermaidBlocks(text);
    expect(picture.split('\n').filter((l) => /^ {4}s4_/.test(l))).toHaveLength(6);
    expect(picture).toMatch(/s4_more\["7 more sets of groups<br\/>175 clusters · 1,400 pools<br\/>6 windows · 8 teams<br\/>Karpenter 1\.14\.1/);
    expect(mermaidBlocks(sevenStages)[0]).toMatch(/^flowchart TB\n/);
  });
});

describe('every diagram of the pages of 120 clusters, and of the fleet\'s page of 500', () => {
  const diagrams = [
    { where: FLEET_FILES.summary, id: '', text: mermaidBlocks(summary)[0] },
    ...platform.clusters.flatMap((c) => mermaidBlocks(page(c.id)).map((text) => ({ where: clusterLayout(c).summary, id: c.id, text }))),
    { where: '500 clusters', id: '', text: mermaidBlocks(text)[0] },
    { where: '500 clusters in seven stages', id: '', text: mermaidBlocks(sevenStages)[0] },
  ];
  // Pages whose diagrams differ only in the cluster's id are drawn alike, the longer id the
  // wider: each such set is rendered by its longest id (a real page's diagram), not 120 times.
  const widest = new Map<string, (typeof diagrams)[number]>();
  for (const d of diagrams) {
    const shape = d.id === '' ? d.text : d.text.replaceAll(d.id, '<cluster>');
    if ((widest.get(shape)?.id.length ?? -1) < d.id.length) widest.set(shape, d);
  }
  const drawnOnes = [...widest.values()];
  let parsed: (string | undefined)[] = [];
  let sizes: { error?: string; width?: number; height?: number }[] = [];
  beforeAll(async () => {
    [parsed, sizes] = await Promise.all([parseMermaid(diagrams.map((d) => d.text)), hasChromium() ? drawn(drawnOnes.map((d) => d.text)) : []]);
  }, 90_000);

  it('are valid mermaid: the fleet\'s picture and each cluster\'s waves', () => {
    expect(diagrams).toHaveLength(123);
    expect(parsed.flatMap((e, i) => (e === undefined ? [] : [`${diagrams[i].where}: ${e}`]))).toEqual([]);
  });

  (hasChromium() ? it : it.skip)(`render in Chromium at no more than ${MAX_PX} px either way`, () => {
    expect(drawnOnes.length).toBeLessThan(10);
    expect(oversized(drawnOnes.map((d) => d.where), sizes)).toEqual([]);
  });
});
