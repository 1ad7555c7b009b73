/**
 * CONTROLLER_OPTIONS (src/upgrade/controller-options.ts) is kept by hand from the controller's Go
 * code, which the vendored release does not carry. Its settings.md does carry what the Go flags
 * print (upstream hack/docs/configuration_gen writes each flag's `DefValue` and usage): wherever
 * it says a default, a value list, a minimum or a feature gate's default, the table must say the
 * same; and the table must cover exactly the variables the vendored chart's settings reach, at
 * the vendored release's version.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FEATURE_GATE_NAMES, SETTINGS_RULES, SETTINGS_RULES_VERSION } from '../../src/release/settings-rules.generated';
import { CONTROLLER_OPTIONS, ControllerOption } from '../../src/upgrade/controller-options';
import { enumOf, minimumOf, parseSettingsDocs } from '../../src/upgrade/settings-docs';
import { SOURCE_PATHS } from '../../src/upgrade/settings-sources';

const SETTINGS_MD = readFileSync(join(__dirname, '../fixtures/karpenter-release', SOURCE_PATHS.settingsMd), 'utf8');

/** What the table is checked against: the options and gates, as CONTROLLER_OPTIONS holds them. */
interface Table {
  readonly options: Readonly<Record<string, ControllerOption>>;
  readonly featureGates: Readonly<Record<string, boolean>>;
}

/** Every place where settings.md says something of an option or gate and the table says otherwise, one line each. */
function disagreements(settingsMd: string, table: Table): string[] {
  const problems: string[] = [];
  const docs = parseSettingsDocs(settingsMd, problems);
  if (!docs) return problems;
  const out = [...problems];
  const differ = (a: unknown, b: unknown) => a !== undefined && JSON.stringify(a) !== JSON.stringify(b);
  for (const [envVar, option] of Object.entries(table.options)) {
    const row = docs.rows.get(envVar);
    if (!row) {
      out.push(`${envVar}: not in settings.md: the release no longer has it, remove it from CONTROLLER_OPTIONS`);
      continue;
    }
    if (differ(row.default, option.default)) out.push(`${envVar}: settings.md says the default is ${row.default}, CONTROLLER_OPTIONS ${option.default}`);
    if (differ(enumOf(row.description), option.oneOf)) out.push(`${envVar}: settings.md lists ${String(enumOf(row.description))}, CONTROLLER_OPTIONS ${String(option.oneOf)}`);
    if (differ(minimumOf(row.description), option.minimum)) out.push(`${envVar}: settings.md says at least ${minimumOf(row.description)}, CONTROLLER_OPTIONS ${String(option.minimum)}`);
  }
  const gates = Object.fromEntries([...docs.gateDefaults].sort(([a], [b]) => (a < b ? -1 : 1)));
  const kept = Object.fromEntries(Object.entries(table.featureGates).sort(([a], [b]) => (a < b ? -1 : 1)));
  if (differ(gates, kept)) out.push(`feature gates: settings.md's FEATURE_GATES default is ${JSON.stringify(gates)}, CONTROLLER_OPTIONS.featureGates ${JSON.stringify(kept)}`);
  return out;
}

const REREAD = `re-read the Go lines src/upgrade/controller-options.ts cites, at v${SETTINGS_RULES_VERSION}`;

describe('CONTROLLER_OPTIONS, the Go options kept by hand', () => {
  it('was read at the vendored release', () => {
    expect(`read at ${CONTROLLER_OPTIONS.version}`).toBe(`read at ${SETTINGS_RULES_VERSION}`);
  });

  it('agrees with the vendored settings.md wherever settings.md says a default, a value list, a minimum or a feature gate', () => {
    expect(disagreements(SETTINGS_MD, CONTROLLER_OPTIONS).map((d) => `${d}: ${REREAD}`)).toEqual([]);
  });

  it('covers exactly the variables and feature gates the vendored chart\'s settings reach', () => {
    const reached = Object.values(SETTINGS_RULES).map((r) => r.envVar).sort();
    expect(Object.keys(CONTROLLER_OPTIONS.options).sort()).toEqual(reached);
    expect(Object.keys(CONTROLLER_OPTIONS.featureGates).sort()).toEqual(Object.values(FEATURE_GATE_NAMES).sort());
  });

  it('fails when settings.md says another default, value list, minimum or gate default (the check can fail)', () => {
    const edited = SETTINGS_MD
      .replace('(default = 10s)', '(default = 20s)')
      .replace("Can be one of 'Ignore' and 'Respect'", "Can be one of 'Ignore', 'Prefer' and 'Respect'")
      .replace('DescribeSubnets API calls at the cost of increased staleness in subnet discovery. Must be at least 1m.', 'DescribeSubnets API calls at the cost of increased staleness in subnet discovery. Must be at least 5m.')
      .replace('NodeRepair=false,', 'NodeRepair=true,');
    expect(disagreements(edited, CONTROLLER_OPTIONS)).toEqual([
      'SUBNET_REFRESH_INTERVAL: settings.md says at least 5m, CONTROLLER_OPTIONS 1m',
      'BATCH_MAX_DURATION: settings.md says the default is 20s, CONTROLLER_OPTIONS 10s',
      'PREFERENCE_POLICY: settings.md lists Ignore,Prefer,Respect, CONTROLLER_OPTIONS Ignore,Respect',
      expect.stringMatching(/^feature gates: settings\.md's FEATURE_GATES default is .*"NodeRepair":true.*CONTROLLER_OPTIONS\.featureGates .*"NodeRepair":false/),
    ]);
  });

  it('fails when the table keeps a variable settings.md no longer has', () => {
    const table = { ...CONTROLLER_OPTIONS, options: { ...CONTROLLER_OPTIONS.options, OLD_OPTION: { goType: 'bool', default: 'false' } as const } };
    expect(disagreements(SETTINGS_MD, table)).toEqual(['OLD_OPTION: not in settings.md: the release no longer has it, remove it from CONTROLLER_OPTIONS']);
  });
});
