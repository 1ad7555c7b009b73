/**
 * docs/adopting.md shows what adopt and diff --live print: each example is produced here, from the
 * page's own walk-through on a fleet with a cluster `lab` and a cluster `prod` that runs the
 * NodePools of test/fixtures/adoption, so the page cannot drift from what the commands print.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/cli';
import { aTerraform, removeProjects, writeProject } from './builders';

afterAll(removeProjects);

const page = readFileSync(join(__dirname, '..', 'docs', 'adopting.md'), 'utf8');
const blocks = [...page.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1].trimEnd().split('\n'));
const blockStarting = (first: RegExp) => {
  const found = blocks.find((b) => first.test(b[0]));
  if (!found) throw new Error(`docs/adopting.md has no block starting ${first}`);
  return found;
};
const FIXTURES = join(__dirname, 'fixtures', 'adoption');

/** Terraform outputs of cluster `prod`, whose AWS names are the fixture's (prod-eu-01). */
const outputs = (name: string) => aTerraform({
  cluster_name: name, karpenter_node_role_name: `KarpenterNodeRole-${name}`, karpenter_interruption_queue_name: `Karpenter-${name}`,
  karpenter_controller_role_arn: `arn:aws:iam::111122223333:role/KarpenterController-${name}`, cluster_version: '1.34',
});

describe('docs/adopting.md', () => {
  const project = writeProject({
    rawConfig: [
      'gitops: { repoURL: https://github.com/acme/platform-gitops.git }',
      'karpenter: { version: 1.14.1 }',
      'clusters:',
      '  lab: { terraformOutputs: terraform/lab.json }',
      '  prod: { terraformOutputs: terraform/prod.json, destination: { name: prod } }',
      'defaults: { ami: { alias: al2023@v20260409 }, limits: { cpu: "100", memory: 400Gi } }',
      'teams:',
      '  web: {}',
      '',
    ].join('\n'),
    terraform: { lab: outputs('lab'), prod: outputs('prod-eu-01') },
  });
  writeFileSync(join(project.dir, 'prod.live.yaml'), readFileSync(join(FIXTURES, 'live-1.14.1.yaml')));
  writeFileSync(join(project.dir, 'prod.values.yaml'), readFileSync(join(FIXTURES, 'helm-values-1.14.1.yaml')));
  // helm list -A -o json of the fixture's cluster (helm v3.21.4 cmd/helm/list.go L135-L143): the controller and its CRDs.
  writeFileSync(join(project.dir, 'prod.releases.json'), `${JSON.stringify(['karpenter', 'karpenter-crd'].map((name) => ({
    name, namespace: 'kube-system', revision: '1', updated: '2026-08-24 09:05:11.1 +0000 UTC', status: 'deployed', chart: `${name}-1.14.1`, app_version: '1.14.1',
  })))}\n`);
  /** A command as the page runs it, from the repository's root. */
  const npm = async (...args: string[]) => {
    const [out, err]: [string[], string[]] = [[], []];
    const outdir = args[0] === 'adopt' ? [] : ['--outdir', '.'];
    const code = await run([...args, '--config', 'config/platform.yaml', ...outdir], { out: (l) => out.push(l), err: (l) => err.push(l) }, { INIT_CWD: project.dir });
    return { code, out: out.join('\n').split('\n'), err };
  };
  const cwd = process.cwd();
  beforeAll(() => process.chdir(project.dir));
  afterAll(() => process.chdir(cwd));

  it('shows what adopt prints', async () => {
    const r = await npm('adopt', 'prod', '--live', 'prod.live.yaml', '--helm-values', 'prod.values.yaml', '--helm-list', 'prod.releases.json');
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: [] });
    const shown = blockStarting(/^team platform: /);
    expect(r.out.slice(0, shown.length)).toEqual(shown);
    const handOver = blockStarting(/^hand-over of the controller/);
    const start = r.out.indexOf(handOver[0]);
    expect(r.out.slice(start, start + handOver.length)).toEqual(handOver);
  });

  it('shows what diff --live prints of a hashed field edited out of band, and is quiet before', async () => {
    expect((await npm('synth')).code).toBe(0);
    const quiet = await npm('diff', '--live', 'prod.live.yaml', '--cluster', 'prod', '--fail-on', 'replaces-nodes');
    expect(quiet.code).toBe(0);
    expect(quiet.out).toContain('no changes to the generated resources');
    writeFileSync(join(project.dir, 'edited.yaml'), readFileSync(join(project.dir, 'prod.live.yaml'), 'utf8').replace('volumeSize: 100Gi', 'volumeSize: 120Gi'));
    const r = await npm('diff', '--live', 'edited.yaml', '--cluster', 'prod', '--fail-on', 'replaces-nodes');
    expect(r.code).toBe(3);
    const shown = blockStarting(/^ {2}♻️ EC2NodeClass default changed/);
    const start = r.out.indexOf(shown[0]);
    expect(r.out.slice(start, start + shown.length)).toEqual(shown);
  });
});
