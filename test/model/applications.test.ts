import { ApplicationModel, bootstrapApplication, clusterApplications, projectModel, rootApplication } from '../../src/model/applications';
import { synthesize } from '../../src/synth';
import { aTerraform } from '../builders';
import { load } from '../config/helpers';
import { aCluster, aKarpenter, aPlatform, aPool } from '../pool-builders';
import { aFleetConfig } from '../review/fleet';
import { FleetSim } from '../support/fleet-sim';

const byFile = (apps: readonly ApplicationModel[], file: string) => {
  const app = apps.find((a) => a.file === file);
  if (!app) throw new Error(`no application ${file} (have ${apps.map((a) => a.file).join(', ')})`);
  return app;
};

/** Cluster demo with pools of teams web (two pools) and ml. */
const fleetCluster = (overrides: Parameters<typeof aCluster>[1] = {}) => aCluster([
  aPool({}, { name: 'web', team: 'web' }), aPool({}, { name: 'web-batch', team: 'web' }), aPool({}, { name: 'ml-gpu', team: 'ml' }),
], overrides);

describe('clusterApplications', () => {
  const apps = clusterApplications(aPlatform([], 'platform'), fleetCluster());

  it('orders the waves CRDs < controller < one pools Application per team, the smoke tests and the drift gate in the last wave', () => {
    expect(apps.map((a) => [a.file, a.wave])).toEqual([
      ['karpenter-crd', 0], ['karpenter', 1], ['pools-web', 2], ['pools-ml', 2], ['karpenter-smoke-tests', 2],
    ]);
  });

  it('installs the CRD chart of the cluster\'s version from the OCI registry, server-side, never pruned', () => {
    const staged = clusterApplications(aPlatform(), fleetCluster({ karpenter: aKarpenter({ version: '1.15.0' }) }));
    expect(byFile(staged, 'karpenter-crd')).toMatchObject({
      name: 'demo-karpenter-crd',
      sources: [{ repoURL: 'public.ecr.aws/karpenter', chart: 'karpenter-crd', targetRevision: '1.15.0' }],
      automated: true, prune: false, syncOptions: ['ServerSideApply=true'], finalizer: true,
    });
    expect(byFile(staged, 'karpenter').sources[0]).toMatchObject({ chart: 'karpenter', targetRevision: '1.15.0' });
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
    const own = clusterApplications(aPlatform(), fleetCluster({ karpenter: aKarpenter({ namespace: 'karpenter' }) }));
    expect(byFile(own, 'karpenter').syncOptions).toEqual(['CreateNamespace=true']);
    expect(byFile(own, 'karpenter-crd').syncOptions).toEqual(['ServerSideApply=true', 'CreateNamespace=true']);
  });

  it('syncs each team\'s pools folder with its own Application: automated, prune, self-heal, retry, finalizer', () => {
    expect(byFile(apps, 'pools-web')).toMatchObject({
      name: 'demo-pools-web', sources: [{ path: 'dist/demo/nodepools/web' }], automated: true, prune: true, retry: true, finalizer: true,
    });
    expect(byFile(apps, 'pools-ml')).toMatchObject({ name: 'demo-pools-ml', sources: [{ path: 'dist/demo/nodepools/ml' }] });
  });

  it('keeps the pools Application of earlier releases orphaned when asked: no finalizer, no automated sync, no prune', () => {
    const migrating = clusterApplications(aPlatform(), fleetCluster({ legacyNodepoolsApp: true }));
    expect(byFile(migrating, 'karpenter-nodepools')).toMatchObject({
      name: 'demo-karpenter-nodepools', sources: [{ path: 'dist/demo/nodepools' }], wave: 2,
      automated: false, prune: false, finalizer: false,
    });
    expect(apps.map((a) => a.file)).not.toContain('karpenter-nodepools');
  });

  it('never auto-syncs the smoke tests, and leaves them out when the cluster turns them off', () => {
    expect(byFile(apps, 'karpenter-smoke-tests')).toMatchObject({ sources: [{ path: 'dist/demo/smoke-tests' }], automated: false });
    expect(clusterApplications(aPlatform(), fleetCluster({ smokeTests: false })).map((a) => a.file)).not.toContain('karpenter-smoke-tests');
  });

  it('deploys to the cluster destination by name, in the project of gitops', () => {
    const named = clusterApplications(aPlatform([], 'platform'), fleetCluster({ destination: { name: 'prod-eu' } }));
    for (const app of named) {
      expect(app.destination).toMatchObject({ name: 'prod-eu' });
      expect(app.project).toBe('platform');
      expect(app.namespace).toBe('argocd');
    }
  });

  it('names every Application after its cluster, so clusters never clash in one Argo CD', () => {
    const names = ['eu', 'us'].flatMap((id) => {
      const cluster = fleetCluster({ id });
      return [...clusterApplications(aPlatform(), cluster), rootApplication(aPlatform(), cluster)].map((a) => a.name);
    });
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((n) => n.startsWith('eu-'))).toEqual(['eu-karpenter-crd', 'eu-karpenter', 'eu-pools-web', 'eu-pools-ml', 'eu-karpenter-smoke-tests', 'eu-karpenter-root']);
  });
});

describe('rootApplication', () => {
  it('syncs dist/<cluster>/apps into Argo CD own namespace', () => {
    expect(rootApplication(aPlatform(), fleetCluster({ destination: { name: 'prod-eu' } }))).toMatchObject({
      file: 'demo', name: 'demo-karpenter-root',
      sources: [{ path: 'dist/demo/apps', targetRevision: 'main' }],
      destination: { server: 'https://kubernetes.default.svc', namespace: 'argocd' },
      automated: true, prune: true, finalizer: true,
    });
  });
});

describe('bootstrapApplication', () => {
  it('syncs every root, the Helm repository and the project of a two-cluster fleet, from the default project', () => {
    const platform = aPlatform([fleetCluster({ id: 'prod' }), fleetCluster({ id: 'staging' })], 'karpenter');
    expect(bootstrapApplication(platform)).toMatchObject({
      file: 'bootstrap', name: 'karpenter-gitops-bootstrap', project: 'default',
      sources: [{ path: 'argocd', include: '{helm-repository.yaml,prod.yaml,project.yaml,staging.yaml}' }],
      destination: { server: 'https://kubernetes.default.svc', namespace: 'argocd' },
      automated: true, prune: true, finalizer: false,
    });
  });

  it('leaves the project out when the Applications use the default project', () => {
    expect(bootstrapApplication(aPlatform([fleetCluster()])).sources[0]).toMatchObject({ include: '{demo.yaml,helm-repository.yaml}' });
  });
});

describe('projectModel', () => {
  it('is only written for a project other than default', () => {
    expect(projectModel(aPlatform([fleetCluster()]))).toBeUndefined();
  });

  it('allows exactly the git repository, the chart registry and each cluster\'s destinations and namespaces', () => {
    const platform = aPlatform([
      fleetCluster({ id: 'prod', destination: { name: 'prod' }, karpenter: aKarpenter({ namespace: 'karpenter' }) }),
      fleetCluster({ id: 'staging', destination: { server: 'https://staging.example.com' }, smokeTests: false }),
    ], 'karpenter');
    expect(projectModel(platform)).toMatchObject({
      name: 'karpenter', namespace: 'argocd',
      sourceRepos: ['https://github.com/acme/platform-gitops.git', 'public.ecr.aws/karpenter'],
      destinations: [
        { server: 'https://kubernetes.default.svc', namespace: 'argocd' },
        { name: 'prod', namespace: 'karpenter' }, { name: 'prod', namespace: 'kube-system' }, { name: 'prod', namespace: 'karpenter-smoke-tests' },
        { server: 'https://staging.example.com', namespace: 'kube-system' },
      ],
    });
  });
});

/**
 * What Argo CD does with the waves, run through its model (test/support/argocd-sim.ts, written
 * from argo-cd v3.5.1's sync_context.go): the synthesized output of a two-stage fleet (`dev`,
 * gated by `prod` at stage 2) applied from the bootstrap on, the order of what happened logged.
 */
describe('the waves, as Argo CD syncs a root', () => {
  const config = aFleetConfig(['dev', 'prod'], { clusters: { dev: { stage: 1, destination: { name: 'dev' } }, prod: { stage: 2, destination: { name: 'prod' } } } });
  const { platform } = load({ config, terraform: { dev: aTerraform({ cluster_name: 'dev' }), prod: aTerraform({ cluster_name: 'prod' }) } });
  const start = Date.parse('2027-01-11T00:00:00Z');
  /** `<app> created` (applied by its root), `<app> sync-started`, `<app> sync-finished <phase>`, in the order they happened. */
  const log: string[] = [];
  let converged = false;
  beforeAll(() => {
    const fleet = new FleetSim({ files: synthesize(platform), platform }, {
      start: new Date(start), end: new Date(start + 86_400_000), initialNodeClaims: () => 1, windows: {}, refsAtStart: ['karpenter-gitops/stage-2'],
    });
    let read = 0;
    const readEvents = () => {
      for (; read < fleet.argo.events.length; read++) {
        const e = fleet.argo.events[read];
        if (e.type === 'sync-started' || e.type === 'sync-finished') log.push(`${e.app} ${e.type}${e.phase ? ` ${e.phase}` : ''}`);
      }
    };
    fleet.inCluster.watch((live, change) => {
      if (live.kind !== 'Application' || change !== 'created') return;
      readEvents();
      log.push(`${live.name} created`);
    });
    converged = fleet.runUntilTrue(() => fleet.converged(), start + 86_400_000);
    readEvents();
  });
  const at = (line: string) => {
    const i = log.indexOf(line);
    if (i < 0) throw new Error(`never happened: ${line}\n${log.join('\n')}`);
    return i;
  };

  it('comes up: every Application synced, none failed', () => {
    expect(converged).toBe(true);
    expect(log.filter((l) => /sync-finished (?!Succeeded)/.test(l))).toEqual([]);
  });

  it.each(['dev', 'prod'])('%s: applies the controller only once the CRDs are synced, and the pools only once the controller is', (cluster) => {
    expect(at(`${cluster}-karpenter-crd sync-finished Succeeded`)).toBeLessThan(at(`${cluster}-karpenter created`));
    const lastWave = log.filter((l) => l.startsWith(`${cluster}-`) && l.endsWith(' created') && !/-karpenter(-crd|-root)? created$/.test(l));
    expect(lastWave.sort()).toEqual([...(cluster === 'dev' ? [`${cluster}-drift-gate created`] : []), `${cluster}-karpenter-smoke-tests created`, `${cluster}-pools-ml created`, `${cluster}-pools-web created`]);
    for (const line of lastWave) expect(at(`${cluster}-karpenter sync-finished Succeeded`)).toBeLessThan(at(line));
  });

  it.each(['dev', 'prod'])('%s: the root\'s sync ends once the pools, the smoke tests and the gate are applied, waiting on none of them', (cluster) => {
    // sync_context.go l. 703-712: the last wave succeeds once applied. The smoke tests never sync
    // (manual only) and the gate waits for the pools: in an earlier wave either would hold the root.
    const rootDone = at(`${cluster}-karpenter-root sync-finished Succeeded`);
    expect(rootDone).toBeLessThan(at(`${cluster}-pools-web sync-finished Succeeded`));
    if (cluster === 'dev') expect(rootDone).toBeLessThan(at('dev-drift-gate sync-finished Succeeded'));
    expect(log.filter((l) => l.startsWith(`${cluster}-karpenter-smoke-tests sync`))).toEqual([]);
  });
});

/**
 * A cluster that keeps EKS Auto Mode beside its own controller (`karpenter.besideAutoMode`), as
 * Argo CD (test/support/argocd-sim.ts, from argo-cd v3.5.1) syncs its root: the CRDs EKS manages
 * there (AmazonEKSComputeClusterPolicy: "Manage specific CRDs related to node management
 * (NodeClasses, NodePools, NodeClaims, and NodeDiagnostics)", EKS user guide
 * access-policy-reference.adoc l. 458-461) exist before Argo CD comes, as EKS's. Auto-sync
 * runs only for an Application with `syncPolicy.automated` (appcontroller.go `autoSync`), and the
 * root's wave waits on a child's health, which the generated health check reads as Healthy for a
 * child without automated sync ("manual sync: not waited for", model/application-health.ts).
 */
describe('a cluster beside EKS Auto Mode, as Argo CD syncs its root', () => {
  // beside at stage 1, gated by plain at stage 2: its drift gate waits on its controller and pools, never on the held CRDs.
  const config = aFleetConfig(['beside', 'plain'], { clusters: { beside: { destination: { name: 'beside' }, stage: 1, karpenter: { besideAutoMode: true } }, plain: { destination: { name: 'plain' }, stage: 2 } } });
  const { platform } = load({ config, terraform: { beside: aTerraform({ cluster_name: 'beside' }), plain: aTerraform({ cluster_name: 'plain' }) } });
  const start = Date.parse('2027-01-11T00:00:00Z');
  /** The NodePool CRD as EKS installed it: what Argo CD must leave as it is. */
  const eksCrd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'nodepools.karpenter.sh', labels: { 'eks.amazonaws.com/managed-by': 'eks' } }, spec: { group: 'karpenter.sh', names: { kind: 'NodePool', plural: 'nodepools' }, scope: 'Cluster' } };
  let fleet: FleetSim;
  let converged = false;
  beforeAll(() => {
    fleet = new FleetSim({ files: synthesize(platform), platform }, { start: new Date(start), end: new Date(start + 86_400_000), initialNodeClaims: () => 1, windows: {}, refsAtStart: ['karpenter-gitops/stage-2'] });
    fleet.clusters.get('beside')!.api.apply(eksCrd);
    converged = fleet.runUntilTrue(() => fleet.converged(), start + 86_400_000);
  });

  it('comes up: the root, the controller and the pools sync; the CRDs\' Application never does, and holds no root wave', () => {
    expect(converged).toBe(true);
    const synced = (app: string) => fleet.argo.events.some((e) => e.app === app && e.type === 'sync-finished' && e.phase === 'Succeeded');
    expect(['beside-karpenter-root', 'beside-karpenter', 'beside-pools-web', 'beside-drift-gate', 'plain-karpenter-crd'].filter((a) => !synced(a))).toEqual([]);
    // Its drift gate passed (the next stage may have the revision) with the CRDs left as EKS has them.
    expect(fleet.gateLooks.filter((l) => l.cluster === 'beside').at(-1)?.verdict.done).toBe(true);
    expect(fleet.argo.events.filter((e) => e.app === 'beside-karpenter-crd' && e.type === 'sync-started')).toEqual([]);
  });

  it('leaves EKS\'s CRD as EKS installed it, and installs no other karpenter.sh CRD there', () => {
    const api = fleet.clusters.get('beside')!.api;
    expect(api.render(api.get('CustomResourceDefinition', 'nodepools.karpenter.sh')!)).toMatchObject(eksCrd);
    expect(api.trackedBy('beside-karpenter-crd')).toEqual([]);
    // The cluster beside it, without Auto Mode, gets the chart's CRDs as ever.
    expect(fleet.clusters.get('plain')!.api.trackedBy('plain-karpenter-crd').map((l) => l.name)).toEqual(expect.arrayContaining(['ec2nodeclasses.karpenter.k8s.aws', 'nodeclaims.karpenter.sh', 'nodepools.karpenter.sh']));
  });
});
