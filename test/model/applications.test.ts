import { clusterApplications, rootApplication, WAVES } from '../../src/model/applications';
import type { Platform } from '../../src/config/platform';
import { aCluster } from '../pool-builders';

function aPlatform(namespace = 'kube-system'): Platform {
  return {
    gitops: { repoURL: 'https://github.com/acme/platform-gitops.git', targetRevision: 'main', argocdNamespace: 'argocd', project: 'platform' },
    karpenter: { version: '1.14.1', namespace, helmValues: {}, controller: { replicas: 2, featureGates: {}, settings: {} } },
    clusters: [],
  };
}

const byFile = (apps: ReturnType<typeof clusterApplications>, file: string) => {
  const app = apps.find((a) => a.file === file);
  if (!app) throw new Error(`no application ${file}`);
  return app;
};

describe('clusterApplications', () => {
  const apps = clusterApplications(aPlatform(), aCluster());

  it('orders the waves CRDs < controller < pools < smoke tests', () => {
    expect(apps.map((a) => [a.file, a.wave])).toEqual([
      ['karpenter-crd', 0], ['karpenter', 1], ['karpenter-nodepools', 2], ['karpenter-smoke-tests', 3],
    ]);
    expect(WAVES.crds < WAVES.controller && WAVES.controller < WAVES.nodePools && WAVES.nodePools < WAVES.smokeTests).toBe(true);
  });

  it('installs the CRD chart of the configured version from the OCI registry, server-side, never pruned', () => {
    expect(byFile(apps, 'karpenter-crd')).toMatchObject({
      name: 'demo-karpenter-crd',
      sources: [{ repoURL: 'public.ecr.aws/karpenter', chart: 'karpenter-crd', targetRevision: '1.14.1' }],
      automated: true, prune: false, syncOptions: ['ServerSideApply=true'],
    });
  });

  it('installs the controller chart without its CRDs, with values from this repository', () => {
    expect(byFile(apps, 'karpenter')).toMatchObject({
      name: 'demo-karpenter',
      sources: [
        { repoURL: 'public.ecr.aws/karpenter', chart: 'karpenter', targetRevision: '1.14.1',
          helm: { releaseName: 'karpenter', skipCrds: true, valueFiles: ['$values/dist/demo/karpenter/values.yaml'] } },
        { repoURL: 'https://github.com/acme/platform-gitops.git', targetRevision: 'main', ref: 'values' },
      ],
      destination: { server: 'https://kubernetes.default.svc', namespace: 'kube-system' },
      automated: true, prune: true, syncOptions: [],
    });
  });

  it('creates the controller namespace when it is not kube-system', () => {
    const own = clusterApplications(aPlatform('karpenter'), aCluster());
    expect(byFile(own, 'karpenter').syncOptions).toEqual(['CreateNamespace=true']);
    expect(byFile(own, 'karpenter-crd').syncOptions).toEqual(['ServerSideApply=true', 'CreateNamespace=true']);
  });

  it('syncs the pools automatically with self-heal, prune and retry', () => {
    expect(byFile(apps, 'karpenter-nodepools')).toMatchObject({
      sources: [{ path: 'dist/demo/nodepools' }], automated: true, prune: true, retry: true,
    });
  });

  it('never auto-syncs the smoke tests, and leaves them out when the cluster turns them off', () => {
    expect(byFile(apps, 'karpenter-smoke-tests')).toMatchObject({ sources: [{ path: 'dist/demo/smoke-tests' }], automated: false });
    expect(clusterApplications(aPlatform(), aCluster([], { smokeTests: false })).map((a) => a.file)).not.toContain('karpenter-smoke-tests');
  });

  it('deploys to the cluster destination by name, in the project of gitops', () => {
    const named = clusterApplications(aPlatform(), aCluster([], { destination: { name: 'prod-eu' } }));
    for (const app of named) {
      expect(app.destination).toMatchObject({ name: 'prod-eu' });
      expect(app.project).toBe('platform');
      expect(app.namespace).toBe('argocd');
    }
  });

  it('names every Application after its cluster, so clusters never clash in one Argo CD', () => {
    const names = ['eu', 'us'].flatMap((id) => {
      const cluster = aCluster([], { id });
      return [...clusterApplications(aPlatform(), cluster), rootApplication(aPlatform(), cluster)].map((a) => a.name);
    });
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((n) => n.startsWith('eu-'))).toHaveLength(5);
  });
});

describe('rootApplication', () => {
  it('syncs dist/<cluster>/apps into Argo CD own namespace', () => {
    expect(rootApplication(aPlatform(), aCluster([], { destination: { name: 'prod-eu' } }))).toMatchObject({
      file: 'demo', name: 'demo-karpenter-root',
      sources: [{ path: 'dist/demo/apps', targetRevision: 'main' }],
      destination: { server: 'https://kubernetes.default.svc', namespace: 'argocd' },
      automated: true,
    });
  });
});
