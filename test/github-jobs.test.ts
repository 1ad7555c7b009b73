// The model of GitHub Actions' job graph (test/support/github-jobs.ts) and its expressions
// (test/support/github-expressions.ts), one rule of GitHub's at a time; each test names the rule
// (the sources are in the files' comments). The workflows are small and built here, not copied.
import { stringify } from 'yaml';
import { at, runWorkflow, type Scenario } from './support/github-jobs';
import { evaluate, interpolate, parseExpression, type Value } from './support/github-expressions';

/** A workflow of these jobs (each gets a runs-on and one step unless it says otherwise). */
const workflow = (jobs: Record<string, Record<string, unknown>>) =>
  stringify({ on: 'push', jobs: Object.fromEntries(Object.entries(jobs).map(([id, job]) => [id, { 'runs-on': 'ubuntu-latest', steps: [{ run: 'true' }], ...job }])) });

const results = (text: string, scenario: Scenario = {}) =>
  Object.fromEntries(Object.entries(runWorkflow(text, scenario).jobs).map(([id, job]) => [id, job.result]));

const expr = (text: string, contexts: Record<string, Value> = {}) => evaluate(parseExpression(text), { contexts });

describe('expressions (docs: "Evaluate expressions in workflows and actions")', () => {
  it('Literals: booleans, null, JSON and hex numbers, single-quoted strings with doubled quotes', () => {
    expect([expr('true'), expr('FALSE'), expr('null'), expr('711'), expr('-9.2'), expr('0xff'), expr('-2.99e-2'), expr("'It''s open source!'")])
      .toEqual([true, false, null, 711, -9.2, 255, -0.0299, "It's open source!"]);
  });

  it('Literals: double quotes are an error', () => {
    expect(() => expr('"ubuntu-latest"')).toThrow(/double quotes/);
  });

  it('Operators: GitHub ignores case when comparing strings', () => {
    expect(expr("'SUCCESS' == 'success'")).toBe(true);
    expect(expr("'a' != 'A'")).toBe(false);
  });

  it('Operators: loose equality coerces different types to numbers; arrays and objects equal only themselves', () => {
    expect([expr("'1' == 1"), expr('null == 0'), expr("'' == 0"), expr('true == 1'), expr("'abc' == 0"), expr("fromJSON('[]') == fromJSON('[]')")])
      .toEqual([true, true, true, true, false, false]);
    // An absent output reads '', which is not '[]': the model's guards must compare results, not only outputs.
    expect(expr("needs.a.outputs.x != '[]'", { needs: { a: { result: 'skipped', outputs: {} } } })).toBe(true);
  });

  it('Operators: && and || return an operand, not a boolean', () => {
    expect(expr("'' || 'fallback'")).toBe('fallback');
    expect(expr("'a' && 'b'")).toBe('b');
    expect(expr("0 && 'b'")).toBe(0);
    expect(expr(`fromJSON(vars.R || '"ubuntu-latest"')`, { vars: { R: '' } })).toBe('ubuntu-latest');
    expect(expr(`fromJSON(vars.R || '"ubuntu-latest"')`, { vars: { R: '["self-hosted"]' } })).toEqual(['self-hosted']);
  });

  it('Operators: ! binds tighter than ==, && tighter than ||, parentheses group', () => {
    expect(expr("!'' == true")).toBe(true);
    expect(expr('true || false && false')).toBe(true);
    expect(expr('(true || false) && false')).toBe(false);
    expect(expr('!(true && false)')).toBe(true);
  });

  it('Literals: falsy values are false, 0, -0, \'\' and null; everything else is truthy', () => {
    expect(['false', '0', '-0', "''", 'null'].map((v) => expr(`!${v}`))).toEqual([true, true, true, true, true]);
    expect(["'false'", "fromJSON('[]')", "fromJSON('{}')"].map((v) => expr(`!${v}`))).toEqual([false, false, false]);
  });

  it('Contexts: a property that does not exist evaluates to an empty string', () => {
    expect(expr('needs.plan.outputs.missing', { needs: { plan: { result: 'success', outputs: {} } } })).toBe('');
  });

  it('Object filters: labels.*.name is the labels\' names', () => {
    const github = { event: { pull_request: { labels: [{ name: 'karpenter-drain-approved' }, { name: 'docs' }] } } };
    expect(expr("contains(github.event.pull_request.labels.*.name, 'Karpenter-Drain-Approved')", { github })).toBe(true);
    expect(expr("contains(github.event.pull_request.labels.*.name, 'karpenter')", { github })).toBe(false);
  });

  it('Functions: contains and startsWith ignore case; fromJSON and toJSON round-trip', () => {
    expect(expr("contains('Hello world', 'WORLD')")).toBe(true);
    expect(expr("startsWith('refs/heads/main', 'REFS/')")).toBe(true);
    expect(expr(`fromJSON('{"a":1}')`)).toEqual({ a: 1 });
    expect(expr(`fromJSON('[{"name":"argocd"}]')[0].name`)).toBe('argocd');
    expect(expr("toJSON(fromJSON('[1]'))")).toBe('[\n  1\n]');
  });

  it('fails on syntax or functions the model does not know', () => {
    expect(() => expr("hashFiles('x')")).toThrow(/hashfiles\(\) is not in the model/);
    expect(() => expr('a ? b : c', { a: true })).toThrow(/unexpected/);
    expect(() => expr('secrets.TOKEN', { github: {} })).toThrow(/Unrecognized named-value: 'secrets'/);
    expect(() => expr("success('build')")).toThrow(/takes 0/);
  });

  it('${{ }} in a longer string is written in as a string; alone it keeps its type', () => {
    expect(interpolate('push stage ${{ matrix.stage }}', { contexts: { matrix: { stage: 3 } } })).toBe('push stage 3');
    expect(interpolate("${{ fromJSON('[1,2]') }}", { contexts: {} })).toEqual([1, 2]);
  });
});

describe('jobs (docs: workflow syntax, "jobs.<job_id>.needs" and "jobs.<job_id>.if")', () => {
  it('needs: a string or a list; a job that needs a failed job is skipped', () => {
    const text = workflow({ a: {}, b: { needs: 'a' }, c: { needs: ['a', 'b'] } });
    expect(results(text)).toEqual({ a: 'success', b: 'success', c: 'success' });
    expect(results(text, { jobs: { a: { result: 'failure' } } })).toEqual({ a: 'failure', b: 'skipped', c: 'skipped' });
  });

  it('needs: a skip applies to all jobs in the dependency chain from the point of the skip onwards', () => {
    const text = workflow({ a: { if: 'false' }, b: { needs: 'a' }, c: { needs: 'b' } });
    expect(results(text)).toEqual({ a: 'skipped', b: 'skipped', c: 'skipped' });
  });

  it('if: a job without a status function gets success() (WorkflowTemplateConverter ConvertToIfCondition)', () => {
    const text = workflow({ a: {}, b: { needs: 'a', if: "needs.a.result == 'failure'" } });
    expect(results(text, { jobs: { a: { result: 'failure' } } }).b).toBe('skipped');
  });

  it('if: with a status function, no implicit success(); ${{ }} is optional', () => {
    const text = workflow({ a: {}, b: { needs: 'a', if: "${{ always() && needs.a.result == 'failure' }}" }, c: { needs: 'a', if: "always() && needs.a.result == 'failure'" } });
    expect(results(text, { jobs: { a: { result: 'failure' } } })).toEqual({ a: 'failure', b: 'success', c: 'success' });
  });

  it('success() is false when any job of the transitive needs chain was skipped (actions/runner#2205)', () => {
    // The issue's own workflow: Next needs Needs-Job, which ran after the skipped Skipped-Job.
    const text = workflow({
      'Skipped-Job': { if: '1 != 1' },
      'Needs-Job': { needs: 'Skipped-Job', if: "always() && needs.Skipped-Job.result != 'failed'" },
      Next: { needs: 'Needs-Job' },
      'Next-If-Result': { needs: 'Needs-Job', if: "always() && needs.Needs-Job.result == 'success'" },
    });
    expect(results(text)).toEqual({ 'Skipped-Job': 'skipped', 'Needs-Job': 'success', Next: 'skipped', 'Next-If-Result': 'success' });
  });

  it('failure() is true when any ancestor failed, not only a direct need', () => {
    const text = workflow({ a: {}, b: { needs: 'a', if: 'always()' }, c: { needs: 'b', if: 'failure()' } });
    expect(results(text, { jobs: { a: { result: 'failure' } } })).toEqual({ a: 'failure', b: 'success', c: 'success' });
    expect(results(text).c).toBe('skipped');
  });

  it('cancelled(): in a cancelled run, a job under always() runs and one under !cancelled() is cancelled', () => {
    const text = workflow({ a: { if: 'always()' }, b: { if: '!cancelled()' }, c: {} });
    expect(runWorkflow(text, { cancelled: true })).toMatchObject({ conclusion: 'cancelled', jobs: { a: { result: 'success' }, b: { result: 'cancelled' }, c: { result: 'cancelled' } } });
  });

  it('needs context: a skipped job\'s result is skipped and its outputs read empty', () => {
    const text = workflow({
      a: { if: 'false', outputs: { x: '${{ steps.s.outputs.x }}' } },
      b: { needs: 'a', if: "always() && needs.a.result == 'skipped' && needs.a.outputs.x == ''" },
    });
    expect(runWorkflow(text, { jobs: { a: { outputs: { x: 'set' } } } }).jobs).toMatchObject({ a: { result: 'skipped', outputs: {} }, b: { result: 'success' } });
  });

  it('Context availability: matrix is not available in a job-level if', () => {
    expect(() => runWorkflow(workflow({ a: { if: "matrix.x == 'y'", strategy: { matrix: { x: ['y'] } } } }))).toThrow(/Unrecognized named-value: 'matrix'/);
  });

  it('refuses a workflow it cannot read: unknown needs, cycles, needs.<id> outside needs, scenario typos', () => {
    expect(() => runWorkflow(workflow({ a: { needs: 'nope' } }))).toThrow(/needs nope, which is not a job/);
    expect(() => runWorkflow(workflow({ a: { needs: 'b' }, b: { needs: 'a' } }))).toThrow(/cycle/);
    expect(() => runWorkflow(workflow({ a: {}, b: { if: "needs.a.result == 'success'" } }))).toThrow(/needs\.a, which is not in its needs/);
    expect(() => runWorkflow(workflow({ a: {} }), { jobs: { b: {} } })).toThrow(/no job b/);
    expect(() => runWorkflow(workflow({ a: {} }), { jobs: { a: { outputs: { x: '1' } } } })).toThrow(/job a has no output x/);
  });
});

describe('matrix (docs: "Running variations of jobs", "jobs.<job_id>.strategy")', () => {
  const legsOf = (text: string, id: string, scenario: Scenario = {}) => runWorkflow(text, scenario).jobs[id].legs.map((l) => l.matrix);

  it('vectors make a cross product; exclude removes; include extends matching legs or adds one', () => {
    const text = workflow({ a: { strategy: { matrix: {
      os: ['linux', 'windows'], node: [20, 22],
      exclude: [{ os: 'windows', node: 20 }],
      include: [{ os: 'linux', experimental: true }, { os: 'mac', node: 22 }],
    } } } });
    expect(legsOf(text, 'a')).toEqual([
      { os: 'linux', node: 20, experimental: true }, { os: 'linux', node: 22, experimental: true },
      { os: 'windows', node: 22 }, { os: 'mac', node: 22 },
    ]);
  });

  it('include alone, and a vector from fromJSON(needs.X.outputs.Y)', () => {
    const text = workflow({
      plan: { outputs: { list: '${{ steps.p.outputs.list }}' } },
      a: { needs: 'plan', strategy: { matrix: { include: '${{ fromJSON(needs.plan.outputs.list) }}' } } },
      b: { needs: 'plan', strategy: { matrix: { item: '${{ fromJSON(needs.plan.outputs.list) }}' } } },
    });
    const scenario = { jobs: { plan: { outputs: { list: '[{"stage":2},{"stage":3}]' } } } };
    expect(legsOf(text, 'a', scenario)).toEqual([{ stage: 2 }, { stage: 3 }]);
    expect(legsOf(text, 'b', scenario)).toEqual([{ item: { stage: 2 } }, { item: { stage: 3 } }]);
  });

  it('an empty matrix fails the job and the run (WorkflowTemplateConverter ConvertToStrategy)', () => {
    const text = workflow({
      plan: { outputs: { list: '${{ steps.p.outputs.list }}' } },
      vector: { needs: 'plan', strategy: { matrix: { item: '${{ fromJSON(needs.plan.outputs.list) }}' } } },
      include: { needs: 'plan', strategy: { matrix: { include: '${{ fromJSON(needs.plan.outputs.list) }}' } } },
    });
    const run = runWorkflow(text, { jobs: { plan: { outputs: { list: '[]' } } } });
    expect(run.conclusion).toBe('failure');
    expect(run.jobs.vector).toMatchObject({ result: 'failure', legs: [], error: "Matrix vector 'item' does not contain any values" });
    expect(run.jobs.include).toMatchObject({ result: 'failure', legs: [], error: 'Matrix must define at least one vector' });
  });

  it('a job whose if is false never expands its matrix: the guard against an empty one', () => {
    const text = workflow({
      plan: { outputs: { list: '${{ steps.p.outputs.list }}' } },
      a: { needs: 'plan', if: "needs.plan.outputs.list != '[]'", strategy: { matrix: { include: '${{ fromJSON(needs.plan.outputs.list) }}' } } },
    });
    expect(runWorkflow(text, { jobs: { plan: { outputs: { list: '[]' } } } })).toMatchObject({ conclusion: 'success', jobs: { a: { result: 'skipped' } } });
  });

  const threeLegs = (failFast?: boolean) => workflow({
    a: { strategy: { ...(failFast === undefined ? {} : { 'fail-fast': failFast }), matrix: { n: [1, 2, 3] } } },
    b: { needs: 'a' },
  });
  const secondFails: Scenario = { jobs: { a: { legs: [{ when: (m) => m.n === 2, result: 'failure' }] } } };

  it('fail-fast (default true): a failed leg cancels the others, and the job fails', () => {
    const run = runWorkflow(threeLegs(), secondFails);
    expect(run.jobs.a.legs.map((l) => l.result)).toEqual(['cancelled', 'failure', 'cancelled']);
    expect([run.jobs.a.result, run.jobs.b.result]).toEqual(['failure', 'skipped']);
  });

  it('fail-fast false: the other legs finish, and needs.<id>.result is failure when any leg failed', () => {
    const run = runWorkflow(threeLegs(false), secondFails);
    expect(run.jobs.a.legs.map((l) => l.result)).toEqual(['success', 'failure', 'success']);
    expect([run.jobs.a.result, run.jobs.b.result, run.conclusion]).toEqual(['failure', 'skipped', 'failure']);
  });

  it('a matrix job\'s outputs: the last leg to finish that set a value wins', () => {
    const text = workflow({ a: { outputs: { x: '${{ steps.s.outputs.x }}' }, strategy: { matrix: { n: [1, 2, 3] } } } });
    const run = runWorkflow(text, { jobs: { a: { legs: [{ when: (m) => m.n === 1, outputs: { x: 'one' } }, { when: (m) => m.n === 2, outputs: { x: 'two' } }] } } });
    expect(run.jobs.a.outputs).toEqual({ x: 'two' });
  });

  it('runs-on is evaluated per leg: a runs-on that cannot be evaluated fails its leg', () => {
    const text = workflow({ a: { 'runs-on': `\${{ fromJSON(matrix.runner || vars.RUNNER || '"ubuntu-latest"') }}`, strategy: { 'fail-fast': false, matrix: { runner: ['', '["self-hosted"]', 'not json'] } } } });
    const run = runWorkflow(text, { vars: { RUNNER: '' } });
    expect(run.jobs.a.legs.map((l) => l.result)).toEqual(['success', 'success', 'failure']);
    expect(run.jobs.a.legs[2].error).toMatch(/fromJSON\("not json"\)/);
    expect(at({ instance: { name: 'eu' } }, 'instance.name')).toBe('eu');
  });
});

describe('continue-on-error and environments', () => {
  it('jobs.<job_id>.continue-on-error: the job failed, needs.<id>.result reads success and the run does not fail (actions/runner#1161)', () => {
    const text = workflow({ a: { 'continue-on-error': true }, b: { needs: 'a' } });
    expect(runWorkflow(text, { jobs: { a: { result: 'failure' } } })).toMatchObject({ conclusion: 'success', jobs: { a: { result: 'success', legs: [{ result: 'failure' }] }, b: { result: 'success' } } });
  });

  it('continue-on-error per leg: that leg neither fails the job nor cancels the others', () => {
    const text = workflow({ a: { 'continue-on-error': '${{ matrix.experimental }}', strategy: { matrix: { experimental: [false, true] } } } });
    const run = runWorkflow(text, { jobs: { a: { legs: [{ when: (m) => m.experimental === true, result: 'failure' }] } } });
    expect(run.jobs.a.legs.map((l) => l.result)).toEqual(['success', 'failure']);
    expect(run.jobs.a.result).toBe('success');
  });

  const deploy = workflow({ a: { environment: '${{ matrix.env }}', strategy: { 'fail-fast': false, matrix: { env: ['staging', 'production'] } } }, b: { needs: 'a' } });

  it('Reviewing deployments: an environment without reviewers runs; approved runs', () => {
    expect(results(deploy)).toEqual({ a: 'success', b: 'success' });
    expect(results(deploy, { environments: { production: 'approved' } })).toEqual({ a: 'success', b: 'success' });
  });

  it('Reviewing deployments: a rejected job fails, and the workflow fails', () => {
    const run = runWorkflow(deploy, { environments: { production: 'rejected' } });
    expect(run.jobs.a.legs).toEqual([{ matrix: { env: 'staging' }, environment: 'staging', result: 'success' }, { matrix: { env: 'production' }, environment: 'production', result: 'failure' }]);
    expect([run.jobs.a.result, run.jobs.b.result, run.conclusion]).toEqual(['failure', 'skipped', 'failure']);
  });

  it('Reviewing deployments: a job awaiting approval is Waiting, and so is every job that needs it', () => {
    expect(runWorkflow(deploy, { environments: { production: 'waiting' } })).toMatchObject({ conclusion: 'waiting', jobs: { a: { result: 'waiting' }, b: { result: 'waiting', legs: [] } } });
  });

  it('environment as a mapping: its name', () => {
    const text = workflow({ a: { environment: { name: 'production', url: 'https://example.com' } } });
    expect(runWorkflow(text, { environments: { production: 'rejected' } }).jobs.a.result).toBe('failure');
  });
});
