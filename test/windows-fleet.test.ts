/**
 * Windows and stages in a fleet (issue 24): `prod` with a Berlin weeknight window at stage 2,
 * `dev` without a window at stage 1.
 */
import { parse, parseAllDocuments } from 'yaml';
import { synthesize } from './../src/synth';
import { aTerraform, removeProjects } from './builders';
import { load } from './config/helpers';
import { aFleetConfig } from './review/fleet';
import { validate } from './support/crd-validator';
import { nextOpening } from '../src/schedule/windows';
import { DRIFT_GATE_PROGRAM } from '../src/gate/program.generated';
import { parseGateSpec } from '../src/gate/spec';

afterAll(removeProjects);

const BERLIN = { timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu'], start: '22:00', duration: '6h' };
const fleet = (prod: Record<string, unknown> = { window: 'weeknights', stage: 2 }, dev: Record<string, unknown> = { stage: 1 }) => {
  const config = aFleetConfig(['dev', 'prod'], { windows: { weeknights: BERLIN }, clusters: { dev, prod } });
  return synthesize(load({ config, terraform: { dev: aTerraform({ cluster_name: 'dev' }), prod: aTerraform({ cluster_name: 'prod' }) } }).platform);
};
type Obj = { kind: string; metadata: { name: string }; spec: Record<string, any> };
const docs = (files: Map<string, string>, path: string): Obj[] => parseAllDocuments(files.get(path) ?? '').map((d) => d.toJS() as Obj);
const one = (files: Map<string, string>, path: string, kind: string): Obj => docs(files, path).find((d) => d.kind === kind)!;

describe('a fleet with a window and stages', () => {
  const files = fleet();

  it('gives prod\'s NodePools the window budgets after the team\'s, and they pass the NodePool CRD', () => {
    const pool = one(files, 'dist/prod/nodepools/web/web.yaml', 'NodePool');
    expect(pool.spec.disruption.budgets).toEqual([
      { nodes: '10%' },
      { nodes: '0', reasons: ['Drifted'], schedule: '0 2 * * tue,wed,thu', duration: '19h' },
      { nodes: '0', reasons: ['Drifted'], schedule: '0 2 * * fri', duration: '91h' },
    ]);
    expect(validate(pool)).toEqual([]);
  });

  it('leaves dev\'s pools as they are, but for the drift gate\'s digest (metadata: no node drifts)', () => {
    expect(one(files, 'dist/dev/nodepools/web/web.yaml', 'NodePool').spec.disruption.budgets).toEqual([{ nodes: '10%' }]);
    const withoutDigest = (text: string) => text.split('\n').filter((l) => !l.includes('karpenter-gitops.io/digest')).join('\n');
    expect(withoutDigest(files.get('dist/dev/nodepools/web/web.yaml')!)).toBe(fleet({}, {}).get('dist/dev/nodepools/web/web.yaml'));
  });

  it('puts prod\'s pool Applications in prod-pools, an AppProject whose sync windows are the UTC minutes Karpenter may drift', () => {
    const project = one(files, 'dist/prod/apps/project.yaml', 'AppProject');
    expect(project.metadata.name).toBe('prod-pools');
    const applications = ['prod-pools-web', 'prod-pools-ml'];
    expect(project.spec.syncWindows).toEqual([
      { kind: 'allow', schedule: '0 21 * * mon,tue,wed,thu', duration: '5h', timeZone: 'UTC', applications, manualSync: true },
    ]);
    expect(one(files, 'dist/prod/apps/pools-web.yaml', 'Application').spec.project).toBe('prod-pools');
    expect(one(files, 'dist/prod/apps/karpenter.yaml', 'Application').spec.project).toBe('default');
    expect(one(files, 'dist/dev/apps/pools-web.yaml', 'Application').spec.project).toBe('default');
    expect(files.has('dist/dev/apps/project.yaml')).toBe(false);
    // Created by prod's root from its stage ref (sync wave -1, before the Applications that use it), not by the bootstrap from main.
    expect(one(files, 'argocd/bootstrap.yaml', 'Application').spec.source.directory.include).not.toMatch(/project/);
    expect((project.metadata as any).annotations['argocd.argoproj.io/sync-wave']).toBe('-1');
  });

  it('tells the health check that prod\'s pools wait on their window, and its root on its stage ref', () => {
    const waits = (path: string) => (one(files, path, 'Application').metadata as any).annotations?.['karpenter-gitops.io/waits-for'];
    expect(waits('dist/prod/apps/pools-web.yaml')).toMatch(/^its sync window weeknights \(mon 21:00-tue 02:00, .* UTC\)$/);
    expect(waits('argocd/prod.yaml')).toBe('its stage ref karpenter-gitops/stage-2 (moved by npm run promote once stage 1 is done)');
    expect(waits('dist/prod/apps/karpenter.yaml')).toBeUndefined();
    expect(waits('dist/dev/apps/pools-web.yaml')).toBeUndefined();
    expect(waits('argocd/dev.yaml')).toBeUndefined();
  });

  it('brings everything of a stage-2 cluster through its stage ref: root, controller values, pools; stage 1 tracks gitops.targetRevision', () => {
    const revisions = (path: string) => {
      const spec = one(files, path, 'Application').spec;
      return (spec.sources ?? [spec.source]).filter((s: any) => s.chart === undefined).map((s: any) => s.targetRevision);
    };
    // Every git source; the CRD Application has only the chart, of the cluster's version.
    const git = (prefix: string) => [...files.keys()].filter((p) => p.startsWith(prefix) && !p.endsWith('/karpenter-crd.yaml') && !p.endsWith('/project.yaml'));
    expect(git('dist/prod/apps/').length).toBeGreaterThan(3);
    for (const f of git('dist/prod/apps/')) expect(revisions(f)).toEqual(['karpenter-gitops/stage-2']);
    expect(revisions('argocd/prod.yaml')).toEqual(['karpenter-gitops/stage-2']);
    for (const f of git('dist/dev/apps/')) expect(revisions(f)).toEqual(['HEAD']);
    expect(revisions('argocd/dev.yaml')).toEqual(['HEAD']);
    expect(revisions('argocd/bootstrap.yaml')).toEqual(['HEAD']);
  });

  it('gates dev (stage 2 waits for it) with one Application and Job, and not prod (no stage 3)', () => {
    expect([...files.keys()].filter((f) => f.includes('drift-gate'))).toEqual(['dist/dev/apps/drift-gate.yaml', 'dist/dev/drift-gate/gate.yaml', 'dist/dev/drift-gate/program.yaml']);
    expect([...fleet({ window: 'weeknights' }, {}).keys()].filter((f) => f.includes('drift-gate'))).toEqual([]);
    const app = one(files, 'dist/dev/apps/drift-gate.yaml', 'Application');
    expect(app.metadata.name).toBe('dev-drift-gate');
    expect((app.metadata as any).annotations['argocd.argoproj.io/sync-wave']).toBe('2');
  });

  it('makes the gate a regular Job run by the image\'s own node, with no shell, no deadline, restricted and read-only', () => {
    const gate = docs(files, 'dist/dev/drift-gate/gate.yaml');
    const job = gate.find((d) => d.kind === 'Job')! as any;
    expect(job.metadata.annotations['argocd.argoproj.io/hook']).toBeUndefined();
    expect(job.spec.activeDeadlineSeconds).toBeUndefined();
    expect(job.spec.ttlSecondsAfterFinished).toBeUndefined();
    expect(job.spec.podFailurePolicy).toEqual({ rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] });
    const pod = job.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.containers[0].securityContext).toEqual({
      allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.containers[0].image).toMatch(/^docker\.io\/library\/node:\d+\.\d+\.\d+-alpine@sha256:[0-9a-f]{64}$/);
    // The program is a file of its ConfigMap, mounted read-only; the ConfigMap is immutable, named after the text, in the gate's first wave.
    expect(pod.containers[0].command).toEqual(['node', '/gate/gate.js']);
    expect(pod.containers[0].volumeMounts).toEqual([{ name: 'program', mountPath: '/gate', readOnly: true }]);
    const program = one(files, 'dist/dev/drift-gate/program.yaml', 'ConfigMap') as any;
    expect(pod.volumes).toEqual([{ name: 'program', configMap: { name: program.metadata.name } }]);
    expect(program).toMatchObject({ immutable: true, metadata: { namespace: job.metadata.namespace, annotations: { 'argocd.argoproj.io/sync-wave': '0' } } });
    expect(program.data['gate.js']).toBe(DRIFT_GATE_PROGRAM);
    expect(program.metadata.name).toMatch(/^drift-gate-program-[0-9a-f]{16}$/);
    expect(Number(job.metadata.annotations['argocd.argoproj.io/sync-wave'])).toBeGreaterThan(0);
    expect(JSON.stringify(pod.containers[0].command)).not.toMatch(/\/bin\/sh|kubectl/);
    const gateEnv = pod.containers[0].env.find((e: { name: string }) => e.name === 'GATE').value;
    // The gate program reads what the plan wrote, without a problem (src/gate/spec.ts).
    expect(parseGateSpec(gateEnv)).toMatchObject({ ok: true });
    const spec = JSON.parse(gateEnv);
    expect(spec).toMatchObject({ cluster: 'dev', controller: { namespace: 'kube-system', deployment: 'karpenter', chart: 'karpenter-1.14.1' }, settleSeconds: 600 });
    expect(spec.nodePools.map((p: { name: string }) => p.name)).toEqual(['web', 'ml-gpu']);
    const clusterRole = gate.find((d) => d.kind === 'ClusterRole') as any;
    expect(clusterRole.rules).toEqual([
      { apiGroups: ['karpenter.sh'], resources: ['nodepools', 'nodeoverlays'], verbs: ['get'] },
      { apiGroups: ['karpenter.sh'], resources: ['nodeclaims'], verbs: ['list'] },
      { apiGroups: ['karpenter.k8s.aws'], resources: ['ec2nodeclasses'], verbs: ['get'] },
    ]);
    const role = gate.find((d) => d.kind === 'Role') as any;
    expect(role.rules).toEqual([{ apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['karpenter'], verbs: ['get'] }]);
    expect(pod.serviceAccountName).toBe(gate.find((d) => d.kind === 'ServiceAccount')!.metadata.name);
  });

  it('writes the digest the gate waits for on each of dev\'s NodePools and EC2NodeClasses and on the controller\'s pods', () => {
    const spec = JSON.parse((one(files, 'dist/dev/drift-gate/gate.yaml', 'Job') as any).spec.template.spec.containers[0].env[0].value);
    const pool = one(files, 'dist/dev/nodepools/web/web.yaml', 'NodePool') as any;
    expect(pool.metadata.annotations['karpenter-gitops.io/digest']).toBe(spec.nodePools[0].digest);
    expect(one(files, 'dist/dev/nodepools/web/web.yaml', 'EC2NodeClass').metadata).toMatchObject({ annotations: { 'karpenter-gitops.io/digest': spec.nodeClasses[0].digest } });
    expect(parse(files.get('dist/dev/karpenter/values.yaml')!).podAnnotations).toEqual({ 'karpenter-gitops.io/values-digest': spec.controller.valuesDigest });
    // prod has no gate: its files carry no digest.
    expect((one(files, 'dist/prod/nodepools/web/web.yaml', 'NodePool') as any).metadata.annotations['karpenter-gitops.io/digest']).toBeUndefined();
  });

  it('names the gate by everything in it: a pool change, a controller change or another image makes a new Job', () => {
    const name = (f: Map<string, string>) => one(f, 'dist/dev/drift-gate/gate.yaml', 'Job').metadata.name;
    const synth = (edit: (config: any) => void) => {
      const config = aFleetConfig(['dev', 'prod'], { windows: { weeknights: BERLIN }, clusters: { dev: { stage: 1 }, prod: { stage: 2 } } });
      edit(config);
      return synthesize(load({ config, terraform: { dev: aTerraform({ cluster_name: 'dev' }), prod: aTerraform({ cluster_name: 'prod' }) } }).platform);
    };
    const base = name(synth(() => undefined));
    expect(base).toMatch(/^drift-gate-[0-9a-f]{16}$/);
    expect(name(synth((c) => { c.teams.web.expireAfter = '360h'; }))).not.toBe(base);
    expect(name(synth((c) => { c.gitops.driftGateImage = 'registry.example/node:22.21.0-alpine'; }))).not.toBe(base);
    expect(name(synth((c) => { c.clusters.dev.karpenter = { controller: { logLevel: 'debug' } }; }))).not.toBe(base);
    expect(name(synth(() => undefined))).toBe(base);
  });
});

describe('each cluster\'s page (dist/<cluster>/SUMMARY.md) of a fleet with a window and stages', () => {
  it('says the window in local time and UTC, the hours kept and why, and what waits for what, by stage', () => {
    const files = fleet();
    const summary = `${files.get('dist/dev/SUMMARY.md')!}${files.get('dist/prod/SUMMARY.md')!}`;
    expect(summary).toContain('Window `weeknights`: mon, tue, wed, thu 22:00 for 6h (Europe/Berlin), mon 22:00-tue 04:00, tue 22:00-wed 04:00, wed 22:00-thu 04:00, thu 22:00-fri 04:00 local. '
      + 'Drifted nodes are replaced only in mon 21:00-tue 02:00, tue 21:00-wed 02:00, wed 21:00-thu 02:00, thu 21:00-fri 02:00 UTC (1200 of 1440 minutes a week)');
    expect(summary).toMatch(/Stage 2: its root and every Application it creates track `karpenter-gitops\/stage-2`, promoted once every cluster of stage 1 runs the revision/);
    expect(summary).toMatch(/Stage 1: its root and every Application it creates track `HEAD`; the clusters of stage 2 wait for its drift gate/);
  });
});

describe('when a window next opens (what the review\'s rollout counts from, src/review/rollout.ts)', () => {
  it('is the next kept UTC minute after the reference time, or the time itself inside the window', () => {
    const config = aFleetConfig(['dev', 'prod'], { windows: { weeknights: BERLIN }, clusters: { dev: { stage: 1 }, prod: { window: 'weeknights', stage: 2 } } });
    const { platform } = load({ config, terraform: { dev: aTerraform({ cluster_name: 'dev' }), prod: aTerraform({ cluster_name: 'prod' }) } });
    const window = platform.clusters.find((c) => c.id === 'prod')!.window!;
    expect(nextOpening(window, new Date('2027-01-08T12:00:00Z'))?.toISOString()).toBe('2027-01-11T21:00:00.000Z');
    expect(nextOpening(window, new Date('2027-01-11T22:00:00Z'))?.toISOString()).toBe('2027-01-11T22:00:00.000Z');
  });
});

describe('the AppProjects of a staged fleet', () => {
  it('allow the drift gate\'s Job only where a cluster a later stage waits for deploys one', () => {
    const config = aFleetConfig(['dev', 'prod'], { gitops: { project: 'karpenter' }, windows: { weeknights: BERLIN }, clusters: { dev: { stage: 1, window: 'weeknights' }, prod: { window: 'weeknights', stage: 2 } } });
    const files = synthesize(load({ config, terraform: { dev: aTerraform({ cluster_name: 'dev' }), prod: aTerraform({ cluster_name: 'prod' }) } }).platform);
    const jobs = (path: string) => one(files, path, 'AppProject').spec.namespaceResourceWhitelist.filter((k: { kind: string }) => k.kind === 'Job');
    expect(jobs('argocd/project.yaml')).toEqual([{ group: 'batch', kind: 'Job' }]);
    // The gate has an Application of its own in the fleet project: the windowed projects hold no Job.
    expect(jobs('dist/dev/apps/project.yaml')).toEqual([]);
    expect(jobs('dist/prod/apps/project.yaml')).toEqual([]);
    expect(one(files, 'dist/dev/apps/drift-gate.yaml', 'Application').spec.project).toBe('karpenter');
    expect(one(files, 'dist/dev/apps/pools-web.yaml', 'Application').spec.project).toBe('dev-pools');
    expect(one(files, 'dist/dev/apps/karpenter.yaml', 'Application').spec.project).toBe('karpenter');
  });

  it('allow the gate program\'s ConfigMap in the fleet project only where a cluster deploys a gate: Argo CD refuses a kind the project does not list', () => {
    const configMaps = (config: Record<string, unknown>) => {
      const files = synthesize(load({ config, terraform: { dev: aTerraform({ cluster_name: 'dev' }), prod: aTerraform({ cluster_name: 'prod' }) } }).platform);
      return one(files, 'argocd/project.yaml', 'AppProject').spec.namespaceResourceWhitelist.filter((k: { kind: string }) => k.kind === 'ConfigMap');
    };
    expect(configMaps(aFleetConfig(['dev', 'prod'], { gitops: { project: 'karpenter' }, clusters: { dev: { stage: 1 }, prod: { stage: 2 } } }))).toEqual([{ group: '', kind: 'ConfigMap' }]);
    expect(configMaps(aFleetConfig(['dev', 'prod'], { gitops: { project: 'karpenter' } }))).toEqual([]);
  });
});

describe('a windowed cluster\'s pool files', () => {
  it('say atop which UTC hours the budgets keep, and why', () => {
    const text = fleet().get('dist/prod/nodepools/web/web.yaml')!;
    expect(text.split('\n').slice(0, 2)).toEqual([
      '# Window weeknights: mon, tue, wed, thu 22:00 for 6h (Europe/Berlin); the last 2 budget(s) block Drifted outside it.',
      expect.stringMatching(/^# Europe\/Berlin is UTC\+01:00 or UTC\+02:00: .*mon 21:00-tue 02:00.*1h less than the window at each opening\.$/),
    ]);
    expect(fleet().get('dist/dev/nodepools/web/web.yaml')!.startsWith('#')).toBe(false);
  });
});
