/**
 * How the tenancy policy is delivered (issue 43, docs/tenancy.md "Delivery"): `prod` in a Berlin
 * weeknight window at stage 2, `dev` at stage 1 without one; team `web` guarded
 * (`namespaces: [web]`), team `ml` open to every namespace.
 */
import { parseAllDocuments } from 'yaml';
import { synthesize } from '../src/synth';
import { aTerraform, removeProjects } from './builders';
import { load } from './config/helpers';
import { aFleetConfig, TEAMS } from './review/fleet';

afterAll(removeProjects);

const BERLIN = { timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu'], start: '22:00', duration: '6h' };
type Teams = Record<string, Record<string, unknown>>;
const fleet = (teams: Teams = { ...structuredClone(TEAMS as Teams), web: { ...(TEAMS as Teams).web, namespaces: ['web'] } }) => {
  const config = aFleetConfig(['dev', 'prod'], {
    gitops: { project: 'karpenter' },
    windows: { weeknights: BERLIN },
    clusters: { dev: { stage: 1 }, prod: { window: 'weeknights', stage: 2 } },
    teams,
  });
  return synthesize(load({ config, terraform: { dev: aTerraform({ cluster_name: 'dev' }), prod: aTerraform({ cluster_name: 'prod' }) } }).platform);
};
type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec: Record<string, any> };
const docs = (files: Map<string, string>, path: string): Obj[] => parseAllDocuments(files.get(path) ?? '').map((d) => d.toJS() as Obj);
const one = (files: Map<string, string>, path: string, kind: string): Obj => docs(files, path).find((d) => d.kind === kind)!;

describe('the tenancy policy of a windowed cluster', () => {
  const files = fleet();

  it('is never held by the window: prod-policies sits in the fleet\'s project, says it waits for nothing, and no sync window names it', () => {
    const app = one(files, 'dist/prod/apps/policies.yaml', 'Application');
    expect(app.spec.project).toBe('karpenter');
    expect(app.metadata.annotations?.['karpenter-gitops.io/waits-for']).toBeUndefined();
    const project = one(files, 'dist/prod/apps/project.yaml', 'AppProject');
    expect(project.spec.syncWindows.flatMap((w: { applications: string[] }) => w.applications)).toEqual(['prod-pools-web', 'prod-pools-ml']);
    // The pools stay held.
    expect(one(files, 'dist/prod/apps/pools-web.yaml', 'Application').spec.project).toBe('prod-pools');
  });

  it('still tracks the cluster\'s stage ref: it syncs at merge on stage 1, at the promotion on stage 2', () => {
    expect(one(files, 'dist/prod/apps/policies.yaml', 'Application').spec.source.targetRevision).toBe('karpenter-gitops/stage-2');
    expect(one(files, 'dist/dev/apps/policies.yaml', 'Application').spec.source.targetRevision).toBe('HEAD');
  });

  it('syncs in the root\'s wave 1, before the pools\' wave 2', () => {
    const wave = (file: string) => one(files, `dist/prod/apps/${file}.yaml`, 'Application').metadata.annotations?.['argocd.argoproj.io/sync-wave'];
    expect([wave('policies'), wave('pools-web'), wave('pools-ml')]).toEqual(['1', '2', '2']);
  });
});
