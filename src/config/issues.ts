import { closest, distance } from 'fastest-levenshtein';
import type { z } from 'zod';
import { Problem } from './problems';
import { SourceFile } from './source';
import { userMapParts } from './user-map';

type Path = (string | number)[];

/**
 * Suggests the known name closest to `given`, or undefined when nothing is close
 * enough to be a plausible typo.
 */
export function suggest(given: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const best = closest(given, known as string[]);
  const limit = Math.max(2, Math.floor(given.length / 3));
  if (distance(given.toLowerCase(), best.toLowerCase()) <= limit) return best;
  // Another chart's spelling of the same key (`replicaCount` for `replicas`): a long shared stem.
  const stem = known.find((k) => k.length >= 5 && given.toLowerCase().startsWith(k.toLowerCase().slice(0, -1)));
  return stem;
}

/** `unknown key "x" (did you mean "y"?)`, or the list of allowed keys when nothing is close. */
export function unknownKeyMessage(what: string, given: string, known: readonly string[]): string {
  const best = suggest(given, known);
  if (best) return `unknown ${what} "${given}" (did you mean "${best}"?)`;
  return `unknown ${what} "${given}" (allowed: ${[...known].sort().join(', ')})`;
}

/**
 * Turns the issues of a failed zod parse into problems located in `source`.
 * `data` is the parsed input, used to quote the value that was given.
 */
export function zodProblems(source: SourceFile, schema: z.ZodType, data: unknown, issues: readonly z.core.$ZodIssue[]): Problem[] {
  const out: Problem[] = [];
  // A misspelt required key is reported once, as the typo ("did you mean"), not also as missing.
  const misspelt = new Set<string>();
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const known = knownKeysAt(schema, issue.path as Path);
    for (const key of issue.keys) {
      const best = suggest(key, known);
      if (best) misspelt.add(JSON.stringify([...issue.path, best]));
    }
  }
  for (const issue of issues) {
    const path = issue.path as Path;
    if (misspelt.has(JSON.stringify(path)) && valueAt(data, path) === undefined) continue;
    switch (issue.code) {
      case 'unrecognized_keys': {
        // A strict object lists its keys; a partial record keyed by an enum lists the enum.
        const known = knownKeysAt(schema, path);
        for (const key of issue.keys) out.push(source.problem([...path, key], unknownKeyMessage('key', key, known), 'key'));
        break;
      }
      case 'invalid_key': {
        const inner = issue.issues[0];
        const key = String(path[path.length - 1]);
        const message = inner?.code === 'invalid_value'
          ? unknownKeyMessage('key', key, inner.values.map(String))
          : `invalid key "${key}": ${inner && isOwn(inner) ? inner.message : inner ? messageOf(inner, key) : 'not allowed here'}`;
        out.push(source.problem(path, message, 'key'));
        break;
      }
      case 'invalid_union':
        out.push(source.problem(path, issue.message === 'Invalid input' ? `${describe(valueAt(data, path))} is not allowed here` : issue.message));
        break;
      default:
        out.push(source.problem(path, messageOf(issue, valueAt(data, path))));
    }
  }
  return out;
}

function messageOf(issue: z.core.$ZodIssue, given: unknown): string {
  // Messages we wrote in the schema are kept; zod's own ("Invalid ...", "Too small ...") are reworded.
  const own = isOwn(issue);
  switch (issue.code) {
    case 'invalid_type':
      if (given === undefined) return `required field is missing (expected ${issue.expected})`;
      if (issue.expected === 'string' && typeof given === 'number') return `expected a string, got number ${given} (quote it: "${given}")`;
      if (issue.expected === 'int') return `expected a whole number, got ${describe(given)}`;
      return `expected ${article(issue.expected === 'record' || issue.expected === 'object' ? 'map' : issue.expected)}, got ${describe(given)}`;
    case 'invalid_value':
      if (given === undefined) return `required field is missing (allowed: ${issue.values.map(String).join(', ')})`;
      return `unknown value ${describe(given)} (allowed: ${issue.values.map(String).join(', ')})`;
    case 'too_small':
      if (own) return issue.message;
      if (issue.origin === 'array') return `needs at least ${issue.minimum} item(s)`;
      if (issue.origin === 'string') return issue.minimum === 1 ? 'must not be empty' : `must be at least ${issue.minimum} characters`;
      return `must be at least ${issue.minimum}, got ${describe(given)}`;
    case 'too_big':
      if (own) return issue.message;
      if (issue.origin === 'array') return `at most ${issue.maximum} item(s) allowed`;
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters`;
      return `must be at most ${issue.maximum}, got ${describe(given)}`;
    case 'invalid_format':
      return own ? `${describe(given)}: ${issue.message}` : `${describe(given)} has an invalid format`;
    default:
      return issue.message;
  }
}

/** Whether the message is one we wrote in the schema (zod's own start with "Invalid", "Too small", ...). */
function isOwn(issue: z.core.$ZodIssue): boolean {
  return !/^(Invalid|Too (small|big)|Expected|Unrecognized)/.test(issue.message);
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return JSON.stringify(value);
  return `${typeof value} ${String(value)}`;
}

function valueAt(data: unknown, path: Path): unknown {
  let v = data;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[seg];
  }
  return v;
}

interface Def {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly innerType?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly keyType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly in?: z.ZodType;
  readonly options?: readonly z.ZodType[];
}

/** The keys the schema allows for the object found at `path` (for "did you mean"). */
export function knownKeysAt(schema: z.ZodType, path: Path): string[] {
  let node: z.ZodType | undefined = schema;
  for (let i = 0; i <= path.length && node; ) {
    const map = userMapParts(node);
    if (map) {
      if (i === path.length) return Object.values((map.key as unknown as { _zod: { def: { entries?: Record<string, string> } } })._zod.def.entries ?? {});
      node = map.value;
      i++;
      continue;
    }
    const def: Def = (node as unknown as { _zod: { def: Def } })._zod.def;
    if (def.innerType) { node = def.innerType; continue; }
    if (def.type === 'pipe' && def.in) { node = def.in; continue; }
    if (def.type === 'union' && def.options) {
      node = def.options.find((o: z.ZodType) => (o as unknown as { _zod: { def: Def } })._zod.def.type === 'object');
      continue;
    }
    if (i === path.length) {
      if (def.shape) return Object.keys(def.shape).filter((k) => k !== '$schema');
      const keyDef = (def.keyType as unknown as { _zod: { def: { entries?: Record<string, string> } } } | undefined)?._zod.def;
      return keyDef?.entries ? Object.values(keyDef.entries) : [];
    }
    if (def.shape) node = def.shape[String(path[i])];
    else if (def.valueType) node = def.valueType;
    else if (def.element) node = def.element;
    else return [];
    i++;
  }
  return [];
}
