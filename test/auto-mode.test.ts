/**
 * EKS Auto Mode in the same fleet (issue 48, contract 9.6): `compute` fleet-wide, by group and per
 * cluster; an Auto Mode cluster gets NodePools on `eks.amazonaws.com` NodeClasses and no controller
 * or karpenter.sh CRDs of ours; a cluster that moves (`both`) runs each pool and its tainted Auto Mode
 * twin, its controller pinned to Auto Mode's system pool and the CRDs held, not synced. The NodePools
 * go through the real karpenter.sh CRD; the NodeClasses through a model of what AWS documents
 * (test/support/auto-mode-node-class.ts), never through what this tool writes.
 */
import { parseAllDocuments } from 'yaml';
import { synthesize } from '../src/synth';
import { aTerraform, removeProjects } from './builders';
import { load, problemsOf, warningsOf } from './config/helpers';
import { autoModeNodeClassDefaulted, autoModeNodeClassProblems } from './support/auto-mode-node-class';
import { validate } from './support/crd-validator';

afterAll(removeProjects);

const CLUSTERS = ['self', 'auto', 'moving', 'grouped'];
const terraform = Object.fromEntries(CLUSTERS.map((c) => [c, aTerraform({ cluster_name: c, karpenter_node_role_name: `KarpenterNodeRole-${c}` })]));

/** A fleet of one cluster of each kind: `compute` fleet-wide (karpenter), per cluster, and by a group. */
function rawConfig(teamLines: readonly string[] = ['  web: { namespaces: [web], instanceFamilies: [m7i, c7i], limits: { cpu: "100" } }']): string {
  return [
    'gitops: { repoURL: https://github.com/acme/platform-gitops.git }',
    'karpenter: { version: 1.14.1 }',
    'compute: karpenter',
    'groups:',
    '  auto-eu: { match: { labels: { auto: "yes" } }, compute: autoMode }',
    'clusters:',
    '  self: { terraformOutputs: terraform/self.json }',
    '  auto: { terraformOutputs: terraform/auto.json, destination: { name: auto }, compute: autoMode }',
    '  moving: { terraformOutputs: terraform/moving.json, destination: { name: moving }, compute: both }',
    '  grouped: { terraformOutputs: terraform/grouped.json, destination: { name: grouped }, labels: { auto: "yes" } }',
    'defaults: { ami: { alias: al2023@v20250505 }, limits: { cpu: "100", memory: 400Gi }, volume: { size: 40Gi } }',
    'teams:',
    ...teamLines,
  ].join('\n');
}

/** Every document the fleet's files hold, by path. */
function documents(files: ReadonlyMap<string, string>): { path: string; doc: Record<string, any> }[] {
  return [...files].filter(([p]) => p.endsWith('.yaml')).flatMap(([path, text]) => parseAllDocuments(text).map((d) => ({ path, doc: d.toJS() as Record<string, any> })));
}

describe('a fleet of self-managed, Auto Mode and moving clusters', () => {
  const { platform } = load({ rawConfig: rawConfig(), terraform });
  const files = synthesize(platform);
  const docs = documents(files);
  const of = (cluster: string) => docs.filter(({ path }) => path.startsWith(`dist/${cluster}/`) || path === `argocd/${cluster}.yaml`);

  it('takes compute from the cluster, else its group, else the fleet', () => {
    expect(Object.fromEntries(platform.clusters.map((c) => [c.id, c.compute ?? 'karpenter']))).toEqual({ self: 'karpenter', auto: 'autoMode', moving: 'both', grouped: 'autoMode' });
  });

  it.each(['auto', 'grouped'])('gives Auto Mode cluster %s no controller, no CRDs (its CRD wave holds no karpenter.sh CRD) and no EC2NodeClass', (cluster) => {
    const apps = of(cluster).filter(({ doc }) => doc.kind === 'Application');
    expect(apps.map(({ doc }) => doc.metadata.name).sort()).toEqual([`${cluster}-karpenter-root`, `${cluster}-karpenter-smoke-tests`, `${cluster}-policies`, `${cluster}-pools-web`].sort());
    expect(apps.filter(({ doc }) => doc.metadata.annotations?.['argocd.argoproj.io/sync-wave'] === '0')).toEqual([]);
    expect(JSON.stringify(apps)).not.toMatch(/karpenter-crd|"chart":"karpenter"/);
    expect([...files.keys()].filter((p) => p.startsWith(`dist/${cluster}/karpenter/`))).toEqual([]);
    expect(of(cluster).filter(({ doc }) => doc.kind === 'EC2NodeClass')).toEqual([]);
  });

  it('writes each Auto Mode pool as a NodePool the real CRD takes, on a NodeClass AWS documents, with Auto Mode\'s labels and lifetime', () => {
    const pool = of('auto').find(({ doc }) => doc.kind === 'NodePool')?.doc;
    const nodeClass = of('auto').find(({ doc }) => doc.kind === 'NodeClass')?.doc;
    expect(validate(pool)).toEqual([]);
    expect(autoModeNodeClassProblems(nodeClass ?? {})).toEqual([]);
    // Every documented default written: the API server has nothing to add, Argo CD sees no drift.
    expect(autoModeNodeClassDefaulted(nodeClass ?? {})).toEqual(nodeClass);
    expect(pool?.metadata.name).toBe('web-auto');
    expect(pool?.spec.template.spec.nodeClassRef).toEqual({ group: 'eks.amazonaws.com', kind: 'NodeClass', name: 'web-auto' });
    expect(pool?.spec.template.spec.taints).not.toContainEqual({ key: 'eks-auto-mode', effect: 'NoSchedule' });
    expect(nodeClass?.spec.role).toBe('KarpenterNodeRole-auto');
    const keys = (pool?.spec.template.spec.requirements as { key: string }[]).map((r) => r.key);
    expect(keys).toContain('eks.amazonaws.com/instance-family');
    expect(keys.filter((k) => k.startsWith('karpenter.k8s.aws/') || k === 'kubernetes.io/os')).toEqual([]);
    expect(pool?.spec.template.spec.expireAfter).toBe('336h');
  });

  it('keeps the tenancy policy, budgets and smoke tests of Auto Mode pools as of any other', () => {
    expect(of('auto').some(({ doc }) => doc.kind === 'ValidatingAdmissionPolicy')).toBe(true);
    const policy = of('auto').find(({ doc }) => doc.kind === 'ValidatingAdmissionPolicy')?.doc;
    expect(policy?.spec.variables.find((v: { name: string }) => v.name === 'pools')?.expression).toBe('["web-auto"]');
    expect(of('auto').some(({ path }) => path === 'dist/auto/smoke-tests/web-auto.yaml')).toBe(true);
  });

  it('runs each pool of a moving cluster beside its tainted Auto Mode twin, pins the controller to Auto Mode\'s system pool and holds the CRDs without syncing or deleting them', () => {
    const pools = of('moving').filter(({ doc }) => doc.kind === 'NodePool').map(({ doc }) => doc);
    pools.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    expect(pools.map((p) => p.metadata.name)).toEqual(['web', 'web-auto']);
    for (const p of pools) expect(validate(p)).toEqual([]);
    expect(pools[0].spec.template.spec.nodeClassRef.kind).toBe('EC2NodeClass');
    expect(pools[1].spec.template.spec.nodeClassRef.kind).toBe('NodeClass');
    expect(pools[1].spec.template.spec.taints).toContainEqual({ key: 'eks-auto-mode', effect: 'NoSchedule' });
    expect(pools[0].spec.template.spec.taints).not.toContainEqual({ key: 'eks-auto-mode', effect: 'NoSchedule' });
    const crds = of('moving').find(({ doc }) => doc.metadata?.name === 'moving-karpenter-crd')?.doc;
    expect(crds?.metadata.finalizers).toBeUndefined();
    expect(crds?.spec.syncPolicy.automated).toBeUndefined();
    const values = of('moving').find(({ path }) => path === 'dist/moving/karpenter/values.yaml')?.doc;
    expect(values?.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms).toEqual([{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'In', values: ['system'] }] }]);
  });

  it('leaves a self-managed cluster as it was', () => {
    const { platform: alone } = load({ rawConfig: rawConfig().replace(/compute: (autoMode|both)/g, 'compute: karpenter'), terraform });
    const before = synthesize(alone);
    for (const [path, text] of files) if (path.startsWith('dist/self/') || path === 'argocd/self.yaml') expect([path, text]).toEqual([path, before.get(path)]);
  });
});

describe('what Auto Mode cannot honour', () => {
  it('refuses, at its line and naming the cluster, a team\'s AMI, user data, kubelet, volume and a lifetime over 21 days; the fleet\'s defaults are the self-managed clusters\'', () => {
    const problems = problemsOf({
      rawConfig: rawConfig([
        '  web:',
        '    ami: { alias: al2023@v20250601 }',
        '    userData: "#!/bin/bash"',
        '    kubelet: { maxPods: 50 }',
        '    volume: { size: 100Gi }',
        '    expireAfter: 720h',
      ]), terraform,
    });
    // One line per field for both Auto Mode clusters (auto by its own compute, grouped by its group's).
    for (const [line, field] of [[14, 'ami'], [15, 'userData'], [16, 'kubelet'], [17, 'volume'], [18, 'expireAfter']] as const) {
      expect(problems).toContainEqual(expect.stringMatching(new RegExp(`platform\\.yaml:${line}:\\d+: teams\\.web\\.${field}: on 2 clusters \\(auto and grouped\\), as on the first: cluster auto runs on EKS Auto Mode \\(compute: autoMode\\)`)));
    }
    expect(problems.filter((p) => /defaults/.test(p))).toEqual([]);
  });

  it('warns of them on a moving cluster, whose self-managed pool still uses them', () => {
    const warnings = warningsOf({ rawConfig: rawConfig(['  web: { kubelet: { maxPods: 50 } }']).replace(/compute: autoMode/g, 'compute: karpenter'), terraform });
    expect(warnings).toContainEqual(expect.stringMatching(/teams\.web\.kubelet: cluster moving runs on EKS Auto Mode \(compute: both\): .*its Auto Mode twin goes without it/));
  });

  it('says compute takes karpenter, autoMode or both', () => {
    expect(problemsOf({ rawConfig: rawConfig().replace('compute: karpenter', 'compute: auto'), terraform })).toContainEqual(expect.stringMatching(/platform\.yaml:3:\d+: compute: unknown value "auto" \(allowed: karpenter, autoMode, both\)/));
  });
});

describe('the move, step by step', () => {
  /** The pools of cluster `moving` under a compute, by name: their node class's kind. */
  const poolsOf = (compute: string) => {
    const { platform } = load({ rawConfig: rawConfig().replace('compute: both', `compute: ${compute}`), terraform });
    const docs = documents(synthesize(platform)).filter(({ path, doc }) => path.startsWith('dist/moving/') && doc.kind === 'NodePool');
    return Object.fromEntries(docs.map(({ doc }) => [doc.metadata.name, doc.spec.template.spec.nodeClassRef]));
  };

  it('never asks the API server to change a NodePool\'s nodeClassRef group or kind (immutable in the karpenter.sh CRD): the pool workloads moved to is the one that stays', () => {
    const [before, moving, after] = [poolsOf('karpenter'), poolsOf('both'), poolsOf('autoMode')];
    for (const [a, b] of [[before, moving], [moving, after]]) {
      for (const name of Object.keys(b).filter((n) => n in a)) {
        expect([name, b[name].group, b[name].kind]).toEqual([name, a[name].group, a[name].kind]);
      }
    }
    expect(Object.keys(moving).sort()).toEqual(['web', 'web-auto']);
    expect(Object.keys(after)).toEqual(['web-auto']);
  });
});

describe('tenancy on Auto Mode', () => {
  it('keeps a guarded team\'s pools dedicated there (the policy knows Auto Mode nodes only by the taint), on a moving cluster too', () => {
    const problems = problemsOf({ rawConfig: rawConfig(['  web: { namespaces: [web], dedicated: false }']), terraform });
    expect(problems).toEqual([
      expect.stringMatching(/teams\.web\.dedicated: on 2 clusters \(auto and grouped\), as on the first: cluster auto runs on EKS Auto Mode .*a guarded team's pools stay dedicated there/),
      expect.stringMatching(/teams\.web\.dedicated: cluster moving runs on EKS Auto Mode \(compute: both\).*a guarded team's pools stay dedicated there/),
    ]);
  });
});

describe('Auto Mode\'s built-in pools, as the cluster\'s Terraform turned them on', () => {
  const withPools = (pools: readonly string[]) => ({
    rawConfig: rawConfig(), terraform: { ...terraform, moving: aTerraform({ cluster_name: 'moving', karpenter_node_role_name: 'KarpenterNodeRole-moving', auto_mode_node_pools: [...pools] }) },
  });

  it('refuses a move without the system pool (the controller is pinned there), and warns of general-purpose', () => {
    expect(problemsOf(withPools(['general-purpose']))).toEqual([expect.stringMatching(/moving\.json:\d+:\d+: auto_mode_node_pools\.value: cluster moving moves to EKS Auto Mode \(compute: both\): its controller is pinned to Auto Mode's built-in system pool/)]);
    expect(warningsOf(withPools(['system', 'general-purpose']))).toContainEqual(expect.stringMatching(/auto_mode_node_pools\.value: cluster moving moves to EKS Auto Mode \(compute: both\) with the built-in general-purpose pool on/));
    expect(warningsOf(withPools(['system'])).filter((w) => /auto_mode_node_pools/.test(w))).toEqual([]);
  });

  it('says what the output may hold', () => {
    expect(problemsOf(withPools(['default']))).toContainEqual(expect.stringMatching(/auto_mode_node_pools\.value: output "auto_mode_node_pools" must be a list of EKS Auto Mode's built-in pools/));
  });
});
