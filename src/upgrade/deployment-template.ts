/**
 * Reading the chart's `templates/deployment.yaml`: which controller variable each setting
 * becomes, whether a falsy value is dropped, how each settings map is rendered into one
 * variable; or, for a release read without it, what the rules in use say.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/charts/karpenter/templates/deployment.yaml
 */
import type { ChartSettings } from './chart-settings';
import type { Docs } from './settings-docs';
import { PreviousRules, SOURCE_PATHS } from './settings-sources';

/** How the template turns one settings key into an environment variable. */
export interface Binding {
  readonly envVar: string;
  /** Inside `with` or `if` of the key: a falsy value sets no variable. */
  readonly withGuarded: boolean;
  /** The value goes through `tpl`. */
  readonly tpl: boolean;
}

/** How the template renders one settings map into one variable: `Name={{ .Values.settings.<map>.<key> }},…`. */
export interface MapBinding {
  readonly envVar: string;
  /** Chart key → its name in the variable. */
  readonly names: ReadonlyMap<string, string>;
}

/** What the deployment template does with the chart's settings. */
export interface Template {
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
export function parseTemplate(text: string): Template {
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

/**
 * The template's bindings when the release was read without its deployment template:
 * the rules in use for the settings they know; for a new setting, its key in
 * UPPER_SNAKE_CASE when settings.md lists that variable, taken as dropped when falsy
 * (so the generator always writes it as a string that reaches the controller).
 */
export function assumedTemplate(chart: ChartSettings | undefined, docs: Docs | undefined, previous: PreviousRules | undefined, notes: string[]): Template {
  const bindings = new Map<string, Binding>();
  const problems: string[] = [];
  const guessed: string[] = [];
  for (const key of Object.keys(chart?.settings ?? {})) {
    const known = previous?.settings[key];
    const envVar = known?.envVar ?? upperSnake(key);
    // A new setting values.yaml documents is typed from that comment, its variable left unconfirmed, rather than guessed.
    if (!known && !docs?.rows.has(envVar) && chart?.comments.has(key)) continue;
    if (!known && !docs?.rows.has(envVar)) {
      problems.push(`settings.${key}: without ${SOURCE_PATHS.deploymentTemplate}, cannot tell which controller variable it sets (${envVar} is not in settings.md): add the template to the release folder`);
      continue;
    }
    if (!known) guessed.push(`settings.${key} → ${envVar}`);
    bindings.set(key, known ?? { envVar, withGuarded: true, tpl: false });
  }
  const maps = assumedMaps(chart, previous, guessed);
  const gates = new Map<string, string>(maps.get('featureGates')?.names ?? []);
  notes.push(`${SOURCE_PATHS.deploymentTemplate} was not given: the settings the rules in use know keep their variables${guessed.length ? `; new ones are taken by name: ${guessed.join(', ')}` : ''}`);
  return { bindings, gates, maps, problems };
}

/** Each settings map's variable and names, from the rules in use or else by name; what was guessed goes to `guessed`. */
function assumedMaps(chart: ChartSettings | undefined, previous: PreviousRules | undefined, guessed: string[]): Map<string, MapBinding> {
  const maps = new Map<string, MapBinding>();
  for (const [map, keys] of Object.entries(chart?.maps ?? {})) {
    const known = map === 'featureGates' ? { envVar: 'FEATURE_GATES', names: previous?.featureGates ?? {} } : previous?.settingsMaps?.[map];
    const envVar = known?.envVar ?? upperSnake(map);
    const names = new Map<string, string>();
    for (const key of Object.keys(keys)) {
      if (!known?.names[key] && chart?.comments.has(`${map}.${key}`)) continue;
      const name = known?.names[key] ?? key[0].toUpperCase() + key.slice(1);
      if (!known?.names[key]) guessed.push(`settings.${map}.${key} → ${envVar} ${name}`);
      names.set(key, name);
    }
    maps.set(map, { envVar, names });
  }
  return maps;
}

/** `awsFeatureGates` → `AWS_FEATURE_GATES`, as the chart names the variables of its settings. */
function upperSnake(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2').toUpperCase();
}
