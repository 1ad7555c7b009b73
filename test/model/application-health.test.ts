/**
 * The Application health check against statuses written the way Argo CD 3.5.1 serializes its Go
 * types (test/support/argocd-status.ts, transcribed from types.go and controller/state.go), for
 * the Applications synth really generates: the multi-source controller Application, the
 * single-source pool and root Applications and the directory bootstrap. Every case runs under
 * fengari narrowed to Lua 5.1, and under Debian's lua5.1 where it is on PATH.
 */
import { Testing } from 'cdk8s';
import { ApplicationChart } from '../../src/charts/application-chart';
import { APPLICATION_HEALTH_LUA } from '../../src/model/application-health';
import { ApplicationModel, bootstrapApplication, clusterApplications, rootApplication } from '../../src/model/applications';
import { staged, stagedRoot } from '../../src/model/stages';
import { aCluster, aKarpenter, aPlatform, aPool } from '../pool-builders';
import { LiveApplication, StatusOptions, anApplicationStatus, goJson } from '../support/argocd-status';
import { LUA_RUNTIMES, LuaRuntime, assertLua51 } from '../support/lua';

type Application = LiveApplication & { spec: NonNullable<LiveApplication['spec']> & { sources?: Record<string, unknown>[]; source?: Record<string, unknown> } };

/** `app` rendered as synth renders it. */
function render(app: ApplicationModel): Application {
  const [application] = Testing.synth(new ApplicationChart(Testing.app(), app.file, { app })) as Application[];
  return application;
}

// A fleet of two clusters on two Karpenter releases.
const dev = aCluster([aPool({}, { name: 'web', team: 'web' })], { id: 'dev', karpenter: aKarpenter({ version: '1.14.1' }) });
const prod = aCluster([aPool({}, { name: 'web', team: 'web' })], { id: 'prod', karpenter: aKarpenter({ version: '1.13.1' }) });
const platform = aPlatform([dev, prod]);
const byName = (name: string) => {
  const app = [...clusterApplications(platform, dev), ...clusterApplications(platform, prod)].find((a) => a.name === name);
  if (!app) throw new Error(`no Application ${name}`);
  return render(app);
};

const APPS = {
  'multi-source (the controller chart and $values)': byName('prod-karpenter'),
  'single-source (a team\'s pools)': byName('dev-pools-web'),
  'single-source (a cluster\'s root)': render(rootApplication(platform, dev)),
  'directory (the bootstrap, with include)': render(bootstrapApplication(platform)),
};

/** `app` with the status Argo CD writes for `options`. */
const withStatus = (app: Application, options: StatusOptions = {}) => ({ ...app, status: anApplicationStatus(app, options) });

/** `app` after the root changed its spec: a new chart version, target revision or include. */
function changed(app: Application): Application {
  const spec = structuredClone(app.spec);
  if (spec.sources) spec.sources[0] = { ...spec.sources[0], targetRevision: '1.15.0' };
  else if ((spec.source?.directory as { include?: string } | undefined)?.include) spec.source = { ...spec.source, directory: { include: '{dev.yaml}' } };
  else spec.source = { ...spec.source, targetRevision: 'release-2' };
  return { ...app, spec };
}

describe('statuses as Argo CD 3.5.1 writes them (the test fixtures)', () => {
  it('match Argo CD\'s own test data for an empty status (cmd/argocd/commands/admin/backup_test.go l. 222-231)', () => {
    expect(goJson({ struct: 'ApplicationStatus' }, {})).toEqual({
      health: {}, sourceHydrator: {}, summary: {},
      sync: { comparedTo: { destination: {}, source: { repoURL: '' } }, status: '' },
    });
  });

  it('keep comparedTo.source as a zero struct for a multi-source Application', () => {
    const status = anApplicationStatus(APPS['multi-source (the controller chart and $values)']) as { sync: { comparedTo: Record<string, unknown> } };
    expect(status.sync.comparedTo.source).toEqual({ repoURL: '' });
    expect(status.sync.comparedTo.sources).toHaveLength(2);
  });

  it('drop empty omitempty fields and a zero directory.jsonnet (omitzero)', () => {
    const spec = { source: { repoURL: 'r', path: '', directory: { recurse: false, jsonnet: {}, include: '*.yaml' }, helm: undefined }, destination: {} };
    expect(anApplicationStatus({ spec })).toMatchObject({ sync: { comparedTo: { source: { repoURL: 'r', directory: { include: '*.yaml' } } } } });
  });

  it('read as the fleet\'s controller Application synced and healthy', () => {
    expect(withStatus(APPS['multi-source (the controller chart and $values)']).status).toMatchSnapshot();
  });
});

describe.each(LUA_RUNTIMES.map((runtime) => [runtime.name, runtime] as [string, LuaRuntime]))('the argoproj.io/Application health check under %s', (_name, lua) => {
  const health = (app: unknown) => lua.run(APPLICATION_HEALTH_LUA, app) as { status: string; message: string };

  describe.each(Object.entries(APPS))('for a %s Application', (_kind, app) => {
    it('is Healthy when Argo CD compared this spec, synced it and found it healthy', () => {
      expect(health(withStatus(app))).toEqual({ status: 'Healthy', message: 'synced and healthy' });
    });

    it('is Progressing while its status was computed for the spec before the root changed it', () => {
      expect(health({ ...changed(app), status: anApplicationStatus(app) }))
        .toEqual({ status: 'Progressing', message: 'waiting for Argo CD to compare the new spec' });
    });

    it('is Healthy again once Argo CD compared and synced the changed spec', () => {
      expect(health(withStatus(changed(app))).status).toBe('Healthy');
    });

    it('is Progressing mid-sync, and while OutOfSync', () => {
      expect(health(withStatus(app, { operation: { phase: 'Running', message: 'waiting for healthy state of apps/Deployment/karpenter' } })))
        .toEqual({ status: 'Progressing', message: 'sync Running' });
      expect(health(withStatus(app, { sync: 'OutOfSync' }))).toEqual({
        status: 'Progressing',
        message: 'sync status OutOfSync: waiting for automated sync (a pending Prune=confirm or Delete=confirm waits for a person)',
      });
    });

    it('is Degraded when the last sync failed or errored and left it out of sync, so the wave fails instead of waiting forever', () => {
      expect(health(withStatus(app, { sync: 'OutOfSync', operation: { phase: 'Failed', message: 'one or more objects failed to apply' } })))
        .toEqual({ status: 'Degraded', message: 'last sync Failed: one or more objects failed to apply' });
      expect(health(withStatus(app, { sync: 'OutOfSync', operation: { phase: 'Error', message: 'rpc error' } })).status).toBe('Degraded');
    });

    it('forgets a failed sync once the Application is Synced again without a new operation (fixed by hand or in the cluster)', () => {
      expect(health(withStatus(app, { operation: { phase: 'Failed', message: 'one or more objects failed to apply' } })))
        .toEqual({ status: 'Healthy', message: 'synced and healthy' });
      expect(health(withStatus(app, { operation: { phase: 'Error', message: 'rpc error' }, health: 'Progressing' })).status).toBe('Progressing');
    });

    it('reports Argo CD\'s own health once synced (a Progressing controller Deployment holds the next wave)', () => {
      expect(health(withStatus(app, { health: 'Progressing' }))).toEqual({ status: 'Progressing', message: 'Argo CD reports the resources Progressing' });
      expect(health(withStatus(app, { health: 'Degraded' }))).toEqual({ status: 'Degraded', message: 'Argo CD reports the resources Degraded' });
    });
  });

  const multi = APPS['multi-source (the controller chart and $values)'];
  const single = APPS['single-source (a team\'s pools)'];

  it('is Progressing on first install: no status, or the status Argo CD writes before its first comparison', () => {
    expect(health({ ...multi, status: undefined })).toEqual({ status: 'Progressing', message: 'waiting for the first comparison' });
    const initial = goJson({ struct: 'ApplicationStatus' }, { sync: { status: 'Unknown' } });
    expect(health({ ...multi, status: initial })).toEqual({ status: 'Progressing', message: 'waiting for the first comparison' });
  });

  it('is Progressing when a spec moved between source and sources but the status has not', () => {
    const { sources, ...rest } = multi.spec;
    const asSingle = { ...multi, spec: { ...rest, source: sources![0] } };
    expect(health({ ...asSingle, status: anApplicationStatus(multi) }).status).toBe('Progressing');
    expect(health({ ...multi, status: anApplicationStatus(asSingle) }).status).toBe('Progressing');
  });

  it('is Progressing when the destination changed and the status still has the old one', () => {
    const moved = { ...single, spec: { ...single.spec, destination: { server: 'https://prod.example', namespace: 'kube-system' } } };
    expect(health({ ...moved, status: anApplicationStatus(single) }).status).toBe('Progressing');
  });

  it('names the error condition while a child waits (a ComparisonError keeps it Progressing, not Healthy)', () => {
    const app = withStatus(multi, { sync: 'Unknown', conditions: [{ type: 'ComparisonError', message: 'failed to load target state: chart not found' }] });
    expect(health(app)).toEqual({ status: 'Progressing', message: 'sync status Unknown: ComparisonError: failed to load target state: chart not found' });
  });

  describe('a child that waits on its window or its stage (the annotation karpenter-gitops.io/waits-for)', () => {
    // prod: stage 2 with a Berlin window; dev: stage 1. The Applications as synth writes them.
    const weeknights = { name: 'weeknights', timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu'] as const, start: '22:00', duration: '6h' };
    const sDev = aCluster([aPool({}, { name: 'web', team: 'web' })], { id: 'dev', stage: 1 });
    const sProd = aCluster([aPool({}, { name: 'web', team: 'web' })], { id: 'prod', stage: 2, window: { ...weeknights, days: [...weeknights.days] } });
    const fleet = aPlatform([sDev, sProd]);
    const pools = render(clusterApplications(fleet, sProd).map((a) => staged(fleet, sProd, a)).find((a) => a.name === 'prod-pools-web')!);
    const root = render(stagedRoot(fleet, sProd, rootApplication(fleet, sProd)));
    const devPools = render(clusterApplications(fleet, sDev).map((a) => staged(fleet, sDev, a)).find((a) => a.name === 'dev-pools-web')!);

    it('keeps a root healthy while a windowed pools Application is OutOfSync, held by its window', () => {
      expect(health(withStatus(pools, { sync: 'OutOfSync' }))).toEqual({
        status: 'Healthy', message: 'sync status OutOfSync: waits for its sync window weeknights (mon 21:00-tue 02:00, tue 21:00-wed 02:00, wed 21:00-thu 02:00, thu 21:00-fri 02:00 UTC)',
      });
      // The same Application without a window waits as before.
      expect(health(withStatus(devPools, { sync: 'OutOfSync' })).status).toBe('Progressing');
    });

    it('keeps the bootstrap healthy while a stage-2 root cannot resolve its stage ref, and says so', () => {
      const missing = { sync: 'Unknown' as const, conditions: [{ type: 'ComparisonError', message: "failed to resolve revision: unable to resolve 'karpenter-gitops/stage-2' to a commit SHA" }] };
      expect(health({ ...root, status: { conditions: missing.conditions } })).toEqual({
        status: 'Healthy', message: "waits for its stage ref karpenter-gitops/stage-2 (moved by npm run promote once stage 1 is done): ComparisonError: failed to resolve revision: unable to resolve 'karpenter-gitops/stage-2' to a commit SHA",
      });
      expect(health(withStatus(root, missing))).toMatchObject({ status: 'Healthy', message: expect.stringMatching(/^sync status Unknown: waits for its stage ref karpenter-gitops\/stage-2 .*; ComparisonError: /) });
    });

    it('still reports a sync that runs, a failed sync and Argo CD\'s own health of a waiting child', () => {
      expect(health(withStatus(pools, { operation: { phase: 'Running', message: 'one or more tasks are running' } })).status).toBe('Progressing');
      expect(health(withStatus(pools, { sync: 'OutOfSync', operation: { phase: 'Failed', message: 'boom' } })).status).toBe('Degraded');
      expect(health(withStatus(pools, { health: 'Degraded' })).status).toBe('Degraded');
    });
  });

  it('reads a status written by an Argo CD before omitzero (directory.jsonnet kept as {}) the same way', () => {
    const app = APPS['directory (the bootstrap, with include)'];
    const status = anApplicationStatus(app) as { sync: { comparedTo: { source: { directory: Record<string, unknown> } } } };
    status.sync.comparedTo.source.directory.jsonnet = {};
    expect(health({ ...app, status }).status).toBe('Healthy');
  });

  it('never blocks on a manually synced Application (the smoke tests), whatever its state', () => {
    const smoke = byName('dev-karpenter-smoke-tests');
    expect(smoke.spec.syncPolicy).not.toHaveProperty('automated');
    expect(health({ ...smoke, status: undefined })).toEqual({ status: 'Healthy', message: 'manual sync: not waited for' });
    expect(health(withStatus(smoke, { sync: 'OutOfSync', health: 'Missing' })).status).toBe('Healthy');
    expect(health(withStatus({ ...single, spec: { ...single.spec, syncPolicy: { automated: { enabled: false } } } }, { sync: 'OutOfSync' })).status).toBe('Healthy');
  });

  it('treats an automated policy without `enabled` (Argo CD before 3.1) as automated', () => {
    const old = { ...single, spec: { ...single.spec, syncPolicy: { automated: { prune: true } } } };
    expect(health(withStatus(old, { sync: 'OutOfSync' })).status).toBe('Progressing');
  });

  it('does not fail on an Application without spec', () => {
    expect(health({ kind: 'Application', metadata: { name: 'x' } })).toEqual({ status: 'Healthy', message: 'manual sync: not waited for' });
  });
});

describe('the health check script', () => {
  it('is Lua 5.1, as Argo CD (gopher-lua) runs it', () => {
    expect(() => assertLua51(APPLICATION_HEALTH_LUA)).not.toThrow();
  });
});
