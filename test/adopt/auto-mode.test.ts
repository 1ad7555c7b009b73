/**
 * EKS Auto Mode beside self-managed Karpenter (issue 44): an export whose NodePools include one
 * of Auto Mode (`nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass}`, as AWS's migration
 * guide writes it, test/fixtures/adoption/live-1.14.1-auto-mode.yaml) beside the self-managed
 * pools of test/fixtures/adoption. Through the real `adopt` and `synth` commands: the Auto Mode
 * pool is left to EKS and said so, the self-managed pools adopt as they would alone, and the
 * config says `karpenter.besideAutoMode: true`, under which the cluster's CRDs' Application holds
 * the shared karpenter.sh CRDs (EKS manages them: AmazonEKSComputeClusterPolicy, EKS user guide
 * access-policy-reference.adoc l. 458-461) without an automated sync or a resources finalizer,
 * before and after the cluster is switched to automated sync as docs/adopting.md says.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { aTerraform, Plain, removeProjects, writeProject } from '../builders';
import { cli } from '../review/fleet';

afterAll(removeProjects);

const FIXTURES = join(__dirname, '..', 'fixtures', 'adoption');
const AUTO_MODE = join(FIXTURES, 'live-1.14.1-auto-mode.yaml');

/** A fleet with a cluster `lab` running team web, and `prod-eu-01` as `npm run init` would add it. */
function aFleet() {
  const outputs = (name: string) => aTerraform({
    cluster_name: name, karpenter_node_role_name: `KarpenterNodeRole-${name}`, karpenter_interruption_queue_name: `Karpenter-${name}`,
    karpenter_controller_role_arn: `arn:aws:iam::111122223333:role/KarpenterController-${name}`, cluster_version: '1.34',
  });
  return writeProject({
    config: {
      gitops: { repoURL: 'https://github.com/acme/platform-gitops.git' },
      karpenter: { version: '1.14.1' },
      clusters: { lab: { terraformOutputs: 'terraform/lab.json' }, 'prod-eu-01': { terraformOutputs: 'terraform/prod-eu-01.json', destination: { name: 'prod-eu-01' } } },
      defaults: { ami: { alias: 'al2023@v20260409' }, limits: { cpu: '100', memory: '400Gi' } },
      teams: { web: {} },
    },
    terraform: { lab: outputs('lab'), 'prod-eu-01': outputs('prod-eu-01') },
  });
}

/** A fleet with `lab` running team web, and `prod-eu-01` and `prod-eu-02` as `npm run init` would add them. */
function aTwoClusterFleet() {
  const outputs = (name: string) => aTerraform({
    cluster_name: name, karpenter_node_role_name: `KarpenterNodeRole-${name}`, karpenter_interruption_queue_name: `Karpenter-${name}`,
    karpenter_controller_role_arn: `arn:aws:iam::111122223333:role/KarpenterController-${name}`, cluster_version: '1.34',
  });
  const ids = ['lab', 'prod-eu-01', 'prod-eu-02'];
  return writeProject({
    config: {
      gitops: { repoURL: 'https://github.com/acme/platform-gitops.git' },
      karpenter: { version: '1.14.1' },
      clusters: Object.fromEntries(ids.map((id) => [id, { terraformOutputs: `terraform/${id}.json`, destination: { name: id } }])),
      defaults: { ami: { alias: 'al2023@v20260409' }, limits: { cpu: '100', memory: '400Gi' } },
      teams: { web: {} },
    },
    terraform: Object.fromEntries(ids.map((id) => [id, outputs(id)])),
  });
}

/** The Applications of cluster `id` in the generated tree, by name. */
function applications(dir: string, id: string): Map<string, Plain> {
  const folder = join(dir, 'dist', id, 'apps');
  const docs = readdirSync(folder).filter((f) => f.endsWith('.yaml')).flatMap((f) => parseAllDocuments(readFileSync(join(folder, f), 'utf8')).map((d) => d.toJS() as Plain));
  return new Map(docs.filter((d) => d.kind === 'Application').map((d) => [String((d.metadata as Plain).name), d]));
}

const automated = (app: Plain | undefined) => ((app?.spec as Plain).syncPolicy as Plain | undefined)?.automated;
const finalizers = (app: Plain | undefined) => (app?.metadata as Plain).finalizers;

describe('npm run adopt on a cluster running EKS Auto Mode beside self-managed Karpenter', () => {
  const project = aFleet();
  let adopted: Awaited<ReturnType<typeof cli>>;
  let synthed: Awaited<ReturnType<typeof cli>>;
  beforeAll(async () => {
    adopted = await cli(['adopt', 'prod-eu-01', '--live', AUTO_MODE, '--config', project.configPath]);
    synthed = await cli(['synth', '--config', project.configPath, '--outdir', project.dir]);
  });

  it('adopts the self-managed pools, says the Auto Mode pool is left to EKS and the shared CRDs are held, and writes besideAutoMode', () => {
    expect({ code: adopted.code, err: adopted.err }).toEqual({ code: 0, err: '' });
    const out = adopted.out.split('\n');
    expect(out.slice(0, 2)).toEqual([
      'left to EKS: NodePool eks-auto-mode uses EKS Auto Mode\'s NodeClass default (eks.amazonaws.com): EKS runs it, adopt writes nothing for it',
      expect.stringMatching(/^cluster prod-eu-01 runs EKS Auto Mode beside self-managed Karpenter: wrote karpenter\.besideAutoMode: true, so its CRDs' Application prod-eu-01-karpenter-crd holds the shared karpenter\.sh CRDs/),
    ]);
    expect(adopted.out).toMatch(/team platform: 3 adopted pool\(s\) \(default, gpu, system\)/);
    expect(out).toContain('     but never prod-eu-01-karpenter-crd: it holds the karpenter.sh CRDs EKS Auto Mode manages on prod-eu-01 (docs/auto-mode.md, "The shared CRDs")');
    const config = parse(readFileSync(project.configPath, 'utf8')) as { clusters: Record<string, Plain> };
    expect(config.clusters['prod-eu-01'].karpenter).toEqual({ besideAutoMode: true });
    expect(config.clusters.lab.karpenter).toBeUndefined();
  });

  it('generates the cluster\'s pools and controller, nothing for the Auto Mode pool, and a CRDs\' Application that never syncs and never deletes the CRDs', () => {
    expect({ code: synthed.code, err: synthed.err }).toEqual({ code: 0, err: '' });
    const files = readdirSync(join(project.dir, 'dist', 'prod-eu-01'), { recursive: true }).map(String);
    expect(files.filter((f) => f.includes('eks-auto-mode'))).toEqual([]);
    const apps = applications(project.dir, 'prod-eu-01');
    const crds = apps.get('prod-eu-01-karpenter-crd');
    expect(crds).toBeDefined();
    expect(automated(crds)).toBeUndefined();
    expect(finalizers(crds)).toBeUndefined();
    // The other cluster of the fleet is as it was: its CRDs sync, and go with their Application.
    const lab = applications(project.dir, 'lab').get('lab-karpenter-crd');
    expect(automated(lab)).toBeDefined();
    expect(finalizers(lab)).toEqual(['resources-finalizer.argocd.argoproj.io']);
  });

  it('keeps the CRDs held once the cluster is switched to automated sync (manualSync removed, docs/adopting.md), while its controller and pools sync on their own', async () => {
    const text = readFileSync(project.configPath, 'utf8');
    const switched = text.replace(/^( +)manualSync: true\n/m, '');
    expect(switched).not.toBe(text);
    writeFileSync(project.configPath, switched);
    expect((await cli(['synth', '--config', project.configPath, '--outdir', project.dir])).code).toBe(0);
    const apps = applications(project.dir, 'prod-eu-01');
    expect(automated(apps.get('prod-eu-01-karpenter-crd'))).toBeUndefined();
    expect(finalizers(apps.get('prod-eu-01-karpenter-crd'))).toBeUndefined();
    expect(automated(apps.get('prod-eu-01-karpenter'))).toBeDefined();
    expect(automated(apps.get('prod-eu-01-pools-platform'))).toBeDefined();
    writeFileSync(project.configPath, text);
  });
});

describe('npm run adopt of the same cluster without Auto Mode, and where the config cannot say it', () => {
  it('adopts the same export once the Auto Mode pool is gone (Auto Mode off): no besideAutoMode, nothing said of EKS', async () => {
    const project = aFleet();
    const list = parse(readFileSync(AUTO_MODE, 'utf8')) as { items: Plain[] };
    list.items = list.items.filter((o) => (o.metadata as Plain).name !== 'eks-auto-mode');
    const without = join(project.dir, 'without-auto-mode.yaml');
    writeFileSync(without, stringify(list));
    const r = await cli(['adopt', 'prod-eu-01', '--live', without, '--config', project.configPath]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    expect(r.out).toMatch(/team platform: 3 adopted pool\(s\) \(default, gpu, system\)/);
    expect(r.out).not.toMatch(/EKS/);
    expect(readFileSync(project.configPath, 'utf8')).not.toMatch(/besideAutoMode/);
  });

  it('takes an Auto Mode NodeClass in the export as EKS\'s, not as a kind it cannot read', async () => {
    const project = aFleet();
    const list = parse(readFileSync(AUTO_MODE, 'utf8')) as { items: Plain[] };
    list.items.push({ apiVersion: 'eks.amazonaws.com/v1', kind: 'NodeClass', metadata: { name: 'default' }, spec: { role: 'AmazonEKSAutoNodeRole' } });
    const withClass = join(project.dir, 'with-node-class.yaml');
    writeFileSync(withClass, stringify(list));
    const r = await cli(['adopt', 'prod-eu-01', '--live', withClass, '--config', project.configPath]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    expect(r.out).toMatch(/EKS Auto Mode's node class: EKS owns it/);
  });

  it('refuses an export that holds only Auto Mode\'s NodePools, at the export, saying there is nothing of the cluster\'s own to adopt', async () => {
    const project = aFleet();
    const list = parse(readFileSync(AUTO_MODE, 'utf8')) as { items: Plain[] };
    list.items = list.items.filter((o) => (o.metadata as Plain).name === 'eks-auto-mode');
    const only = join(project.dir, 'only-auto-mode.yaml');
    writeFileSync(only, stringify(list));
    const before = readFileSync(project.configPath, 'utf8');
    const r = await cli(['adopt', 'prod-eu-01', '--live', only, '--config', project.configPath]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/only-auto-mode\.yaml: the export holds no NodePool of the cluster's own Karpenter \(an EC2NodeClass's\), only EKS Auto Mode's \(eks-auto-mode\): nothing to adopt\. .*compute: autoMode/);
    expect(r.err).not.toMatch(/a bug of adopt/);
    expect(readFileSync(project.configPath, 'utf8')).toBe(before);
  });

  it('refuses a cluster the config puts on compute: both, naming the field and the way through, and writes nothing', async () => {
    const project = aFleet();
    const text = readFileSync(project.configPath, 'utf8');
    const parsed = parse(text) as { clusters: Record<string, Plain> };
    parsed.clusters['prod-eu-01'].compute = 'both';
    writeFileSync(project.configPath, stringify(parsed));
    const before = readFileSync(project.configPath, 'utf8');
    const r = await cli(['adopt', 'prod-eu-01', '--live', AUTO_MODE, '--config', project.configPath]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/cluster prod-eu-01 has compute: both in the config, but adoption takes over a cluster that runs its own Karpenter controller: set compute: karpenter/);
    expect(readFileSync(project.configPath, 'utf8')).toBe(before);
  });
});

describe('npm run adopt of two clusters in one run, one of them beside EKS Auto Mode', () => {
  it('adopts both into one team, writes besideAutoMode on the Auto Mode cluster only, and leaves its CRDs\' Application alone', async () => {
    const project = aTwoClusterFleet();
    const list = parse(readFileSync(AUTO_MODE, 'utf8').replaceAll('prod-eu-01', 'prod-eu-02')) as { items: Plain[] };
    list.items = list.items.filter((o) => (o.metadata as Plain).name !== 'eks-auto-mode');
    const plain = join(project.dir, 'prod-eu-02.yaml');
    writeFileSync(plain, stringify(list));
    const r = await cli(['adopt', `prod-eu-01=${AUTO_MODE}`, `prod-eu-02=${plain}`, '--config', project.configPath]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    expect(r.out).toMatch(/cluster prod-eu-02 joins its 3 pool\(s\)/);
    expect(r.out.split('\n').filter((l) => l.includes('but never'))).toEqual([expect.stringContaining('but never prod-eu-01-karpenter-crd')]);
    const config = parse(readFileSync(project.configPath, 'utf8')) as { clusters: Record<string, Plain> };
    expect(config.clusters['prod-eu-01'].karpenter).toEqual({ besideAutoMode: true });
    expect(config.clusters['prod-eu-02'].karpenter).toBeUndefined();
    expect((await cli(['synth', '--config', project.configPath, '--outdir', project.dir])).code).toBe(0);
    expect(automated(applications(project.dir, 'prod-eu-01').get('prod-eu-01-karpenter-crd'))).toBeUndefined();
    expect(finalizers(applications(project.dir, 'prod-eu-02').get('prod-eu-02-karpenter-crd'))).toEqual(['resources-finalizer.argocd.argoproj.io']);
  });
});
