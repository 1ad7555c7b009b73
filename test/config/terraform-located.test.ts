/**
 * A Terraform outputs file is read with JSON.parse when nothing in it needs positions
 * (src/input/json-text.ts); every problem is still located, at the same line and column as
 * when every file went through the YAML parser with positions. The expected lines were taken
 * from that parser, before the fast path.
 */
import { readTerraformOutputs } from '../../src/config/terraform';
import { formatProblem } from '../../src/input/problems';

/** What reading `text` as `tf.json` says: problems, warnings and where `at` puts cluster_version. */
function read(text: string): { problems: string[]; warnings: string[]; at?: string } {
  const result = readTerraformOutputs('/nonexistent/tf.json', 'tf.json', { maxBytes: 1 << 20 }, text);
  return {
    problems: result.problems.map(formatProblem),
    warnings: result.warnings.map(formatProblem),
    ...(result.at ? { at: formatProblem(result.at('cluster_version', 'here')) } : {}),
  };
}

describe('Terraform outputs read without positions until a problem needs them', () => {
  it('fails when an output appears twice, once written with an escape, at the second', () => {
    const text = '{\n  "cluster_name": { "value": "a" },\n  "cluster\\u005fname": { "value": "b" },\n  "karpenter_node_role_name": { "value": "r" }\n}\n';
    expect(read(text).problems).toEqual(['tf.json:3:3: duplicate key "cluster_name" (first at line 2): each key may appear once in a map']);
  });

  it('fails when a key appears twice deep inside an output\'s type', () => {
    const text = '{\n  "cluster_name": { "value": "demo", "type": "string" },\n'
      + '  "karpenter_node_role_name": { "value": "r", "type": ["object", { "a": "string", "a": "number" }] }\n}\n';
    expect(read(text).problems).toEqual(['tf.json:3:83: duplicate key "a" (first at line 3): each key may appear once in a map']);
  });

  it('fails when a key is empty', () => {
    expect(read('{"cluster_name": "demo", "karpenter_node_role_name": "r", "": "x"}').problems)
      .toEqual(['tf.json:1:59: keys must be names: write a string key before the colon']);
  });

  it('fails at a syntax error, as invalid JSON', () => {
    expect(read('{\n  "cluster_name": { "value": "demo" },\n  "karpenter_node_role_name": { "value": "r" }\n').problems)
      .toEqual(['tf.json:4:1: invalid JSON: close brace expected at the end of the file']);
  });

  it('fails at the value of an output of the wrong type', () => {
    expect(read('{\n  "cluster_name": {\n    "value": 3\n  },\n  "karpenter_node_role_name": { "value": "r" }\n}\n').problems)
      .toEqual(['tf.json:3:14: cluster_name.value: output "cluster_name" must be a non-empty string, got 3']);
  });

  it('warns at the key of an output it does not use, and reads the file', () => {
    expect(read('{\n  "cluster_name": { "value": "demo" },\n  "karpenter_node_role_name": { "value": "r" },\n  "vpc_id": { "value": "vpc-1" }\n}\n')).toEqual({
      problems: [], warnings: ['tf.json:4:3: vpc_id: output "vpc_id" is not used by karpenter-gitops'], at: 'tf.json:1:1: here',
    });
  });

  it('locates an output of a valid file for later checks (cluster_version against the config)', () => {
    expect(read('{\n  "cluster_name": { "value": "demo" },\n  "karpenter_node_role_name": { "value": "r" },\n  "cluster_version": { "value": "1.34" }\n}\n'))
      .toEqual({ problems: [], warnings: [], at: 'tf.json:4:33: cluster_version.value: here' });
  });

  it('reads a file with lone carriage returns as the YAML parser does (the return is not a line break to YAML 1.2)', () => {
    expect(read('{"cluster_name": "demo",\r"karpenter_node_role_name": "r"}').problems).toEqual([
      'tf.json:1:25: ["\\r\\"karpenter_node_role_name\\""]: unknown output "\r"karpenter_node_role_name"" (did you mean "karpenter_node_role_name"?)',
      'tf.json:1:1: required output "karpenter_node_role_name" is missing (see terraform/outputs.tf)',
    ]);
  });
});
