import { Change, review } from '../../src/review/changes';
import { GeneratedTree } from '../../src/review/tree';
import { renderYaml } from '../../src/output/render';

type Obj = Record<string, unknown>;

function nodePool(name: string, spec: Obj = {}, template: Obj = {}, team = name): Obj {
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodePool',
    metadata: { name, labels: { team }, annotations: { 'argocd.argoproj.io/sync-options': 'Prune=confirm,Delete=confirm' } },
    spec: {
      disruption: { budgets: [{ nodes: '10%' }], consolidateAfter: '1m', consolidationPolicy: 'WhenEmptyOrUnderutilized' },
      template: {
        metadata: { labels: { team } },
        spec: { expireAfter: '720h', nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name }, requirements: [], ...template },
      },
      ...spec,
    },
  };
}

function nodeClass(name: string, spec: Obj = {}, team = name): Obj {
  return {
    apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name, labels: { team } },
    spec: {
      amiFamily: 'AL2023', amiSelectorTerms: [{ alias: 'al2023@v20250505' }], role: 'KarpenterNodeRole-demo',
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }], securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
      tags: { team, Name: `demo/${name}` }, ...spec,
    },
  };
}

function application(name: string, extra: Obj = {}): Obj {
  return {
    apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name, namespace: 'argocd', finalizers: ['resources-finalizer.argocd.argoproj.io'] },
    spec: { source: { chart: 'karpenter', repoURL: 'public.ecr.aws/karpenter', targetRevision: '1.14.1' }, syncPolicy: { automated: { enabled: true, prune: true } } },
    ...extra,
  };
}

/** A tree: file path to its documents. */
function tree(files: Record<string, Obj[]>): Map<string, string> {
  return new Map(Object.entries(files).map(([path, docs]) => [path, renderYaml(docs)]));
}

function changes(before: Map<string, string>, after: Map<string, string>): Change[] {
  return [...review(new GeneratedTree(before, 'base'), new GeneratedTree(after, 'head')).changes];
}

/** Each change as `risk kind name action`, then its field lines. */
function lines(cs: Change[]): string[] {
  return cs.flatMap((c) => [`${c.risk} ${c.resource.cluster} ${c.resource.kind} ${c.resource.name} ${c.action}: ${c.why}`, ...c.fields.map((f) => `  ${f.text} — ${f.why}`)]);
}

const web = (pool: Obj = nodePool('web'), cls: Obj = nodeClass('web')) => tree({ 'dist/demo/nodepools/web.yaml': [cls, pool] });

describe('identity', () => {
  it('keeps equal pool names in two clusters apart', () => {
    const before = tree({ 'dist/prod/nodepools/web.yaml': [nodeClass('web'), nodePool('web')], 'dist/dev/nodepools/web.yaml': [nodeClass('web'), nodePool('web')] });
    const after = tree({ 'dist/prod/nodepools/web.yaml': [nodeClass('web'), nodePool('web')] });
    expect(changes(before, after).map((c) => `${c.risk} ${c.resource.cluster} ${c.resource.kind} ${c.action}`))
      .toEqual(['destructive dev EC2NodeClass removed', 'destructive dev NodePool removed']);
  });

  it('sees no change in a resource whose file moved with the same content', () => {
    const before = tree({ 'dist/demo/nodepools/web.yaml': [nodeClass('web'), nodePool('web')] });
    const after = tree({ 'dist/demo/nodepools/web/web.yaml': [nodePool('web'), nodeClass('web')] });
    expect(changes(before, after)).toEqual([]);
  });
});

describe('EC2NodeClass fields, by the provider\'s hash and resolved drift', () => {
  const change = (spec: Obj) => lines(changes(web(), web(nodePool('web'), nodeClass('web', spec))));

  it.each<[string, Obj, string[]]>([
    ['a subnet term: the nodes in subnets no longer selected', { subnetSelectorTerms: [{ id: 'subnet-1' }] }, [
      'replaces-nodes demo EC2NodeClass web changed: Karpenter may replace some nodes of NodePool web: those that no longer match (drift)',
      '  subnet selector term tags karpenter.sh/discovery=demo -> id=subnet-1 — selector terms are not hashed, but nodes in a subnet the terms no longer select drift (SubnetDrift)',
    ]],
    ['a security group term: every node if the resolved set changes', { securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }, { name: 'extra' }] }, [
      'replaces-nodes demo EC2NodeClass web changed: Karpenter replaces every node of NodePool web (drift)',
      '  security group selector term added: name=extra — selector terms are not hashed, but if the security groups they resolve to change, every node drifts (SecurityGroupDrift compares the whole set)',
    ]],
    ['AMI terms other than an alias: the nodes on AMIs no longer resolved', { amiFamily: 'AL2023', amiSelectorTerms: [{ name: 'my-ami-*', owner: 'self' }] }, [
      'replaces-nodes demo EC2NodeClass web changed: Karpenter may replace some nodes of NodePool web: those that no longer match (drift)',
      '  AMI selector term alias=al2023@v20250505 -> name=my-ami-*, owner=self — selector terms are not hashed, but nodes running an AMI the terms no longer resolve to drift (AMIDrift)',
    ]],
    ['amiFamily dropped where the alias gives the same family', { amiFamily: undefined }, [
      'other demo EC2NodeClass web changed: no effect on nodes',
      '  amiFamily removed (was AL2023) — amiFamily is hashed as resolved, and it resolves to the same family: no node drifts',
    ]],
    ['amiFamily changed to Custom', { amiFamily: 'Custom' }, [
      'replaces-nodes demo EC2NodeClass web changed: Karpenter replaces every node of NodePool web (drift)',
      '  amiFamily: AL2023 -> Custom — in the EC2NodeClass hash: every node of the NodePools using it drifts',
    ]],
    ['ipPrefixCount, which is not hashed', { ipPrefixCount: 1 }, [
      'other demo EC2NodeClass web changed: no effect on nodes',
      '  ipPrefixCount added: 1 — not in the EC2NodeClass hash: applies to nodes launched from now on, no node drifts',
    ]],
    ['userData, the role and a block device, which are', {
      userData: 'line 1\nline 2', role: 'Other',
      blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize: '30Gi' } }],
    }, [
      'replaces-nodes demo EC2NodeClass web changed: Karpenter replaces every node of NodePool web (drift)',
      '  role: KarpenterNodeRole-demo -> Other — in the EC2NodeClass hash: every node of the NodePools using it drifts',
      '  userData added: (2 lines) — in the EC2NodeClass hash: every node of the NodePools using it drifts',
      '  blockDeviceMappings added: [{"deviceName":"/dev/xvda","ebs":{"volumeSize":"30Gi"}}] — in the EC2NodeClass hash: every node of the NodePools using it drifts',
    ]],
  ])('%s', (_what, spec, expected) => {
    expect(change(spec)).toEqual(expected);
  });

  it('matches block devices by device name', () => {
    const bdm = (size: string) => ({ blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize: '4Gi' } }, { deviceName: '/dev/xvdb', ebs: { volumeSize: size } }] });
    expect(lines(changes(web(nodePool('web'), nodeClass('web', bdm('20Gi'))), web(nodePool('web'), nodeClass('web', { ...bdm('40Gi'), blockDeviceMappings: [...bdm('40Gi').blockDeviceMappings].reverse() })))).slice(1))
      .toEqual(['  blockDeviceMappings[/dev/xvdb].ebs.volumeSize: 20Gi -> 40Gi — in the EC2NodeClass hash: every node of the NodePools using it drifts']);
  });

  it('replaces no node when no NodePool uses the class', () => {
    const before = tree({ 'dist/demo/nodepools/spare.yaml': [nodeClass('spare')] });
    const after = tree({ 'dist/demo/nodepools/spare.yaml': [nodeClass('spare', { role: 'Other' })] });
    expect(lines(changes(before, after))[0]).toBe('other demo EC2NodeClass spare changed: no NodePool uses it: no node is replaced');
  });

  it('paces a class change by the budgets of every pool using it, found in files that did not change', () => {
    const shared = (cls: Obj) => tree({
      'dist/demo/nodepools/shared.yaml': [cls],
      'dist/demo/nodepools/a.yaml': [nodePool('a', {}, { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'shared' } })],
      'dist/demo/nodepools/b.yaml': [nodePool('b', { disruption: { budgets: [{ nodes: '1' }, { nodes: '0', reasons: ['Underutilized'] }] } },
        { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'shared' } })],
      'dist/demo/nodepools/c.yaml': [nodePool('c')],
    });
    const [c] = changes(shared(nodeClass('shared')), shared(nodeClass('shared', { tags: { owner: 'x' } })));
    expect(c.why).toBe('Karpenter replaces every node of NodePool a, b (drift)');
    expect(c.pacedBy).toBe('NodePool a: 10% at a time; NodePool b: 1 at a time');
  });
});

describe('NodePool fields, by the NodePool hash and the requirements check', () => {
  const change = (spec: Obj, template: Obj = {}) => lines(changes(web(), web(nodePool('web', spec, template))));

  it.each<[string, Obj, Obj, string[]]>([
    ['a taint value, a startup taint and a nodeClassRef', {}, {
      taints: [{ key: 'dedicated', value: 'api', effect: 'NoSchedule' }], startupTaints: [{ key: 'init', effect: 'NoExecute' }],
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'web-v2' },
    }, [
      'replaces-nodes demo NodePool web changed: Karpenter replaces every node of the pool (drift)',
      '  taint dedicated=api:NoSchedule added — in the NodePool hash (spec.template): every node of the pool drifts and is replaced',
      '  startup taint init:NoExecute added — in the NodePool hash (spec.template): every node of the pool drifts and is replaced',
      '  nodeClassRef.name: web -> web-v2 — in the NodePool hash (spec.template): every node of the pool drifts and is replaced',
    ]],
    ['consolidation from WhenEmpty', { disruption: { budgets: [{ nodes: '10%' }], consolidateAfter: '1m', consolidationPolicy: 'WhenEmpty' } }, {}, [
      'capacity demo NodePool web changed: no node is replaced: changes how much Karpenter launches, or when it consolidates',
      '  consolidationPolicy: WhenEmptyOrUnderutilized -> WhenEmpty — not in spec.template: no node drifts',
    ]],
    ['weight and a budget\'s nodes', { weight: 10, disruption: { budgets: [{ nodes: '20%' }], consolidateAfter: '1m', consolidationPolicy: 'WhenEmptyOrUnderutilized' } }, {}, [
      'capacity demo NodePool web changed: no node is replaced: changes how much Karpenter launches, or when it consolidates',
      '  budget: nodes 10% -> 20% — budgets pace disruption and are not hashed: no node drifts',
      '  weight added: 10 — not in spec.template: no node drifts',
    ]],
  ])('%s', (_what, spec, template, expected) => {
    expect(change(spec, template)).toEqual(expected);
  });

  it('says when consolidation may now remove nodes it kept', () => {
    const before = web(nodePool('web', { disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '1m' } }));
    expect(lines(changes(before, web()))).toContain(
      '  consolidationPolicy: WhenEmpty -> WhenEmptyOrUnderutilized — not in spec.template: no node drifts, but Karpenter may now consolidate (remove or replace) nodes it kept before');
  });

  it('names a requirement value no instance type has on its change line, with the value meant', () => {
    const families = (...values: string[]) => web(nodePool('web', {}, { requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values }] }));
    expect(lines(changes(families('m7i'), families('m7l', 'c7i')))).toEqual([
      'replaces-nodes demo NodePool web changed: Karpenter may replace some nodes of the pool: those that no longer match (drift)',
      '  requirement karpenter.k8s.aws/instance-family: added m7l, c7i; removed m7i; m7l matches no instance type (did you mean m7i?) — '
        + 'requirements are not hashed, but nodes whose karpenter.k8s.aws/instance-family is m7i no longer match them and drift (RequirementsDrifted)',
    ]);
  });

  it('says when a change leaves the pool\'s requirements admitting no instance type at all', () => {
    const pool = (requirements: Obj[]) => web(nodePool('web', {}, { requirements }));
    const arch = { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] };
    expect(lines(changes(pool([arch]), pool([arch, { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7g'] }])))).toContain(
      '  its requirements admit no instance type: the pool launches no node — kubernetes.io/arch In [amd64] and karpenter.k8s.aws/instance-family In [m7g] together admit no instance type: '
        + 'the 9 instance types karpenter.k8s.aws/instance-family In [m7g] admits have kubernetes.io/arch [arm64]');
  });

  it('compares budgets as a set, their reasons too', () => {
    const budgets = (list: Obj[]) => web(nodePool('web', { disruption: { budgets: list, consolidateAfter: '1m', consolidationPolicy: 'WhenEmptyOrUnderutilized' } }));
    const a = { nodes: '0', schedule: '0 9 * * *', duration: '8h', reasons: ['Drifted', 'Empty'] };
    expect(changes(budgets([{ nodes: '10%' }, a]), budgets([{ ...a, reasons: ['Empty', 'Drifted'] }, { nodes: '10%' }]))).toEqual([]);
  });

  it('files object metadata under other, and says when Prune=confirm is dropped', () => {
    const after = nodePool('web');
    (after.metadata as Obj).annotations = { 'argocd.argoproj.io/sync-options': 'Delete=confirm' };
    expect(lines(changes(web(), web(after)))).toEqual([
      'other demo NodePool web changed: no effect on nodes',
      '  annotation argocd.argoproj.io/sync-options: "Prune=confirm,Delete=confirm" -> Delete=confirm — metadata of the object, not of its nodes: no node drifts; '
        + 'but Argo CD would now prune it without asking a person (Prune=confirm dropped)',
    ]);
  });

  it('flags a rename as a removal, naming the likely new name', () => {
    const cs = changes(web(), tree({ 'dist/demo/nodepools/web-v2.yaml': [nodeClass('web-v2', {}, 'web'), nodePool('web-v2', {}, {}, 'web')] }));
    expect(cs.map((c) => `${c.risk} ${c.resource.kind} ${c.resource.name} ${c.action}`)).toEqual([
      'destructive EC2NodeClass web removed', 'destructive NodePool web removed', 'capacity NodePool web-v2 added', 'other EC2NodeClass web-v2 added',
    ]);
    expect(cs[1].why).toMatch(/; likely renamed to web-v2: a rename deletes the old NodePool and creates a new one$/);
  });
});

describe('Applications', () => {
  const apps = (...docs: Obj[]) => tree(Object.fromEntries(docs.map((d) => [`dist/demo/apps/${(d.metadata as Obj).name}.yaml`, [d]])));

  it('reads a chart version bump of a Karpenter chart as a controller change', () => {
    const bumped = application('demo-karpenter');
    (bumped.spec as Obj).source = { chart: 'karpenter', repoURL: 'public.ecr.aws/karpenter', targetRevision: '1.15.0' };
    expect(lines(changes(apps(application('demo-karpenter')), apps(bumped)))).toEqual([
      'controller demo Application demo-karpenter changed: changes the Karpenter controller (chart version or values)',
      '  chart karpenter 1.14.1 -> 1.15.0 — a new Karpenter chart version: Argo CD upgrades it in this cluster',
    ]);
  });

  it('reads values as the controller\'s', () => {
    const values = (replicas: number) => new Map([['dist/demo/karpenter/values.yaml', renderYaml([{ replicas }])]]);
    expect(lines(changes(values(2), values(1)))).toEqual([
      'controller demo HelmValues dist/demo/karpenter/values.yaml changed: changes the Karpenter controller (chart version or values)',
      '  replicas: 2 -> 1 — changes the Karpenter controller: its Deployment rolls; no node drifts for it',
    ]);
  });

  it('reports an Application removed without the resources finalizer as keeping what it deployed', () => {
    const pools = application('demo-pools', { spec: { source: { path: 'dist/demo/nodepools' } } });
    (pools.metadata as Obj).finalizers = [];
    const before = new Map([...apps(pools), ...web()]);
    expect(lines(changes(before, web()))).toEqual([
      'other demo Application demo-pools removed: no resources finalizer: Argo CD removes the Application and keeps what it deployed (1 EC2NodeClass, 1 NodePool)',
    ]);
  });

  it('counts as deployed only the files that directory.include lets in and directory.exclude does not, globbed as Argo CD does', () => {
    const pools = application('demo-pools', {
      spec: { source: { path: 'dist/demo/nodepools', directory: { recurse: true, include: '{web/*,b?.yaml}', exclude: '*/skip.yaml' } } },
    });
    const files = tree({
      'dist/demo/nodepools/web/web.yaml': [nodeClass('web'), nodePool('web')],
      'dist/demo/nodepools/web/skip.yaml': [nodePool('skip')],
      'dist/demo/nodepools/ml/ml.yaml': [nodePool('ml')],
      'dist/demo/nodepools/b1.yaml': [nodeClass('b1')],
      'dist/demo/nodepools/b10.yaml': [nodeClass('b10')],
    });
    expect(lines(changes(new Map([...apps(pools), ...files]), files))).toEqual([
      'destructive demo Application demo-pools removed: its resources finalizer deletes what it deployed (2 EC2NodeClasses, 1 NodePool) — every node of those pools drains',
    ]);
  });

  it('reports removing a smoke-test Application with the finalizer as no drain', () => {
    const smoke = application('demo-smoke', { spec: { source: { path: 'dist/demo/smoke-tests' } } });
    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'karpenter-smoke-tests', labels: { 'app.kubernetes.io/name': 'karpenter-smoke-test' } },
    };
    const before = new Map([...apps(smoke), ...tree({ 'dist/demo/smoke-tests/web.yaml': [deployment] })]);
    expect(lines(changes(before, new Map()))).toEqual([
      'other demo Application demo-smoke removed: its resources finalizer deletes what it deployed (1 smoke test); no node drains',
      'other demo Deployment web removed: a smoke test: no effect on nodes',
    ]);
  });
});
