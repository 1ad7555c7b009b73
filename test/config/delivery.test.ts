/**
 * How the fleet is delivered (issue 37, contract 8.4; src/config/delivery.ts): which Argo CD
 * instance deploys each cluster, no two clusters of one instance at one destination, what each
 * stage's promotion asks, and what would hold a stage for ever on a cluster a later stage waits for.
 */
import { aConfig, aTerraform, Plain, positionOf, removeProjects, writeProject } from '../builders';
import { aProblem, load, problemsOf, warningsOf } from './helpers';

afterAll(removeProjects);

const TF = { demo: aTerraform(), prod: aTerraform({ cluster_name: 'prod' }), stage: aTerraform({ cluster_name: 'stage' }) };
/** A fleet of the given clusters (each with its Terraform outputs), as raw YAML so no destination is added for the test. */
const raw = (clusters: string[], rest: string[] = []) => ({
  rawConfig: [
    'gitops:',
    '  repoURL: https://github.com/acme/platform-gitops.git',
    ...rest,
    'karpenter: { version: 1.14.1 }',
    'clusters:',
    ...clusters.map((c) => `  ${c}`),
    'defaults: { ami: { alias: al2023@v20250505 }, limits: { cpu: "100", memory: 400Gi } }',
    'teams: { web: {} }',
    '',
  ].join('\n'),
  terraform: TF,
});

describe('destinations', () => {
  it('warns when two clusters say no destination: one Argo CD would deploy both to its own cluster (an Argo CD inside each would not)', () => {
    const input = raw(['demo: { terraformOutputs: terraform/demo.json }', 'prod: { terraformOutputs: terraform/prod.json }']);
    expect(warningsOf(input).filter((w) => w.includes('deploys to'))).toEqual([expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(input.rawConfig, '{ terraformOutputs: terraform/prod.json')}: clusters\\.prod: cluster prod deploys to Argo CD's own cluster \\(no destination\\), as cluster demo does: `
      + 'if one Argo CD deploys both, their Applications would overwrite each other\'s NodePools and controller; give each its own destination .*, or, with an Argo CD inside each cluster, each its own instance \\(gitops\\.argocd'))]);
  });

  it.each([
    ['the same name', '{ name: prod }', '{ name: prod }', /destination\.name prod, as cluster demo does: their Applications would overwrite/],
    ['the same server, one with a trailing slash', '{ server: "https://a.example.com" }', '{ server: "https://a.example.com/" }', /destination\.server https:\/\/a\.example\.com\/, as cluster demo does/],
  ])('fails for %s written in both, at the second cluster', (_, a, b, message) => {
    expect(problemsOf(raw([`demo: { terraformOutputs: terraform/demo.json, destination: ${a} }`, `prod: { terraformOutputs: terraform/prod.json, destination: ${b} }`]))).toEqual([expect.stringMatching(message)]);
  });

  it('warns for in-cluster by name and by default, at the second cluster', () => {
    const input = raw(['demo: { terraformOutputs: terraform/demo.json, destination: { name: in-cluster } }', 'prod: { terraformOutputs: terraform/prod.json }']);
    expect(warningsOf(input).filter((w) => w.includes('deploys to'))).toEqual([expect.stringMatching(/Argo CD's own cluster \(no destination\), as cluster demo does: if one Argo CD deploys both/)]);
  });

  it('accepts one destination per cluster, and the same one in two Argo CD instances', () => {
    const argocd = ['  argocd:', '    eu: { eksCluster: mgmt-eu, region: eu-west-1, roleArn: "arn:aws:iam::111122223333:role/promote" }', '    us: { eksCluster: mgmt-us, region: us-east-1, roleArn: "arn:aws:iam::111122223333:role/promote" }'];
    const { platform } = load(raw(['demo: { terraformOutputs: terraform/demo.json, argocd: eu }', 'prod: { terraformOutputs: terraform/prod.json, argocd: us }'], argocd));
    expect(platform.clusters.map((c) => [c.id, c.argocd, c.destination])).toEqual([
      ['demo', 'eu', { server: 'https://kubernetes.default.svc' }], ['prod', 'us', { server: 'https://kubernetes.default.svc' }],
    ]);
    expect(platform.gitops.argocdInstances?.map((i) => i.name)).toEqual(['eu', 'us']);
  });
});

describe('gitops.argocd and clusters.<id>.argocd', () => {
  const instances = (names: string[]) => ['  argocd:', ...names.map((n) => `    ${n}: { eksCluster: mgmt-${n}, region: eu-west-1, roleArn: "arn:aws:iam::111122223333:role/promote" }`)];

  it('gives every cluster the only instance when there is one', () => {
    expect(load(raw(['demo: { terraformOutputs: terraform/demo.json }'], instances(['eu']))).platform.clusters[0].argocd).toBe('eu');
  });

  it('fails when there are several and a cluster names none, or an unknown one (with a did-you-mean)', () => {
    const problems = problemsOf(raw(['demo: { terraformOutputs: terraform/demo.json }', 'prod: { terraformOutputs: terraform/prod.json, argocd: euu, destination: { name: prod } }'], instances(['eu', 'us'])));
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/clusters\.demo: cluster demo does not say which Argo CD instance deploys it: set clusters\.demo\.argocd to one of eu, us/),
      expect.stringMatching(/clusters\.prod\.argocd: unknown Argo CD instance "euu" \(did you mean "eu"\?\) \(gitops\.argocd: eu, us\)/),
    ]));
  });

  it('fails when a cluster names an instance and gitops.argocd lists none', () => {
    expect(problemsOf(raw(['demo: { terraformOutputs: terraform/demo.json, argocd: eu }']))).toEqual([expect.stringMatching(/clusters\.demo\.argocd: names an Argo CD instance, but gitops\.argocd lists none/)]);
  });

  it('fails on a role that is not an IAM role ARN, saying what one looks like', () => {
    const bad = ['  argocd:', '    eu: { eksCluster: mgmt, region: eu-west-1, roleArn: karpenter-gitops-promote }'];
    expect(problemsOf(raw(['demo: { terraformOutputs: terraform/demo.json }'], bad))).toEqual([expect.stringMatching(/gitops\.argocd\.eu\.roleArn: .*must be an IAM role ARN such as arn:aws:iam::111122223333:role\/karpenter-gitops-promote/)]);
  });
});

describe('gitops.argocd.<name>.runner', () => {
  const instance = (runner: string) => ['  argocd:', `    eu: { eksCluster: mgmt, region: eu-west-1, roleArn: "arn:aws:iam::111122223333:role/promote", runner: ${runner} }`];
  it('takes a runner label or a list of labels: the read jobs of that instance run there (plan gives them as runs-on JSON)', () => {
    expect(load(raw(['demo: { terraformOutputs: terraform/demo.json }'], instance('vpc-eu'))).platform.gitops.argocdInstances?.[0].runner).toEqual(['vpc-eu']);
    expect(load(raw(['demo: { terraformOutputs: terraform/demo.json }'], instance('[self-hosted, vpc-eu]'))).platform.gitops.argocdInstances?.[0].runner).toEqual(['self-hosted', 'vpc-eu']);
  });

  it('fails on a label GitHub would not match, at its line', () => {
    expect(problemsOf(raw(['demo: { terraformOutputs: terraform/demo.json }'], instance('"vpc eu"')))).toEqual([expect.stringMatching(/:\d+:\d+: gitops\.argocd\.eu\.runner: .*must be a runner label such as self-hosted or vpc-eu-west-1/)]);
  });
});

describe('gitops.stages', () => {
  const staged = (stages: Plain) => ({
    config: aConfig({ gitops: { stages }, clusters: { demo: { terraformOutputs: 'terraform/demo.json', stage: 1 }, prod: { terraformOutputs: 'terraform/prod.json', stage: 2 } } }),
    terraform: TF,
  });

  it('reads each stage\'s soak in minutes and its environment', () => {
    expect(load(staged({ 2: { soak: '1h30m', environment: 'production' } })).platform.gitops.stages).toEqual([{ stage: 2, soakMinutes: 90, environment: 'production' }]);
  });

  it('fails on a stage no cluster is at, and on stage 1 (it follows targetRevision)', () => {
    const problems = problemsOf(staged({ 1: { soak: '1h' }, 3: { soak: '1h' } }));
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/gitops\.stages\.1: .*must be a stage number from 2 to 20 \(stage 1 is not promoted: it follows targetRevision\)/),
      expect.stringMatching(/gitops\.stages\.3: no cluster is at stage 3 \(stages: 1, 2\): remove it, or set clusters\.<id>\.stage: 3/),
    ]));
  });

  it('fails on a soak in seconds or days', () => {
    expect(problemsOf(staged({ 2: { soak: '2d' } }))).toEqual(aProblem(/gitops\.stages\.2\.soak: .*must be a duration in hours and minutes such as "30m", "24h" or "1h30m"/));
  });
});

describe('gitops.driftGateMemory', () => {
  it('fails below what node and a page of NodeClaims need', () => {
    expect(problemsOf({ config: aConfig({ gitops: { driftGateMemory: '64Mi' } }) })).toEqual(aProblem(/gitops\.driftGateMemory: .*must be at least 96Mi: node itself takes about 50 MiB/));
    expect(load({ config: aConfig({ gitops: { driftGateMemory: '128Mi' } }) }).platform.gitops.driftGateMemory).toBe('128Mi');
  });
});

describe('what would hold a stage for ever', () => {
  const fleet = (web: Plain, demoStage = 1) => ({
    config: aConfig({ clusters: { demo: { terraformOutputs: 'terraform/demo.json', stage: demoStage }, prod: { terraformOutputs: 'terraform/prod.json', stage: 2 } }, teams: { web } }),
    terraform: TF,
  });
  const freeze = { disruption: { budgets: [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }] } };

  it('fails on a budget that keeps Drifted at 0 for good on a cluster a later stage waits for, naming the pool and the stage', () => {
    const input = fleet(freeze);
    const { configText } = writeProject(input);
    expect(problemsOf(input)).toEqual([expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, 'nodes: "0"')}: teams\\.web\\.disruption\\.budgets\\[1\\]: keeps Drifted disruptions of pool web at 0 at all times on cluster demo \\(stage 1, which stage 2 waits for\\)`))]);
  });

  it('says it once for every cluster the same budget holds', () => {
    const input = {
      config: aConfig({ clusters: { demo: { terraformOutputs: 'terraform/demo.json', stage: 1 }, prod: { terraformOutputs: 'terraform/prod.json', stage: 2 }, stage: { terraformOutputs: 'terraform/stage.json', stage: 3 } }, teams: { web: freeze } }),
      terraform: TF,
    };
    expect(problemsOf(input)).toEqual([expect.stringMatching(/on cluster demo \(stage 1, which stage 2 waits for\), prod \(stage 2, which stage 3 waits for\): its drift gate would never pass/)]);
  });

  it('accepts the same budget on the last stage (nothing waits for it), and one with a schedule', () => {
    expect(() => load({ config: aConfig({ clusters: { demo: { terraformOutputs: 'terraform/demo.json', stage: 1 } }, teams: { web: freeze } }) })).not.toThrow();
    expect(() => load(fleet({ disruption: { budgets: [{ nodes: '0', reasons: ['Drifted'], schedule: '0 9 * * mon-fri', duration: '8h' }] }, terminationGracePeriod: '24h' }))).not.toThrow();
  });

  it('warns, once per pool, about a pool without terminationGracePeriod on a cluster a later stage waits for', () => {
    expect(warningsOf(fleet({}))).toEqual(aProblem(/teams\.web: pool web has no terminationGracePeriod on demo \(stage 1\), which a later stage waits for: a pod with karpenter\.sh\/do-not-disrupt .* set terminationGracePeriod \(e\.g\. 24h\): it is in the NodePool hash, so its nodes drift once, in their window/));
    expect(warningsOf(fleet({ terminationGracePeriod: '24h' })).filter((w) => /terminationGracePeriod/.test(w))).toEqual([]);
  });
});
