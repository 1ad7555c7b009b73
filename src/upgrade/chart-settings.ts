/** Reading the chart's `settings` from a release's `charts/karpenter/values.yaml`: each key's default, and the maps among them. */
import { isMap, isScalar, parseDocument } from 'yaml';
import type { SettingValue } from '../release/types';

/** The chart's `settings`, split into plain settings and maps. */
export interface ChartSettings {
  readonly settings: Readonly<Record<string, SettingValue>>;
  /** Every map under `settings` (`featureGates` among them), by key: its keys' defaults. */
  readonly maps: Readonly<Record<string, Readonly<Record<string, SettingValue>>>>;
}

/** The chart's `settings`, or undefined (with a problem) when values.yaml has none. */
export function parseChartSettings(text: string, problems: string[]): ChartSettings | undefined {
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
