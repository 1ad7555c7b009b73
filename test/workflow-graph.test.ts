// The workflows we ship (.github/workflows/promote.yaml and pr.yaml, read as they are) run through
// the model of GitHub Actions' job graph (test/support/github-jobs.ts): which jobs run when a read
// fails, when nothing is ready, when a stage waits for its reviewers. test/workflow.test.ts lints
// them and runs their scripts; this is the part only GitHub decides. The promote workflow of commit
// 1986980 (test/fixtures/workflows/) is the model's own check: it never pushed, and the model says so.
// Fast: the model is pure; the promote file is parsed once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { at, runWorkflow, type Approval, type Scenario } from './support/github-jobs';
import { interpolate, truthy } from './support/github-expressions';

const root = join(__dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/**
 * Argo CD instances as `npm run promote -- plan` lists them (src/promote/plan.ts, `ReadLeg`): two of
 * gitops.argocd, one on a runner of its own (`runsOn`: JSON), or the fleet's only one without it.
 */
const NAMED = [
  { name: 'eu', kubeconfig: false, namespace: 'argocd', eksCluster: 'mgmt-eu', region: 'eu-west-1', roleArn: 'arn:aws:iam::111122223333:role/promote-eu', runsOn: '' },
  { name: 'us', kubeconfig: false, namespace: 'argocd', eksCluster: 'mgmt-us', region: 'us-east-1', roleArn: 'arn:aws:iam::111122223333:role/promote-us', runsOn: '["self-hosted","vpc-us"]' },
];
const KUBECONFIG_ONLY = [{ name: 'argocd', kubeconfig: true, namespace: 'argocd', eksCluster: '', region: '', roleArn: '', runsOn: '' }];
const INSTANCE_FORMS = [['with gitops.argocd (two instances named)', NAMED], ['without gitops.argocd (the kubeconfig leg)', KUBECONFIG_ONLY]] as const;

const STAGE_2 = { stage: 2, revision: '0123abc', ref: 'stage-2' };
const STAGE_3 = { stage: 3, revision: '0123abc', ref: 'stage-3', environment: 'production' };
const STAGE_4 = { stage: 4, revision: '0123abc', ref: 'stage-4', environment: 'production-us' };

interface PromoteRun {
  readonly instances?: readonly object[];
  readonly push?: readonly object[];
  readonly approve?: readonly object[];
  /** Instances whose read leg fails (Argo CD out of reach). @default none */
  readonly unreachable?: readonly string[];
  /** Instances whose read after the approval fails. @default none */
  readonly unreachableAfterApproval?: readonly string[];
  readonly approvals?: Readonly<Record<string, Approval>>;
}

const planOutputs = new Map<string, string>();

/** The output of plan that the read job's matrix reads (its name is the workflow's business). */
function planOutputOfRead(text: string): string {
  const known = planOutputs.get(text);
  if (known !== undefined) return known;
  const matrix = JSON.stringify((parse(text) as { jobs: { read: { strategy: unknown } } }).jobs.read.strategy);
  const name = /needs\.plan\.outputs\.([\w-]+)/.exec(matrix)?.[1];
  if (!name) throw new Error(`the promote workflow's read job has no matrix from needs.plan.outputs: ${matrix}`);
  planOutputs.set(text, name);
  return name;
}

/** A run of the promote workflow of `text`: plan lists the instances, decide what is ready. */
function promoteScenario(text: string, run: PromoteRun): Scenario {
  const instances = run.instances ?? NAMED;
  const approve = run.approve ?? [];
  return {
    vars: {},
    environments: { ...run.approvals },
    jobs: {
      plan: { outputs: { [planOutputOfRead(text)]: JSON.stringify(instances) } },
      read: { legs: (run.unreachable ?? []).map((name) => ({ when: (m) => at(m, 'instance.name') === name, result: 'failure' as const })) },
      reread: { legs: (run.unreachableAfterApproval ?? []).map((name) => ({ when: (m) => at(m, 'instance.name') === name, result: 'failure' as const })) },
      decide: { outputs: { push: JSON.stringify(run.push ?? []), approve: JSON.stringify(approve), reread: JSON.stringify(approve.length > 0 ? instances : []) } },
    },
  };
}

const results = (text: string, scenario: Scenario) => Object.fromEntries(Object.entries(runWorkflow(text, scenario).jobs).map(([id, job]) => [id, job.result]));

describe('the promote workflow of commit 1986980 (the model shows why it never pushed)', () => {
  const old = read('test/fixtures/workflows/promote-1986980.yaml');

  it.each([['with gitops.argocd', NAMED], ['without gitops.argocd', []]] as const)('%s, a ready stage: one read job is skipped, so push is skipped too', (_form, instances) => {
    const run = runWorkflow(old, {
      jobs: {
        plan: { outputs: { instances: JSON.stringify(instances), stages: JSON.stringify([{ stage: 2, ref: 'stage-2' }]), namespace: 'argocd' } },
        decide: { outputs: { push: JSON.stringify([STAGE_2]), approve: '[]' } },
      },
    });
    expect(run.jobs.decide.result).toBe('success');
    // push's `if: needs.decide.outputs.push != '[]'` has no status function: success() is added, and read or read-kubeconfig was skipped.
    expect(run.jobs.push.result).toBe('skipped');
    expect(run.conclusion).toBe('success'); // and nothing says so
  });
});

describe('the promote workflow we ship', () => {
  const promote = read('.github/workflows/promote.yaml');

  describe.each(INSTANCE_FORMS)('%s', (_form, instances) => {
    it('a ready stage without an environment is pushed', () => {
      const run = runWorkflow(promote, promoteScenario(promote, { instances, push: [STAGE_2] }));
      expect(run.jobs.read.legs.map((l) => at(l.matrix ?? {}, 'instance.name'))).toEqual(instances.map((i) => i.name));
      expect(run.jobs.push.legs.map((l) => [l.matrix, l.result, l.environment])).toEqual([[STAGE_2, 'success', 'karpenter-gitops-promote']]);
      expect(run.conclusion).toBe('success');
    });

    it('nothing to push: every push job is skipped, no matrix is expanded empty, and the run does not fail', () => {
      const run = runWorkflow(promote, promoteScenario(promote, { instances }));
      expect(results(promote, promoteScenario(promote, { instances }))).toMatchObject({ decide: 'success', push: 'skipped', approve: 'skipped', reread: 'skipped', 'push-approved': 'skipped' });
      expect(run.conclusion).toBe('success');
    });
  });

  it('one instance out of reach: decide still runs and the ready stage is pushed', () => {
    const run = runWorkflow(promote, promoteScenario(promote, { push: [STAGE_2], unreachable: ['us'] }));
    expect(run.jobs.read.legs.map((l) => [at(l.matrix ?? {}, 'instance.name'), l.result])).toEqual([['eu', 'success'], ['us', 'failure']]);
    expect([run.jobs.read.result, run.jobs.decide.result, run.jobs.push.result]).toEqual(['failure', 'success', 'success']);
  });

  it('every instance out of reach: decide still runs (and holds every stage: its own script\'s business)', () => {
    expect(results(promote, promoteScenario(promote, { unreachable: ['eu', 'us'] })).decide).toBe('success');
  });

  it('a failed plan stops the run: nothing after it runs', () => {
    const scenario = promoteScenario(promote, { push: [STAGE_2] });
    const run = runWorkflow(promote, { ...scenario, jobs: { ...scenario.jobs, plan: { result: 'failure' } } });
    expect(Object.entries(run.jobs).filter(([, j]) => j.result !== 'skipped').map(([id]) => id)).toEqual(['plan']);
  });

  it('an approval pending: push-approved does not run, push (the stages without approval) does', () => {
    const run = runWorkflow(promote, promoteScenario(promote, { push: [STAGE_2], approve: [STAGE_3], approvals: { production: 'waiting' } }));
    expect(run.jobs.push.result).toBe('success');
    expect(run.jobs.approve.result).toBe('waiting');
    expect(run.jobs['push-approved']).toMatchObject({ result: 'waiting', legs: [] });
  });

  it('an approval rejected: push-approved does not run, push does', () => {
    const run = runWorkflow(promote, promoteScenario(promote, { push: [STAGE_2], approve: [STAGE_3], approvals: { production: 'rejected' } }));
    expect(results(promote, promoteScenario(promote, { push: [STAGE_2], approve: [STAGE_3], approvals: { production: 'rejected' } })))
      .toMatchObject({ push: 'success', approve: 'failure', reread: 'skipped', 'push-approved': 'skipped' });
    expect(run.jobs['push-approved'].legs).toEqual([]);
  });

  it.each(INSTANCE_FORMS)('an approval given, %s: reread, then push-approved run', (_form, instances) => {
    const run = runWorkflow(promote, promoteScenario(promote, { instances, approve: [STAGE_3], approvals: { production: 'approved' } }));
    expect(results(promote, promoteScenario(promote, { instances, approve: [STAGE_3], approvals: { production: 'approved' } })))
      .toMatchObject({ push: 'skipped', approve: 'success', reread: 'success', 'push-approved': 'success' });
    expect(run.jobs.reread.legs.map((l) => at(l.matrix ?? {}, 'instance.name'))).toEqual(instances.map((i) => i.name));
    expect(run.jobs.approve.legs.map((l) => l.environment)).toEqual(['production']);
  });

  it('an instance out of reach after the approval: push-approved still runs (its own recheck must then hold the stage)', () => {
    const run = runWorkflow(promote, promoteScenario(promote, { approve: [STAGE_3], approvals: { production: 'approved' }, unreachableAfterApproval: ['us'] }));
    expect([run.jobs.reread.result, run.jobs['push-approved'].result]).toEqual(['failure', 'success']);
  });

  it('the runner: KARPENTER_GITOPS_RUNNER (JSON) or ubuntu-latest, for every job that has legs', () => {
    for (const vars of [{}, { KARPENTER_GITOPS_RUNNER: '["self-hosted","vpc"]', KARPENTER_GITOPS_PROMOTE_RUNNER: '"ubuntu-24.04"' }] as Record<string, string>[]) {
      const run = runWorkflow(promote, { ...promoteScenario(promote, { push: [STAGE_2], approve: [STAGE_3], approvals: { production: 'approved' } }), vars });
      expect(Object.values(run.jobs).flatMap((j) => j.legs).filter((l) => l.error !== undefined)).toEqual([]);
    }
  });

  it('every combination of instances, reads out of reach, ready stages, approvals and a failed decide: push jobs run exactly when they should', () => {
    const cases = INSTANCE_FORMS.flatMap(([, instances]) => [[], [instances[0].name], instances.map((i) => i.name)].flatMap((unreachable) =>
      [[], [STAGE_2]].flatMap((push) => [[], [STAGE_3]].flatMap((approve) => (approve.length > 0 ? (['approved', 'rejected', 'waiting'] as const) : [undefined])
        .flatMap((approval) => (['success', 'failure'] as const).map((decide) => ({ instances, unreachable, push, approve, approval, decide })))))));
    const wrong = cases.flatMap((c) => {
      const scenario = promoteScenario(promote, { ...c, ...(c.approval ? { approvals: { production: c.approval } } : {}) });
      const run = runWorkflow(promote, c.decide === 'failure' ? { ...scenario, jobs: { ...scenario.jobs, decide: { result: 'failure' } } } : scenario);
      const decided = c.decide === 'success';
      const expected = {
        decide: c.decide,
        push: decided && c.push.length > 0 ? 'success' : 'skipped',
        approve: decided && c.approve.length > 0 ? { approved: 'success', rejected: 'failure', waiting: 'waiting' }[c.approval ?? 'approved'] : 'skipped',
        'push-approved': decided && c.approve.length > 0 ? { approved: 'success', rejected: 'skipped', waiting: 'waiting' }[c.approval ?? 'approved'] : 'skipped',
        conclusion: c.unreachable.length > 0 || !decided || c.approval === 'rejected' ? 'failure' : c.approval === 'waiting' && decided ? 'waiting' : 'success',
        errors: [] as string[],
      };
      const got = {
        decide: run.jobs.decide.result, push: run.jobs.push.result, approve: run.jobs.approve.result, 'push-approved': run.jobs['push-approved'].result, conclusion: run.conclusion,
        errors: Object.values(run.jobs).flatMap((j) => [j.error, ...j.legs.map((l) => l.error)]).filter((e): e is string => e !== undefined),
      };
      return JSON.stringify(got) === JSON.stringify(expected) ? [] : [{ case: { ...c, instances: c.instances.length }, expected, got }];
    });
    expect(cases).toHaveLength(2 * 3 * 2 * 4 * 2);
    expect(wrong).toEqual([]);
  });

  // approve is one matrix job and push-approved reads its one result: in one matrix, one stage's
  // rejection (a failed leg: the approve job fails) would hold every other approved stage. So
  // decide hands at most one stage to approve per run (promote/decide.ts; test/promote/decide.test.ts):
  // the model shows the hold, and that one leg alone is pushed once approved.
  it('two stages for approval in one matrix would hold each other; one per run is pushed once approved', () => {
    const both = runWorkflow(promote, promoteScenario(promote, { approve: [STAGE_3, STAGE_4], approvals: { production: 'rejected', 'production-us': 'approved' } }));
    expect(both.jobs['push-approved'].result).toBe('skipped');
    const one = runWorkflow(promote, promoteScenario(promote, { approve: [STAGE_4], approvals: { 'production-us': 'approved' } }));
    expect(one.jobs['push-approved'].result).toBe('success');
  });
});

describe('the pr workflow we ship', () => {
  const pr = read('.github/workflows/pr.yaml');
  const scenario = (jobs: Scenario['jobs']): Scenario => ({ vars: {}, github: { event: { pull_request: { number: 7, labels: [] } } }, jobs });

  const fanOut = (n: number) => ({ shards: JSON.stringify(Array.from({ length: n }, (_, i) => i + 1)), count: String(n) });

  it.each(['true', 'false'])('tool changed: %s; the review runs and posts whether or not the pull request\'s tests fail', (tool) => {
    for (const check of ['success', 'failure'] as const) {
      expect(results(pr, scenario({ changes: { outputs: { tool, ...fanOut(1) } }, check: { result: check } }))).toEqual({ changes: 'success', check, 'review-shard': 'success', checks: 'success', review: 'success' });
    }
  });

  it('fans the check and the review out to as many legs as the shards, and assembles the report once', () => {
    const run = runWorkflow(pr, scenario({ changes: { outputs: { tool: 'false', ...fanOut(8) } } }));
    expect(run.jobs.check.legs.map((l) => l.matrix)).toEqual(Array.from({ length: 8 }, (_, i) => ({ shard: i + 1 })));
    expect(run.jobs['review-shard'].legs).toHaveLength(8);
    expect(run.jobs.review.legs).toHaveLength(1);
    expect(run.jobs.review.result).toBe('success');
  });

  it('posts no report when a review shard fails (its clusters would be missing from it), and a failed check leg fails the check', () => {
    const failedLeg = { legs: [{ when: (m: Record<string, unknown>) => m.shard === 3, result: 'failure' as const }] };
    expect(results(pr, scenario({ changes: { outputs: { tool: 'false', ...fanOut(4) } }, 'review-shard': failedLeg }))).toEqual({ changes: 'success', check: 'success', 'review-shard': 'failure', checks: 'success', review: 'skipped' });
    expect(results(pr, scenario({ changes: { outputs: { tool: 'false', ...fanOut(4) } }, check: failedLeg }))).toEqual({ changes: 'success', check: 'failure', 'review-shard': 'success', checks: 'success', review: 'success' });
  });

  it('runs the one check branch protection requires whatever became of the check\'s legs, and fails it unless every leg passed', () => {
    // The model gives a job's outcome, not its steps'; the step's own condition is the real expression, evaluated here.
    const step = (parse(pr) as { jobs: { checks: { steps: { if: string }[] } } }).jobs.checks.steps[0];
    const fails = (result: string) => truthy(interpolate(step.if, { contexts: { needs: { check: { result, outputs: {} } } } }));
    expect(['success', 'failure', 'skipped', 'cancelled'].map(fails)).toEqual([false, true, true, true]);
  });

  it('a failed changes job skips the check and the review', () => {
    expect(results(pr, scenario({ changes: { result: 'failure' } }))).toEqual({ changes: 'failure', check: 'skipped', 'review-shard': 'skipped', checks: 'success', review: 'skipped' });
  });
});
