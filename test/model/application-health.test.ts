/**
 * The Application health check against statuses written the way Argo CD 3.5.1 serializes its Go
 * types (test/support/argocd-status.ts, transcribed from types.go and controller/state.go), for
 * the Applications synth really generates: the multi-source controller Application, the
 * single-source pool and root Applications and the directory bootstrap. Every case runs the script
 * the argocd-cm patch holds, with the libraries its `useOpenLibs` key gives it (as Argo CD reads
 * the key), under fengari narrowed to Lua 5.1, and under Debian's lua5.1 where it is on PATH.
 */
import { Testing } from 'cdk8s';
import { parse } from 'luaparse';
import { ApplicationChart } from '../../src/charts/application-chart';
import { ArgoCdHealthChart } from '../../src/charts/argocd-health-chart';
import { APPLICATION_HEALTH_LUA } from '../../src/model/application-health';
import { ApplicationModel, bootstrapApplication, clusterApplications, rootApplication } from '../../src/model/applications';
import { staged, stagedRoot } from '../../src/model/stages';
import { aCluster, aKarpenter, aPlatform, aPool } from '../pool-builders';
import { CONDITIONS, LiveApplication, StatusOptions, anApplicationStatus, goJson, pruningConfirmation } from '../support/argocd-status';
import { LUA_RUNTIMES, LuaRuntime, assertLua51, useOpenLibs } from '../support/lua';

type Application = LiveApplication & { spec: NonNullable<LiveApplication['spec']> & { sources?: Record<string, unknown>[]; source?: Record<string, unknown> } };

/** The `argocd-cm` patch synth writes: its data. */
const ARGOCD_CM = (Testing.synth(new ArgoCdHealthChart(Testing.app(), 'argocd-cm', { namespace: 'argocd' }))[0] as { data: Record<string, string> }).data;
/** The Application check as Argo CD runs it: the patch's script, and the libraries its useOpenLibs key opens (util/settings/settings.go v3.5.1 l. 1167-1175). */
const CHECK = {
  script: ARGOCD_CM['resource.customizations.health.argoproj.io_Application'],
  openLibs: useOpenLibs(ARGOCD_CM['resource.customizations.useOpenLibs.argoproj.io_Application']),
};

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

  it('write conditions as ApplicationCondition: type and message always, the reconcile\'s time when none is given', () => {
    const status = anApplicationStatus(APPS['single-source (a team\'s pools)'], { sync: 'Unknown', conditions: [{ type: 'UnknownError', message: '' }, CONDITIONS.missingProject('karpenter')] });
    expect((status as { conditions: unknown }).conditions).toEqual([
      { type: 'UnknownError', message: '', lastTransitionTime: '2026-11-20T10:00:42Z' },
      { type: 'InvalidSpecError', message: 'Application referencing project karpenter which does not exist', lastTransitionTime: '2026-11-20T10:00:42Z' },
    ]);
  });

  it('read as the fleet\'s controller Application synced and healthy', () => {
    expect(withStatus(APPS['multi-source (the controller chart and $values)']).status).toMatchSnapshot();
  });
});

describe.each(LUA_RUNTIMES.map((runtime) => [runtime.name, runtime] as [string, LuaRuntime]))('the argoproj.io/Application health check under %s', (_name, lua) => {
  const health = (app: unknown) => lua.run(CHECK.script, app, { openLibs: CHECK.openLibs }) as { status: string; message: string };

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
        message: 'sync status OutOfSync: waiting for automated sync (lasting: a sync window holds it)',
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

  describe('an error condition: Degraded, so a parent\'s wave fails instead of waiting for ever', () => {
    // What Argo CD writes when a source cannot be rendered: sync Unknown, the ComparisonError, no operation yet (state.go l. 698, l. 1034-1035).
    const broken = (app: Application, condition = CONDITIONS.missingPath('dist/prod/nodepools/web')) => withStatus(app, { sync: 'Unknown', operation: null, conditions: [condition] });

    it.each(Object.entries(APPS))('for a %s Application, whatever the error condition (a warning is no error; conditions of the spec before are stale)', (_kind, app) => {
      const missing = CONDITIONS.missingPath('dist/prod/nodepools/web');
      expect(health(broken(app))).toEqual({ status: 'Degraded', message: `sync status Unknown: ComparisonError: ${missing.message}` });
      expect(health(withStatus(app, { sync: 'OutOfSync', conditions: [CONDITIONS.wouldWipeOut('a1b2c3d4e5f60718293a4b5c6d7e8f9012345678')] })))
        .toEqual({ status: 'Degraded', message: 'sync status OutOfSync: SyncError: Skipping sync attempt to [a1b2c3d4e5f60718293a4b5c6d7e8f9012345678]: auto-sync will wipe out all resources' });
      for (const type of ['DeletionError', 'UnknownError', 'InvalidSpecError']) expect(health(broken(app, { type, message: 'x' })).status).toBe('Degraded');
      expect(health(withStatus(app, { conditions: [{ type: 'OrphanedResourceWarning', message: 'Application has 1 orphaned resources' }] }))).toEqual({ status: 'Healthy', message: 'synced and healthy' });
      // Conditions written for the spec before the root changed it say nothing of the new one.
      expect(health({ ...changed(app), status: broken(app).status })).toEqual({ status: 'Progressing', message: 'waiting for Argo CD to compare the new spec' });
    });

    it('before its first comparison too: an InvalidSpecError leaves comparedTo unwritten (appcontroller.go l. 1866-1871)', () => {
      const initial = goJson({ struct: 'ApplicationStatus' }, { sync: { status: 'Unknown' }, health: { status: 'Unknown' }, conditions: [{ ...CONDITIONS.missingProject('karpenter'), lastTransitionTime: '2026-11-20T10:00:42Z' }] });
      expect(health({ ...single, status: initial })).toEqual({ status: 'Degraded', message: 'InvalidSpecError: Application referencing project karpenter which does not exist' });
    });

    it('is Degraded at once when the root changed its spec to one Argo CD refuses: an InvalidSpecError stops the comparison (appcontroller.go l. 1866-1881)', () => {
      const refused = { ...changed(single), status: withStatus(single, { sync: 'Unknown', conditions: [CONDITIONS.missingProject('karpenter')] }).status };
      expect(health(refused)).toEqual({ status: 'Degraded', message: 'sync status Unknown: InvalidSpecError: Application referencing project karpenter which does not exist' });
    });

    it('names every error condition', () => {
      const second = CONDITIONS.notPermitted('a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', 'karpenter.sh', 'NodePool', 'karpenter');
      expect(health(withStatus(single, { sync: 'Unknown', conditions: [CONDITIONS.missingPath('dist/prod/nodepools/web'), second] })).message)
        .toBe(`sync status Unknown: ComparisonError: ${CONDITIONS.missingPath('dist/prod/nodepools/web').message}; SyncError: ${second.message}`);
    });

    it('is Degraded while its sync waits for a person to confirm a prune (gitops-engine keeps it Running)', () => {
      const operation = pruningConfirmation([{ group: 'karpenter.sh', kind: 'NodePool', name: 'web' }, { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'web' }]);
      expect(health(withStatus(single, { sync: 'OutOfSync', operation }))).toEqual({
        status: 'Degraded',
        message: 'sync Running: waiting for pruning confirmation of karpenter.sh/NodePool/web and 1 more resources: a person confirms it (argocd app confirm-deletion dev-pools-web, or Confirm Pruning in the UI)',
      });
    });
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

    // The root of a stage-2 cluster before the first promotion, as Argo CD 3.5.1 writes it: sync Unknown at the ref asked for, no operation.
    const unresolved = CONDITIONS.unresolvedRef('karpenter-gitops/stage-2');
    const beforePromotion = (app: Application, conditions = [unresolved]) => withStatus(app, { sync: 'Unknown', revision: 'karpenter-gitops/stage-2', operation: null, conditions });

    it('keeps the bootstrap healthy while a stage-2 root cannot resolve its stage ref, and says so', () => {
      expect(health({ ...root, status: { conditions: [unresolved] } })).toEqual({
        status: 'Healthy', message: `waits for its stage ref karpenter-gitops/stage-2 (moved by npm run promote once stage 1 is done): ComparisonError: ${unresolved.message}`,
      });
      expect(health(beforePromotion(root))).toEqual({
        status: 'Healthy', message: `sync status Unknown: waits for its stage ref karpenter-gitops/stage-2 (moved by npm run promote once stage 1 is done); ComparisonError: ${unresolved.message}`,
      });
    });

    it('keeps a stage-2 root healthy while its stage ref does not hold its folder yet (a cluster added to the stage), and says so', () => {
      expect(root.spec.source?.path).toBe('dist/prod/apps');
      expect(health(beforePromotion(root, [CONDITIONS.missingPath('dist/prod/apps')]))).toMatchObject({
        status: 'Healthy', message: expect.stringMatching(/^sync status Unknown: waits for its stage ref karpenter-gitops\/stage-2 .*dist\/prod\/apps: app path does not exist$/),
      });
    });

    it('is Degraded on any other error of a stage-2 root: another folder missing, another ref, a second error', () => {
      expect(health(beforePromotion(root, [CONDITIONS.missingPath('dist/prod/nodepools')]))).toMatchObject({ status: 'Degraded', message: expect.stringMatching(/^sync status Unknown: ComparisonError: .*dist\/prod\/nodepools: app path does not exist$/) });
      expect(health(beforePromotion(root, [CONDITIONS.unresolvedRef('karpenter-gitops/stage-3')])).status).toBe('Degraded');
      expect(health(beforePromotion(root, [unresolved, CONDITIONS.wouldWipeOut('karpenter-gitops/stage-2')])).status).toBe('Degraded');
      // Its annotation names the ref it waits for; the same error on an Application that does not track that ref is an error.
      const elsewhere = { ...root, spec: { ...root.spec, source: { ...root.spec.source, targetRevision: 'main' } } };
      expect(health(beforePromotion(elsewhere)).status).toBe('Degraded');
    });

    it('is Degraded when a windowed child cannot resolve its ref: it waits for its window, not for a stage ref', () => {
      const stagedWindowed = render(clusterApplications(fleet, sProd).map((a) => staged(fleet, sProd, a)).find((a) => a.name === 'prod-pools-web')!);
      expect(stagedWindowed.spec.source?.targetRevision).toBe('karpenter-gitops/stage-2');
      expect(health(beforePromotion(stagedWindowed))).toMatchObject({ status: 'Degraded', message: `sync status Unknown: ComparisonError: ${unresolved.message}` });
    });

    it('is Degraded, not Healthy, when a child waiting on its window cannot be rendered or its sync is refused', () => {
      expect(health(withStatus(pools, { sync: 'Unknown', operation: null, conditions: [CONDITIONS.missingPath('dist/prod/nodepools/web')] })))
        .toMatchObject({ status: 'Degraded', message: expect.stringMatching(/^sync status Unknown: ComparisonError: .* desc = dist\/prod\/nodepools\/web: app path does not exist$/) });
      expect(health(withStatus(pools, { sync: 'OutOfSync', conditions: [CONDITIONS.wouldWipeOut('a1b2c3d4e5f60718293a4b5c6d7e8f9012345678')] })).status).toBe('Degraded');
      const refused = CONDITIONS.notPermitted('a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', 'karpenter.sh', 'NodePool', 'prod-pools');
      expect(health(withStatus(pools, { sync: 'OutOfSync', operation: { phase: 'Failed', message: 'one or more synchronization tasks are not valid' }, conditions: [refused] })))
        .toEqual({ status: 'Degraded', message: `sync status OutOfSync: SyncError: ${refused.message}` });
      const operation = pruningConfirmation([{ group: 'karpenter.sh', kind: 'NodePool', name: 'batch' }]);
      expect(health(withStatus(pools, { sync: 'OutOfSync', operation }))).toMatchObject({ status: 'Degraded', message: expect.stringMatching(/^sync Running: waiting for pruning confirmation of karpenter\.sh\/NodePool\/batch: /) });
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

  it('is Degraded, naming the key, when Argo CD runs it without the standard libraries (argocd-cm patched without useOpenLibs)', () => {
    const sandboxed = (app: unknown) => lua.run(CHECK.script, app, { openLibs: false }) as { status: string; message: string };
    expect(sandboxed(withStatus(single))).toEqual({
      status: 'Degraded',
      message: 'resource.customizations.useOpenLibs.argoproj.io_Application is not "true" in argocd-cm: this check needs the string library (apply argocd/argocd-cm-patch.yaml)',
    });
    expect(sandboxed(withStatus(byName('dev-karpenter-smoke-tests'))).status).toBe('Healthy');
  });
});

describe('the health check script', () => {
  it('is Lua 5.1, as Argo CD (gopher-lua) runs it', () => {
    expect(() => assertLua51(APPLICATION_HEALTH_LUA)).not.toThrow();
  });

  it('gets the standard libraries from argocd-cm, and the Application check alone', () => {
    expect(CHECK).toEqual({ script: APPLICATION_HEALTH_LUA, openLibs: true });
    expect(Object.keys(ARGOCD_CM).filter((k) => k.startsWith('resource.customizations.useOpenLibs.'))).toEqual(['resource.customizations.useOpenLibs.argoproj.io_Application']);
  });

  // With the standard libraries the script could reach the controller's files and process (io, os, debug):
  // it must name nothing but these, and read messages only with plain string.find (no pattern from data).
  it('uses of the standard libraries only string.find (plain) and string.sub, and no other global', () => {
    const globals = new Set<string>();
    const stringFunctions = new Set<string>();
    const problems: string[] = [];
    type LuaNode = { type: string; [key: string]: unknown };
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (node === null || typeof node !== 'object' || typeof (node as LuaNode).type !== 'string') return;
      const n = node as LuaNode;
      if (n.type === 'Identifier' && n.isLocal !== true) globals.add(n.name as string);
      if (n.type === 'MemberExpression') {
        const base = n.base as LuaNode;
        if (n.indexer !== '.') problems.push(`a method call :${(n.identifier as LuaNode).name as string}`);
        if (base.type === 'Identifier' && base.name === 'string') stringFunctions.add((n.identifier as LuaNode).name as string);
        return visit(base);
      }
      if (n.type === 'CallExpression') {
        const base = n.base as LuaNode;
        const args = n.arguments as LuaNode[];
        const isFind = base.type === 'MemberExpression' && (base.base as LuaNode).name === 'string' && (base.identifier as LuaNode).name === 'find';
        if (isFind && !(args.length === 4 && args[3].type === 'BooleanLiteral' && args[3].value === true)) problems.push('string.find without plain = true');
      }
      if (n.type === 'TableKeyString') return visit(n.value);
      for (const [key, value] of Object.entries(n)) if (key !== 'type' && key !== 'loc' && key !== 'range') visit(value);
    };
    visit(parse(APPLICATION_HEALTH_LUA, { luaVersion: '5.1', scope: true }).body);
    expect(problems).toEqual([]);
    expect([...globals].sort()).toEqual(['ipairs', 'obj', 'pairs', 'string', 'table', 'type']);
    expect([...stringFunctions].sort()).toEqual(['find', 'sub']);
  });
});
