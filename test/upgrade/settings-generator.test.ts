import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHART_VALUES_KEYS } from '../../src/release/chart-values-keys.generated';
import { FEATURE_GATE_DEFAULTS, FEATURE_GATE_NAMES, SETTINGS_RULES, SETTINGS_RULES_VERSION } from '../../src/release/settings-rules.generated';
import type { SettingRule } from '../../src/release/types';
import { CONTROLLER_OPTIONS } from '../../src/upgrade/controller-options';
import { buildSettingsRules, renderSettingsRules } from '../../src/upgrade/settings-generator';
import { previousRules } from '../../src/upgrade/settings-changes';
import { SettingsRulesInput, SOURCE_PATHS } from '../../src/upgrade/settings-sources';
import type { SettingValue } from '../../src/release/types';
import { containerEnv, findManifest, helmTemplate } from '../support/helm';

const REPO = join(__dirname, '../..');
const RELEASE = join(REPO, 'test/fixtures/karpenter-release');

/** The three files of the vendored release (the one in use, 1.14.1 when these tests were written). */
function release(overrides: Partial<SettingsRulesInput> = {}): SettingsRulesInput {
  const read = (path: string): string => readFileSync(join(RELEASE, path), 'utf8');
  return {
    settingsMd: read(SOURCE_PATHS.settingsMd),
    valuesYaml: read(SOURCE_PATHS.valuesYaml),
    deploymentTemplate: read(SOURCE_PATHS.deploymentTemplate),
    karpenterVersion: SETTINGS_RULES_VERSION,
    ...overrides,
  };
}

/** A new chart setting: a values.yaml key, a `with`-guarded env block, and (unless `docs` is null) a settings.md row. */
interface NewSetting {
  readonly key: string;
  readonly envVar: string;
  readonly chartDefault: SettingValue;
  /** The settings.md description cell; null leaves settings.md alone. */
  readonly docs: string | null;
  /** Leave the deployment template alone. @default false */
  readonly notInTemplate?: boolean;
}

function withSetting(input: SettingsRulesInput, s: NewSetting): SettingsRulesInput {
  const flag = s.envVar.toLowerCase().replace(/_/g, '-');
  const block = [
    `          {{- with .Values.settings.${s.key} }}`,
    `            - name: ${s.envVar}`,
    '              value: "{{ tpl (toString .) $ }}"',
    '          {{- end }}',
    '',
  ].join('\n');
  return {
    ...input,
    valuesYaml: input.valuesYaml.replace('\nsettings:\n', `\nsettings:\n  ${s.key}: ${JSON.stringify(s.chartDefault)}\n`),
    deploymentTemplate: s.notInTemplate ? input.deploymentTemplate : (input.deploymentTemplate ?? '').replace('          {{- with .Values.controller.env }}\n', `${block}          {{- with .Values.controller.env }}\n`),
    settingsMd: s.docs === null ? input.settingsMd : input.settingsMd.replace('|--|--|--|\n', `|--|--|--|\n| ${s.envVar} | \\-\\-${flag} | ${s.docs}|\n`),
  };
}

/** A release CONTROLLER_OPTIONS was not read at. */
const OTHER_RELEASE = '99.0.0';

function problemsOf(input: SettingsRulesInput): string {
  try {
    buildSettingsRules(input);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected buildSettingsRules to fail');
}

/** A new map under settings, rendered into one variable as Name=value (as 1.15's awsFeatureGates into AWS_FEATURE_GATES). */
function withMap(input: SettingsRulesInput, { template = true, docsDefault = 'Burst=5' }: { template?: boolean; docsDefault?: string } = {}): SettingsRulesInput {
  return {
    ...input,
    valuesYaml: input.valuesYaml.replace('\nsettings:\n', '\nsettings:\n  # -- Rate limits of the controller.\n  rateLimits:\n    burst: 5\n    slowStart: true\n'),
    deploymentTemplate: template ? (input.deploymentTemplate ?? '').replace('          {{- with .Values.controller.env }}\n',
      '            - name: RATE_LIMITS\n              value: "Burst={{ .Values.settings.rateLimits.burst }},SlowStart={{ .Values.settings.rateLimits.slowStart }}"\n          {{- with .Values.controller.env }}\n') : input.deploymentTemplate,
    settingsMd: input.settingsMd.replace('|--|--|--|\n', `|--|--|--|\n| RATE_LIMITS | \\-\\-rate-limits | Rate limits. (default = ${docsDefault})|\n`),
  };
}

describe('buildSettingsRules: maps under settings, whatever their name', () => {
  it('takes a map the chart adds (values.yaml, the template\'s Name={{ … }} entries, the settings.md row), gates or not', () => {
    const rules = buildSettingsRules(withMap(release({ karpenterVersion: OTHER_RELEASE })));
    expect(rules.settingsMaps.rateLimits).toEqual({ envVar: 'RATE_LIMITS', keys: { burst: { name: 'Burst', default: 5 }, slowStart: { name: 'SlowStart', default: true } } });
    expect(rules.settingsMaps.featureGates.envVar).toBe('FEATURE_GATES');
    expect(rules.settings).not.toHaveProperty('rateLimits');
    expect(renderSettingsRules(rules)).toMatch(/ {2}rateLimits: \{\n {4}envVar: 'RATE_LIMITS',\n {4}keys: \{\n {6}burst: \{ name: 'Burst', default: 5 \},/);
  });

  it('fails when the template does not render the map into a variable', () => {
    expect(problemsOf(withMap(release(), { template: false }))).toMatch(/^settings\.rateLimits: the deployment template does not render it into any variable/m);
  });

  it('fails when settings.md gives another default than the chart', () => {
    expect(problemsOf(withMap(release(), { docsDefault: 'Burst=10' }))).toMatch(/^settings\.rateLimits\.burst: the chart default 5 differs from the RATE_LIMITS default in settings\.md \(Burst=10\)$/m);
  });
});

describe('buildSettingsRules', () => {
  it('reproduces the committed src/release/settings-rules.generated.ts from the vendored release', () => {
    const committed = readFileSync(join(REPO, 'src/release/settings-rules.generated.ts'), 'utf8');
    expect(renderSettingsRules(buildSettingsRules(release()))).toBe(committed);
  });

  it('types reservedENIs as an integer although values.yaml quotes its default', () => {
    expect(SETTINGS_RULES.reservedENIs).toMatchObject({ type: 'integer', chartDefault: '0', controllerDefault: 0, minimum: 0 });
  });

  it('takes boolean defaults from the Go code: settings.md prints none, and ignoreDRARequests defaults to true', () => {
    expect(SETTINGS_RULES.ignoreDRARequests).toMatchObject({ type: 'boolean', controllerDefault: true, withGuarded: true });
  });

  it('fails when settings.md has no settings table', () => {
    expect(problemsOf(release({ settingsMd: '# Settings\n\nNothing here.\n' }))).toMatch(/^settings\.md: no settings table/m);
  });

  it('fails when no source says what type a setting is', () => {
    const input = withSetting(release(), { key: 'fooBar', envVar: 'FOO_BAR', chartDefault: '', docs: 'Something about foo.' });
    expect(problemsOf(input)).toMatch(/^settings\.fooBar: cannot tell its type/m);
  });

  it('fails when the sources disagree on a type', () => {
    const input = withSetting(release(), { key: 'fooBar', envVar: 'FOO_BAR', chartDefault: true, docs: 'How long foo waits. (default = 10s)' });
    expect(problemsOf(input)).toMatch(/^settings\.fooBar: the sources disagree on its type: settings\.md says "\(default = 10s\)", values\.yaml default true$/m);
  });

  it('fails when a number could be an integer or a float', () => {
    const input = withSetting(release(), { key: 'fooCount', envVar: 'FOO_COUNT', chartDefault: 3, docs: 'How many foos. (default = 3)' });
    expect(problemsOf(input)).toMatch(/^settings\.fooCount: cannot tell integer from number/m);
  });

  it('fails when a boolean has no known controller default', () => {
    const input = withSetting(release(), { key: 'fooEnabled', envVar: 'FOO_ENABLED', chartDefault: false, docs: 'If true, then foo.' });
    expect(problemsOf(input)).toMatch(/^settings\.fooEnabled: cannot tell the controller default/m);
  });

  it('fails when settings.md and the Go code of the same release disagree on a default', () => {
    const input = release({ karpenterVersion: CONTROLLER_OPTIONS.version });
    const settingsMd = input.settingsMd.replace('fewer but larger nodes. (default = 10s)', 'fewer but larger nodes. (default = 20s)');
    expect(problemsOf({ ...input, settingsMd })).toMatch(/^settings\.batchMaxDuration: settings\.md says the controller default is 20s, CONTROLLER_OPTIONS \(the Go code\) says 10s/m);
  });

  it('fails when the chart default breaks the minimum', () => {
    const input = release();
    const valuesYaml = input.valuesYaml.replace('amiRefreshInterval: 1m', 'amiRefreshInterval: 30s');
    expect(problemsOf({ ...input, valuesYaml })).toMatch(/^settings\.amiRefreshInterval: the chart default "30s" is below the minimum 1m$/m);
  });

  it('fails when the template does not pass a setting on, or it is not documented', () => {
    const input = withSetting(release(), { key: 'fooBar', envVar: 'FOO_BAR', chartDefault: 'x', docs: null, notInTemplate: true });
    expect(problemsOf(input)).toMatch(/^settings\.fooBar: the deployment template does not pass it to the controller, and values\.yaml has no comment saying what it is$/m);
    const undocumented = withSetting(release(), { key: 'fooBar', envVar: 'FOO_BAR', chartDefault: 'x', docs: null });
    expect(problemsOf(undocumented)).toMatch(/^settings\.fooBar: FOO_BAR is not in the settings\.md table$/m);
  });

  it('fails when a feature gate default differs between the chart and the docs', () => {
    const input = release({ karpenterVersion: CONTROLLER_OPTIONS.version });
    const valuesYaml = input.valuesYaml.replace('reservedCapacity: true', 'reservedCapacity: false');
    const problems = problemsOf({ ...input, valuesYaml });
    expect(problems).toMatch(/^settings\.featureGates\.reservedCapacity: the chart default false differs from the FEATURE_GATES default in settings\.md \(ReservedCapacity=true\)$/m);
    expect(problems).toMatch(/^settings\.featureGates\.reservedCapacity: the chart default false differs from CONTROLLER_OPTIONS \(the Go code\) \(ReservedCapacity=true\)$/m);
  });

  it('reads another release by its docs where the Go facts disagree, and notes it', () => {
    const input = release({ karpenterVersion: OTHER_RELEASE });
    const settingsMd = input.settingsMd.replace('fewer but larger nodes. (default = 10s)', 'fewer but larger nodes. (default = 20s)');
    const notes: string[] = [];
    const data = buildSettingsRules({ ...input, settingsMd }, notes);
    expect(data.settings.batchMaxDuration).toMatchObject({ controllerDefault: '20s' });
    expect(notes).toContainEqual(expect.stringMatching(/^settings\.batchMaxDuration: settings\.md says the controller default is 20s, CONTROLLER_OPTIONS \(read at [\d.]+\) says 10s: took settings\.md's/));
  });

  it('names the new settings of another release that only the docs describe', () => {
    const input = withSetting(release({ karpenterVersion: OTHER_RELEASE }), { key: 'fooBar', envVar: 'FOO_BAR', chartDefault: '5m', docs: 'How long to foo. (default = 5m)' });
    const notes: string[] = [];
    expect(buildSettingsRules(input, notes).settings.fooBar).toMatchObject({ type: 'duration', envVar: 'FOO_BAR', withGuarded: true });
    expect(notes).toContainEqual(expect.stringMatching(/^settings\.md and values\.yaml alone say what FOO_BAR is: CONTROLLER_OPTIONS .* read v99\.0\.0's and add it$/));
  });

  it('without the deployment template, keeps the variables of the rules in use and takes a new setting by name', () => {
    const previous = previousRules();
    const withTemplate = buildSettingsRules(release());
    const notes: string[] = [];
    const without = buildSettingsRules({ ...release(), deploymentTemplate: undefined, previous }, notes);
    expect(without.settings).toEqual(withTemplate.settings);
    expect(without.featureGates).toEqual(withTemplate.featureGates);
    const added = withSetting(release(), { key: 'fooBar', envVar: 'FOO_BAR', chartDefault: '5m', docs: 'How long to foo. (default = 5m)' });
    const guessed = buildSettingsRules({ ...added, deploymentTemplate: undefined, previous }, notes);
    expect(guessed.settings.fooBar).toMatchObject({ envVar: 'FOO_BAR', withGuarded: true, tpl: false });
    expect(notes).toContainEqual(expect.stringMatching(/was not given: .* new ones are taken by name: settings\.fooBar → FOO_BAR$/));
  });

  it('fails without the deployment template when a new setting\'s variable is not in the docs', () => {
    const added = withSetting(release(), { key: 'fooBar', envVar: 'FOO_BAZ', chartDefault: '5m', docs: 'How long to foo. (default = 5m)' });
    expect(problemsOf({ ...added, deploymentTemplate: undefined, previous: { settings: {}, featureGates: {} } }))
      .toMatch(/^settings\.fooBar: without charts\/karpenter\/templates\/deployment\.yaml, cannot tell which controller variable it sets \(FOO_BAR is not in settings\.md\)/m);
  });
});

/** The helm base values: the chart requires a cluster name. */
const BASE = { clusterName: 'demo' };
/** The rules a template read confirms (a rule typed from values.yaml alone has no variable to render). */
const RULES = (Object.entries(SETTINGS_RULES) as [string, SettingRule][]).flatMap(([key, rule]) => (rule.envVar !== null ? [[key, { ...rule, envVar: rule.envVar }] as const] : []));

/** The controller env of the chart rendered with these `settings`, by name. */
function renderedEnv(settings: Record<string, unknown>): Map<string, string | undefined> {
  const deployment = findManifest(helmTemplate({ settings: { ...BASE, ...settings } }), 'Deployment', 'karpenter');
  return new Map(containerEnv(deployment).map((e) => [e.name, e.value]));
}

/**
 * A valid value other than the defaults, and the env value it must become.
 * A boolean whose default is true can only differ as `false`, which the chart
 * drops; the string "false" is what reaches the controller.
 */
function nonDefault(key: string, rule: SettingRule): { value: SettingValue; env: string } {
  switch (rule.type) {
    case 'boolean':
      return rule.chartDefault === true ? { value: 'false', env: 'false' } : { value: true, env: 'true' };
    case 'integer':
      return { value: Number(rule.chartDefault) + 2, env: String(Number(rule.chartDefault) + 2) };
    case 'number':
      return { value: 0.25, env: '0.25' };
    case 'duration':
      return { value: '7m30s', env: '7m30s' };
    case 'enum': {
      const other = (rule.enum ?? []).find((v) => v !== rule.chartDefault && v !== rule.controllerDefault);
      if (other === undefined) throw new Error(`${key}: no other enum value`);
      return { value: other, env: other };
    }
    case 'string':
      return { value: `non-default-${key}`, env: `non-default-${key}` };
  }
}

/** The falsy value of a rule's type, as a YAML value. */
function falsy(rule: SettingRule): SettingValue {
  if (rule.type === 'boolean') return false;
  if (rule.type === 'integer' || rule.type === 'number') return 0;
  return '';
}

describe('the generated rules against the real chart (helm template)', () => {
  it('covers every settings key and feature gate the chart key tree knows', () => {
    const settings = CHART_VALUES_KEYS.children?.settings?.children ?? {};
    expect(Object.keys(SETTINGS_RULES).sort()).toEqual(Object.keys(settings).filter((k) => k !== 'featureGates').sort());
    expect(Object.keys(FEATURE_GATE_DEFAULTS).sort()).toEqual(Object.keys(settings.featureGates?.children ?? {}).sort());
  });

  it.each(RULES)('passes a non-default %s to the controller as its env var', (key, rule) => {
    const { value, env } = nonDefault(key, rule);
    expect(renderedEnv({ [key]: value }).get(rule.envVar)).toBe(env);
  });

  it.each(RULES.filter(([, rule]) => rule.withGuarded))('drops a falsy %s: its env var is absent', (key, rule) => {
    const env = renderedEnv({ [key]: falsy(rule) });
    expect(env.has(rule.envVar)).toBe(false);
  });

  it.each(RULES.filter(([, rule]) => rule.withGuarded && typeof falsy(rule) !== 'string'))('passes a falsy %s written as a string', (key, rule) => {
    expect(renderedEnv({ [key]: String(falsy(rule)) }).get(rule.envVar)).toBe(String(falsy(rule)));
  });

  it('names the settings whose falsy value the controller would silently replace by a different default', () => {
    const replaced = RULES.filter(([, rule]) => rule.withGuarded && typeof falsy(rule) !== 'string' && falsy(rule) !== rule.controllerDefault).map(([key]) => key);
    expect(replaced).toEqual(['ignoreDRARequests', 'vmMemoryOverheadPercent']);
  });

  it('renders every truthy chart default as it is', () => {
    const env = renderedEnv({});
    for (const [key, rule] of RULES) {
      if (rule.chartDefault !== '' && rule.chartDefault !== false && rule.chartDefault !== 0 && key !== 'clusterName') {
        expect([key, env.get(rule.envVar)]).toEqual([key, String(rule.chartDefault)]);
      }
    }
  });

  it('renders every feature gate into FEATURE_GATES, flipped ones included', () => {
    const flipped = Object.fromEntries(Object.entries(FEATURE_GATE_DEFAULTS).map(([key, d]) => [key, !d]));
    const gates = renderedEnv({ featureGates: flipped }).get('FEATURE_GATES')?.split(',').sort();
    const expected = Object.entries(flipped).map(([key, v]) => `${FEATURE_GATE_NAMES[key as keyof typeof FEATURE_GATE_NAMES]}=${v}`).sort();
    expect(gates).toEqual(expected);
  });

  it('renders an integer of a million or more in exponent form, which the controller\'s Atoi rejects: write integers as strings', () => {
    expect(renderedEnv({ reservedENIs: 1000000 }).get('RESERVED_ENIS')).toBe('1e+06');
    expect(renderedEnv({ reservedENIs: '1000000' }).get('RESERVED_ENIS')).toBe('1000000');
  });

  it('evaluates {{ }} in a tpl setting and does not escape values inside the template\'s double quotes', () => {
    expect(SETTINGS_RULES.batchMaxDuration.tpl).toBe(true);
    expect(renderedEnv({ batchMaxDuration: '{{ .Release.Name }}' }).get('BATCH_MAX_DURATION')).toBe('karpenter');
    expect(renderedEnv({ interruptionQueue: 'a\\tb' }).get('INTERRUPTION_QUEUE')).toBe('a\tb');
    expect(() => renderedEnv({ interruptionQueue: 'say "hi"' })).toThrow(/YAML parse error on karpenter\/templates\/deployment\.yaml/);
  });
});
