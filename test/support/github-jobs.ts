/**
 * How GitHub Actions decides which jobs of a workflow run run, and what each job's result is, so
 * that a test can run a shipped workflow file (.github/workflows/*.yaml) through scenarios: which
 * steps fail, which outputs a job sets, which environment's reviewers approve. Expressions are
 * github-expressions.ts. Written from GitHub's documentation (read 2026-12) and, where it is
 * silent, from actions/runner's workflow parser at MODELS.githubActions (test/support/upstream.ts:
 * actions/runner v2.336.0, `src/Sdk/WorkflowParser/Conversion/`) and issue threads; every rule:
 *
 * - `needs` (a string or a list) orders the jobs: a job starts once every job it needs has
 *   finished. "If a job fails or is skipped, all jobs that need it are skipped unless the jobs
 *   use a conditional expression that causes the job to continue. If a run contains a series of
 *   jobs that need each other, a failure or skip applies to all jobs in the dependency chain from
 *   the point of failure or skip onwards."
 *   @see https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idneeds
 * - A job-level `if` may omit `${{ }}`; one without a status function (`success()`,
 *   `failure()`, `always()`, `cancelled()`) becomes `success() && (<if>)`, and no `if` is
 *   `success()`: actions/runner WorkflowTemplateConverter.cs L1382 (`ConvertToIfCondition(…,
 *   IfKind.Job)`), L1806-L1808 (empty → `success()`) and L1848-L1861 (no status function →
 *   `success() && (<if>)`); docs "Status check functions" ("A default status check
 *   of success() is applied unless you include one of these functions").
 *   @see https://docs.github.com/en/actions/reference/workflows-and-actions/expressions#status-check-functions
 * - At job level `success()` is true only when every job of the transitive `needs` chain
 *   succeeded: a skipped ancestor makes it false even when the direct need succeeded
 *   (actions/runner#2205: `Next` needs a job that ran under `always()` after a skipped job, has no
 *   `if`, and is skipped; actions/runner#491; github/docs#28762 quoting the `needs` rule above).
 *   `failure()`: "If you have a chain of dependent jobs, failure() returns true if any ancestor
 *   job fails" (docs, "failure"). `always()` is true; `cancelled()` is true when the run was
 *   cancelled (docs, "cancelled"), and then `success()` is false.
 * - Contexts at job level `if`: github, needs, vars, inputs; `matrix` is not (docs "Context
 *   availability": `jobs.<job_id>.if` — github, needs, vars, inputs; WorkflowTemplateConverter.cs
 *   L2270-L2276 `s_jobIfNamedValues`); `needs.<id>` only for a job
 *   in `needs`. `needs.<id>.result` is success, failure, cancelled or skipped; outputs of a job
 *   that did not run are absent, so they read '' (docs, "needs context"; github-expressions.ts).
 *   @see https://docs.github.com/en/actions/reference/workflows-and-actions/contexts#needs-context
 * - The `if` is decided before the matrix is expanded: a job skipped by its `if` never evaluates
 *   its `strategy`, which is how a workflow avoids an empty matrix (github.community "Empty matrix
 *   fails workflow", https://github.community/t/empty-matrix-fails-workflow/128736).
 * - `strategy.matrix`: vectors (cross product), then `exclude`, then `include` — each include
 *   object is added to every combination whose original values it does not overwrite, or else
 *   becomes a combination of its own (docs "Running variations of jobs in a workflow", "Expanding
 *   or adding matrix configurations"). A vector that is empty fails the job with "Matrix vector
 *   '<name>' does not contain any values"; a matrix with neither a vector nor a non-empty
 *   `include` with "Matrix must define at least one vector" (WorkflowTemplateConverter.cs
 *   `ConvertToStrategy`, L973 and L985; the include rule is MatrixBuilder.cs `Build`, L116-L175);
 *   the run fails (github.community above).
 *   @see https://docs.github.com/en/actions/how-tos/write-workflows/choose-what-workflows-do/run-job-variations
 * - `strategy.fail-fast` (default true): "GitHub will cancel all in-progress and queued jobs in
 *   the matrix if any job in the matrix fails"; a leg whose `continue-on-error` is true does not
 *   (docs "Handling failures").
 *   @see https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idstrategyfail-fast
 * - A matrix job's `needs.<id>.result` is failure when any leg failed (nektos/act#1519 does the
 *   same: "to have the whole job failing in case of one permutation of the matrix failed";
 *   gem5/gem5#188: with fail-fast false the failed leg still fails the workflow), else cancelled
 *   when a leg was cancelled.
 * - A matrix job's outputs: the legs write the same outputs, and the last to finish wins ("If your
 *   job uses a matrix … the content will be overwritten for each matrix combination", docs
 *   "Passing information between jobs"; cloudposse/github-action-matrix-outputs-write README:
 *   "only the latest iteration's output available"); for reusable workflows the docs say "the last
 *   successful completing … which sets a non-empty value", which the model uses for both.
 *   @see https://docs.github.com/en/actions/how-tos/write-workflows/choose-what-workflows-do/pass-job-outputs
 * - Job-level `continue-on-error`: the job failed but its `needs.<id>.result` reads success, and
 *   the run does not fail (actions/runner#1161, actions/toolkit#581).
 * - `environment:` with required reviewers: the job waits ("Waiting") until a reviewer approves
 *   it, then runs; "If a job is rejected, the workflow will fail", and the job fails; a job not
 *   approved within 30 days fails too (docs "Reviewing deployments"). An environment the scenario
 *   does not name has no protection rules and the job runs.
 *   @see https://docs.github.com/en/actions/how-tos/deploy/configure-and-manage-deployments/review-deployments
 * - `runs-on` with `${{ }}` is evaluated per leg (matrix available); an expression that cannot
 *   be evaluated fails that leg (as `fromJSON` of a non-JSON string does on GitHub).
 *
 * What the model does NOT cover: steps (a scenario gives each job's outcome and outputs rather
 * than running its steps: step `if`s, `hashFiles` and step outputs are not evaluated);
 * `concurrency` (github-sim.ts models it for the promote simulation); timing — legs finish in
 * matrix order, and a fail-fast failure cancels every other leg that did not fail itself (the
 * worst case: GitHub cancels only those still in progress or queued); `max-parallel`; the 256-leg
 * limit; reusable workflows (`uses:` at job level), `workflow_call` inputs and secrets; a run
 * cancelled part way (a cancelled scenario is cancelled before any job starts: a job whose `if` is
 * then false is cancelled, one whose `if` holds runs); job and step timeouts; the 30-day approval
 * limit (a scenario says approved, rejected or still waiting); wait timers and custom deployment
 * protection rules; the `<`/`>` comparison of mixed types beyond the documented coercion.
 */
import { parse } from 'yaml';
import {
  STATUS_FUNCTIONS, asString, calledFunctions, evaluate, interpolate, neededJobs, parseExpression, truthy,
  type Scope, type Value,
} from './github-expressions';

/** A job's or a leg's result as `needs.<id>.result` reads it, or `waiting` for reviewers (or for a job it needs that waits). */
export type JobResult = 'success' | 'failure' | 'cancelled' | 'skipped' | 'waiting';

/** What an environment's required reviewers did. */
export type Approval = 'approved' | 'rejected' | 'waiting';

/** The values of one matrix leg (`matrix.<key>`). */
export type Matrix = Readonly<Record<string, unknown>>;

/** What the steps of a job (or of the matching legs of a matrix job) come to. */
export interface StepsOutcome {
  /** The outcome of its steps. @default "success" */
  readonly result?: 'success' | 'failure';
  /** The job outputs they set (names must be under the job's `outputs:`). @default - none */
  readonly outputs?: Readonly<Record<string, string>>;
}

/** The legs of a matrix job a {@link StepsOutcome} applies to. */
export interface LegOutcome extends StepsOutcome {
  /** Which legs: those whose matrix values this accepts. */
  readonly when: (matrix: Matrix) => boolean;
}

/** What a job's steps do in a scenario; a leg no {@link LegOutcome} matches takes the job's own outcome. */
export interface JobOutcome extends StepsOutcome {
  /** Outcomes of some legs, the first match wins. @default - none */
  readonly legs?: readonly LegOutcome[];
}

/** One run of a workflow: what the steps do, the reviewers, the variables. */
export interface Scenario {
  /** Per job id. A job not here succeeds and sets no outputs. @default - none */
  readonly jobs?: Readonly<Record<string, JobOutcome>>;
  /** The environments with required reviewers, and what they did. @default - none has reviewers */
  readonly environments?: Readonly<Record<string, Approval>>;
  /** The `vars` context (repository variables). @default {} */
  readonly vars?: Readonly<Record<string, string>>;
  /** The `github` context. @default {} */
  readonly github?: Value;
  /** The run was cancelled before any job started. @default false */
  readonly cancelled?: boolean;
}

/** A leg of a job (a job without a matrix has one, with matrix null). */
export interface Leg {
  /** Its matrix values, or null without a matrix. */
  readonly matrix: Matrix | null;
  /** Its result, before the job's `continue-on-error`. */
  readonly result: JobResult;
  /** The environment it deploys to. @default - none */
  readonly environment?: string;
  /** Why it failed, when the model knows (an expression that could not be evaluated). @default - none */
  readonly error?: string;
}

/** A job of a run as the model ran it. */
export interface JobRun {
  /** `needs.<id>.result`. */
  readonly result: JobResult;
  /** Its legs; none when it was skipped, cancelled, waiting on a job it needs, or its matrix failed. */
  readonly legs: readonly Leg[];
  /** `needs.<id>.outputs`. */
  readonly outputs: Readonly<Record<string, string>>;
  /** Why the job failed before any leg ran (its matrix), when it did. @default - none */
  readonly error?: string;
}

/** A workflow run as the model ran it. */
export interface WorkflowRun {
  /** Per job id. */
  readonly jobs: Readonly<Record<string, JobRun>>;
  /** The run's conclusion: failure when a job failed (not under continue-on-error). */
  readonly conclusion: 'success' | 'failure' | 'cancelled' | 'waiting';
}

interface JobSpec {
  readonly needs?: string | readonly string[];
  readonly if?: string | boolean;
  readonly strategy?: { readonly matrix?: unknown; readonly 'fail-fast'?: unknown };
  readonly environment?: unknown;
  readonly 'runs-on'?: unknown;
  readonly 'continue-on-error'?: unknown;
  readonly outputs?: Readonly<Record<string, unknown>>;
  readonly uses?: string;
}

const needsOf = (job: JobSpec): string[] => (job.needs === undefined ? [] : typeof job.needs === 'string' ? [job.needs] : [...job.needs]);

/** The job ids in an order where each comes after the jobs it needs; throws on unknown ids and cycles. */
function jobOrder(jobs: Readonly<Record<string, JobSpec>>): string[] {
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, from: string[]) => {
    if (!(id in jobs)) throw new Error(`job ${from.at(-1)} needs ${id}, which is not a job of the workflow`);
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') throw new Error(`the needs of ${[...from, id].join(' → ')} make a cycle`);
    state.set(id, 'visiting');
    for (const need of needsOf(jobs[id])) visit(need, [...from, id]);
    state.set(id, 'done');
    order.push(id);
  };
  for (const id of Object.keys(jobs)) visit(id, []);
  return order;
}

function ancestorsOf(id: string, jobs: Readonly<Record<string, JobSpec>>): Set<string> {
  const found = new Set<string>();
  const walk = (of: string) => { for (const need of needsOf(jobs[of])) if (!found.has(need)) { found.add(need); walk(need); } };
  walk(id);
  return found;
}

/** The job's `if`, with `${{ }}` taken off and `success() && ( )` added when it has no status function. */
function conditionOf(id: string, job: JobSpec) {
  const raw = job.if === undefined ? 'success()' : String(job.if).trim();
  const whole = /^\$\{\{([\s\S]*)\}\}$/.exec(raw);
  if (!whole && raw.includes('${{')) throw new Error(`job ${id}: if ${JSON.stringify(raw)} mixes text and \${{ }}: GitHub would read it as a non-empty string, always true`);
  const text = whole ? whole[1] : raw;
  const parsed = parseExpression(text);
  const unknown = neededJobs(parsed).filter((n) => !needsOf(job).includes(n));
  if (unknown.length > 0) throw new Error(`job ${id}: its if reads needs.${unknown[0]}, which is not in its needs`);
  const hasStatus = calledFunctions(parsed).some((f) => (STATUS_FUNCTIONS as readonly string[]).includes(f));
  return hasStatus ? parsed : parseExpression(`success() && (${text})`);
}

function valueOf(raw: unknown, scope: Scope): Value {
  if (typeof raw === 'string') return interpolate(raw, scope);
  if (Array.isArray(raw)) return raw.map((item) => valueOf(item, scope));
  if (raw !== null && typeof raw === 'object') return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, valueOf(v, scope)]));
  if (raw === undefined) return null;
  if (typeof raw === 'boolean' || typeof raw === 'number' || raw === null) return raw;
  throw new Error(`not a workflow value: ${String(raw)}`);
}

const isRecord = (v: unknown): v is Readonly<Record<string, Value>> => v !== null && typeof v === 'object' && !Array.isArray(v);
// Matrix values match exactly (a YAML 20 and '20' are different legs).
const same = (a: Value, b: Value) => JSON.stringify(a) === JSON.stringify(b);

/** The legs of a matrix (see the file's comment); throws with GitHub's message on an empty one. */
export function expandMatrix(raw: unknown, scope: Scope): Matrix[] {
  const matrix = valueOf(raw, scope);
  if (!isRecord(matrix)) throw new Error(`Matrix is not a mapping: ${JSON.stringify(matrix)}`);
  let combos: Record<string, Value>[] = [];
  const vectors = Object.entries(matrix).filter(([k]) => k !== 'include' && k !== 'exclude');
  for (const [name, values] of vectors) {
    if (!Array.isArray(values)) throw new Error(`Matrix vector '${name}' is not a list`);
    if (values.length === 0) throw new Error(`Matrix vector '${name}' does not contain any values`);
  }
  const include = matrix.include ?? [];
  if (!Array.isArray(include)) throw new Error('Matrix include is not a list');
  if (vectors.length === 0 && include.length === 0) throw new Error('Matrix must define at least one vector');
  if (vectors.length > 0) {
    combos = [{}];
    for (const [name, values] of vectors) combos = combos.flatMap((c) => (values as readonly Value[]).map((v) => ({ ...c, [name]: v })));
  }
  const exclude = matrix.exclude ?? [];
  if (!Array.isArray(exclude)) throw new Error('Matrix exclude is not a list');
  combos = combos.filter((c) => !(exclude as readonly Value[]).some((e) => isRecord(e) && Object.entries(e).every(([k, v]) => same(c[k] ?? null, v))));
  const original = new Set(vectors.map(([k]) => k));
  const base = combos.length;
  for (const item of include as readonly Value[]) {
    if (!isRecord(item)) throw new Error(`Matrix include item is not a mapping: ${JSON.stringify(item)}`);
    let added = false;
    for (const combo of combos.slice(0, base)) {
      if (Object.entries(item).every(([k, v]) => !original.has(k) || same(combo[k] ?? null, v))) { Object.assign(combo, item); added = true; }
    }
    if (!added) combos.push({ ...item });
  }
  return combos;
}

interface RunState {
  readonly spec: Readonly<Record<string, JobSpec>>;
  readonly scenario: Scenario;
  readonly runs: Record<string, JobRun>;
}

function scopeFor(id: string, state: RunState): Scope {
  const { spec, scenario, runs } = state;
  const needs = Object.fromEntries(needsOf(spec[id]).map((n) => [n, { result: runs[n].result, outputs: runs[n].outputs }]));
  const ancestors = [...ancestorsOf(id, spec)].map((a) => runs[a].result);
  const cancelled = scenario.cancelled ?? false;
  return {
    contexts: { github: scenario.github ?? {}, needs, vars: { ...scenario.vars }, inputs: {} },
    status: (fn) => fn === 'always' || (fn === 'cancelled' ? cancelled : fn === 'failure' ? ancestors.includes('failure') : !cancelled && ancestors.every((r) => r === 'success')),
  };
}

function outcomeOf(matrix: Matrix | null, outcome: JobOutcome | undefined): StepsOutcome {
  return (matrix && outcome?.legs?.find((l) => l.when(matrix))) || outcome || {};
}

function runLeg(id: string, job: JobSpec, matrix: Matrix | null, state: RunState) {
  const base = scopeFor(id, state);
  const scope: Scope = { ...base, contexts: { ...base.contexts, ...(matrix ? { matrix: matrix as Value } : {}) } };
  let continueOnError = false;
  try {
    continueOnError = truthy(valueOf(job['continue-on-error'] ?? false, scope));
    valueOf(job['runs-on'], scope);
    const env = valueOf(job.environment, scope);
    const environment = env === null ? undefined : asString(isRecord(env) ? env.name ?? null : env);
    const approval = environment === undefined ? undefined : state.scenario.environments?.[environment];
    const outcome = outcomeOf(matrix, state.scenario.jobs?.[id]);
    const result: JobResult = approval === 'rejected' ? 'failure' : approval === 'waiting' ? 'waiting' : outcome.result ?? 'success';
    const outputs = result === 'waiting' ? {} : outcome.outputs ?? {};
    return { leg: { matrix, result, ...(environment !== undefined ? { environment } : {}) }, outputs, continueOnError };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { leg: { matrix, result: 'failure' as const, error: message }, outputs: {}, continueOnError };
  }
}

/** The legs of a job whose `if` held, with fail-fast applied, and the job's result and outputs. */
function runLegs(id: string, job: JobSpec, state: RunState): JobRun {
  const scope = scopeFor(id, state);
  let matrices: (Matrix | null)[] = [null];
  if (job.strategy?.matrix !== undefined) {
    try { matrices = expandMatrix(job.strategy.matrix, scope); } catch (error) {
      return { result: 'failure', legs: [], outputs: {}, error: error instanceof Error ? error.message : String(error) };
    }
  }
  const failFast = job.strategy?.['fail-fast'] === undefined ? true : truthy(valueOf(job.strategy['fail-fast'], scope));
  const ran = matrices.map((m) => runLeg(id, job, m, state));
  const failed = ran.some((r) => r.leg.result === 'failure' && !r.continueOnError);
  const legs: Leg[] = ran.map((r) => (failFast && failed && r.leg.result !== 'failure' ? { ...r.leg, result: 'cancelled' } : r.leg));
  const declared = Object.keys(job.outputs ?? {});
  const outputs: Record<string, string> = {};
  ran.forEach((r, i) => {
    for (const [name, value] of Object.entries(r.outputs)) {
      if (!declared.includes(name)) throw new Error(`scenario: job ${id} has no output ${name} (its outputs: ${declared.join(', ') || 'none'})`);
      if (value !== '' && (legs[i].result === 'success' || legs[i].result === 'failure')) outputs[name] = value;
    }
  });
  const masked = (i: number) => ran[i].continueOnError;
  const result: JobResult = legs.some((l, i) => l.result === 'failure' && !masked(i)) ? 'failure'
    : legs.some((l) => l.result === 'cancelled') ? 'cancelled'
      : legs.some((l) => l.result === 'waiting') ? 'waiting' : 'success';
  return { result, legs, outputs };
}

function runJob(id: string, state: RunState): JobRun {
  const job = state.spec[id];
  if (job.uses !== undefined) throw new Error(`job ${id} calls a reusable workflow (${job.uses}), which the model does not run`);
  if (needsOf(job).some((n) => state.runs[n].result === 'waiting')) return { result: 'waiting', legs: [], outputs: {} };
  const condition = conditionOf(id, job);
  if (!truthy(evaluate(condition, scopeFor(id, state)))) return { result: state.scenario.cancelled ? 'cancelled' : 'skipped', legs: [], outputs: {} };
  return runLegs(id, job, state);
}

const parsed = new Map<string, Readonly<Record<string, JobSpec>>>();

/** The jobs of a workflow file, parsed once per text (scenario tests run one file many times). */
function jobsOf(text: string): Readonly<Record<string, JobSpec>> {
  const known = parsed.get(text);
  if (known) return known;
  const workflow: unknown = parse(text);
  if (!isRecord(workflow) || !isRecord(workflow.jobs)) throw new Error('workflow: no jobs');
  const jobs = workflow.jobs as unknown as Readonly<Record<string, JobSpec>>;
  parsed.set(text, jobs);
  return jobs;
}

/** Runs the workflow of `text` through `scenario` (see the file's comment for the rules and what is left out). */
export function runWorkflow(text: string, scenario: Scenario = {}): WorkflowRun {
  const spec = jobsOf(text);
  for (const id of Object.keys(scenario.jobs ?? {})) if (!(id in spec)) throw new Error(`scenario: no job ${id} in the workflow`);
  const state: RunState = { spec, scenario, runs: {} };
  for (const id of jobOrder(spec)) state.runs[id] = runJob(id, state);
  const results = Object.values(state.runs).map((r) => r.result);
  const conclusion = scenario.cancelled ? 'cancelled' : results.includes('failure') ? 'failure' : results.includes('waiting') ? 'waiting' : 'success';
  return { jobs: state.runs, conclusion };
}

/** The value at a dotted path of a leg's matrix (`at(m, 'instance.name')`), for {@link LegOutcome.when}. */
export function at(matrix: Matrix, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), matrix);
}
