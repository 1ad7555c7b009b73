/**
 * The mistakes of a new user's first week, each with the exact message that says what is
 * wrong and what to do (issue: "every stumble gets a clear answer").
 */
import { aConfig, aTerraform, rawConfigWithTeams, removeProjects } from '../builders';
import { problemsOf } from './helpers';

afterAll(removeProjects);

/** The problems of a config whose teams are the given lines, without the file name. */
function teamProblems(lines: readonly string[]): string[] {
  return problemsOf({ rawConfig: rawConfigWithTeams(lines) }).map((p) => p.replace(/^\S*platform\.yaml:/, ''));
}

function problems(config: Parameters<typeof aConfig>[0], terraform?: Record<string, unknown>): string[] {
  return problemsOf({ config: aConfig(config), ...(terraform ? { terraform: { demo: aTerraform(terraform) } } : {}) })
    .map((p) => p.replace(/^\S*(platform\.yaml|demo\.json):/, '$1:'));
}

describe('YAML a person gets wrong', () => {
  it('fails on each line a tab indents, and nothing the tabs cause after them', () => {
    expect(teamProblems(['  web:', '    limits:', '\t  cpu: "4"', '\t  memory: 8Gi', '    arch: [arm64]'])).toEqual([
      '8:1: invalid YAML: a tab indents this line: YAML indents with spaces only (replace the tab with spaces)',
      '9:1: invalid YAML: a tab indents this line: YAML indents with spaces only (replace the tab with spaces)',
    ]);
  });

  it('fails at a key indented unlike the keys above it, once', () => {
    expect(teamProblems(['  web:', '    arch: [arm64]', '   capacityTypes: [spot]', '  ml: {}'])).toEqual([
      '8:1: invalid YAML: this key is not lined up with the keys above it in the same map: indent it exactly like them (YAML reads the structure from the indentation)',
    ]);
  });

  it('fails at a key: value after another key on the same line, saying how to write it', () => {
    expect(teamProblems(['  web:', '    limits: cpu: 4'])).toEqual([
      '7:13: invalid YAML: a key: value follows another key on the same line (a: b: c): write the inner map as a: { b: c }, or put b: c on its own line, indented under a',
    ]);
  });

  it('fails at a line without its colon', () => {
    expect(teamProblems(['  web:', '    owner x@acme.example', '    arch: [arm64]'])).toEqual([
      '7:5: invalid YAML: this line is not key: value (the key, a colon and a space, then the value) nor a list item (- value): add the colon, or quote a value that holds ": "',
    ]);
  });

  it('fails on a list that is never closed', () => {
    expect(teamProblems(['  web:', '    arch: [arm64', '  ml: {}'])).toEqual([
      '8:3: invalid YAML: a [ list above is not closed: end it with ] (a list on several lines must be indented under its key)',
    ]);
  });

  it('fails on a list item\'s key indented less than the item', () => {
    expect(teamProblems(['  web:', '    taints:', '    - key: a', '      value: b', '     effect: NoSchedule'])).toEqual([
      '10:1: invalid YAML: this line is indented like part of the list above but is not an item (no -): indent it like the other keys of its item, or start a new item with -',
    ]);
  });

  it('fails at the keys written under a key left empty, saying to indent them', () => {
    expect(teamProblems(['  web:', '    owner: web@acme.example', '    limits:', '    cpu: "4"', '    memory: 8Gi'])).toEqual([
      '9:5: teams.web.cpu: unknown key "cpu" here; it looks like a key of limits, which has no value: indent it under limits',
      '10:5: teams.web.memory: unknown key "memory" here; it looks like a key of limits, which has no value: indent it under limits',
    ]);
  });
});

describe('fields from elsewhere', () => {
  it('fails when allowLatest is not under ami, saying where it goes', () => {
    expect(problems({ teams: { web: { allowLatest: true } } })).toEqual([
      expect.stringMatching(/teams\.web\.allowLatest: unknown key "allowLatest": it belongs under ami, next to the alias: ami: \{ alias: al2023@latest, allowLatest: true \}$/),
    ]);
  });

  it('fails on instanceSizes, naming the requirement that does it', () => {
    expect(problems({ teams: { web: { instanceSizes: ['large'] } } })).toEqual([
      expect.stringMatching(/teams\.web\.instanceSizes: unknown key "instanceSizes": there is no such field: add a requirement, requirements: \[\{ key: karpenter\.k8s\.aws\/instance-size, operator: In, values: \[large, xlarge\] \}\]$/),
    ]);
  });

  it.each([
    ['ttlSecondsAfterEmpty', { ttlSecondsAfterEmpty: 30 }, /teams\.web\.ttlSecondsAfterEmpty: unknown key "ttlSecondsAfterEmpty": a Karpenter v0\.x Provisioner field: in v1 write disruption: \{ consolidationPolicy: WhenEmpty, consolidateAfter: 30s \}$/],
    ['ttlSecondsUntilExpired', { ttlSecondsUntilExpired: 2592000 }, /unknown key "ttlSecondsUntilExpired": a Karpenter v0\.x Provisioner field: in v1 it is expireAfter on the pool \(e\.g\. expireAfter: 720h\)$/],
    ['consolidation', { consolidation: { enabled: true } }, /unknown key "consolidation": a Karpenter v0\.x Provisioner field: in v1 write disruption: \{ consolidationPolicy: WhenEmptyOrUnderutilized \}$/],
    ['disruption.expireAfter', { disruption: { expireAfter: '720h' } }, /teams\.web\.disruption\.expireAfter: unknown key "expireAfter": Karpenter v1 moved expireAfter out of disruption: set expireAfter on the pool itself$/],
    ['amiFamily', { amiFamily: 'AL2023' }, /unknown key "amiFamily": write ami: \{ family: AL2023, alias: al2023@v20260409 \}: the EC2NodeClass amiFamily and amiSelectorTerms are made from it$/],
    ['nodeClassRef', { nodeClassRef: { name: 'x' } }, /unknown key "nodeClassRef": every pool gets its own EC2NodeClass, and the NodePool points at it: set its fields \(ami, volume, subnetSelectorTerms, \.\.\.\) on the pool$/],
  ])('fails on the Karpenter v0.x or NodePool field %s, naming what v1 and this config call it', (_name, fields, message) => {
    expect(problems({ teams: { web: fields } })).toEqual([expect.stringMatching(message)]);
  });

  it('fails on the v0.x consolidation policy WhenUnderutilized, naming its v1 name', () => {
    expect(problems({ teams: { web: { disruption: { consolidationPolicy: 'WhenUnderutilized' } } } })).toEqual([
      expect.stringMatching(/teams\.web\.disruption\.consolidationPolicy: "WhenUnderutilized" is the Karpenter v0\.x name: in v1 it is WhenEmptyOrUnderutilized \(allowed: WhenEmpty, WhenEmptyOrUnderutilized, Balanced\)$/),
    ]);
  });

  it('fails on helmValues.affinity.nodeAffinity, naming how to choose the controller\'s nodes', () => {
    expect(problems({ karpenter: { helmValues: { affinity: { nodeAffinity: {} } } } })).toEqual([
      expect.stringMatching(/karpenter\.helmValues\.affinity\.nodeAffinity: already set by karpenter-gitops \(the controller must not run on nodes it manages\): to choose the controller's nodes, use helmValues\.nodeSelector \(e\.g\. \{ eks\.amazonaws\.com\/nodegroup: system \}\) or karpenter\.controller\.host: fargate, or give every nodeSelectorTerms entry the expression \{ key: karpenter\.sh\/nodepool, operator: DoesNotExist \}$/),
    ]);
  });

  it('fails on a value helmValues shares with a Terraform output, naming the output to change', () => {
    expect(problems({ karpenter: { helmValues: { settings: { clusterName: 'other' } } } })).toEqual([
      expect.stringMatching(/karpenter\.helmValues\.settings\.clusterName: already set by the terraform output cluster_name: change the output in the Terraform outputs file, not helmValues$/),
    ]);
  });
});

describe('Terraform outputs mixed up', () => {
  it('fails on an IAM role ARN as the interruption queue, naming the module output (not "role/..." as a queue name)', () => {
    expect(problems({}, { karpenter_interruption_queue_name: 'arn:aws:iam::111122223333:role/KarpenterNodeRole-demo' })).toEqual([
      expect.stringMatching(/demo\.json:\d+:\d+: karpenter_interruption_queue_name\.value: expected the SQS queue name, got the ARN of an IAM role: output the interruption queue's name \(module\.karpenter\.queue_name\)$/),
    ]);
  });

  it('still fails on the queue\'s own ARN with the name to use', () => {
    expect(problems({}, { karpenter_interruption_queue_name: 'arn:aws:sqs:eu-west-1:111122223333:Karpenter-demo' })).toEqual([
      expect.stringMatching(/expected the SQS queue name, got an ARN: use "Karpenter-demo" \(output queue_name, not queue_arn\)$/),
    ]);
  });
});
