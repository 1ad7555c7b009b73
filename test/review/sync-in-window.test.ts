/**
 * `karpenter.syncInWindow` (issue 37): on a cluster with a window, the controller and CRD
 * Applications sync only in it, as its pools do. Checked on the generated files (the AppProject
 * that carries the window allows every object the controller chart renders, rendered by the real
 * `helm`) and in simulated time (test/support/fleet-sim.ts: Argo CD's sync windows as
 * argo-cd v3.5.1 `SyncWindows.Matches` and `CanSync` decide them, for a multi-source
 * Application and a ServerSideApply one alike), where `prod-eu` (Europe/Berlin Mon–Thu 22:00
 * for 6h) upgrades Karpenter only in its window and `prod-us` (no syncInWindow) at once,
 * whatever its window.
 */
import { parseAllDocuments } from 'yaml';
import { helmTemplate } from '../support/helm';
import { convergedFleet, DAY, fleetConfig, firstTime, synth, TUESDAY, type Config } from '../support/rollout-fleet';
import { removeProjects } from '../builders';

afterAll(removeProjects);

type Doc = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string> }; spec: Record<string, any> };

/** The rollout fleet on Karpenter `version`, prod-eu's controller in its window (its own copy: the fleet's windows are shared objects). */
function fleet(version: string, edit: (c: Config) => void = () => undefined): Config {
  const c = structuredClone(fleetConfig());
  c.karpenter.version = version;
  // CapacityBuffer needs Karpenter 1.14.
  delete c.teams.batch.buffer;
  c.clusters['prod-eu'].karpenter = { syncInWindow: true };
  edit(c);
  return c;
}

const docs = (files: ReadonlyMap<string, string>, path: string) => parseAllDocuments(files.get(path)!).map((d) => d.toJS() as Doc);

describe('the generated files of a cluster with karpenter.syncInWindow', () => {
  // The controller in a namespace of its own: the chart's DNS Role and RoleBinding go to kube-system all the same.
  const { files } = synth(fleet('1.14.1', (c) => { c.clusters['prod-eu'].karpenter.namespace = 'karpenter'; }));
  const [project] = docs(files, 'dist/prod-eu/apps/project.yaml');

  it('puts the controller and CRD Applications in the cluster\'s windowed AppProject, saying what they wait for, and its sync windows name them', () => {
    for (const app of ['karpenter', 'karpenter-crd']) {
      const [doc] = docs(files, `dist/prod-eu/apps/${app}.yaml`);
      expect({ app, project: doc.spec.project, waitsFor: doc.metadata.annotations?.['karpenter-gitops.io/waits-for'] })
        .toEqual({ app, project: 'prod-eu-pools', waitsFor: 'its sync window eu (mon 21:00-tue 02:00, tue 21:00-wed 02:00, wed 21:00-thu 02:00, thu 21:00-fri 02:00 UTC)' });
    }
    for (const w of project.spec.syncWindows) expect(w.applications).toEqual(expect.arrayContaining(['prod-eu-karpenter-crd', 'prod-eu-karpenter']));
    // prod-us keeps its controller out of its window.
    expect(docs(files, 'dist/prod-us/apps/karpenter.yaml')[0].spec.project).toBe('karpenter');
  });

  it('allows every object the controller chart renders with the cluster\'s values, in the namespaces it renders them to', () => {
    const rendered = helmTemplate({}, { namespace: 'karpenter', valuesYaml: files.get('dist/prod-eu/karpenter/values.yaml')! });
    expect(rendered.filter((o) => o.metadata.namespace === 'kube-system').map((o) => o.kind).sort()).toEqual(['Role', 'RoleBinding']);
    const allowed = (list: { group: string; kind: string }[], apiVersion: string, kind: string) =>
      list.some((k) => k.group === (apiVersion.includes('/') ? apiVersion.split('/')[0] : '') && k.kind === kind);
    for (const obj of rendered) {
      const namespace = obj.metadata.namespace;
      expect({ kind: obj.kind, allowed: allowed(namespace === undefined ? project.spec.clusterResourceWhitelist : project.spec.namespaceResourceWhitelist, obj.apiVersion, obj.kind) })
        .toEqual({ kind: obj.kind, allowed: true });
      if (namespace !== undefined) expect(project.spec.destinations).toContainEqual({ name: 'prod-eu', namespace });
    }
  });
});

describe('a Karpenter upgrade in simulated time, prod-eu\'s controller in its window', () => {
  // Without stages every cluster takes the commit at merge (no drift gate, no promotion): what holds an Application is its window alone.
  const unstaged = (version: string) => fleet(version, (c) => { for (const id of Object.keys(c.clusters)) delete c.clusters[id].stage; });

  it('upgrades prod-eu\'s controller and CRDs only inside its window\'s kept UTC minutes, prod-us\'s at once; the held Applications are Healthy and nothing waits on them', () => {
    const sim = convergedFleet(unstaged('1.13.1'), { refsAtStart: [] });
    sim.runUntil(TUESDAY);
    const runs = (cluster: string) => firstTime(sim, () => sim.clusters.get(cluster)!.karpenter.runningVersion() === '1.14.1');
    const [eu, us] = [runs('prod-eu'), runs('prod-us')];
    // Tuesday 09:00 UTC: outside both windows.
    const sha = sim.commit(synth(unstaged('1.14.1')), 'C1: Karpenter 1.14.1');
    expect(sim.runUntilTrue(() => ['prod-eu', 'prod-us'].every((c) => sim.finishedAt(c, sha) !== undefined), TUESDAY + 2 * DAY)).toBe(true);
    // The syncs since the merge (a chart-only Application's revision is its chart version, not the commit).
    const syncs = (app: string) => sim.argo.events.filter((e) => e.type === 'sync-started' && e.app === app && e.at >= TUESDAY).map((e) => e.at);
    // Berlin is UTC+1 in January: 22:00-04:00 local, of which 21:00-02:00 UTC are kept under both offsets (UTC+1 and UTC+2).
    const euKept = (at: number) => new Date(at).getUTCHours() >= 21 || new Date(at).getUTCHours() < 2;
    // New York 20:00-02:00 local is 01:00-07:00 UTC in winter, 00:00-06:00 in summer: 01:00-06:00 kept.
    const usKept = (at: number) => new Date(at).getUTCHours() >= 1 && new Date(at).getUTCHours() < 6;
    for (const app of ['prod-eu-karpenter', 'prod-eu-karpenter-crd']) {
      expect(syncs(app).length).toBeGreaterThan(0);
      for (const at of syncs(app)) expect({ app, at: new Date(at).toISOString(), kept: euKept(at) }).toEqual({ app, at: new Date(at).toISOString(), kept: true });
    }
    expect(new Date(eu()!).toISOString()).toMatch(/^2027-01-12T21:/);
    for (const app of ['prod-us-karpenter', 'prod-us-karpenter-crd']) expect(syncs(app).every((at) => !usKept(at))).toBe(true);
    expect(us()! - TUESDAY).toBeLessThan(30 * 60_000);
    expect(sim.windowWaits.filter((w) => w.app === 'prod-eu-karpenter').length).toBeGreaterThan(0);
    expect(sim.violations).toEqual([]);
  }, 300_000);
});
