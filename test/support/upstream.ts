/**
 * The upstream releases the models of test/support were written from: each model's header cites
 * its entry here (`MODELS.argocd`), and test/support/upstream.test.ts fails, naming the model to
 * re-read against which source, once what the project generates for (cdk8s.yaml's imports, the
 * vendored Karpenter releases, the vendored Argo CD CRDs) moves past the version a model reads.
 * Raise a version here only after re-reading its models against that tag.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { coerce, gt } from 'semver';
import { vendoredVersions } from '../../src/release/release';

/** One upstream project the models of test/support stand for. */
export interface Upstream {
  /** `owner/repository` on GitHub. */
  readonly repository: string;
  /** The tag the models were written from (`v3.5.1`; a minor, `v1.34`, where they follow a minor). */
  readonly version: string;
  /** The files of test/support written from it. */
  readonly models: readonly string[];
}

/** The upstream projects the models were written from, by the name a model's header cites. */
export const MODELS = {
  /** The application controller, its statuses, sync windows, repo server and Lua health checks. */
  argocd: {
    repository: 'argoproj/argo-cd', version: 'v3.5.1',
    models: ['argocd-sim.ts', 'argocd-status.ts', 'argocd-sync-window.ts', 'git-sim.ts', 'lua.ts'],
  },
  /** Karpenter's core: provisioning, disruption budgets, NodeClaims, hashes and drift. */
  karpenter: {
    repository: 'kubernetes-sigs/karpenter', version: 'v1.14.1',
    models: ['karpenter.ts', 'karpenter-budgets.ts', 'karpenter-nodeclaim.ts', 'karpenter-provisioning.ts', 'karpenter-sim.ts'],
  },
  /** Karpenter's AWS provider: its chart, EC2NodeClass and instance types (released with the core, same tag). */
  karpenterAws: {
    repository: 'aws/karpenter-provider-aws', version: 'v1.14.1',
    models: ['karpenter.ts', 'karpenter-chart.ts', 'karpenter-provisioning.ts', 'karpenter-sim.ts'],
  },
  /** The API server (CRD decoding, defaulting and validation, admission, CEL limits) and the built-in controllers. */
  kubernetes: {
    repository: 'kubernetes/kubernetes', version: 'v1.34',
    models: ['admission-policy.ts', 'cel-cost.ts', 'crd-validator.ts', 'daemonset-controller.ts', 'kube-api.ts', 'kube-sim.ts', 'pods.ts'],
  },
  /**
   * Helm's ownership check, install/upgrade/uninstall and release storage (the hand-over, docs/adopting.md).
   * Helm v4.1.4 (the binary of test/support/helm.ts) keeps the same check (`pkg/action/validate.go` L106-L128).
   */
  helm: {
    repository: 'helm/helm', version: 'v3.21.4',
    models: ['helm-ownership.ts'],
  },
  /**
   * GitHub Actions: its job graph and expressions (the promote and pr workflows). GitHub runs
   * them as a service; the runner's workflow parser (`src/Sdk/WorkflowParser/`) is the code the
   * models cite where the docs are silent. No pin of this repository follows it: re-read on a
   * change of the docs the models cite.
   */
  githubActions: {
    repository: 'actions/runner', version: 'v2.336.0',
    models: ['github-expressions.ts', 'github-jobs.ts'],
  },
} as const satisfies Record<string, Upstream>;

/** Files of test/support that model no upstream system: harnesses, builders and the real programs they run. */
export const NOT_MODELS = [
  // auto-mode-node-class.ts is a model of AWS's documentation (no repository, no CRD): it cites the user guide's pages.
  'auto-mode-node-class.ts', 'big-fleet.ts', 'fengari.d.ts', 'fleet-sim.ts', 'gate-sim.ts', 'github-sim.ts', 'guard-gate-sim.ts', 'helm.ts', 'mermaid.ts', 'rollout-fleet.ts', 'snapshot.ts', 'upstream.ts',
] as const;

/** The versions the project generates for and tests against, each read from where it is pinned. */
export interface Pinned {
  /** Each upstream repository's tag in cdk8s.yaml's import URLs. */
  readonly imports: readonly { readonly repository: string; readonly version: string }[];
  /** The newest Karpenter release vendored (src/release/, `npm run upgrade`). */
  readonly karpenter: string;
  /** The Argo CD version of the vendored Argo CD CRDs (test/fixtures/crds/README.md). */
  readonly argocdCrds: string;
}

const ROOT = join(__dirname, '..', '..');

/** The versions pinned in this repository now. */
export function pinnedVersions(): Pinned {
  const cdk8s = readFileSync(join(ROOT, 'cdk8s.yaml'), 'utf8');
  const imports = [...cdk8s.matchAll(/https:\/\/raw\.githubusercontent\.com\/([^/\s]+\/[^/\s]+)\/(v[^/\s]+)\//g)].map(([, repository, version]) => ({ repository, version }));
  const crds = readFileSync(join(ROOT, 'test/fixtures/crds/README.md'), 'utf8');
  const argocdCrds = /\| argoproj\/argo-cd[^|]*\|[^|]*\| (v[0-9.]+) \|/.exec(crds)?.[1] ?? 'unknown';
  const karpenter = vendoredVersions().reduce((a, b) => (gt(b, a) ? b : a));
  return { imports, karpenter: `v${karpenter}`, argocdCrds };
}

/** Whether `version` is past `modelled`: a later release, or a later minor when the model names a minor. */
function movedPast(version: string, modelled: string): boolean {
  const v = coerce(version);
  const m = coerce(modelled);
  if (!v || !m) return true;
  return /^v?\d+\.\d+$/.test(modelled) ? gt(`${v.major}.${v.minor}.0`, `${m.major}.${m.minor}.0`) : gt(v, m);
}

/**
 * One line per model that the pinned versions have moved past: which models to re-read against
 * which tag, and where the new version comes from. Empty when every model reads the version pinned.
 */
export function modelsBehind(pinned: Pinned, models: Readonly<Record<string, Upstream>> = MODELS): string[] {
  const byRepository = new Map(Object.entries(models).map(([name, m]) => [m.repository, { name, ...m }]));
  const seen: { readonly repository: string; readonly version: string; readonly from: string }[] = [
    ...pinned.imports.map((i) => ({ ...i, from: 'cdk8s.yaml imports' })),
    { repository: 'kubernetes-sigs/karpenter', version: pinned.karpenter, from: 'the newest vendored Karpenter release (src/release/)' },
    { repository: 'aws/karpenter-provider-aws', version: pinned.karpenter, from: 'the newest vendored Karpenter release (src/release/)' },
    { repository: 'argoproj/argo-cd', version: pinned.argocdCrds, from: 'the vendored Argo CD CRDs (test/fixtures/crds/README.md)' },
  ];
  return seen.flatMap(({ repository, version, from }) => {
    const model = byRepository.get(repository);
    if (!model) return [`${from} pins ${repository} ${version}, which no entry of MODELS (test/support/upstream.ts) names: say which models stand for it`];
    if (!movedPast(version, model.version)) return [];
    return [`${from} moved ${repository} to ${version}, past ${model.version} that test/support's ${model.models.join(', ')} were written from: `
      + `re-read them against https://github.com/${repository}/tree/${version}, then set MODELS.${model.name}.version to ${version}`];
  });
}
