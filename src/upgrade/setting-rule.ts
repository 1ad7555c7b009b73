/**
 * One chart setting's rule, from what three sources say of it: settings.md (type by default or
 * wording, enum, minimum), values.yaml (the chart default's YAML type) and the controller's Go
 * options ({@link CONTROLLER_OPTIONS}). Where they disagree, or nothing says what a setting is,
 * it is a problem naming the setting rather than a guess.
 */
import type { SettingRule, SettingType, SettingValue } from '../release/types';
import { GO_DURATION, GO_FLOAT, GO_INTEGER, parseGoBool, parseGoDuration, parseGoFloat, parseGoInt } from '../release/go-values';
import { CONTROLLER_OPTIONS, ControllerOption } from './controller-options';
import type { ValuesComment } from './chart-settings';
import type { Template } from './deployment-template';
import { Docs, DocsRow, enumOf, firstSentence, minimumOf } from './settings-docs';

/** How far the Go facts ({@link CONTROLLER_OPTIONS}) hold for the release being read. */
export interface Facts {
  /** The release the Go facts were read at. */
  readonly goFrom: string;
  /** The release read is that one: any disagreement is an error. */
  readonly sameRelease: boolean;
  /** Where a disagreement the docs won is noted. */
  readonly notes: string[];
}

/** What a rule is built from: the docs, the template and the Go facts. */
export interface RuleSources {
  readonly docs: Docs;
  readonly template: Template;
  readonly facts: Facts;
}

const GO_TYPES: Readonly<Record<ControllerOption['goType'], SettingType>> = {
  string: 'string', bool: 'boolean', int: 'integer', float64: 'number', duration: 'duration',
};

/** One source's view of a setting's type: the types it allows, and why. */
interface Evidence {
  readonly types: readonly SettingType[];
  readonly because: string;
}

/** The bounds a value must keep, as Go text. */
interface Limits {
  readonly minimum?: string;
  readonly exclusiveMaximum?: string;
}

/** The rule of one chart setting, or undefined with its problems pushed to `problems`. */
export function settingRule(key: string, chartDefault: SettingValue | null, { docs, template, facts }: RuleSources, problems: string[]): SettingRule | undefined {
  const at = `settings.${key}`;
  const binding = template.bindings.get(key);
  if (!binding) {
    problems.push(`${at}: the deployment template does not pass it to the controller`);
    return undefined;
  }
  const row = docs.rows.get(binding.envVar);
  if (!row) {
    problems.push(`${at}: ${binding.envVar} is not in the settings.md table`);
    return undefined;
  }
  let go = CONTROLLER_OPTIONS.options[binding.envVar] as ControllerOption | undefined;
  const docsEnum = enumOf(row.description);
  const before = problems.length;
  const docsType = docsEvidence(row, docsEnum);
  if (go && !facts.sameRelease && docsType && !docsType.types.some((t) => goEvidence(go)?.types.includes(t))) {
    facts.notes.push(`${at}: ${docsType.because}, CONTROLLER_OPTIONS (read at ${facts.goFrom}) says a ${go.goType}: took settings.md's; check the Go code`);
    go = undefined;
  }
  const type = settingType(at, [docsType, chartEvidence(chartDefault), goEvidence(go)], problems);
  if (type === undefined) return undefined;
  const enumValues = agree(at, 'value list', { docs: docsEnum, go: go?.oneOf }, facts, problems);
  const minimum = agree(at, 'minimum', { docs: minimumOf(row.description), go: go?.minimum }, facts, problems);
  const defaultText = agree(at, 'controller default', { docs: row.default, go: go?.default }, facts, problems) ?? impliedDefault(at, type, problems);
  if (type === 'enum' && !enumValues) problems.push(`${at}: an enum setting with no values`);
  if (problems.length > before || defaultText === undefined) return undefined;

  const check = (what: string, text: string): void => {
    const wrong = invalid(type, text, enumValues, { minimum, exclusiveMaximum: go?.exclusiveMaximum });
    if (wrong) problems.push(`${at}: ${what} ${JSON.stringify(text)} ${wrong}`);
  };
  // An empty chart default of a with-guarded setting just means "not set", as null does.
  if (chartDefault !== null && !(binding.withGuarded && chartDefault === '')) check('the chart default', String(chartDefault));
  check('the controller default', defaultText);
  return {
    envVar: binding.envVar,
    withGuarded: binding.withGuarded,
    type,
    ...(enumValues && { enum: enumValues }),
    ...(minimum !== undefined && { minimum: type === 'integer' || type === 'number' ? Number(minimum) : minimum }),
    ...(go?.exclusiveMaximum !== undefined && { exclusiveMaximum: Number(go.exclusiveMaximum) }),
    chartDefault,
    controllerDefault: typed(type, defaultText),
    tpl: binding.tpl,
    description: firstSentence(row.description),
  };
}

function docsEvidence(row: DocsRow, enumValues: readonly string[] | undefined): Evidence | undefined {
  const because = `settings.md ${row.default !== undefined ? `says "(default = ${row.default})"` : 'wording'}`;
  if (enumValues) return { types: ['enum'], because: `settings.md lists values ${enumValues.join(', ')}` };
  if (row.default !== undefined) return { types: typesOfLiteral(row.default), because };
  if (/^If true\b|\bMarking this true\b/.test(row.description)) return { types: ['boolean'], because: 'settings.md says "if true"' };
  return undefined;
}

function chartEvidence(value: SettingValue | null): Evidence | undefined {
  if (value === null) return undefined;
  const because = `values.yaml default ${JSON.stringify(value)}`;
  if (typeof value === 'boolean') return { types: ['boolean'], because };
  if (typeof value === 'number') return { types: Number.isInteger(value) ? ['integer', 'number'] : ['number'], because };
  // A YAML string says little: the chart quotes durations, numbers ("0") and enums alike.
  return undefined;
}

function goEvidence(go: ControllerOption | undefined): Evidence | undefined {
  if (!go) return undefined;
  const because = `the Go code parses a ${go.goType}`;
  if (go.oneOf) return { types: ['enum'], because };
  return { types: go.goType === 'string' ? ['string', 'enum'] : [GO_TYPES[go.goType]], because };
}

/** The types a docs default literal can be. */
function typesOfLiteral(text: string): SettingType[] {
  if (text === 'true' || text === 'false') return ['boolean'];
  if (GO_INTEGER.test(text)) return ['integer', 'number'];
  if (GO_FLOAT.test(text)) return ['number'];
  if (GO_DURATION.test(text)) return ['duration'];
  return ['string'];
}

/** The one type every source allows, or a problem. */
function settingType(at: string, evidence: readonly (Evidence | undefined)[], problems: string[]): SettingType | undefined {
  const known = evidence.filter((e): e is Evidence => e !== undefined);
  if (known.length === 0) {
    problems.push(`${at}: cannot tell its type: settings.md gives no default or wording, values.yaml a string, and CONTROLLER_OPTIONS has no entry (read the Go code and add one)`);
    return undefined;
  }
  let types = known[0].types;
  for (const e of known.slice(1)) types = types.filter((t) => e.types.includes(t));
  const why = known.map((e) => e.because).join(', ');
  // Only the Go code's "string" is left open: no enum values anywhere makes it a plain string.
  const plainString = types.length === 2 && types.includes('string') && types.includes('enum');
  if (types.length === 1 || plainString) return types[0];
  problems.push(types.length === 0
    ? `${at}: the sources disagree on its type: ${why}`
    : `${at}: cannot tell ${types.join(' from ')}: ${why} (read the Go code and add a CONTROLLER_OPTIONS entry)`);
  return undefined;
}

/** The value two sources give, or a problem when both give one and they differ. */
function agree<T extends string | readonly string[]>(at: string, what: string, { docs, go }: { readonly docs?: T; readonly go?: T }, facts: Facts, problems: string[]): T | undefined {
  if (docs !== undefined && go !== undefined && String(docs) !== String(go)) {
    if (facts.sameRelease) problems.push(`${at}: settings.md says the ${what} is ${String(docs)}, CONTROLLER_OPTIONS (the Go code) says ${String(go)}: re-read the Go code`);
    else facts.notes.push(`${at}: settings.md says the ${what} is ${String(docs)}, CONTROLLER_OPTIONS (read at ${facts.goFrom}) says ${String(go)}: took settings.md's; check the Go code`);
  }
  return docs ?? go;
}

/**
 * The default the docs leave out: they print none for an empty string, so
 * that is what a missing one means, but they print none for any boolean either.
 */
function impliedDefault(at: string, type: SettingType, problems: string[]): string | undefined {
  if (type === 'string' || type === 'enum') return '';
  problems.push(`${at}: cannot tell the controller default: settings.md prints none (it never does for a boolean) and CONTROLLER_OPTIONS has no entry; read the Go code and add one`);
  return undefined;
}

/** Why the controller would not take `text` (a reason starting lowercase), or undefined when it would. */
function invalid(type: SettingType, text: string, enumValues: readonly string[] | undefined, limits: Limits): string | undefined {
  switch (type) {
    case 'boolean':
      return parseGoBool(text) !== undefined ? undefined : 'is not a Go boolean';
    case 'integer':
      return typeof parseGoInt(text) === 'bigint' ? outOfLimits(Number(text), limits, Number) : 'is not an integer';
    case 'number':
      return typeof parseGoFloat(text) === 'number' ? outOfLimits(Number(parseGoFloat(text)), limits, (t) => Number(parseGoFloat(t))) : 'is not a number';
    case 'duration':
      return typeof parseGoDuration(text) === 'bigint' ? outOfLimits(durationSeconds(text), limits, durationSeconds) : 'is not a Go duration';
    case 'enum':
      return enumValues?.includes(text) ? undefined : `is not one of ${enumValues?.join(', ')}`;
    case 'string':
      return undefined;
  }
}

function outOfLimits(value: number, limits: Limits, parse: (text: string) => number): string | undefined {
  if (limits.minimum !== undefined && value < parse(limits.minimum)) return `is below the minimum ${limits.minimum}`;
  if (limits.exclusiveMaximum !== undefined && value >= parse(limits.exclusiveMaximum)) return `is not below ${limits.exclusiveMaximum}`;
  return undefined;
}

/** A Go duration in seconds (the text parses: {@link parseGoDuration}). */
function durationSeconds(text: string): number {
  return Number(parseGoDuration(text)) / 1e9;
}

/** A default or minimum as the rule stores it: booleans and numbers as such, the rest as text. */
function typed(type: SettingType, text: string): SettingValue {
  if (type === 'boolean') return parseGoBool(text) === true;
  if (type === 'integer' || type === 'number') return Number(text);
  return text;
}

/**
 * The rule of a setting no template read passes (1.15.0's new settings, read with the stand-in's
 * template): typed from values.yaml alone, its helm-docs comment (`(bool)`, `@default`, "Must be
 * at least 1m") and its default, with the variable, guard and `tpl` left unknown and said so.
 * Undefined (a problem pushed) when the comment does not say enough.
 */
export function valuesOnlyRule(key: string, chartDefault: SettingValue | null, comment: ValuesComment | undefined, problems: string[]): SettingRule | undefined {
  const at = `settings.${key}`;
  if (!comment) {
    problems.push(`${at}: the deployment template does not pass it to the controller, and values.yaml has no comment saying what it is`);
    return undefined;
  }
  const effective = chartDefault ?? comment.default ?? '';
  const type = valuesType(comment, effective);
  const minimum = minimumOf(comment.text);
  if (type === undefined) {
    problems.push(`${at}: the deployment template does not pass it and values.yaml's comment names no type ("(bool)") for the default ${JSON.stringify(effective)}`);
    return undefined;
  }
  const text = String(effective);
  const wrong = invalid(type, text, undefined, { minimum });
  if (wrong) problems.push(`${at}: the default ${JSON.stringify(text)} ${wrong}`);
  if (wrong) return undefined;
  return {
    envVar: null, withGuarded: null, type,
    ...(minimum !== undefined && { minimum }),
    chartDefault, controllerDefault: typed(type, text), tpl: null,
    description: firstSentence(comment.text),
    unconfirmed: UNCONFIRMED,
  };
}

/** What the generated data says of a setting or gate no template read passes. */
export const UNCONFIRMED = 'no deployment template read passes it: typed from values.yaml\'s comment alone; the variable it becomes is not confirmed';

/** A values-only setting's type: the comment's `(bool)`, else the default's YAML type, a Go duration for text that parses as one. */
function valuesType(comment: ValuesComment, value: SettingValue): SettingType | undefined {
  if (comment.type === 'bool' || typeof value === 'boolean') return 'boolean';
  if (comment.type === 'int' || (typeof value === 'number' && Number.isInteger(value))) return 'integer';
  if (comment.type === 'float' || typeof value === 'number') return 'number';
  if (comment.type === 'string') return 'string';
  if (typeof value === 'string' && value !== '' && typeof parseGoDuration(value) === 'bigint') return 'duration';
  return undefined;
}
