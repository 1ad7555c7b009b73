/**
 * An EC2NodeClass edited in the same change as a controller upgrade across a bump of its hash
 * version: whether existing nodes roll for the edit is then a race, which the review says.
 */
import { eq, valid } from 'semver';
import { obj } from './body';
import type { Change } from './change';
import type { ReviewContext } from './context';
import type { FieldChange } from './risk';
import { summaryDataOf } from './summary-data';
import type { GeneratedTree } from './tree';
import { release } from '../release/release';

/**
 * EC2NodeClass fields its hash leaves out (`hash:"ignore"`: checked for drift another way, or
 * hashed through a resolved value); an edit of any other spec field changes the hash.
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/ec2nodeclass.go#L41-L86
 */
const UNHASHED_NODE_CLASS_FIELDS = new Set(['subnetSelectorTerms', 'securityGroupSelectorTerms', 'capacityReservationSelectorTerms', 'ipPrefixCount', 'amiSelectorTerms', 'amiFamily']);

/** A cluster's controller moving across (or maybe across) a hash version bump. */
interface Bump {
  readonly from: string;
  readonly to: string;
  /** @default - unknown: the release was read without its Go code */
  readonly hashFrom?: string;
  /** @default - unknown: the release was read without its Go code */
  readonly hashTo?: string;
}

/**
 * A change that edits an EC2NodeClass's hashed fields and, in the same change, moves its cluster's
 * controller across a bump of `EC2NodeClassHashVersion` (v5 -> v6 in 1.15). Whether existing nodes
 * roll for the edit is then a race, which the review says rather than guess:
 * - the upgraded controller, on its first look at an EC2NodeClass of the old hash version, re-stamps
 *   every NodeClaim not yet Drifted with the hash of the EC2NodeClass as it is at that moment
 *   (hash/controller.go L54-L61, L88-L120): with the edit already in place, those nodes never drift
 *   for it and keep the old fields until replaced for another reason;
 * - but the old controller marks NodeClaims Drifted within seconds of the edit (the disruption
 *   controller watches NodeClasses: core nodeclaim/disruption/controller.go L122-L123), and a
 *   Drifted NodeClaim stays Drifted (hash/controller.go L104-L110: its hash is not re-stamped); and an edit synced after the
 *   upgraded controller's re-stamp drifts the nodes as usual. Argo CD syncs the controller and the
 *   pools in their own Applications, so neither order is guaranteed.
 * A release read without its Go code (the upgrade's OPTIONAL_RELEASE_FILES) has no known hash
 * version: it may bump, and the review says so.
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/controllers/nodeclass/hash/controller.go#L54-L61
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/controllers/nodeclass/hash/controller.go#L88-L120
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/nodeclaim/disruption/controller.go#L122-L123
 * @see https://github.com/kubernetes-sigs/karpenter/blob/main/designs/drift-hash-versioning.md
 */
export function withHashVersionBumps(changes: Change[], context: ReviewContext): Change[] {
  const bumps = hashVersionBumps(context);
  if (bumps.size === 0) return changes;
  return changes.map((c) => {
    const bump = bumps.get(c.resource.cluster);
    const before = context.before.get(c.resource.key);
    if (!bump || c.resource.kind !== 'EC2NodeClass' || c.action !== 'changed' || !before) return c;
    const [a, b] = [obj(before.body.spec), obj(c.resource.body.spec)];
    const edited = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !UNHASHED_NODE_CLASS_FIELDS.has(k) && JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort().join(', ');
    if (edited === '') return c;
    const fields = c.fields.map((f) => ({ ...f, why: `${f.why}, unless the controller upgrade in this change re-stamps them first (above)` }));
    return { ...c, fields: [raceField(c, bump, edited), ...fields], why: `${c.why}; or some never do: the controller upgrade in the same change may re-stamp them first (upgrade it first, then edit)` };
  });
}

/** The clusters whose Karpenter version changes across a hash version bump, or one not known. */
function hashVersionBumps(context: ReviewContext): Map<string, Bump> {
  const was = karpenterVersions(context.base);
  const now = karpenterVersions(context.head);
  const bumps = new Map<string, Bump>();
  for (const [cluster, to] of now) {
    const from = was.get(cluster);
    if (from === undefined) continue;
    // A hand-edited summary may hold a version semver cannot read: then only the same text is the same version.
    if (valid(from) && valid(to) ? eq(from, to) : from === to) continue;
    const hashFrom = release(from)?.ec2NodeClassHashVersion;
    const hashTo = release(to)?.ec2NodeClassHashVersion;
    if (hashFrom === undefined || hashTo === undefined || hashFrom !== hashTo) bumps.set(cluster, { from, to, hashFrom, hashTo });
  }
  return bumps;
}

/** The field that says the race, loudest as the change it joins. */
function raceField(c: Change, bump: Bump, edited: string): FieldChange {
  const known = bump.hashFrom !== undefined && bump.hashTo !== undefined;
  const unknown = [bump.hashFrom === undefined ? bump.from : undefined, bump.hashTo === undefined ? bump.to : undefined].filter((v) => v !== undefined).join(' and ');
  return {
    risk: c.risk,
    text: known
      ? `Karpenter ${bump.from} -> ${bump.to} in the same change: EC2NodeClass hash version ${bump.hashFrom} -> ${bump.hashTo}, with ${edited} edited`
      : `Karpenter ${bump.from} -> ${bump.to} in the same change, with ${edited} edited; the EC2NodeClass hash version of ${unknown} is unknown (read without pkg/apis/v1/ec2nodeclass.go)`,
    why: `${known ? '' : 'if the upgrade moves the hash version, '}whether existing nodes roll for this edit is a race: the upgraded controller re-stamps every NodeClaim not yet Drifted `
      + `with the hash of the EC2NodeClass as it is when it first looks; if the edit is in place by then and the old controller has not yet marked them Drifted, those nodes never roll `
      + `and keep the old ${edited} until replaced for another reason; otherwise they roll as usual. Argo CD syncs the controller and the pools separately, so either may come first. `
      + 'Safe order: upgrade the controller first (its own pull request, synced), then edit the EC2NodeClass',
  };
}

/** Each cluster's Karpenter version, as a tree's summary data states it (none without it). */
function karpenterVersions(tree: GeneratedTree): Map<string, string> {
  const read = summaryDataOf(tree);
  return 'data' in read ? new Map(read.data.clusters.map((c) => [c.id, c.karpenterVersion])) : new Map();
}
