import { Change, classify, resourcesOf, Risk } from '../../src/review/changes';
import { renderYaml } from '../../src/output/render';

type Obj = Record<string, unknown>;

function nodePool(name: string, spec: Obj = {}, team = name): Obj {
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name, labels: { team } },
    spec: {
      disruption: { budgets: [{ nodes: '10%' }], consolidateAfter: '1m', consolidationPolicy: 'WhenEmptyOrUnderutilized' },
      template: { metadata: { labels: { team } }, spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name }, requirements: [] } },
      ...spec,
    },
  };
}

function nodeClass(name: string, alias = 'al2023@v20250505', team = name): Obj {
  return { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name, labels: { team } }, spec: { amiSelectorTerms: [{ alias }], role: 'r' } };
}

function application(name: string, targetRevision = '1.14.1'): Obj {
  return {
    apiVersion: 'argoproj.io/v1alpha1', kind: 'Application',
    metadata: { name, namespace: 'argocd', finalizers: ['resources-finalizer.argocd.argoproj.io'] }, spec: { source: { chart: 'karpenter', targetRevision } },
  };
}

/** A generated tree of cluster demo: one file per pool (class + pool), apps, and chart values. */
function tree(pools: Obj[][], apps: Obj[] = [], values: Obj = { replicas: 2 }): Map<string, string> {
  const files = new Map<string, string>();
  for (const docs of pools) files.set(`dist/demo/nodepools/${(docs[0].metadata as Obj).name}.yaml`, renderYaml(docs));
  for (const app of apps) files.set(`dist/demo/apps/${(app.metadata as Obj).name}.yaml`, renderYaml([app]));
  files.set('dist/demo/karpenter/values.yaml', renderYaml([values]));
  return files;
}

function changes(before: Map<string, string>, after: Map<string, string>): Change[] {
  return classify(resourcesOf(before), resourcesOf(after));
}

const only = (cs: Change[], risk: Risk) => cs.filter((c) => c.risk === risk).map((c) => `${c.resource.kind}/${c.resource.name} ${c.action}`);

describe('classify', () => {
  const web = [nodeClass('web'), nodePool('web')];

  it('finds nothing when nothing changed', () => {
    expect(changes(tree([web]), tree([web]))).toEqual([]);
  });

  it('flags a removed pool as destructive, NodePool and EC2NodeClass alike', () => {
    const cs = changes(tree([web, [nodeClass('ml'), nodePool('ml')]]), tree([web]));
    expect(only(cs, 'destructive')).toEqual(['EC2NodeClass/ml removed', 'NodePool/ml removed']);
    expect(cs.find((c) => c.resource.kind === 'NodePool')?.why).toMatch(/every node of the pool drains, whatever the disruption budgets say/);
  });

  it('flags a rename as a removal, naming the likely new name', () => {
    const cs = changes(tree([web]), tree([[nodeClass('web-v2', undefined, 'web'), nodePool('web-v2', {}, 'web')]]));
    expect(only(cs, 'destructive')).toEqual(['EC2NodeClass/web removed', 'NodePool/web removed']);
    expect(cs.find((c) => c.resource.id === 'NodePool//web')?.why).toMatch(/renamed to web-v2\?/);
    expect(only(cs, 'capacity')).toEqual(['NodePool/web-v2 added']);
  });

  it('flags removing the nodepools Application as destructive: its finalizer deletes the NodePools', () => {
    const cs = changes(tree([web], [application('demo-karpenter-nodepools')]), tree([web]));
    expect(only(cs, 'destructive')).toEqual(['Application/demo-karpenter-nodepools removed']);
  });

  it('flags an AMI bump as a node replacement, paced by the budgets of the pools using the class', () => {
    const budgets = { budgets: [{ nodes: '10%' }, { nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h', reasons: ['Drifted'] }, { nodes: '1', reasons: ['Empty'] }] };
    const pool = nodePool('web', { disruption: { ...budgets, consolidateAfter: '1m', consolidationPolicy: 'WhenEmpty' } });
    const cs = changes(tree([[nodeClass('web'), pool]]), tree([[nodeClass('web', 'al2023@v20250601'), pool]]));
    expect(cs).toEqual([expect.objectContaining({
      risk: 'replaces-nodes',
      fields: [{ path: 'spec.amiSelectorTerms[0].alias', before: 'al2023@v20250505', after: 'al2023@v20250601' }],
      pacedBy: 'NodePool web: 10% at a time, 0 at a time during "0 9 * * mon-fri" for 8h',
    })]);
  });

  it.each([
    ['requirements', { requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] }],
    ['taints', { taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }] }],
    ['expireAfter', { expireAfter: '168h' }],
  ])('flags a change of the NodePool template (%s) as a node replacement', (_field, templateSpec) => {
    const after = nodePool('web');
    const template = (after.spec as Obj).template as Obj;
    template.spec = { ...(template.spec as Obj), ...templateSpec };
    expect(only(changes(tree([web]), tree([[nodeClass('web'), after]])), 'replaces-nodes')).toEqual(['NodePool/web changed']);
  });

  it('flags limits, weight and disruption as capacity, not node replacement', () => {
    const after = nodePool('web', { limits: { cpu: '10' }, weight: 10, disruption: { budgets: [{ nodes: '5%' }], consolidateAfter: '5m', consolidationPolicy: 'WhenEmpty' } });
    const cs = changes(tree([web]), tree([[nodeClass('web'), after]]));
    expect(cs.map((c) => c.risk)).toEqual(['capacity']);
    expect(cs[0].fields.map((f) => f.path).sort()).toEqual([
      'spec.disruption.budgets[0].nodes', 'spec.disruption.consolidateAfter', 'spec.disruption.consolidationPolicy', 'spec.limits', 'spec.weight',
    ]);
  });

  it('flags a chart version bump and a values change as controller changes', () => {
    const cs = changes(tree([web], [application('demo-karpenter')]), tree([web], [application('demo-karpenter', '1.15.0')], { replicas: 3 }));
    expect(only(cs, 'controller')).toEqual(['Application/demo-karpenter changed', 'HelmValues/demo changed']);
  });

  it('files metadata-only changes under other', () => {
    const after = nodePool('web');
    (after.metadata as Obj).annotations = { note: 'x' };
    expect(only(changes(tree([web]), tree([[nodeClass('web'), after]])), 'other')).toEqual(['NodePool/web changed']);
  });

  it('splits one resource over several risks when its fields do', () => {
    const after = nodePool('web', { weight: 5 });
    ((after.metadata as Obj).labels as Obj).extra = 'x';
    expect(changes(tree([web]), tree([[nodeClass('web'), after]])).map((c) => c.risk)).toEqual(['capacity', 'other']);
  });
});
