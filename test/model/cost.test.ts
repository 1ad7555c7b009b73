/**
 * Cost ceilings and budgets (docs/cost.md), with figures computed by hand from the catalog
 * (Karpenter 1.14.1, us-east-1 on-demand list prices as vendored in
 * test/fixtures/karpenter-release/pkg/providers/pricing/zz_generated.pricing_aws.go, l. 190-191, 323-324):
 *
 * | type       | $/hour | vCPUs |
 * | ---------- | ------ | ----- |
 * | m7g.large  | 0.0816 | 2     |
 * | m7g.xlarge | 0.1632 | 4     |
 * | g5.xlarge  | 1.006  | 4     |
 * | g5.2xlarge | 1.212  | 8     |
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadPlatform } from '../../src/config/load';
import { explainPool, PoolExplanation } from '../../src/explain/explain';
import { fleetPlan } from '../../src/model/plan';
import { planFindings } from '../../src/model/checks';
import type { Platform } from '../../src/config/platform';

const teamCeilings = (platform: Platform) => fleetPlan(platform).teamCeilings;
import { aConfig, aTerraform, positionOf, removeProjects, writeProject } from '../builders';
import { cli } from '../review/fleet';
import { problemsOf } from '../config/helpers';

afterAll(removeProjects);

/**
 * web: m7g, cpu 8 → 8000 m × max(0.0816/2000, 0.1632/4000) = 8000 × 0.0000408 = $0.3264/hour.
 * ml: g5, cpu 16 → 16000 m × max(1.006/4000, 1.212/8000) = 16000 × 0.0002515 = $4.024/hour.
 * Both clusters: web $0.6528, ml $8.048.
 */
function config(teams: Record<string, unknown> = {}) {
  return aConfig({
    defaults: { limits: undefined },
    clusters: { demo: { terraformOutputs: 'terraform/demo.json' }, prod: { terraformOutputs: 'terraform/prod.json' } },
    teams: {
      web: { instanceTypes: ['m7g.large', 'm7g.xlarge'], arch: ['arm64'], limits: { cpu: '8' }, costCenter: '4410', ...(teams.web as object) },
      ml: { instanceTypes: ['g5.xlarge', 'g5.2xlarge'], limits: { cpu: '16' }, smokeTest: { resources: { 'nvidia.com/gpu': 1 } }, ...(teams.ml as object) },
    },
  });
}

function project(teams: Record<string, unknown> = {}) {
  return writeProject({ config: config(teams), terraform: { demo: aTerraform(), prod: aTerraform({ cluster_name: 'prod' }) } });
}

const synth = (p: { configPath: string; dir: string }) => cli(['--config', p.configPath, '--outdir', p.dir]);

describe('team ceilings', () => {
  it('are the sum of the team\'s pools\' ceilings over its clusters, worked by hand from the catalog, as explain states each pool', () => {
    const p = project();
    const { platform } = loadPlatform(p.configPath, { provenance: true });
    const ceilings = teamCeilings(platform);
    const web = ceilings.find((t) => t.team === 'web')!;
    expect(web.perCluster.get('demo')).toBeCloseTo(0.3264, 4);
    expect(web.total).toBeCloseTo(0.6528, 4);
    expect(ceilings.find((t) => t.team === 'ml')!.total).toBeCloseTo(8.048, 4);
    // explain states each pool's ceiling: the figure worked by hand above, not the plan's total read back.
    const explained = ['demo', 'prod'].map((c) => (explainPool(platform, c, 'web') as PoolExplanation).maxCostPerHour ?? NaN);
    expect(explained[0]).toBeCloseTo(0.3264, 4);
    expect(explained[1]).toBeCloseTo(0.3264, 4);
  });

  it('prices a spot-only pool at on-demand list prices: the most it can cost', () => {
    const p = project({ web: { capacityTypes: ['spot'] } });
    const web = teamCeilings(loadPlatform(p.configPath).platform).find((t) => t.team === 'web')!;
    // Same as on demand: 8000 m × 0.0000408 = 0.3264 per cluster.
    expect(web.perCluster.get('prod')).toBeCloseTo(0.3264, 4);
  });
});

describe('budgets', () => {
  it('passes a budget 5% above the ceiling', async () => {
    // ml: 8.048 × 1.05 = 8.4504
    expect((await synth(project({ ml: { budget: { perHour: '8.4504' } } }))).code).toBe(0);
  });

  it('fails when the ceiling exceeds the budget, at the budget, naming the pools and by how much', async () => {
    // ml: 8.048 × 0.9 = 7.2432; over by 0.8048
    const p = project({ ml: { budget: { perHour: '7.2432' } } });
    const r = await synth(p);
    expect(r.code).toBe(1);
    const line = positionOf(p.configText, 'perHour').split(':')[0];
    expect(r.err).toMatch(new RegExp(`platform\\.yaml:${line}:\\d+: teams\\.ml\\.budget\\.perHour: team ml's ceiling is \\$8\\.05/hour, over its budget of \\$7\\.24/hour by \\$0\\.80 `
      + '\\(ceiling at us-east-1 on-demand list price after NodeOverlays\\); most from demo/ml \\$4\\.02, prod/ml \\$4\\.02'));
  });

  it('fails when a pool under a budget has no limits', async () => {
    const r = await synth(project({ web: { limits: undefined, budget: { perHour: '100' } } }));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/teams\.web\.budget\.perHour: pool web of cluster demo has no limit that bounds its cost.*set limits\.cpu or limits\.memory/);
  });

  /** The problems of a config whose team web has budget `perHour`, each without its `file:line:col: ` (the line of `perHour`, checked). */
  const perHourProblems = (perHour: unknown) => {
    const input = { config: config({ web: { budget: { perHour } } }), terraform: { demo: aTerraform(), prod: aTerraform({ cluster_name: 'prod' }) } };
    const problems = problemsOf(input);
    const at = positionOf(writeProject(input).configText, 'perHour').split(':')[0];
    for (const p of problems) expect(p).toMatch(new RegExp(`platform\\.yaml:${at}:\\d+: `));
    return problems.map((p) => p.replace(/^.*?platform\.yaml:\d+:\d+: /, ''));
  };

  const decimal = 'must be a decimal number of USD per hour, more than 0, written as a string, such as "40" or "12.5"';

  it('fails when perHour is not a decimal string, naming the field, the value and how to write it', () => {
    expect(perHourProblems(40)).toEqual(['teams.web.budget.perHour: expected a string, got number 40 (quote it: "40")']);
    expect(perHourProblems('1e3')).toEqual([`teams.web.budget.perHour: "1e3": ${decimal}`]);
  });

  // One problem each, naming the value and how to write it (STYLE.md).
  it.each(['0', '0.0', '-1', 'forty'])('fails when perHour is %s with one problem that names the value', (perHour) => {
    expect(perHourProblems(perHour)).toEqual([`teams.web.budget.perHour: "${perHour}": ${decimal}`]);
  });

  it('lists nothing when no team has a budget', () => {
    const { platform } = loadPlatform(project().configPath);
    expect(planFindings(platform, fleetPlan(platform)).problems).toEqual([]);
  });
});

describe('dist/SUMMARY.md and each cluster\'s page', () => {
  it('shows each team\'s ceiling by stage and group, each cluster\'s and in all, with its budget: never a column per cluster', async () => {
    const p = project({ ml: { budget: { perHour: '10' } } });
    expect((await synth(p)).code).toBe(0);
    const summary = readFileSync(join(p.dir, 'dist/SUMMARY.md'), 'utf8');
    expect(summary).toContain('ceiling at us-east-1 on-demand list price after NodeOverlays (whatever the capacity type), not a forecast');
    expect(summary).toContain([
      '| team | clusters | each cluster | in all | budget |',
      '|---|---|---:|---:|---:|',
      '| web | no stage · no group (2) | $0.33 | $0.65 | |',
      '| **web** | in all: 2 clusters | | **$0.65** | - |',
      '| ml | no stage · no group (2) | $4.02 | $8.05 | |',
      '| **ml** | in all: 2 clusters | | **$8.05** | $10.00 |',
      '| all teams | no stage · no group (2) | $4.35 | $8.70 | |',
      '| **all teams** | in all: 2 clusters | | **$8.70** | - |',
    ].join('\n'));
    expect(summary).not.toMatch(/`demo` \|/);
    // Each cluster's page has its own column of the table.
    expect(readFileSync(join(p.dir, 'dist/prod/SUMMARY.md'), 'utf8')).toContain([
      '| team | ceiling per hour |', '|---|---:|', '| web | $0.33 |', '| ml | $4.02 |', '| all teams | $4.35 |',
    ].join('\n'));
  });

  it('puts each group budget beside the team\'s ceiling on the group\'s clusters, and a range where clusters differ', async () => {
    const p = writeProject({
      config: {
        ...config(),
        clusters: { demo: { terraformOutputs: 'terraform/demo.json', labels: { env: 'prod' }, overrides: { limits: { cpu: '16' } } }, prod: { terraformOutputs: 'terraform/prod.json', labels: { env: 'prod' } } },
        groups: { prod: { match: { labels: { env: 'prod' } }, teams: { ml: { budget: { perHour: '9' } } } } },
      },
      terraform: { demo: aTerraform(), prod: aTerraform({ cluster_name: 'prod' }) },
    });
    expect((await synth(p)).code).toBe(0);
    const summary = readFileSync(join(p.dir, 'dist/SUMMARY.md'), 'utf8');
    // overrides cpu 16 on demo: web $0.6528 there, $0.3264 on prod; ml $4.024 on both.
    expect(summary).toContain('| web | no stage · group prod (2) | $0.33–$0.65 | $0.98 | |');
    expect(summary).toContain('- team ml on group prod (2 clusters): ceiling $8.05 per hour, budget $9.00');
  });
});

describe('allocation labels', () => {
  it('every node carries team and, when set, cost-center', async () => {
    const p = project();
    expect((await synth(p)).code).toBe(0);
    const labels = (pool: string) => {
      const docs = parseAllDocuments(readFileSync(join(p.dir, `dist/demo/nodepools/${pool}/${pool}.yaml`), 'utf8')).map((d) => d.toJS());
      return docs.find((d) => d.kind === 'NodePool').spec.template.metadata.labels;
    };
    expect(labels('web')).toMatchObject({ 'team': 'web', 'cost-center': '4410' });
    expect(labels('ml')).toEqual(expect.objectContaining({ team: 'ml' }));
    expect(labels('ml')).not.toHaveProperty('cost-center');
  });

  it('warns, and keeps only the EC2 tag, when a cost center is not a label value', async () => {
    const p = project({ web: { costCenter: 'CC 4410' } });
    const r = await synth(p);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/teams\.web\.costCenter: is not a label value .*nodes get no cost-center label/);
    const docs = parseAllDocuments(readFileSync(join(p.dir, 'dist/demo/nodepools/web/web.yaml'), 'utf8')).map((d) => d.toJS());
    expect(docs.find((d) => d.kind === 'NodePool').spec.template.metadata.labels).not.toHaveProperty('cost-center');
    expect(docs.find((d) => d.kind === 'EC2NodeClass').spec.tags).toMatchObject({ 'cost-center': 'CC 4410' });
  });
});
