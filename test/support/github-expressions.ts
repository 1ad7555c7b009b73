/**
 * GitHub Actions' expression language (`${{ … }}`), as much of it as our workflows' job-level
 * keys use, written from GitHub's reference ("Evaluate expressions in workflows and actions",
 * https://docs.github.com/en/actions/reference/workflows-and-actions/expressions, read 2026-12;
 * the runner it is checked against is MODELS.githubActions, test/support/upstream.ts):
 *
 * - Literals: `true`, `false`, `null`, numbers in any JSON format (and `0x` hex), strings in
 *   single quotes with `''` for a quote; double quotes are an error ("Literals").
 * - Operators, tightest first: `( )`, `[ ]`, `.`, `!`, `< <= > >=`, `== !=`, `&&`, `||`
 *   ("Operators"). `&&` and `||` return one of their operands, as in JavaScript: the same page's
 *   example `${{ github.ref == 'refs/heads/main' && 'value_for_main_branch' || 'value_for_other_branches' }}`.
 * - Equality is loose: "GitHub ignores case when comparing strings"; operands of different
 *   types are coerced to numbers (null → 0, true → 1, a string → its JSON number, '' → 0, else
 *   NaN; arrays and objects → NaN); NaN equals nothing; arrays and objects are equal only when
 *   they are the same instance ("Operators", the coercion table).
 * - Falsy: false, 0, -0, '', null (and NaN); everything else is truthy ("Literals").
 * - `.*` filters an array to its items, and a property of a filtered array is that property of
 *   each item ("Object filters": `github.event.issue.labels.*.name`).
 * - A property that does not exist evaluates to '' ("Contexts reference": "If you attempt to
 *   dereference a nonexistent property, it will evaluate to an empty string", added by
 *   github/docs#17089).
 * - Functions: `contains` (a string's substring, case-insensitive, or an array's element by loose
 *   equality), `startsWith` (case-insensitive), `fromJSON`, `toJSON` ("Functions").
 *   The status functions `success() failure() always() cancelled()` are the caller's: their
 *   meaning depends on where the expression is (github-jobs.ts, job level).
 *
 * Anything else (another function, a context the caller does not give, `"double quotes"`, a
 * stray character) throws: the model never guesses a value for syntax it does not know.
 */

/** A value of an expression. */
export type Value = null | boolean | number | string | readonly Value[] | { readonly [key: string]: Value } | Filtered;

/** The result of `.*`: an array whose property access maps over the items ("Object filters"). */
export class Filtered {
  /** @param items the items the filter selected */
  constructor(readonly items: readonly Value[]) {}
}

type Node =
  | { readonly kind: 'literal'; readonly value: Value }
  | { readonly kind: 'context'; readonly name: string }
  | { readonly kind: 'property'; readonly of: Node; readonly name: string }
  | { readonly kind: 'index'; readonly of: Node; readonly index: Node }
  | { readonly kind: 'filter'; readonly of: Node }
  | { readonly kind: 'not'; readonly of: Node }
  | { readonly kind: 'binary'; readonly op: string; readonly left: Node; readonly right: Node }
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Node[] };

/** The names the status functions have (case-insensitive in GitHub, as every function name). */
export const STATUS_FUNCTIONS = ['success', 'failure', 'always', 'cancelled'] as const;

/** What an expression is evaluated with. */
export interface Scope {
  /** The contexts by name (`github`, `needs`, `vars`, `matrix`, …); a name not here throws. */
  readonly contexts: Readonly<Record<string, Value>>;
  /** The status functions' values here. @default - a status function throws */
  readonly status?: (name: (typeof STATUS_FUNCTIONS)[number]) => boolean;
}

const TOKEN = /\s*(?:(0x[0-9a-fA-F]+|-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|('(?:[^']|'')*')|([A-Za-z_][\w-]*)|(==|!=|<=|>=|&&|\|\||[()[\].!<>,*]))/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(text);
    if (!m) {
      const char = text.slice(at).trim()[0];
      throw new Error(`expression ${JSON.stringify(text)}: unexpected ${char} at ${at}${char === '"' ? ' (double quotes are an error: strings take single quotes)' : " (the model knows GitHub's literals, operators, contexts and a few functions only)"}`);
    }
    tokens.push(m[1] ?? m[2] ?? m[3] ?? m[4] ?? '');
    at = TOKEN.lastIndex;
  }
  return tokens;
}

class Parser {
  private at = 0;
  constructor(private readonly text: string, private readonly tokens: readonly string[]) {}

  parse(): Node {
    const node = this.or();
    if (this.at < this.tokens.length) this.fail(`unexpected ${this.tokens[this.at]}`);
    return node;
  }

  private fail(why: string): never {
    throw new Error(`expression ${JSON.stringify(this.text)}: ${why}`);
  }
  private peek(): string | undefined { return this.tokens[this.at]; }
  private take(expected?: string): string {
    const token = this.tokens[this.at];
    if (token === undefined) this.fail(`ends early${expected ? `: ${expected} expected` : ''}`);
    if (expected !== undefined && token !== expected) this.fail(`${expected} expected, ${token} found`);
    this.at += 1;
    return token;
  }
  private binary(ops: readonly string[], next: () => Node): Node {
    let left = next();
    for (let op = this.peek(); op !== undefined && ops.includes(op); op = this.peek()) {
      this.take();
      left = { kind: 'binary', op, left, right: next() };
    }
    return left;
  }
  private or(): Node { return this.binary(['||'], () => this.and()); }
  private and(): Node { return this.binary(['&&'], () => this.equality()); }
  private equality(): Node { return this.binary(['==', '!='], () => this.comparison()); }
  private comparison(): Node { return this.binary(['<', '<=', '>', '>='], () => this.unary()); }
  private unary(): Node {
    if (this.peek() === '!') { this.take(); return { kind: 'not', of: this.unary() }; }
    return this.postfix(this.primary());
  }
  private postfix(start: Node): Node {
    let node = start;
    for (;;) {
      if (this.peek() === '.') {
        this.take();
        const name = this.take();
        node = name === '*' ? { kind: 'filter', of: node } : /^[A-Za-z_][\w-]*$/.test(name) ? { kind: 'property', of: node, name } : this.fail(`property name expected after ., ${name} found`);
      } else if (this.peek() === '[') {
        this.take();
        const index = this.peek() === '*' ? (this.take(), undefined) : this.or();
        this.take(']');
        node = index === undefined ? { kind: 'filter', of: node } : { kind: 'index', of: node, index };
      } else return node;
    }
  }
  private primary(): Node {
    const token = this.take();
    if (token === '(') { const inner = this.or(); this.take(')'); return inner; }
    if (token.startsWith("'")) return { kind: 'literal', value: token.slice(1, -1).replace(/''/g, "'") };
    if (/^(0x|-?\d|-?\.\d)/.test(token)) return { kind: 'literal', value: Number(token) };
    if (!/^[A-Za-z_]/.test(token)) this.fail(`unexpected ${token}`);
    const word = token.toLowerCase();
    if (word === 'true' || word === 'false') return { kind: 'literal', value: word === 'true' };
    if (word === 'null') return { kind: 'literal', value: null };
    if (this.peek() !== '(') return { kind: 'context', name: token };
    this.take('(');
    const args: Node[] = [];
    while (this.peek() !== ')') {
      if (args.length > 0) this.take(',');
      args.push(this.or());
    }
    this.take(')');
    return { kind: 'call', name: word, args };
  }
}

/** The parsed expression of `text` (without `${{ }}`); throws on syntax the model does not know. */
export function parseExpression(text: string): Node {
  return new Parser(text, tokenize(text)).parse();
}

/** The function names an expression calls, lowercased. */
export function calledFunctions(node: Node): string[] {
  switch (node.kind) {
    case 'literal': case 'context': return [];
    case 'property': case 'filter': case 'not': return calledFunctions(node.of);
    case 'index': return [...calledFunctions(node.of), ...calledFunctions(node.index)];
    case 'binary': return [...calledFunctions(node.left), ...calledFunctions(node.right)];
    case 'call': return [node.name, ...node.args.flatMap(calledFunctions)];
  }
}

/** The `needs.<id>` job ids an expression reads. */
export function neededJobs(node: Node): string[] {
  switch (node.kind) {
    case 'literal': case 'context': return [];
    case 'property':
      return node.of.kind === 'context' && node.of.name === 'needs' ? [node.name] : neededJobs(node.of);
    case 'filter': case 'not': return neededJobs(node.of);
    case 'index': return [...neededJobs(node.of), ...neededJobs(node.index)];
    case 'binary': return [...neededJobs(node.left), ...neededJobs(node.right)];
    case 'call': return node.args.flatMap(neededJobs);
  }
}

/** Whether `value` is true in a condition ("Literals": the falsy values). */
export function truthy(value: Value): boolean {
  return !(value === false || value === null || value === '' || value === 0 || Number.isNaN(value));
}

function toNumber(value: Value): number {
  if (value === null) return 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    if (value.trim() === '') return 0;
    try { const parsed: unknown = JSON.parse(value); return typeof parsed === 'number' ? parsed : NaN; } catch { return NaN; }
  }
  return NaN;
}

const isComposite = (v: Value): boolean => v !== null && typeof v === 'object';

/** GitHub's loose equality ("Operators"). */
export function looseEquals(a: Value, b: Value): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  if (isComposite(a) || isComposite(b)) return a === b;
  if (typeof a === typeof b && typeof a !== 'string') return a === b;
  return toNumber(a) === toNumber(b);
}

function compare(op: string, a: Value, b: Value): boolean {
  const [x, y] = typeof a === 'string' && typeof b === 'string' ? [a.toLowerCase(), b.toLowerCase()] : [toNumber(a), toNumber(b)];
  if (op === '<') return x < y;
  if (op === '<=') return x <= y;
  if (op === '>') return x > y;
  return x >= y;
}

/** A value as GitHub writes it into a string (`${{ }}` in a longer string, `format`). */
export function asString(value: Value): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`an array or object where a string is expected: ${toJSON(value)}`);
}

function toJSON(value: Value): string {
  return JSON.stringify(value instanceof Filtered ? value.items : value, (_k, v: unknown) => (v instanceof Filtered ? v.items : v), 2);
}

function fromJSON(text: Value): Value {
  if (typeof text !== 'string') throw new Error(`fromJSON of a ${text === null ? 'null' : typeof text}: a string is expected`);
  try {
    const parsed: unknown = JSON.parse(text);
    return jsonValue(parsed);
  } catch (error) {
    throw new Error(`fromJSON(${JSON.stringify(text)}): ${error instanceof Error ? error.message : String(error)}`);
  }
}

function jsonValue(value: unknown): Value {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(jsonValue);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonValue(v)]));
  throw new Error(`not JSON: ${String(value)}`);
}

function property(of: Value, name: string): Value {
  if (of instanceof Filtered) return new Filtered(of.items.map((item) => property(item, name)).filter((v) => v !== ''));
  if (of === null || typeof of !== 'object' || Array.isArray(of)) return '';
  const key = Object.keys(of).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? '' : (of as { readonly [key: string]: Value })[key] ?? '';
}

function index(of: Value, at: Value): Value {
  if (Array.isArray(of)) return typeof at === 'number' ? (of as readonly Value[])[at] ?? null : null;
  return typeof at === 'string' ? property(of, at) : null;
}

function call(name: string, args: readonly Value[], scope: Scope): Value {
  const arity = (n: number) => { if (args.length !== n) throw new Error(`${name}() takes ${n} argument(s), ${args.length} given`); };
  const status = STATUS_FUNCTIONS.find((s) => s === name);
  if (status) {
    arity(0); // success('job') and failure('job') exist but are undocumented (actions/runner#491): the model refuses them
    if (!scope.status) throw new Error(`${name}() is not available here`);
    return scope.status(status);
  }
  const [a = null, b = null] = args;
  switch (name) {
    case 'contains': {
      arity(2);
      if (a instanceof Filtered || Array.isArray(a)) return (a instanceof Filtered ? a.items : (a as readonly Value[])).some((item) => looseEquals(item, b));
      return asString(a).toLowerCase().includes(asString(b).toLowerCase());
    }
    case 'startswith': arity(2); return asString(a).toLowerCase().startsWith(asString(b).toLowerCase());
    case 'fromjson': arity(1); return fromJSON(a);
    case 'tojson': arity(1); return toJSON(a);
    default: throw new Error(`the function ${name}() is not in the model (github-expressions.ts)`);
  }
}

/** The value of a parsed expression in `scope`. */
export function evaluate(node: Node, scope: Scope): Value {
  switch (node.kind) {
    case 'literal': return node.value;
    case 'context': {
      if (!Object.prototype.hasOwnProperty.call(scope.contexts, node.name)) throw new Error(`Unrecognized named-value: '${node.name}' (the contexts here: ${Object.keys(scope.contexts).join(', ')})`);
      return scope.contexts[node.name] ?? null;
    }
    case 'property': return property(evaluate(node.of, scope), node.name);
    case 'index': return index(evaluate(node.of, scope), evaluate(node.index, scope));
    case 'filter': {
      const of = evaluate(node.of, scope);
      if (of instanceof Filtered) return new Filtered(of.items.flatMap((item) => (Array.isArray(item) ? (item as readonly Value[]) : [])));
      if (Array.isArray(of)) return new Filtered(of as readonly Value[]);
      if (of !== null && typeof of === 'object') return new Filtered(Object.values(of));
      return new Filtered([]);
    }
    case 'not': return !truthy(evaluate(node.of, scope));
    case 'binary': {
      const left = evaluate(node.left, scope);
      if (node.op === '&&') return truthy(left) ? evaluate(node.right, scope) : left;
      if (node.op === '||') return truthy(left) ? left : evaluate(node.right, scope);
      const right = evaluate(node.right, scope);
      if (node.op === '==') return looseEquals(left, right);
      if (node.op === '!=') return !looseEquals(left, right);
      return compare(node.op, left, right);
    }
    case 'call': return call(node.name, node.args.map((arg) => evaluate(arg, scope)), scope);
  }
}

const WHOLE = /^\s*\$\{\{([\s\S]*?)\}\}\s*$/;

/**
 * A YAML value with `${{ }}` in it, as GitHub evaluates it: a value that is one `${{ }}` keeps its
 * type (a matrix from `fromJSON`), a string with `${{ }}` inside gets each as a string.
 */
export function interpolate(text: string, scope: Scope): Value {
  const whole = WHOLE.exec(text);
  if (whole && !whole[1].includes('${{')) return evaluate(parseExpression(whole[1]), scope);
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_m, inner: string) => asString(evaluate(parseExpression(inner), scope)));
}
