/** What one vendored Karpenter release accepts: the types its generated data files fill. */

/**
 * The facts of one Karpenter release that decide what a cluster running it may be given:
 * its CRDs' fields and enums, and its controller's feature gates. Generated per release by
 * `npm run upgrade` into `src/release/v<version>/release.generated.ts`.
 * @see https://karpenter.sh/docs/concepts/nodepools/
 */
export interface ReleaseFacts {
  /** The release, e.g. `1.14.1`. */
  readonly version: string;
  /** Every field path of the NodePool CRD's v1 schema (`spec.disruption.consolidationPolicy`), status left out. */
  readonly nodePoolFields: readonly string[];
  /** Every field path of the EC2NodeClass CRD's v1 schema, status left out. */
  readonly ec2NodeClassFields: readonly string[];
  /** The values the NodePool CRD allows for `spec.disruption.consolidationPolicy`. */
  readonly consolidationPolicies: readonly string[];
  /** The chart's `settings.featureGates` keys, sorted. */
  readonly featureGates: readonly string[];
  /** The sha256 of each file the facts were generated from, by its path in the release. */
  readonly sources: Readonly<Record<string, string>>;
}
