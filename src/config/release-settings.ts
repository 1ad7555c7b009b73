/**
 * The controller settings of one cluster against its own Karpenter release (contract 9.4): a
 * setting or AWS feature gate another release added is an error naming the release; the pairs
 * Karpenter 1.15's chart says cannot be combined are errors at their line; `rebootForRepair`
 * needs `ec2:RebootInstances`, which the cluster's Terraform outputs must say is granted.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.15.0/charts/karpenter/values.yaml (settings.enableDRA, ignoreDRARequests, legacyNodeRepair, awsFeatureGates)
 */
import type { FieldPath, Problem } from '../input/problems';
import type { SourceFile } from '../input/source';
import { SETTINGS_RULES } from '../release/settings-rules.generated';
import type { ReleaseFacts } from '../release/types';
import type { ClusterSettings } from './settings';
import type { TerraformOutputs } from './terraform';

/** What the check reads: the cluster's settings, its release's facts and its Terraform outputs. */
export interface ReleaseSettingsInput {
  readonly source: SourceFile;
  readonly settings: ClusterSettings;
  readonly facts: ReleaseFacts;
  readonly tf: TerraformOutputs | undefined;
  /** The path of the line that set `karpenter.<path>` (fleet, group or cluster). */
  readonly at: (path: FieldPath) => FieldPath;
}

/** The values.yaml comment of v1.15.0 each exclusion cites. */
const VALUES_115 = 'https://github.com/aws/karpenter-provider-aws/blob/v1.15.0/charts/karpenter/values.yaml';

/** Every problem of the cluster's settings against its release, each at the line that set it. */
export function releaseSettingsProblems(input: ReleaseSettingsInput): Problem[] {
  return [...unknownToRelease(input), ...exclusions(input), ...rebootPermission(input)];
}

/** Settings and AWS feature gates the cluster's release does not have (another release's). */
function unknownToRelease({ source, settings, facts, at }: ReleaseSettingsInput): Problem[] {
  const { clusterId } = settings;
  const controller = settings.karpenter.controller ?? {};
  const problems: Problem[] = [];
  const v = facts.version;
  for (const key of Object.keys(controller.settings ?? {})) {
    // Keys no release knows are reported as unknown (controller.ts); these are newer than this cluster's.
    if (!facts.settings.includes(key) && knownToNewest(key)) {
      problems.push(source.problem(at(['controller', 'settings', key]), `cluster ${clusterId} runs Karpenter ${v}, whose chart has no setting ${key}: `
        + 'upgrade this cluster\'s Karpenter first, or remove it', 'key'));
    }
  }
  const aws = facts.settingsMaps.awsFeatureGates;
  for (const key of Object.keys(controller.awsFeatureGates ?? {})) {
    if (aws && Object.hasOwn(aws, key)) continue;
    problems.push(source.problem(at(['controller', 'awsFeatureGates', key]), `cluster ${clusterId} runs Karpenter ${v}, `
      + `${aws ? `which has no AWS feature gate ${key} (its gates: ${Object.keys(aws).join(', ')})` : 'whose chart has no settings.awsFeatureGates'}: upgrade this cluster's Karpenter first, or remove it`, 'key'));
  }
  return problems;
}

/** A setting the newest vendored release's chart has. */
function knownToNewest(key: string): boolean {
  return Object.hasOwn(SETTINGS_RULES, key);
}

/** A pair of values the chart says cannot be combined. */
interface Exclusion {
  /** The field reported at, below `karpenter.controller`, and when it counts as set. */
  readonly field: FieldPath;
  readonly set: (value: unknown) => boolean;
  /** The field it cannot be combined with (on), below `karpenter.controller`. */
  readonly with: FieldPath;
  /** What the values comment says, quoted. */
  readonly says: string;
  readonly fix: string;
}

/**
 * The three pairs v1.15.0's values.yaml excludes (its comments on settings.enableDRA,
 * ignoreDRARequests, legacyNodeRepair and awsFeatureGates.draNVIDIAGPU, draEFA).
 */
const EXCLUSIONS: readonly Exclusion[] = [
  ...(['draNVIDIAGPU', 'draEFA'] as const).map((gate): Exclusion => ({
    field: ['awsFeatureGates', gate], set: (v) => v === true, with: ['settings', 'enableDRA'],
    says: `"Setting this to true will enable every AWS DRA driver feature gate (awsFeatureGates.draNVIDIAGPU and awsFeatureGates.draEFA) … It can't be combined with any of those values"`,
    fix: `enableDRA already turns ${gate} on: remove awsFeatureGates.${gate}, or set enableDRA false to choose the DRA gates one by one`,
  })),
  {
    field: ['settings', 'ignoreDRARequests'], set: (v) => v !== undefined, with: ['settings', 'enableDRA'],
    says: '"[enableDRA] … set[s] ignoreDRARequests to false. It can\'t be combined with any of those values"',
    fix: 'enableDRA already sets ignoreDRARequests false: remove ignoreDRARequests',
  },
  {
    field: ['featureGates', 'terminateFirstRepair'], set: (v) => v === true, with: ['settings', 'legacyNodeRepair'],
    says: '"[legacyNodeRepair] can\'t be combined with featureGates.terminateFirstRepair, which the legacy controller doesn\'t support"',
    fix: 'remove one: legacyNodeRepair (repair as a disruption method, which terminateFirstRepair acts on) or terminateFirstRepair',
  },
];

function exclusions({ source, settings, facts, at }: ReleaseSettingsInput): Problem[] {
  const controller = settings.karpenter.controller ?? {};
  const value = (path: FieldPath): unknown => {
    let v: unknown = controller;
    for (const seg of path) v = v !== null && typeof v === 'object' && !Array.isArray(v) ? new Map(Object.entries(v)).get(String(seg)) : undefined;
    return v;
  };
  const problems: Problem[] = [];
  for (const e of EXCLUSIONS) {
    if (value(e.with) !== true || !e.set(value(e.field))) continue;
    const other = settings.sourceOf(['karpenter', 'controller', ...e.with]);
    const where = other.level === 'group' ? `group ${other.group ?? ''}` : other.level;
    problems.push(source.problem(at(['controller', ...e.field]), `karpenter.controller.${e.field.join('.')} cannot be combined with karpenter.controller.${e.with.join('.')}: true `
      + `(set at the ${where} level) on cluster ${settings.clusterId} (Karpenter ${facts.version}): the chart's values.yaml says ${e.says} (${VALUES_115}): ${e.fix}`));
  }
  return problems;
}

/**
 * `awsFeatureGates.rebootForRepair` makes node repair reboot a node in place, which "Requires the
 * ec2:RebootInstances permission" (v1.15.0 values.yaml): an error unless the cluster's Terraform
 * outputs say the controller role has it (`karpenter_can_reboot_instances`, set by the companion
 * Terraform's `enable_reboot_for_repair`).
 */
function rebootPermission({ source, settings, tf, at }: ReleaseSettingsInput): Problem[] {
  if (settings.karpenter.controller?.awsFeatureGates?.rebootForRepair !== true || tf?.canRebootInstances === true) return [];
  return [source.problem(at(['controller', 'awsFeatureGates', 'rebootForRepair']), `cluster ${settings.clusterId} turns on rebootForRepair, which needs ec2:RebootInstances `
    + `("Requires the ec2:RebootInstances permission", ${VALUES_115}), but its Terraform outputs do not say the controller role has it: `
    + 'set enable_reboot_for_repair = true in the companion Terraform (terraform/variables.tf), apply, and re-export the outputs (karpenter_can_reboot_instances: true)')];
}
