/**
 * Cost ceilings in review (issue 21, contract 6.5): the review reads each team's ceiling from
 * dist/summary.json (the plan as data, issue 29) at both refs and shows it before and after, per cluster and in
 * total, with the budget; `--fail-on cost` exits 3 when a ceiling rises, not when it falls.
 */
import { costChanges } from '../../src/review/cost';
import { costLines } from '../../src/review/cost-lines';
import { GeneratedTree } from '../../src/review/tree';
import { synthesize } from '../../src/synth';
import { aTerraform } from '../builders';
import { load } from '../config/helpers';
import { aFleetConfig, Fleet, removeFleets, TEAMS } from './fleet';

afterAll(removeFleets);

/** Team web's pool with the given cpu limit in cluster prod; 10 everywhere else. */
const fleetWith = (prodCpu: string) => aFleetConfig(['prod', 'staging'], {
  teams: { ...TEAMS, web: { ...(TEAMS.web as object), budget: { perHour: '1000' } } },
  clusters: { prod: { teams: { web: { limits: { cpu: prodCpu } } } } },
});

const money = (s: string) => Number(s.replace('$', ''));

describe('a cost ceiling in review', () => {
  it('shows the team\'s ceiling before and after when a pool\'s limits double, and --fail-on cost exits 3', async () => {
    const fleet = await Fleet.create(fleetWith('10'));
    fleet.configure(fleetWith('20'));
    await fleet.synth();
    const r = await fleet.diff('--fail-on', 'cost');
    expect(r.out).toMatch(/^Cost ceilings per hour \(ceiling at us-east-1 on-demand list price after NodeOverlays, not a forecast\):$/m);
    // Only the clusters whose ceiling changes are listed (staging keeps its own), then the total.
    const line = /^ {2}▲ team web: prod (\$[\d.]+) -> (\$[\d.]+), total (\$[\d.]+) -> (\$[\d.]+); budget \$1000\.00$/m.exec(r.out);
    expect(line).not.toBeNull();
    const [, prodBefore, prodAfter, totalBefore, totalAfter] = line!.map(money);
    // cpu 10 -> 20: the bound is linear in the limit, so prod's ceiling doubles and the total rises by as much.
    expect(prodAfter).toBeCloseTo(2 * prodBefore, 1);
    expect(totalAfter - totalBefore).toBeCloseTo(prodAfter - prodBefore, 1);
    expect(r.out).not.toMatch(/team ml:/);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/--fail-on cost: the ceiling of team web rises/);

    const markdown = await fleet.diff('--format', 'markdown');
    expect(markdown.out).toMatch(/^\*\*Cost ceilings per hour \(ceiling at us-east-1 on-demand list price after NodeOverlays, not a forecast\):\*\*$/m);
    expect(markdown.out).toMatch(/^- ▲ team web: prod \$[\d.]+ -> \$[\d.]+, total/m);
  });

  it('does not fail --fail-on cost when a ceiling falls', async () => {
    const fleet = await Fleet.create(fleetWith('10'));
    fleet.configure(fleetWith('5'));
    await fleet.synth();
    const r = await fleet.diff('--fail-on', 'cost');
    expect(r.out).toMatch(/^ {2}▼ team web: prod \$[\d.]+ -> \$[\d.]+, total/m);
    expect(r.code).toBe(0);
  });
});

describe('costChanges', () => {
  /** dist/summary.json with team web's ceiling on cluster demo (the shape model/summary-data.ts writes). */
  const data = (web: number | null, version = 1) => JSON.stringify({
    summaryVersion: version, costBasis: 'ceiling at us-east-1 on-demand list price after NodeOverlays', clusters: [],
    teams: [{ team: 'web', perCluster: { demo: web }, total: web, budgetPerHour: 40 }],
  });
  const tree = (text?: string, summary = '# Karpenter pools\n') => new GeneratedTree(new Map([
    ['dist/SUMMARY.md', summary], ...(text === undefined ? [] : [['dist/summary.json', text] as [string, string]]),
  ]), 'x');

  it('reads the data at both refs: a rise, with the budget', () => {
    const changes = costChanges(tree(data(1)), tree(data(2)));
    expect(changes.map((c) => c.team)).toEqual(['web', 'all teams']);
    expect(changes[0]).toMatchObject({ team: 'web', rises: true, budget: '$40.00' });
  });

  it('says a team\'s budget in a group, as synth writes it into dist/summary.json', () => {
    const synthesized = (cpu: string) => {
      const config = aFleetConfig(['prod', 'staging'], {
        clusters: { prod: { labels: { env: 'prod' } }, staging: { labels: { env: 'staging' } } },
        groups: { production: { match: { labels: { env: 'prod' } }, teams: { web: { limits: { cpu }, budget: { perHour: '40' } } } } },
      });
      const { platform } = load({ config, terraform: { prod: aTerraform({ cluster_name: 'prod' }), staging: aTerraform({ cluster_name: 'staging' }) } });
      return new GeneratedTree(synthesize(platform), 'x');
    };
    const web = costChanges(synthesized('10'), synthesized('20')).find((c) => c.team === 'web');
    expect(web).toMatchObject({ rises: true, budget: 'group production $40.00' });
    expect(web?.after.get('staging')).toBe(web?.before.get('staging'));
  });

  it('sees a rise under a cent (amounts compared as numbers, shown to the cent)', () => {
    const [web] = costChanges(tree(data(1.2301)), tree(data(1.2349)));
    expect(web).toMatchObject({ team: 'web', rises: true });
    expect(web.after.get('total')).toBe('$1.23');
  });

  it('says a pool turning unbounded is a rise', () => {
    expect(costChanges(tree(data(1)), tree(data(null)))[0]).toMatchObject({ rises: true, after: new Map([['demo', 'unbounded'], ['total', 'unbounded']]) });
  });

  it('is empty when the base has no summary data (generated before it), not a rise, and whatever SUMMARY.md says', () => {
    expect(costChanges(tree(undefined, '## Cost ceilings\n| web | $1.00 |'), tree(data(2)))).toEqual([]);
  });

  it('does not read a version it does not know', () => {
    expect(costChanges(tree(data(1, 3)), tree(data(2)))).toEqual([]);
  });

  it('ignores SUMMARY.md\'s wording: rewording it changes nothing the review reads', () => {
    expect(costChanges(tree(data(1), 'anything'), tree(data(2), 'reworded entirely'))[0]).toMatchObject({ team: 'web', rises: true });
  });
});

describe('costLines', () => {
  /** dist/summary.json with team web's ceiling per cluster (and, when given, the clusters' groups). */
  const data = (web: Record<string, number | null>, groups: Record<string, string[]> = {}) => JSON.stringify({
    summaryVersion: 1, costBasis: 'ceiling at us-east-1 on-demand list price after NodeOverlays',
    clusters: Object.keys(web).map((id) => ({ id, stage: null, ...(groups[id] ? { groups: groups[id] } : {}) })),
    teams: [{ team: 'web', perCluster: web, total: Object.values(web).some((v) => v === null) ? null : Object.values(web).reduce((a, b) => a! + b!, 0), budgetPerHour: 40 }],
  });
  const tree = (text: string) => new GeneratedTree(new Map([['dist/summary.json', text]]), 'x');
  const lines = (before: Record<string, number | null>, after: Record<string, number | null>, groups: Record<string, string[]> = {}) => {
    const head = JSON.parse(data(after, groups)) as { clusters: { id: string; groups?: string[] }[] };
    return costLines(costChanges(tree(data(before, groups)), tree(data(after, groups))), head.clusters);
  };

  it('says the clusters whose ceiling changes alike once, with the change on each and in all; one cluster by its name', () => {
    expect(lines({ a: 1, b: 1, c: 1, d: 1 }, { a: 2, b: 2, c: 3, d: 1 })[0])
      .toBe('▲ team web: 2 clusters (a, b) $1.00 -> $2.00 each (+$2.00 in all), c $1.00 -> $3.00, total $4.00 -> $8.00; budget $40.00');
  });

  it('names a set by its group when it is the group, else by the group that holds it', () => {
    const groups = { a: ['prod'], b: ['prod'], c: ['prod'], d: ['dev'] };
    expect(lines({ a: 1, b: 1, c: 1, d: 1 }, { a: 0.5, b: 0.5, c: 0.5, d: 1 }, groups)[0])
      .toBe('▼ team web: group prod (3 clusters) $1.00 -> $0.50 each (-$1.50 in all), total $4.00 -> $2.50; budget $40.00');
    expect(lines({ a: 1, b: 1, c: 1, d: 1 }, { a: 2, b: 2, c: 1, d: 1 }, groups)[0]).toMatch(/^▲ team web: 2 of group prod's 3 clusters \(a, b\) \$1\.00 -> \$2\.00 each/);
  });

  it('names at most five sets and counts the clusters of the rest; an unbounded one has no sum', () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const [line] = lines(Object.fromEntries(ids.map((id) => [id, 1])), Object.fromEntries(ids.map((id, i) => [id, i < 6 ? i + 2 : null])));
    expect(line).toMatch(/, 3 more clusters otherwise \(e, f, g\), total \$7\.00 -> unbounded; budget \$40\.00$/);
    expect(line.match(/ -> /g)).toHaveLength(5);
  });
});
