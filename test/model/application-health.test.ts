/**
 * The Application health check, run under a real Lua 5.1 interpreter (Argo CD runs it with
 * gopher-lua, Lua 5.1 semantics), against Application objects in each state of a fleet's life.
 */
import { APPLICATION_HEALTH_LUA } from '../../src/model/application-health';
import { runLua } from '../support/lua';

const SOURCE = { repoURL: 'public.ecr.aws/karpenter', chart: 'karpenter-crd', targetRevision: '1.14.1' };

/** An automated child Application whose last comparison and sync were for `source`, healthy; overrides merged shallowly into status. */
function anApplication(status: Record<string, unknown> | null, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'demo-karpenter-crd', namespace: 'argocd' },
    spec: { source: SOURCE, syncPolicy: { automated: { enabled: true, prune: false, selfHeal: true } }, ...spec },
    ...(status === null ? {} : {
      status: {
        sync: { status: 'Synced', comparedTo: { source: SOURCE, destination: { server: 'https://kubernetes.default.svc', namespace: 'kube-system' } } },
        health: { status: 'Healthy' },
        operationState: { phase: 'Succeeded', message: 'successfully synced (all tasks run)' },
        ...status,
      },
    }),
  };
}

const health = (app: unknown) => runLua(APPLICATION_HEALTH_LUA, app) as { status: string; message: string };

describe('the argoproj.io/Application health check', () => {
  it('is Healthy when the child compared this spec, synced it and is healthy', () => {
    expect(health(anApplication({}))).toEqual({ status: 'Healthy', message: '' });
  });

  it('is Progressing on first install, before Argo CD has any status for the child', () => {
    expect(health(anApplication(null))).toEqual({ status: 'Progressing', message: 'waiting for the first comparison' });
  });

  it('is Progressing right after the root changed the child\'s chart version (its status still describes the old one)', () => {
    const upgraded = anApplication({}, { source: { ...SOURCE, targetRevision: '1.15.0' } });
    expect(health(upgraded)).toEqual({ status: 'Progressing', message: 'waiting for Argo CD to compare the new spec' });
  });

  it('is Progressing while an upgrade is OutOfSync, though the old version is still Healthy', () => {
    const app = anApplication({ sync: { status: 'OutOfSync', comparedTo: { source: SOURCE } } });
    expect(health(app)).toEqual({
      status: 'Progressing',
      message: 'sync status OutOfSync: waiting for automated sync (a pending Prune=confirm or Delete=confirm waits for a person)',
    });
  });

  it('is Progressing while the sync operation runs', () => {
    expect(health(anApplication({ operationState: { phase: 'Running', message: 'waiting for healthy state' } })))
      .toEqual({ status: 'Progressing', message: 'sync Running' });
  });

  it('is Degraded when the last sync failed, so the wave fails instead of waiting forever', () => {
    expect(health(anApplication({ operationState: { phase: 'Failed', message: 'one or more objects failed to apply' } })))
      .toEqual({ status: 'Degraded', message: 'last sync Failed: one or more objects failed to apply' });
    expect(health(anApplication({ operationState: { phase: 'Error', message: 'ComparisonError' } })).status).toBe('Degraded');
  });

  it('reports Argo CD\'s own health once synced (a Progressing controller Deployment holds the next wave)', () => {
    expect(health(anApplication({ health: { status: 'Progressing', message: 'Waiting for rollout' } })))
      .toEqual({ status: 'Progressing', message: 'Waiting for rollout' });
  });

  it('compares multi-source Applications by their sources', () => {
    const sources = [{ ...SOURCE, chart: 'karpenter' }, { repoURL: 'https://github.com/acme/gitops.git', targetRevision: 'main', ref: 'values' }];
    const synced = anApplication({ sync: { status: 'Synced', comparedTo: { sources } } }, { source: undefined, sources });
    expect(health(synced).status).toBe('Healthy');
    const bumped = anApplication({ sync: { status: 'Synced', comparedTo: { sources } } }, { source: undefined, sources: [{ ...sources[0], targetRevision: '1.15.0' }, sources[1]] });
    expect(health(bumped).status).toBe('Progressing');
  });

  it('never blocks on a manually synced Application (the smoke tests), whatever its state', () => {
    const manual = { syncPolicy: { retry: { limit: 1 } } };
    expect(health(anApplication(null, manual))).toEqual({ status: 'Healthy', message: 'manual sync: not waited for' });
    expect(health(anApplication({ sync: { status: 'OutOfSync' }, health: { status: 'Missing' } }, manual)).status).toBe('Healthy');
    expect(health(anApplication(null, { syncPolicy: { automated: { enabled: false } } })).status).toBe('Healthy');
  });

  it('treats an automated policy without `enabled` (Argo CD before 3.1) as automated', () => {
    expect(health(anApplication({ sync: { status: 'OutOfSync', comparedTo: { source: SOURCE } } }, { syncPolicy: { automated: { prune: true } } })).status).toBe('Progressing');
  });

  it('does not fail on an Application without spec', () => {
    expect(health({ kind: 'Application', metadata: { name: 'x' } })).toEqual({ status: 'Healthy', message: 'manual sync: not waited for' });
  });
});
