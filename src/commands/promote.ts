import { readFileSync } from 'node:fs';
import type { Cluster } from '../config/platform';
import { loadPlan } from '../model/checks';
import { clusterLayout } from '../output/layout';
import { ApplicationsFile, mergeApplications, minutesText, Promotion, promotion, promotionPlan, rfc3339 } from '../promote/promote';
import { commitOf, sameFiles } from '../review/git';
import type { Options } from './build';
import { EXIT, Reporter } from './reporter';

/** What `promote STAGE` is given besides the stage. */
export interface PromoteArgs {
  /** The commit to promote. */
  readonly revision: string;
  /** The Applications files, one per Argo CD instance, as the user named them; `-` is stdin. */
  readonly files: readonly string[];
  /** The main branch. @default - origin/HEAD, else origin/main */
  readonly main?: string;
  /** When the decision is made (ms since the epoch). @default - the clock */
  readonly now?: number;
  /** `json`: one object on stdout, for the promote workflow. @default "terminal" */
  readonly format?: 'terminal' | 'json';
}

/**
 * The decision as versioned data, for the promote workflow (`--format json`): whether to push,
 * why not, the push, the GitHub environment to push in and the soak left.
 */
function decisionJson(stage: number, revision: string, d: Promotion): Record<string, unknown> {
  return {
    version: 1, stage, revision, ready: d.ready, blockers: d.blockers, push: d.command ?? null, ref: d.ref,
    environment: d.environment ?? null, soakMinutes: d.soakMinutes,
    finishedAt: d.finishedAt === undefined ? null : rfc3339(d.finishedAt), soakRemainingMinutes: d.soakRemainingMinutes ?? null,
    checked: d.checked, noSuchStage: d.noSuchStage,
  };
}

/** `promote STAGE --revision SHA --applications FILE[,FILE…]` (docs/windows.md). */
export function promote(say: Reporter, { configPath, root }: Options, stage: number, args: PromoteArgs): number {
  const { revision, files, main, now, format = 'terminal' } = args;
  // Every problem synth would report, not only the config's: the same set on every command.
  const { platform } = loadPlan(configPath, say.loadOptions);
  const read: ApplicationsFile[] = [];
  for (const file of files) {
    try {
      read.push({ from: file === '-' ? 'stdin' : file, json: JSON.parse(file === '-' ? readFileSync(0, 'utf8') : readFileSync(say.paths.resolve(file), 'utf8')) });
    } catch (err) {
      say.error(`cannot read the Applications from ${file === '-' ? 'stdin' : file}: ${(err as Error).message} (give kubectl -n ${platform.gitops.argocdNamespace} get applications.argoproj.io -o json, one file per Argo CD instance)`);
      return EXIT.failed;
    }
  }
  const { applications, problems } = mergeApplications(read);
  if (problems.length) {
    for (const p of problems) say.error(p);
    return EXIT.failed;
  }
  // Main must still want the revision for the stage's clusters (a revert is never overtaken).
  const mainCommit = [main, 'origin/HEAD', 'origin/main'].filter((r): r is string => r !== undefined).map((r) => commitOf(r, root)).find((c) => c !== undefined);
  const stillWanted = (cluster: Cluster) => (mainCommit === undefined ? undefined : sameFiles(revision, mainCommit, clusterLayout(cluster).owned, root));
  const decision = promotion(platform, stage, revision, applications, { stillWanted, ...(now !== undefined ? { now } : {}) });
  // 2: there is no such stage (the promote workflow's loop over the stages ends there); 1: not yet.
  const code = decision.ready ? EXIT.ok : decision.noSuchStage ? EXIT.usage : EXIT.failed;
  if (format === 'json') {
    say.out(JSON.stringify(decisionJson(stage, revision, decision), null, 2));
    return code;
  }
  if (decision.ready) {
    say.out(`stage ${stage - 1} has ${revision}, synced and healthy (${decision.checked.join(', ')}); promote with:`);
    if (decision.environment !== undefined) say.out(`(in the GitHub environment ${decision.environment}: its required reviewers approve the push)`);
    say.out(decision.command ?? '');
    return code;
  }
  say.err(`not promoting ${revision} to stage ${stage}:`);
  for (const b of decision.blockers) say.err(`  ${b}`);
  return code;
}

/** `promote plan`: the Argo CD instances to read and the stages to promote, for the promote workflow's jobs. */
export function promotePlan(say: Reporter, { configPath }: Options, format: 'terminal' | 'json' = 'terminal'): number {
  // Every problem synth would report, not only the config's: the same set on every command.
  const { platform } = loadPlan(configPath, say.loadOptions);
  const plan = promotionPlan(platform);
  if (format === 'json') {
    say.out(JSON.stringify(plan, null, 2));
    return EXIT.ok;
  }
  say.out(plan.instances.length === 0
    ? `Argo CD: one instance (gitops.argocd names none), read with the ARGOCD_KUBECONFIG secret, Applications in ${plan.argocdNamespace}`
    : `Argo CD instances (Applications in ${plan.argocdNamespace}):`);
  for (const i of plan.instances) say.out(`  ${i.name}: EKS cluster ${i.eksCluster} in ${i.region}, role ${i.roleArn}; deploys ${i.clusters.join(', ') || 'no cluster'}`);
  say.out(plan.stages.length === 0 ? 'stages: none is promoted (no cluster is at stage 2 or later)' : 'stages:');
  for (const s of plan.stages) {
    const how = [`follows ${s.follows ?? 'the main branch'}`, ...(s.soakMinutes > 0 ? [`soak ${minutesText(s.soakMinutes)}`] : []), ...(s.environment !== undefined ? [`GitHub environment ${s.environment}`] : [])];
    say.out(`  ${s.stage} (${s.ref}; ${how.join(', ')}): ${s.clusters.join(', ')}`);
  }
  return EXIT.ok;
}
