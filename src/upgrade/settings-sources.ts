/** The files of one release the settings rules are built from, and what stands in for a missing deployment template. */

/** Upstream paths of the inputs, in the order the generated file lists them. */
export const SOURCE_PATHS = {
  settingsMd: 'website/content/en/docs/reference/settings.md',
  valuesYaml: 'charts/karpenter/values.yaml',
  deploymentTemplate: 'charts/karpenter/templates/deployment.yaml',
} as const;

/** Inputs of the settings rules: the text of three files of one release. */
export interface SettingsRulesInput {
  /** `website/content/en/docs/reference/settings.md` of aws/karpenter-provider-aws. */
  readonly settingsMd: string;
  /** `charts/karpenter/values.yaml`. */
  readonly valuesYaml: string;
  /**
   * `charts/karpenter/templates/deployment.yaml`: which variable each setting becomes and
   * whether a falsy value is dropped.
   * @default - `previous` says it for the settings it knows; a new one is taken to become
   * its key in UPPER_SNAKE_CASE (if settings.md has that variable) and to be dropped when falsy
   */
  readonly deploymentTemplate?: string;
  /** The release, e.g. "1.14.1". */
  readonly karpenterVersion: string;
  /** The rules of the release now in use: where the template is missing, they say what it did. @default - none */
  readonly previous?: PreviousRules;
}

/** What the rules in use say about the template, for a release read without its deployment template. */
export interface PreviousRules {
  readonly settings: Readonly<Record<string, { readonly envVar: string; readonly withGuarded: boolean; readonly tpl: boolean }>>;
  readonly featureGates: Readonly<Record<string, string>>;
  /** Per settings map other than `featureGates`: its variable and each key's name there. @default - none known */
  readonly settingsMaps?: Readonly<Record<string, { readonly envVar: string; readonly names: Readonly<Record<string, string>> }>>;
}
