/**
 * Cluster labels and groups (issue 38, contract 8.2; src/config/groups.ts): which clusters a group
 * matches, where its layers sit in the inheritance chain (after the team and its pool, before the
 * cluster's own), its window, tenancy and karpenter under the cluster's, a team budget summed over
 * the group's clusters, where explain says a value came from, and every mistake at its line.
 */
import { aConfig, aTerraform, Plain, positionOf, removeProjects } from '../builders';
import { aProblem, load, problemsOf, runProblemsOf } from './helpers';
import { loadPlatform } from '../../src/config/load';
import { writeProject } from '../builders';

afterAll(removeProjects);

const IDS = ['dev-1', 'prod-eu-1', 'prod-eu-2', 'prod-us-1'];
const TF = Object.fromEntries(IDS.map((id) => [id, aTerraform({ cluster_name: id })]));
const CLUSTERS: Plain = {
  'dev-1': { terraformOutputs: 'terraform/dev-1.json', stage: 1, labels: { env: 'dev', geo: 'eu' } },
  'prod-eu-1': { terraformOutputs: 'terraform/prod-eu-1.json', stage: 2, labels: { env: 'prod', geo: 'eu' } },
  'prod-eu-2': { terraformOutputs: 'terraform/prod-eu-2.json', stage: 2, labels: { env: 'prod', geo: 'eu' } },
  'prod-us-1': { terraformOutputs: 'terraform/prod-us-1.json', stage: 2, labels: { env: 'prod', geo: 'us' } },
};
const WINDOWS = { nights: { timeZone: 'Europe/Berlin', days: ['mon', 'tue'], start: '22:00', duration: '6h' } };
/** A fleet of the four clusters with `groups`, team web with a pool batch, and `rest` merged in. */
const fleet = (groups: Plain, rest: Plain = {}) => ({
  config: aConfig({ clusters: { demo: undefined, ...CLUSTERS }, windows: WINDOWS, groups, teams: { web: { instanceCategories: ['c', 'm'], pools: { batch: {} } } }, ...rest }),
  terraform: TF,
});
const poolOf = (platform: ReturnType<typeof load>['platform'], cluster: string, pool: string) => platform.clusters.find((c) => c.id === cluster)!.pools.find((p) => p.name === pool)!;

describe('which clusters a group matches', () => {
  it('matches by labels, stage and ids, every condition given at once, and lists each cluster\'s groups in file order', () => {
    const { platform } = load(fleet({
      prod: { match: { labels: { env: 'prod' } } },
      'prod-eu': { match: { labels: { env: 'prod', geo: 'eu' } } },
      'stage-2-us': { match: { stage: 2, labels: { geo: 'us' } } },
      pair: { match: { clusters: ['dev-1', 'prod-us-1'] } },
    }));
    expect(platform.clusters.map((c) => [c.id, c.groups])).toEqual([
      ['dev-1', ['pair']], ['prod-eu-1', ['prod', 'prod-eu']], ['prod-eu-2', ['prod', 'prod-eu']], ['prod-us-1', ['prod', 'stage-2-us', 'pair']],
    ]);
    expect(platform.clusters[1].labels).toEqual({ env: 'prod', geo: 'eu' });
  });
});

describe('what a group carries', () => {
  it('sets a team\'s pool fields on its clusters only, a pool\'s after the team\'s, a later group over an earlier one, the cluster\'s own over both', () => {
    const { platform } = load(fleet({
      prod: { match: { labels: { env: 'prod' } }, teams: { web: { instanceCategories: ['m'], limits: { cpu: '50' }, pools: { batch: { limits: { cpu: '20' } } } } } },
      'prod-eu': { match: { labels: { env: 'prod', geo: 'eu' } }, teams: { web: { limits: { cpu: '60' } } } },
    }, { clusters: { demo: undefined, ...CLUSTERS, 'prod-eu-2': { ...(CLUSTERS['prod-eu-2'] as Plain), teams: { web: { limits: { cpu: '70' } } } } } }));
    expect(poolOf(platform, 'dev-1', 'web').settings.instanceCategories).toEqual(['c', 'm']);
    expect(poolOf(platform, 'prod-us-1', 'web').settings).toMatchObject({ instanceCategories: ['m'], limits: { cpu: '50' } });
    expect(poolOf(platform, 'prod-us-1', 'web-batch').settings.limits).toMatchObject({ cpu: '20' });
    expect(poolOf(platform, 'prod-eu-1', 'web').settings.limits).toMatchObject({ cpu: '60' });
    // prod-eu's team fields come after prod's pool fields: the pool takes the later group's.
    expect(poolOf(platform, 'prod-eu-1', 'web-batch').settings.limits).toMatchObject({ cpu: '60' });
    expect(poolOf(platform, 'prod-eu-2', 'web').settings.limits).toMatchObject({ cpu: '70' });
  });

  it('forces its overrides on every pool of its clusters, under the cluster\'s own overrides', () => {
    const { platform } = load(fleet({ prod: { match: { labels: { env: 'prod' } }, overrides: { weight: 5, expireAfter: '336h' } } },
      { clusters: { demo: undefined, ...CLUSTERS, 'prod-us-1': { ...(CLUSTERS['prod-us-1'] as Plain), overrides: { weight: 9 } } } }));
    expect(poolOf(platform, 'prod-eu-1', 'web-batch').settings).toMatchObject({ weight: 5, expireAfter: '336h' });
    expect(poolOf(platform, 'prod-us-1', 'web').settings).toMatchObject({ weight: 9, expireAfter: '336h' });
    expect(poolOf(platform, 'dev-1', 'web').settings.weight).toBeUndefined();
  });

  it('gives its clusters its window, tenancy and karpenter, each under the cluster\'s own', () => {
    const { platform } = load(fleet({
      prod: { match: { labels: { env: 'prod' } }, window: 'nights', tenancy: { action: 'Audit' }, karpenter: { controller: { replicas: 3, logLevel: 'debug' } } },
    }, { clusters: { demo: undefined, ...CLUSTERS, 'prod-us-1': { ...(CLUSTERS['prod-us-1'] as Plain), tenancy: { action: 'Warn' }, karpenter: { controller: { replicas: 4 } } } } }));
    const c = (id: string) => platform.clusters.find((x) => x.id === id)!;
    expect([c('dev-1').window?.name, c('prod-eu-1').window?.name, c('prod-us-1').window?.name]).toEqual([undefined, 'nights', 'nights']);
    expect([c('dev-1').tenancyAction, c('prod-eu-1').tenancyAction, c('prod-us-1').tenancyAction]).toEqual(['Deny', 'Audit', 'Warn']);
    expect([c('dev-1').karpenter.controller.replicas, c('prod-eu-1').karpenter.controller.replicas, c('prod-us-1').karpenter.controller.replicas]).toEqual([2, 3, 4]);
    expect(c('prod-us-1').karpenter.controller.logLevel).toBe('debug');
  });

  it('says where a value came from: group prod', () => {
    const { platform } = loadPlatform(writeProject(fleet({ prod: { match: { labels: { env: 'prod' } }, teams: { web: { limits: { cpu: '50' } } } } })).configPath, { provenance: true });
    const field = poolOf(platform, 'prod-eu-1', 'web').provenance!.find((f) => f.path === 'limits.cpu')!;
    expect(field).toMatchObject({ value: '50', from: 'group prod', at: expect.stringMatching(/platform\.yaml:\d+:\d+$/) });
  });
});

describe('a team budget in a group', () => {
  it('caps the team\'s ceiling summed over the group\'s clusters, and no other', () => {
    const group = (perHour: string) => fleet({ prod: { match: { labels: { env: 'prod' } }, teams: { web: { limits: { cpu: '16', memory: '64Gi' }, budget: { perHour } } } } });
    expect(() => load(group('1000'))).not.toThrow();
    expect(runProblemsOf(group('1'))).toEqual(aProblem(/groups\.prod\.teams\.web\.budget\.perHour: team web's ceiling on group prod's 3 cluster\(s\) is \$[0-9.,]+\/hour, over its budget of \$1\.00\/hour/));
  });
});

describe('mistakes, each at its line', () => {
  it('fails on a group that matches no cluster, saying the label values there are', () => {
    expect(problemsOf(fleet({ prod: { match: { labels: { env: 'prd' } } } }))).toEqual(aProblem(/groups\.prod\.match: group prod matches no cluster: no cluster has the label env: prd \(did you mean env: prod\?\) \(its values: dev, prod\)/));
  });

  it('fails on an unknown cluster, window, team or pool, with a did-you-mean', () => {
    const problems = problemsOf(fleet({ prod: { match: { clusters: ['prod-eu-1', 'prod-eu-3'] }, window: 'night', teams: { wbe: {}, web: { pools: { bach: {} } } } } }));
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/groups\.prod\.match\.clusters\[1\]: no cluster "prod-eu-3" \(did you mean "prod-eu-1"\?\)/),
      expect.stringMatching(/groups\.prod\.window: unknown window "night" \(did you mean "nights"\?\)/),
      expect.stringMatching(/groups\.prod\.teams\.wbe: unknown team "wbe" \(did you mean "web"\?\)/),
      expect.stringMatching(/groups\.prod\.teams\.web\.pools\.bach: team web defines no pool "bach" \(did you mean "batch"\?\)/),
    ]));
  });

  it('fails when a group turns on a gate its clusters do not use, at the group\'s gate (issue 43)', () => {
    const input = fleet({ prod: { match: { labels: { env: 'prod' } }, karpenter: { controller: { featureGates: { nodeOverlay: true } } } } });
    const { configText } = writeProject(input);
    expect(problemsOf(input)).toEqual([expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, 'nodeOverlay')}: groups\\.prod\\.karpenter\\.controller\\.featureGates\\.nodeOverlay: `
      + 'on 3 clusters \\(prod-eu-1, prod-eu-2 and prod-us-1\\), as on the first: cluster prod-eu-1 uses no overlay, so featureGates\\.nodeOverlay would be on for nothing'))]);
  });

  it('fails on a match with no condition, and on a NodePool name set in a group', () => {
    expect(problemsOf(fleet({ prod: { match: {} } }))).toEqual(aProblem(/groups\.prod\.match: .*say which clusters: labels, stage or clusters/));
    expect(problemsOf(fleet({ prod: { match: { stage: 2 }, teams: { web: { name: 'other' } } } }))).toEqual(aProblem(/groups\.prod\.teams\.web\.name: a NodePool's name is set where its pool is defined/));
  });
});
