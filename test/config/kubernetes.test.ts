/**
 * Kubernetes versions per cluster (contract section 5.5): from `clusters.<id>.kubernetesVersion`
 * or the Terraform output `cluster_version`, checked against Karpenter's compatibility matrix,
 * and the AMI pins each cluster's pools use checked against it.
 */
import { coerce, inc } from 'semver';
import { KUBERNETES_AMIS } from '../../src/release/ami-releases';
import { compareMinor, minorOf } from '../../src/release/versions';
import { KUBERNETES_COMPATIBILITY } from '../../src/release/compatibility.generated';
import { amiAliasFinding } from '../../src/config/kubernetes';
import { aConfig, aTerraform, positionOf, removeProjects, writeProject } from '../builders';
import { load, problemsOf, warningsOf } from './helpers';
import { loadPlatform } from '../../src/config/load';
import { formatProblem, InputError } from '../../src/input/problems';

afterAll(removeProjects);

/** "Karpenter 1.14.1's compatibility matrix, 1.30 to 1.36", as the messages name the matrix in use. */
const versions = Object.keys(KUBERNETES_COMPATIBILITY.minimumKarpenter);
const MATRIX = `Karpenter ${KUBERNETES_COMPATIBILITY.karpenterVersion}'s compatibility matrix, ${versions[0]} to ${versions[versions.length - 1]}`.replace(/\./g, '\\.');
const re = (text: string) => new RegExp(text);
/** A Kubernetes version newer than both the matrix and the AMI table. */
const NEWER = minorOf(inc(coerce([...versions, ...Object.keys(KUBERNETES_AMIS)].sort(compareMinor).pop()) ?? '', 'minor') ?? '');
const AMIS_UP_TO = Object.keys(KUBERNETES_AMIS).sort(compareMinor).pop() ?? '';

/** Clusters prod (Kubernetes `prod`) and staging (`staging`), by their Terraform outputs unless `cluster_version` is left out. */
function fleet(versions: { prod?: string; staging?: string }, overrides: Record<string, unknown> = {}, staging: Record<string, unknown> = {}) {
  return {
    config: aConfig({
      clusters: { demo: undefined, prod: { terraformOutputs: 'terraform/prod.json' }, staging: { terraformOutputs: 'terraform/staging.json', ...staging } },
      teams: { web: {}, ml: { pools: { gpu: { ami: { alias: 'bottlerocket@v1.47.0' } } } } },
      ...overrides,
    }),
    terraform: {
      prod: aTerraform({ cluster_name: 'prod', ...(versions.prod ? { cluster_version: versions.prod } : {}) }),
      staging: aTerraform({ cluster_name: 'staging', ...(versions.staging ? { cluster_version: versions.staging } : {}) }),
    },
  };
}

/** The problems of a project, with the text of its config for locating them. */
function failing(input: ReturnType<typeof fleet>): { problems: string[]; configText: string } {
  const { configPath, configText } = writeProject(input);
  try {
    loadPlatform(configPath);
  } catch (err) {
    if (err instanceof InputError) return { problems: err.problems.map(formatProblem), configText };
    throw err;
  }
  throw new Error('expected the project to fail');
}

const defaultsAlias = (al: string) => ({ defaults: { ami: { alias: al }, limits: { cpu: '100', memory: '400Gi' } } });

describe('a cluster\'s Kubernetes version', () => {
  it('comes from the Terraform output cluster_version, or from clusters.<id>.kubernetesVersion', () => {
    const { platform } = load(fleet({ prod: '1.34' }, defaultsAlias('al2023@v20260409'), { kubernetesVersion: '1.33' }));
    expect(platform.clusters.map((c) => [c.id, c.kubernetesVersion])).toEqual([['prod', '1.34'], ['staging', '1.33']]);
  });

  it('is unknown when neither says it, and then nothing is checked', () => {
    const { platform } = load(fleet({}, defaultsAlias('al2023@v20240101')));
    expect(platform.clusters.map((c) => c.kubernetesVersion)).toEqual([undefined, undefined]);
  });

  it('fails when the config and Terraform disagree, at the config line', () => {
    const { problems, configText } = failing(fleet({ staging: '1.34' }, {}, { kubernetesVersion: '1.33' }));
    expect(problems).toEqual([expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, '"1.33"')}: clusters\\.staging\\.kubernetesVersion: `
      + 'is "1\\.33", but cluster staging\'s Terraform output cluster_version is "1\\.34" \\(.*staging\\.json:\\d+\\): they must agree; '
      + 'remove kubernetesVersion to follow Terraform, or re-run terraform output -json after the control-plane upgrade$'))]);
  });

  it('fails when it is older than Karpenter\'s compatibility matrix, at the Terraform output that says it', () => {
    expect(problemsOf(fleet({ prod: '1.29' }))).toEqual([expect.stringMatching(
      re(`prod\\.json:\\d+:\\d+: cluster_version\\.value: cluster prod runs Kubernetes 1\\.29, which Karpenter no longer supports \\(${MATRIX}\\): upgrade the control plane to 1\\.30 or later$`),
    )]);
  });

  it('fails when the cluster\'s Karpenter is too old for it, naming the version it needs', () => {
    const input = fleet({ staging: '1.36' }, { ...defaultsAlias('al2023@v20260610'), teams: { web: {} } }, { karpenter: { version: '1.12.0' } });
    expect(problemsOf(input)).toEqual([expect.stringMatching(/clusters\.staging\.karpenter\.version: cluster staging: Karpenter 1\.12\.0 is older than the oldest vendored release/), expect.stringMatching(
      re(`staging\\.json:\\d+:\\d+: cluster_version\\.value: cluster staging runs Kubernetes 1\\.36, which needs Karpenter 1\\.13 or later \\(${MATRIX}\\), but runs Karpenter 1\\.12\\.0: upgrade Karpenter on this cluster first \\(karpenter\\.version, or clusters\\.staging\\.karpenter\\.version\\), then the control plane$`),
    )]);
  });

  it('warns, and still synthesizes, for a version newer than the matrix', () => {
    expect(warningsOf(fleet({ prod: NEWER }))).toEqual(expect.arrayContaining([
      expect.stringMatching(re(`cluster_version\\.value: cluster prod runs Kubernetes ${NEWER}, newer than ${MATRIX}: Karpenter [\\d.]+ may not support it`)),
      expect.stringMatching(re(`defaults\\.ami\\.alias: cluster prod runs Kubernetes ${NEWER}, newer than the AMI releases the generator knows \\(up to ${AMIS_UP_TO}\\): cannot check that al2023@v20250505 exists for it`)),
    ]));
  });

  it('fails when the Terraform output is not a minor version, with the fix', () => {
    expect(problemsOf(fleet({ prod: '1.34.2' }))).toEqual([expect.stringMatching(
      /cluster_version\.value: expected the Kubernetes minor version such as "1\.34" \(the EKS module's cluster_version\), got "1\.34\.2": use "1\.34"$/,
    )]);
  });
});

describe('AMI pins against the cluster\'s Kubernetes version', () => {
  it('fails at the alias for the cluster whose version has no such release, and only for it', () => {
    const { problems, configText } = failing(fleet({ prod: '1.34', staging: '1.32' }, defaultsAlias('al2023@v20250505')));
    expect(problems).toEqual([
      `${problems[0].split(':')[0]}:${positionOf(configText, 'al2023@v20250505')}: defaults.ami.alias: cluster prod runs Kubernetes 1.34, and al2023@v20250505 cannot exist for it: `
      + 'the first EKS AL2023 AMIs for Kubernetes 1.34 are release v20250915 (EKS added 1.34 in 2025-10); Karpenter would find no AMI and the EC2NodeClass would never be Ready: '
      + 'pin al2023@v20250915 or a later release',
    ]);
  });

  it('fails at the pool\'s own alias for a Bottlerocket release older than the version\'s variants', () => {
    expect(problemsOf(fleet({ prod: '1.35' }, defaultsAlias('al2023@v20260114')))).toEqual([expect.stringMatching(
      /teams\.ml\.pools\.gpu\.ami\.alias: cluster prod runs Kubernetes 1\.35, and bottlerocket@v1\.47\.0 cannot exist for it: Bottlerocket's aws-k8s-1\.35 variants start with release v1\.53\.0; .*: pin bottlerocket@v1\.53\.0 or a later release$/,
    )]);
  });

  it('fails for AL2 after Kubernetes 1.32, naming the AL2023 release to move to', () => {
    const input = fleet({ prod: '1.33', staging: '1.32' }, { ...defaultsAlias('al2023@v20250519'), teams: { web: { ami: { alias: 'al2@v20250115' } } } });
    expect(problemsOf(input)).toEqual([expect.stringMatching(
      /teams\.web\.ami\.alias: cluster prod runs Kubernetes 1\.33, and EKS publishes no AL2 AMIs after Kubernetes 1\.32: move the pool to AL2023 \(ami\.alias: al2023@v20250519 or later\) or Bottlerocket$/,
    )]);
  });

  it('fails for an AL2 release after the last one', () => {
    expect(problemsOf(fleet({ prod: '1.32' }, { ...defaultsAlias('al2023@v20250519'), teams: { web: { ami: { alias: 'al2@v20260105' } } } }))).toEqual([expect.stringMatching(
      /teams\.web\.ami\.alias: al2@v20260105 cannot exist: the last EKS AL2 AMI release is v20251209; .*: pin al2@v20251209 or earlier, or move the pool to AL2023$/,
    )]);
  });

  it('fails when an alias names no release at all, whatever the version', () => {
    expect(problemsOf(fleet({}, defaultsAlias('al2023@2025-05-05')))).toEqual([expect.stringMatching(
      /defaults\.ami\.alias: "2025-05-05" is not a al2023 release: write al2023@v20250915 \(a release tag\) or al2023@latest$/,
    )]);
  });

  it('checks the version a cluster sets in the config when Terraform says none', () => {
    expect(problemsOf(fleet({}, defaultsAlias('al2023@v20250505'), { kubernetesVersion: '1.34' }))).toEqual([
      expect.stringMatching(/defaults\.ami\.alias: cluster staging runs Kubernetes 1\.34, and al2023@v20250505 cannot exist/),
    ]);
  });

  it('passes for pins that exist together with their cluster\'s version, and for latest', () => {
    const pinned = load(fleet({ prod: '1.34', staging: '1.30' }, defaultsAlias('al2023@v20260409')));
    expect(pinned.platform.clusters.map((c) => [c.id, c.pools[0].settings.ami.alias])).toEqual([['prod', 'al2023@v20260409'], ['staging', 'al2023@v20260409']]);
    expect(pinned.warnings.map(formatProblem)).toEqual([]);
    const latest = load(fleet({ prod: '1.36' }, { defaults: { ami: { alias: 'al2023@latest', allowLatest: true } }, teams: { web: {}, ml: { pools: { gpu: { ami: { alias: 'bottlerocket@latest', allowLatest: true } } } } } }));
    expect(latest.platform.clusters[0].pools.map((p) => p.settings.ami.alias)).toEqual(['al2023@latest', 'al2023@latest', 'bottlerocket@latest']);
    expect(latest.warnings.map(formatProblem)).toEqual([]);
  });

  it.each(Object.entries(KUBERNETES_AMIS))('Kubernetes %s: the first release of each family passes, the day before fails', (version, amis) => {
    const dayBefore = (tag: string) => {
      const d = new Date(`${tag.slice(1, 5)}-${tag.slice(5, 7)}-${tag.slice(7, 9)}T00:00:00Z`);
      d.setUTCDate(d.getUTCDate() - 1);
      return `v${d.toISOString().slice(0, 10).replace(/-/g, '')}`;
    };
    expect(amiAliasFinding('c', version, `al2023@${amis.al2023}`)).toBeUndefined();
    expect(amiAliasFinding('c', version, `al2023@${dayBefore(amis.al2023)}`)?.severity).toBe('error');
    expect(amiAliasFinding('c', version, `bottlerocket@${amis.bottlerocket}`)).toBeUndefined();
    const { major, minor } = coerce(amis.bottlerocket) ?? { major: 0, minor: 0 };
    expect(amiAliasFinding('c', version, `bottlerocket@v${major}.${minor - 1}.9`)?.severity).toBe('error');
    if (amis.al2) expect(amiAliasFinding('c', version, `al2@${amis.al2}`)).toBeUndefined();
    else expect(amiAliasFinding('c', version, 'al2@v20251209')?.severity).toBe('error');
  });
});
