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
  /**
   * Every `default:` of each kind's CRD schema (its storage version: v1 for NodePool and
   * EC2NodeClass, v1alpha1 for NodeOverlay), status left out, in schema order (a parent before
   * its children): what the API server fills in when it decodes an object of that kind
   * (structural-schema defaulting). `withCrdDefaults` (`defaults.ts`) applies them.
   * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#defaulting
   * @see https://github.com/kubernetes/kubernetes/blob/94341df30b4aef29676b997d0e2320534d05bfab/staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting/algorithm.go
   *   (k8s.io/apiextensions-apiserver `pkg/apiserver/schema/defaulting/algorithm.go`)
   */
  readonly crdDefaults: Readonly<Record<CrdKind, readonly CrdDefault[]>>;
  /** The values the NodePool CRD allows for `spec.disruption.consolidationPolicy`. */
  readonly consolidationPolicies: readonly string[];
  /**
   * The values the NodePool CRD allows in `spec.disruption.budgets[].reasons`.
   * @default DISRUPTION_REASONS - Underutilized, Empty, Drifted: the enum of every release vendored
   *   before this field (v1.13.1, v1.14.1, and the 1.15 stand-in's CRD); `npm run upgrade` writes
   *   the release's own
   */
  readonly disruptionReasons?: readonly string[];
  /** The chart's `settings.featureGates` keys, sorted. */
  readonly featureGates: readonly string[];
  /**
   * Every map under the chart's `settings` (`featureGates` and any other, such as 1.15's
   * `awsFeatureGates`): per chart key, the name the controller reads it by (`NodeClassCEL`).
   */
  readonly settingsMaps: Readonly<Record<string, Readonly<Record<string, string | null>>>>;
  /** The chart's plain `settings` keys (not its maps), sorted: a key another release added is an error on this one. */
  readonly settings: readonly string[];
  /**
   * Who validates an EC2NodeClass's `spec.kubelet`: `crd` when the CRD gives it a schema (fields,
   * types and CEL rules: the API server refuses what it does not accept, as 1.13 and 1.14 do);
   * `controller` when the CRD leaves it open (`x-kubernetes-preserve-unknown-fields`, from 1.15):
   * the API server accepts anything and the controller's own validation marks the EC2NodeClass
   * NotReady (ValidationSucceeded=False) on what it refuses.
   * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/kubeletconfiguration_validation.go
   */
  readonly kubeletValidatedBy: 'crd' | 'controller';
  /**
   * `EC2NodeClassHashVersion` of the release's controller (`v5`, `v6`): when it changes, the
   * upgraded controller re-stamps existing NodeClaims with the current hash instead of drifting them.
   * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/controllers/nodeclass/hash/controller.go
   * @default - unknown: the release was read without `pkg/apis/v1/ec2nodeclass.go`
   */
  readonly ec2NodeClassHashVersion?: string;
  /** The sha256 of each file the facts were generated from, by its path in the release. */
  readonly sources: Readonly<Record<string, string>>;
}

/** The kinds of a Karpenter release whose CRD defaults {@link ReleaseFacts.crdDefaults} holds. */
export type CrdKind = 'NodePool' | 'EC2NodeClass' | 'NodeOverlay';

/**
 * One `default:` of a CRD schema: the API server sets `value` at `path` where the field is
 * absent, or null and not nullable, in an object (or array item, or map value) that is there.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#defaulting
 */
export interface CrdDefault {
  /**
   * The field, in the notation of the facts' field paths: `.` before a property, `[]` for every
   * item of an array, `.*` for every value of a map (`spec.disruption.budgets[].nodes`).
   */
  readonly path: string;
  /** The value the schema's `default:` gives, as JSON. */
  readonly value: unknown;
}

/** How the controller parses a setting's environment variable. */
export type SettingType = 'duration' | 'boolean' | 'integer' | 'number' | 'string' | 'enum';

/** A setting value as YAML carries it. */
export type SettingValue = string | number | boolean;

/**
 * What one chart `settings.*` key does in the controller; `settings-rules.generated.ts` holds
 * one per key.
 * @see https://karpenter.sh/docs/reference/settings/
 */
export interface SettingRule {
  /** The controller environment variable the chart sets from it; null where no template read says (see `unconfirmed`). */
  readonly envVar: string | null;
  /**
   * The template wraps it in `{{- with .Values.settings.<key> }}`: a falsy
   * value (`false`, `0`, `""`) renders nothing, and the controller uses
   * `controllerDefault` instead. Null where not known (see `unconfirmed`): the value is passed as written.
   */
  readonly withGuarded: boolean | null;
  /** How the controller parses the variable; an unparsable value silently becomes the controller default. */
  readonly type: SettingType;
  /** The values an `enum` setting accepts. @default - any value of the type */
  readonly enum?: readonly string[];
  /** The smallest value the controller accepts: a Go duration (`"1m"`) or a number. @default - no minimum */
  readonly minimum?: string | number;
  /** Values must be below this; Karpenter does not check it, the setting just makes no sense at or above it. @default - no maximum */
  readonly exclusiveMaximum?: number;
  /** The chart's default, as values.yaml writes it (`null`: the chart renders nothing, the controller's default applies). */
  readonly chartDefault: SettingValue | null;
  /** The controller's own default, used when the variable is absent or does not parse. */
  readonly controllerDefault: SettingValue;
  /** The template passes the value through `tpl`: `{{ … }}` in it is evaluated by Helm. Null where not known. */
  readonly tpl: boolean | null;
  /** The first sentence of the settings docs' description (values.yaml's comment where the docs have none). */
  readonly description: string;
  /**
   * Why the variable, guard and `tpl` are not known: no template read passes the setting, so
   * values.yaml's own comment alone typed it. @default - known: the template passes it
   */
  readonly unconfirmed?: string;
}

/**
 * One map under the chart's `settings` (`featureGates`, 1.15's `awsFeatureGates`), which the
 * chart renders into one controller variable as `Name=value,…`.
 * @see https://karpenter.sh/docs/reference/settings/#feature-gates
 */
export interface SettingsMapRule {
  /** The controller variable, e.g. `AWS_FEATURE_GATES`. */
  readonly envVar: string;
  /** Per chart key: its name in the variable (`NodeClassCEL`) and the chart default. */
  readonly keys: Readonly<Record<string, SettingsMapKey>>;
}

/** One key of a settings map: its name in the variable and the chart default. */
export interface SettingsMapKey {
  /** Its name in the variable (`NodeClassCEL`); null where no template read passes it (see `unconfirmed`). */
  readonly name: string | null;
  /** The chart default (`null`: the comment's `@default` is `effectiveDefault`). */
  readonly default: SettingValue | null;
  /** The default that applies when the chart's is null. @default - `default` */
  readonly effectiveDefault?: SettingValue;
  /** Why `name` is not known. @default - known */
  readonly unconfirmed?: string;
}

/**
 * One key of the chart's values (`chart-values-keys.generated.ts` holds the tree). A leaf has
 * neither field; a map with known keys has `children`; a free-form node (a default of `{}`, a
 * list, or a Kubernetes pass-through object such as `affinity`) accepts any keys below it.
 */
export interface ChartKeyNode {
  readonly freeForm?: true;
  readonly children?: { readonly [key: string]: ChartKeyNode };
}

/** The budget reasons of a release whose facts do not list them (see ReleaseFacts.disruptionReasons). */
export const DISRUPTION_REASONS: readonly string[] = ['Underutilized', 'Empty', 'Drifted'];
