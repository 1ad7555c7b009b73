import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

type Step = { run?: string; uses?: string; with?: Record<string, unknown>; env?: Record<string, string> };

describe('.github/workflows/pr.yaml', () => {
  const workflow = parse(readFileSync('.github/workflows/pr.yaml', 'utf8')) as { on: Record<string, unknown>; jobs: Record<string, { steps: Step[] }> };
  const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
  const runs = steps.map((s) => s.run ?? '');

  it('runs on pull requests', () => {
    expect(Object.keys(workflow.on)).toEqual(['pull_request']);
  });

  it('installs with npm ci, then runs the tests, the drift check and the diff against the base branch, in that order', () => {
    const at = (cmd: RegExp) => runs.findIndex((r) => cmd.test(r));
    const order = [/^npm ci$/, /^npm test$/, /^npm run check$/, /npm run --silent diff -- --base "origin\/\$BASE_REF" --format markdown/].map(at);
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(steps.find((s) => s.run?.includes('diff'))?.env?.BASE_REF).toBe('${{ github.base_ref }}');
  });

  it('keeps the full report as an artifact and links it from a shortened comment', () => {
    expect(runs.join('\n')).toMatch(/npm run --silent diff -- --base "origin\/\$BASE_REF" > karpenter-diff\.txt/);
    expect(runs.join('\n')).toMatch(/--format markdown --report-url "\$RUN_URL" > karpenter-diff\.md/);
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.with).toMatchObject({ name: 'karpenter-diff', path: 'karpenter-diff.txt' });
  });

  it('posts the report as one sticky comment', () => {
    const post = steps.find((s) => s.uses?.startsWith('marocchino/sticky-pull-request-comment@'));
    expect(post?.with).toMatchObject({ path: 'karpenter-diff.md' });
  });

  it('fetches the whole history, so the base branch is there to diff against', () => {
    expect(steps.find((s) => s.uses?.startsWith('actions/checkout@'))?.with).toMatchObject({ 'fetch-depth': 0 });
  });
});
