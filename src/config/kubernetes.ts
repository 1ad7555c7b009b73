import { compareMinor, compareRelease } from '../release/versions';
import { KUBERNETES_AMIS, LAST_AL2_KUBERNETES, LAST_AL2_RELEASE } from '../release/ami-releases';
import { KUBERNETES_COMPATIBILITY } from '../release/compatibility.generated';

/** A finding about a cluster's Kubernetes version or an AMI pin. */
export interface VersionFinding {
  readonly severity: 'error' | 'warning';
  readonly message: string;
}

/** {@link matrixVersions}, sorted on first use: the matrix is a constant of the build, asked once per cluster. */
let matrix: readonly string[] | undefined;

/** The Kubernetes minor versions Karpenter's compatibility matrix lists, oldest first. */
export function matrixVersions(): readonly string[] {
  matrix ??= Object.freeze(Object.keys(KUBERNETES_COMPATIBILITY.minimumKarpenter).sort(compareMinor));
  return matrix;
}

/**
 * Whether the cluster's Karpenter release supports its Kubernetes version, by Karpenter's
 * compatibility matrix (generated from the docs of the release `npm run upgrade` last read):
 * a version older than the matrix, or one that needs a newer Karpenter, is an error; a
 * version newer than the matrix is a warning (the matrix may just be older than the cluster).
 * @see https://karpenter.sh/docs/upgrading/compatibility/#compatibility-matrix
 */
export function compatibilityFinding(clusterId: string, kubernetes: string, karpenter: string): VersionFinding | undefined {
  const versions = matrixVersions();
  const oldest = versions[0];
  const newest = versions[versions.length - 1];
  const from = `Karpenter ${KUBERNETES_COMPATIBILITY.karpenterVersion}'s compatibility matrix, ${oldest} to ${newest}`;
  if (compareMinor(kubernetes, oldest) < 0) {
    return {
      severity: 'error',
      message: `cluster ${clusterId} runs Kubernetes ${kubernetes}, which Karpenter no longer supports (${from}): upgrade the control plane to ${oldest} or later`,
    };
  }
  if (compareMinor(kubernetes, newest) > 0) {
    return {
      severity: 'warning',
      message: `cluster ${clusterId} runs Kubernetes ${kubernetes}, newer than ${from}: Karpenter ${karpenter} may not support it; `
        + 'if a newer Karpenter lists it, run npm run upgrade -- VERSION (README, "Upgrading Karpenter")',
    };
  }
  const minimum = KUBERNETES_COMPATIBILITY.minimumKarpenter[kubernetes];
  if (compareRelease(karpenter, minimum) < 0) {
    return {
      severity: 'error',
      message: `cluster ${clusterId} runs Kubernetes ${kubernetes}, which needs Karpenter ${minimum} or later (${from}), but runs Karpenter ${karpenter}: `
        + `upgrade Karpenter on this cluster first (karpenter.version, or clusters.${clusterId}.karpenter.version), then the control plane`,
    };
  }
  return undefined;
}

/**
 * Whether a pinned AMI alias can exist for the cluster's Kubernetes version: Karpenter
 * resolves it through the SSM parameter of that release for that version, and there is
 * none for a release older than the first EKS AMIs (or Bottlerocket variants) of the
 * version, for AL2 after Kubernetes 1.32, or for an AL2 release after the last one. Such a
 * pin leaves the EC2NodeClass not Ready and its pools launching nothing. `latest` is only
 * checked for AL2; an unknown newer Kubernetes version is a warning.
 * @see https://karpenter.sh/docs/concepts/nodeclasses/#specamiselectorterms
 */
export function amiAliasFinding(clusterId: string, kubernetes: string, alias: string): VersionFinding | undefined {
  const [family, release] = alias.split('@');
  const amis = KUBERNETES_AMIS[kubernetes];
  const runs = `cluster ${clusterId} runs Kubernetes ${kubernetes}`;
  const outage = 'Karpenter would find no AMI and the EC2NodeClass would never be Ready';
  if (family === 'al2' && compareMinor(kubernetes, LAST_AL2_KUBERNETES) > 0) {
    const al2023 = amis ? `al2023@${amis.al2023} or later` : 'an al2023@vYYYYMMDD release';
    return { severity: 'error', message: `${runs}, and EKS publishes no AL2 AMIs after Kubernetes ${LAST_AL2_KUBERNETES}: move the pool to AL2023 (ami.alias: ${al2023}) or Bottlerocket` };
  }
  if (release === 'latest') return undefined;
  if (!amis) {
    const known = Object.keys(KUBERNETES_AMIS).sort(compareMinor);
    // Older than the table: Karpenter does not support it either, which is reported at the version.
    if (compareMinor(kubernetes, known[0]) < 0) return undefined;
    return {
      severity: 'warning',
      message: `${runs}, newer than the AMI releases the generator knows (up to ${known[known.length - 1]}): cannot check that ${alias} exists for it `
        + '(add its first releases to src/release/ami-releases.ts)',
    };
  }
  switch (family) {
    case 'al2023':
    case 'al2': {
      const first = family === 'al2023' ? amis.al2023 : amis.al2;
      if (first !== undefined && release < first) {
        return {
          severity: 'error',
          message: `${runs}, and ${alias} cannot exist for it: the first EKS ${family.toUpperCase()} AMIs for Kubernetes ${kubernetes} are release ${first} `
            + `(EKS added ${kubernetes} in ${amis.eksRelease}); ${outage}: pin ${family}@${first} or a later release`,
        };
      }
      if (family === 'al2' && release > LAST_AL2_RELEASE) {
        return { severity: 'error', message: `${alias} cannot exist: the last EKS AL2 AMI release is ${LAST_AL2_RELEASE}; ${outage}: pin al2@${LAST_AL2_RELEASE} or earlier, or move the pool to AL2023` };
      }
      return undefined;
    }
    case 'bottlerocket':
      if (compareRelease(release.slice(1), amis.bottlerocket.slice(1)) < 0) {
        return {
          severity: 'error',
          message: `${runs}, and ${alias} cannot exist for it: Bottlerocket's aws-k8s-${kubernetes} variants start with release ${amis.bottlerocket}; ${outage}: `
            + `pin bottlerocket@${amis.bottlerocket} or a later release`,
        };
      }
      return undefined;
    default:
      return undefined;
  }
}

/** The release formats of each alias family: what `family@<release>` may say. */
export const ALIAS_RELEASES: Readonly<Record<string, { readonly pattern: RegExp; readonly example: string }>> = {
  al2023: { pattern: /^(v\d{8}|latest)$/, example: 'v20250915' },
  al2: { pattern: /^(v\d{8}|latest)$/, example: 'v20241225' },
  bottlerocket: { pattern: /^(v\d+\.\d+\.\d+|latest)$/, example: 'v1.47.0' },
};

