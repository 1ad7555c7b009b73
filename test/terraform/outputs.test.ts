/**
 * Contract test between terraform/outputs.tf (what platform teams apply) and
 * the generator's loader (src/config/terraform.ts). No terraform binary and no
 * network: outputs.tf is read with a small HCL-subset reader.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { TERRAFORM_OUTPUTS } from '../../src/config/terraform';

interface DeclaredOutput {
  readonly name: string;
  /** Text between the output block's braces. */
  readonly body: string;
}

/** Blank out comments (#, //, /* *\/) while leaving string literals intact. */
function stripComments(src: string): string {
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '"') {
      const start = i++;
      while (i < src.length && src[i] !== '"') i += src[i] === '\\' ? 2 : 1;
      out += src.slice(start, ++i);
    } else if (c === '#' || (c === '/' && src[i + 1] === '/')) {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      i = end === -1 ? src.length : end + 2;
      out += ' ';
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Index just past the `}` matching the `{` at `open`, skipping braces inside strings. */
function matchBrace(src: string, open: number): number {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (c === '"') {
      i++;
      while (i < src.length && src[i] !== '"') i += src[i] === '\\' ? 2 : 1;
    } else if (c === '{') {
      depth++;
    } else if (c === '}' && --depth === 0) {
      return i + 1;
    }
  }
  throw new Error(`unbalanced braces from offset ${open}`);
}

/** Every `output "name" { ... }` block in an HCL source, in order of appearance. */
function readOutputs(hcl: string): DeclaredOutput[] {
  const src = stripComments(hcl);
  const header = /^[ \t]*output[ \t]+"([^"]+)"[ \t]*\{/gm;
  const found: DeclaredOutput[] = [];
  let m: RegExpExecArray | null;
  while ((m = header.exec(src)) !== null) {
    const open = m.index + m[0].length - 1;
    const close = matchBrace(src, open);
    found.push({ name: m[1], body: src.slice(open + 1, close - 1) });
    header.lastIndex = close;
  }
  return found;
}

/** The expression of the block's `value = ...` attribute (single line, trimmed). */
function valueExpr(output: DeclaredOutput): string {
  const m = /^[ \t]*value[ \t]*=[ \t]*(.+?)[ \t]*$/m.exec(output.body);
  if (!m) throw new Error(`output "${output.name}" has no value attribute`);
  return m[1];
}

const OUTPUTS_TF = resolve(__dirname, '../../terraform/outputs.tf');
const declared = readOutputs(readFileSync(OUTPUTS_TF, 'utf8'));
const byName = new Map(declared.map((o) => [o.name, o]));

function output(name: string): DeclaredOutput {
  const o = byName.get(name);
  if (!o) throw new Error(`terraform/outputs.tf does not declare output "${name}"`);
  return o;
}

describe('readOutputs (HCL subset reader)', () => {
  it('finds output blocks, ignoring comments, strings and nested blocks', () => {
    const hcl = [
      '# output "commented_out" { value = 1 }',
      '/* output "block_commented" {',
      '  value = 2',
      '} */',
      'output "a" {',
      '  description = "braces } { and # inside a string"',
      '  value       = module.x.y',
      '  precondition {',
      '    condition     = true',
      '    error_message = "nope"',
      '  }',
      '}',
      '',
      'output "b" {',
      '  value = { k = "v" } // trailing comment',
      '}',
      'variable "output" {',
      '  default = "output \\"c\\" {"',
      '}',
    ].join('\n');
    const outs = readOutputs(hcl);
    expect(outs.map((o) => o.name)).toEqual(['a', 'b']);
    expect(valueExpr(outs[0])).toBe('module.x.y');
    expect(valueExpr(outs[1])).toBe('{ k = "v" }');
  });
});

describe('terraform/outputs.tf matches the loader contract', () => {
  const required: readonly string[] = TERRAFORM_OUTPUTS.required;
  const optional: readonly string[] = TERRAFORM_OUTPUTS.optional;

  it('declares each output once', () => {
    const names = declared.map((o) => o.name);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
  });

  it('declares exactly the outputs the loader reads (required + optional)', () => {
    const loaderNames = [...required, ...optional].sort();
    expect(declared.map((o) => o.name).sort()).toEqual(loaderNames);
  });

  it('gives every output a non-empty description', () => {
    const undocumented = declared
      .filter((o) => !/^[ \t]*description[ \t]*=[ \t]*"[^"\s][^"]*"/m.test(o.body))
      .map((o) => o.name);
    expect(undocumented).toEqual([]);
  });

  it('karpenter_node_role_name is the module node role NAME (EC2NodeClass.spec.role)', () => {
    const expr = valueExpr(output('karpenter_node_role_name'));
    expect(expr).toMatch(/\bmodule\.karpenter\.node_iam_role_name\b/);
    expect(expr).not.toMatch(/node_iam_role_arn|instance_profile/);
  });

  it('karpenter_interruption_queue_name is the module SQS queue NAME (not URL/ARN)', () => {
    const expr = valueExpr(output('karpenter_interruption_queue_name'));
    expect(expr).toMatch(/\bmodule\.karpenter\.queue_name\b/);
    expect(expr).not.toMatch(/queue_(url|arn)\b/);
  });

  it('karpenter_controller_role_arn is the module controller role ARN, emitted only for IRSA', () => {
    const expr = valueExpr(output('karpenter_controller_role_arn'));
    expect(expr).toMatch(/\bmodule\.karpenter\.iam_role_arn\b/);
    // With EKS Pod Identity (the default) the value must be null, so no
    // eks.amazonaws.com/role-arn annotation is generated.
    expect(expr).toMatch(/^var\.enable_irsa\s*\?\s*module\.karpenter\.iam_role_arn\s*:\s*null$/);
  });

  it('karpenter_can_reboot_instances says whether the ec2:RebootInstances policy exists: both follow enable_reboot_for_repair', () => {
    expect(valueExpr(output('karpenter_can_reboot_instances'))).toBe('var.enable_reboot_for_repair');
    const main = readFileSync(resolve(__dirname, '../../terraform/main.tf'), 'utf8');
    const policy = /data "aws_iam_policy_document" "reboot_for_repair" \{[\s\S]*?\n\}/.exec(main)?.[0] ?? '';
    expect(policy).toMatch(/count = var\.enable_reboot_for_repair \? 1 : 0/);
    expect(policy).toMatch(/actions\s+= \["ec2:RebootInstances"\]/);
    // Scoped as Karpenter's own policy scopes TerminateInstances: this cluster's instances a NodePool launched.
    expect(policy).toMatch(/variable = "aws:ResourceTag\/kubernetes\.io\/cluster\/\$\{var\.cluster_name\}"\s+values\s+= \["owned"\]/);
    expect(policy).toMatch(/variable = "aws:ResourceTag\/karpenter\.sh\/nodepool"/);
    expect(main).toMatch(/resource "aws_iam_role_policy" "reboot_for_repair" \{\s+count = var\.enable_reboot_for_repair \? 1 : 0[\s\S]*?role\s+= module\.karpenter\.iam_role_name/);
  });
});
