/**
 * Reading `config/terraform/<cluster>.json` (contract section 2): both shapes,
 * null as absent, and one "fails when …" case per mix-up of names, ARNs and URLs.
 */
import { readFileSync } from 'node:fs';
import { loadPlatform } from '../../src/config/load';
import { formatProblem } from '../../src/input/problems';
import { aConfig, aTerraform, Plain, positionOf, removeProjects, writeProject } from '../builders';
import { aProblem, inputErrorOf, load, problemsOf, warningsOf } from './helpers';

afterAll(removeProjects);

/** The problems of a project whose only change is the Terraform outputs of cluster demo. */
function problemsWithOutputs(outputs: Plain | unknown[] | string): string[] {
  return problemsOf({ terraform: { demo: outputs } });
}

describe('the outputs file', () => {
  it('fails when the file is missing, pointing at the terraformOutputs line', () => {
    const { configText, configPath } = writeProject({ terraform: {} });
    const problems = inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem);
    expect(problems).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${positionOf(configText, 'terraform/demo.json')}: clusters\\.demo\\.terraformOutputs: `
      + 'file not found: \\S*config/terraform/demo\\.json \\(write it with: terraform output -json > \\S*config/terraform/demo\\.json\\)',
    ))]);
  });

  it('reads terraformOutputs relative to platform.yaml', () => {
    const config = aConfig({ clusters: { demo: { terraformOutputs: 'terraform/other.json' } } });
    const { platform } = load({ config, terraform: { other: aTerraform({ cluster_name: 'other' }) } });
    expect(platform.clusters[0].terraform.clusterName).toBe('other');
  });

  it('fails when the file is not JSON', () => {
    expect(problemsWithOutputs('{ cluster_name: demo }')).toEqual([
      expect.stringMatching(/terraform\/demo\.json:1:3: invalid JSON: /),
    ]);
  });

  // The user knows this file as JSON: a syntax error is reported as JSON, with its position.
  it('fails when the JSON has a stray comma, saying invalid JSON with its position', () => {
    expect(problemsWithOutputs('{\n  "cluster_name": { "value": "demo" },,\n  "karpenter_node_role_name": { "value": "r" }\n}\n')).toEqual([
      expect.stringMatching(/terraform\/demo\.json:2:\d+: invalid JSON: /),
    ]);
  });

  it('fails when an output appears twice, pointing at the second one', () => {
    const text = '{\n  "cluster_name": { "value": "a" },\n  "cluster_name": { "value": "b" },\n  "karpenter_node_role_name": { "value": "r" }\n}\n';
    expect(problemsWithOutputs(text)).toEqual([expect.stringMatching(/terraform\/demo\.json:3:3: (cluster_name: )?duplicate key/)]);
  });

  it('fails when the JSON is a list', () => {
    expect(problemsWithOutputs([])).toEqual([
      expect.stringMatching(/terraform\/demo\.json:1:1: expected a JSON object of outputs, as `terraform output -json` writes/),
    ]);
  });

  it('fails when the JSON is a string', () => {
    expect(problemsWithOutputs('"demo"')).toEqual([
      expect.stringMatching(/terraform\/demo\.json:1:1: expected a JSON object of outputs/),
    ]);
  });
});

describe('shapes', () => {
  const expected = {
    clusterName: 'demo',
    nodeRoleName: 'KarpenterNodeRole-demo',
    interruptionQueueName: 'Karpenter-demo',
    controllerRoleArn: 'arn:aws:iam::111122223333:role/KarpenterController-demo',
    clusterEndpoint: 'https://0123456789ABCDEF0123456789ABCDEF.gr7.ap-northeast-2.eks.amazonaws.com',
  };

  it('reads the `terraform output -json` shape', () => {
    expect(load({ terraform: { demo: aTerraform() } }).platform.clusters[0].terraform).toEqual(expected);
  });

  it('reads the flat shape', () => {
    expect(load({ terraform: { demo: aTerraform({}, { shape: 'flat' }) } }).platform.clusters[0].terraform).toEqual(expected);
  });

  it('reads wrapped outputs without their optional type and sensitive keys', () => {
    const outputs = { cluster_name: { value: 'demo' }, karpenter_node_role_name: { value: 'KarpenterNodeRole-demo' } };
    expect(load({ terraform: { demo: outputs } }).platform.clusters[0].terraform).toEqual({ clusterName: 'demo', nodeRoleName: 'KarpenterNodeRole-demo' });
  });

  it('treats a null optional output as absent', () => {
    const outputs = aTerraform({ karpenter_controller_role_arn: null, karpenter_interruption_queue_name: null, cluster_endpoint: null });
    expect(load({ terraform: { demo: outputs } }).platform.clusters[0].terraform).toEqual({ clusterName: 'demo', nodeRoleName: 'KarpenterNodeRole-demo' });
  });

  it('treats a null optional output as absent in the flat shape too', () => {
    const outputs = aTerraform({ karpenter_controller_role_arn: null }, { shape: 'flat' });
    expect(load({ terraform: { demo: outputs } }).platform.clusters[0].terraform.controllerRoleArn).toBeUndefined();
  });

  it('fails when a required output is null, as if it were missing', () => {
    expect(problemsWithOutputs(aTerraform({ cluster_name: null }))).toEqual([
      expect.stringMatching(/terraform\/demo\.json:1:1: required output "cluster_name" is missing \(see terraform\/outputs\.tf\)/),
    ]);
  });

  it('fails when the shapes are mixed, naming the outputs of the minority shape', () => {
    const outputs = { ...aTerraform({ cluster_name: undefined }), cluster_name: 'demo' };
    expect(problemsWithOutputs(outputs)).toEqual(aProblem(
      /terraform\/demo\.json:\d+:\d+: cluster_name: mixes the `terraform output -json` shape \(\{"value": \.\.\.\}\) with the flat shape: use one/,
    ));
  });

  it('fails when a wrapped output misspells value, without inventing other problems', () => {
    const outputs = aTerraform();
    (outputs.cluster_name as Record<string, unknown>).valeu = 'demo';
    delete (outputs.cluster_name as Record<string, unknown>).value;
    expect(problemsWithOutputs(outputs)).toEqual([
      expect.stringMatching(/terraform\/demo\.json:\d+:\d+: cluster_name\.valeu: unknown key "valeu" \(did you mean "value"\?\)/),
    ]);
  });

  it('fails when a wrapped output has an unknown key', () => {
    const outputs = { cluster_name: { value: 'demo', sensitiv: false }, karpenter_node_role_name: { value: 'KarpenterNodeRole-demo' } };
    expect(problemsWithOutputs(outputs)).toEqual([
      expect.stringMatching(/terraform\/demo\.json:\d+:\d+: cluster_name\.sensitiv: unknown key "sensitiv" \(did you mean "sensitive"\?\)/),
    ]);
  });
});

describe('required and unknown outputs', () => {
  it.each(['cluster_name', 'karpenter_node_role_name'])('fails when the required output %s is missing', (name) => {
    expect(problemsWithOutputs(aTerraform({ [name]: undefined }))).toEqual([
      expect.stringMatching(new RegExp(`terraform/demo\\.json:1:1: required output "${name}" is missing \\(see terraform/outputs\\.tf\\)`)),
    ]);
  });

  it('loads without the optional outputs (EKS Pod Identity, no interruption queue, discovered endpoint)', () => {
    const outputs = aTerraform({ karpenter_interruption_queue_name: undefined, karpenter_controller_role_arn: undefined, cluster_endpoint: undefined });
    expect(load({ terraform: { demo: outputs } }).platform.clusters[0].terraform).toEqual({ clusterName: 'demo', nodeRoleName: 'KarpenterNodeRole-demo' });
  });

  it('fails when an output name is misspelt, suggesting the right one', () => {
    expect(problemsWithOutputs(aTerraform({ karpenter_node_role_name: undefined, karpenter_node_role_nme: 'KarpenterNodeRole-demo' }))).toEqual(aProblem(
      /terraform\/demo\.json:\d+:\d+: karpenter_node_role_nme: unknown output "karpenter_node_role_nme" \(did you mean "karpenter_node_role_name"\?\)/,
    ));
  });

  it('warns, and does not fail, about an output it does not use', () => {
    expect(warningsOf({ terraform: { demo: aTerraform({ vpc_id: 'vpc-0123456789abcdef0' }) } })).toEqual([
      expect.stringMatching(/terraform\/demo\.json:\d+:\d+: vpc_id: output "vpc_id" is not used by karpenter-gitops/),
    ]);
  });

  // cluster_arn (an output root modules often re-export) is close to cluster_name: a near-miss
  // is a typo only when the output it resembles is absent.
  it('warns, and does not fail, about cluster_arn beside a valid cluster_name', () => {
    const outputs = aTerraform({ cluster_arn: 'arn:aws:eks:eu-west-1:111122223333:cluster/demo' });
    expect(warningsOf({ terraform: { demo: outputs } })).toEqual([expect.stringMatching(/cluster_arn: output "cluster_arn" is not used/)]);
  });
});

describe('values', () => {
  it.each<[string, Plain, RegExp]>([
    [
      'the node role is an ARN instead of a name',
      { karpenter_node_role_name: 'arn:aws:iam::111122223333:role/KarpenterNodeRole-demo' },
      /terraform\/demo\.json:\d+:\d+: karpenter_node_role_name\.value: expected the IAM role name, got an ARN: use "KarpenterNodeRole-demo" \(output node_iam_role_name, not node_iam_role_arn\)/,
    ],
    [
      'the node role ARN has a path',
      { karpenter_node_role_name: 'arn:aws:iam::111122223333:role/eks/KarpenterNodeRole-demo' },
      /terraform\/demo\.json:\d+:\d+: karpenter_node_role_name\.value: expected the IAM role name, got an ARN: use "KarpenterNodeRole-demo"/,
    ],
    [
      'the node role name has a space',
      { karpenter_node_role_name: 'Karpenter Node Role' },
      /terraform\/demo\.json:\d+:\d+: karpenter_node_role_name\.value: "Karpenter Node Role" is not an IAM role name/,
    ],
    [
      'the interruption queue is a URL instead of a name',
      { karpenter_interruption_queue_name: 'https://sqs.eu-west-1.amazonaws.com/111122223333/Karpenter-demo' },
      /terraform\/demo\.json:\d+:\d+: karpenter_interruption_queue_name\.value: expected the SQS queue name, got its URL: use "Karpenter-demo" \(output queue_name, not queue_url\)/,
    ],
    [
      'the interruption queue is an ARN instead of a name',
      { karpenter_interruption_queue_name: 'arn:aws:sqs:eu-west-1:111122223333:Karpenter-demo' },
      /terraform\/demo\.json:\d+:\d+: karpenter_interruption_queue_name\.value: expected the SQS queue name, got an ARN: use "Karpenter-demo" \(output queue_name, not queue_arn\)/,
    ],
    [
      'the controller role ARN is a policy ARN',
      { karpenter_controller_role_arn: 'arn:aws:iam::123456789012:policy/x' },
      /terraform\/demo\.json:\d+:\d+: karpenter_controller_role_arn\.value: expected an IAM role ARN \(arn:aws:iam::<account>:role\/<name>\), got an ARN of service "iam" and kind "policy"/,
    ],
    [
      'the controller role ARN is a plain role name',
      { karpenter_controller_role_arn: 'KarpenterController-demo' },
      /terraform\/demo\.json:\d+:\d+: karpenter_controller_role_arn\.value: expected an IAM role ARN \(arn:aws:iam::<account>:role\/<name>\), got "KarpenterController-demo"; leave the output out to use EKS Pod Identity/,
    ],
    [
      'the cluster endpoint is not https',
      { cluster_endpoint: 'http://0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com' },
      /terraform\/demo\.json:\d+:\d+: cluster_endpoint\.value: expected the cluster's https:\/\/ API endpoint, got "http:\/\/0123456789ABCDEF\.gr7\.eu-west-1\.eks\.amazonaws\.com"/,
    ],
    [
      'the cluster name is an ARN',
      { cluster_name: 'arn:aws:eks:eu-west-1:111122223333:cluster/demo' },
      /terraform\/demo\.json:\d+:\d+: cluster_name\.value: expected the cluster name, got an ARN: use "demo"/,
    ],
    [
      'the cluster name is a number',
      { cluster_name: 42 },
      /terraform\/demo\.json:\d+:\d+: cluster_name\.value: output "cluster_name" must be a non-empty string, got 42/,
    ],
    [
      'the cluster name is empty',
      { cluster_name: '' },
      /terraform\/demo\.json:\d+:\d+: cluster_name\.value: output "cluster_name" must be a non-empty string, got ""/,
    ],
  ])('fails when %s', (_when, overrides, problem) => {
    expect(problemsWithOutputs(aTerraform(overrides))).toEqual(aProblem(problem));
  });

  it('fails in the flat shape at the output itself', () => {
    const outputs = aTerraform({ karpenter_node_role_name: 'arn:aws:iam::111122223333:role/KarpenterNodeRole-demo' }, { shape: 'flat' });
    expect(problemsWithOutputs(outputs)).toEqual([
      expect.stringMatching(/terraform\/demo\.json:\d+:\d+: karpenter_node_role_name: expected the IAM role name, got an ARN/),
    ]);
  });

  it('points at the value line of the wrapped output', () => {
    const outputs = aTerraform({ cluster_endpoint: 'http://insecure.example' });
    const { configPath, terraformPath } = writeProject({ terraform: { demo: outputs } });
    const text = readFileSync(terraformPath('demo'), 'utf8');
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`terraform/demo\\.json:${positionOf(text, '"http://insecure.example"')}: cluster_endpoint\\.value: `)),
    ]);
  });

  it('accepts a controller role ARN in another partition and with a path', () => {
    const outputs = aTerraform({ karpenter_controller_role_arn: 'arn:aws-cn:iam::111122223333:role/eks/KarpenterController-demo' });
    expect(load({ terraform: { demo: outputs } }).platform.clusters[0].terraform.controllerRoleArn)
      .toBe('arn:aws-cn:iam::111122223333:role/eks/KarpenterController-demo');
  });
});

describe('spot without an interruption queue', () => {
  const noQueue = { demo: aTerraform({ karpenter_interruption_queue_name: undefined }) };

  it('warns, and does not fail, when a pool uses spot and the cluster has no interruption queue', () => {
    const config = aConfig({ teams: { web: { capacityTypes: ['spot', 'on-demand'] } } });
    expect(warningsOf({ config, terraform: noQueue })).toEqual([
      expect.stringMatching(/platform\.yaml:\d+:\d+: teams\.web\.capacityTypes: pool web uses spot capacity but cluster demo has no karpenter_interruption_queue_name output: spot interruptions will not be handled gracefully/),
    ]);
  });

  it('does not warn when the cluster has an interruption queue', () => {
    expect(warningsOf({ config: aConfig({ teams: { web: { capacityTypes: ['spot'] } } }) })).toEqual([]);
  });

  it('does not warn about on-demand pools', () => {
    expect(warningsOf({ terraform: noQueue })).toEqual([]);
  });
});

describe('several clusters', () => {
  it('reads each cluster from its own file and reports problems per file', () => {
    const config = aConfig({
      clusters: { demo: { terraformOutputs: 'terraform/demo.json' }, prod: { terraformOutputs: 'terraform/prod.json' } },
    });
    const problems = problemsOf({ config, terraform: { demo: aTerraform(), prod: aTerraform({ karpenter_node_role_name: 'arn:aws:iam::111122223333:role/KarpenterNodeRole-prod' }) } });
    expect(problems).toEqual([expect.stringMatching(/terraform\/prod\.json:\d+:\d+: karpenter_node_role_name\.value: expected the IAM role name, got an ARN: use "KarpenterNodeRole-prod"/)]);
  });
});

describe('karpenter_can_reboot_instances', () => {
  it('reads a boolean, and fails at a string', () => {
    expect(load({ terraform: { demo: aTerraform({ karpenter_can_reboot_instances: true }) } }).platform.clusters[0].terraform.canRebootInstances).toBe(true);
    expect(problemsWithOutputs(aTerraform({ karpenter_can_reboot_instances: 'true' })))
      .toEqual(aProblem(/demo\.json:\d+:\d+: karpenter_can_reboot_instances\.value: output "karpenter_can_reboot_instances" must be true or false, got "true"/));
  });
});
