/**
 * A fleet past one runner (issue 47, contract 9.5): `synth`, `check` and `diff` take `--shard I/N`;
 * the N shards of a synth write the files one synth writes, the N checks check every file once, and
 * the report assembled from the N parts of a review (`diff --parts`) is the report of one run of
 * the whole, byte for byte, whatever N: a rename whose two clusters fall in different shards, the
 * fleet's own changes (windows, cost ceilings) and the gate's exit code included.
 */
import { join } from 'node:path';
import { holdsPath, shardOfCluster } from '../../src/output/shard';
import { changeScope } from '../../src/review/scope';
import { aFleetConfig, cli, CliResult, Fleet, removeFleets, TEAMS } from './fleet';
import type { Plain } from '../builders';

afterAll(removeFleets);

const IDS = Array.from({ length: 10 }, (_, i) => `c${String(i + 1).padStart(2, '0')}`);

/** Ten clusters in two stages, the second in a window; `edit` changes the copy. */
function config(edit: (c: { clusters: Record<string, Plain>; teams: Record<string, Plain>; windows: Record<string, Plain> }) => void = () => undefined): Plain {
  const c = aFleetConfig(IDS, {
    teams: structuredClone(TEAMS),
    clusters: Object.fromEntries(IDS.map((id, i) => [id, i < 3 ? { stage: 1 } : { stage: 2, window: 'nights' }])),
    windows: { nights: { timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu'], start: '22:00', duration: '6h' } },
  });
  edit(c as never);
  return c;
}

/** The edit every test reviews: a wider limit and a new node lifetime everywhere, c04 renamed to c11 (same EKS cluster), a window moved. */
const EDITED = () => config((c) => {
  c.teams.web.limits = { cpu: '20' };
  c.teams.web.expireAfter = '480h';
  c.clusters.c11 = { ...c.clusters.c04, terraformOutputs: 'terraform/c11.json' };
  delete c.clusters.c04;
  c.windows.nights.start = '23:00';
});

/** The reports of N shards assembled, through the command line: each shard's part, then `--parts`. */
async function sharded(fleet: Fleet, n: number, args: readonly string[], report: readonly string[]): Promise<CliResult> {
  const parts: string[] = [];
  for (let i = 1; i <= n; i++) {
    const part = join(fleet.dir, `part-${i}.json`);
    const r = await cli([...args, '--shard', `${i}/${n}`, '--part-out', part]);
    expect(r).toMatchObject({ code: 0, err: '' });
    parts.push(part);
  }
  // In any order: the assembly sorts them.
  return cli(['diff', '--parts', parts.reverse().join(','), ...report]);
}

describe('diff in shards', () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await Fleet.create(config(), { c11: 'c04' });
    fleet.configure(EDITED(), { c11: 'c04' });
  });

  it('puts the renamed cluster\'s two ids in different shards for some N (so the test below crosses shards)', () => {
    expect([2, 3, 4].some((n) => shardOfCluster('c04', n) !== shardOfCluster('c11', n))).toBe(true);
  });

  it.each([2, 3, 4])('assembles %i shards of a fresh synth\'s review into the report of one run, and the PR comment too', async (n) => {
    const report = ['--format', 'markdown', '--fail-on', 'replaces-nodes', '--report-url', 'https://ci.example/run/1'];
    const whole = await fleet.diff(...report);
    expect(whole.code).toBe(3);
    expect(whole.out).toMatch(/renamed to c11\? both run on EKS cluster c04/);
    expect(whole.out).toMatch(/nights/);
    const args = ['diff', '--base', 'HEAD', '--config', fleet.configPath, '--outdir', fleet.dir];
    const parts = await sharded(fleet, n, args, report);
    expect(parts).toEqual(whole);
  });

  it('assembles the shards of a review of committed output (--head, the pull-request workflow) into the report of one run', async () => {
    const pr = await Fleet.create(config(), { c11: 'c04' });
    pr.configure(EDITED(), { c11: 'c04' });
    await pr.synth();
    pr.git('checkout', '-q', '-b', 'pr');
    pr.commit('the change');
    const args = ['diff', '--base', 'main', '--head', 'HEAD', '--outdir', pr.dir];
    const whole = await cli([...args, '--full']);
    expect(whole.out).toMatch(/renamed to c11\?/);
    for (const n of [3, 7]) expect(await sharded(pr, n, args, ['--full'])).toEqual(whole);
  });

  it('refuses parts that are not one whole run: a shard missing, one twice, shards of another count', async () => {
    const args = ['diff', '--base', 'HEAD', '--config', fleet.configPath, '--outdir', fleet.dir];
    const part = (i: number, n: number) => join(fleet.dir, `p-${i}-${n}.json`);
    for (const [i, n] of [[1, 3], [2, 3], [1, 2]]) expect((await cli([...args, '--shard', `${i}/${n}`, '--part-out', part(i, n)])).code).toBe(0);
    const missing = await cli(['diff', '--parts', `${part(1, 3)},${part(2, 3)}`]);
    expect(missing).toMatchObject({ code: 1, out: '' });
    expect(missing.err).toMatch(/shard 3 of 3 missing: its job failed or its part was not downloaded/);
    const mixed = await cli(['diff', '--parts', `${part(1, 3)},${part(1, 2)},${part(1, 3)}`]);
    expect(mixed.err).toMatch(/is of a review in 3 shards/);
    expect(mixed.err).toMatch(/shard 1 of 3 given more than once/);
    const notPart = await cli(['diff', '--parts', fleet.configPath]);
    expect(notPart).toMatchObject({ code: 1 });
    // Not JSON: said without quoting the file (JSON.parse's message would).
    expect(notPart.err).toMatch(/platform\.yaml: not a review part: not JSON \(give the file diff --part-out wrote\)$/m);
    expect(notPart.err).not.toMatch(/repoURL|github\.com/);
    const gone = await cli(['diff', '--parts', `${fleet.configPath}.gone`]);
    expect(gone.err).toMatch(/platform\.yaml\.gone: cannot read a review part: .*ENOENT/);
  });

  it('says what a shard needs on the command line', async () => {
    expect((await cli(['diff', '--base', 'HEAD', '--shard', '2/3'])).err).toMatch(/diff --shard needs --part-out FILE/);
    expect((await cli(['diff', '--base', 'HEAD', '--shard', '4/3', '--part-out', 'x.json'])).err).toMatch(/shard 4\/3 does not exist: --shard takes I\/N with 1 <= I <= N <= 256/);
    expect((await cli(['synth', '--shard', 'half'])).err).toMatch(/"half" is not a shard/);
    expect((await cli(['diff', '--parts', 'a.json', '--base', 'HEAD'])).err).toMatch(/diff --parts assembles what the shards reviewed/);
  });
});

describe('synth and check in shards', () => {
  it('writes with N shards the files one synth writes, each shard leaving the others\' files alone; each shard checks its own', async () => {
    const whole = await Fleet.create(EDITED(), { c11: 'c04' });
    const expected = whole.tree();
    const fleet = await Fleet.create(config(), { c11: 'c04' });
    fleet.configure(EDITED(), { c11: 'c04' });
    const n = 3;
    for (let i = 1; i <= n; i++) {
      const before = fleet.tree();
      const r = await fleet.synth('--shard', `${i}/${n}`);
      expect(r.out).toMatch(new RegExp(`shard ${i}/${n}: \\d+ clusters?`));
      // Nothing outside the shard moved.
      const after = fleet.tree();
      for (const path of new Set([...before.keys(), ...after.keys()])) {
        if (!holdsPath({ index: i, count: n }, path)) expect([path, after.get(path)]).toEqual([path, before.get(path)]);
      }
      // The shards done so far check; a later one still differs (c04's folder is removed by its own shard).
      expect((await cli(['check', '--config', fleet.configPath, '--outdir', fleet.dir, '--shard', `${i}/${n}`])).code).toBe(0);
    }
    expect(fleet.tree()).toEqual(expected);
    expect((await cli(['check', '--config', fleet.configPath, '--outdir', fleet.dir])).code).toBe(0);
    // A stale file fails the check of its shard only.
    const pool = [...expected.keys()].find((p) => p.startsWith('dist/c07/nodepools/'));
    if (!pool) throw new Error('no pool file of c07');
    fleet.write(pool, `${fleet.read(pool)}# edited\n`);
    const owner = shardOfCluster('c07', n);
    for (let i = 1; i <= n; i++) {
      const r = await cli(['check', '--config', fleet.configPath, '--outdir', fleet.dir, '--shard', `${i}/${n}`]);
      expect([i, r.code]).toEqual([i, i === owner ? 1 : 0]);
    }
  });
});

describe('the scope of a review', () => {
  it('reads the files of the clusters a change touches and the fleet\'s own, and every cluster when a bootstrap changes', () => {
    const whole = { index: 1, count: 1 };
    const scope = changeScope(['dist/c01/nodepools/web/web.yaml', 'argocd/c02.yaml', 'dist/summary.json'], whole);
    expect(['dist/c01/karpenter/values.yaml', 'argocd/c01.yaml', 'dist/c02/apps/project.yaml', 'dist/SUMMARY.md', 'argocd/bootstrap.yaml'].map((p) => scope.holds(p))).toEqual([true, true, true, true, true]);
    expect(['dist/c03/karpenter/values.yaml', 'argocd/c03.yaml', 'dist/c03/SUMMARY.md'].map((p) => scope.holds(p))).toEqual([false, false, false]);
    // Git lists those clusters' folders alone (review/git.ts).
    expect(scope.clusters).toEqual(new Set(['c01', 'c02']));
    const all = changeScope(['argocd/bootstrap.blue.yaml'], whole);
    expect(['dist/c03/karpenter/values.yaml', 'argocd/c03.yaml'].map((p) => all.holds(p))).toEqual([true, true]);
    expect(all.clusters).toBeUndefined();
  });
});
