/**
 * Delivery in a fleet (issue: per-team pool Applications, waves, bootstrap, staged versions):
 * a two-cluster config through the real loader and synth, every Argo CD object checked
 * against the Argo CD 3.5.1 CRDs, and the AppProject checked against what the real chart renders.
 */
import { CHART_VERSION } from '../src/release/chart-values-keys.generated';
import { parseAllDocuments } from 'yaml';
import { inc } from 'semver';
import { loadPlatform } from '../src/config/load';
import { CLUSTER_KINDS, JOB_KIND, NAMESPACED_KINDS } from '../src/model/applications';
import { synthesize } from '../src/synth';
import { aConfig, aTerraform, removeProjects, writeProject } from './builders';
import { helmTemplate } from './support/helm';
import { defaulted, validate } from './support/crd-validator';

afterAll(removeProjects);

type Doc = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; finalizers?: string[]; annotations?: Record<string, string> }; spec: any };

/** The next minor release after the one in use: a staged upgrade's target. */
const NEXT = inc(CHART_VERSION, 'minor') ?? '';
const quoted = (v: string) => v.replace(/\./g, '\\.');

/** prod (the version in use, its own namespace) and staging (a staged NEXT, web with more capacity, ml left out), project karpenter. */
function fleet() {
  const config = aConfig({
    gitops: { repoURL: 'https://github.com/acme/platform-gitops.git', targetRevision: 'main', project: 'karpenter' },
    karpenter: { version: CHART_VERSION, namespace: 'karpenter' },
    clusters: {
      demo: undefined,
      prod: { terraformOutputs: 'terraform/prod.json' },
      staging: {
        terraformOutputs: 'terraform/staging.json',
        destination: { name: 'staging' },
        karpenter: { version: NEXT, controller: { replicas: 1 } },
        teams: { web: { limits: { cpu: '40' }, pools: { batch: { weight: 10 } } }, data: null },
      },
    },
    teams: { web: { namespaces: ['web'], limits: { cpu: '10' }, pools: { batch: { limits: { cpu: '5' } } } }, data: { namespaces: ['data'], buffer: { replicas: 1, cpu: '1', memory: '1Gi' } }, ml: { namespaces: ['ml'] } },
    overlays: { 'savings-plan': { requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7i'] }], priceAdjustment: '-28%' } },
  });
  const project = writeProject({
    config,
    terraform: {
      prod: aTerraform({ cluster_name: 'prod', karpenter_controller_role_arn: undefined }),
      staging: aTerraform({ cluster_name: 'staging' }),
    },
  });
  const { platform, warnings } = loadPlatform(project.configPath);
  return { files: synthesize(platform), warnings };
}

function docs(files: ReadonlyMap<string, string>, path: string): Doc[] {
  const text = files.get(path);
  if (text === undefined) throw new Error(`no ${path} in ${[...files.keys()].join(', ')}`);
  return parseAllDocuments(text).map((d) => d.toJS() as Doc);
}

describe('a two-cluster fleet', () => {
  const { files, warnings } = fleet();

  it('writes each team\'s pools in its own folder, with one Application per team and cluster', () => {
    const paths = [...files.keys()];
    // Each team's folder also holds its guard gate (every team here lists namespaces).
    expect(paths.filter((p) => p.includes('/nodepools/'))).toEqual([
      'dist/prod/nodepools/data/_buffer.yaml', 'dist/prod/nodepools/data/_guard-gate.yaml', 'dist/prod/nodepools/data/data.yaml',
      'dist/prod/nodepools/ml/_guard-gate.yaml', 'dist/prod/nodepools/ml/ml.yaml',
      'dist/prod/nodepools/web/_guard-gate.yaml', 'dist/prod/nodepools/web/web-batch.yaml', 'dist/prod/nodepools/web/web.yaml',
      'dist/staging/nodepools/data/_buffer.yaml', 'dist/staging/nodepools/data/_guard-gate.yaml', 'dist/staging/nodepools/data/data.yaml',
      'dist/staging/nodepools/web/_guard-gate.yaml', 'dist/staging/nodepools/web/web-batch.yaml', 'dist/staging/nodepools/web/web.yaml',
    ]);
    expect(paths.filter((p) => p.includes('/apps/pools-'))).toEqual([
      'dist/prod/apps/pools-data.yaml', 'dist/prod/apps/pools-ml.yaml', 'dist/prod/apps/pools-web.yaml',
      'dist/staging/apps/pools-data.yaml', 'dist/staging/apps/pools-web.yaml',
    ]);
    const [web] = docs(files, 'dist/staging/apps/pools-web.yaml');
    expect(web.metadata).toMatchObject({ name: 'staging-pools-web', annotations: { 'argocd.argoproj.io/sync-wave': '2' }, finalizers: ['resources-finalizer.argocd.argoproj.io'] });
    expect(web.spec).toMatchObject({ project: 'karpenter', source: { path: 'dist/staging/nodepools/web' }, destination: { name: 'staging', namespace: 'karpenter' } });
  });

  it('gives the cluster-team fields to that cluster only, after the team\'s pool fields', () => {
    const limits = (path: string, kind = 'NodePool') => docs(files, path).find((d) => d.kind === kind)?.spec.limits;
    expect(limits('dist/prod/nodepools/web/web.yaml')).toEqual({ cpu: '10', memory: '400Gi' });
    expect(limits('dist/staging/nodepools/web/web.yaml')).toEqual({ cpu: '40', memory: '400Gi' });
    // cluster.teams.web beats teams.web.pools.batch; cluster.teams.web.pools.batch adds its weight.
    expect(docs(files, 'dist/staging/nodepools/web/web-batch.yaml').find((d) => d.kind === 'NodePool')?.spec).toMatchObject({ limits: { cpu: '40' }, weight: 10 });
    expect(docs(files, 'dist/prod/nodepools/web/web-batch.yaml').find((d) => d.kind === 'NodePool')?.spec).toMatchObject({ limits: { cpu: '5' } });
  });

  it('shows a staged version only in its cluster\'s Applications, values and summary', () => {
    const version = (path: string) => {
      const [app] = docs(files, path);
      return app.spec.source?.targetRevision ?? app.spec.sources[0].targetRevision;
    };
    expect([version('dist/staging/apps/karpenter-crd.yaml'), version('dist/staging/apps/karpenter.yaml')]).toEqual([NEXT, NEXT]);
    expect([version('dist/prod/apps/karpenter-crd.yaml'), version('dist/prod/apps/karpenter.yaml')]).toEqual([CHART_VERSION, CHART_VERSION]);
    expect(files.get('dist/staging/karpenter/values.yaml')).toMatch(new RegExp(`^# Karpenter ${quoted(NEXT)} chart values for cluster staging\\.$`, 'm'));
    expect(files.get('dist/staging/SUMMARY.md')).toMatch(new RegExp(`^# Cluster \`staging\`[^#]*Karpenter ${quoted(NEXT)} in namespace \`karpenter\``));
    expect(files.get('dist/prod/SUMMARY.md')).toMatch(new RegExp(`^# Cluster \`prod\`[^#]*Karpenter ${quoted(CHART_VERSION)} in namespace \`karpenter\``));
    expect(files.get('dist/SUMMARY.md')).toContain(`- **${NEXT}** on 1 cluster: \`staging\``);
    expect(warnings.map((w) => w.message)).toEqual([expect.stringMatching(new RegExp(`^cluster staging runs Karpenter ${quoted(NEXT)}, but the generator's CRD classes, chart keys and settings rules are those of ${quoted(CHART_VERSION)}`))]);
  });

  it('writes one bootstrap Application that syncs every root, the project and the Helm repository', () => {
    const [bootstrap] = docs(files, 'argocd/bootstrap.yaml');
    expect(bootstrap.metadata.name).toBe('karpenter-gitops-bootstrap');
    expect(bootstrap.spec).toMatchObject({
      project: 'default',
      source: { path: 'argocd', directory: { include: '{helm-repository.yaml,prod.yaml,project.yaml,staging.yaml}' } },
      syncPolicy: { automated: { enabled: true, prune: true } },
    });
    for (const root of ['prod', 'staging']) expect(docs(files, `argocd/${root}.yaml`)[0].metadata.name).toBe(`${root}-karpenter-root`);
  });

  it('passes the Argo CD and Karpenter CRDs with nothing for the API server to default, for every object it writes', () => {
    let checked = 0;
    for (const [path, text] of files) {
      if (!path.endsWith('.yaml') || path.endsWith('values.yaml')) continue;
      for (const doc of parseAllDocuments(text).map((d) => d.toJS() as Doc)) {
        if (!['Application', 'AppProject', 'NodePool', 'EC2NodeClass'].includes(doc.kind)) continue;
        expect({ path, problems: validate(doc) }).toEqual({ path, problems: [] });
        expect({ path, stored: defaulted(doc) }).toEqual({ path, stored: doc });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  describe('the AppProject', () => {
    const [project] = docs(files, 'argocd/project.yaml');
    const allows = (list: { group: string; kind: string }[], apiVersion: string, kind: string) => {
      const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
      return list.some((k) => k.group === group && k.kind === kind);
    };

    it('allows every kind the controller chart renders, with every optional part on, in the namespaces it renders them to', () => {
      const rendered = helmTemplate({
        settings: { clusterName: 'prod' }, serviceMonitor: { enabled: true }, podDisruptionBudget: { name: 'karpenter', maxUnavailable: 1 },
      }, { namespace: 'karpenter', apiVersions: ['monitoring.coreos.com/v1'] });
      expect(rendered.map((o) => o.kind)).toContain('ServiceMonitor');
      for (const obj of rendered) {
        const namespaced = obj.metadata.namespace !== undefined;
        const whitelist = namespaced ? project.spec.namespaceResourceWhitelist : project.spec.clusterResourceWhitelist;
        expect({ kind: obj.kind, allowed: allows(whitelist, obj.apiVersion, obj.kind) }).toEqual({ kind: obj.kind, allowed: true });
        if (namespaced) {
          expect(project.spec.destinations).toContainEqual({ server: 'https://kubernetes.default.svc', namespace: obj.metadata.namespace });
        }
      }
    });

    it('allows the pools, buffers, overlays, tenancy policies, smoke tests, CRDs and Applications, and nothing the delivery does not create', () => {
      const created = new Set<string>(['apiextensions.k8s.io/CustomResourceDefinition', 'argoproj.io/Application']);
      for (const [path, text] of files) {
        if (!/\/(nodepools|smoke-tests|policies|overlays)\//.test(path)) continue;
        for (const doc of parseAllDocuments(text).map((d) => d.toJS() as Doc)) created.add(`${doc.apiVersion.includes('/') ? doc.apiVersion.split('/')[0] : ''}/${doc.kind}`);
      }
      const chart = helmTemplate({ settings: { clusterName: 'prod' }, serviceMonitor: { enabled: true } }, { namespace: 'karpenter', apiVersions: ['monitoring.coreos.com/v1'] });
      for (const obj of chart) created.add(`${obj.apiVersion.includes('/') ? obj.apiVersion.split('/')[0] : ''}/${obj.kind}`);
      created.add('/Namespace'); // CreateNamespace=true of the controller's namespace
      // The parameters of the release before: a prune is checked against the project as any task (argo-cd v3.5.1 gitops-engine/pkg/sync/sync_context.go l. 1044-1095).
      created.add('karpenter-gitops.io/TeamTenancy');
      // A Job too: the guard gates' hooks (the project allows it only where a team's pools are guarded, as here).
      expect(project.spec.namespaceResourceWhitelist).toContainEqual(JOB_KIND);
      const allowed = [...CLUSTER_KINDS, ...NAMESPACED_KINDS, JOB_KIND].map((k) => `${k.group}/${k.kind}`);
      expect(allowed.sort()).toEqual([...created].sort());
      expect(project.spec).toMatchObject({ sourceRepos: ['https://github.com/acme/platform-gitops.git', 'public.ecr.aws/karpenter'] });
    });
  });
});
