import { relative } from 'node:path';
import { Alias, Document, isAlias, isMap, isPair, isScalar, isSeq, LineCounter, Node, Pair, parseAllDocuments, parseDocument, Scalar, visit, YAMLMap } from 'yaml';
import { InputOptions, readInput } from './input-file';
import { FieldPath, Problem, renderPath } from './problems';
import { withoutPrototypes } from './user-map';

/** The tags a config may use: YAML's core schema. Others (`!!binary`, `!!set`, `!!timestamp`, `!custom`) are errors. */
const CORE_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));

/**
 * Most values the aliases of a file may expand to. A real DRY config (one `ami` anchor used
 * by every team of a large fleet) stays far below it; an alias bomb (aliases of aliases,
 * each level multiplying) reaches it after a few levels, before anything is expanded.
 */
export const MAX_EXPANDED_VALUES = 1_000_000;

/**
 * A YAML or JSON input file parsed with source positions, so that every problem can name
 * the line and column of the field it is about. Only plain data gets through: core tags,
 * string keys (an unquoted `1e3:` or `yes:` key is an error that says to quote it),
 * resolvable aliases, merge keys onto maps, and a bounded alias expansion.
 */
export class SourceFile {
  /**
   * Reads and parses a file. Unreadable files, syntax errors and the problems above are
   * returned as problems rather than thrown; `value` is then undefined.
   */
  public static read(path: string, options: InputOptions, displayPath: string = relative(process.cwd(), path) || path): SourceFile {
    const text = readInput(path, displayPath, options);
    if (typeof text !== 'string') return new SourceFile(displayPath, undefined, new LineCounter(), [text]);
    return SourceFile.parse(text, displayPath);
  }

  /** Parses text already in memory (tests, JSON files). */
  public static parse(text: string, displayPath: string): SourceFile {
    const lineCounter = new LineCounter();
    const doc = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: true, merge: true });
    return SourceFile.checked(doc, lineCounter, displayPath, { left: MAX_EXPANDED_VALUES });
  }

  /**
   * Reads a stream of YAML documents separated by `---` (a Kubernetes manifest), each
   * parsed and held to the same rules as {@link read}; the alias bound applies to the
   * whole file. Documents with no content (a trailing `---`, only comments) are left out.
   * An unreadable file gives one SourceFile holding the problem.
   */
  public static readDocuments(path: string, options: InputOptions, displayPath: string = relative(process.cwd(), path) || path): SourceFile[] {
    const text = readInput(path, displayPath, options);
    if (typeof text !== 'string') return [new SourceFile(displayPath, undefined, new LineCounter(), [text])];
    return SourceFile.parseDocuments(text, displayPath);
  }

  /** {@link readDocuments} on text already in memory. */
  public static parseDocuments(text: string, displayPath: string): SourceFile[] {
    const lineCounter = new LineCounter();
    const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: false, prettyErrors: true, merge: true });
    const budget = { left: MAX_EXPANDED_VALUES };
    // A document of nothing (a `---` at either end, only comments, `null`) holds no object.
    const empty = (doc: Document) => doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null);
    return [...docs]
      .filter((doc) => doc.errors.length > 0 || !empty(doc))
      .map((doc) => SourceFile.checked(doc, lineCounter, displayPath, budget));
  }

  /** A parsed document with its syntax problems, or else the problems that make it unfit as plain data. */
  private static checked(doc: Document, lineCounter: LineCounter, displayPath: string, budget: { left: number }): SourceFile {
    const at = (offset: number) => lineCounter.linePos(offset);
    const problems: Problem[] = syntaxErrors([...doc.errors, ...doc.warnings]).map((e) => {
      const pos = e.linePos?.[0] ?? at(e.pos[0]);
      const message = e.code === 'TAG_RESOLVE_FAILED' ? unsupportedTag(/!\S*/.exec(e.message)?.[0] ?? 'tag') : yamlMessage(e.message);
      return { file: displayPath, line: pos.line, col: pos.col, path: '', message };
    });
    const targets = new Map<Alias, Node>();
    if (problems.length === 0) {
      for (const { offset, message } of dataProblems(doc, targets, (offset) => at(offset).line, budget)) {
        const pos = at(offset);
        problems.push({ file: displayPath, line: pos.line, col: pos.col, path: '', message });
      }
    }
    return new SourceFile(displayPath, problems.length ? undefined : doc, lineCounter, problems, targets);
  }

  private readonly keyIndex = new WeakMap<YAMLMap, Map<string, Pair>>();
  private cached?: { value: unknown };

  private constructor(
    /** Path shown in messages. */
    public readonly displayPath: string,
    private readonly doc: Document | undefined,
    private readonly lineCounter: LineCounter,
    /** Problems found while reading or parsing. */
    public readonly problems: readonly Problem[],
    /** The node each alias stands for. */
    private readonly aliases: ReadonlyMap<Alias, Node> = new Map(),
  ) {}

  /**
   * The parsed content as plain JavaScript data (computed once), its maps without a
   * prototype so that keys such as `constructor` or `__proto__` are ordinary keys;
   * undefined when parsing failed.
   */
  public get value(): unknown {
    // Expansion is bounded by dataProblems(), so yaml's own alias heuristic is not needed.
    this.cached ??= { value: withoutPrototypes(this.doc?.toJS({ maxAliasCount: -1 })) };
    return this.cached.value;
  }

  /**
   * Builds a problem located at `path`. With `at: 'key'` it points at the map key
   * (unknown keys); otherwise at the value. A path that does not exist in the file
   * (a missing field) points at the nearest parent that does.
   */
  public problem(path: FieldPath, message: string, at: 'key' | 'value' = 'value'): Problem {
    const [line, col] = this.position(path, at);
    return { file: this.displayPath, line, col, path: renderPath(path), message };
  }

  /**
   * The text a scalar was written as (`1.30` for a value the parser read as the number 1.3),
   * so advice can quote what the user wrote; undefined when the path is not a scalar of the file.
   */
  public sourceText(path: FieldPath): string | undefined {
    let node: unknown = this.doc?.contents;
    for (const seg of path) {
      if (isAlias(node)) node = this.aliases.get(node);
      if (isMap(node)) node = this.pairs(node).get(String(seg))?.value;
      else if (isSeq(node) && typeof seg === 'number') node = node.items[seg];
      else return undefined;
    }
    if (isAlias(node)) node = this.aliases.get(node);
    return isScalar(node) && typeof node.source === 'string' ? node.source : undefined;
  }

  private position(path: FieldPath, at: 'key' | 'value'): [number, number] {
    if (!this.doc) return [0, 0];
    let node: unknown = this.doc.contents;
    let offset = rangeStart(node) ?? 0;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      const last = i === path.length - 1;
      if (isAlias(node)) node = this.aliases.get(node);
      if (isMap(node)) {
        const pair = this.pairs(node).get(String(seg));
        if (!pair) break;
        const keyStart = rangeStart(pair.key);
        if (last && at === 'key' && keyStart !== undefined) {
          offset = keyStart;
          break;
        }
        node = pair.value;
        offset = rangeStart(node) ?? keyStart ?? offset;
      } else if (isSeq(node) && typeof seg === 'number') {
        const item = node.items[seg];
        if (item === undefined) break;
        node = item;
        offset = rangeStart(node) ?? offset;
      } else {
        break;
      }
    }
    const pos = this.lineCounter.linePos(offset);
    return [pos.line, pos.col];
  }

  /** The pairs of a map by key, indexed once: locating thousands of problems stays linear. */
  private pairs(map: YAMLMap): Map<string, Pair> {
    let index = this.keyIndex.get(map);
    if (!index) {
      index = new Map();
      for (const p of map.items) if (isPair(p) && isScalar(p.key) && !index.has(String(p.key.value))) index.set(String(p.key.value), p);
      this.keyIndex.set(map, index);
    }
    return index;
  }
}

/**
 * What makes a well-formed YAML document unfit as plain data: tags beyond the core schema,
 * keys that are not strings as written, duplicate keys, unknown aliases, merge keys onto
 * anything but maps, and aliases that expand beyond {@link MAX_EXPANDED_VALUES}.
 */
function dataProblems(
  doc: Document, targets: Map<Alias, Node>, lineOf: (offset: number) => number, budget: { left: number },
): { offset: number; message: string }[] {
  const out: { offset: number; message: string }[] = [];
  const add = (node: unknown, message: string) => out.push({ offset: rangeStart(node) ?? 0, message });
  // Aliases resolved in one pass into `targets` (yaml's Alias.resolve searches the whole document each time).
  const anchors = new Map<string, Node>();
  visit(doc, {
    Node(_, node, path) {
      if (node.tag !== undefined && !CORE_TAGS.has(node.tag)) {
        add(node, unsupportedTag(node.tag.replace('tag:yaml.org,2002:', '!!')));
      }
      if (isAlias(node)) {
        const target = anchors.get(node.source);
        if (target === undefined) add(node, `alias *${node.source} has no anchor &${node.source} before it`);
        else if (path.includes(target)) add(node, `alias *${node.source} is inside the value it refers to`);
        else targets.set(node, target);
      } else if (node.anchor) {
        anchors.set(node.anchor, node);
      }
    },
  });
  if (out.length) return out;
  const resolve = (v: unknown): unknown => (isAlias(v) ? targets.get(v) : v);
  visit(doc, { Map(_, map) { out.push(...keyProblems(map, resolve, lineOf)); } });
  if (out.length === 0) {
    // One budget for every document of a file: a stream of small alias bombs stays bounded too.
    // Said once per file: the documents after the one that exhausts it are not expanded either.
    const size = budget.left < 0 ? 0 : expandedSize(doc, resolve);
    if (size > budget.left && budget.left >= 0) add(doc.contents, `the aliases of this file expand to more than ${MAX_EXPANDED_VALUES} values: use fewer nested aliases`);
    budget.left -= size > budget.left ? budget.left + 1 : size;
  }
  return out;
}

function keyProblems(map: YAMLMap, resolve: (v: unknown) => unknown, lineOf: (offset: number) => number): { offset: number; message: string }[] {
  const out: { offset: number; message: string }[] = [];
  const seen = new Map<string, Scalar>();
  for (const pair of map.items) {
    const key = pair.key;
    if (isScalar(key) && typeof key.value === 'symbol') {
      if (!isMergeSource(pair.value, resolve)) out.push({ offset: rangeStart(key) ?? 0, message: 'merge key << needs a map, an alias of a map, or a list of them' });
      continue;
    }
    if (!isScalar(key) || key.value === null || key.value === undefined || key.value === '') {
      out.push({ offset: rangeStart(key) ?? rangeStart(pair.value) ?? 0, message: 'keys must be names: write a string key before the colon' });
      continue;
    }
    if (typeof key.value !== 'string') {
      const written = key.source ?? String(key.value);
      out.push({
        offset: rangeStart(key) ?? 0,
        message: `key ${written} is read as the ${typeof key.value === 'boolean' ? 'boolean' : 'number'} ${String(key.value)}: quote it ("${written}") to use it as a name`,
      });
      continue;
    }
    const first = seen.get(key.value);
    if (first) {
      out.push({ offset: rangeStart(key) ?? 0, message: `duplicate key "${key.value}" (first at line ${lineOf(rangeStart(first) ?? 0)}): each key may appear once in a map` });
    } else {
      seen.set(key.value, key);
    }
  }
  return out;
}

function isMergeSource(value: unknown, resolve: (v: unknown) => unknown): boolean {
  const isMapOrAlias = (v: unknown) => isMap(resolve(v));
  return isMapOrAlias(value) || (isSeq(value) && value.items.length > 0 && value.items.every(isMapOrAlias));
}

/** How many values the document holds once every alias is expanded, computed without expanding. */
function expandedSize(doc: Document, resolve: (v: unknown) => unknown): number {
  const memo = new Map<unknown, number>();
  const size = (node: unknown): number => {
    const target = resolve(node);
    if (!target || typeof target !== 'object') return 1;
    const known = memo.get(target);
    if (known !== undefined) return known;
    let n = 1;
    if (isMap(target)) for (const p of target.items) n += size(p.key) + size(p.value);
    else if (isSeq(target)) for (const item of target.items) n += size(item);
    memo.set(target, Math.min(n, MAX_EXPANDED_VALUES + 1));
    return memo.get(target) ?? n;
  };
  return size(doc.contents);
}

function unsupportedTag(tag: string): string {
  return `YAML tag ${tag} is not supported: write plain maps, lists, strings, numbers and booleans`;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}

/**
 * The syntax errors worth showing: after the first one the parser is guessing, and its later
 * errors mostly echo it (one tab or one wrong indent gave four). Every tab used as indentation
 * is shown (each is its own fix), and nothing else then; otherwise the first error only.
 */
function syntaxErrors<E extends { readonly message: string; readonly code: string }>(errors: readonly E[]): E[] {
  const tabs = errors.filter((e) => e.code === 'TAB_AS_INDENT' || /^Tabs are not allowed as indentation/.test(e.message));
  return tabs.length > 0 ? tabs : errors.slice(0, 1);
}

/** The yaml library's messages that leave a person guessing, and what they mean in a config file. */
const YAML_MESSAGES: readonly (readonly [RegExp, string])[] = [
  [/^Tabs are not allowed as indentation/, 'a tab indents this line: YAML indents with spaces only (replace the tab with spaces)'],
  [/^All mapping items must start at the same column/,
    'this key is not lined up with the keys above it in the same map: indent it exactly like them (YAML reads the structure from the indentation)'],
  [/^Nested mappings are not allowed in compact mappings/,
    'a key: value follows another key on the same line (a: b: c): write the inner map as a: { b: c }, or put b: c on its own line, indented under a'],
  [/^Sequence item without - indicator/,
    'this line is indented like part of the list above but is not an item (no -): indent it like the other keys of its item, or start a new item with -'],
  [/^Implicit (map )?keys need to be/, 'this line is not key: value (the key, a colon and a space, then the value) nor a list item (- value): add the colon, or quote a value that holds ": "'],
  [/^Flow sequence in block collection must be sufficiently indented and end with a \]/, 'a [ list above is not closed: end it with ] (a list on several lines must be indented under its key)'],
  [/^Flow mapping in block collection must be sufficiently indented and end with a \}/, 'a { map above is not closed: end it with } (a map on several lines must be indented under its key)'],
  [/^Missing closing "?quote/, 'a quoted value is not closed: add the closing quote on the same line'],
];

function yamlMessage(message: string): string {
  // The yaml library's messages start with a capital and may span lines; keep the first line.
  const first = message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  const known = YAML_MESSAGES.find(([pattern]) => pattern.test(first));
  return `invalid YAML: ${known ? known[1] : `${first.charAt(0).toLowerCase()}${first.slice(1)}`}`;
}
