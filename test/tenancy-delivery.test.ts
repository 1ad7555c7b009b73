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

  it('says so on the cluster\'s page, beside who may use the pools and beside the window', () => {
    const page = files.get('dist/prod/SUMMARY.md')!.split('\n');
    expect(page).toContain('The policy syncs at once, whatever the window (`prod-policies`); each guarded team\'s pools sync only once their guard gate sees it guard them.');
    expect(page.find((l) => l.startsWith('Window `weeknights`'))).toMatch(/ sync only in those UTC minutes too \(AppProject `prod-pools`; a person may still sync by hand\); the tenancy policy never waits for the window \(access is not node churn\)\.$/);
    expect(files.get('dist/dev/SUMMARY.md')!.split('\n')).toContain('The policy syncs at once (`dev-policies`); each guarded team\'s pools sync only once their guard gate sees it guard them.');
  });

  it('syncs in the root\'s wave 1, before the pools\' wave 2', () => {
    const wave = (file: string) => one(files, `dist/prod/apps/${file}.yaml`, 'Application').metadata.annotations?.['argocd.argoproj.io/sync-wave'];
    expect([wave('policies'), wave('pools-web'), wave('pools-ml')]).toEqual(['1', '2', '2']);
  });
});

describe('the guard gate of each guarded team\'s pools', () => {
  const files = fleet();
  const job = (cluster: string, team: string) => one(files, `dist/${cluster}/nodepools/${team}/_guard-gate.yaml`, 'Job');
  const guardOf = (j: Obj) => JSON.parse(j.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'GUARD').value) as Record<string, unknown>;

  it('is a PreSync hook Job in the team\'s pools folder, for guarded teams only (ml lists no namespaces: no gate)', () => {
    expect([...files.keys()].filter((p) => p.endsWith('/_guard-gate.yaml'))).toEqual(['dist/dev/nodepools/web/_guard-gate.yaml', 'dist/prod/nodepools/web/_guard-gate.yaml']);
    expect(job('prod', 'web').metadata).toMatchObject({
      name: 'guard-gate-web', namespace: 'kube-system',
      annotations: { 'argocd.argoproj.io/hook': 'PreSync', 'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation,HookSucceeded' },
    });
    expect(one(files, 'dist/prod/apps/pools-web.yaml', 'Application').spec.source.path).toBe('dist/prod/nodepools/web');
  });

  it('fails after its deadline, waits for one policy part carrying its team\'s digest, and names the Application that delivers it', () => {
    const j = job('prod', 'web');
    expect(j.spec.activeDeadlineSeconds).toBe(600);
    expect(guardOf(j)).toEqual({
      cluster: 'prod', team: 'web', digest: expect.stringMatching(/^[0-9a-f]{16}$/), parts: 1, application: 'prod-policies',
      policySelector: 'app.kubernetes.io/managed-by=karpenter-gitops', settleSeconds: 10, pollSeconds: 5,
    });
  });

  it('waits for the digest the cluster\'s policy carries: the policy\'s karpenter-gitops.io/guards maps web to it', () => {
    const policy = one(files, 'dist/prod/policies/team-pools.yaml', 'ValidatingAdmissionPolicy');
    expect(policy.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'karpenter-gitops' });
    expect(JSON.parse(policy.metadata.annotations!['karpenter-gitops.io/guards'])).toEqual({ web: guardOf(job('prod', 'web')).digest });
    const binding = one(files, 'dist/prod/policies/team-pools.yaml', 'ValidatingAdmissionPolicyBinding');
    expect([binding.metadata.name, binding.spec.policyName]).toEqual([policy.metadata.name, policy.metadata.name]);
  });

  it('runs as a ServiceAccount the policies folder delivers, which may only get and list the policies and their bindings', () => {
    const rbac = docs(files, 'dist/prod/policies/guard-gate.yaml');
    expect(rbac.map((d) => `${d.kind} ${d.metadata.name}`)).toEqual(['ServiceAccount karpenter-gitops-guard-gate', 'ClusterRole karpenter-gitops-guard-gate', 'ClusterRoleBinding karpenter-gitops-guard-gate']);
    expect((rbac[1] as unknown as { rules: unknown }).rules).toEqual([
      { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingadmissionpolicies', 'validatingadmissionpolicybindings'], verbs: ['get', 'list'] },
    ]);
    expect(job('prod', 'web').spec.template.spec.serviceAccountName).toBe(rbac[0].metadata.name);
    expect(rbac[0].metadata.namespace).toBe(job('prod', 'web').metadata.namespace);
  });

  it('is allowed by the AppProjects that hold the pools Applications: the fleet\'s (dev) and the windowed cluster\'s (prod)', () => {
    const job = { group: 'batch', kind: 'Job' };
    expect(one(files, 'argocd/project.yaml', 'AppProject').spec.namespaceResourceWhitelist).toContainEqual(job);
    expect(one(files, 'dist/prod/apps/project.yaml', 'AppProject').spec.namespaceResourceWhitelist).toContainEqual(job);
    const open = fleet(structuredClone(TEAMS as Teams));
    expect(one(open, 'dist/prod/apps/project.yaml', 'AppProject').spec.namespaceResourceWhitelist).not.toContainEqual(job);
    expect([...open.keys()].filter((p) => p.includes('guard-gate'))).toEqual([]);
  });

  it('is restricted and read-only, run by the image\'s own node with no shell, in the drift gate\'s pinned image and memory', () => {
    const pod = job('prod', 'web').spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.containers[0].securityContext).toEqual({
      allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.containers[0].image).toMatch(/^docker\.io\/library\/node:\d+\.\d+\.\d+-alpine@sha256:[0-9a-f]{64}$/);
    expect(pod.containers[0].command.slice(0, 2)).toEqual(['node', '-e']);
    expect(pod.containers[0].resources).toEqual({ requests: { cpu: '10m', memory: '96Mi' }, limits: { memory: '96Mi' } });
  });

  it('is unchanged by a change of who may use the pools, and changed by a change of what the policy judges them by', () => {
    const teams = (web: Record<string, unknown>) => ({ ...structuredClone(TEAMS as Teams), web: { ...(TEAMS as Teams).web, ...web } });
    const gate = (f: Map<string, string>) => f.get('dist/prod/nodepools/web/_guard-gate.yaml');
    expect(gate(fleet(teams({ namespaces: ['web', 'web-batch'] })))).toBe(gate(files));
    expect(fleet(teams({ namespaces: ['web', 'web-batch'] })).get('dist/prod/policies/team-pools.yaml')).not.toBe(files.get('dist/prod/policies/team-pools.yaml'));
    expect(gate(fleet(teams({ namespaces: ['web'], labels: { tier: 'front' } })))).not.toBe(gate(files));
  });
});
