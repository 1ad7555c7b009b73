import { z } from 'zod';
import { Quantity, UNITS } from '../../quantity/quantity';
import { dnsLabel, map, quantityString } from './fields';

/**
 * The least memory the drift gate Job may have, and its default: node itself takes about 50 MiB
 * resident, and a page of NodeClaims with V8's heap the rest (measured in test/gate/memory.test.ts;
 * model/stages.ts sizes the heap from the limit).
 */
export const DRIFT_GATE_MIN_MEMORY = '96Mi';
const mebibytes = (q: string) => Number(Quantity.of(q).to(UNITS.MiB, 'down'));

/**
 * How a stage is promoted (docs/windows.md, Promotion): a soak after the stage before finished,
 * and a GitHub environment whose reviewers approve each promotion.
 */
const stage = z.strictObject({
  soak: z.string().regex(/^(?=[0-9])(?:[0-9]+h)?(?:[0-9]+m)?$/, { error: 'must be a duration in hours and minutes such as "30m", "24h" or "1h30m"' }).optional()
    .describe('how long after the stage before finished (as its Argo CD Applications and drift gate recorded it) a change may reach this stage; default 0'),
  environment: z.string().min(1).max(255).regex(/^[^/,:;'"`\\]+$/, { error: 'must be a GitHub environment name (no / , : ; quotes or backslash)' }).optional()
    .describe('a GitHub environment the push to this stage runs in: its required reviewers approve each promotion (create it under Settings > Environments)'),
});

/** An Argo CD instance the promote workflow reads, on an EKS cluster, through an IAM role it assumes by OIDC. */
/**
 * A repository Argo CD's repo server clones: https, ssh URLs and scp-like `user@host:path`, one
 * line without spaces. Never `file://` or a path: that would read a folder of the repo server's
 * own disk (argo-cd v3.5.1 util/git/git.go `IsSSHURL`, `IsHTTPSURL`; a file URL is neither).
 */
const REPO_URL = /^(?:https:\/\/[^\s/@]+(?::[0-9]+)?\/\S+|ssh:\/\/[^\s@/]+@[^\s/]+(?::[0-9]+)?\/\S+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s/]\S*)$/;

/**
 * Why `ref` is not a git revision Argo CD can resolve, or undefined: the rules of
 * git-check-ref-format (no `..`, no control character or space, none of `~^:?*[\`, no leading
 * `-` or `/`, no `//`, no trailing `/` or `.`, no `@{`, not `.lock` at the end).
 * @see https://git-scm.com/docs/git-check-ref-format
 */
export function refNameProblem(ref: string): string | undefined {
  if (/[\x00-\x20\x7f]/.test(ref)) return 'a revision has no spaces, line breaks or control characters';
  if (/[~^:?*[\\]/.test(ref)) return `"${ref}" has a character git refuses in a ref (~ ^ : ? * [ \\)`;
  if (ref.includes('..') || ref.includes('@{') || ref.includes('//')) return `"${ref}" has "..", "@{" or "//", which git refuses in a ref`;
  if (/^[-/]|[/.]$|\.lock$|(^|\/)\./.test(ref)) return `"${ref}" starts or ends in a way git refuses in a ref (a leading - or /, a trailing / or ., a part starting with ., or .lock)`;
  return undefined;
}

/** A runs-on label: what GitHub matches runners by (letters, digits, `-`, `_`, `.`). */
const runnerLabel = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, { error: 'must be a runner label such as self-hosted or vpc-eu-west-1' });

const argocdInstance = z.strictObject({
  eksCluster: z.string().min(1).max(100).regex(/^[0-9A-Za-z][A-Za-z0-9\-_]*$/, { error: 'must be an EKS cluster name' })
    .describe('the EKS cluster Argo CD runs in (aws eks update-kubeconfig --name)'),
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-[0-9]$/, { error: 'must be an AWS region such as eu-west-1' }).describe('its region'),
  roleArn: z.string().regex(/^arn:aws[a-z-]*:iam::[0-9]{12}:role\/[\w+=,.@\/-]+$/, { error: 'must be an IAM role ARN such as arn:aws:iam::111122223333:role/karpenter-gitops-promote' })
    .describe('the role the promote workflow assumes with GitHub\'s OIDC token; its EKS access entry may only list Applications in Argo CD\'s namespace'),
  runner: z.union([runnerLabel, z.array(runnerLabel).min(1).max(10)]).optional()
    .describe('runs-on of the promote workflow\'s jobs that read this instance: a runner label, or a list of labels (e.g. [self-hosted, vpc-eu-west-1]), of a runner that reaches its EKS endpoint; default the repository variable KARPENTER_GITOPS_RUNNER, else ubuntu-latest'),
});

/** `gitops`: where Argo CD reads the generated files from, and how it is set up. */
export const gitops = z.strictObject({
  repoURL: z.string().min(1).max(2048).regex(REPO_URL, { error: 'must be a git repository URL Argo CD can clone: https://host/owner/repo.git, ssh://git@host/owner/repo.git or git@host:owner/repo.git (no file://, no spaces or line breaks)' })
    .describe('the git repository Argo CD reads dist/ from'),
  targetRevision: z.string().min(1).max(255).refine((r) => refNameProblem(r) === undefined, { error: (i) => `${refNameProblem(String(i.input)) ?? ''}: give a branch, tag or commit such as main, v1.2.0 or HEAD` })
    .optional().describe('default HEAD'),
  argocdNamespace: dnsLabel.optional().describe('default argocd'),
  project: dnsLabel.optional().describe('Argo CD AppProject, default "default"'),
  stageRefPrefix: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, { error: 'must be a git branch name prefix such as "karpenter-gitops/stage-"' })
    .optional().describe('the branch everything of a stage-N cluster tracks is <prefix>N (N >= 2); default karpenter-gitops/stage-'),
  driftGateImage: z.string().min(1).optional().describe('image of the drift gate Job: runs `node` (its program from a ConfigMap), no shell; default the official Node.js image pinned by digest (see docs/windows.md)'),
  driftGateMemory: quantityString('expected a memory quantity such as "128Mi"')
    .refine((q) => mebibytes(q) >= mebibytes(DRIFT_GATE_MIN_MEMORY), { error: `must be at least ${DRIFT_GATE_MIN_MEMORY}: node itself takes about 50 MiB, and the gate reads a page of NodeClaims besides` }).optional()
    .describe('memory limit of the drift gate Job (it reads NodeClaims a page at a time, so its use does not grow with the cluster); default 96Mi'),
  argocd: map(dnsLabel, argocdInstance).optional()
    .describe('the Argo CD instances of the fleet, by name (clusters.<id>.argocd names one): each gets its own bootstrap, and the promote workflow reads each; default one instance, read with the ARGOCD_KUBECONFIG secret'),
  stages: map(z.string().regex(/^([2-9]|1[0-9]|20)$/, { error: 'must be a stage number from 2 to 20 (stage 1 is not promoted: it follows targetRevision)' }), stage).optional()
    .describe('per stage N (2 and later): a soak time after stage N-1 finished, and a GitHub environment whose reviewers approve'),
});
