/**
 * What GitHub Actions makes of the promote workflow file (`.github/workflows/promote.yaml`), for
 * the rollout simulation's CI (fleet-sim.ts): the jobs that push a stage ref, whether each waits
 * for a GitHub environment's reviewers, the concurrency group it runs in, and the credential its
 * `git push` authenticates with. Read from the file itself, so the simulation runs the workflow
 * the repository ships (or one a commit carries), not a description of it.
 *
 * - A job with `environment:` (one with required reviewers) waits, "Waiting", until a reviewer
 *   approves it, then runs.
 *   @see https://docs.github.com/en/actions/managing-workflow-runs-and-deployments/managing-deployments/reviewing-deployments
 * - `concurrency:` (a workflow's or a job's): at most one running and one pending job or run per
 *   group; a newly queued one cancels the pending one and takes its place. A job waiting for its
 *   reviewers holds its group (it is in progress, as reported in vstorm-co/agenticos#1494).
 *   @see https://docs.github.com/actions/writing-workflows/choosing-what-your-workflow-does/control-the-concurrency-of-workflows-and-jobs
 * - `git push` authenticates with what `actions/checkout` persisted in the git config: its
 *   `token` input, by default `${{ github.token }}` (actions/checkout v7.0.1 action.yml, `token`
 *   and `persist-credentials: true`); `actions/create-github-app-token` makes an installation
 *   token of the App, with every permission of the installation unless `permission-<name>`
 *   inputs name some (actions/create-github-app-token v3.1.1 README, `permission-<permission name>`).
 * - A scheduled run runs on the default branch, with its workflow file (github/docs#32343:
 *   "Scheduled workflows will only run on the default branch").
 *   @see https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#schedule
 */
import { parse } from 'yaml';
import type { PushCredential } from './git-sim';

interface Step {
  readonly id?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Readonly<Record<string, unknown>>;
  readonly env?: Readonly<Record<string, unknown>>;
}

interface Job {
  readonly needs?: string | readonly string[];
  readonly environment?: unknown;
  readonly concurrency?: string | { readonly group: string };
  readonly steps?: readonly Step[];
}

/** A job of the workflow that pushes stage refs. */
export interface PushJob {
  /** Its id under `jobs:`. */
  readonly id: string;
  /**
   * It waits for reviewers: it, or a job it needs (directly or not), runs in the stage's
   * environment (`environment: ${{ matrix.environment }}`, the one gitops.stages names, whose
   * required reviewers approve). An environment named outright (karpenter-gitops-promote, which
   * holds the App's key) has no reviewers (docs/windows.md).
   */
  readonly environment: boolean;
  /** It reads Argo CD again after the approval and pushes only while the state is the decision's (`--expect-state`). */
  readonly rereads: boolean;
  /** Its concurrency group for a stage (`${{ matrix.stage }}` put in). @default - none */
  readonly group?: (stage: number) => string;
  /** What its `git push` authenticates with. */
  readonly credential: PushCredential;
}

/** The promote workflow as GitHub runs it. */
export interface PromoteWorkflow {
  /** The workflow's own concurrency group: a run waits while another of the group is in progress. @default - none */
  readonly runGroup?: string;
  /** The jobs that push a stage ref. */
  readonly pushJobs: readonly PushJob[];
}

const groupOf = (c: Job['concurrency']) => (c === undefined ? undefined : typeof c === 'string' ? c : c.group);

/** Whether a job waits for a stage environment's reviewers, itself or through a job it needs (see PushJob.environment). */
function approved(id: string, jobs: Readonly<Record<string, Job>>, seen = new Set<string>()): boolean {
  const job = jobs[id];
  if (!job || seen.has(id)) return false;
  seen.add(id);
  if (typeof job.environment === 'string' && /matrix\.environment/.test(job.environment)) return true;
  const needs = job.needs === undefined ? [] : typeof job.needs === 'string' ? [job.needs] : job.needs;
  return needs.some((n) => approved(n, jobs, seen));
}

/** The App token a push step hands git itself (`env: TOKEN: ${{ steps.<id>.outputs.token }}`), if it does. */
function pushToken(steps: readonly Step[]): string | undefined {
  const push = steps.find((s) => /\bgit\b[^\n]*\bpush\b/.test(s.run ?? '') && /extraheader/.test(s.run ?? ''));
  const token = push?.env?.TOKEN;
  return typeof token === 'string' ? token.replace(/\s+/g, '') : undefined;
}

/** The credential `git push` uses in a job: the token its push step gives git, else what its checkout persisted (see the file's comment). */
function credentialOf(id: string, job: Job): PushCredential {
  const steps = job.steps ?? [];
  const given = pushToken(steps);
  if (given !== undefined) return appCredential(id, steps, given);
  const checkout = steps.find((s) => s.uses?.startsWith('actions/checkout@'));
  if (!checkout) throw new Error(`promote workflow, job ${id}: it pushes without actions/checkout; the simulation does not know its credential`);
  if (checkout.with?.['persist-credentials'] === false) throw new Error(`promote workflow, job ${id}: its checkout persists no credential, and the simulation knows no other for git push`);
  const token = String(checkout.with?.token ?? '${{ github.token }}').replace(/\s+/g, '');
  if (token === '${{github.token}}' || token === '${{secrets.GITHUB_TOKEN}}') return { kind: 'app', name: 'github-actions (GITHUB_TOKEN)', workflows: false };
  return appCredential(id, steps, token);
}

/** The App installation token `token` names (`${{ steps.<id>.outputs.token }}` of actions/create-github-app-token). */
function appCredential(id: string, steps: readonly Step[], token: string): PushCredential {
  const from = /^\$\{\{steps\.([\w-]+)\.outputs\.token\}\}$/.exec(token)?.[1];
  const maker = steps.find((s) => s.id === from);
  if (!maker?.uses?.startsWith('actions/create-github-app-token@')) throw new Error(`promote workflow, job ${id}: checkout token ${token} is not one the simulation knows`);
  const asked = Object.keys(maker.with ?? {}).filter((k) => k.startsWith('permission-'));
  // Every permission of the installation unless some are named: the App docs/windows.md describes has Workflows: write.
  return { kind: 'app', name: 'the promote GitHub App', workflows: asked.length === 0 || maker.with?.['permission-workflows'] === 'write' };
}

/** The promote workflow of `text` (see {@link PromoteWorkflow}); throws on a workflow the simulation cannot run. */
export function promoteWorkflow(text: string): PromoteWorkflow {
  const workflow = parse(text) as { concurrency?: Job['concurrency']; jobs: Record<string, Job> };
  const pushJobs = Object.entries(workflow.jobs).filter(([, job]) => (job.steps ?? []).some((s) => /\bgit\b[^\n]*\bpush origin\b/.test(s.run ?? ''))).map(([id, job]): PushJob => {
    const group = groupOf(job.concurrency);
    return {
      id, environment: approved(id, workflow.jobs), credential: credentialOf(id, job),
      rereads: (job.steps ?? []).some((s) => /--expect-state\b/.test(s.run ?? '')),
      ...(group !== undefined ? { group: (stage: number) => group.replace(/\$\{\{\s*matrix\.stage\s*\}\}/g, String(stage)) } : {}),
    };
  });
  if (pushJobs.length === 0) throw new Error('promote workflow: no job runs git push');
  const runGroup = groupOf(workflow.concurrency);
  return { pushJobs, ...(runGroup !== undefined ? { runGroup } : {}) };
}
