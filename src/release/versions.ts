/**
 * How release numbers read and order: Kubernetes minors and Karpenter releases, by semantic
 * versioning. The one place a version string becomes a SemVer: Kubernetes minors (`1.33`) are
 * not full SemVer, so a missing minor or patch counts as 0 (`semver.coerce`); a pre-release
 * orders before its release.
 * @see https://semver.org/#spec-item-11
 */
import { coerce, compare, parse, type SemVer } from 'semver';

/**
 * How many parsed versions {@link semver} keeps. A fleet names a handful of versions (its
 * Karpenter releases and Kubernetes minors) once per cluster; past this the memo starts over,
 * so a long-lived process (a test run) does not grow it without bound.
 */
const MEMO_SIZE = 1000;

/** Parsed versions by string: a SemVer never leaves this module, so sharing one cannot be mutated by a caller. */
const parsed = new Map<string, SemVer>();

/** `version` as a SemVer: `v1.14.1`, `1.14`, `1.15.0-rc.1`, `0.37`. Parsed once per distinct string. */
function semver(version: string): SemVer {
  const known = parsed.get(version);
  if (known) return known;
  const v = parse(version.replace(/^v/, '')) ?? coerce(version, { includePrerelease: true });
  if (!v) throw new Error(`not a version: ${JSON.stringify(version)}`);
  if (parsed.size >= MEMO_SIZE) parsed.clear();
  parsed.set(version, v);
  return v;
}

/** The minor of a release or Kubernetes version: `1.14.1` → `1.14`, `v1.33` → `1.33`. */
export function minorOf(version: string): string {
  const v = semver(version);
  return `${v.major}.${v.minor}`;
}

/** Orders Kubernetes minor versions numerically ("1.9" before "1.10"). */
export function compareMinor(a: string, b: string): number {
  return compare(semver(a), semver(b));
}

/** Orders release numbers (`1.13`, `1.14.1`, `0.37`, `1.15.0-rc.1` before `1.15.0`). */
export function compareRelease(a: string, b: string): number {
  return compare(semver(a), semver(b));
}
