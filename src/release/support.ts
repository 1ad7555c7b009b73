/**
 * How long Karpenter supports each minor release: Karpenter's own policy, and the one table of
 * each minor's release date and whether it is a long-term-support (LTS) release, from which
 * every support end is derived. synth's warning, SUMMARY.md's line (src/config/support.ts) and
 * `npm run upgrade`'s note on a minor the table lacks all read it here.
 *
 * Hand-maintained, like the AMI releases (ami-releases.ts): a release's files do not say when
 * it was released (the policy itself, SUPPORT.md, is in no release tag before 1.15). Add a row
 * when a minor is released (`npm run upgrade` to a minor the table lacks says so).
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085dd81a9df9301e613f371dac5b4d16bfe/SUPPORT.md
 *   (lines 11-23: "Regular releases are supported only until the next minor release is
 *   published"; "Each LTS release is supported for 12 months from its release date";
 *   lines 108-115: the LTS versions table, v1.14 Jul 2026 - Jul 2027, v1.9 Feb 2026 - Feb 2027)
 * @see https://karpenter.sh/v1.9/upgrading/compatibility/ (the same policy, "Support Policy")
 */
import { compareRelease, minorOf } from './versions';

/** How long an LTS release is supported, from its release date. */
export const LTS_MONTHS = 12;

/** One minor release of Karpenter. */
export interface MinorRelease {
  /** The minor, `1.14`. */
  readonly minor: string;
  /** The day its `.0` was released (YYYY-MM-DD). */
  readonly released: string;
  /** Karpenter names it a long-term-support release. @default false - supported until the next minor */
  readonly lts?: boolean;
}

/**
 * Every minor from the first LTS release on, oldest first. The dates are those of each `vX.Y.0`
 * tag's commit in aws/karpenter-provider-aws (`git log -1 --format=%cd --date=short vX.Y.0`,
 * the release workflow publishes the tag it builds; they match the release dates endoflife.date
 * lists for 1.9, 1.10 and 1.11); 1.15.0's is its GitHub release's (v1.15.0), as the notes of the
 * 1.15 stand-in this project's upgrade tests were made from record it: the snapshot of the
 * repository reachable when this was written ends at main 1d927085 (2026-08-21), before the tag.
 * LTS: SUPPORT.md's LTS versions table, and the "(LTS)" suffix of their GitHub releases.
 * @see https://github.com/aws/karpenter-provider-aws/releases/tag/v1.14.0
 * @see https://github.com/aws/karpenter-provider-aws/releases/tag/v1.15.0
 * @see https://endoflife.date/karpenter
 */
export const MINOR_RELEASES: readonly MinorRelease[] = [
  { minor: '1.9', released: '2026-02-06', lts: true },
  { minor: '1.10', released: '2026-03-20' },
  { minor: '1.11', released: '2026-04-06' },
  { minor: '1.12', released: '2026-04-24' },
  { minor: '1.13', released: '2026-06-10' },
  { minor: '1.14', released: '2026-07-10', lts: true },
  { minor: '1.15', released: '2026-10-10' },
];

/** How long one minor is supported, as the policy says for it. */
export interface MinorSupport {
  /** The minor, `1.13`. */
  readonly minor: string;
  /** Whether it is an LTS release. */
  readonly lts: boolean;
  /**
   * The first day it is no longer supported (YYYY-MM-DD).
   * @default - not known yet: the next minor is not in {@link MINOR_RELEASES} (a regular release is supported until then)
   */
  readonly ends?: string;
  /** Why it ends then, for people: "LTS, 12 months from its release on 2026-07-10". */
  readonly basis: string;
}

/**
 * The support of `version`'s minor, or undefined for a minor the table does not have (older
 * than its first row, or newer than its last: nothing is known of it here).
 */
export function minorSupport(version: string): MinorSupport | undefined {
  const minor = minorOf(version);
  const i = MINOR_RELEASES.findIndex((r) => r.minor === minor);
  if (i < 0) return undefined;
  const r = MINOR_RELEASES[i];
  if (r.lts) {
    return { minor, lts: true, ends: addMonths(r.released, LTS_MONTHS), basis: `LTS, supported for ${LTS_MONTHS} months from its release on ${r.released}` };
  }
  const next = MINOR_RELEASES.slice(i + 1).find((n) => compareRelease(n.minor, minor) > 0);
  return next
    ? { minor, lts: false, ends: next.released, basis: `a regular release, supported until the next minor, ${next.minor}.0, was released on ${next.released}` }
    : { minor, lts: false, basis: 'a regular release, supported until the next minor is released' };
}

/** A minor whose support has ended at a date. */
export interface SupportEnded extends MinorSupport {
  readonly ends: string;
  /** One line for people: what ended, when, why, and what to move to. */
  readonly why: string;
}

/**
 * Whether `version`'s minor is no longer supported on `today` (YYYY-MM-DD), and why; undefined
 * while it is supported, or when the table does not know it.
 */
export function supportEnded(version: string, today: string): SupportEnded | undefined {
  // Asked once per cluster with the fleet's few versions: each answer is worked out once.
  const key = `${version} ${today}`;
  if (ENDED.has(key)) return ENDED.get(key);
  const s = minorSupport(version);
  let ended: SupportEnded | undefined;
  if (s && s.ends !== undefined && today >= s.ends) {
    const to = supportedMinors(today).filter((m) => compareRelease(m.minor, s.minor) > 0);
    const advice = to.length ? `upgrade to ${to.map((m) => `${m.minor}${m.lts ? ` (LTS until ${m.ends})` : ''}`).join(' or ')}` : 'upgrade to a supported minor';
    ended = Object.freeze({ ...s, ends: s.ends, why: `Karpenter ${s.minor} has been unsupported since ${s.ends} (${s.basis}): ${advice}` });
  }
  ENDED.set(key, ended);
  return ended;
}

/** {@link supportEnded}'s answers by version and day: the table is a constant of the build. */
const ENDED = new Map<string, SupportEnded | undefined>();

/** The minors released and still supported on `today`, newest first. */
export function supportedMinors(today: string): MinorSupport[] {
  return MINOR_RELEASES.filter((r) => r.released <= today).map((r) => minorSupport(r.minor) as MinorSupport)
    .filter((s) => s.ends === undefined || today < s.ends).reverse();
}

/** `date` (YYYY-MM-DD) plus `months` calendar months, the day kept (clamped to the month's last). */
function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const total = (m - 1) + months;
  const year = y + Math.floor(total / 12);
  const month = (total % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}
