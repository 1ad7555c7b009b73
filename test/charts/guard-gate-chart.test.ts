import { Testing } from 'cdk8s';
import { GuardGateChart, GuardGateRbacChart } from '../../src/charts/guard-gate-chart';
import type { Cluster, Platform } from '../../src/config/platform';
import { guardGate, guardGateRbac } from '../../src/model/tenancy-guard';

const platform = { gitops: {} } as unknown as Platform;
const cluster = { id: 'prod', karpenter: { namespace: 'karpenter' } } as unknown as Cluster;
type Manifest = { kind: string; metadata: { name: string; annotations?: Record<string, string> }; spec: any };

describe('GuardGateChart', () => {
  // A short program keeps the snapshot small: the real one is src/gate/guard-main.ts, bundled.
  const [job] = Testing.synth(new GuardGateChart(Testing.app(), 'web', { gate: guardGate(platform, cluster, { team: 'web', digest: 'd1', parts: 1 }, 'program') })) as Manifest[];

  it('renders the hook Job', () => {
    expect(job).toMatchSnapshot();
  });

  it('is a PreSync hook that goes before its next run and once it passed, with a deadline', () => {
    expect(job.metadata.annotations).toEqual({ 'argocd.argoproj.io/hook': 'PreSync', 'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation,HookSucceeded' });
    expect(job.spec.activeDeadlineSeconds).toBe(600);
    expect(job.spec.ttlSecondsAfterFinished).toBeUndefined();
  });
});

describe('GuardGateRbacChart', () => {
  it('renders the ServiceAccount, ClusterRole and ClusterRoleBinding', () => {
    expect(Testing.synth(new GuardGateRbacChart(Testing.app(), 'rbac', { rbac: guardGateRbac(cluster) }))).toMatchSnapshot();
  });
});
