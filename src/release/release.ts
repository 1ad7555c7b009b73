import type { ReleaseFacts } from './types';
import { VENDORED_RELEASES } from './vendored.generated';
import { compareRelease } from './versions';

/** Every vendored release's version, oldest first. */
export function vendoredVersions(): string[] {
  return VENDORED_RELEASES.map((r) => r.version);
}

/**
 * What Karpenter `version` accepts: the facts of that vendored release, or of the newest
 * vendored release before it (a patch not vendored), or of the newest one for a newer release.
 * Undefined for a release older than the oldest vendored one (see {@link releaseProblem}).
 */
export function release(version: string): ReleaseFacts | undefined {
  const exact = VENDORED_RELEASES.find((r) => r.version === version);
  if (exact) return exact;
  const before = VENDORED_RELEASES.filter((r) => compareRelease(r.version, version) <= 0);
  return before[before.length - 1];
}

/**
 * Why a cluster cannot run Karpenter `version` with this generator, or undefined: before 1.0
 * Karpenter serves no `karpenter.sh/v1` API, and a release older than the oldest vendored one
 * has no facts to check the cluster's pools against.
 * @see https://karpenter.sh/docs/upgrading/v1-migration/
 */
export function releaseProblem(version: string): string | undefined {
  const oldest = VENDORED_RELEASES[0].version;
  if (compareRelease(version, '1.0.0') < 0) {
    return `Karpenter ${version} serves no karpenter.sh/v1 API (NodePool and EC2NodeClass v1 arrive in 1.0), and the generator writes only v1: `
      + `upgrade the cluster to 1.0 or later first (https://karpenter.sh/docs/upgrading/v1-migration/), then to a vendored release (${vendoredVersions().join(', ')})`;
  }
  if (compareRelease(version, oldest) < 0) {
    return `Karpenter ${version} is older than the oldest vendored release, ${oldest} (vendored: ${vendoredVersions().join(', ')}): `
      + `upgrade the cluster to ${oldest} or later, or vendor ${version} with npm run upgrade -- ${version} before the newer releases`;
  }
  return undefined;
}
