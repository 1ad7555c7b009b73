/**
 * What Karpenter patch releases change in how the controller behaves, beyond what their files
 * (CRDs, chart, settings) show: the changes a user must act on ("Action Required" in the
 * release notes). `npm run upgrade` prints those of the release it moves to
 * (src/upgrade/command.ts), and the config refuses what they make unsafe, naming the change
 * (empty selector values: src/config/schema/node-class.ts; adoption: src/adopt/fields.ts).
 *
 * Hand-maintained: a release's notes are prose, not data. Add a row when a patch release's notes
 * say "Action Required"; a change backported to several minor lines is one row naming the first
 * patch of each line.
 * @see https://github.com/aws/karpenter-provider-aws/releases
 */
import { compareRelease, minorOf } from './versions';

/** One behaviour change, in the patch releases that made it. */
export interface BehaviourChange {
  /** A stable name. */
  readonly id: string;
  /**
   * The first patch of each minor line that has it, oldest first (`1.9.4`, `1.14.4`, `1.15.3`).
   * A later patch of the same line has it; so does every release of a later minor (a fix lands
   * on main and is cherry-picked to the supported lines, SUPPORT.md "Backport Process").
   */
  readonly releases: readonly string[];
  /** Where Karpenter says so: `aws/karpenter-provider-aws#9964`. */
  readonly issue: string;
  /** The issue's address. */
  readonly url: string;
  /** What changes, for people, one sentence. */
  readonly summary: string;
  /** What karpenter-gitops does about it, for people. */
  readonly here: string;
}

/**
 * Selector terms with an empty value are ignored. Before these releases such a term is read as
 * a term without a filter: v1.14.1's subnet and security-group providers add a filter set with
 * no filter for a term without id, name or tags, and the AMI provider a query with neither
 * owner nor filter (every AMI the account may launch); a capacity-reservation term without
 * tags, id or instanceMatchCriteria was already skipped, and the CRD refuses an empty
 * placement-group name (`minLength: 1`). The issue and its releases are later than the snapshot
 * of aws/karpenter-provider-aws these files were checked against (main at 1d927085, 2026-08-21):
 * the releases are those the issue names.
 * @see https://github.com/aws/karpenter-provider-aws/issues/9964 ("Action Required"; patch releases 1.15.3, 1.14.4, 1.9.4)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/subnet/subnet.go#L267-L295 (getFilterSets)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/securitygroup/securitygroup.go#L101-L135 (getFilterSets)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/amifamily/ami.go#L83-L170 (DescribeImageQueries)
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/capacityreservation/types.go#L39-L53 (QueriesFromSelectorTerms)
 */
export const EMPTY_SELECTOR_VALUES: BehaviourChange = {
  id: 'empty-selector-values',
  releases: ['1.9.4', '1.14.4', '1.15.3'],
  issue: 'aws/karpenter-provider-aws#9964',
  url: 'https://github.com/aws/karpenter-provider-aws/issues/9964',
  summary: 'EC2NodeClass selector terms (subnets, security groups, AMIs, capacity reservations, placement group) with an empty tags map, '
    + 'an empty name or an empty ssmParameter are ignored: with every term empty the EC2NodeClass becomes NotReady, with some the '
    + 'selection narrows and nodes on what is no longer selected drift',
  here: 'karpenter-gitops refuses such a term in the config (docs/errors.md) and in an export npm run adopt reads, whatever the cluster\'s release',
};

/** Every behaviour change known, oldest first. */
export const BEHAVIOUR_CHANGES: readonly BehaviourChange[] = [EMPTY_SELECTOR_VALUES];

/** Whether Karpenter `version` has `change`. */
export function hasChange(change: BehaviourChange, version: string): boolean {
  const minor = minorOf(version);
  const line = change.releases.find((r) => minorOf(r) === minor);
  if (line) return compareRelease(version, line) >= 0;
  return change.releases.every((r) => compareRelease(minorOf(r), minor) < 0);
}

/** What moving from Karpenter `from` to `to` brings (`gained`) and takes back (`lost`: a newer minor whose patch with it is not out yet, or a downgrade). */
export function changesBetween(from: string, to: string): { readonly gained: readonly BehaviourChange[]; readonly lost: readonly BehaviourChange[] } {
  return {
    gained: BEHAVIOUR_CHANGES.filter((c) => hasChange(c, to) && !hasChange(c, from)),
    lost: BEHAVIOUR_CHANGES.filter((c) => hasChange(c, from) && !hasChange(c, to)),
  };
}

/** `1.9.4, 1.14.4 and 1.15.3`. */
export function releaseList(change: BehaviourChange): string {
  const r = [...change.releases].sort(compareRelease);
  return r.length > 1 ? `${r.slice(0, -1).join(', ')} and ${r[r.length - 1]}` : r.join('');
}

/** The value of a selector term that may be empty. */
export type SelectorValue = 'tags' | 'name' | 'ssmParameter' | 'id';

/**
 * The EC2NodeClass selector lists whose terms {@link EMPTY_SELECTOR_VALUES} ignores when one of
 * these values is empty (the placement group selector, one object, is checked apart: an empty
 * id or name), and whether a class needs the list: with every term of a needed list ignored
 * the EC2NodeClass has no AMI, subnet or security group and becomes NotReady.
 * @see https://github.com/aws/karpenter-provider-aws/issues/9964
 */
export const EMPTY_SELECTOR_TERMS: Readonly<Record<string, { readonly values: readonly SelectorValue[]; readonly needed: boolean }>> = {
  amiSelectorTerms: { values: ['tags', 'name', 'ssmParameter'], needed: true },
  subnetSelectorTerms: { values: ['tags'], needed: true },
  securityGroupSelectorTerms: { values: ['tags', 'name'], needed: true },
  capacityReservationSelectorTerms: { values: ['tags'], needed: false },
};

/**
 * The fix the release notes give for an AMI selector term that meant "every AMI of an owner" (an
 * empty name, or only an owner): `name: "*"` with the owner.
 * @see https://github.com/aws/karpenter-provider-aws/issues/9964
 */
export function allOfOwnerFix(owner?: string): string {
  return `to select all of ${owner !== undefined && owner !== '' ? `owner ${owner}'s` : 'an owner\'s'} AMIs write name: "*" with the owner `
    + `(${owner !== undefined && owner !== '' ? `{ name: "*", owner: ${owner} }` : '{ name: "*", owner: <account id or alias> }'}; ${EMPTY_SELECTOR_VALUES.issue})`;
}

/**
 * Why an empty value of a selector term is refused, and the fix: the one wording the config's
 * schema and adoption share. In an AMI term (`ami`: its owner, when it has one) an empty name
 * gets the release notes' fix, {@link allOfOwnerFix}.
 */
export function emptySelectorValueReason(value: SelectorValue, ami?: { readonly owner?: string }): string {
  const what = value === 'tags' ? 'an empty tags map' : `an empty ${value}`;
  const give = value === 'tags' ? 'give it at least one tag (key: value, or key: "*" for any value)' : `give the ${value}`;
  const fix = ami && value === 'name' ? `${allOfOwnerFix(ami.owner)}, or ${give}` : give;
  return `is empty: Karpenter ${releaseList(EMPTY_SELECTOR_VALUES)} and later ignore a selector term with ${what} (${EMPTY_SELECTOR_VALUES.issue}: `
    + `with every term empty the EC2NodeClass is NotReady, with some the selection narrows and nodes drift); ${fix}, or remove the term`;
}
