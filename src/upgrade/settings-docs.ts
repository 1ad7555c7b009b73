/**
 * Reading a release's settings reference (`website/content/en/docs/reference/settings.md`):
 * its table of controller variables, generated upstream from the Go flags, and its feature
 * gates. What it says and what it leaves out shape the rest: "(default = …)" is the flag's
 * `DefValue`, never printed for an empty one nor for any `BoolVarWithEnv` flag.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/hack/docs/configuration_gen/main.go
 */

/** One row of the docs' settings table. */
export interface DocsRow {
  readonly envVar: string;
  readonly description: string;
  /** The "(default = …)" text. @default - none printed */
  readonly default?: string;
}

/** What settings.md says of the controller's variables and feature gates. */
export interface Docs {
  readonly rows: ReadonlyMap<string, DocsRow>;
  /** Feature gate defaults from the FEATURE_GATES row's default. */
  readonly gateDefaults: ReadonlyMap<string, boolean>;
  /** Feature gate defaults from the "Feature Gates" table, the stage still in force. */
  readonly gateTable: ReadonlyMap<string, boolean>;
}

const TABLE_HEADER = /^\|\s*Environment Variable\s*\|\s*CLI Flag\s*\|\s*Description\s*\|\s*$/;
const TABLE_ROW = /^\|\s*([A-Z][A-Z0-9_]*)\s*\|\s*\\-\\-[a-z0-9-]+\s*\|(.*)\|\s*$/;
const DEFAULT_SUFFIX = /\s*\(default = (.*)\)\s*$/;

/** The settings table and feature gates of settings.md, or undefined (with a problem) when it has no table. */
export function parseSettingsDocs(text: string, problems: string[]): Docs | undefined {
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

/** The values of "Can be one of 'a', 'b'" or "Options include 'a' … or 'b'". */
export function enumOf(description: string): readonly string[] | undefined {
  const sentence = /(?:Can be one of|Options include)[^.]*/.exec(description)?.[0];
  const values = sentence ? [...sentence.matchAll(/'([A-Za-z][\w-]*)'/g)].map((m) => m[1]) : [];
  return values.length > 0 ? values : undefined;
}

/** The minimum of "Must be at least 1m.", as written. */
export function minimumOf(description: string): string | undefined {
  return /Must be at least (\S+?)\.(?:\s|$)/.exec(description)?.[1];
}

/** A description's first sentence, as the generated rules keep it. */
export function firstSentence(text: string): string {
  return /^(.*?[.!?])(?=\s|$)/.exec(text)?.[1] ?? text.trim();
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
