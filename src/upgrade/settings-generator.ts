/**
 * Builds the controller settings rules of one Karpenter release from the
 * release's own files: what each chart `settings.*` key becomes in the
 * controller (its environment variable), whether the chart drops it when it
 * is falsy, and how the controller parses it. Pure: text in, data or text out.
 *
 * Three sources describe a setting and each says something the others do not:
 * the settings docs (type by default value or wording, enums, minimums), the
 * chart (keys, defaults, how the template passes them on) and the controller's
 * Go code (the real parser; the docs omit every boolean default). The docs and
 * the chart are read from the release; the Go code is transcribed below as
 * {@link CONTROLLER_OPTIONS} and checked against the docs on every run. Where
 * the sources disagree, or nothing says what a setting is, the build fails
 * naming the setting rather than guess.
 * @see https://karpenter.sh/docs/reference/settings/
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/charts/karpenter/templates/deployment.yaml
 */
import { createHash } from 'node:crypto';
import { isMap, isScalar, parseDocument } from 'yaml';
import type { SettingRule, SettingsMapRule, SettingType, SettingValue } from '../release/types';
import { GO_DURATION, GO_FLOAT, GO_INTEGER, parseGoBool, parseGoDuration, parseGoFloat, parseGoInt } from '../release/go-values';

/** Everything {@link renderSettingsRules} writes. */
export interface SettingsRulesData {
  /** The Karpenter version the inputs come from, e.g. "1.14.1". */
  readonly karpenterVersion: string;
  /** The input files: upstream path and sha256 of the text read. */
  readonly sources: readonly { readonly path: string; readonly sha256: string }[];
  /** Every key under the chart's `settings` but `featureGates`, sorted. */
  readonly settings: Readonly<Record<string, SettingRule>>;
  /** Every key under `settings.featureGates`, sorted: the controller's gate name and the chart default. */
  readonly featureGates: Readonly<Record<string, { readonly gate: string; readonly default: boolean }>>;
  /**
   * Every map under the chart's `settings` (`featureGates`, and whatever other map the chart
   * has, such as 1.15's `awsFeatureGates`), found in values.yaml and the deployment template:
   * the variable the chart renders it into as `Name=value,…` and, per key, its name there and
   * the chart default.
   */
  readonly settingsMaps: Readonly<Record<string, SettingsMapRule>>;
}


/** Inputs of {@link buildSettingsRules}: the text of three files of one release. */
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
 * The controller options the chart's settings reach, transcribed from the Go
 * code of Karpenter 1.14.1 (the provider pins core at tag v1.14.1, commit
 * 6e7eab7a0f48). Every `env.WithDefault*` parser falls back to the default,
 * silently, on a value it cannot parse; bools parse with `strconv.ParseBool`.
 * Re-read these files and update the table (and `version`) on every bump.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/operator/options/options.go
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/operator/options/options_validation.go
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/providers/instancetype/types.go#L364 (VM memory overhead)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/operator/options/options.go
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/env/env.go
 */
export const CONTROLLER_OPTIONS = {
  version: '1.14.1',
  options: {
    // aws/karpenter-provider-aws pkg/operator/options
    AMI_REFRESH_INTERVAL: { goType: 'duration', default: '1m0s', minimum: '1m' },
    CLUSTER_CA_BUNDLE: { goType: 'string', default: '' },
    CLUSTER_ENDPOINT: { goType: 'string', default: '' },
    CLUSTER_NAME: { goType: 'string', default: '' },
    DISABLE_DRY_RUN: { goType: 'bool', default: 'false' },
    EKS_CONTROL_PLANE: { goType: 'bool', default: 'false' },
    ENABLE_ZONAL_SHIFT: { goType: 'bool', default: 'false' },
    INTERRUPTION_QUEUE: { goType: 'string', default: '' },
    ISOLATED_VPC: { goType: 'bool', default: 'false' },
    RESERVED_ENIS: { goType: 'int', default: '0', minimum: '0' },
    SUBNET_REFRESH_INTERVAL: { goType: 'duration', default: '1m0s', minimum: '1m' },
    // Subtracted as memory * percent, so 1 leaves an instance no memory at all.
    VM_MEMORY_OVERHEAD_PERCENT: { goType: 'float64', default: '0.075', minimum: '0', exclusiveMaximum: '1' },
    // kubernetes-sigs/karpenter pkg/operator/options
    BATCH_IDLE_DURATION: { goType: 'duration', default: '1s' },
    BATCH_MAX_DURATION: { goType: 'duration', default: '10s' },
    DISABLE_CLUSTER_STATE_OBSERVABILITY: { goType: 'bool', default: 'false' },
    IGNORE_DRA_REQUESTS: { goType: 'bool', default: 'true' },
    MIN_VALUES_POLICY: { goType: 'string', default: 'Strict', oneOf: ['Strict', 'BestEffort'] },
    PREFERENCE_POLICY: { goType: 'string', default: 'Respect', oneOf: ['Ignore', 'Respect'] },
  } satisfies Readonly<Record<string, ControllerOption>> as Readonly<Record<string, ControllerOption>>,
  /** `DefaultFeatureGates()` in core. */
  featureGates: {
    CapacityBuffer: false,
    NodeOverlay: false,
    NodeRepair: false,
    ReservedCapacity: true,
    SpotToSpotConsolidation: false,
    StaticCapacity: false,
  } as Readonly<Record<string, boolean>>,
} as const;

/** Upstream paths of the inputs, in {@link SettingsRulesData.sources} order. */
export const SOURCE_PATHS = {
  settingsMd: 'website/content/en/docs/reference/settings.md',
  valuesYaml: 'charts/karpenter/values.yaml',
  deploymentTemplate: 'charts/karpenter/templates/deployment.yaml',
} as const;

/**
 * The settings rules of one release, or an Error listing every problem, one a
 * line, each naming the file or the setting.
 */
export function buildSettingsRules(input: SettingsRulesInput, notes: string[] = []): SettingsRulesData {
  const problems: string[] = [];
  // The Go facts of another release still hold for the options that did not change; where
  // the new release's docs disagree, the docs win (noted), and new options go by the docs.
  const facts: Facts = { goFrom: CONTROLLER_OPTIONS.version, sameRelease: input.karpenterVersion === CONTROLLER_OPTIONS.version, notes };
  const docs = parseSettingsDocs(input.settingsMd, problems);
  const chart = parseChartSettings(input.valuesYaml, problems);
  const template = input.deploymentTemplate !== undefined ? parseTemplate(input.deploymentTemplate)
    : assumedTemplate(chart, docs, input.previous, notes);
  problems.push(...template.problems);
  const settings: Record<string, SettingRule> = {};
  if (docs && chart) {
    for (const key of Object.keys(chart.settings).sort(compare)) {
      const rule = settingRule(key, chart.settings[key], { docs, template, facts }, problems);
      if (rule) settings[key] = rule;
    }
    for (const key of template.bindings.keys()) {
      if (!(key in chart.settings) && !(key in chart.maps)) problems.push(`settings.${key}: the deployment template uses it but values.yaml has no such key`);
    }
  }
  const featureGates = docs && chart ? featureGateRules(chart.maps.featureGates ?? {}, docs, template, facts, problems) : {};
  const settingsMaps = docs && chart ? settingsMapRules(chart.maps, docs, template, problems) : {};
  if (problems.length > 0) throw new Error(problems.join('\n'));
  if (!facts.sameRelease) {
    const untyped = Object.values(settings).map((r) => r.envVar).filter((v) => !(v in CONTROLLER_OPTIONS.options));
    const gates = Object.values(featureGates).map((g) => g.gate).filter((g) => !(g in CONTROLLER_OPTIONS.featureGates));
    if (untyped.length + gates.length > 0) {
      notes.push(`settings.md and values.yaml alone say what ${[...untyped, ...gates].join(', ')} ${untyped.length + gates.length === 1 ? 'is' : 'are'}: `
        + `CONTROLLER_OPTIONS in src/upgrade/settings-generator.ts was read from the Go code of ${CONTROLLER_OPTIONS.version}; read v${input.karpenterVersion}'s and add ${untyped.length + gates.length === 1 ? 'it' : 'them'}`);
    }
  }
  const read = (Object.keys(SOURCE_PATHS) as (keyof typeof SOURCE_PATHS)[]).filter((k) => input[k] !== undefined);
  return {
    karpenterVersion: input.karpenterVersion,
    sources: read.map((k) => ({ path: SOURCE_PATHS[k], sha256: sha256(input[k] ?? '') })),
    settings,
    featureGates,
    settingsMaps,
  };
}

/** How far the Go facts ({@link CONTROLLER_OPTIONS}) hold for the release being read. */
interface Facts {
  /** The release the Go facts were read at. */
  readonly goFrom: string;
  /** The release read is that one: any disagreement is an error. */
  readonly sameRelease: boolean;
  /** Where a disagreement the docs won is noted. */
  readonly notes: string[];
}

/**
 * The template's bindings when the release was read without its deployment template:
 * the rules in use for the settings they know; for a new setting, its key in
 * UPPER_SNAKE_CASE when settings.md lists that variable, taken as dropped when falsy
 * (so the generator always writes it as a string that reaches the controller).
 */
function assumedTemplate(chart: ChartSettings | undefined, docs: Docs | undefined, previous: PreviousRules | undefined, notes: string[]): Template {
  const bindings = new Map<string, Binding>();
  const gates = new Map<string, string>();
  const problems: string[] = [];
  const guessed: string[] = [];
  for (const key of Object.keys(chart?.settings ?? {})) {
    const known = previous?.settings[key];
    const envVar = known?.envVar ?? upperSnake(key);
    if (!known && !docs?.rows.has(envVar)) {
      problems.push(`settings.${key}: without ${SOURCE_PATHS.deploymentTemplate}, cannot tell which controller variable it sets (${envVar} is not in settings.md): add the template to the release folder`);
      continue;
    }
    if (!known) guessed.push(`settings.${key} → ${envVar}`);
    bindings.set(key, known ?? { envVar, withGuarded: true, tpl: false });
  }
  const maps = new Map<string, MapBinding>();
  for (const [map, keys] of Object.entries(chart?.maps ?? {})) {
    const known = map === 'featureGates' ? { envVar: 'FEATURE_GATES', names: previous?.featureGates ?? {} } : previous?.settingsMaps?.[map];
    const envVar = known?.envVar ?? upperSnake(map);
    const names = new Map<string, string>();
    for (const key of Object.keys(keys)) {
      const name = known?.names[key] ?? key[0].toUpperCase() + key.slice(1);
      if (!known?.names[key]) guessed.push(`settings.${map}.${key} → ${envVar} ${name}`);
      names.set(key, name);
    }
    maps.set(map, { envVar, names });
  }
  for (const [key, name] of maps.get('featureGates')?.names ?? []) gates.set(key, name);
  notes.push(`${SOURCE_PATHS.deploymentTemplate} was not given: the settings the rules in use know keep their variables${guessed.length ? `; new ones are taken by name: ${guessed.join(', ')}` : ''}`);
  return { bindings, gates, maps, problems };
}

/** `awsFeatureGates` → `AWS_FEATURE_GATES`, as the chart names the variables of its settings. */
function upperSnake(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2').toUpperCase();
}

// ---------------------------------------------------------------- settings.md

/** One row of the docs' settings table. */
interface DocsRow {
  readonly envVar: string;
  readonly description: string;
  readonly default?: string;
}

interface Docs {
  readonly rows: ReadonlyMap<string, DocsRow>;
  /** Feature gate defaults from the FEATURE_GATES row's default. */
  readonly gateDefaults: ReadonlyMap<string, boolean>;
  /** Feature gate defaults from the "Feature Gates" table, the stage still in force. */
  readonly gateTable: ReadonlyMap<string, boolean>;
}

const TABLE_HEADER = /^\|\s*Environment Variable\s*\|\s*CLI Flag\s*\|\s*Description\s*\|\s*$/;
const TABLE_ROW = /^\|\s*([A-Z][A-Z0-9_]*)\s*\|\s*\\-\\-[a-z0-9-]+\s*\|(.*)\|\s*$/;
const DEFAULT_SUFFIX = /\s*\(default = (.*)\)\s*$/;

/**
 * The settings table of settings.md (generated upstream from the flags by
 * hack/docs/configuration_gen: "(default = …)" is the flag's DefValue, never
 * printed for an empty one nor for any `BoolVarWithEnv` flag).
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/hack/docs/configuration_gen/main.go
 */
function parseSettingsDocs(text: string, problems: string[]): Docs | undefined {
  const lines = text.split('\n');
  const header = lines.findIndex((l) => TABLE_HEADER.test(l));
  if (header < 0) {
    problems.push('settings.md: no settings table (a "| Environment Variable | CLI Flag | Description |" header)');
    return undefined;
  }
  const rows = new Map<string, DocsRow>();
  for (let i = header + 2; i < lines.length && lines[i].startsWith('|'); i++) {
    const match = TABLE_ROW.exec(lines[i]);
    if (!match) {
      problems.push(`settings.md:${i + 1}: cannot read the settings table row "${lines[i]}"`);
      continue;
    }
    const cell = match[2].trim();
    const suffix = DEFAULT_SUFFIX.exec(cell);
    rows.set(match[1], { envVar: match[1], description: suffix ? cell.slice(0, suffix.index).trim() : cell, default: suffix?.[1] });
  }
  if (rows.size === 0) problems.push('settings.md: the settings table has no rows');
  return { rows, gateDefaults: gateDefaultsOf(rows.get('FEATURE_GATES'), problems), gateTable: parseGateTable(lines) };
}

function gateDefaultsOf(row: DocsRow | undefined, problems: string[]): Map<string, boolean> {
  const gates = new Map<string, boolean>();
  for (const pair of row?.default?.split(',') ?? []) {
    const match = /^(\w+)=(true|false)$/.exec(pair.trim());
    if (match) gates.set(match[1], match[2] === 'true');
    else problems.push(`settings.md: FEATURE_GATES: cannot read "${pair}" in its default`);
  }
  return gates;
}

/** The "Feature Gates" table: per feature, the row without an "Until" version. */
function parseGateTable(lines: readonly string[]): Map<string, boolean> {
  const gates = new Map<string, boolean>();
  const header = lines.findIndex((l) => /^\|\s*Feature\s*\|\s*Default\s*\|/.test(l));
  if (header < 0) return gates;
  for (let i = header + 2; i < lines.length && lines[i].startsWith('|'); i++) {
    const [feature, byDefault, , , until] = lines[i].split('|').slice(1).map((c) => c.trim());
    if (!until && (byDefault === 'true' || byDefault === 'false')) gates.set(feature, byDefault === 'true');
  }
  return gates;
}

// ---------------------------------------------------------------- values.yaml

interface ChartSettings {
  readonly settings: Readonly<Record<string, SettingValue>>;
  /** Every map under `settings` (`featureGates` among them), by key: its keys' defaults. */
  readonly maps: Readonly<Record<string, Readonly<Record<string, SettingValue>>>>;
}

function parseChartSettings(text: string, problems: string[]): ChartSettings | undefined {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    problems.push(`values.yaml: ${doc.errors.map((e) => e.message).join('; ')}`);
    return undefined;
  }
  const node = doc.get('settings', true);
  if (!isMap(node)) {
    problems.push('values.yaml: no "settings" map');
    return undefined;
  }
  const settings: Record<string, SettingValue> = {};
  const maps: Record<string, Record<string, SettingValue>> = {};
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '?';
    // A map is a group of settings the chart renders into one variable (FEATURE_GATES, AWS_FEATURE_GATES).
    if (isMap(pair.value)) maps[key] = scalarMap(pair.value, `settings.${key}`, problems);
    else {
      const value = scalarOf(pair.value);
      if (value === undefined) problems.push(`settings.${key}: values.yaml gives no string, number or boolean default`);
      else settings[key] = value;
    }
  }
  return { settings, maps };
}

function scalarMap(node: unknown, where: string, problems: string[]): Record<string, SettingValue> {
  const out: Record<string, SettingValue> = {};
  if (!isMap(node)) {
    problems.push(`${where}: values.yaml gives no map`);
    return out;
  }
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '?';
    const value = scalarOf(pair.value);
    if (value === undefined) problems.push(`${where}.${key}: values.yaml gives no string, number or boolean default`);
    else out[key] = value;
  }
  return out;
}

function scalarOf(node: unknown): SettingValue | undefined {
  if (!isScalar(node)) return undefined;
  const v = node.value;
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) ? v : undefined;
}

// ---------------------------------------------------------------- deployment.yaml

/** How the template turns one settings key into an environment variable. */
interface Binding {
  readonly envVar: string;
  readonly withGuarded: boolean;
  readonly tpl: boolean;
}

/** How the template renders one settings map into one variable: `Name={{ .Values.settings.<map>.<key> }},…`. */
interface MapBinding {
  readonly envVar: string;
  /** Chart key → its name in the variable. */
  readonly names: ReadonlyMap<string, string>;
}

interface Template {
  readonly bindings: ReadonlyMap<string, Binding>;
  /** Chart feature-gate key → controller gate name, from the FEATURE_GATES value. */
  readonly gates: ReadonlyMap<string, string>;
  /** Every settings map the template renders, by chart key (`featureGates`, `awsFeatureGates`). */
  readonly maps: ReadonlyMap<string, MapBinding>;
  readonly problems: readonly string[];
}

/** `Name={{ .Values.settings.<map>.<key> }}` in an env value. */
const MAP_ENTRY = /(\w+)=\{\{\s*\.Values\.settings\.(\w+)\.(\w+)\s*\}\}/g;

const ACTION = /\{\{-?\s*(with|if|range|end)\b\s*(.*?)\s*-?\}\}/g;
const SETTING_REF = /\.Values\.settings\.(\w+)/;

/**
 * Reads the container `env` entries of the deployment template: a
 * `- name: X` line and the `value:` line right after it, with the stack of
 * `with`/`if`/`range` blocks open at that point.
 */
function parseTemplate(text: string): Template {
  const lines = text.split('\n');
  const bindings = new Map<string, Binding>();
  const gates = new Map<string, string>();
  const maps = new Map<string, { envVar: string; names: Map<string, string> }>();
  const problems: string[] = [];
  const blocks: string[] = [];
  lines.forEach((line, i) => {
    const name = /^\s*- name: ([A-Z][A-Z0-9_]*)\s*$/.exec(line);
    const value = name ? /^\s*value:\s*(.*)$/.exec(lines[i + 1] ?? '') : null;
    if (name && value) {
      const entries = [...value[1].matchAll(MAP_ENTRY)];
      if (entries.length > 0) {
        for (const [, entry, map, key] of entries) {
          const binding = maps.get(map) ?? { envVar: name[1], names: new Map<string, string>() };
          if (binding.envVar !== name[1]) problems.push(`deployment.yaml:${i + 1}: settings.${map} is rendered into two variables, ${binding.envVar} and ${name[1]}`);
          binding.names.set(key, entry);
          maps.set(map, binding);
          if (map === 'featureGates') gates.set(key, entry);
        }
      } else {
        const key = settingOf(value[1], blocks);
        if (key !== undefined) {
          if (bindings.has(key)) problems.push(`deployment.yaml:${i + 1}: settings.${key} sets a second variable, ${name[1]}`);
          const withGuarded = blocks.some((b) => b === `with .Values.settings.${key}` || b === `if .Values.settings.${key}`);
          bindings.set(key, { envVar: name[1], withGuarded, tpl: /\btpl\b/.test(value[1]) });
        }
      }
    }
    for (const action of line.matchAll(ACTION)) {
      if (action[1] === 'end') blocks.pop();
      else blocks.push(`${action[1]} ${action[2]}`);
    }
  });
  return { bindings, gates, maps, problems };
}

/** The settings key a `value:` line renders: named in it, or `.` inside `with .Values.settings.<key>`. */
function settingOf(value: string, blocks: readonly string[]): string | undefined {
  const direct = SETTING_REF.exec(value);
  if (direct) return direct[1];
  const usesDot = /\{\{[^}]*(?:\s|\()\.(?:\s|\))[^}]*\}\}/.test(value);
  const innerWith = [...blocks].reverse().find((b) => b.startsWith('with '));
  const fromWith = innerWith && /^with \.Values\.settings\.(\w+)$/.exec(innerWith);
  return usesDot && fromWith ? fromWith[1] : undefined;
}

// ---------------------------------------------------------------- one setting

const GO_TYPES: Readonly<Record<ControllerOption['goType'], SettingType>> = {
  string: 'string', bool: 'boolean', int: 'integer', float64: 'number', duration: 'duration',
};

/** One source's view of a setting's type: the types it allows, and why. */
interface Evidence {
  readonly types: readonly SettingType[];
  readonly because: string;
}

function settingRule(key: string, chartDefault: SettingValue, { docs, template, facts }: { readonly docs: Docs; readonly template: Template; readonly facts: Facts }, problems: string[]): SettingRule | undefined {
  const at = `settings.${key}`;
  const binding = template.bindings.get(key);
  if (!binding) {
    problems.push(`${at}: the deployment template does not pass it to the controller`);
    return undefined;
  }
  const row = docs.rows.get(binding.envVar);
  if (!row) {
    problems.push(`${at}: ${binding.envVar} is not in the settings.md table`);
    return undefined;
  }
  let go = CONTROLLER_OPTIONS.options[binding.envVar] as ControllerOption | undefined;
  const docsEnum = enumOf(row.description);
  const before = problems.length;
  const docsType = docsEvidence(row, docsEnum);
  if (go && !facts.sameRelease && docsType && !docsType.types.some((t) => goEvidence(go)?.types.includes(t))) {
    facts.notes.push(`${at}: ${docsType.because}, CONTROLLER_OPTIONS (read at ${facts.goFrom}) says a ${go.goType}: took settings.md's; check the Go code`);
    go = undefined;
  }
  const type = settingType(at, [docsType, chartEvidence(chartDefault), goEvidence(go)], problems);
  if (type === undefined) return undefined;
  const enumValues = agree(at, 'value list', { docs: docsEnum, go: go?.oneOf }, facts, problems);
  const minimum = agree(at, 'minimum', { docs: minimumOf(row.description), go: go?.minimum }, facts, problems);
  const defaultText = agree(at, 'controller default', { docs: row.default, go: go?.default }, facts, problems) ?? impliedDefault(at, type, problems);
  if (type === 'enum' && !enumValues) problems.push(`${at}: an enum setting with no values`);
  if (problems.length > before || defaultText === undefined) return undefined;

  const check = (what: string, text: string): void => {
    const wrong = invalid(type, text, enumValues, { minimum, exclusiveMaximum: go?.exclusiveMaximum });
    if (wrong) problems.push(`${at}: ${what} ${JSON.stringify(text)} ${wrong}`);
  };
  // An empty chart default of a with-guarded setting just means "not set".
  if (!(binding.withGuarded && chartDefault === '')) check('the chart default', String(chartDefault));
  check('the controller default', defaultText);
  return {
    envVar: binding.envVar,
    withGuarded: binding.withGuarded,
    type,
    ...(enumValues && { enum: enumValues }),
    ...(minimum !== undefined && { minimum: type === 'integer' || type === 'number' ? Number(minimum) : minimum }),
    ...(go?.exclusiveMaximum !== undefined && { exclusiveMaximum: Number(go.exclusiveMaximum) }),
    chartDefault,
    controllerDefault: typed(type, defaultText),
    tpl: binding.tpl,
    description: firstSentence(row.description),
  };
}

function docsEvidence(row: DocsRow, enumValues: readonly string[] | undefined): Evidence | undefined {
  const because = `settings.md ${row.default !== undefined ? `says "(default = ${row.default})"` : 'wording'}`;
  if (enumValues) return { types: ['enum'], because: `settings.md lists values ${enumValues.join(', ')}` };
  if (row.default !== undefined) return { types: typesOfLiteral(row.default), because };
  if (/^If true\b|\bMarking this true\b/.test(row.description)) return { types: ['boolean'], because: 'settings.md says "if true"' };
  return undefined;
}

function chartEvidence(value: SettingValue): Evidence | undefined {
  const because = `values.yaml default ${JSON.stringify(value)}`;
  if (typeof value === 'boolean') return { types: ['boolean'], because };
  if (typeof value === 'number') return { types: Number.isInteger(value) ? ['integer', 'number'] : ['number'], because };
  // A YAML string says little: the chart quotes durations, numbers ("0") and enums alike.
  return undefined;
}

function goEvidence(go: ControllerOption | undefined): Evidence | undefined {
  if (!go) return undefined;
  const because = `the Go code parses a ${go.goType}`;
  if (go.oneOf) return { types: ['enum'], because };
  return { types: go.goType === 'string' ? ['string', 'enum'] : [GO_TYPES[go.goType]], because };
}

/** The types a docs default literal can be. */
function typesOfLiteral(text: string): SettingType[] {
  if (text === 'true' || text === 'false') return ['boolean'];
  if (GO_INTEGER.test(text)) return ['integer', 'number'];
  if (GO_FLOAT.test(text)) return ['number'];
  if (GO_DURATION.test(text)) return ['duration'];
  return ['string'];
}

/** The one type every source allows, or a problem. */
function settingType(at: string, evidence: readonly (Evidence | undefined)[], problems: string[]): SettingType | undefined {
  const known = evidence.filter((e): e is Evidence => e !== undefined);
  if (known.length === 0) {
    problems.push(`${at}: cannot tell its type: settings.md gives no default or wording, values.yaml a string, and CONTROLLER_OPTIONS has no entry (read the Go code and add one)`);
    return undefined;
  }
  let types = known[0].types;
  for (const e of known.slice(1)) types = types.filter((t) => e.types.includes(t));
  const why = known.map((e) => e.because).join(', ');
  // Only the Go code's "string" is left open: no enum values anywhere makes it a plain string.
  const plainString = types.length === 2 && types.includes('string') && types.includes('enum');
  if (types.length === 1 || plainString) return types[0];
  problems.push(types.length === 0
    ? `${at}: the sources disagree on its type: ${why}`
    : `${at}: cannot tell ${types.join(' from ')}: ${why} (read the Go code and add a CONTROLLER_OPTIONS entry)`);
  return undefined;
}

/** The values of "Can be one of 'a', 'b'" or "Options include 'a' … or 'b'". */
function enumOf(description: string): readonly string[] | undefined {
  const sentence = /(?:Can be one of|Options include)[^.]*/.exec(description)?.[0];
  const values = sentence ? [...sentence.matchAll(/'([A-Za-z][\w-]*)'/g)].map((m) => m[1]) : [];
  return values.length > 0 ? values : undefined;
}

function minimumOf(description: string): string | undefined {
  return /Must be at least (\S+?)\.(?:\s|$)/.exec(description)?.[1];
}

/** The value two sources give, or a problem when both give one and they differ. */
function agree<T extends string | readonly string[]>(at: string, what: string, { docs, go }: { readonly docs?: T; readonly go?: T }, facts: Facts, problems: string[]): T | undefined {
  if (docs !== undefined && go !== undefined && String(docs) !== String(go)) {
    if (facts.sameRelease) problems.push(`${at}: settings.md says the ${what} is ${String(docs)}, CONTROLLER_OPTIONS (the Go code) says ${String(go)}: re-read the Go code`);
    else facts.notes.push(`${at}: settings.md says the ${what} is ${String(docs)}, CONTROLLER_OPTIONS (read at ${facts.goFrom}) says ${String(go)}: took settings.md's; check the Go code`);
  }
  return docs ?? go;
}

/**
 * The default the docs leave out: they print none for an empty string, so
 * that is what a missing one means, but they print none for any boolean either.
 */
function impliedDefault(at: string, type: SettingType, problems: string[]): string | undefined {
  if (type === 'string' || type === 'enum') return '';
  problems.push(`${at}: cannot tell the controller default: settings.md prints none (it never does for a boolean) and CONTROLLER_OPTIONS has no entry; read the Go code and add one`);
  return undefined;
}

/** The bounds a value must keep, as Go text. */
interface Limits {
  readonly minimum?: string;
  readonly exclusiveMaximum?: string;
}

/** Why the controller would not take `text` (a reason starting lowercase), or undefined when it would. */
function invalid(type: SettingType, text: string, enumValues: readonly string[] | undefined, limits: Limits): string | undefined {
  switch (type) {
    case 'boolean':
      return parseGoBool(text) !== undefined ? undefined : 'is not a Go boolean';
    case 'integer':
      return typeof parseGoInt(text) === 'bigint' ? outOfLimits(Number(text), limits, Number) : 'is not an integer';
    case 'number':
      return typeof parseGoFloat(text) === 'number' ? outOfLimits(Number(parseGoFloat(text)), limits, (t) => Number(parseGoFloat(t))) : 'is not a number';
    case 'duration':
      return typeof parseGoDuration(text) === 'bigint' ? outOfLimits(durationSeconds(text), limits, durationSeconds) : 'is not a Go duration';
    case 'enum':
      return enumValues?.includes(text) ? undefined : `is not one of ${enumValues?.join(', ')}`;
    case 'string':
      return undefined;
  }
}

function outOfLimits(value: number, limits: Limits, parse: (text: string) => number): string | undefined {
  if (limits.minimum !== undefined && value < parse(limits.minimum)) return `is below the minimum ${limits.minimum}`;
  if (limits.exclusiveMaximum !== undefined && value >= parse(limits.exclusiveMaximum)) return `is not below ${limits.exclusiveMaximum}`;
  return undefined;
}

/** A Go duration in seconds (the text parses: {@link parseGoDuration}). */
function durationSeconds(text: string): number {
  return Number(parseGoDuration(text)) / 1e9;
}

/** A default or minimum as the rule stores it: booleans and numbers as such, the rest as text. */
function typed(type: SettingType, text: string): SettingValue {
  if (type === 'boolean') return parseGoBool(text) === true;
  if (type === 'integer' || type === 'number') return Number(text);
  return text;
}

function firstSentence(text: string): string {
  return /^(.*?[.!?])(?=\s|$)/.exec(text)?.[1] ?? text.trim();
}

// ---------------------------------------------------------------- feature gates

function featureGateRules(chart: Readonly<Record<string, SettingValue>>, docs: Docs, template: Template, facts: Facts, problems: string[]): SettingsRulesData['featureGates'] {
  const out: Record<string, { gate: string; default: boolean }> = {};
  for (const key of Object.keys(chart).sort(compare)) {
    const at = `settings.featureGates.${key}`;
    const value = chart[key];
    const gate = template.gates.get(key);
    if (typeof value !== 'boolean') problems.push(`${at}: the chart default ${JSON.stringify(value)} is not a boolean`);
    if (gate === undefined) problems.push(`${at}: the deployment template does not pass it in FEATURE_GATES`);
    if (typeof value !== 'boolean' || gate === undefined) continue;
    const sources: [string, boolean | undefined][] = [
      ['the FEATURE_GATES default in settings.md', docs.gateDefaults.get(gate)],
      ['the settings.md Feature Gates table', docs.gateTable.get(gate)],
      [`CONTROLLER_OPTIONS (the Go code${facts.sameRelease ? '' : ` of ${facts.goFrom}`})`, CONTROLLER_OPTIONS.featureGates[gate]],
    ];
    if (sources.every(([, d]) => d === undefined)) problems.push(`${at}: ${gate} is neither in settings.md nor in CONTROLLER_OPTIONS.featureGates`);
    for (const [i, [where, d]] of sources.entries()) {
      if (d === undefined || d === value) continue;
      const message = `${at}: the chart default ${value} differs from ${where} (${gate}=${d})`;
      // Go facts of another release are only a note: gates graduate between releases.
      if (i === 2 && !facts.sameRelease) facts.notes.push(message);
      else problems.push(message);
    }
    out[key] = { gate, default: value };
  }
  for (const [key, gate] of template.gates) {
    if (!(key in chart)) problems.push(`settings.featureGates.${key}: FEATURE_GATES passes it as ${gate} but values.yaml has no such key`);
  }
  return out;
}

/**
 * Every map under the chart's `settings`, whatever its name: the template must render each of its
 * keys into one variable as `Name=value`, settings.md must list that variable, and where its
 * default (`(default = A=false,B=true)`) names a key it must agree with the chart.
 */
function settingsMapRules(chart: ChartSettings['maps'], docs: Docs, template: Template, problems: string[]): SettingsRulesData['settingsMaps'] {
  const out: Record<string, SettingsMapRule> = {};
  for (const map of Object.keys(chart).sort(compare)) {
    const binding = template.maps.get(map);
    if (!binding) {
      problems.push(`settings.${map}: the deployment template does not render it into any variable (as Name={{ .Values.settings.${map}.<key> }})`);
      continue;
    }
    const row = docs.rows.get(binding.envVar);
    if (!row) problems.push(`settings.${map}: ${binding.envVar} is not in the settings.md table`);
    const documented = new Map((row?.default ?? '').split(',').filter((p) => p.includes('=')).map((p) => p.trim().split('=') as [string, string]));
    const keys: Record<string, { name: string; default: SettingValue }> = {};
    for (const key of Object.keys(chart[map]).sort(compare)) {
      const name = binding.names.get(key);
      const value = chart[map][key];
      if (name === undefined) {
        problems.push(`settings.${map}.${key}: the deployment template does not pass it in ${binding.envVar}`);
        continue;
      }
      const said = documented.get(name);
      if (said !== undefined && said !== String(value)) problems.push(`settings.${map}.${key}: the chart default ${JSON.stringify(value)} differs from the ${binding.envVar} default in settings.md (${name}=${said})`);
      keys[key] = { name, default: value };
    }
    for (const [key, name] of binding.names) {
      if (!(key in chart[map])) problems.push(`settings.${map}.${key}: ${binding.envVar} passes it as ${name} but values.yaml has no such key`);
    }
    out[map] = { envVar: binding.envVar, keys };
  }
  for (const [map, binding] of template.maps) {
    if (!(map in chart)) problems.push(`settings.${map}: ${binding.envVar} renders it but values.yaml has no such map`);
  }
  return out;
}

// ---------------------------------------------------------------- output

/**
 * The text of `src/release/settings-rules.generated.ts` for `data`: a generated,
 * self-contained module exporting `SETTINGS_RULES` and the feature gates.
 */
export function renderSettingsRules(data: SettingsRulesData): string {
  const settings = Object.entries(data.settings).map(([key, rule]) => renderRule(key, rule)).join('\n');
  const gateDefaults = Object.entries(data.featureGates).map(([key, g]) => `  ${key}: ${g.default},`).join('\n');
  const gateNames = Object.entries(data.featureGates).map(([key, g]) => `  ${key}: ${quote(g.gate)},`).join('\n');
  const settingsMaps = Object.entries(data.settingsMaps).map(([map, rule]) => [
    `  ${map}: {`,
    `    envVar: ${quote(rule.envVar)},`,
    '    keys: {',
    ...Object.entries(rule.keys).map(([key, k]) => `      ${key}: { name: ${quote(k.name)}, default: ${literal(k.default)} },`),
    '    },',
    '  },',
  ].join('\n')).join('\n');
  const v = data.karpenterVersion;
  return `// GENERATED FILE - DO NOT EDIT BY HAND.
//
// The controller settings of the Karpenter ${v} Helm chart (\`settings.*\`), and
// what the chart and the controller do with each. Generated by \`npm run upgrade\`
// (src/upgrade/settings-generator.ts) from these files of aws/karpenter-provider-aws at v${v}:
${data.sources.map((s) => `//   ${s.path} (sha256 ${s.sha256})`).join('\n')}
// checked against the controller's Go options (CONTROLLER_OPTIONS in
// src/upgrade/settings-generator.ts, read at v${CONTROLLER_OPTIONS.version}).
//
// To regenerate when bumping the Karpenter version: npm run upgrade -- X.Y.Z
// (README, "Upgrading Karpenter"), then review the diff and the notes it prints.

/** The Karpenter version these rules describe. */
export const SETTINGS_RULES_VERSION = ${quote(v)};

import type { SettingRule, SettingsMapRule } from './types';

/**
 * Every key under the chart's \`settings\` but its maps, by chart key.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v${v}/charts/karpenter/templates/deployment.yaml
 */
export const SETTINGS_RULES = {
${settings}
} as const satisfies Readonly<Record<string, SettingRule>>;

/** A chart key under \`settings\` (but its maps). */
export type SettingKey = keyof typeof SETTINGS_RULES;

/**
 * Every key under the chart's \`settings.featureGates\`, with the chart's
 * default. The chart always renders all of them into FEATURE_GATES.
 * @see https://karpenter.sh/docs/reference/settings/#feature-gates
 */
export const FEATURE_GATE_DEFAULTS = {
${gateDefaults}
} as const satisfies Readonly<Record<string, boolean>>;

/** The controller's name of each feature gate, as FEATURE_GATES spells it. */
export const FEATURE_GATE_NAMES = {
${gateNames}
} as const satisfies Readonly<Record<keyof typeof FEATURE_GATE_DEFAULTS, string>>;

/**
 * Every map under the chart's \`settings\` (\`featureGates\` among them): the variable the chart
 * renders it into as \`Name=value,…\`, and each key's name there and chart default.
 */
export const SETTINGS_MAPS = {
${settingsMaps}
} as const satisfies Readonly<Record<string, SettingsMapRule>>;
`;
}

function renderRule(key: string, rule: SettingRule): string {
  const fields: [string, string | undefined][] = [
    ['envVar', quote(rule.envVar)],
    ['withGuarded', String(rule.withGuarded)],
    ['type', quote(rule.type)],
    ['enum', rule.enum && `[${rule.enum.map(quote).join(', ')}]`],
    ['minimum', rule.minimum === undefined ? undefined : literal(rule.minimum)],
    ['exclusiveMaximum', rule.exclusiveMaximum === undefined ? undefined : literal(rule.exclusiveMaximum)],
    ['chartDefault', literal(rule.chartDefault)],
    ['controllerDefault', literal(rule.controllerDefault)],
    ['tpl', String(rule.tpl)],
    ['description', quote(rule.description)],
  ];
  const body = fields.filter(([, v]) => v !== undefined).map(([k, v]) => `    ${k}: ${v},`).join('\n');
  return `  ${key}: {\n${body}\n  },`;
}

function literal(value: SettingValue): string {
  return typeof value === 'string' ? quote(value) : String(value);
}

/** A single-quoted TypeScript string literal. */
function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
