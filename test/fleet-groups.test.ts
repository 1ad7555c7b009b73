/**
 * The 120-cluster fleet of issue 38 (test/support/big-fleet.ts), written with groups: a change
 * for one team on prod only is a few lines in one group and changes prod's files only (and the
 * fleet's summaries); a team budget in a group is enforced over the group's clusters.
 */
import { stringify } from 'yaml';
import { formatProblem, InputError } from '../src/input/problems';
import { loadPlan } from '../src/model/checks';
import { synthesize } from '../src/synth';
import { Plain, removeProjects, writeProject } from './builders';
import { bigFleet } from './support/big-fleet';

afterAll(removeProjects);

const synthOf = (edit?: (c: Plain) => void) => synthesize(loadPlan(writeProject(bigFleet(edit)).configPath).platform);
/** The lines of `b` that are not in `a`, and of `a` not in `b` (a line diff's count, good enough for a few changed lines). */
const changedLines = (a: string, b: string) => {
  const [x, y] = [a.split('\n'), b.split('\n')];
  return x.filter((l) => !y.includes(l)).length + y.filter((l) => !x.includes(l)).length;
};

const PROD_CHECKOUT = (c: Plain) => {
  ((c.groups as Plain).prod as Plain).teams = { payments: { instanceFamilies: ['m7i', 'r7i'] } };
};

describe('a prod-only change of one team', () => {
  const before = synthOf();
  const after = synthOf(PROD_CHECKOUT);

  it('is a few lines of config, in one group', () => {
    expect(changedLines(stringify(bigFleet().config), stringify(bigFleet(PROD_CHECKOUT).config))).toBeLessThanOrEqual(6);
  });

  it('changes the prod clusters\' checkout pools and nothing of dev or staging', () => {
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter((f) => before.get(f) !== after.get(f));
    const clusterFiles = changed.filter((f) => /^(dist|argocd)\/[^/]+\//.test(f) || /^argocd\/[^/]+\.yaml$/.test(f));
    const clustersOf = new Set(clusterFiles.map((f) => f.split('/')[1].replace(/\.yaml$/, '')));
    expect([...clustersOf].every((c) => c.startsWith('prod-'))).toBe(true);
    expect(clustersOf.size).toBe(80);
    // Per prod cluster, its payments pool (and the drift gate that waits for it): never another team's.
    expect(clusterFiles.filter((f) => /nodepools\//.test(f)).every((f) => /nodepools\/payments\//.test(f))).toBe(true);
  });
});

describe('a team budget in a group', () => {
  it('holds the team\'s ceiling over the group\'s 80 clusters, in one problem at the budget', () => {
    const over = (c: Plain) => {
      ((c.groups as Plain).prod as Plain).teams = { checkout: { budget: { perHour: '100' } } };
    };
    let err: unknown;
    try {
      loadPlan(writeProject(bigFleet(over)).configPath);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).problems.map(formatProblem)).toEqual([expect.stringMatching(/groups\.prod\.teams\.checkout\.budget\.perHour: team checkout's ceiling on group prod's 80 cluster\(s\) is \$[0-9,.]+\/hour, over its budget of \$100\.00\/hour .* \(of 160 pools\)/)]);
  });
});
