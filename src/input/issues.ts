import { closest, distance } from 'fastest-levenshtein';
import { z } from 'zod';
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
 * Keys people bring from Karpenter v0.x, from other tools or from the NodePool itself, and
 * where the thing lives in this config; undefined where the key is right for that place.
 */
const KEY_HINTS: Readonly<Record<string, (parent: string | number | undefined) => string | undefined>> = {
  allowLatest: (parent) => (parent === 'ami' ? undefined : 'it belongs under ami, next to the alias: ami: { alias: al2023@latest, allowLatest: true }'),
  instanceSizes: () => INSTANCE_SIZE_HINT,
  instanceSize: () => INSTANCE_SIZE_HINT,
  ttlSecondsAfterEmpty: () => 'a Karpenter v0.x Provisioner field: in v1 write disruption: { consolidationPolicy: WhenEmpty, consolidateAfter: 30s }',
  ttlSecondsUntilExpired: () => 'a Karpenter v0.x Provisioner field: in v1 it is expireAfter on the pool (e.g. expireAfter: 720h)',
  consolidation: () => 'a Karpenter v0.x Provisioner field: in v1 write disruption: { consolidationPolicy: WhenEmptyOrUnderutilized }',
  expireAfter: (parent) => (parent === 'disruption' ? 'Karpenter v1 moved expireAfter out of disruption: set expireAfter on the pool itself' : undefined),
  amiFamily: () => 'write ami: { family: AL2023, alias: al2023@v20260409 }: the EC2NodeClass amiFamily and amiSelectorTerms are made from it',
  providerRef: () => NODE_CLASS_HINT,
  nodeClassRef: () => NODE_CLASS_HINT,
};
const INSTANCE_SIZE_HINT = 'there is no such field: add a requirement, requirements: [{ key: karpenter.k8s.aws/instance-size, operator: In, values: [large, xlarge] }]';
const NODE_CLASS_HINT = 'every pool gets its own EC2NodeClass, and the NodePool points at it: set its fields (ami, volume, subnetSelectorTerms, ...) on the pool';

/** Values of Karpenter v0.x (v1beta1) and what v1 calls them. */
const RENAMED_VALUES: Readonly<Record<string, string>> = {
  WhenUnderutilized: 'WhenEmptyOrUnderutilized',
};

/** {@link unknownKeyMessage}, or what the key is and where it belongs here when it is a known stumble. */
export function unknownKeyAt(path: readonly (string | number)[], given: string, known: readonly string[]): string {
  const hint = Object.hasOwn(KEY_HINTS, given) ? KEY_HINTS[given](path[path.length - 1]) : undefined;
  return hint ? `unknown key "${given}": ${hint}` : unknownKeyMessage('key', given, known);
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
  // Keys written under a key that has no value (`limits:` then `cpu: "4"` at the same indentation)
  // are one mistake: the indentation. Say so at each key, and not also that the empty key is null.
  const unindented = new Map<string, string>();
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const parent = valueAt(data, issue.path as Path);
    if (parent === null || typeof parent !== 'object') continue;
    const keys = Object.keys(parent);
    for (const key of issue.keys) {
      const before = keys[keys.indexOf(key) - 1];
      const owner = before !== undefined && (parent as Record<string, unknown>)[before] === null && !issue.keys.includes(before) ? before
        : [...unindented.entries()].find(([k]) => k === JSON.stringify([...issue.path, before]))?.[1];
      if (owner === undefined || !acceptsMap(schema, [...issue.path as Path, owner])) continue;
      unindented.set(JSON.stringify([...issue.path, key]), owner);
    }
  }
  const emptied = new Set([...unindented.entries()].map(([k, owner]) => JSON.stringify([...(JSON.parse(k) as Path).slice(0, -1), owner])));
  for (const issue of issues) {
    const path = issue.path as Path;
    if (misspelt.has(JSON.stringify(path)) && valueAt(data, path) === undefined) continue;
    if (issue.code === 'invalid_type' && emptied.has(JSON.stringify(path))) continue;
    switch (issue.code) {
      case 'unrecognized_keys': {
        // A strict object lists its keys; a partial record keyed by an enum lists the enum.
        const known = knownKeysAt(schema, path);
        for (const key of issue.keys) {
          const owner = unindented.get(JSON.stringify([...path, key]));
          const message = owner !== undefined
            ? `unknown key "${key}" here; it looks like a key of ${owner}, which has no value: indent it under ${owner}`
            : unknownKeyAt(path, key, known);
          out.push(source.problem([...path, key], message, 'key'));
        }
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
        out.push(source.problem(path, issue.message === 'Invalid input' ? `${describeValue(valueAt(data, path))} is not allowed here` : issue.message));
        break;
      default:
        out.push(source.problem(path, messageOf(issue, valueAt(data, path), source.sourceText(path))));
    }
  }
  return out;
}

/** `written` is the value's source text (`1.30` where the parser read the number 1.3): advice quotes what the user wrote. */
function messageOf(issue: z.core.$ZodIssue, given: unknown, written?: string): string {
  // Messages we wrote in the schema are kept; zod's own ("Invalid ...", "Too small ...") are reworded.
  const own = isOwn(issue);
  switch (issue.code) {
    case 'invalid_type':
      if (given === undefined) return `required field is missing (expected ${issue.expected})`;
      if (issue.expected === 'string' && typeof given === 'number') return `expected a string, got number ${written ?? String(given)} (quote it: "${written ?? String(given)}")`;
      if (issue.expected === 'int') return `expected a whole number, got ${describeValue(given)}`;
      return `expected ${ZOD_TYPE_WORDS[issue.expected] ?? article(issue.expected)}, got ${describeValue(given)}`;
    case 'invalid_value':
      if (given === undefined) return `required field is missing (allowed: ${issue.values.map(String).join(', ')})`;
      if (typeof given === 'string' && Object.hasOwn(RENAMED_VALUES, given) && issue.values.includes(RENAMED_VALUES[given])) {
        return `"${given}" is the Karpenter v0.x name: in v1 it is ${RENAMED_VALUES[given]} (allowed: ${issue.values.map(String).join(', ')})`;
      }
      return `unknown value ${describeValue(given)} (allowed: ${issue.values.map(String).join(', ')})`;
    case 'too_small':
      if (own) return issue.message;
      if (issue.origin === 'array') return `needs at least ${issue.minimum} item(s)`;
      if (issue.origin === 'string') return issue.minimum === 1 ? 'must not be empty' : `must be at least ${issue.minimum} characters`;
      // positive() is more than 0, not at least 0.
      return `must be ${issue.inclusive === false ? 'more than' : 'at least'} ${issue.minimum}, got ${describeValue(given)}`;
    case 'too_big':
      if (own) return issue.message;
      if (issue.origin === 'array') return `at most ${issue.maximum} item(s) allowed`;
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters`;
      return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${issue.maximum}, got ${describeValue(given)}`;
    case 'invalid_format':
      return own ? `${describeValue(given)}: ${issue.message}` : `${describeValue(given)} has an invalid format`;
    default:
      return issue.message;
  }
}

/** Whether the message is one we wrote in the schema (zod's own start with "Invalid", "Too small", ...). */
function isOwn(issue: z.core.$ZodIssue): boolean {
  return !/^(Invalid|Too (small|big)|Expected|Unrecognized)/.test(issue.message);
}

/** zod's names of types, in the words of a YAML file. */
const ZOD_TYPE_WORDS: Readonly<Record<string, string>> = {
  record: 'a map', object: 'a map', map: 'a map', array: 'a list', tuple: 'a list', set: 'a list', boolean: 'true or false', int: 'a whole number',
};

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** Longest string a message quotes whole; a longer one is quoted by its start and its length. */
const QUOTED_CHARS = 80;

/**
 * A value as a message says it: `null`, `a list`, `a map`, a string quoted (a long one by its
 * start and length: a file given by mistake is not echoed), `number 3`, `nothing`.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') {
    return value.length <= QUOTED_CHARS ? JSON.stringify(value) : `${JSON.stringify(value.slice(0, QUOTED_CHARS / 2))}… (${value.length} characters)`;
  }
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

/** Whether the schema at `path` takes a map (an object or a record), so keys could go under it. */
function acceptsMap(schema: z.ZodType, path: Path): boolean {
  const node = nodeAt(schema, path);
  if (!node) return false;
  if (node.map) return true;
  return node.schema instanceof z.ZodRecord || node.schema instanceof z.ZodObject;
}

/** The keys the schema allows for the object found at `path` (for "did you mean"). */
export function knownKeysAt(schema: z.ZodType, path: Path): string[] {
  const node = nodeAt(schema, path);
  const enumValues = (key: z.core.$ZodType) => (key instanceof z.ZodEnum ? key.options.map(String) : []);
  if (!node) return [];
  if (node.map) return enumValues(node.map.key);
  if (node.schema instanceof z.ZodObject) return Object.keys(node.schema.shape).filter((k) => k !== '$schema');
  if (node.schema instanceof z.ZodRecord) return enumValues(node.schema.keyType);
  return [];
}

/**
 * The schema node at `path`, past optional/nullable wrappers and pipes, taking the object
 * member of a union; a user map (`userMap`) is returned with its parts.
 */
function nodeAt(schema: z.ZodType, path: Path): { schema: z.core.$ZodType; map?: { key: z.ZodType; value: z.ZodType } } | undefined {
  let node: z.core.$ZodType | undefined = schema;
  for (let i = 0; i <= path.length && node; ) {
    const map = userMapParts(node);
    if (map) {
      if (i === path.length) return { schema: node, map };
      node = map.value;
      i++;
      continue;
    }
    if (node instanceof z.ZodOptional || node instanceof z.ZodNullable || node instanceof z.ZodDefault || node instanceof z.ZodReadonly) { node = node.unwrap(); continue; }
    if (node instanceof z.ZodPipe) { node = node.in; continue; }
    if (node instanceof z.ZodUnion) {
      node = node.options.find((o) => o instanceof z.ZodObject);
      continue;
    }
    if (i === path.length) return { schema: node };
    if (node instanceof z.ZodObject) node = node.shape[String(path[i])];
    else if (node instanceof z.ZodRecord) node = node.valueType;
    else if (node instanceof z.ZodArray) node = node.element;
    else return undefined;
    i++;
  }
  return undefined;
}
