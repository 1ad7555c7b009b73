import { Testing } from 'cdk8s';
import { ApplicationChart } from '../../src/charts/application-chart';
import { ArgoCdHealthChart } from '../../src/charts/argocd-health-chart';
import { SmokeTestChart, SmokeTestNamespaceChart } from '../../src/charts/smoke-test-chart';
import type { Platform } from '../../src/config/platform';
import { clusterApplications } from '../../src/model/applications';
import { smokeTestModel } from '../../src/model/smoke-test';
import { aCluster, aPlatform, aPool } from '../pool-builders';

const platform: Platform = aPlatform([]);

type Manifest = { kind: string; metadata: { name: string; labels?: Record<string, string> }; spec: any };

describe('ApplicationChart', () => {
  it('renders the controller Application', () => {
    const app = clusterApplications(platform, aCluster()).find((a) => a.file === 'karpenter')!;
    expect(Testing.synth(new ApplicationChart(Testing.app(), 'karpenter', { app }))).toMatchSnapshot();
  });

  it('writes the wave annotation, resources finalizer and a manual-only sync for the smoke tests', () => {
    const app = clusterApplications(platform, aCluster()).find((a) => a.file === 'karpenter-smoke-tests')!;
    const [application] = Testing.synth(new ApplicationChart(Testing.app(), 'smoke', { app })) as any[];
    expect(application.metadata.annotations['argocd.argoproj.io/sync-wave']).toBe('2');
    expect(application.metadata.finalizers).toEqual(['resources-finalizer.argocd.argoproj.io']);
    expect(application.spec.syncPolicy).not.toHaveProperty('automated');
  });
});

describe('SmokeTestChart', () => {
  const pool = aPool({ taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] }, { name: 'ml-gpu', team: 'ml' });
  const [deployment] = Testing.synth(new SmokeTestChart(Testing.app(), 'ml-gpu', { test: smokeTestModel(pool), namespace: 'karpenter-smoke-tests' })) as Manifest[];

  it('renders the Deployment', () => {
    expect(deployment).toMatchSnapshot();
  });

  it('meets the restricted Pod Security profile', () => {
    const pod = deployment.spec.template.spec;
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.hostNetwork ?? false).toBe(false);
    for (const c of pod.containers) {
      expect(c.securityContext).toMatchObject({
        allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(c.securityContext.runAsUser).not.toBe(0);
    }
  });

  it('selects exactly its pool', () => {
    expect(deployment.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms)
      .toEqual([{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'In', values: ['ml-gpu'] }] }]);
  });
});

describe('SmokeTestNamespaceChart', () => {
  it('enforces the restricted Pod Security profile', () => {
    const [ns] = Testing.synth(new SmokeTestNamespaceChart(Testing.app(), 'ns', { namespace: 'karpenter-smoke-tests' })) as Manifest[];
    expect(ns.metadata.labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    expect(ns).toMatchSnapshot();
  });
});

describe('ArgoCdHealthChart', () => {
  it('renders the argocd-cm patch with the Application health check', () => {
    expect(Testing.synth(new ArgoCdHealthChart(Testing.app(), 'cm', { namespace: 'argocd' }))).toMatchSnapshot();
  });
});
