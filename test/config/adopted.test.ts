/**
 * The pool fields adoption writes (issue 36, docs/adopting.md "What adopted means"), as a user
 * would write them by hand: `adopted` (nothing of the generator's own, no defaults), `name` (set
 * where the pool is defined, never inherited), `nodeClass` (pools of a cluster sharing one
 * EC2NodeClass must say the same of it) and a cluster's `manualSync`.
 */
import { parse, parseAllDocuments } from 'yaml';
import { synthesize } from '../../src/synth';
import { aConfig, Plain, removeProjects } from '../builders';
import { aProblem, load, problemsOf, runProblemsOf } from './helpers';

afterAll(removeProjects);

const withTeams = (teams: Plain, rest: Plain = {}) => ({ config: aConfig({ teams, ...rest }) });
/** The pools of team `team` on cluster demo. */
const poolsOf = (team: string, teams: Plain) => load(withTeams(teams)).platform.clusters[0].pools.filter((p) => p.team === team);
const ADOPTED = { adopted: true, ami: { alias: 'al2023@v20250505' }, limits: { cpu: '64' } };

/** The objects synth writes for cluster demo, by `kind/name`. */
function objects(teams: Plain, rest: Plain = {}): Map<string, Plain> {
  const files = synthesize(load(withTeams(teams, rest)).platform);
  const out = new Map<string, Plain>();
  for (const [path, text] of files) {
    if (!path.startsWith('dist/demo/') && !path.startsWith('argocd/')) continue;
    for (const d of parseAllDocuments(text)) {
      const o = d.toJS() as Plain | null;
      if (o && typeof o.kind === 'string') out.set(`${o.kind}/${String((o.metadata as Plain).name)}`, o);
    }
  }
  return out;
}

describe('adopted: true', () => {
  it('renders the NodePool and EC2NodeClass with nothing of the generator\'s own: no team label, taint, tags, arch or capacity type, no volume', () => {
    const o = objects({ web: {}, platform: { ...ADOPTED, name: 'default', labels: { 'node-type': 'general' } } });
    const np = o.get('NodePool/default') as Plain;
    const spec = (np.spec as Plain);
    expect((spec.template as Plain).metadata).toEqual({ labels: { 'node-type': 'general' } });
    const t = (spec.template as Plain).spec as Plain;
    expect(t.taints).toBeUndefined();
    // The CRD requires the list; an adopted pool's is only what its fields say.
    expect(t.requirements).toEqual([]);
    const nc = (o.get('EC2NodeClass/default') as Plain).spec as Plain;
    expect(nc.tags).toBeUndefined();
    expect(nc.blockDeviceMappings).toBeUndefined();
    expect(nc.amiFamily).toBeUndefined();
    // The team that is not adopted keeps every convention.
    const web = (o.get('NodePool/web') as Plain).spec as Plain;
    expect(((web.template as Plain).metadata as Plain).labels).toMatchObject({ team: 'web' });
  });

  it('does not take the fleet\'s defaults (a default limit would change what runs)', () => {
    const teams = { platform: { adopted: true, ami: { alias: 'al2023@v20250505' } } };
    expect(poolsOf('platform', teams)[0].settings.limits).toBeUndefined();
    expect(poolsOf('web', teams)[0].settings.limits).toEqual({ cpu: '100', memory: '400Gi' });
  });

  it('lets an adopted pool set the labels and tags the generator reserves for itself', () => {
    const [pool] = poolsOf('platform', { platform: { ...ADOPTED, labels: { team: 'platform' }, tags: { team: 'platform', Name: 'karpenter' } } });
    expect(pool.settings.labels).toEqual({ team: 'platform' });
    expect(problemsOf(withTeams({ web: { labels: { team: 'web' } } }))).toEqual([expect.stringMatching(/teams\.web\.labels\.team: the label "team" is set by the generator/)]);
  });

  it('fails when defaults say adopted', () => {
    expect(problemsOf({ config: aConfig({ defaults: { adopted: true } }) })).toEqual(aProblem(/defaults\.adopted: adopted is set on a team, a pool or a cluster's team, not in defaults/));
  });
});

describe('name', () => {
  it('names the NodePool where the pool is defined; pools of the team do not inherit the team\'s name', () => {
    expect(poolsOf('platform', { platform: { ...ADOPTED, name: 'default', pools: { gpu: {}, sys: { name: 'system' } } } }).map((p) => p.name)).toEqual(['default', 'platform-gpu', 'system']);
  });

  it('fails when a cluster or the defaults set a name, at the key', () => {
    const input = withTeams({ web: {} }, { clusters: { demo: { terraformOutputs: 'terraform/demo.json', teams: { web: { name: 'other' } } } } });
    expect(problemsOf(input)).toEqual(aProblem(/clusters\.demo\.teams\.web\.name: a NodePool's name is set where its pool is defined/));
  });

  it('fails when two pools come to the same name', () => {
    expect(problemsOf(withTeams({ web: { pools: { a: { name: 'shared' }, b: { name: 'shared' } } } }))).toEqual(aProblem(/shared/));
  });
});

describe('nodeClass', () => {
  it('lets pools of a cluster share one EC2NodeClass, rendered once', () => {
    const o = objects({ platform: { ...ADOPTED, name: 'default', pools: { sys: { name: 'system', nodeClass: 'default' } } } });
    expect([...o.keys()].filter((k) => k.startsWith('EC2NodeClass/'))).toEqual(['EC2NodeClass/default', 'EC2NodeClass/web']);
    const ref = (((o.get('NodePool/system') as Plain).spec as Plain).template as Plain).spec as Plain;
    expect(ref.nodeClassRef).toEqual({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' });
  });

  it('fails when pools sharing a class say otherwise of it, naming both pools, the field and the fix', () => {
    const input = withTeams({ platform: { ...ADOPTED, name: 'default', pools: { sys: { name: 'system', nodeClass: 'default', userData: 'echo hi' } } } });
    expect(runProblemsOf(input)).toEqual(aProblem(
      /teams\.platform\.pools\.sys\.nodeClass: pool system shares EC2NodeClass default with pool default on cluster demo, but says otherwise of it: its userData is "echo hi", pool default's undefined; give both the same fields, or this pool its own nodeClass/,
    ));
  });
});

describe('clusters.<id>.manualSync', () => {
  it('creates the cluster\'s root and every child Application without automated sync (the fleet\'s bootstrap still creates the root)', () => {
    const files = synthesize(load({ config: aConfig({ clusters: { demo: { terraformOutputs: 'terraform/demo.json', manualSync: true } } }) }).platform);
    const apps = [...files].filter(([p]) => p.startsWith('argocd/') || p.startsWith('dist/demo/apps/')).flatMap(([, text]) => parseAllDocuments(text).map((d) => d.toJS() as Plain | null))
      .filter((a): a is Plain => a?.kind === 'Application' && (a.metadata as Plain).name !== 'karpenter-gitops-bootstrap');
    expect(apps.length).toBeGreaterThan(2);
    for (const a of apps) expect(((a.spec as Plain).syncPolicy as Plain | undefined)?.automated).toBeUndefined();
    const normal = synthesize(load({}).platform);
    const root = parse(normal.get('argocd/demo.yaml') as string) as Plain;
    expect(((root.spec as Plain).syncPolicy as Plain).automated).toBeDefined();
  });

  it('says so on the cluster\'s page and in dist/summary.json (which the review reads), and nowhere for a cluster that syncs on its own', () => {
    const files = synthesize(load({ config: aConfig({ clusters: { demo: { terraformOutputs: 'terraform/demo.json', manualSync: true } } }) }).platform);
    expect(files.get('dist/demo/SUMMARY.md')).toContain('Synced by hand (`manualSync: true`): its root and every Application it creates have no automated sync');
    expect((JSON.parse(files.get('dist/summary.json')!) as { clusters: Plain[] }).clusters[0]).toMatchObject({ id: 'demo', manualSync: true });
    const normal = synthesize(load({}).platform);
    expect(normal.get('dist/demo/SUMMARY.md')).not.toContain('Synced by hand');
    expect((JSON.parse(normal.get('dist/summary.json')!) as { clusters: Plain[] }).clusters[0]).not.toHaveProperty('manualSync');
  });
});
