import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

type Step = { id?: string; name?: string; if?: string; run?: string; uses?: string; with?: Record<string, unknown>; env?: Record<string, string> };

/** The label a pull request carries when the drain it causes is intended. */
const APPROVAL_LABEL = 'karpenter-drain-approved';

describe('.github/workflows/pr.yaml', () => {
  const workflow = parse(readFileSync('.github/workflows/pr.yaml', 'utf8')) as { on: { pull_request: { types?: string[] } }; jobs: Record<string, { steps: Step[] }> };
  const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
  const runs = steps.map((s) => s.run ?? '');

  it('runs on pull requests, and again when a label is added or removed', () => {
    expect(Object.keys(workflow.on)).toEqual(['pull_request']);
    expect(workflow.on.pull_request.types).toEqual(['opened', 'synchronize', 'reopened', 'labeled', 'unlabeled']);
  });

  it('installs with npm ci, then runs the tests, the drift check and the diff against the base branch, in that order', () => {
    const at = (cmd: RegExp) => runs.findIndex((r) => cmd.test(r));
    const order = [/^npm ci$/, /^npm test$/, /^npm run check$/, /npm run --silent diff -- --base "origin\/\$BASE_REF" --format markdown/].map(at);
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(steps.find((s) => s.run?.includes('diff'))?.env?.BASE_REF).toBe('${{ github.base_ref }}');
  });

  it('keeps the full report as an artifact and links it from a shortened comment', () => {
    expect(runs.join('\n')).toMatch(/npm run --silent diff -- --base "origin\/\$BASE_REF" --full --fail-on destructive > karpenter-diff\.txt/);
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

  describe('the change report step', () => {
    const report = steps.find((s) => s.id === 'diff');
    let dir: string;
    beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'kg-workflow-')); });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    /** Runs the step's script as GitHub does (bash -e), with an `npm` that exits with `status` for the terminal report. */
    function runStep(status: number) {
      writeFileSync(join(dir, 'npm'), `#!/bin/sh\ncase "$*" in *markdown*) echo md;; *) echo report; exit ${status};; esac\n`);
      chmodSync(join(dir, 'npm'), 0o755);
      const output = join(dir, 'output');
      writeFileSync(output, '');
      const r = spawnSync('bash', ['-e', '-c', report?.run ?? 'false'], {
        cwd: dir, encoding: 'utf8',
        env: { PATH: `${dir}:${process.env.PATH}`, BASE_REF: 'main', RUN_URL: 'https://example.com/run', GITHUB_OUTPUT: output },
      });
      return { code: r.status, output: readFileSync(output, 'utf8'), md: spawnSync('cat', [join(dir, 'karpenter-diff.md')], { encoding: 'utf8' }).stdout };
    }

    it.each([[0, 'false'], [3, 'true']])('passes when the diff exits %i, recording destructive=%s, and still writes the comment', (status, destructive) => {
      expect(runStep(status)).toEqual({ code: 0, output: `destructive=${destructive}\n`, md: 'md\n' });
    });

    it('fails when the diff itself fails (exit 1: bad input, unknown ref)', () => {
      expect(runStep(1)).toMatchObject({ code: 1, output: '' });
    });
  });

  it(`fails the check after posting the report when a destructive change lacks the ${APPROVAL_LABEL} label`, () => {
    const at = (find: (s: Step) => boolean) => steps.findIndex(find);
    const gate = steps[at((s) => (s.name ?? '').includes(APPROVAL_LABEL))];
    expect(gate.if).toBe(`\${{ !cancelled() && steps.diff.outputs.destructive == 'true' && !contains(github.event.pull_request.labels.*.name, '${APPROVAL_LABEL}') }}`);
    expect(gate.run).toMatch(/^echo "::error title=Destructive change::.*add the label karpenter-drain-approved to the pull request\."\nexit 1\n$/);
    expect(at((s) => s === gate)).toBeGreaterThan(at((s) => s.uses?.startsWith('marocchino/sticky-pull-request-comment@') ?? false));
  });
});

describe('.github/workflows/promote.yaml', () => {
  const workflow = parse(readFileSync('.github/workflows/promote.yaml', 'utf8')) as {
    on: Record<string, unknown>; permissions: Record<string, string>; concurrency: { group: string; 'cancel-in-progress': boolean };
    env: Record<string, string>; jobs: Record<string, { steps: Step[] }>;
  };
  const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
  const promote = steps.find((s) => s.id === 'promote')!;

  it('runs every 15 minutes and by hand, one run at a time, allowed to push refs', () => {
    expect(workflow.on).toEqual({ schedule: [{ cron: '*/15 * * * *' }], workflow_dispatch: {} });
    expect(workflow.permissions).toEqual({ contents: 'write' });
    expect(workflow.concurrency).toEqual({ group: 'promote', 'cancel-in-progress': false });
    expect(steps.find((s) => s.uses?.startsWith('actions/checkout@'))?.with).toMatchObject({ 'fetch-depth': 0 });
    expect(steps.map((s) => s.run ?? '').join('\n')).toMatch(/kubectl -n "\$ARGOCD_NAMESPACE" get applications\.argoproj\.io -o json > apps\.json/);
  });

  describe('the promotion loop', () => {
    let dir: string;
    beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'kg-promote-')); });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    /**
     * Runs the step as GitHub does (bash -e) with stand-ins: `git rev-parse` knows `refs` (name → sha)
     * and `git push` records its arguments; `npm run promote` answers per stage from `answers`
     * (exit status, and the push line printed when ready).
     */
    function runLoop(refs: Record<string, string>, answers: Record<number, number>, prefix = workflow.env.STAGE_REF_PREFIX) {
      const sh = (name: string, body: string) => { writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`); chmodSync(join(dir, name), 0o755); };
      const cases = Object.entries(refs).map(([ref, sha]) => `    "${ref}^{commit}") echo ${sha}; exit 0;;`).join('\n');
      sh('git', `if [ "$1" = rev-parse ]; then\n  case "$4" in\n${cases}\n  esac\n  exit 1\nfi\nif [ "$1" = push ]; then echo "$*" >> "${dir}/pushed"; exit 0; fi\nexit 9`);
      const answerCases = Object.entries(answers).map(([stage, code]) => `  ${stage}) [ ${code} -eq 0 ] && echo "git push origin $rev:refs/heads/karpenter-gitops/stage-${stage}"; exit ${code};;`).join('\n');
      sh('npm', `stage=$5; rev=$7\necho "asked stage $stage at $rev" >> "${dir}/asked"\ncase "$stage" in\n${answerCases}\nesac\nexit 2`);
      const r = spawnSync('bash', ['-e', '-c', promote.run ?? 'false'], {
        cwd: dir, encoding: 'utf8',
        env: { PATH: `${dir}:${process.env.PATH}`, DEFAULT_BRANCH: 'main', STAGE_REF_PREFIX: prefix },
      });
      const read = (f: string) => spawnSync('cat', [join(dir, f)], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean);
      return { code: r.status, asked: read('asked'), pushed: read('pushed'), out: r.stdout };
    }
    const [A, B] = ['a'.repeat(40), 'b'.repeat(40)];

    it('promotes a ready stage at the commit the stage before runs, and stops at the first stage no cluster is at (exit 2)', () => {
      expect(runLoop({ 'origin/main': A, 'origin/karpenter-gitops/stage-2': B, 'origin/karpenter-gitops/stage-3': B }, { 2: 0, 3: 1 })).toMatchObject({
        code: 0,
        asked: [`asked stage 2 at ${A}`, `asked stage 3 at ${B}`, `asked stage 4 at ${B}`],
        pushed: [`push origin ${A}:refs/heads/karpenter-gitops/stage-2`],
      });
    });

    it('creates a stage ref the first time (the push), and does not ask a later stage whose stage before has no ref yet', () => {
      const run = runLoop({ 'origin/main': A }, { 2: 0, 3: 0 });
      expect(run).toMatchObject({ code: 0, asked: [`asked stage 2 at ${A}`], pushed: [`push origin ${A}:refs/heads/karpenter-gitops/stage-2`] });
      expect(run.out).toMatch(/stage 3 waits for origin\/karpenter-gitops\/stage-2, which does not exist yet/);
    });

    it('refuses to run a push of another ref than the stage\'s (STAGE_REF_PREFIX and the config disagree), and fails', () => {
      const run = runLoop({ 'origin/main': A }, { 2: 0 }, 'release/');
      expect(run).toMatchObject({ code: 1, pushed: [] });
      expect(run.out).toMatch(/::error::npm run promote asked for 'git push origin a+:refs\/heads\/karpenter-gitops\/stage-2', not a push of a+ to release\/2/);
    });

    it('pushes nothing while the stage before is not done (exit 1) and goes on to the next stage', () => {
      expect(runLoop({ 'origin/main': A, 'origin/karpenter-gitops/stage-2': B }, { 2: 1, 3: 1 })).toMatchObject({ code: 0, pushed: [] });
    });
  });
});
