/**
 * Which clusters run a Karpenter minor that is no longer supported, on the day of the run: the
 * one derivation synth's warning (src/config/karpenter.ts, per cluster at its version) and
 * SUMMARY.md's line (src/model/summary.ts) read. The support ends themselves are
 * src/release/support.ts's; the day is the clock's unless KARPENTER_GITOPS_TODAY says another.
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085dd81a9df9301e613f371dac5b4d16bfe/SUPPORT.md
 */
import { InputError } from '../input/problems';
import { supportEnded, SupportEnded } from '../release/support';
import type { Platform } from './platform';

/** The environment variable that sets the day a run judges support on (tests, and replaying a past run). */
export const TODAY_VARIABLE = 'KARPENTER_GITOPS_TODAY';

/**
 * The day a run judges support on, YYYY-MM-DD: `KARPENTER_GITOPS_TODAY` when set, else the
 * clock's date in UTC (support ends on a date, not at an hour of some zone).
 * @throws InputError when the variable is set to anything but a date
 */
export function runDate(env: NodeJS.ProcessEnv = process.env, clock: () => Date = () => new Date()): string {
  const given = env[TODAY_VARIABLE];
  if (given === undefined || given === '') return clock().toISOString().slice(0, 10);
  const day = /^\d{4}-\d{2}-\d{2}$/.test(given) ? new Date(`${given}T00:00:00Z`) : undefined;
  if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== given) {
    throw new InputError([{ file: TODAY_VARIABLE, line: 0, col: 0, path: '', message: `must be a date such as 2026-11-28 (the day the run judges Karpenter's support on), got "${given}"; unset it to use today's` }]);
  }
  return given;
}

/** A minor no longer supported, and the clusters that run it. */
export interface UnsupportedMinor extends SupportEnded {
  /** The clusters on it, in config order. */
  readonly clusters: readonly string[];
  /** The releases of it they run, sorted. */
  readonly versions: readonly string[];
}

/** Every minor the fleet runs that is unsupported on `today`, oldest first, with its clusters. */
export function unsupportedClusters(platform: Pick<Platform, 'clusters'>, today: string = runDate()): UnsupportedMinor[] {
  const byMinor = new Map<string, { ended: SupportEnded; clusters: string[]; versions: Set<string> }>();
  for (const cluster of platform.clusters) {
    const ended = supportEnded(cluster.karpenter.version, today);
    if (!ended) continue;
    const entry = byMinor.get(ended.minor) ?? { ended, clusters: [], versions: new Set<string>() };
    entry.clusters.push(cluster.id);
    entry.versions.add(cluster.karpenter.version);
    byMinor.set(ended.minor, entry);
  }
  return [...byMinor.values()].sort((a, b) => (a.ended.ends < b.ended.ends ? -1 : 1))
    .map(({ ended, clusters, versions }) => ({ ...ended, clusters, versions: [...versions].sort() }));
}

/** How many clusters a line names before it counts the rest. */
const NAMED = 3;

/**
 * SUMMARY.md's line on clusters whose Karpenter is no longer supported (with the blank line
 * after it), or nothing when every cluster's minor is supported. It names no date of the run,
 * so that the file changes only when a minor's support ends.
 */
export function unsupportedSummaryLines(platform: Pick<Platform, 'clusters'>, today: string = runDate()): string[] {
  const minors = unsupportedClusters(platform, today);
  if (minors.length === 0) return [];
  const said = minors.map((m) => {
    const names = m.clusters.slice(0, NAMED).map((c) => `\`${c}\``).join(', ') + (m.clusters.length > NAMED ? ` and ${m.clusters.length - NAMED} more` : '');
    return `${m.clusters.length} cluster(s) run ${m.versions.join(', ')} (${names}): ${m.why}.`;
  });
  return [`**Unsupported Karpenter:** ${said.join(' ')}`, ''];
}
