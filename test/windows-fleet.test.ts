/**
 * Windows and stages in a fleet (issue 24): `prod` with a Berlin weeknight window at stage 2,
 * `dev` without a window at stage 1.
 */
import { parseAllDocuments } from 'yaml';
import { synthesize } from './../src/synth';
import { aTerraform, removeProjects } from './builders';
import { load } from './config/helpers';
import { aFleetConfig } from './review/fleet';
import { validate } from './support/crd-validator';
import { windowReviewLines } from '../src/review/windows';

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

  it('leaves dev\'s pools as they are', () => {
    expect(one(files, 'dist/dev/nodepools/web/web.yaml', 'NodePool').spec.disruption.budgets).toEqual([{ nodes: '10%' }]);
    expect(files.get('dist/dev/nodepools/web/web.yaml')).toBe(fleet({}, {}).get('dist/dev/nodepools/web/web.yaml'));
  });

  it('puts prod\'s pool Applications in prod-pools, an AppProject with the sync window, synced by the bootstrap', () => {
    const project = one(files, 'argocd/prod.project.yaml', 'AppProject');
    expect(project.metadata.name).toBe('prod-pools');
    expect(project.spec.syncWindows).toEqual([{
      kind: 'allow', schedule: '0 22 * * mon,tue,wed,thu', duration: '6h', timeZone: 'Europe/Berlin',
      applications: ['prod-pools-web', 'prod-pools-ml'], manualSync: true,
    }]);
    expect(one(files, 'dist/prod/apps/pools-web.yaml', 'Application').spec.project).toBe('prod-pools');
    expect(one(files, 'dist/prod/apps/karpenter.yaml', 'Application').spec.project).toBe('default');
    expect(one(files, 'dist/dev/apps/pools-web.yaml', 'Application').spec.project).toBe('default');
    expect(files.has('argocd/dev.project.yaml')).toBe(false);
    expect(one(files, 'argocd/bootstrap.yaml', 'Application').spec.source.directory.include).toMatch(/prod\.project\.yaml/);
  });

  it('tracks the stage ref for stage 2 pools, gitops.targetRevision for stage 1 and for the roots', () => {
    expect(one(files, 'dist/prod/apps/pools-web.yaml', 'Application').spec.source.targetRevision).toBe('karpenter-gitops/stage-2');
    expect(one(files, 'dist/dev/apps/pools-web.yaml', 'Application').spec.source.targetRevision).toBe('HEAD');
    expect(one(files, 'argocd/prod.yaml', 'Application').spec.source.targetRevision).toBe('HEAD');
  });

  it('gates dev\'s pools (stage 2 waits for them) and not prod\'s (no stage 3)', () => {
    expect([...files.keys()].filter((f) => f.endsWith('_drift-gate.yaml'))).toEqual([
      'dist/dev/nodepools/ml/_drift-gate.yaml', 'dist/dev/nodepools/web/_drift-gate.yaml',
    ]);
    expect([...fleet({ window: 'weeknights' }, {}).keys()].filter((f) => f.endsWith('_drift-gate.yaml'))).toEqual([]);
  });

  it('makes the gate a regular Job, restricted and read-only', () => {
    const gate = docs(files, 'dist/dev/nodepools/web/_drift-gate.yaml');
    const job = gate.find((d) => d.kind === 'Job')! as any;
    expect(job.metadata.annotations['argocd.argoproj.io/hook']).toBeUndefined();
    expect(job.metadata.annotations['argocd.argoproj.io/sync-wave']).toBe('10');
    expect(job.spec).toMatchObject({ backoffLimit: 0, activeDeadlineSeconds: 21600 });
    expect(job.spec.ttlSecondsAfterFinished).toBeUndefined();
    const pod = job.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.containers[0].securityContext).toEqual({
      allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.containers[0].image).toMatch(/^registry\.k8s\.io\/kubectl:v\d+\.\d+\.\d+$/);
    expect(pod.containers[0].command[2]).toMatch(/karpenter\.sh\/nodepool in \(web\)/);
    const role = gate.find((d) => d.kind === 'ClusterRole') as any;
    expect(role.rules).toEqual([{ apiGroups: ['karpenter.sh'], resources: ['nodeclaims'], verbs: ['get', 'list', 'watch'] }]);
    expect(pod.serviceAccountName).toBe(gate.find((d) => d.kind === 'ServiceAccount')!.metadata.name);
  });

  it('names the gate by what it gates: a change to the team\'s pools makes a new Job', () => {
    const name = (f: Map<string, string>) => one(f, 'dist/dev/nodepools/web/_drift-gate.yaml', 'Job').metadata.name;
    const config = aFleetConfig(['dev', 'prod'], { windows: { weeknights: BERLIN }, clusters: { dev: { stage: 1 }, prod: { stage: 2 } } });
    (config.teams as any).web.expireAfter = '360h';
    const changed = synthesize(load({ config, terraform: { dev: aTerraform({ cluster_name: 'dev' }), prod: aTerraform({ cluster_name: 'prod' }) } }).platform);
    expect(name(changed)).not.toBe(name(files));
    expect(one(changed, 'dist/dev/nodepools/ml/_drift-gate.yaml', 'Job').metadata.name).toBe(one(files, 'dist/dev/nodepools/ml/_drift-gate.yaml', 'Job').metadata.name);
  });
});

describe('dist/SUMMARY.md of a fleet with a window and stages', () => {
  it('says the window in local time and UTC, the hours kept and why, and what waits for what', () => {
    const summary = fleet().get('dist/SUMMARY.md')!;
    expect(summary).toContain('Window `weeknights`: mon, tue, wed, thu 22:00 for 6h (Europe/Berlin), mon 22:00-tue 04:00, tue 22:00-wed 04:00, wed 22:00-thu 04:00, thu 22:00-fri 04:00 local. '
      + 'Drifted nodes are replaced only in mon 21:00-tue 02:00, tue 21:00-wed 02:00, wed 21:00-thu 02:00, thu 21:00-fri 02:00 UTC (1200 of 1440 minutes a week)');
    expect(summary).toMatch(/Stage 2: its pools track `karpenter-gitops\/stage-2`, promoted once `dev` \(stage 1\)/);
    expect(summary).toMatch(/Stage 1: its pools track `HEAD`; `prod` \(stage 2\) wait for its drift gates/);
  });
});

describe('the review of a fleet with a window', () => {
  it('says when each window next opens, from the reference time given', () => {
    const config = aFleetConfig(['dev', 'prod'], { windows: { weeknights: BERLIN }, clusters: { dev: { stage: 1 }, prod: { window: 'weeknights', stage: 2 } } });
    const { platform } = load({ config, terraform: { dev: aTerraform({ cluster_name: 'dev' }), prod: aTerraform({ cluster_name: 'prod' }) } });
    const lines = windowReviewLines(platform, new Date('2027-01-08T12:00:00Z'));
    expect(lines[1]).toMatch(/^cluster prod: Window `weeknights`.*Its window next opens for drifted nodes at 2027-01-11T21:00Z, in 81h00m\.$/);
    expect(lines[0]).toMatch(/^cluster dev: Stage 1/);
    expect(windowReviewLines(platform, new Date('2027-01-11T22:00:00Z'))[1]).toMatch(/Its window is open now\.$/);
  });
});

describe('the AppProjects of a staged fleet', () => {
  it('allow the drift gate\'s Job only where a cluster a later stage waits for deploys one', () => {
    const config = aFleetConfig(['dev', 'prod'], { gitops: { project: 'karpenter' }, windows: { weeknights: BERLIN }, clusters: { dev: { stage: 1, window: 'weeknights' }, prod: { window: 'weeknights', stage: 2 } } });
    const files = synthesize(load({ config, terraform: { dev: aTerraform({ cluster_name: 'dev' }), prod: aTerraform({ cluster_name: 'prod' }) } }).platform);
    const jobs = (path: string) => one(files, path, 'AppProject').spec.namespaceResourceWhitelist.filter((k: { kind: string }) => k.kind === 'Job');
    expect(jobs('argocd/project.yaml')).toEqual([{ group: 'batch', kind: 'Job' }]);
    expect(jobs('argocd/dev.project.yaml')).toEqual([{ group: 'batch', kind: 'Job' }]);
    expect(jobs('argocd/prod.project.yaml')).toEqual([]);
    expect(one(files, 'dist/dev/apps/pools-web.yaml', 'Application').spec.project).toBe('dev-pools');
    expect(one(files, 'dist/dev/apps/karpenter.yaml', 'Application').spec.project).toBe('karpenter');
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
