/**
 * Builds the controller settings rules of one Karpenter release from the
 * release's own files: what each chart `settings.*` key becomes in the
 * controller (its environment variable), whether the chart drops it when it
 * is falsy, and how the controller parses it. Pure: text in, data or text out.
 *
 * Three sources describe a setting and each says something the others do not:
 * the settings docs (type by default value or wording, enums, minimums:
 * `settings-docs.ts`), the chart (keys and defaults: `chart-settings.ts`; how
 * the template passes them on: `deployment-template.ts`) and the controller's
 * Go code (the real parser; the docs omit every boolean default), kept as
 * {@link CONTROLLER_OPTIONS} (`controller-options.ts`) and checked against the
 * docs on every run. Each setting's rule is derived in `setting-rule.ts`, the
 * maps in `settings-maps.ts`, and written by `settings-rules-file.ts`. Where the
 * sources disagree, or nothing says what a setting is, the build fails naming
 * the setting rather than guess.
 * @see https://karpenter.sh/docs/reference/settings/
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/charts/karpenter/templates/deployment.yaml
 */
import { createHash } from 'node:crypto';
import { eq } from 'semver';
import type { SettingRule } from '../release/types';
import { parseChartSettings } from './chart-settings';
import { CONTROLLER_OPTIONS } from './controller-options';
import { assumedTemplate, parseTemplate } from './deployment-template';
import { Facts, settingRule, valuesOnlyRule } from './setting-rule';
import { parseSettingsDocs } from './settings-docs';
import { featureGateRules, settingsMapRules } from './settings-maps';
import type { SettingsRulesData } from './settings-rules-file';
import { SettingsRulesInput, SOURCE_PATHS } from './settings-sources';

export { renderSettingsRules, type SettingsRulesData } from './settings-rules-file';

/**
 * The settings rules of one release, or an Error listing every problem, one a
 * line, each naming the file or the setting.
 * @param notes where what the build took from one source over another is said
 */
export function buildSettingsRules(input: SettingsRulesInput, notes: string[] = []): SettingsRulesData {
  const problems: string[] = [];
  // The Go facts of another release still hold for the options that did not change; where
  // the new release's docs disagree, the docs win (noted), and new options go by the docs.
  const facts: Facts = { goFrom: CONTROLLER_OPTIONS.version, sameRelease: eq(input.karpenterVersion, CONTROLLER_OPTIONS.version), notes };
  const docs = parseSettingsDocs(input.settingsMd, problems);
  const chart = parseChartSettings(input.valuesYaml, problems);
  const template = input.deploymentTemplate !== undefined ? parseTemplate(input.deploymentTemplate)
    : assumedTemplate(chart, docs, input.previous, notes);
  problems.push(...template.problems);
  const settings: Record<string, SettingRule> = {};
  if (docs && chart) {
    for (const key of Object.keys(chart.settings).sort()) {
      const rule = template.bindings.has(key) ? settingRule(key, chart.settings[key], { docs, template, facts }, problems)
        : valuesOnlyRule(key, chart.settings[key], chart.comments.get(key), problems);
      if (rule) settings[key] = rule;
    }
    for (const key of template.bindings.keys()) {
      if (!(key in chart.settings) && !(key in chart.maps)) problems.push(`settings.${key}: the deployment template uses it but values.yaml has no such key`);
    }
  }
  const featureGates = docs && chart ? featureGateRules(chart.maps.featureGates ?? {}, { docs, template, facts }, chart.comments, problems) : {};
  const settingsMaps = docs && chart ? settingsMapRules(chart, docs, template, problems) : {};
  if (problems.length > 0) throw new Error(problems.join('\n'));
  if (!facts.sameRelease) notes.push(...unknownToGo(settings, featureGates, input.karpenterVersion));
  notes.push(...unconfirmedNotes(settings, settingsMaps));
  const read = (Object.keys(SOURCE_PATHS) as (keyof typeof SOURCE_PATHS)[]).filter((k) => input[k] !== undefined);
  return {
    karpenterVersion: input.karpenterVersion,
    sources: read.map((k) => ({ path: SOURCE_PATHS[k], sha256: sha256(input[k] ?? '') })),
    settings,
    featureGates,
    settingsMaps,
  };
}

/** The note naming the variables and gates of another release that {@link CONTROLLER_OPTIONS} does not know, if any. */
function unknownToGo(settings: SettingsRulesData['settings'], featureGates: SettingsRulesData['featureGates'], version: string): string[] {
  const untyped = Object.values(settings).flatMap((r) => (r.envVar !== null && !(r.envVar in CONTROLLER_OPTIONS.options) ? [r.envVar] : []));
  const gates = Object.values(featureGates).flatMap((g) => (g.gate !== null && !(g.gate in CONTROLLER_OPTIONS.featureGates) ? [g.gate] : []));
  const unknown = [...untyped, ...gates];
  if (unknown.length === 0) return [];
  return [`settings.md and values.yaml alone say what ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'}: `
    + `CONTROLLER_OPTIONS in src/upgrade/controller-options.ts was read from the Go code of ${CONTROLLER_OPTIONS.version}; read v${version}'s and add ${unknown.length === 1 ? 'it' : 'them'}`];
}

/** The note naming every setting and gate typed from values.yaml alone, if any. */
function unconfirmedNotes(settings: SettingsRulesData['settings'], maps: SettingsRulesData['settingsMaps']): string[] {
  const keys = [
    ...Object.entries(settings).filter(([, r]) => r.unconfirmed).map(([k]) => `settings.${k}`),
    ...Object.entries(maps).flatMap(([map, rule]) => Object.entries(rule.keys).filter(([, k]) => k.unconfirmed).map(([k]) => `settings.${map}.${k}`)),
  ];
  if (keys.length === 0) return [];
  return [`${SOURCE_PATHS.deploymentTemplate} passes none of ${keys.join(', ')}: each is typed from values.yaml's own comment, `
    + 'its controller variable left unconfirmed in the generated rules (envVar null): give the release\'s template to confirm them'];
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
