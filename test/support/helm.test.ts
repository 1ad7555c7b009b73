import { existsSync, statSync } from 'node:fs';
import { containerEnv, findManifest, helmBinary, helmTemplate } from './helm';

describe('helmBinary', () => {
  it('extracts an executable helm once and reuses it', () => {
    const path = helmBinary();
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).mode & 0o755).toBe(0o755);
    expect(helmBinary()).toBe(path);
  });
});

describe('helmTemplate', () => {
  it('renders the vendored karpenter chart with the cluster name in the controller env', () => {
    const manifests = helmTemplate({ settings: { clusterName: 'demo' } });
    const deployment = findManifest(manifests, 'Deployment', 'karpenter');
    expect(deployment.metadata.namespace).toBe('kube-system');
    expect(containerEnv(deployment)).toContainEqual({ name: 'CLUSTER_NAME', value: 'demo' });
  });

  it('fails with helm\'s message when the chart refuses the values', () => {
    expect(() => helmTemplate({ settings: { clusterName: '' } })).toThrow(/without a valid settings\.clusterName/);
  });

  it('fails naming what was rendered when an object is missing', () => {
    const manifests = helmTemplate({ settings: { clusterName: 'demo' } });
    expect(() => findManifest(manifests, 'Deployment', 'nope')).toThrow(/expected one Deployment\/nope, found 0 \(rendered: .*Deployment\/karpenter/);
  });
});
