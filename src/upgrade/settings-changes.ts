/** What an upgrade changes in the controller settings, gates and image, as `npm run upgrade` prints it. */
import { parse } from 'yaml';
import { FEATURE_GATE_DEFAULTS, FEATURE_GATE_NAMES, SETTINGS_MAPS, SETTINGS_RULES } from '../release/settings-rules.generated';
import type { SettingRule, SettingsMapRule } from '../release/types';
import type { SettingsRulesData } from './settings-generator';
import type { PreviousRules } from './settings-sources';

/** What the rules in use say of the template: the variables and names it confirmed (an unconfirmed one is left out). */
export function previousRules(): PreviousRules {
  return {
    settings: Object.fromEntries(Object.entries<SettingRule>(SETTINGS_RULES).flatMap(([k, r]) => (r.envVar !== null ? [[k, { envVar: r.envVar, withGuarded: r.withGuarded === true, tpl: r.tpl === true }]] : []))),
    featureGates: Object.fromEntries(Object.entries<string | null>(FEATURE_GATE_NAMES).flatMap(([k, n]) => (n !== null ? [[k, n]] : []))),
    settingsMaps: Object.fromEntries(Object.entries<SettingsMapRule>(SETTINGS_MAPS)
      .map(([map, rule]) => [map, { envVar: rule.envVar, names: Object.fromEntries(Object.entries(rule.keys).flatMap(([k, r]) => (r.name !== null ? [[k, r.name]] : []))) }])),
  };
}

export function settingsChanges(next: SettingsRulesData): string[] {
  const old: Readonly<Record<string, SettingRule | undefined>> = SETTINGS_RULES;
  const out: string[] = [];
  for (const [key, rule] of Object.entries(next.settings)) {
    const before = old[key];
    const what = `${rule.envVar ?? 'variable unconfirmed'}, ${rule.type}, chart default ${JSON.stringify(rule.chartDefault)}${rule.minimum !== undefined ? `, at least ${rule.minimum}` : ''}`;
    if (!before) out.push(`+ settings.${key} (${what})`);
    else {
      const changed = (['envVar', 'type', 'chartDefault', 'controllerDefault', 'withGuarded'] as const)
        .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(rule[k]))
        .map((k) => `${k} ${JSON.stringify(before[k])} → ${JSON.stringify(rule[k])}`);
      if (changed.length) out.push(`~ settings.${key}: ${changed.join(', ')}`);
    }
  }
  for (const [key, rule] of Object.entries(old)) if (!(key in next.settings)) out.push(`- settings.${key} (${rule?.envVar ?? 'variable unconfirmed'})`);
  return out;
}

export function gateChanges(next: SettingsRulesData): string[] {
  const old: Readonly<Record<string, boolean>> = FEATURE_GATE_DEFAULTS;
  const out: string[] = [];
  for (const [key, gate] of Object.entries(next.featureGates)) {
    if (!(key in old)) out.push(`+ ${gate.gate ?? key} (settings.featureGates.${key}, default ${gate.default}${gate.gate === null ? ', name in FEATURE_GATES unconfirmed' : ''})`);
    else if (old[key] !== gate.default) out.push(`~ ${gate.gate}: default ${old[key]} → ${gate.default}`);
  }
  for (const key of Object.keys(old)) if (!(key in next.featureGates)) out.push(`- ${new Map(Object.entries<string | null>(FEATURE_GATE_NAMES)).get(key) ?? key} (settings.featureGates.${key})`);
  // Every other map under settings (AWS_FEATURE_GATES from 1.15), whatever the chart calls it.
  const oldMaps: Readonly<Record<string, SettingsMapRule | undefined>> = SETTINGS_MAPS;
  for (const [map, rule] of Object.entries(next.settingsMaps)) {
    if (map === 'featureGates') continue;
    for (const [key, k] of Object.entries(rule.keys)) {
      const before = oldMaps[map]?.keys[key];
      const dflt = k.default === null ? `null, in effect ${JSON.stringify(k.effectiveDefault)}` : JSON.stringify(k.default);
      if (!before) out.push(`+ ${k.name ?? key} (settings.${map}.${key} → ${rule.envVar}${k.name === null ? ', name unconfirmed' : ''}, default ${dflt})`);
      else if (before.default !== k.default) out.push(`~ ${k.name ?? key}: default ${JSON.stringify(before.default)} → ${dflt}`);
    }
  }
  for (const [map, rule] of Object.entries(oldMaps)) {
    if (map === 'featureGates') continue;
    for (const [key, k] of Object.entries(rule?.keys ?? {})) if (!next.settingsMaps[map]?.keys[key]) out.push(`- ${k.name ?? key} (settings.${map}.${key})`);
  }
  return out;
}

/**
 * The controller image the chart runs, before and after (`controller.image.tag` and `.digest` of
 * values.yaml), as one line, or none when it did not change.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.15.0/charts/karpenter/values.yaml
 */
export function imageChange(oldValues: string, newValues: string): string[] {
  const image = (text: string): string => {
    const doc: unknown = parse(text);
    const controller = field(doc, 'controller');
    const img = field(controller, 'image');
    return `${String(field(img, 'tag'))}@${String(field(img, 'digest'))}`;
  };
  const [before, after] = [image(oldValues), image(newValues)];
  return before === after ? [] : [`~ controller image ${before} → ${after}`];
}

function field(v: unknown, key: string): unknown {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? new Map(Object.entries(v)).get(key) : undefined;
}
