/**
 * The commands at fleet size (issue 38, contract 8.2), through the real command line on the
 * 120-cluster fleet of test/support/big-fleet.ts, written once: synth prints a short summary
 * (not a row per pool), `fit --cluster` answers for that cluster only, `fit --group --stage`
 * for the clusters both choose, `explain POOL --group` once for the clusters where the pool is
 * the same, and an unknown value is an error with the closest one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Plain, removeProjects, withDestinations, writeProject } from './builders';
import { cli } from './review/fleet';
import { bigFleet } from './support/big-fleet';

afterAll(removeProjects);

/** A Deployment of team checkout: it tolerates the team's taint, so only checkout's pools fit it. */
const MANIFEST = [
  'apiVersion: apps/v1', 'kind: Deployment', 'metadata: { name: cart, namespace: checkout }',
  'spec:', '  selector: { matchLabels: { app: cart } }', '  template:', '    metadata: { labels: { app: cart } }', '    spec:',
  '      tolerations: [{ key: dedicated, value: checkout, effect: NoSchedule }]',
  '      containers: [{ name: cart, image: nginx, resources: { requests: { cpu: "1", memory: 1Gi } } }]', '',
].join('\n');

const project = writeProject(bigFleet());
const manifest = join(project.dir, 'cart.yaml');
writeFileSync(manifest, MANIFEST);
const config = ['--config', project.configPath];

describe('synth of 120 clusters', () => {
  it('prints a short summary: the counts, what changed by cluster, the files; no row per pool', async () => {
    const r = await cli(['--outdir', project.dir, ...config]);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    const warnings = r.err.split('\n').filter((l) => l.startsWith('warning: ')).length;
    expect(lines).toEqual([
      `120 clusters, 1,200 pools of 8 teams; Karpenter 1.14.1 on 90, 1.13.1 on 30${warnings ? `; ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}`,
      expect.stringMatching(/^changed: all 120 clusters, [\d,]+ files; argocd\/argocd-cm-patch\.yaml, argocd\/bootstrap\.yaml, argocd\/helm-repository\.yaml, dist\/SUMMARY\.md, dist\/summary\.json$/),
      expect.stringMatching(/dist and .*argocd: [\d,]+ files \([\d,]+ written, 0 removed, 0 unchanged\)$/),
    ]);
    // One team's pools changed on prod only: the clusters are said by their group.
    writeFileSync(project.configPath, stringify(withDestinations(bigFleet((c) => {
      ((c.groups as Plain).prod as Plain).teams = { payments: { instanceFamilies: ['m7i', 'r7i'] } };
    }).config)));
    const prod = await cli(['--outdir', project.dir, ...config]);
    expect(prod.out.split('\n')[1]).toMatch(/^changed: group prod \(80 clusters\), [\d,]+ files; dist\/SUMMARY\.md, dist\/summary\.json$/);
    writeFileSync(project.configPath, project.configText);
  }, 120_000);
});

describe('fit at fleet size', () => {
  it('answers for one cluster only with --cluster: its 10 pools', async () => {
    const r = await cli(['fit', manifest, ...config, '--cluster', 'prod-eu-01']);
    expect(r.code).toBe(0);
    const [heading, ...rows] = r.out.split('\n');
    expect(heading).toBe('Deployment checkout/cart: fits 2 of 10 pools');
    expect(rows).toHaveLength(10);
    expect(rows.filter((l) => !/^ {2}[✓✗⊘] prod-eu-01\//.test(l))).toEqual([]);
  }, 60_000);

  it('answers for the clusters --stage and --group choose together, and names the closest for a value the fleet does not have', async () => {
    const json = await cli(['fit', manifest, ...config, '--stage', '3', '--group', 'prod-eu,prod-us', '--format', 'json']);
    const [w] = JSON.parse(json.out).workloads as { fits: { cluster: string }[]; refused: unknown[]; rejected: unknown[] }[];
    expect(new Set(w.fits.map((f) => f.cluster)).size).toBe(54);
    expect(w.fits.length + w.refused.length + w.rejected.length).toBe(540);
    const bad = await cli(['fit', manifest, ...config, '--cluster', 'prod-eu-1', '--group', 'prd']);
    expect(bad).toMatchObject({ code: 1, out: '' });
    expect(bad.err.split('\n')).toEqual(['error: --cluster: no cluster "prod-eu-1" (did you mean "prod-eu-01"?)', 'error: --group: no group "prd" (did you mean "prod"?)']);
  }, 60_000);
});

describe('explain at fleet size', () => {
  it('explains a pool once for the clusters where it is the same', async () => {
    const r = await cli(['explain', 'checkout', ...config, '--group', 'prod']);
    expect(r.code).toBe(0);
    expect(r.out.split('\n').filter((l) => l.startsWith('pool '))).toEqual(['pool checkout of group prod (80 clusters) (team checkout)']);
    const json = JSON.parse((await cli(['explain', 'checkout', ...config, '--stage', '1,3', '--format', 'json'])).out) as { pool: string; explanations: { clusters: string[] }[] };
    expect(json.pool).toBe('checkout');
    expect(json.explanations.map((e) => e.clusters.length).sort()).toEqual([10, 80]);
  }, 60_000);
});
