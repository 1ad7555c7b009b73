/**
 * The hand-over of the controller's Helm release and of Terraform-held objects (issue 44; src/adopt/handover.ts),
 * through the real adopt command on the 1.14.1 export of test/fixtures/adoption, and what Helm does after
 * the printed steps, through a model of Helm written from its source (test/support/helm-ownership.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHART_RESOURCES, handOverSteps } from '../../src/adopt/handover';
import { run } from '../../src/cli';
import { aTerraform, removeProjects, writeProject } from '../builders';
import { helmTemplate, Manifest } from '../support/helm';
import { argoApply, helmInstalled, helmUpgradeInstall, kubectl, Owned } from '../support/helm-ownership';

afterAll(removeProjects);

const FIXTURES = join(__dirname, '..', 'fixtures', 'adoption');
const outputs = (name: string) => aTerraform({
  cluster_name: name, karpenter_node_role_name: `KarpenterNodeRole-${name}`, karpenter_interruption_queue_name: `Karpenter-${name}`,
  karpenter_controller_role_arn: `arn:aws:iam::111122223333:role/KarpenterController-${name}`, cluster_version: '1.34',
});
/** One line of `helm list -A -o json` (helm v3.21.4 cmd/helm/list.go L135-L143). */
const listed = (name: string, namespace: string, chart = 'karpenter-1.14.1') => ({ name, namespace, revision: '3', updated: '2026-08-24 09:05:11.1 +0000 UTC', status: 'deployed', chart, app_version: '1.14.1' });

function project(live = 'live-1.14.1-terraform.yaml') {
  const p = writeProject({
    rawConfig: [
      'gitops: { repoURL: https://github.com/acme/platform-gitops.git }',
      'karpenter: { version: 1.14.1 }',
      'clusters:',
      '  lab: { terraformOutputs: terraform/lab.json }',
      '  prod: { terraformOutputs: terraform/prod.json }',
      'defaults: { ami: { alias: al2023@v20260409 }, limits: { cpu: "100", memory: 400Gi } }',
      'teams:',
      '  web: {}',
      '',
    ].join('\n'),
    terraform: { lab: outputs('lab'), prod: outputs('prod-eu-01') },
  });
  writeFileSync(join(p.dir, 'live.yaml'), readFileSync(join(FIXTURES, live)));
  return p;
}

async function adopt(dir: string, ...args: string[]) {
  const [out, err]: [string[], string[]] = [[], []];
  const code = await run(['adopt', 'prod', '--live', 'live.yaml', '--config', 'config/platform.yaml', ...args], { out: (l) => out.push(l), err: (l) => err.push(l) }, { INIT_CWD: dir });
  return { code, out: out.join('\n').split('\n'), err: err.join('\n') };
}

function withList(dir: string, releases: readonly object[]): string {
  writeFileSync(join(dir, 'releases.json'), `${JSON.stringify(releases)}\n`);
  return 'releases.json';
}

describe('the controller release', () => {
  it('accepts the release karpenter in the namespace the Application installs it in, beside karpenter-crd', async () => {
    const p = project();
    const r = await adopt(p.dir, '--helm-list', withList(p.dir, [listed('karpenter-crd', 'kube-system', 'karpenter-crd-1.14.1'), listed('karpenter', 'kube-system'), listed('ingress', 'ingress', 'ingress-nginx-4.11.3')]));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('  c. then delete the release: kubectl delete secret -n kube-system -l owner=helm,name=karpenter');
  });

  it('fails when the release is not named karpenter, naming the file, line and field', async () => {
    const p = project();
    const r = await adopt(p.dir, '--helm-list', withList(p.dir, [listed('karpenter-prod', 'kube-system')]));
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/releases\.json:1:\d+: \[0\]\.name: release karpenter-prod is not the release the controller's Application installs \(karpenter\): Argo CD would run a second controller/);
    expect(r.err).toMatch(/nothing was written/);
  });

  it('fails when --release names another release', async () => {
    const p = project();
    const r = await adopt(p.dir, '--release', 'kp');
    expect(r.err).toMatch(/--release kp: release kp is not the release the controller's Application installs/);
  });

  it('fails when the release runs in another namespace, saying --namespace', async () => {
    const p = project();
    const r = await adopt(p.dir, '--helm-list', withList(p.dir, [listed('karpenter', 'karpenter')]));
    expect(r.err).toMatch(/\[0\]\.namespace: release karpenter runs in namespace karpenter, the controller's Application installs it in kube-system: adopt with --namespace karpenter/);
  });

  it('fails when the list has two releases of chart karpenter, or none', async () => {
    const p = project();
    const two = await adopt(p.dir, '--helm-list', withList(p.dir, [listed('karpenter', 'kube-system'), listed('karpenter', 'karpenter')]));
    expect(two.err).toMatch(/releases\.json:1:\d+: \[1\]: a second release of chart karpenter, karpenter\/karpenter \(also kube-system\/karpenter\)/);
    const none = await adopt(p.dir, '--helm-list', withList(p.dir, [listed('karpenter-crd', 'kube-system', 'karpenter-crd-1.14.1')]));
    expect(none.err).toMatch(/releases\.json:1:1: lists no release of chart karpenter \(releases of it: none\)/);
  });
});

describe('objects Terraform holds', () => {
  it('names the manager of each object and the way out without a delete', async () => {
    const p = project();
    const r = await adopt(p.dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain('  NodePool default: Terraform (kubectl provider, client-side apply)');
    expect(r.out).toContain('    Terraform >= 1.7: removed { from = <the kubectl_manifest of NodePool default>  lifecycle { destroy = false } }   '
      + 'before 1.7: terraform state rm \'<the kubectl_manifest of NodePool default>\'');
    for (const name of ['NodePool gpu', 'NodePool system', 'EC2NodeClass default', 'EC2NodeClass gpu', 'NodeOverlay spot-discount']) {
      expect(r.out.some((l) => l.startsWith(`  ${name}: Terraform`))).toBe(true);
    }
  });

  it('says nothing of Terraform for objects kubectl applied', async () => {
    const p = project('live-1.14.1.yaml');
    const r = await adopt(p.dir);
    expect(r.code).toBe(0);
    expect(r.out.filter((l) => l.includes('kubectl_manifest'))).toEqual([]);
  });
});

/** The chart's objects as Helm's ownership check sees them. */
const owned = (m: readonly Manifest[]): Omit<Owned, 'annotations'>[] => m.map((o) => ({
  apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace,
  labels: { ...(o.metadata.labels as Record<string, string> | undefined) },
}));

describe.each(['kube-system', 'karpenter'])('after the printed hand-over, release karpenter in %s', (namespace) => {
  const rendered = owned(helmTemplate({ serviceMonitor: { enabled: true }, settings: { clusterName: 'prod-eu-01' } }, { namespace, apiVersions: ['monitoring.coreos.com/v1'] }));
  const steps = handOverSteps({ cluster: 'prod', namespace, objects: [] });
  const commands = steps.map((l) => l.trim().replace(/^c\. then delete the release: /, '')).filter((l) => l.startsWith('kubectl '));
  const handedOver = () => {
    const cluster = helmInstalled(rendered, 'karpenter', namespace);
    argoApply(cluster, rendered);
    return cluster;
  };

  it('fails when only the release secrets are deleted (the old hand-over): helm upgrade --install adopts every object again', () => {
    const cluster = handedOver();
    kubectl(cluster, `kubectl delete secret -n ${namespace} -l owner=helm,name=karpenter`);
    const outcome = helmUpgradeInstall(cluster, 'karpenter', namespace, rendered);
    expect(outcome).toEqual({ adopted: expect.arrayContaining([`Deployment/${namespace}/karpenter`, 'ClusterRole//karpenter-core']) });
  });

  it('fails when the release secrets are kept (step c skipped): helm upgrade takes the objects it holds without a check', () => {
    const cluster = handedOver();
    for (const c of commands.filter((l) => l.startsWith('kubectl annotate'))) kubectl(cluster, c);
    expect(helmUpgradeInstall(cluster, 'karpenter', namespace, rendered)).toEqual({ adopted: expect.arrayContaining([`Deployment/${namespace}/karpenter`]) });
  });

  it('makes helm upgrade --install karpenter refuse with invalid ownership metadata', () => {
    const cluster = handedOver();
    for (const c of commands) kubectl(cluster, c);
    expect(cluster.releases.size).toBe(0);
    for (const o of cluster.objects) expect(Object.keys(o.annotations).filter((k) => k.startsWith('meta.helm.sh/'))).toEqual([]);
    expect(helmUpgradeInstall(cluster, 'karpenter', namespace, rendered)).toEqual({ refused: expect.stringMatching(/invalid ownership metadata/) });
  });

  it('covers every kind and namespace the vendored chart renders', () => {
    const resources = [...CHART_RESOURCES.release, CHART_RESOURCES.serviceMonitor, ...CHART_RESOURCES.kubeSystem, ...CHART_RESOURCES.cluster].map((r) => r.split('.')[0]);
    for (const o of rendered) expect(resources).toContain(`${o.kind.toLowerCase()}s`);
  });
});
