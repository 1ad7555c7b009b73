/**
 * Adoption into an organised fleet and of several clusters (issue 44, contract 9.2): realistic
 * exports (test/fixtures/adoption) adopted through the real command into a fleet with a shared
 * AppProject, groups, a window and labels, one cluster at a time and several in one run; each
 * adopted cluster is then quiet in `diff --live` against its own export.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { aTerraform, Plain, removeProjects, writeProject } from '../builders';
import { cli } from '../review/fleet';

afterAll(removeProjects);

const FIXTURES = join(__dirname, '..', 'fixtures', 'adoption');
const LIVE = join(FIXTURES, 'live-1.14.1.yaml');
const VALUES = join(FIXTURES, 'helm-values-1.14.1.yaml');
const IDS = ['lab', 'prod-eu-01', 'prod-eu-02', 'prod-us-09'];

const outputsOf = (name: string) => aTerraform({
  cluster_name: name, karpenter_node_role_name: `KarpenterNodeRole-${name}`, karpenter_interruption_queue_name: `Karpenter-${name}`,
  karpenter_controller_role_arn: `arn:aws:iam::111122223333:role/KarpenterController-${name}`, cluster_version: '1.34',
});

/** The fixture's export as cluster `id` would print it; `edit` changes its text (a tag, a pool's name). */
function exportOf(dir: string, id: string, edit: (text: string) => string = (t) => t): string {
  const path = join(dir, 'exports', `${id}.yaml`);
  mkdirSync(join(dir, 'exports'), { recursive: true });
  writeFileSync(path, edit(readFileSync(LIVE, 'utf8').replaceAll('prod-eu-01', id)));
  return path;
}

/** An organised fleet: a shared AppProject, a prod group with a window, controller settings and an override; `lab` runs team web. */
function anOrganisedFleet(clusters: Plain = {}) {
  const config = {
    gitops: { repoURL: 'https://github.com/acme/platform-gitops.git', project: 'platform' },
    karpenter: { version: '1.14.1' },
    windows: { 'prod-eu': { timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu'], start: '22:00', duration: '6h' } },
    groups: {
      prod: {
        match: { labels: { env: 'prod' } }, window: 'prod-eu',
        karpenter: { controller: { replicas: 2, featureGates: { nodeRepair: true } } },
        overrides: { metadataOptions: { httpTokens: 'optional' } },
      },
    },
    clusters: { lab: { terraformOutputs: 'terraform/lab.json' }, ...clusters },
    defaults: { ami: { alias: 'al2023@v20260409' }, limits: { cpu: '100', memory: '400Gi' } },
    teams: { web: {} },
  };
  return writeProject({ config, terraform: Object.fromEntries(IDS.map((id) => [id, outputsOf(id)])) });
}

/** A cluster entry as the docs add it: its outputs, its destination and its labels. */
const entry = (id: string) => ({ terraformOutputs: `terraform/${id}.json`, destination: { name: id }, labels: { env: 'prod' } });

/** `diff --live` of a cluster against its export, after synth. */
async function diffLive(project: { configPath: string; dir: string }, id: string, live: string) {
  expect(await cli(['synth', '--config', project.configPath, '--outdir', project.dir])).toMatchObject({ code: 0 });
  return cli(['diff', '--live', live, '--cluster', id, '--config', project.configPath, '--outdir', project.dir, '--fail-on', 'replaces-nodes']);
}

describe('adopting into an organised fleet', () => {
  it('adopts a cluster with a shared AppProject and a windowed group in one step, the groups\' changes undone as its own settings and said', async () => {
    const project = anOrganisedFleet({ 'prod-eu-01': entry('prod-eu-01') });
    const r = await cli(['adopt', 'prod-eu-01', '--live', LIVE, '--helm-values', VALUES, '--config', project.configPath]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    expect(r.out).toMatch(/cluster prod-eu-01: window: null: group prod's window prod-eu would add its Drifted budgets to every NodePool/);
    expect(r.out).toMatch(/cluster prod-eu-01: overrides\.metadataOptions\.httpTokens: "required", what runs: group prod's overrides\.metadataOptions\.httpTokens would make it "optional"/);
    expect(r.out).toMatch(/cluster prod-eu-01: karpenter\.controller\.featureGates\.nodeRepair: false, what runs \(the chart's default\)/);
    const cluster = ((parse(readFileSync(project.configPath, 'utf8')) as Plain).clusters as Plain)['prod-eu-01'] as Plain;
    expect(cluster).toMatchObject({ window: null, overrides: { metadataOptions: { httpTokens: 'required' } }, karpenter: { controller: { replicas: 3, featureGates: { nodeRepair: false } } } });
    // The EC2NodeClass default, which pools default and system share, has its tags and block devices said once, on the team;
    // pool gpu, of its own class, says only the tag that differs.
    const team = ((parse(readFileSync(project.configPath, 'utf8')) as Plain).teams as Plain).platform as Plain;
    expect(team).toMatchObject({ tags: { environment: 'prod', team: 'platform' }, blockDeviceMappings: [{ deviceName: '/dev/xvda' }] });
    const pools = team.pools as Record<string, Plain>;
    expect([pools.default.tags, pools.system.tags, pools.gpu.tags]).toEqual([undefined, undefined, { team: 'ml-platform' }]);
    const d = await diffLive(project, 'prod-eu-01', LIVE);
    expect(d).toMatchObject({ code: 0 });
    expect(d.out).toContain('no changes to the generated resources');
  });

  it('fails when a group forces one value on pools that run different ones, naming the group, the field and each pool, and writes nothing', async () => {
    const project = anOrganisedFleet({ 'prod-eu-01': entry('prod-eu-01') });
    const text = readFileSync(project.configPath, 'utf8').replace('httpTokens: optional', 'httpPutResponseHopLimit: 3');
    writeFileSync(project.configPath, text);
    const r = await cli(['adopt', 'prod-eu-01', '--live', LIVE, '--config', project.configPath]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/group prod's overrides\.metadataOptions\.httpPutResponseHopLimit forces 3 on every pool of cluster prod-eu-01, whose NodePools say default: 2, gpu: 1, system: 2/);
    expect(readFileSync(project.configPath, 'utf8')).toBe(text);
  });
});

describe('adopting one cluster at a time', () => {
  it('judges the next cluster\'s export, not the teams its new entry would run by default: every problem of the export at once', async () => {
    const project = anOrganisedFleet({ 'prod-eu-01': entry('prod-eu-01') });
    expect((await cli(['adopt', 'prod-eu-01', '--live', LIVE, '--config', project.configPath])).code).toBe(0);
    // The next cluster's entry, added the way the docs say: it runs every team, the adopted GPU pool's included, which
    // the config refuses (a GPU pool's smoke test); adopt judges the export, not that.
    const config = parse(readFileSync(project.configPath, 'utf8')) as Plain;
    (config.clusters as Plain)['prod-eu-02'] = entry('prod-eu-02');
    writeFileSync(project.configPath, JSON.stringify(config, null, 2));
    const premise = await cli(['synth', '--config', project.configPath, '--outdir', project.dir]);
    expect({ code: premise.code, err: premise.err }).toEqual({ code: 1, err: expect.stringMatching(/teams\.platform\.pools\.gpu: .*smoke test/) as unknown });
    const broken = exportOf(project.dir, 'prod-eu-02', (t) => t
      .replace('        - effect: NoSchedule\n          key: nvidia.com/gpu\n', '        - effect: NoSchedule\n          key: nvidia.com/gpu\n          timeAdded: "2026-08-24T09:12:33Z"\n')
      .replace(/(\n  spec:\n    amiSelectorTerms:)/, '\n  spec:\n    ipv6Prefix: true\n    amiSelectorTerms:'));
    const r = await cli(['adopt', 'prod-eu-02', '--live', broken, '--config', project.configPath]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/prod-eu-02\.yaml:\d+:\d+: .*timeAdded: NodePool gpu: is set by the controllers/);
    expect(r.err).toMatch(/prod-eu-02\.yaml:\d+:\d+: .*ipv6Prefix: EC2NodeClass default: has no pool field yet/);
    expect(r.err).not.toMatch(/smoke|config\/platform\.yaml/);
    const fixed = exportOf(project.dir, 'prod-eu-02');
    const ok = await cli(['adopt', 'prod-eu-02', '--live', fixed, '--config', project.configPath]);
    expect({ code: ok.code, err: ok.err }).toEqual({ code: 0, err: '' });
    expect(ok.out).toMatch(/team platform: cluster prod-eu-02 joins its 3 pool\(s\)/);
    expect((await diffLive(project, 'prod-eu-02', fixed)).out).toContain('no changes to the generated resources');
  });
});

describe('several clusters in one run', () => {
  it('adopts CLUSTER=FILE pairs: one shape in one team (only the tag that differs said per cluster), another shape in a team named after its cluster', async () => {
    const project = anOrganisedFleet(Object.fromEntries(['prod-eu-01', 'prod-eu-02', 'prod-us-09'].map((id) => [id, entry(id)])));
    const before = readFileSync(project.configPath, 'utf8');
    const exports = {
      'prod-eu-01': exportOf(project.dir, 'prod-eu-01'),
      'prod-eu-02': exportOf(project.dir, 'prod-eu-02', (t) => t.replace('      environment: prod\n      team: ml-platform', '      environment: prod\n      team: ml-research')),
      'prod-us-09': exportOf(project.dir, 'prod-us-09', (t) => t.replace(/name: gpu$/gm, 'name: gpu-a100')),
    };
    const r = await cli(['adopt', ...Object.entries(exports).map(([id, f]) => `${id}=${f}`), '--config', project.configPath]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    expect(r.out).toMatch(/team platform: 3 adopted pool\(s\) \(default, gpu, system\)/);
    expect(r.out).toMatch(/team platform: cluster prod-eu-02 joins its 3 pool\(s\), with its own fields for gpu/);
    expect(r.out).toMatch(/team prod-us-09: 3 adopted pool\(s\) \(default, gpu-a100, system\)/);
    const config = parse(readFileSync(project.configPath, 'utf8')) as Plain;
    const clusters = config.clusters as Plain;
    expect((clusters['prod-eu-02'] as Plain).teams).toEqual({ platform: { pools: { gpu: { securityGroupSelectorTerms: [{ id: 'sg-0e4a8c2f6b1d9e375' }, { name: 'prod-eu-02-node' }], tags: { team: 'ml-research' } } } } });
    expect((clusters['prod-us-09'] as Plain).teams).toEqual(['prod-us-09']);
    expect(Object.keys(config.teams as Plain)).toEqual(['web', 'platform', 'prod-us-09']);
    // The rest of the file is as it was: the first lines, up to the clusters, are byte-identical.
    expect(readFileSync(project.configPath, 'utf8').split('clusters:')[0]).toBe(before.split('clusters:')[0]);
    for (const [id, file] of Object.entries(exports)) {
      const d = await diffLive(project, id, file);
      expect({ id, code: d.code, out: d.out.split('\n')[1] }).toEqual({ id, code: 0, out: 'no changes to the generated resources' });
    }
    // The documented rename (docs/adopting.md, "Renaming an adopted team"): the team's key, its pools' names kept.
    const renamed = readFileSync(project.configPath, 'utf8').replace(/^  prod-us-09:\n(?=    adopted: true)/m, '  us-batch:\n').replace('teams: [ prod-us-09 ]', 'teams: [ us-batch ]');
    expect(renamed).toMatch(/^  us-batch:\n/m);
    writeFileSync(project.configPath, renamed);
    const d = await diffLive(project, 'prod-us-09', exports['prod-us-09']);
    expect({ code: d.code, out: d.out.split('\n')[1] }).toEqual({ code: 0, out: 'no changes to the generated resources' });
  });

  it('adopts a folder of exports named <cluster>.yaml, with <cluster>.values.yaml as the Helm values', async () => {
    const project = anOrganisedFleet(Object.fromEntries(['prod-eu-01', 'prod-eu-02'].map((id) => [id, entry(id)])));
    for (const id of ['prod-eu-01', 'prod-eu-02']) exportOf(project.dir, id);
    writeFileSync(join(project.dir, 'exports', 'prod-eu-01.values.yaml'), readFileSync(VALUES, 'utf8'));
    const r = await cli(['adopt', join(project.dir, 'exports'), '--config', project.configPath]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    expect(r.out).toMatch(/dropped the Helm value webhook/);
    expect(r.out).toMatch(/wrote .*cluster prod-eu-01 exactly/);
    expect(r.out).toMatch(/wrote .*cluster prod-eu-02 exactly/);
  });

  it.each([
    [['prod-eu-01=a.yaml', 'prod-eu-02'], /"prod-eu-02" is not CLUSTER=FILE/],
    [['prod-eu-01=a.yaml', 'prod-eu-01=b.yaml'], /cluster prod-eu-01 is given twice/],
    [['prod-eu-01=a.yaml', '--live', 'a.yaml'], /--live goes with one CLUSTER/],
    [['prod-eu-01=a.yaml', '--helm-values', 'v.yaml'], /--helm-values, --namespace, --release and --helm-list go with one CLUSTER and --live/],
  ])('fails when the command line is %j, saying how to give several clusters', async (args, message) => {
    const project = anOrganisedFleet({ 'prod-eu-01': entry('prod-eu-01'), 'prod-eu-02': entry('prod-eu-02') });
    const r = await cli(['adopt', ...args, '--config', project.configPath]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it('fails when any cluster\'s export has a problem: every problem of every export, and nothing written', async () => {
    const project = anOrganisedFleet(Object.fromEntries(['prod-eu-01', 'prod-eu-02'].map((id) => [id, entry(id)])));
    const before = readFileSync(project.configPath, 'utf8');
    const a = exportOf(project.dir, 'prod-eu-01', (t) => t.replace(/(\n  spec:\n    amiSelectorTerms:)/, '\n  spec:\n    ipv6Prefix: true\n    amiSelectorTerms:'));
    const b = exportOf(project.dir, 'prod-eu-02', (t) => t.replace(/(\n  spec:\n    amiSelectorTerms:)/, '\n  spec:\n    ipv6Prefix: true\n    amiSelectorTerms:'));
    const r = await cli(['adopt', `prod-eu-01=${a}`, `prod-eu-02=${b}`, '--config', project.configPath]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/prod-eu-01\.yaml:\d+:\d+: .*ipv6Prefix/);
    expect(r.err).toMatch(/prod-eu-02\.yaml:\d+:\d+: .*ipv6Prefix/);
    expect(readFileSync(project.configPath, 'utf8')).toBe(before);
  });
});

describe('what adopt writes', () => {
  it('edits only the lines it must: every other line of a hand-written config stays byte for byte', async () => {
    const text = [
      '# The fleet, written by hand.',
      "gitops: {repoURL: 'https://github.com/acme/platform-gitops.git'}   # flow map, no spaces",
      'karpenter:',
      '  version: "1.14.1"',
      'windows:',
      '  weeknights: {timeZone: Europe/Berlin, days: [mon,tue,wed,thu], start: "22:00", duration: 6h}',
      'clusters:',
      '  lab: {terraformOutputs: terraform/lab.json, teams: [web]}',
      '  prod-eu-01:',
      '    terraformOutputs: terraform/prod-eu-01.json',
      '    destination: {name: prod-eu-01}',
      'defaults:',
      '  ami: {alias: al2023@v20260409}',
      '  limits: {cpu: "100", memory: 400Gi}',
      'teams:',
      '  web:',
      '    instanceCategories:',
      '    - c',
      '    - m',
      '',
    ].join('\n');
    const project = writeProject({ rawConfig: text, terraform: { lab: outputsOf('lab'), 'prod-eu-01': outputsOf('prod-eu-01') } });
    const r = await cli(['adopt', 'prod-eu-01', '--live', LIVE, '--config', project.configPath]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    const written = readFileSync(project.configPath, 'utf8').split('\n');
    const original = text.split('\n');
    // The cluster's entry grows by what adoption says of it; every line of the file outside it is as it was, in order.
    const entry = original.indexOf('  prod-eu-01:');
    expect(written.slice(0, entry + 3)).toEqual(original.slice(0, entry + 3));
    const rest = original.slice(entry + 3).filter(Boolean);
    expect(written.filter((l) => rest.includes(l))).toEqual(rest);
    expect(written.indexOf('  web:')).toBeLessThan(written.indexOf('  platform:'));
  });
});
