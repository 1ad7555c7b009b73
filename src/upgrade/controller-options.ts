/**
 * The controller options the chart's settings reach, as the Go code of one Karpenter release
 * defines them: the one source for what the release's own files (settings.md, the chart) leave
 * out — every boolean default (the docs generator prints none), the Go type of a setting the
 * docs give no default for, bounds `Validate` checks but the docs do not word. Hand-kept data
 * because the upgrade reads no Go code but `ec2nodeclass.go`: the options live in two
 * repositories (the provider's and core's) that a release folder does not vendor.
 * test/upgrade/controller-options.test.ts fails when the vendored release disagrees with it
 * (its settings.md prints each flag's Go default, enum and minimum where it has one) or moves
 * past {@link CONTROLLER_OPTIONS}'s `version`.
 *
 * Every `env.WithDefault*` parser falls back to the default, silently, on a value it cannot
 * parse; bools parse with `strconv.ParseBool`.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/env/env.go
 */

/** A controller flag as its Go code defines it. */
export interface ControllerOption {
  /** The Go type of the option. */
  readonly goType: 'string' | 'bool' | 'int' | 'float64' | 'duration';
  /** The default as Go prints it (`flag.DefValue`; for bools the value given to `BoolVarWithEnv`). */
  readonly default: string;
  /** The values `Parse` accepts. @default - any */
  readonly oneOf?: readonly string[];
  /** What `Validate` requires at least. @default - nothing */
  readonly minimum?: string;
  /** Where the value stops making sense (not validated). @default - nowhere */
  readonly exclusiveMaximum?: string;
}

/**
 * The options the chart's settings reach, read from the Go code of Karpenter 1.14.1 (the
 * provider at tag v1.14.1, and the core it pins: tag v1.14.1, commit 6e7eab7a0f48). Each entry
 * names its lines: `aws` is the provider's pkg/operator/options/options.go, `aws validation` its
 * options_validation.go, `core` core's pkg/operator/options/options.go. Re-read these lines and
 * update the table (and `version`) on every bump: the upgrade notes each setting the table does
 * not know, and the test fails once the vendored release is another.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/operator/options/options.go#L53-L64
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/operator/options/options_validation.go#L37-L77
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/operator/options/options.go#L121-L177
 */
export const CONTROLLER_OPTIONS = {
  version: '1.14.1',
  options: {
    // aws L63, minimum: aws validation L38
    AMI_REFRESH_INTERVAL: { goType: 'duration', default: '1m0s', minimum: '1m' },
    // aws L53
    CLUSTER_CA_BUNDLE: { goType: 'string', default: '' },
    // aws L55
    CLUSTER_ENDPOINT: { goType: 'string', default: '' },
    // aws L54
    CLUSTER_NAME: { goType: 'string', default: '' },
    // aws L61
    DISABLE_DRY_RUN: { goType: 'bool', default: 'false' },
    // aws L57
    EKS_CONTROL_PLANE: { goType: 'bool', default: 'false' },
    // aws L62
    ENABLE_ZONAL_SHIFT: { goType: 'bool', default: 'false' },
    // aws L59
    INTERRUPTION_QUEUE: { goType: 'string', default: '' },
    // aws L56
    ISOLATED_VPC: { goType: 'bool', default: 'false' },
    // aws L60, minimum: aws validation L72 ("cannot be negative")
    RESERVED_ENIS: { goType: 'int', default: '0', minimum: '0' },
    // aws L64, minimum: aws validation L45
    SUBNET_REFRESH_INTERVAL: { goType: 'duration', default: '1m0s', minimum: '1m' },
    // aws L58, minimum: aws validation L65; subtracted as memory * percent
    // (aws pkg/providers/instancetype/types.go L364), so 1 leaves an instance no memory at all.
    VM_MEMORY_OVERHEAD_PERCENT: { goType: 'float64', default: '0.075', minimum: '0', exclusiveMaximum: '1' },
    // core L130
    BATCH_IDLE_DURATION: { goType: 'duration', default: '1s' },
    // core L129
    BATCH_MAX_DURATION: { goType: 'duration', default: '10s' },
    // core L121
    DISABLE_CLUSTER_STATE_OBSERVABILITY: { goType: 'bool', default: 'false' },
    // core L133
    IGNORE_DRA_REQUESTS: { goType: 'bool', default: 'true' },
    // core L132, values: core L43-L44, checked at L150
    MIN_VALUES_POLICY: { goType: 'string', default: 'Strict', oneOf: ['Strict', 'BestEffort'] },
    // core L131, values: core L36-L37, checked at L147 (validPreferencePolicies, L49)
    PREFERENCE_POLICY: { goType: 'string', default: 'Respect', oneOf: ['Ignore', 'Respect'] },
  } satisfies Readonly<Record<string, ControllerOption>> as Readonly<Record<string, ControllerOption>>,
  /** `DefaultFeatureGates()`: core L170-L177. */
  featureGates: {
    CapacityBuffer: false,
    NodeOverlay: false,
    NodeRepair: false,
    ReservedCapacity: true,
    SpotToSpotConsolidation: false,
    StaticCapacity: false,
  } as Readonly<Record<string, boolean>>,
} as const;
