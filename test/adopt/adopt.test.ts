/**
 * Taking over a running cluster (issue 36, contract section 8.1): a realistic export of a
 * Karpenter 1.14.1 cluster (test/fixtures/adoption, written from what the API server and
 * Karpenter return, not from our output) adopted through the real commands, `adopt`, `synth` and
 * `diff --live`, into a fleet that already has another cluster: the same names, the specs equal
 * once the CRD defaults apply (checked with the test model of the API server, crd-validator), the
 * controller's values kept, nothing else changed, `diff --live` quiet; an out-of-band edit of a
 * hashed field is caught; an export adoption cannot take is refused with nothing written.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { aTerraform, Plain, removeProjects, writeProject } from '../builders';
import { cli } from '../review/fleet';
import { defaulted, validateFor } from '../support/crd-validator';

afterAll(removeProjects);

const FIXTURES = join(__dirname, '..', 'fixtures', 'adoption');
const LIVE = join(FIXTURES, 'live-1.14.1.yaml');
const VALUES = join(FIXTURES, 'helm-values-1.14.1.yaml');

/** Terraform outputs of a cluster the fixture's way: its own name in the role, the queue and the controller's role. */
const outputsOf = (name: string) => aTerraform({
  cluster_name: name, karpenter_node_role_name: `KarpenterNodeRole-${name}`, karpenter_interruption_queue_name: `Karpenter-${name}`,
  karpenter_controller_role_arn: `arn:aws:iam::111122223333:role/KarpenterController-${name}`, cluster_version: '1.34',
});

/** A fleet with a cluster `lab` running team web, and `prod-eu-01` as `npm run init` would add it. */
function aFleet(extra: Plain = {}) {
  const config = {
    gitops: { repoURL: 'https://github.com/acme/platform-gitops.git' },
    karpenter: { version: '1.14.1' },
    clusters: { lab: { terraformOutputs: 'terraform/lab.json' }, 'prod-eu-01': { terraformOutputs: 'terraform/prod-eu-01.json', destination: { name: 'prod-eu-01' } }, ...extra },
    defaults: { ami: { alias: 'al2023@v20260409' }, limits: { cpu: '100', memory: '400Gi' } },
    teams: { web: {} },
  };
  const text = `# The platform team's fleet.\n${JSON.stringify(config, null, 2).replace(/"prod-eu-01": \{/, '"prod-eu-01": { # added by npm run init\n')}`;
  return writeProject({
    rawConfig: text,
    terraform: { lab: outputsOf('lab'), 'prod-eu-01': outputsOf('prod-eu-01'), 'prod-eu-02': outputsOf('prod-eu-02') },
  });
}

/** The live objects of an export, by `kind/name`. */
function liveObjects(path: string): Map<string, Plain> {
  const list = parse(readFileSync(path, 'utf8')) as { items: Plain[] };
  return new Map(list.items.map((o) => [`${String(o.kind)}/${String((o.metadata as Plain).name)}`, o]));
}

/** The Karpenter objects synth wrote for a cluster, by `kind/name`. */
function written(dir: string, files: readonly string[]): Map<string, Plain> {
  const out = new Map<string, Plain>();
  for (const f of files) {
    for (const d of parseAllDocuments(readFileSync(join(dir, f), 'utf8'))) {
      const o = d.toJS() as Plain;
      if (['NodePool', 'EC2NodeClass', 'NodeOverlay'].includes(String(o.kind))) out.set(`${String(o.kind)}/${String((o.metadata as Plain).name)}`, o);
    }
  }
  return out;
}

/** A spec with requirements taken as sets (the order of requirements and of their values means nothing to Karpenter). */
function asSets(spec: unknown): unknown {
  const s = structuredClone(spec) as Plain;
  const sortRequirements = (holder: Plain | undefined) => {
    if (!holder || !Array.isArray(holder.requirements)) return;
    holder.requirements = (holder.requirements as Plain[]).map((r) => ({ ...r, ...(Array.isArray(r.values) ? { values: [...(r.values as string[])].sort() } : {}) }))
      .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  };
  sortRequirements(((s.template as Plain | undefined)?.spec as Plain | undefined));
  sortRequirements(s);
  return s;
}

const synthFiles = (dir: string): string[] => {
  const out = readFileSync(join(dir, '.files'), 'utf8');
  return out.split('\n').filter(Boolean);
};

describe('npm run adopt, then synth and diff --live', () => {
  const project = aFleet();
  const cfg = project.configPath;
  let adopted: Awaited<ReturnType<typeof cli>>;
  let labBefore: string;

  beforeAll(async () => {
    await cli(['synth', '--config', cfg, '--outdir', project.dir]);
    labBefore = readFileSync(join(project.dir, 'dist', 'lab', 'nodepools', 'web', 'web.yaml'), 'utf8');
    adopted = await cli(['adopt', 'prod-eu-01', '--live', LIVE, '--helm-values', VALUES, '--config', cfg]);
    const synthed = await cli(['synth', '--config', cfg, '--outdir', project.dir]);
    expect(synthed).toMatchObject({ code: 0 });
    writeFileSync(join(project.dir, '.files'), readdirSync(join(project.dir, 'dist', 'prod-eu-01'), { recursive: true }).map(String)
      .filter((f) => f.endsWith('.yaml')).map((f) => join('dist', 'prod-eu-01', f)).join('\n'));
  });

  it('writes the cluster\'s part of the config, keeping the rest of the file and its comments', () => {
    expect({ code: adopted.code, err: adopted.err }).toEqual({ code: 0, err: '' });
    const text = readFileSync(cfg, 'utf8');
    expect(text).toMatch(/^# The platform team's fleet\./);
    expect(text).toContain('# added by npm run init');
    const config = parse(text) as Plain;
    expect((config.clusters as Plain)['prod-eu-01']).toMatchObject({ teams: ['platform'], smokeTests: false, manualSync: true });
    expect(((config.teams as Plain).platform as Plain)).toMatchObject({ adopted: true, defaultPool: false });
    expect(adopted.out).toMatch(/dropped the Helm value webhook\.enabled|dropped the Helm value webhook:/);
  });

  it('makes, for the cluster, exactly the live objects: the same names, specs equal once the CRD defaults apply, each accepted by the CRD', () => {
    const live = liveObjects(LIVE);
    const made = written(project.dir, synthFiles(project.dir));
    expect([...made.keys()].sort()).toEqual([...live.keys()].sort());
    for (const [key, o] of made) {
      expect({ key, problems: validateFor('1.14.1', o) }).toEqual({ key, problems: [] });
      const stored = defaulted(o, '1.14.1') as Plain;
      expect({ key, spec: asSets(stored.spec) }).toEqual({ key, spec: asSets((live.get(key) as Plain).spec) });
    }
  });

  it('makes the cluster\'s Applications sync only by hand, until manualSync goes', () => {
    for (const app of ['prod-eu-01.yaml', join('..', 'dist', 'prod-eu-01', 'apps', 'karpenter.yaml'), join('..', 'dist', 'prod-eu-01', 'apps', 'pools-platform.yaml')]) {
      const body = parse(readFileSync(join(project.dir, 'argocd', app), 'utf8')) as { spec: { syncPolicy?: { automated?: unknown } } };
      expect({ app, automated: body.spec.syncPolicy?.automated }).toEqual({ app, automated: undefined });
    }
  });

  it('changes nothing of the other cluster', () => {
    expect(readFileSync(join(project.dir, 'dist', 'lab', 'nodepools', 'web', 'web.yaml'), 'utf8')).toBe(labBefore);
  });

  it('keeps the controller\'s live settings and scale', () => {
    const values = parse(readFileSync(join(project.dir, 'dist', 'prod-eu-01', 'karpenter', 'values.yaml'), 'utf8')) as Plain;
    expect(values).toMatchObject({
      // Quantities as the chart takes them: "1" and 1 are one CPU.
      replicas: 3, logLevel: 'info', controller: { resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } },
      settings: { clusterName: 'prod-eu-01', interruptionQueue: 'Karpenter-prod-eu-01', featureGates: { nodeOverlay: true, spotToSpotConsolidation: true } },
      serviceAccount: { annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::111122223333:role/KarpenterController-prod-eu-01' } },
    });
    expect(values).not.toHaveProperty('webhook');
  });

  it('is quiet in diff --live: nothing would replace a node', async () => {
    const r = await cli(['diff', '--live', LIVE, '--cluster', 'prod-eu-01', '--config', cfg, '--outdir', project.dir, '--fail-on', 'replaces-nodes']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('no changes to the generated resources');
  });

  it('fails diff --live --fail-on replaces-nodes (exit 3) when someone edited a hashed field out of band, naming the pool and the field', async () => {
    const edited = join(project.dir, 'edited.yaml');
    writeFileSync(edited, readFileSync(LIVE, 'utf8').replace(/volumeSize: 100Gi/, 'volumeSize: 120Gi'));
    const r = await cli(['diff', '--live', edited, '--cluster', 'prod-eu-01', '--config', cfg, '--outdir', project.dir, '--fail-on', 'replaces-nodes']);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/EC2NodeClass default changed: Karpenter replaces every node of NodePool default, system \(drift\)/);
    expect(r.out).toMatch(/blockDeviceMappings.*120Gi.*100Gi|volumeSize: 120Gi -> 100Gi/);
  });
});

describe('a second cluster of the same shape', () => {
  it('joins the same team: no copy of its pools, only what differs said under the cluster', async () => {
    const project = aFleet({ 'prod-eu-02': { terraformOutputs: 'terraform/prod-eu-02.json', destination: { name: 'prod-eu-02' } } });
    expect((await cli(['adopt', 'prod-eu-01', '--live', LIVE, '--config', project.configPath])).code).toBe(0);
    const second = join(project.dir, 'prod-eu-02.yaml');
    writeFileSync(second, readFileSync(LIVE, 'utf8').replaceAll('prod-eu-01', 'prod-eu-02').replace(/cpu: "1000"/, 'cpu: "2000"'));
    const r = await cli(['adopt', 'prod-eu-02', '--live', second, '--config', project.configPath]);
    expect(r).toMatchObject({ code: 0 });
    // The first adoption kept team platform off it by listing the teams it ran; it now runs what its export says.
    expect(r.out).toMatch(/no --helm-values: the controller's Application will deploy the config's controller values over the running release's/);
    expect(r.out).toMatch(/cluster prod-eu-02: runs team platform only, as the export says \(it listed web, whose pools it does not run\)/);
    const config = parse(readFileSync(project.configPath, 'utf8')) as Plain;
    // The NodeOverlay is the cluster's own, as on prod-eu-01; the pools are the team's, but for the limit that
    // differs and the security group the GPU class names by its cluster's name (the discovery tags and the node
    // role are each cluster's Terraform outputs: nothing to say).
    const { overlays, ...rest } = (config.clusters as Plain)['prod-eu-02'] as Plain;
    expect(rest).toEqual({
      terraformOutputs: 'terraform/prod-eu-02.json', destination: { name: 'prod-eu-02' }, smokeTests: false, manualSync: true,
      teams: { platform: { pools: { default: { limits: { cpu: '2000' } }, gpu: { securityGroupSelectorTerms: [{ id: 'sg-0e4a8c2f6b1d9e375' }, { name: 'prod-eu-02-node' }] } } } },
    });
    expect(Object.keys(overlays as Plain)).toEqual(['spot-discount']);
    expect(Object.keys(config.teams as Plain)).toEqual(['web', 'platform']);
    const synthed = await cli(['synth', '--config', project.configPath, '--outdir', project.dir]);
    expect(synthed.code).toBe(0);
    expect(readFileSync(join(project.dir, 'dist', 'prod-eu-02', 'nodepools', 'platform', 'default.yaml'), 'utf8')).toMatch(/cpu: "2000"/);
  });
});

describe('an export adoption cannot take', () => {
  it.each([
    ['live-1.14.1-inconsistent.yaml', /NodePool gpu uses EC2NodeClass gpu-v2, which is not in the export/],
    ['live-1.14.1-unknown-kind.yaml', /Deployment .* is not what adoption reads/],
  ])('fails on %s, naming the object and field, and writes nothing', async (file, message) => {
    const project = aFleet();
    const before = readFileSync(project.configPath, 'utf8');
    const r = await cli(['adopt', 'prod-eu-01', '--live', join(FIXTURES, file), '--config', project.configPath]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(message);
    expect(r.err).toMatch(/nothing was written/);
    expect(readFileSync(project.configPath, 'utf8')).toBe(before);
  });

  it('fails on fields the config cannot say yet, naming every one at once, and writes nothing', async () => {
    const project = aFleet();
    const before = readFileSync(project.configPath, 'utf8');
    // A taint the controllers stamped (timeAdded) and an EC2NodeClass field of a later release.
    const text = readFileSync(LIVE, 'utf8')
      .replace('        - effect: NoSchedule\n          key: nvidia.com/gpu\n', '        - effect: NoSchedule\n          key: nvidia.com/gpu\n          timeAdded: "2026-08-24T09:12:33Z"\n')
      .replace(/(\n  spec:\n    amiSelectorTerms:)/, '\n  spec:\n    ipv6Prefix: true\n    amiSelectorTerms:');
    const edited = join(project.dir, 'later.yaml');
    writeFileSync(edited, text);
    const r = await cli(['adopt', 'prod-eu-01', '--live', edited, '--config', project.configPath]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/later\.yaml:\d+:\d+: items\[1\]\.spec\.template\.spec\.taints\[0\]\.timeAdded: NodePool gpu: is set by the controllers/);
    expect(r.err).toMatch(/later\.yaml:\d+:\d+: items\[\d\]\.spec\.ipv6Prefix: EC2NodeClass default: has no pool field yet/);
    expect(r.err).toMatch(/^2 problem\(s\) found; nothing was written$/m);
    expect(r.err).toMatch(/nothing was written/);
    expect(readFileSync(project.configPath, 'utf8')).toBe(before);
  });

  it('fails on a cluster the config does not have, suggesting the one meant, and writes nothing', async () => {
    const project = aFleet();
    const before = readFileSync(project.configPath, 'utf8');
    const r = await cli(['adopt', 'prod-eu01', '--live', LIVE, '--config', project.configPath]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/has no cluster prod-eu01 \(did you mean prod-eu-01\?\): add it first .*nothing was written/);
    expect(readFileSync(project.configPath, 'utf8')).toBe(before);
    const d = await cli(['diff', '--live', LIVE, '--cluster', 'prod-eu01', '--config', project.configPath, '--outdir', project.dir]);
    expect(d.code).toBe(1);
    expect(d.err).toMatch(/the config has no cluster prod-eu01 \(did you mean prod-eu-01\? its clusters: lab, prod-eu-01\)/);
  });

  it('skips NodeClaims with a note', async () => {
    const project = aFleet();
    const r = await cli(['adopt', 'prod-eu-01', '--live', join(FIXTURES, 'live-1.14.1-with-nodeclaim.yaml'), '--config', project.configPath]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/skipped NodeClaim default-[a-z0-9]+: a node Karpenter launched/);
  });

  it('fails when a Helm value the Terraform outputs own differs from what runs, and writes nothing', async () => {
    const project = aFleet();
    writeFileSync(project.terraformPath('prod-eu-01'), JSON.stringify({ ...outputsOf('prod-eu-01'), karpenter_interruption_queue_name: { sensitive: false, type: 'string', value: 'Karpenter-other' } }));
    const before = readFileSync(project.configPath, 'utf8');
    const r = await cli(['adopt', 'prod-eu-01', '--live', LIVE, '--helm-values', VALUES, '--config', project.configPath]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/the running controller has settings\.interruptionQueue "Karpenter-prod-eu-01", but the Terraform output karpenter_interruption_queue_name is "Karpenter-other"/);
    expect(readFileSync(project.configPath, 'utf8')).toBe(before);
  });
});
