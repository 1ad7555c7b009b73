/**
 * EKS Auto Mode beside self-managed Karpenter (issue 44): an export whose NodePools include one
 * of Auto Mode (`nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass}`, as AWS's migration
 * guide writes it, test/fixtures/adoption/live-1.14.1-auto-mode.yaml) beside the self-managed
 * pools of test/fixtures/adoption. Through the real `adopt` command: the Auto Mode pool is left
 * to EKS and said so, the self-managed pools raise no problem of their own, and the config is not
 * written, because the cluster's `karpenter-crd` Application would install the `karpenter.sh`
 * CRDs that EKS owns while Auto Mode runs (AWS: "do not update or modify these CRDs";
 * https://docs.aws.amazon.com/eks/latest/userguide/auto-migrate-karpenter.html), and the config
 * has no switch that skips it yet.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
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

describe('npm run adopt on a cluster running EKS Auto Mode beside self-managed Karpenter', () => {
  it('fails when the config would install the karpenter.sh CRDs there: says the Auto Mode pool is left to EKS and the CRDs are EKS\'s, and writes nothing', async () => {
    const project = aFleet();
    const before = readFileSync(project.configPath, 'utf8');
    const r = await cli(['adopt', 'prod-eu-01', '--live', AUTO_MODE, '--config', project.configPath]);
    expect(r.code).toBe(1);
    expect(r.out.split('\n')).toEqual([
      'left to EKS: NodePool eks-auto-mode uses EKS Auto Mode\'s NodeClass default (eks.amazonaws.com): EKS runs it, adopt writes nothing for it',
      'cluster prod-eu-01 runs EKS Auto Mode beside self-managed Karpenter: never touch the shared karpenter.sh CRDs there (nodepools.karpenter.sh, nodeclaims.karpenter.sh): EKS owns them while Auto Mode runs',
    ]);
    // One problem only: the self-managed pools beside it (default, gpu, system) adopt as they would alone.
    expect(r.err.split('\n')).toEqual([
      expect.stringMatching(/^error: cluster prod-eu-01 runs EKS Auto Mode \(NodePool eks-auto-mode\), and the config would install the karpenter\.sh CRDs there with Application prod-eu-01-karpenter-crd: the config cannot skip that Application yet .*so adopt does not write it/),
      'nothing was written',
    ]);
    expect(readFileSync(project.configPath, 'utf8')).toBe(before);
  });

  it('adopts the same export once the Auto Mode pool is gone (Auto Mode off): the self-managed pools are what it refused for nothing else', async () => {
    const project = aFleet();
    const list = parse(readFileSync(AUTO_MODE, 'utf8')) as { items: Plain[] };
    list.items = list.items.filter((o) => (o.metadata as Plain).name !== 'eks-auto-mode');
    const without = join(project.dir, 'without-auto-mode.yaml');
    writeFileSync(without, stringify(list));
    const r = await cli(['adopt', 'prod-eu-01', '--live', without, '--config', project.configPath]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    expect(r.out).toMatch(/team platform: 3 adopted pool\(s\) \(default, gpu, system\)/);
    expect(r.out).not.toMatch(/EKS/);
  });

  it('takes an Auto Mode NodeClass in the export as EKS\'s, not as a kind it cannot read: the CRDs stay the only problem', async () => {
    const project = aFleet();
    const list = parse(readFileSync(AUTO_MODE, 'utf8')) as { items: Plain[] };
    list.items.push({ apiVersion: 'eks.amazonaws.com/v1', kind: 'NodeClass', metadata: { name: 'default' }, spec: { role: 'AmazonEKSAutoNodeRole' } });
    const withClass = join(project.dir, 'with-node-class.yaml');
    writeFileSync(withClass, stringify(list));
    const r = await cli(['adopt', 'prod-eu-01', '--live', withClass, '--config', project.configPath]);
    expect(r.code).toBe(1);
    expect(r.err).not.toMatch(/is not what adoption reads/);
    expect(r.err.split('\n')).toEqual([expect.stringMatching(/^error: cluster prod-eu-01 runs EKS Auto Mode /), 'nothing was written']);
  });
});
