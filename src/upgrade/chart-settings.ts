/** Reading the chart's `settings` from a release's `charts/karpenter/values.yaml`: each key's default, and the maps among them. */
import { isMap, isScalar, parseDocument, YAMLMap } from 'yaml';
import type { SettingValue } from '../release/types';

/**
 * What a key's helm-docs comment in values.yaml says (`# -- (bool) text`, `# @default -- \`true\``).
 * @see https://github.com/norwoodj/helm-docs#valuesyaml-metadata
 */
export interface ValuesComment {
  /** The description, its lines joined. */
  readonly text: string;
  /** The type the comment names in parentheses (`bool`). @default - none */
  readonly type?: string;
  /** The `@default` the comment gives, without its backquotes. @default - none */
  readonly default?: string;
}

/** The chart's `settings`, split into plain settings and maps. */
export interface ChartSettings {
  /** Each plain setting's default; a `null` one (1.15's `ignoreDRARequests`) is `null`. */
  readonly settings: Readonly<Record<string, SettingValue | null>>;
  /** Every map under `settings` (`featureGates` among them), by key: its keys' defaults. */
  readonly maps: Readonly<Record<string, Readonly<Record<string, SettingValue | null>>>>;
  /** The helm-docs comment of each key that has one, by path below `settings` (`enableDRA`, `awsFeatureGates.draEFA`). */
  readonly comments: ReadonlyMap<string, ValuesComment>;
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
  const settings: Record<string, SettingValue | null> = {};
  const maps: Record<string, Record<string, SettingValue | null>> = {};
  const comments = new Map<string, ValuesComment>();
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '?';
    // A map is a group of settings the chart renders into one variable (FEATURE_GATES, AWS_FEATURE_GATES).
    if (isMap(pair.value)) maps[key] = scalarMap(pair.value, key, { comments, problems });
    else {
      const comment = commentOf(pair.key);
      if (comment) comments.set(key, comment);
      const value = scalarOf(pair.value, comment);
      if (value === undefined) problems.push(`settings.${key}: values.yaml gives no string, number or boolean default`);
      else settings[key] = value;
    }
  }
  return { settings, maps, comments };
}

function scalarMap(node: YAMLMap, map: string, out: { comments: Map<string, ValuesComment>; problems: string[] }): Record<string, SettingValue | null> {
  const values: Record<string, SettingValue | null> = {};
  for (const [i, pair] of node.items.entries()) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '?';
    // The first key's comment is the map's (the parser hangs it there).
    const comment = commentOf(pair.key) ?? (i === 0 ? parseComment(node.commentBefore) : undefined);
    if (comment) out.comments.set(`${map}.${key}`, comment);
    const value = scalarOf(pair.value, comment);
    if (value === undefined) out.problems.push(`settings.${map}.${key}: values.yaml gives no string, number or boolean default`);
    else values[key] = value;
  }
  return values;
}

/** A scalar default; `null` only where the key's comment says what null means (its `@default`). */
function scalarOf(node: unknown, comment: ValuesComment | undefined): SettingValue | null | undefined {
  if (!isScalar(node)) return undefined;
  const v = node.value;
  if (v === null && comment?.default !== undefined) return null;
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) ? v : undefined;
}

function commentOf(key: unknown): ValuesComment | undefined {
  return isScalar(key) ? parseComment(key.commentBefore) : undefined;
}

/** A helm-docs comment (`-- (type) text`, then lines, then `@default -- \`value\``), or undefined when it is not one. */
function parseComment(text: string | null | undefined): ValuesComment | undefined {
  const lines = (text ?? '').split('\n').map((l) => l.trim());
  const start = lines.findIndex((l) => l.startsWith('-- '));
  if (start < 0) return undefined;
  const body: string[] = [];
  let dflt: string | undefined;
  for (const line of lines.slice(start)) {
    const d = /^@default -- `?(.*?)`?$/.exec(line);
    if (d) dflt = d[1];
    else body.push(line);
  }
  const first = /^-- (?:\((\w+)\) )?(.*)$/.exec(body[0]);
  return { text: [first?.[2] ?? '', ...body.slice(1)].join(' ').trim(), ...(first?.[1] && { type: first[1] }), ...(dflt !== undefined && { default: dflt }) };
}
