/**
 * `diff --live FILE --helm-values FILE` (issue 44): the running controller's values against the
 * values the config makes, as diff --live compares pools: a group that moves an adopted controller
 * from 2 to 3 replicas is said, in the controller's class.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { run } from '../../src/cli';
import { aTerraform, removeProjects, writeProject } from '../builders';

afterAll(removeProjects);

const FIXTURES = join(__dirname, '..', 'fixtures', 'adoption');
const outputs = aTerraform({
  cluster_name: 'prod-eu-01', karpenter_node_role_name: 'KarpenterNodeRole-prod-eu-01', karpenter_interruption_queue_name: 'Karpenter-prod-eu-01',
  karpenter_controller_role_arn: 'arn:aws:iam::111122223333:role/KarpenterController-prod-eu-01', cluster_version: '1.34',
});

describe('diff --live --helm-values', () => {
  const p = writeProject({
    rawConfig: [
      'gitops: { repoURL: https://github.com/acme/platform-gitops.git }',
      'karpenter: { version: 1.14.1 }',
      'clusters:',
      '  prod: { terraformOutputs: terraform/prod.json, labels: { env: prod } }',
      'defaults: { ami: { alias: al2023@v20260409 } }',
      'teams: {}',
      '',
    ].join('\n'),
    terraform: { prod: outputs },
  });
  writeFileSync(join(p.dir, 'live.yaml'), readFileSync(join(FIXTURES, 'live-1.14.1.yaml')));
  // The fixture's release, scaled to the chart's 2 replicas.
  writeFileSync(join(p.dir, 'values.yaml'), readFileSync(join(FIXTURES, 'helm-values-1.14.1.yaml'), 'utf8').replace('replicas: 3', 'replicas: 2'));
  const cli = async (...args: string[]) => {
    const [out, err]: [string[], string[]] = [[], []];
    const code = await run([...args, '--config', 'config/platform.yaml', ...(args[0] === 'adopt' ? [] : ['--outdir', '.'])], { out: (l) => out.push(l), err: (l) => err.push(l) }, { INIT_CWD: p.dir });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  const cwd = process.cwd();
  beforeAll(() => process.chdir(p.dir));
  afterAll(() => process.chdir(cwd));

  it('keeps the running replicas after adoption, then says a group\'s replicas: 3', async () => {
    expect((await cli('adopt', 'prod', '--live', 'live.yaml', '--helm-values', 'values.yaml')).code).toBe(0);
    expect((await cli('synth')).code).toBe(0);
    const adopted = await cli('diff', '--live', 'live.yaml', '--cluster', 'prod', '--helm-values', 'values.yaml');
    expect(adopted.code).toBe(0);
    expect(adopted.out).not.toMatch(/replicas/);
    // A group sets the controller's replicas; the cluster no longer says its own.
    const config = join(p.dir, 'config', 'platform.yaml');
    const doc = parseDocument(readFileSync(config, 'utf8'));
    doc.deleteIn(['clusters', 'prod', 'karpenter', 'controller', 'replicas']);
    doc.setIn(['groups'], doc.createNode({ prod: { match: { labels: { env: 'prod' } }, karpenter: { controller: { replicas: 3 } } } }));
    writeFileSync(config, doc.toString());
    expect((await cli('synth')).code).toBe(0);
    const r = await cli('diff', '--live', 'live.yaml', '--cluster', 'prod', '--helm-values', 'values.yaml', '--full');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/replicas: 2 -> 3/);
    expect(r.out).toMatch(/1 controller/);
    expect(r.out).not.toMatch(/cpu: 1 -> 1/);
  });

  it('fails when --helm-values is given without --live', async () => {
    const r = await cli('diff', '--base', 'HEAD', '--helm-values', 'values.yaml');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/diff takes --helm-values only with --live FILE/);
  });
});
