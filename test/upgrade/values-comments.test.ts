/**
 * The settings rules of 1.15.0, built from test/fixtures/karpenter-1.15.0 (the release's real
 * values.yaml; the stand-in's deployment template and settings.md, which pass none of its new
 * settings): each new setting and gate is typed from its values.yaml helm-docs comment and its
 * variable is left unconfirmed, not guessed. Pure: no upgrade runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseChartSettings } from '../../src/upgrade/chart-settings';
import { buildSettingsRules } from '../../src/upgrade/settings-generator';
import { previousRules } from '../../src/upgrade/settings-changes';
import { REPO } from './builders';

const DIR = join(REPO, 'test/fixtures/karpenter-1.15.0');
const file = (path: string) => readFileSync(join(DIR, path), 'utf8');
const input = {
  settingsMd: file('website/content/en/docs/reference/settings.md'),
  valuesYaml: file('charts/karpenter/values.yaml'),
  deploymentTemplate: file('charts/karpenter/templates/deployment.yaml'),
  karpenterVersion: '1.15.0',
};

describe('values.yaml comments as a source of the settings rules', () => {
  it('reads helm-docs comments: the (type), the @default, the text; a null default only where the comment gives one', () => {
    const chart = parseChartSettings(input.valuesYaml, []);
    expect(chart?.settings.ignoreDRARequests).toBeNull();
    expect(chart?.comments.get('ignoreDRARequests')).toMatchObject({ type: 'bool', default: 'true' });
    expect(chart?.comments.get('awsFeatureGates.draEFA')).toMatchObject({ type: 'bool', default: 'false' });
    // The first key of a map: its comment hangs on the map.
    expect(chart?.comments.get('awsFeatureGates.nodeClassCEL')?.text).toMatch(/^nodeClassCEL is ALPHA/);
    expect(chart?.comments.get('securityGroupRefreshInterval')?.text).toMatch(/Must be at least 1m\.$/);
    const problems: string[] = [];
    parseChartSettings('settings:\n  # -- no default said\n  foo: null\n', problems);
    expect(problems).toEqual(['settings.foo: values.yaml gives no string, number or boolean default']);
  });

  it('types the new settings and gates from their comments, the variables left unconfirmed, and says so in a note', () => {
    const notes: string[] = [];
    const rules = buildSettingsRules(input, notes);
    expect(rules.settings.securityGroupRefreshInterval).toMatchObject({ envVar: null, withGuarded: null, tpl: null, type: 'duration', minimum: '1m', chartDefault: '1m', controllerDefault: '1m' });
    expect(rules.settings.enableDRA).toMatchObject({ envVar: null, type: 'boolean', chartDefault: false, description: 'enableDRA is ALPHA and is disabled by default.' });
    expect(rules.settings.ignoreDRARequests).toMatchObject({ envVar: 'IGNORE_DRA_REQUESTS', withGuarded: true, chartDefault: null, controllerDefault: true });
    expect(rules.featureGates.terminateFirstRepair).toMatchObject({ gate: null, default: false });
    expect(rules.featureGates.nodeRepair).toEqual({ gate: 'NodeRepair', default: false });
    expect(rules.settingsMaps.awsFeatureGates.keys.draNVIDIAGPU).toMatchObject({ name: null, default: null, effectiveDefault: false });
    expect(notes).toContainEqual(expect.stringMatching(/passes none of settings\.enableDRA, settings\.legacyNodeRepair, settings\.securityGroupRefreshInterval, .*: each is typed from values\.yaml's own comment/));
  });

  it('without the deployment template, leaves a documented new setting unconfirmed rather than guessing its variable', () => {
    const without = buildSettingsRules({ ...input, deploymentTemplate: undefined, previous: previousRules() }, []);
    expect(without.settings.enableDRA.envVar).toBeNull();
    expect(without.featureGates.terminateFirstDrift.gate).toBeNull();
  });

  it('refuses a setting no template passes when its comment does not say its type', () => {
    const values = input.valuesYaml.replace('  # -- (bool) Ignore pods\'', '  # -- Ignore pods\'').replace(/ignoreDRARequests: null/, 'fooBar: ""');
    expect(() => buildSettingsRules({ ...input, valuesYaml: values })).toThrow(/settings\.fooBar: the deployment template does not pass it and values\.yaml's comment names no type/);
  });
});
