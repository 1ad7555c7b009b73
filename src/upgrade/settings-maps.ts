/**
 * The chart's settings maps: `featureGates` (checked against settings.md and the Go defaults)
 * and every other map the chart renders into one variable as `Name=value,…` (1.15's
 * `awsFeatureGates`).
 */
import type { SettingsMapKey, SettingsMapRule, SettingValue } from '../release/types';
import type { ChartSettings, ValuesComment } from './chart-settings';
import { CONTROLLER_OPTIONS } from './controller-options';
import type { Template } from './deployment-template';
import { RuleSources, UNCONFIRMED } from './setting-rule';
import type { Docs } from './settings-docs';

/** A key of `settings.featureGates`: the controller's gate name and the chart default. */
export interface FeatureGateRule {
  /** Its name in FEATURE_GATES; null where no template read passes it (see `unconfirmed`). */
  readonly gate: string | null;
  readonly default: boolean;
  /** Why `gate` is not known. @default - known */
  readonly unconfirmed?: string;
}

/** Every key of the chart's `settings.featureGates`, sorted, or problems where the sources disagree. */
export function featureGateRules(
  chart: Readonly<Record<string, SettingValue | null>>, { docs, template, facts }: RuleSources, comments: ChartSettings['comments'], problems: string[],
): Record<string, FeatureGateRule> {
  const out: Record<string, FeatureGateRule> = {};
  for (const key of Object.keys(chart).sort()) {
    const at = `settings.featureGates.${key}`;
    const value = chart[key];
    const gate = template.gates.get(key);
    if (typeof value !== 'boolean') problems.push(`${at}: the chart default ${JSON.stringify(value)} is not a boolean`);
    // A gate no template read passes, which values.yaml documents (1.15.0's, read with the stand-in's template).
    if (gate === undefined && typeof value === 'boolean' && comments.has(`featureGates.${key}`)) out[key] = { gate: null, default: value, unconfirmed: UNCONFIRMED };
    else if (gate === undefined) problems.push(`${at}: the deployment template does not pass it in FEATURE_GATES`);
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
export function settingsMapRules({ maps: chart, comments }: ChartSettings, docs: Docs, template: Template, problems: string[]): Record<string, SettingsMapRule> {
  const out: Record<string, SettingsMapRule> = {};
  for (const map of Object.keys(chart).sort()) {
    const binding = template.maps.get(map);
    if (!binding) {
      problems.push(`settings.${map}: the deployment template does not render it into any variable (as Name={{ .Values.settings.${map}.<key> }})`);
      continue;
    }
    const row = docs.rows.get(binding.envVar);
    if (!row) problems.push(`settings.${map}: ${binding.envVar} is not in the settings.md table`);
    const documented = new Map((row?.default ?? '').split(',').filter((p) => p.includes('=')).map((p) => p.trim().split('=') as [string, string]));
    const keys: Record<string, SettingsMapKey> = {};
    for (const key of Object.keys(chart[map]).sort()) {
      const name = binding.names.get(key);
      const value = chart[map][key];
      const unconfirmed = name === undefined ? valuesOnlyKey(value, comments.get(`${map}.${key}`)) : undefined;
      if (unconfirmed) {
        keys[key] = unconfirmed;
        continue;
      }
      if (name === undefined || value === null) {
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

/**
 * A map key no template read names, typed from values.yaml's comment: a boolean default, or a
 * null one whose comment says `(bool)` and gives the `@default`. Undefined when it does not say.
 */
function valuesOnlyKey(value: SettingValue | null, comment: ValuesComment | undefined): SettingsMapKey | undefined {
  if (!comment) return undefined;
  if (typeof value === 'boolean') return { name: null, default: value, unconfirmed: UNCONFIRMED };
  if (value !== null || comment.type !== 'bool' || (comment.default !== 'true' && comment.default !== 'false')) return undefined;
  return { name: null, default: null, effectiveDefault: comment.default === 'true', unconfirmed: UNCONFIRMED };
}
