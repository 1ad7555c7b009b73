/**
 * Every problem of a run at once (contract 8.2), on the 120-cluster fleet of issue 38: one edit
 * that makes five mistakes of different kinds (a schema error, an unknown window, a kubelet field
 * the prod clusters' release refuses, a budget exceeded, an instance family no instance type has)
 * is reported in one run, the mistake shared by the 80 prod clusters as one line with the count;
 * and every command that loads the config reports the same lines.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli';
import { formatProblem } from '../../src/input/problems';
import { loadPlan } from '../../src/model/checks';
import { aConfig, aTerraform, Plain, removeProjects, writeProject } from '../builders';
import { bigFleet } from '../support/big-fleet';
import { inputErrorOf, warningsOf } from './helpers';

afterAll(removeProjects);

/** The one edit: five mistakes, each of another check. */
const FIVE_MISTAKES = (c: Plain) => {
  const [teams, groups] = [c.teams as Plain, c.groups as Plain];
  (teams.checkout as Plain).expireAfter = 'forever';
  (groups['prod-eu'] as Plain).window = 'prod-europe';
  (groups.prod as Plain).teams = { search: { kubelet: { shutdownGracePeriod: '30s' } }, payments: { budget: { perHour: '1' } } };
  (teams.catalog as Plain).instanceFamilies = ['m7l', 'c7i'];
};

/** The five lines, in the order of the config's lines. */
const EXPECTED = [
  /groups\.prod\.teams\.search\.kubelet\.shutdownGracePeriod: on 80 clusters \(prod-eu-01, prod-us-01, prod-ap-01 and 77 more\), as on the first: unknown key "shutdownGracePeriod": cluster prod-eu-01 runs Karpenter 1\.14\.1, whose EC2NodeClass CRD has no spec\.kubelet\.shutdownGracePeriod/,
  /groups\.prod\.teams\.payments\.budget\.perHour: team payments's ceiling on group prod's 80 cluster\(s\) is \$[0-9,.]+\/hour, over its budget of \$1\.00\/hour/,
  /groups\.prod-eu\.window: unknown window "prod-europe" \(did you mean "prod-eu"\?\)/,
  /teams\.checkout\.expireAfter: "forever": must be a duration/,
  /teams\.catalog\.instanceFamilies\[0\]: no instance type has karpenter\.k8s\.aws\/instance-family=m7l \(did you mean "m7i"\? it shares generation 7, suffix "i" and intel cpu with c7i beside it, which m7a and m7g do not\)$/,
];

describe('five mistakes in one edit of the 120-cluster fleet', () => {
  it('are reported in one run, the one shared by every prod cluster as one line with the count', () => {
    const problems = inputErrorOf(() => loadPlan(writeProject(bigFleet(FIVE_MISTAKES)).configPath)).problems.map(formatProblem);
    expect(problems).toEqual(EXPECTED.map((re) => expect.stringMatching(re)));
  });
});

describe('every command that loads the config', () => {
  // One cluster of each group of the same fleet (three prod ones share the kubelet mistake): each command loads it once.
  const fleet = bigFleet((c) => {
    FIVE_MISTAKES(c);
    c.clusters = Object.fromEntries(Object.entries(c.clusters as Plain).filter(([id]) => ['dev-eu-01', 'staging-eu-01', 'prod-eu-01', 'prod-us-01', 'prod-ap-01'].includes(id)));
  });
  const { configPath, dir } = writeProject(fleet);
  const other = mkdtempSync(join(tmpdir(), 'kg-one-run-'));
  const [manifest, live, applications] = ['deployment.yaml', 'live.yaml', 'applications.json'].map((f) => join(other, f));
  writeFileSync(manifest, 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: api }\nspec:\n  template:\n    spec:\n      containers: [{ name: api, image: api, resources: { requests: { cpu: 100m } } }]\n');
  writeFileSync(live, '');
  writeFileSync(applications, '{"items": []}');
  const out = ['--outdir', dir];

  it.each([
    ['synth', [...out]], ['check', ['check', ...out]], ['diff', ['diff', '--base', 'HEAD', ...out]], ['fit', ['fit', manifest]], ['explain', ['explain', 'prod-eu-01/catalog']],
    ['promote', ['promote', '3', '--revision', '0123456789abcdef0123456789abcdef01234567', '--applications', applications, ...out]], ['adopt', ['adopt', 'prod-eu-01', '--live', live]],
  ])('%s prints the same problems, the shared one as one line', async (_name, args) => {
    const err: string[] = [];
    const code = await run([...args, '--config', configPath], { out: () => undefined, err: (l) => err.push(l) }, {});
    expect(code).toBe(1);
    // adopt judges the config with the cluster it adopts running nothing (src/adopt/fleet.ts): the others share the mistake.
    const few = EXPECTED.map((re) => new RegExp(_name === 'adopt'
      ? re.source.replace('80 clusters \\(prod-eu-01, prod-us-01, prod-ap-01 and 77 more\\)', '2 clusters \\(prod-us-01 and prod-ap-01\\)').replace('cluster prod-eu-01 runs', 'cluster prod-us-01 runs').replace('80 cluster', '3 cluster')
      : re.source.replace('80 clusters \\(prod-eu-01, prod-us-01, prod-ap-01 and 77 more\\)', '3 clusters \\(prod-eu-01, prod-us-01 and prod-ap-01\\)').replace('80 cluster', '3 cluster')));
    expect(err.filter((l) => l.includes('platform.yaml:'))).toEqual(few.map((re) => expect.stringMatching(re)));
    expect(err[err.length - 1]).toMatch(/^5 problem\(s\) found/);
  });
});

describe('warnings alike', () => {
  it('a warning shared by clusters is one line with the count', () => {
    const noQueue = (id: string) => aTerraform({ cluster_name: id, karpenter_interruption_queue_name: undefined });
    expect(warningsOf({
      config: aConfig({ clusters: { demo: undefined, a: { terraformOutputs: 'terraform/a.json' }, b: { terraformOutputs: 'terraform/b.json' } }, teams: { web: { capacityTypes: ['spot'], instanceCategories: ['c', 'm', 'r'] } } }),
      terraform: { a: noQueue('a'), b: noQueue('b') },
    })).toEqual([expect.stringMatching(
      /teams\.web\.capacityTypes: on 2 clusters \(a and b\), as on the first: pool web uses spot capacity but cluster a has no karpenter_interruption_queue_name output/,
    )]);
  });
});
