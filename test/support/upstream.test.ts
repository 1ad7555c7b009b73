/**
 * The models of test/support name the upstream release they were written from
 * (test/support/upstream.ts), and fail here once the project moves past it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODELS, modelsBehind, NOT_MODELS, pinnedVersions } from './upstream';

/** The header of a file: its first block comment. */
const header = (file: string) => /\/\*\*?([\s\S]*?)\*\//.exec(readFileSync(join(__dirname, file), 'utf8'))?.[1] ?? '';

describe('the models of test/support', () => {
  const files = readdirSync(__dirname).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  const citing = new Map<string, string[]>();
  for (const [name, m] of Object.entries(MODELS)) for (const file of m.models) citing.set(file, [...(citing.get(file) ?? []), name]);

  it('are each a model of named upstream releases or named as no model', () => {
    const unlisted = files.filter((f) => !citing.has(f) && !(NOT_MODELS as readonly string[]).includes(f));
    expect(unlisted).toEqual([]);
    expect([...citing.keys()].filter((f) => !files.includes(f))).toEqual([]);
  });

  it('each cite, in their header, the entry of MODELS they were written from', () => {
    const missing = [...citing].flatMap(([file, names]) => names.filter((n) => !header(file).includes(`MODELS.${n}`)).map((n) => `${file}: MODELS.${n}`));
    expect(missing).toEqual([]);
  });

  it('read the versions this repository pins: cdk8s.yaml\'s imports, the newest vendored Karpenter, the vendored Argo CD CRDs', () => {
    const pinned = pinnedVersions();
    expect(pinned.imports.map((i) => i.repository).sort()).toEqual(expect.arrayContaining(['argoproj/argo-cd', 'aws/karpenter-provider-aws']));
    expect(modelsBehind(pinned)).toEqual([]);
  });

  it('fail when cdk8s.yaml imports a later Argo CD, naming the models to re-read and the tag', () => {
    const pinned = { ...pinnedVersions(), imports: [{ repository: 'argoproj/argo-cd', version: 'v3.6.0' }] };
    expect(modelsBehind(pinned)).toEqual([
      'cdk8s.yaml imports moved argoproj/argo-cd to v3.6.0, past v3.5.1 that test/support\'s argocd-sim.ts, argocd-status.ts, argocd-sync-window.ts, git-sim.ts, lua.ts were written from: '
      + 're-read them against https://github.com/argoproj/argo-cd/tree/v3.6.0, then set MODELS.argocd.version to v3.6.0',
    ]);
  });

  it('fail when a later Karpenter release is vendored, for its core and its AWS provider', () => {
    const behind = modelsBehind({ ...pinnedVersions(), imports: [], karpenter: 'v1.15.0' });
    expect(behind).toEqual([
      expect.stringMatching(/^the newest vendored Karpenter release \(src\/release\/\) moved kubernetes-sigs\/karpenter to v1\.15\.0, past v1\.14\.1 that test\/support's karpenter\.ts, .*re-read them against https:\/\/github\.com\/kubernetes-sigs\/karpenter\/tree\/v1\.15\.0, then set MODELS\.karpenter\.version to v1\.15\.0$/),
      expect.stringMatching(/^the newest vendored Karpenter release \(src\/release\/\) moved aws\/karpenter-provider-aws to v1\.15\.0, past v1\.14\.1 .* then set MODELS\.karpenterAws\.version to v1\.15\.0$/),
    ]);
  });

  it('fail when the vendored Argo CD CRDs move on, and when an import names a project no model stands for', () => {
    expect(modelsBehind({ ...pinnedVersions(), imports: [], argocdCrds: 'v3.5.2' })).toEqual([expect.stringMatching(/^the vendored Argo CD CRDs \(test\/fixtures\/crds\/README\.md\) moved argoproj\/argo-cd to v3\.5\.2, past v3\.5\.1/)]);
    expect(modelsBehind({ ...pinnedVersions(), imports: [{ repository: 'kyverno/kyverno', version: 'v1.15.0' }] })).toEqual([
      'cdk8s.yaml imports pins kyverno/kyverno v1.15.0, which no entry of MODELS (test/support/upstream.ts) names: say which models stand for it',
    ]);
  });
});
