/**
 * Per-cluster Karpenter and teams (contract section 5.1), the controller's host and
 * credentials, and the settings the chart passes to the controller: each rule with a
 * "fails when …" case whose problem points at the line that set the value.
 */
import { aConfig, aTerraform, positionOf, removeProjects, writeProject } from '../builders';
import { inputErrorOf, load, problemsOf, warningsOf } from './helpers';
import { CHART_VERSION } from '../../src/release/chart-values-keys.generated';
import { loadPlatform } from '../../src/config/load';
import { formatProblem } from '../../src/input/problems';

afterAll(removeProjects);

/** Clusters prod and staging (both on the default Terraform outputs, named after them). */
function twoClusters(staging: Record<string, unknown> = {}, rest: Record<string, unknown> = {}) {
  return {
    config: aConfig({
      clusters: { demo: undefined, prod: { terraformOutputs: 'terraform/prod.json' }, staging: { terraformOutputs: 'terraform/staging.json', ...staging } },
      teams: { web: { pools: { batch: {} } }, ml: {} },
      ...rest,
    }),
    terraform: { prod: aTerraform({ cluster_name: 'prod' }), staging: aTerraform({ cluster_name: 'staging' }) },
  };
}
const cluster = (platform: ReturnType<typeof load>['platform'], id: string) => platform.clusters.find((c) => c.id === id)!;

describe('clusters.<id>.karpenter', () => {
  it('merges a cluster\'s Karpenter over the top-level one, for that cluster only', () => {
    const { platform } = load(twoClusters({ karpenter: { version: '1.15.0', controller: { replicas: 1 }, helmValues: { podAnnotations: { a: 'b' } } } }, {
      karpenter: { version: '1.14.1', controller: { logLevel: 'debug' }, helmValues: { podLabels: { team: 'platform' } } },
    }));
    expect(cluster(platform, 'staging').karpenter).toMatchObject({
      version: '1.15.0', controller: { replicas: 1, logLevel: 'debug' }, helmValues: { podAnnotations: { a: 'b' }, podLabels: { team: 'platform' } },
    });
    expect(cluster(platform, 'prod').karpenter).toMatchObject({ version: '1.14.1', controller: { replicas: 2, logLevel: 'debug' }, helmValues: { podLabels: { team: 'platform' } } });
  });

  it('fails at the cluster\'s line when a cluster sets an unknown chart key', () => {
    const input = twoClusters({ karpenter: { helmValues: { replicaCount: 3 } } });
    const { configText, configPath } = writeProject(input);
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${positionOf(configText, 'replicaCount')}: clusters\\.staging\\.karpenter\\.helmValues\\.replicaCount: unknown chart key "replicaCount" \\(did you mean "replicas"\\?\\)`,
    ))]);
  });

  it('fails at the top-level line, once, when the top-level karpenter is wrong for every cluster', () => {
    expect(problemsOf(twoClusters({}, { karpenter: { version: '1.14.1', controller: { settings: { batchMaxDuration: 'soon' } } } }))).toEqual([
      expect.stringMatching(/karpenter\.controller\.settings\.batchMaxDuration: setting batchMaxDuration is not a Go duration such as "10s", "1m30s", "1\.5h" or "0" \(units ns, us, ms, s, m, h; no d\), got "soon": Karpenter would silently use its default, "10s"$/),
    ]);
  });

  it('fails when a cluster sets helmValues that its own controller settings already set (merged across both levels)', () => {
    expect(problemsOf(twoClusters({ karpenter: { helmValues: { logLevel: 'info' } } }, { karpenter: { version: '1.14.1', controller: { logLevel: 'debug' } } }))).toEqual([
      expect.stringMatching(/clusters\.staging\.karpenter\.helmValues\.logLevel: already set by karpenter\.controller\.logLevel/),
    ]);
  });
});

describe('a staged Karpenter upgrade', () => {
  it('checks a cluster on the previous vendored release against it without a warning, and one on a newer release needs npm run upgrade first', () => {
    const v = CHART_VERSION.replace(/\./g, '\\.');
    const warnings = warningsOf(twoClusters({ karpenter: { version: '99.0.0' } }, { karpenter: { version: '1.13.1' } }));
    expect(warnings).toEqual(expect.arrayContaining([
      expect.stringMatching(new RegExp(`clusters\\.staging\\.karpenter\\.version: cluster staging runs Karpenter 99\\.0\\.0, but the generator's .* are those of ${v}: run npm run upgrade -- 99\\.0\\.0 first`)),
    ]));
    // (1.13.1 is warned of only as a minor Karpenter no longer supports: test/config/support.test.ts.)
    expect(warnings).not.toEqual(expect.arrayContaining([expect.stringMatching(/Karpenter 1\.13\.1(?!: Karpenter 1\.13 has been unsupported)/)]));
  });

  it('fails when a cluster runs Karpenter 0.37.0 (no karpenter.sh/v1 API), at the version, once for both clusters that inherit it', () => {
    expect(problemsOf(twoClusters({}, { karpenter: { version: '0.37.0' } }))).toEqual(expect.arrayContaining([
      expect.stringMatching(/karpenter\.version: on 2 clusters \(prod and staging\), as on the first: cluster prod: Karpenter 0\.37\.0 serves no karpenter\.sh\/v1 API/)]));
  });
});

describe('clusters.<id>.teams as a map', () => {
  it('runs only the teams it names, with their fields for this cluster', () => {
    const { platform } = load(twoClusters({ teams: { web: { arch: ['arm64'], pools: { batch: { weight: 5 } } } } }));
    expect(cluster(platform, 'staging').pools.map((p) => [p.name, p.settings.arch, p.settings.weight])).toEqual([
      ['web', ['arm64'], undefined], ['web-batch', ['arm64'], 5],
    ]);
    expect(cluster(platform, 'prod').pools.map((p) => p.name)).toEqual(['web', 'web-batch', 'ml']);
  });

  it('accepts {} or null for a team with nothing of its own in this cluster', () => {
    const { platform } = load(twoClusters({ teams: { ml: null, web: {} } }));
    expect(cluster(platform, 'staging').pools.map((p) => p.name)).toEqual(['ml', 'web', 'web-batch']);
  });

  it('locates a problem of a cluster-team field at that field', () => {
    const input = twoClusters({ teams: { web: { capacityTypes: ['spott'] } } });
    const { configText, configPath } = writeProject(input);
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${positionOf(configText, 'spott')}: clusters\\.staging\\.teams\\.web\\.capacityTypes\\[0\\]: unknown value "spott"`,
    ))]);
  });

  it('locates a merged problem at the cluster-team line that set the value', () => {
    const input = twoClusters({ teams: { web: { volume: { size: '10Gi' } } } });
    const { configText, configPath } = writeProject(input);
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(
      `platform\\.yaml:${positionOf(configText, '10Gi')}: clusters\\.staging\\.teams\\.web\\.volume\\.size: AL2023 root volume must be at least 20Gi`,
    ))]));
  });

  it('fails when a cluster names a team that does not exist', () => {
    expect(problemsOf(twoClusters({ teams: { wbe: {} } }))).toEqual([
      expect.stringMatching(/clusters\.staging\.teams\.wbe: unknown team "wbe" \(did you mean "web"\?\)/),
    ]);
  });

  it('fails when a cluster sets fields of a pool its team does not define', () => {
    expect(problemsOf(twoClusters({ teams: { web: { pools: { gpu: {} } } } }))).toEqual([
      expect.stringMatching(/clusters\.staging\.teams\.web\.pools\.gpu: team web has no pool "gpu" \(its pools: batch\): a cluster sets fields of pools its team defines; add it under teams\.web\.pools first$/),
    ]);
  });

  it('fails when a cluster sets a team-only key (owner is the team\'s, everywhere)', () => {
    expect(problemsOf(twoClusters({ teams: { web: { owner: 'x@acme.example' } } }))).toEqual([
      expect.stringMatching(/clusters\.staging\.teams\.web\.owner: unknown key "owner"/),
    ]);
  });
});

describe('fleet-wide names', () => {
  it('fails when two clusters\' Application names would collide in Argo CD\'s one namespace', () => {
    const config = aConfig({
      clusters: { demo: undefined, a: { terraformOutputs: 'terraform/a.json' }, 'a-pools-b': { terraformOutputs: 'terraform/b.json' } },
      teams: { 'b-karpenter-root': {} },
    });
    expect(problemsOf({ config, terraform: { a: aTerraform({ cluster_name: 'a' }), b: aTerraform({ cluster_name: 'b' }) } })).toEqual([
      expect.stringMatching(/clusters\.a-pools-b: Application name a-pools-b-karpenter-root \(cluster a-pools-b: its root Application\) is also cluster a: the pools Application of team b-karpenter-root's/),
    ]);
  });

  it('fails when a cluster is named like a file the generator writes in argocd/', () => {
    expect(problemsOf({ config: aConfig({ clusters: { demo: undefined, bootstrap: { terraformOutputs: 'terraform/demo.json' } } }) })).toEqual([
      expect.stringMatching(/clusters\.bootstrap: invalid key "bootstrap": is the name of a file the generator writes in argocd\/ \(bootstrap, project, argocd-cm-patch, helm-repository\)/),
    ]);
  });
});

describe('the controller\'s host and credentials', () => {
  const noIrsa = { karpenter_controller_role_arn: undefined };

  it('fails when the controller runs on Fargate with EKS Pod Identity, which Fargate does not support', () => {
    const input = { config: aConfig({ karpenter: { controller: { host: 'fargate' } } }), terraform: { demo: aTerraform(noIrsa) } };
    const { configText, configPath } = writeProject(input);
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${positionOf(configText, 'fargate')}: karpenter\\.controller\\.host: cluster demo runs the controller on Fargate, where EKS Pod Identity gives it no credentials: `
      + 'use IRSA \\(set enable_irsa = true in the companion Terraform, so it outputs karpenter_controller_role_arn\\)',
    ))]);
  });

  it('accepts Fargate with IRSA', () => {
    expect(load({ config: aConfig({ karpenter: { controller: { host: 'fargate' } } }) }).platform.clusters[0].karpenter.controller.host).toBe('fargate');
  });

  it('fails when the Pod Identity association is for another namespace than the controller\'s', () => {
    const input = { config: aConfig({ karpenter: { namespace: 'karpenter' } }), terraform: { demo: aTerraform({ ...noIrsa, karpenter_pod_identity_namespace: 'kube-system', karpenter_pod_identity_service_account: 'karpenter' }) } };
    expect(problemsOf(input)).toEqual([expect.stringMatching(
      /karpenter\.namespace: the controller runs in namespace karpenter, but cluster demo's Pod Identity association is for namespace kube-system \(terraform output karpenter_pod_identity_namespace\): set karpenter\.namespace to kube-system, or namespace = "karpenter" in the companion Terraform/,
    )]);
  });

  it('fails when helmValues renames the ServiceAccount away from the Pod Identity association', () => {
    const input = { config: aConfig({ karpenter: { helmValues: { fullnameOverride: 'kp' } } }), terraform: { demo: aTerraform({ ...noIrsa, karpenter_pod_identity_namespace: 'kube-system', karpenter_pod_identity_service_account: 'karpenter' }) } };
    expect(problemsOf(input)).toEqual([expect.stringMatching(
      /karpenter\.helmValues: the chart names the controller's ServiceAccount kp, but cluster demo's Pod Identity association is for karpenter .*: set service_account = "kp" in the companion Terraform, or helmValues\.serviceAccount\.name: karpenter/,
    )]);
  });

  it('accepts a Pod Identity association that matches the chart\'s ServiceAccount', () => {
    const input = { config: aConfig({ karpenter: { helmValues: { serviceAccount: { name: 'kp' } } } }), terraform: { demo: aTerraform({ ...noIrsa, karpenter_pod_identity_namespace: 'kube-system', karpenter_pod_identity_service_account: 'kp' }) } };
    expect(load(input).platform.clusters[0].terraform).toMatchObject({ podIdentityNamespace: 'kube-system', podIdentityServiceAccount: 'kp' });
  });
});

describe('controller settings and feature gates', () => {
  const withSettings = (settings: Record<string, unknown>) => ({ config: aConfig({ karpenter: { controller: { settings } } }) });
  const withGates = (featureGates: Record<string, unknown>) => ({ config: aConfig({ karpenter: { controller: { featureGates } } }) });

  it.each([
    [{ amiRefreshInterval: '30s' }, /settings\.amiRefreshInterval: setting amiRefreshInterval must be at least 1m, got "30s": Karpenter's option validation refuses it$/],
    [{ batchMaxDuration: '1d' }, /settings\.batchMaxDuration: setting batchMaxDuration is not a Go duration .*no d\), got "1d": Karpenter would silently use its default, "10s"$/],
    [{ batchMaxDuration: '1' }, /settings\.batchMaxDuration: setting batchMaxDuration is not a Go duration .*, got "1": Karpenter would silently use its default/],
    [{ batchMaxDuration: '' }, /settings\.batchMaxDuration: setting batchMaxDuration is not a Go duration .*, got "": Karpenter would silently use its default/],
    [{ preferencePolicy: 'Prefer' }, /settings\.preferencePolicy: setting preferencePolicy: unknown value "Prefer" \(allowed: Ignore, Respect\)$/],
    [{ vmMemoryOverheadPercent: -0.1 }, /settings\.vmMemoryOverheadPercent: setting vmMemoryOverheadPercent must be at least 0, got -0\.1: Karpenter's option validation refuses it$/],
    [{ vmMemoryOverheadPercent: 'lots' }, /settings\.vmMemoryOverheadPercent: setting vmMemoryOverheadPercent is a number, got "lots": Karpenter would silently use its default, 0\.075$/],
    [{ reservedENIs: -1 }, /settings\.reservedENIs: setting reservedENIs must be at least 0, got -1: Karpenter's option validation refuses it$/],
    [{ reservedENIs: 'two' }, /settings\.reservedENIs: setting reservedENIs is a whole number, got "two": Karpenter would silently use its default, 0$/],
    [{ isolatedVPC: 'yes' }, /settings\.isolatedVPC: setting isolatedVPC is true or false, got "yes"$/],
    [{ clusterCABundle: '{{ .Release.Name }}' }, /settings\.clusterCABundle: setting clusterCABundle must not contain "\{\{": the chart evaluates it as a Helm template$/],
  ])('fails when a setting has a value the controller would not take: %j', (settings, problem) => {
    expect(problemsOf(withSettings(settings))).toEqual([expect.stringMatching(problem)]);
  });

  it.each([
    [{ batchMaxDuration: '0' }], [{ batchMaxDuration: '.5s' }], [{ batchIdleDuration: '1h1m' }], [{ batchIdleDuration: '1.5h' }], [{ batchIdleDuration: '-1m' }],
    [{ amiRefreshInterval: '1m' }], [{ amiRefreshInterval: '.5h' }], [{ reservedENIs: '+2' }], [{ vmMemoryOverheadPercent: '1e-1' }],
    // Karpenter's option validation refuses a negative share only: 1.5 starts the controller.
    [{ vmMemoryOverheadPercent: 1.5 }],
  ])('takes a value Go parses and Karpenter\'s validation lets through (fails when the loader is stricter than Karpenter): %j', (settings) => {
    expect(load(withSettings(settings)).warnings).toEqual([]);
  });

  it('fails when a feature gate is not a boolean', () => {
    expect(problemsOf(withGates({ spotToSpotConsolidation: 'yes' }))).toEqual([
      expect.stringMatching(/karpenter\.controller\.featureGates\.spotToSpotConsolidation: expected true or false, got "yes"$/),
    ]);
  });

  it('fails when a chart setting is set through helmValues, where a false or 0 would be dropped', () => {
    expect(problemsOf({ config: aConfig({ karpenter: { helmValues: { settings: { ignoreDRARequests: false } } } }) })).toEqual([
      expect.stringMatching(/karpenter\.helmValues\.settings\.ignoreDRARequests: set chart settings in karpenter\.controller\.settings\.ignoreDRARequests/),
    ]);
  });
});
