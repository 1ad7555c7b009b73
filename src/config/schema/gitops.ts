import { z } from 'zod';
import { dnsLabel } from './fields';

/** `gitops`: where Argo CD reads the generated files from, and how it is set up. */
export const gitops = z.strictObject({
  repoURL: z.string().min(1).describe('the git repository Argo CD reads dist/ from'),
  targetRevision: z.string().min(1).optional().describe('default HEAD'),
  argocdNamespace: dnsLabel.optional().describe('default argocd'),
  project: dnsLabel.optional().describe('Argo CD AppProject, default "default"'),
  stageRefPrefix: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, { error: 'must be a git branch name prefix such as "karpenter-gitops/stage-"' })
    .optional().describe('the branch everything of a stage-N cluster tracks is <prefix>N (N >= 2); default karpenter-gitops/stage-'),
  driftGateImage: z.string().min(1).optional().describe('image of the drift gate Job: runs `node -e`, no shell; default the official Node.js image pinned by digest (see docs/windows.md)'),
});
