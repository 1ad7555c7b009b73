/**
 * A test-only model of the limits the Kubernetes API server puts on the CEL of a
 * ValidatingAdmissionPolicy, which @bufbuild/cel (what test/support/admission-policy.ts evaluates
 * with) does not enforce: the parser's size and nesting limits, and the runtime cost that cel-go
 * charges to each evaluation and to the budget of the evaluations of one binding.
 *
 * Written from cel-go v0.26.0 as Kubernetes 1.34 (k8s.io/apiserver v0.34.0) configures it; cel-go
 * v0.23.2 (Kubernetes 1.33) has the same macros, fold, attributes, decorators and `costCall`
 * (between the two tags the cost tracker only moved to per-evaluation state). Other versions are
 * refused by {@link assertCostModelCovers}. Only the runtime cost is modelled: the estimated
 * (static) cost is checked for CRD rules, not for admission policies.
 *
 * Exact, step by step as cel-go observes them (runtimecost.go `Observe`): identifiers and
 * selections, the qualifiers of an attribute (a presence test's qualifier included), constant
 * folding (constant list and map literals, `string()` of a constant, `in` a constant list as a set
 * lookup that is never charged), list and map creation, every call of the subset with the
 * overload the type checker resolves, short-circuit of `&&`, `||` and folds over lists, and the
 * attribute a ternary branch, an index or a presence test reads without observing it.
 *
 * Over-approximated, never under-counted:
 * - a call whose cost depends on the overload (`+`, `<`, `<=`, `>`, `>=`, `in`) with an operand
 *   whose declared type this model does not know (anything but `object`, `oldObject` and
 *   `params`, which Kubernetes declares `dyn`, literals, and what is computed from them) is
 *   charged the larger of the ambiguous call (1) and the overload the values select;
 * - `all()` and `exists()` over a map: cel-go iterates a map in Go's random order and stops at
 *   the first decisive element, so the cost has no single value; this model charges every
 *   element, which is at least the dearest order;
 * - evaluation does not stop at {@link PER_CALL_LIMIT}: the cost of the whole evaluation is
 *   reported, where cel-go cancels the evaluation as soon as it passes the limit.
 *
 * Anything outside the subset the project's policies use throws an `Error` (never a guessed cost):
 * see {@link evaluateWithCost}.
 * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/runtimecost.go
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/cel/environment/base.go#L62-L91
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/cel/environment/base.go#L208-L214
 * @see https://kubernetes.io/docs/reference/using-api/cel/#resource-constraints
 *
 * Upstream: MODELS.kubernetes (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import { parse } from '@bufbuild/cel';
import { compile } from './admission-policy';

// ==== Limits

/**
 * Largest runtime cost of one evaluation of one expression (and of one variable, which is its own
 * program); cel-go cancels an evaluation whose cost exceeds it ("operation cancelled: actual cost
 * limit exceeded").
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/apis/cel/config.go#L20-L22
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/cel/environment/base.go#L83-L85
 * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/runtimecost.go#L201-L203
 */
export const PER_CALL_LIMIT = 1_000_000;

/**
 * Runtime cost budget of the validations of one policy binding and parameter, the variables they
 * read included: running out of it fails the request ("validation failed due to running out of
 * cost budget, no further validation rules will be run").
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/apis/cel/config.go#L24-L26
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/cel/activation.go#L141-L180
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/policy/validating/validator.go#L109
 */
export const RUNTIME_COST_BUDGET = 10_000_000;

/**
 * Runtime cost budget of the `matchConditions` of one binding, separate from {@link RUNTIME_COST_BUDGET}.
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/apis/cel/config.go#L28-L31
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/webhook/matchconditions/matcher.go#L85
 */
export const MATCH_CONDITIONS_COST_BUDGET = 2_500_000;

/**
 * Largest expression the parser reads, in Unicode code points (not UTF-16 units, not bytes).
 * @see https://github.com/google/cel-go/blob/v0.26.0/parser/parser.go#L68-L70
 * @see https://github.com/google/cel-go/blob/v0.26.0/parser/parser.go#L112-L123
 */
export const EXPRESSION_SIZE_CODE_POINT_LIMIT = 100_000;

/**
 * Deepest nesting the parser accepts, checked twice: per grammar rule while parsing, and per
 * compound node while building the AST (see {@link expressionLimitProblems}).
 * @see https://github.com/google/cel-go/blob/v0.26.0/parser/parser.go#L53-L55
 */
export const MAX_RECURSION_DEPTH = 250;

/** The Kubernetes minor versions whose CEL this model was written from or checked against. */
const COVERED_KUBERNETES_MINORS = ['1.33', '1.34'];

/**
 * Throws unless the model covers a Kubernetes minor version: a cluster on another version runs
 * another cel-go whose costs this model was not checked against.
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/go.mod (github.com/google/cel-go v0.26.0)
 * @see https://github.com/kubernetes/apiserver/blob/v0.33.0/go.mod (github.com/google/cel-go v0.23.2)
 */
export function assertCostModelCovers(kubernetesMinor: string): void {
  if (!COVERED_KUBERNETES_MINORS.includes(kubernetesMinor)) {
    throw new Error(`cel-cost: Kubernetes ${kubernetesMinor} is not covered (covered: ${COVERED_KUBERNETES_MINORS.join(', ')}): re-read cel-go's interpreter/runtimecost.go at the version its apiserver pins and update test/support/cel-cost.ts`);
  }
}

// ==== What the parser refuses

type Token = { readonly kind: 'punct' | 'ident' | 'literal' | 'eof'; readonly text: string };

const PUNCTUATION = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '?', ':', '.', ',', '[', ']', '(', ')', '{', '}', '+', '-', '*', '/', '%'];
const NUMBER = /(?:0x[0-9a-fA-F]+|[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)[uU]?/y;
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;
const ESCAPED_IDENTIFIER = /`[A-Za-z0-9_.\-/ ]+`/y;

/** The tokens of an expression, as cel-go's lexer cuts them. @see https://github.com/google/cel-go/blob/v0.26.0/parser/gen/CEL.g4#L111-L206 */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const at = (re: RegExp) => {
    re.lastIndex = i;
    return re.exec(source)?.[0];
  };
  while (i < source.length) {
    const c = source[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') {
      i++;
      continue;
    }
    if (source.startsWith('//', i)) {
      const end = source.indexOf('\n', i);
      i = end < 0 ? source.length : end;
      continue;
    }
    const stringEnd = endOfString(source, i);
    if (stringEnd > i) {
      tokens.push({ kind: 'literal', text: source.slice(i, stringEnd) });
      i = stringEnd;
      continue;
    }
    const word = at(NUMBER) ?? at(IDENTIFIER) ?? at(ESCAPED_IDENTIFIER);
    if (word !== undefined) {
      const kind = /^[0-9.]/.test(word) || ['true', 'false', 'null'].includes(word) ? 'literal' : word === 'in' ? 'punct' : 'ident';
      tokens.push({ kind, text: word });
      i += word.length;
      continue;
    }
    const punct = PUNCTUATION.find((p) => source.startsWith(p, i));
    if (punct === undefined) throw new Error(`cel-cost: cannot read ${JSON.stringify(c)} at offset ${i} of the expression`);
    tokens.push({ kind: 'punct', text: punct });
    i += punct.length;
  }
  tokens.push({ kind: 'eof', text: '' });
  return tokens;
}

/** Where a string or bytes literal starting at `i` ends (`i` when none starts there). */
function endOfString(source: string, i: number): number {
  let j = i;
  if (source[j] === 'b' || source[j] === 'B') j++;
  const raw = source[j] === 'r' || source[j] === 'R';
  if (raw) j++;
  const quote = source[j];
  if (quote !== '"' && quote !== "'") return i;
  const close = source.startsWith(quote.repeat(3), j) ? quote.repeat(3) : quote;
  for (let k = j + close.length; k < source.length; k++) {
    if (!raw && source[k] === '\\') k++;
    else if (source.startsWith(close, k)) return k + close.length;
    else if (close.length === 1 && (source[k] === '\n' || source[k] === '\r')) break;
  }
  throw new Error(`cel-cost: unterminated string literal at offset ${i} of the expression`);
}

/** Thrown inside {@link RuleDepths} to stop at the first rule past the limit, as cel-go's listener panics. */
class ListenerLimit extends Error {}

/**
 * Replays the rule entries of cel-go's ANTLR parser over the tokens (the grammar's rules, with
 * ANTLR's left-recursion: `relation`, `calc` and `member` enter their rule once, once more for
 * each operator or postfix in the chain, and again for a binary operator's right operand), and
 * counts, per rule type, how many entries are open: cel-go's `recursionListener` refuses an
 * expression as soon as one count passes {@link MAX_RECURSION_DEPTH}. Each method also returns the
 * height of its parse tree counted in the nodes cel-go's visitor increments its own depth for
 * (a ternary, a relation or arithmetic operator, a select, a member call, an index).
 * @see https://github.com/google/cel-go/blob/v0.26.0/parser/parser.go#L193-L230
 * @see https://github.com/google/cel-go/blob/v0.26.0/parser/gen/CEL.g4#L20-L109
 * @see https://github.com/google/cel-go/blob/v0.26.0/parser/gen/cel_parser.go#L1347-L1436 (relation(_p): p.relation(2) for the right operand)
 * @see https://github.com/google/cel-go/blob/v0.26.0/parser/gen/cel_parser.go#L1613-L1746 (calc(_p): p.calc(3), p.calc(2))
 * @see https://github.com/antlr4-go/antlr/blob/3010199da4f18e5b0b00cd6f590b8dda5532ac10/parser.go (EnterRecursionRule and PushNewRecursionContext trigger an enter event, UnrollRecursionContexts an exit per pushed context)
 */
class RuleDepths {
  private pos = 0;
  private readonly open = new Map<string, number>();

  constructor(private readonly tokens: readonly Token[]) {}

  /** The expression's visitor height; throws {@link ListenerLimit} when a rule nests too deep. */
  start(): number {
    this.enter('start');
    const height = this.expr();
    if (this.peek().kind !== 'eof') this.fail(`unexpected ${JSON.stringify(this.peek().text)}`);
    return height;
  }

  private enter(rule: string): void {
    const depth = (this.open.get(rule) ?? 0) + 1;
    this.open.set(rule, depth);
    if (depth > MAX_RECURSION_DEPTH) throw new ListenerLimit();
  }

  private exit(rule: string, times = 1): void {
    this.open.set(rule, (this.open.get(rule) ?? 0) - times);
  }

  private peek(ahead = 0): Token {
    return this.tokens[Math.min(this.pos + ahead, this.tokens.length - 1)];
  }

  private is(text: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'punct' && t.text === text;
  }

  private take(text: string): void {
    if (!this.is(text)) this.fail(`expected ${JSON.stringify(text)}, found ${JSON.stringify(this.peek().text)}`);
    this.pos++;
  }

  private fail(why: string): never {
    throw new Error(`cel-cost: cannot read the expression: ${why} (token ${this.pos})`);
  }

  private expr(): number {
    this.enter('expr');
    let height = this.conditionalOr();
    if (this.is('?')) {
      this.take('?');
      const ifTrue = this.conditionalOr();
      this.take(':');
      height = 1 + Math.max(height, ifTrue, this.expr());
    }
    this.exit('expr');
    return height;
  }

  private conditionalOr(): number {
    this.enter('conditionalOr');
    let height = this.conditionalAnd();
    while (this.is('||')) {
      this.take('||');
      height = Math.max(height, this.conditionalAnd());
    }
    this.exit('conditionalOr');
    return height;
  }

  private conditionalAnd(): number {
    this.enter('conditionalAnd');
    let height = this.relation(0);
    while (this.is('&&')) {
      this.take('&&');
      height = Math.max(height, this.relation(0));
    }
    this.exit('conditionalAnd');
    return height;
  }

  private relation(precedence: number): number {
    this.enter('relation');
    let pushed = 0;
    let height = this.calc(0);
    while (['<', '<=', '>=', '>', '==', '!=', 'in'].some((op) => this.is(op)) && 1 >= precedence) {
      this.enter('relation');
      pushed++;
      this.pos++;
      height = 1 + Math.max(height, this.relation(2));
    }
    this.exit('relation', pushed + 1);
    return height;
  }

  private calc(precedence: number): number {
    this.enter('calc');
    let pushed = 0;
    let height = this.unary();
    for (;;) {
      const multiplicative = ['*', '/', '%'].some((op) => this.is(op)) && 2 >= precedence;
      const additive = ['+', '-'].some((op) => this.is(op)) && 1 >= precedence;
      if (!multiplicative && !additive) break;
      this.enter('calc');
      pushed++;
      this.pos++;
      height = 1 + Math.max(height, this.calc(multiplicative ? 3 : 2));
    }
    this.exit('calc', pushed + 1);
    return height;
  }

  private unary(): number {
    this.enter('unary');
    if (this.is('!')) while (this.is('!')) this.take('!');
    else while (this.is('-')) this.take('-');
    const height = this.member();
    this.exit('unary');
    return height;
  }

  private member(): number {
    this.enter('member');
    let pushed = 0;
    let height = this.primary();
    for (;;) {
      if (this.is('.')) {
        this.enter('member');
        pushed++;
        this.take('.');
        if (this.peek().kind === 'ident' && this.is('(', 1)) {
          this.pos++;
          this.take('(');
          const args = this.is(')') ? 0 : this.exprList();
          this.take(')');
          height = 1 + Math.max(height, args);
        } else {
          if (this.is('?')) this.take('?');
          this.escapeIdent();
          height = 1 + height;
        }
      } else if (this.is('[')) {
        this.enter('member');
        pushed++;
        this.take('[');
        if (this.is('?')) this.take('?');
        const index = this.expr();
        this.take(']');
        height = 1 + Math.max(height, index);
      } else break;
    }
    this.exit('member', pushed + 1);
    return height;
  }

  private escapeIdent(): void {
    this.enter('escapeIdent');
    if (this.peek().kind !== 'ident') this.fail(`expected a field name, found ${JSON.stringify(this.peek().text)}`);
    this.pos++;
    this.exit('escapeIdent');
  }

  private primary(): number {
    this.enter('primary');
    let height = 0;
    if (this.is('.') && this.peek(1).kind === 'ident') this.take('.');
    const t = this.peek();
    if (t.kind === 'ident') {
      let ahead = 1;
      while (this.is('.', ahead) && this.peek(ahead + 1).kind === 'ident') ahead += 2;
      if (this.is('{', ahead)) {
        this.pos += ahead;
        this.take('{');
        if (!this.is('}')) height = this.fieldInitializerList();
        if (this.is(',')) this.take(',');
        this.take('}');
      } else if (this.is('(', 1)) {
        this.pos++;
        this.take('(');
        if (!this.is(')')) height = this.exprList();
        this.take(')');
      } else this.pos++;
    } else if (this.is('(')) {
      this.take('(');
      height = this.expr();
      this.take(')');
    } else if (this.is('[')) {
      this.take('[');
      if (!this.is(']')) height = this.list('listInit', ']', () => this.optExpr());
      if (this.is(',')) this.take(',');
      this.take(']');
    } else if (this.is('{')) {
      this.take('{');
      if (!this.is('}')) height = this.list('mapInitializerList', '}', () => Math.max(this.optExpr(), this.colon()));
      if (this.is(',')) this.take(',');
      this.take('}');
    } else if (t.kind === 'literal') {
      this.enter('literal');
      this.pos++;
      this.exit('literal');
    } else this.fail(`unexpected ${JSON.stringify(t.text)}`);
    this.exit('primary');
    return height;
  }

  /** `: expr` of a map or message entry. */
  private colon(): number {
    this.take(':');
    return this.expr();
  }

  /** A comma-separated rule (`listInit`, `mapInitializerList`, `exprList`); a trailing comma belongs to the caller. */
  private list(rule: string, close: string, item: () => number): number {
    this.enter(rule);
    let height = item();
    while (this.is(',') && !this.is(close, 1)) {
      this.take(',');
      height = Math.max(height, item());
    }
    this.exit(rule);
    return height;
  }

  private exprList(): number {
    return this.list('exprList', ')', () => this.expr());
  }

  private optExpr(): number {
    this.enter('optExpr');
    if (this.is('?')) this.take('?');
    const height = this.expr();
    this.exit('optExpr');
    return height;
  }

  private fieldInitializerList(): number {
    return this.list('fieldInitializerList', '}', () => {
      this.enter('optField');
      if (this.is('?')) this.take('?');
      this.escapeIdent();
      this.exit('optField');
      return this.colon();
    });
  }
}

/** Unicode code points of a string (what cel-go's rune buffer and `size()` count). */
function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/**
 * What cel-go's parser (and so the API server, which refuses to create a policy whose expression
 * does not compile) reports about an expression's size and nesting, in cel-go's words; empty when
 * it has nothing to say. Syntax errors are not this function's business: an expression it cannot
 * read throws.
 *
 * 1. More than {@link EXPRESSION_SIZE_CODE_POINT_LIMIT} code points: refused before parsing.
 * 2. Nesting, checked twice by cel-go, both computed exactly by {@link RuleDepths}:
 *    - while parsing, a listener counts the open entries of each grammar rule and stops at the
 *      first count over {@link MAX_RECURSION_DEPTH} ("expression recursion limit exceeded: 250").
 *      This is not the depth of the AST: a parenthesis opens every rule again without adding a
 *      node, and a chain of N `+` (or `==`, or selects) keeps N + 2 `calc` (N + 2 `relation`,
 *      N + 1 `member`) entries open although its AST is N + 1 deep, so `x + x + ... + x` with 249
 *      `+` is refused though its AST is 250 deep, and `a + (b + (c + ...))` opens three `calc`
 *      entries per level. Counting AST depth plus parentheses would under-report both;
 *    - while building the AST, the visitor counts nested ternaries, relation and arithmetic
 *      operators, selects, member calls and indexes ("max recursion depth exceeded").
 * @see https://github.com/google/cel-go/blob/v0.26.0/parser/parser.go#L112-L123
 * @see https://github.com/google/cel-go/blob/v0.26.0/parser/parser.go#L193-L230
 * @see https://github.com/google/cel-go/blob/v0.26.0/parser/parser.go#L375-L461
 * @see https://github.com/google/cel-go/blob/v0.26.0/parser/parser.go#L992-L1001
 */
export function expressionLimitProblems(expression: string): string[] {
  const size = codePoints(expression);
  if (size > EXPRESSION_SIZE_CODE_POINT_LIMIT) {
    return [`expression code point size exceeds limit: size: ${size}, limit ${EXPRESSION_SIZE_CODE_POINT_LIMIT}`];
  }
  let height: number;
  try {
    height = new RuleDepths(tokenize(expression)).start();
  } catch (err) {
    if (err instanceof ListenerLimit) return [`expression recursion limit exceeded: ${MAX_RECURSION_DEPTH}`];
    throw err;
  }
  return height > MAX_RECURSION_DEPTH ? ['max recursion depth exceeded'] : [];
}

// ==== Values

/**
 * A CEL error value (cel-go's `types.Err`): evaluation carries it on, as `&&`, `||` and the
 * loop condition of `all`/`exists` can absorb it; an expression whose result is one failed.
 */
export class CelErrorValue {
  constructor(readonly message: string) {}
}

const isError = (v: unknown): v is CelErrorValue => v instanceof CelErrorValue;
const fail = (message: string) => new CelErrorValue(message);

/** The `variables` map: members computed on first read, each as its own program. */
class LazyVariables {
  constructor(readonly read: (name: string) => unknown, readonly defined: (name: string) => boolean) {}
}

const isInt = (v: unknown): v is bigint => typeof v === 'bigint';
const isNumeric = (v: unknown): v is bigint | number => typeof v === 'bigint' || typeof v === 'number';
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function typeName(v: unknown): string {
  if (v === null) return 'null_type';
  if (isInt(v)) return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'map';
  return 'unsupported';
}

/** The size cel-go charges by: a string's code points, a list's or map's entries, else 1. @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/runtimecost.go#L351-L361 */
function actualSize(v: unknown): number {
  if (typeof v === 'string') return codePoints(v);
  if (Array.isArray(v)) return v.length;
  if (v instanceof Map) return v.size;
  return 1;
}

/** -1, 0, 1, or undefined for NaN; int and double compare across types (cel.CrossTypeNumericComparisons), exactly. */
function compareNumbers(a: bigint | number, b: bigint | number): number | undefined {
  if (Number.isNaN(a) || Number.isNaN(b)) return undefined;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares strings by code point, as Go compares UTF-8 strings byte by byte. */
function compareStrings(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i].codePointAt(0) as number) - (y[i].codePointAt(0) as number);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return Math.sign(x.length - y.length);
}

/** CEL's heterogeneous equality (types.Equal). */
function celEquals(a: unknown, b: unknown): boolean {
  if (isNumeric(a) && isNumeric(b)) return compareNumbers(a, b) === 0;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  if (a instanceof Map && b instanceof Map) {
    return a.size === b.size && [...a].every(([k, v]) => mapHas(b, k) && celEquals(v, mapGet(b, k)));
  }
  return a === b;
}

function mapHas(m: ReadonlyMap<unknown, unknown>, key: unknown): boolean {
  return m.has(key) || (isNumeric(key) && [...m.keys()].some((k) => isNumeric(k) && compareNumbers(k, key) === 0));
}

function mapGet(m: ReadonlyMap<unknown, unknown>, key: unknown): unknown {
  if (m.has(key)) return m.get(key);
  return [...m].find(([k]) => isNumeric(k) && isNumeric(key) && compareNumbers(k, key) === 0)?.[1];
}

/** `obj[key]` or `obj.key`: a missing key or index is an error value. */
function index(obj: unknown, key: unknown): unknown {
  if (isError(key)) return key;
  if (obj instanceof LazyVariables) {
    return typeof key === 'string' && obj.defined(key) ? obj.read(key) : fail(`no such key: ${String(key)}`);
  }
  if (obj instanceof Map) return mapHas(obj, key) ? mapGet(obj, key) : fail(`no such key: ${String(key)}`);
  if (Array.isArray(obj)) {
    const i = isInt(key) ? key : typeof key === 'number' && Number.isInteger(key) ? BigInt(key) : undefined;
    if (i === undefined) return fail(`unsupported index type: ${typeName(key)}`);
    return i >= 0n && i < BigInt(obj.length) ? obj[Number(i)] : fail(`index out of bounds: ${i}`);
  }
  if (obj !== null && typeof obj === 'object') throw new Error('cel-cost: a binding holds a plain object: convert bindings with toCel (objects become Map, integers bigint)');
  return fail(`no such key: ${String(key)} (on ${typeName(obj)})`);
}

// ==== Static types: what cel-go's type checker knows, as far as the cost depends on it

type StaticType =
  | { readonly kind: 'int' | 'uint' | 'double' | 'string' | 'bool' | 'null' | 'dyn' | 'unknown' }
  | { readonly kind: 'list'; readonly elem: StaticType }
  | { readonly kind: 'map'; readonly key: StaticType; readonly value: StaticType }
  | { readonly kind: 'variables'; readonly fields: ReadonlyMap<string, StaticType> };

const t = (kind: 'int' | 'uint' | 'double' | 'string' | 'bool' | 'null' | 'dyn' | 'unknown'): StaticType => ({ kind });
const DYN = t('dyn');
const UNKNOWN = t('unknown');
const BOOL = t('bool');
const INT = t('int');
const STRING = t('string');
const listOf = (elem: StaticType): StaticType => ({ kind: 'list', elem });

/**
 * The roots Kubernetes declares `dyn` for an admission policy: their fields, elements and the
 * values computed from them are `dyn` to the type checker too, so a call on them resolves exactly
 * as here. `request` and `namespaceObject` are typed objects this model does not copy: they count
 * as unknown (over-approximated).
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/cel/compile.go#L250-L259
 */
const DYN_ROOTS = new Set(['object', 'oldObject', 'params']);

/** Whether the type checker's type is known here (no part unknown). */
function certain(type: StaticType): boolean {
  switch (type.kind) {
    case 'unknown': return false;
    case 'list': return certain(type.elem);
    case 'map': return certain(type.key) && certain(type.value);
    default: return true;
  }
}

function sameType(a: StaticType, b: StaticType): boolean {
  if (!certain(a) || !certain(b) || a.kind !== b.kind) return false;
  if (a.kind === 'list' && b.kind === 'list') return sameType(a.elem, b.elem);
  if (a.kind === 'map' && b.kind === 'map') return sameType(a.key, b.key) && sameType(a.value, b.value);
  return a.kind !== 'variables';
}

/** The common type of literal elements, or unknown when they differ (the checker may say `dyn` or refuse them). */
function joined(types: readonly StaticType[]): StaticType {
  return types.length > 0 && types.every((x) => sameType(x, types[0])) ? types[0] : UNKNOWN;
}

function fieldType(type: StaticType, field: string): StaticType {
  if (type.kind === 'dyn') return DYN;
  if (type.kind === 'map') return type.value;
  if (type.kind === 'variables') {
    const found = type.fields.get(field);
    if (found === undefined) throw new Error(`cel-cost: undefined field '${field}' of variables (a variable reads only the variables defined before it)`);
    return found;
  }
  return UNKNOWN;
}

function elementType(type: StaticType): StaticType {
  if (type.kind === 'dyn') return DYN;
  if (type.kind === 'list') return type.elem;
  if (type.kind === 'map') return type.value;
  return UNKNOWN;
}

type ParamKind = 'int' | 'uint' | 'double' | 'string' | 'bool' | 'bytes' | 'list' | 'map' | 'timestamp' | 'duration' | 'any';

interface Overload {
  readonly id: string;
  readonly params: readonly ParamKind[];
  readonly result: StaticType;
}

function paramAccepts(param: ParamKind, arg: StaticType): boolean {
  return param === 'any' || arg.kind === 'dyn' || arg.kind === 'unknown' || arg.kind === param;
}

/**
 * The overloads of the calls whose cost depends on the overload the checker resolves, as the
 * standard library declares them (with cel.CrossTypeNumericComparisons, on in Kubernetes).
 * @see https://github.com/google/cel-go/blob/v0.26.0/common/stdlib/standard.go#L148-L181
 * @see https://github.com/google/cel-go/blob/v0.26.0/common/stdlib/standard.go#L508-L528
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/cel/environment/base.go#L98-L105
 */
const OVERLOADS: Readonly<Record<string, readonly Overload[]>> = (() => {
  const comparable: [string, ParamKind, ParamKind][] = [
    ['bool', 'bool', 'bool'], ['int64', 'int', 'int'], ['int64_double', 'int', 'double'], ['int64_uint64', 'int', 'uint'],
    ['uint64', 'uint', 'uint'], ['uint64_double', 'uint', 'double'], ['uint64_int64', 'uint', 'int'], ['double', 'double', 'double'],
    ['double_int64', 'double', 'int'], ['double_uint64', 'double', 'uint'], ['string', 'string', 'string'], ['bytes', 'bytes', 'bytes'],
    ['timestamp', 'timestamp', 'timestamp'], ['duration', 'duration', 'duration'],
  ];
  const comparisons = (prefix: string) => comparable.map(([suffix, l, r]) => ({ id: `${prefix}_${suffix}`, params: [l, r], result: BOOL }));
  return {
    '_+_': [
      { id: 'add_int64', params: ['int', 'int'], result: INT }, { id: 'add_uint64', params: ['uint', 'uint'], result: t('uint') },
      { id: 'add_double', params: ['double', 'double'], result: t('double') }, { id: 'add_string', params: ['string', 'string'], result: STRING },
      { id: 'add_bytes', params: ['bytes', 'bytes'], result: UNKNOWN }, { id: 'add_list', params: ['list', 'list'], result: listOf(UNKNOWN) },
      { id: 'add_timestamp_duration', params: ['timestamp', 'duration'], result: UNKNOWN },
      { id: 'add_duration_timestamp', params: ['duration', 'timestamp'], result: UNKNOWN },
      { id: 'add_duration_duration', params: ['duration', 'duration'], result: UNKNOWN },
    ],
    '_<_': comparisons('less'),
    '_<=_': comparisons('less_equals'),
    '_>_': comparisons('greater'),
    '_>=_': comparisons('greater_equals'),
    '@in': [{ id: 'in_list', params: ['any', 'list'], result: BOOL }, { id: 'in_map', params: ['any', 'map'], result: BOOL }],
  };
})();

/**
 * What the runtime cost tracker sees as the call's overload: the one the checker resolved, `""`
 * when it kept several (the planner then dispatches by name and `costCall` falls to its default),
 * or, when an operand's type is not known here, either of those.
 * @see https://github.com/google/cel-go/blob/v0.26.0/checker/checker.go#L297-L381
 * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/planner.go#L649-L671
 */
type Resolution =
  | { readonly k: 'exact'; readonly overload: string }
  | { readonly k: 'ambiguous' }
  | { readonly k: 'uncertain' };

function resolveOverload(fn: string, args: readonly StaticType[]): { resolution: Resolution; type: StaticType } {
  const candidates = OVERLOADS[fn].filter((o) => o.params.every((p, i) => paramAccepts(p, args[i])));
  if (candidates.length === 0) throw new Error(`cel-cost: no matching overload for ${fn}(${args.map((a) => a.kind).join(', ')})`);
  if (candidates.length === 1) {
    const [only] = candidates;
    const [l, r] = args;
    const type = only.id === 'add_list' && l.kind === 'list' && r.kind === 'list' && sameType(l, r) ? l : only.result;
    return { resolution: { k: 'exact', overload: only.id }, type };
  }
  const type = candidates.every((c) => sameType(c.result, candidates[0].result)) ? candidates[0].result : DYN;
  return args.every(certain) ? { resolution: { k: 'ambiguous' }, type } : { resolution: { k: 'uncertain' }, type: certain(type) ? type : UNKNOWN };
}

/** The overload the values select, for a call whose checker resolution is not known here. */
function runtimeOverload(fn: string, args: readonly unknown[]): string {
  const [l, r] = args;
  if (fn === '@in') return Array.isArray(r) ? 'in_list' : 'in_map';
  const prefix = { '_+_': 'add', '_<_': 'less', '_<=_': 'less_equals', '_>_': 'greater', '_>=_': 'greater_equals' }[fn];
  if (typeof l === 'string' && typeof r === 'string') return `${prefix}_string`;
  return Array.isArray(l) && Array.isArray(r) ? `${prefix}_list` : `${prefix}_other`;
}

const ceil = (x: number) => Math.ceil(x);
/** common.StringTraversalCostFactor. @see https://github.com/google/cel-go/blob/v0.26.0/common/cost.go#L33-L35 */
const STRING_TRAVERSAL = 0.1;
/** common.RegexStringLengthCostFactor. @see https://github.com/google/cel-go/blob/v0.26.0/common/cost.go#L37-L39 */
const REGEX_LENGTH = 0.25;

/**
 * The cost of one call, computed in the order cel-go does: Kubernetes' estimator first (of its
 * functions only `join` is in the subset), then cel-go's `costCall` by overload id, with the
 * same IEEE double arithmetic in the same order as Go (for every size up to 3,000,000,
 * ceil(n × 0.1), ceil(2n × 0.1) and ceil(n × 0.25) are the exact ⌈n/10⌉, ⌈n/5⌉ and ⌈n/4⌉).
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/cel/library/cost.go#L121-L125
 * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/runtimecost.go#L273-L349
 */
function callCost(fn: string, overload: string, args: readonly unknown[], result: unknown): number {
  if (fn === 'join') return ceil(actualSize(result) * 2 * STRING_TRAVERSAL);
  switch (overload) {
    case 'starts_with_string': case 'ends_with_string':
      return ceil(actualSize(args[0]) * STRING_TRAVERSAL);
    case 'in_list':
      return actualSize(args[1]);
    case 'less_string': case 'greater_string': case 'less_equals_string': case 'greater_equals_string':
    case 'equals': case 'not_equals':
      return ceil(Math.min(actualSize(args[0]), actualSize(args[1])) * STRING_TRAVERSAL);
    case 'add_string':
      return ceil((actualSize(args[0]) + actualSize(args[1])) * STRING_TRAVERSAL);
    case 'matches_string':
      return ceil((1 + actualSize(args[0])) * STRING_TRAVERSAL) * ceil(actualSize(args[1]) * REGEX_LENGTH);
    case 'contains_string':
      return ceil(actualSize(args[0]) * STRING_TRAVERSAL) * ceil(actualSize(args[1]) * STRING_TRAVERSAL);
    default:
      return 1;
  }
}

// ==== The plan: cel-go's interpretables, as its planner and Kubernetes' decorators build them

/**
 * A qualifier of an attribute, charged 1 whenever it is applied (runtimecost.go L138-L141 and
 * L182-L183). `attr`: an index that is itself an attribute, which cel-go resolves without
 * observing the attribute (only its own qualifiers). `rel`: an index computed by another
 * expression, evaluated (and charged) normally.
 * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/interpretable.go#L880-L920
 * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/planner.go#L457-L489
 */
type Qualifier =
  | { readonly k: 'const'; readonly key: unknown; readonly testOnly: boolean }
  | { readonly k: 'attr'; readonly attr: Attribute }
  | { readonly k: 'rel'; readonly operand: Plan };

/** @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/attributes.go#L306-L410 */
type Attribute =
  | { readonly k: 'absolute'; readonly name: string; readonly quals: Qualifier[] }
  | { readonly k: 'relative'; readonly operand: Plan; readonly quals: Qualifier[] }
  | { readonly k: 'conditional'; readonly cond: Plan; readonly truthy: Attribute; readonly falsy: Attribute };

type CallStyle = 'strict' | 'nonStrict' | 'varargs';

type Plan = { readonly type: StaticType } & (
  | { readonly k: 'const'; readonly value: unknown }
  | { readonly k: 'attr'; readonly attr: Attribute; readonly testOnly: boolean }
  | { readonly k: 'call'; readonly fn: string; readonly args: readonly Plan[]; readonly style: CallStyle; readonly resolution: Resolution; readonly impl: (args: readonly unknown[]) => unknown }
  | { readonly k: 'logic'; readonly op: '&&' | '||'; readonly terms: readonly Plan[] }
  | { readonly k: 'list'; readonly elems: readonly Plan[] }
  | { readonly k: 'map'; readonly keys: readonly Plan[]; readonly values: readonly Plan[] }
  | { readonly k: 'set'; readonly arg: Plan; readonly members: readonly unknown[] }
  | {
    readonly k: 'fold'; readonly iterVar: string; readonly accuVar: string; readonly range: Plan; readonly init: Plan;
    readonly cond: Plan; readonly step: Plan; readonly result: Plan;
  });

function addQualifier(attr: Attribute, q: Qualifier): void {
  if (attr.k === 'conditional') {
    addQualifier(attr.truthy, q);
    addQualifier(attr.falsy, q);
  } else attr.quals.push(q);
}

/** The attribute a plan resolves: its own when it is one, else one relative to it. @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/planner.go#L713-L732 */
function attributeOf(p: Plan): Attribute {
  return p.k === 'attr' ? p.attr : { k: 'relative', operand: p, quals: [] };
}

type CelExpr = ReturnType<typeof parse>['expr'];

/** Names visible while planning, with their types. */
type TypeScope = (name: string) => StaticType | undefined;

const matchesProgram = () => compile('s.matches(re)');

/** RE2 matching, through @bufbuild/cel's `matches`. */
function re2Matches(s: string, re: string): unknown {
  const r = matchesProgram()({ s, re });
  return typeof r === 'boolean' ? r : fail(`invalid regex ${JSON.stringify(re)}`);
}

const isPrimitive = (v: unknown) => typeof v === 'string' || typeof v === 'boolean' || isNumeric(v);

function unsupported(what: string): never {
  throw new Error(`cel-cost: ${what} is outside the modelled subset of CEL: extend test/support/cel-cost.ts from cel-go's source before using it`);
}

/** Builds the plan of an expression, as cel-go's planner does after type-checking. */
function planExpr(e: CelExpr, scope: TypeScope): Plan {
  const kind = e.exprKind;
  switch (kind.case) {
    case 'constExpr': {
      const c = kind.value.constantKind;
      if (c.case === 'int64Value') return { k: 'const', value: c.value, type: INT };
      if (c.case === 'doubleValue') return { k: 'const', value: c.value, type: t('double') };
      if (c.case === 'stringValue') return { k: 'const', value: c.value, type: STRING };
      if (c.case === 'boolValue') return { k: 'const', value: c.value, type: BOOL };
      if (c.case === 'nullValue') return { k: 'const', value: null, type: t('null') };
      return unsupported(`a ${String(c.case)} literal`);
    }
    case 'identExpr': {
      const type = scope(kind.value.name);
      if (type === undefined) throw new Error(`cel-cost: undeclared reference to '${kind.value.name}'`);
      return { k: 'attr', attr: { k: 'absolute', name: kind.value.name, quals: [] }, testOnly: false, type };
    }
    case 'selectExpr': {
      const { operand, field, testOnly } = kind.value;
      const op = planExpr(operand as CelExpr, scope);
      if (op.k === 'attr' && op.testOnly) unsupported('a select on has()');
      if (testOnly && op.type.kind === 'variables') unsupported('has(variables.<name>)');
      // Observe gives back the presence test's 1 even for a ternary, which was never charged it.
      if (testOnly && op.k === 'attr' && op.attr.k === 'conditional') unsupported('has() of a ternary');
      const attr = attributeOf(op);
      // planSelect: a presence test (has) wraps the operand's attribute in evalTestOnly.
      addQualifier(attr, { k: 'const', key: field, testOnly });
      return { k: 'attr', attr, testOnly, type: testOnly ? BOOL : fieldType(op.type, field) };
    }
    case 'listExpr': {
      if (kind.value.optionalIndices.length > 0) unsupported('an optional list element');
      const elems = kind.value.elements.map((x) => planExpr(x, scope));
      const type = listOf(elems.length === 0 ? UNKNOWN : joined(elems.map((x) => x.type)));
      // decOptimize: a list of constants is built once, at plan time (decorators.go L184-L192).
      if (elems.every((x) => x.k === 'const')) return { k: 'const', value: elems.map((x) => (x as { value: unknown }).value), type };
      return { k: 'list', elems, type };
    }
    case 'structExpr': {
      if (kind.value.messageName !== '') unsupported(`a message literal (${kind.value.messageName})`);
      const keys: Plan[] = [];
      const values: Plan[] = [];
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case !== 'mapKey' || entry.optionalEntry) unsupported('an optional map entry');
        keys.push(planExpr(entry.keyKind.value, scope));
        values.push(planExpr(entry.value as CelExpr, scope));
      }
      const type: StaticType = { kind: 'map', key: keys.length === 0 ? UNKNOWN : joined(keys.map((x) => x.type)), value: values.length === 0 ? UNKNOWN : joined(values.map((x) => x.type)) };
      // decOptimize: a map of constant keys and values is built once (decorators.go L194-L206).
      if ([...keys, ...values].every((x) => x.k === 'const')) {
        return { k: 'const', value: new Map(keys.map((x, i) => [(x as { value: unknown }).value, (values[i] as { value: unknown }).value])), type };
      }
      return { k: 'map', keys, values, type };
    }
    case 'comprehensionExpr': {
      const c = kind.value;
      if (c.iterVar2 !== '') unsupported('a two-variable comprehension');
      const range = planExpr(c.iterRange as CelExpr, scope);
      const init = planExpr(c.accuInit as CelExpr, scope);
      const iterType = range.type.kind === 'list' || range.type.kind === 'dyn' ? elementType(range.type) : range.type.kind === 'map' ? range.type.key : UNKNOWN;
      const accuScope: TypeScope = (name) => (name === c.accuVar ? init.type : scope(name));
      const loopScope: TypeScope = (name) => (name === c.iterVar ? iterType : accuScope(name));
      const result = planExpr(c.result as CelExpr, accuScope);
      return {
        k: 'fold', iterVar: c.iterVar, accuVar: c.accuVar, range, init,
        cond: planExpr(c.loopCondition as CelExpr, loopScope), step: planExpr(c.loopStep as CelExpr, loopScope), result, type: result.type,
      };
    }
    case 'callExpr':
      return planCall(kind.value.function, kind.value.target, kind.value.args, scope);
    default:
      return unsupported(`an expression of kind ${String(kind.case)}`);
  }
}

function planCall(fn: string, target: CelExpr | undefined, argExprs: readonly CelExpr[], scope: TypeScope): Plan {
  const args = [...(target ? [target] : []), ...argExprs].map((x) => planExpr(x, scope));
  const member = target !== undefined;
  const arity = (n: number, isMember: boolean) => {
    if (args.length !== n || member !== isMember) unsupported(`${fn} with ${argExprs.length} argument(s)${member ? ' as a method' : ''}`);
  };
  const call = (overload: string, type: StaticType, impl: (a: readonly unknown[]) => unknown, style: CallStyle = 'strict'): Plan => (
    { k: 'call', fn, args, style, resolution: { k: 'exact', overload }, impl, type });
  switch (fn) {
    case '_&&_': case '_||_':
      return { k: 'logic', op: fn === '_&&_' ? '&&' : '||', terms: args, type: BOOL };
    case '_?_:_': {
      const [cond, ifTrue, ifFalse] = args;
      // planCallConditional: a branch that is an attribute is resolved without observing it.
      return { k: 'attr', attr: { k: 'conditional', cond, truthy: attributeOf(ifTrue), falsy: attributeOf(ifFalse) }, testOnly: false, type: sameType(ifTrue.type, ifFalse.type) ? ifTrue.type : UNKNOWN };
    }
    case '_[_]': {
      const [operand, key] = args;
      if (operand.type.kind === 'variables') unsupported('variables[...]');
      const q: Qualifier = key.k === 'const'
        ? (isPrimitive(key.value) ? { k: 'const', key: key.value, testOnly: false } : unsupported('a constant index that is not a primitive'))
        : key.k === 'attr' ? { k: 'attr', attr: key.attr } : { k: 'rel', operand: key };
      const attr = attributeOf(operand);
      addQualifier(attr, q);
      return { k: 'attr', attr, testOnly: false, type: elementType(operand.type) };
    }
    case '_==_': case '_!=_':
      arity(2, false);
      return call(fn === '_==_' ? 'equals' : 'not_equals', BOOL, ([l, r]) => celEquals(l, r) === (fn === '_==_'));
    case '!_':
      return call('logical_not', BOOL, ([v]) => (typeof v === 'boolean' ? !v : fail('no such overload: !_')));
    case '@not_strictly_false':
      return call('not_strictly_false', BOOL, ([v]) => (typeof v === 'boolean' ? v : true), 'nonStrict');
    case '_+_': case '_<_': case '_<=_': case '_>_': case '_>=_': case '@in':
      return planOverloaded(fn, args);
    case 'size':
      if (args.length !== 1) unsupported(`size with ${args.length} operands`);
      return call('size', INT, ([v]) => (typeof v === 'string' || Array.isArray(v) || v instanceof Map ? BigInt(actualSize(v)) : fail(`no such overload: size(${typeName(v)})`)));
    case 'matches': {
      if (args.length !== 2) unsupported(`matches with ${args.length} operands`);
      const re = args[1];
      const impl = ([s, r]: readonly unknown[]) => (typeof s === 'string' && typeof r === 'string' ? re2Matches(s, r) : fail('no such overload: matches'));
      if (re.k === 'const' && typeof re.value === 'string') {
        if (isError(re2Matches('', re.value))) throw new Error(`cel-cost: invalid regex ${JSON.stringify(re.value)} (cel-go refuses the program)`);
        // MatchesRegexOptimization replaces a constant-pattern call with NewCall (evalVarArgs).
        return call(member ? 'matches_string' : 'matches', BOOL, impl, 'varargs');
      }
      return call(member ? 'matches_string' : 'matches', BOOL, impl);
    }
    case 'startsWith': case 'endsWith': case 'contains': {
      arity(2, true);
      const test = { startsWith: (s: string, x: string) => s.startsWith(x), endsWith: (s: string, x: string) => s.endsWith(x), contains: (s: string, x: string) => s.includes(x) }[fn];
      const overload = { startsWith: 'starts_with_string', endsWith: 'ends_with_string', contains: 'contains_string' }[fn];
      return call(overload, BOOL, ([s, x]) => (typeof s === 'string' && typeof x === 'string' ? test(s, x) : fail(`no such overload: ${fn}`)));
    }
    case 'join': {
      if (!member || args.length > 2) unsupported(`join with ${argExprs.length} argument(s)`);
      return call(args.length === 1 ? 'list_join' : 'list_join_string', STRING, ([l, sep]) => {
        if (!Array.isArray(l) || !l.every((x) => typeof x === 'string')) return fail('join: not a list of strings');
        if (sep !== undefined && typeof sep !== 'string') return fail('no such overload: join');
        return l.join(sep ?? '');
      });
    }
    case 'string': {
      arity(1, false);
      const impl = ([v]: readonly unknown[]) => {
        if (typeof v === 'string') return v;
        if (isInt(v) || typeof v === 'boolean') return String(v);
        return unsupported(`string() of ${typeName(v)}`);
      };
      // decOptimize: a type conversion of a constant is computed at plan time (decorators.go L168-L182).
      if (args[0].k === 'const') {
        const value = impl([args[0].value]);
        if (isError(value)) throw new Error(`cel-cost: ${value.message} (cel-go refuses the program)`);
        return { k: 'const', value, type: STRING };
      }
      return call('string', STRING, impl);
    }
    default:
      return unsupported(`the function ${fn}`);
  }
}

/** `+`, the comparisons and `in`, whose cost depends on the overload the checker resolves. */
function planOverloaded(fn: string, args: readonly Plan[]): Plan {
  if (args.length !== 2) unsupported(`${fn} with ${args.length} operands`);
  const { resolution, type } = resolveOverload(fn, args.map((a) => a.type));
  const [lhs, rhs] = args;
  if (fn === '@in' && resolution.k === 'exact' && resolution.overload === 'in_list' && rhs.k === 'const') {
    // maybeOptimizeSetMembership: `in` a constant list becomes a set lookup (decorators.go L212-L272).
    const members = rhs.value as readonly unknown[];
    if (members.length === 0) return { k: 'const', value: false, type: BOOL };
    if (members.every(isPrimitive)) return { k: 'set', arg: lhs, members, type: BOOL };
  }
  return { k: 'call', fn, args, style: 'strict', resolution, impl: OPERATORS[fn], type };
}

const OPERATORS: Readonly<Record<string, (args: readonly unknown[]) => unknown>> = {
  '_+_': ([l, r]) => {
    if (typeof l === 'string' && typeof r === 'string') return l + r;
    if (Array.isArray(l) && Array.isArray(r)) return [...l, ...r];
    if (isInt(l) && isInt(r)) {
      const sum = l + r;
      return sum < INT64_MIN || sum > INT64_MAX ? fail('integer overflow') : sum;
    }
    if (typeof l === 'number' && typeof r === 'number') return l + r;
    return fail(`no such overload: ${typeName(l)} + ${typeName(r)}`);
  },
  '_<_': compareWith((c) => c < 0),
  '_<=_': compareWith((c) => c <= 0),
  '_>_': compareWith((c) => c > 0),
  '_>=_': compareWith((c) => c >= 0),
  '@in': ([v, container]) => {
    if (Array.isArray(container)) return container.some((x) => celEquals(x, v));
    if (container instanceof Map) return mapHas(container, v);
    return fail(`no such overload: ${typeName(v)} in ${typeName(container)}`);
  },
};

function compareWith(holds: (c: number) => boolean): (args: readonly unknown[]) => unknown {
  return ([l, r]) => {
    if (isNumeric(l) && isNumeric(r)) {
      const c = compareNumbers(l, r);
      return c === undefined ? false : holds(c);
    }
    if (typeof l === 'string' && typeof r === 'string') return holds(compareStrings(l, r));
    if (typeof l === 'boolean' && typeof r === 'boolean') return holds(Number(l) - Number(r));
    return fail(`no such overload: comparison of ${typeName(l)} and ${typeName(r)}`);
  };
}

// ==== Evaluation with cost: cel-go's evaluation order, charged where cel-go's observer charges

type Lookup = (name: string) => unknown;
const MISSING = Symbol('missing');

/** One program's evaluation: its own cost tracker. */
class Run {
  cost = 0;

  evaluate(p: Plan, lookup: Lookup): unknown {
    switch (p.k) {
      case 'const':
        return p.value;
      case 'attr': {
        const v = this.resolve(p.attr, lookup);
        // An attribute costs SelectAndIdentCost, a ternary nothing, and a presence test gives it back (PresenceTestHasCost(false)).
        if (p.attr.k !== 'conditional' && !p.testOnly) this.cost += 1;
        if (v instanceof LazyVariables) unsupported('variables other than variables.<name>');
        return v;
      }
      case 'call':
        return this.call(p, lookup);
      case 'logic':
        return this.logic(p, lookup, false);
      case 'list': {
        const out: unknown[] = [];
        let failed: unknown;
        for (const e of p.elems) {
          const v = this.evaluate(e, lookup);
          if (isError(v)) {
            failed = v;
            break;
          }
          out.push(v);
        }
        this.cost += 10; // common.ListCreateBaseCost, charged even when an element failed
        return failed ?? out;
      }
      case 'map': {
        const out = new Map<unknown, unknown>();
        let failed: unknown;
        for (let i = 0; i < p.keys.length && failed === undefined; i++) {
          const key = this.evaluate(p.keys[i], lookup);
          const value = isError(key) ? key : this.evaluate(p.values[i], lookup);
          if (isError(key) || isError(value)) failed = isError(key) ? key : value;
          else out.set(key, value);
        }
        this.cost += 30; // common.MapCreateBaseCost
        return failed ?? out;
      }
      case 'set': {
        // evalSetMembership is no InterpretableCall: the observer charges it nothing.
        const v = this.evaluate(p.arg, lookup);
        return isError(v) ? v : isPrimitive(v) && p.members.some((m) => celEquals(m, v));
      }
      case 'fold':
        return this.fold(p, lookup);
    }
  }

  private resolve(attr: Attribute, lookup: Lookup): unknown {
    if (attr.k === 'conditional') {
      const c = this.evaluate(attr.cond, lookup);
      if (c === true) return this.resolve(attr.truthy, lookup);
      if (c === false) return this.resolve(attr.falsy, lookup);
      return isError(c) ? c : fail('no such overload: ternary condition is not a bool');
    }
    let v: unknown;
    if (attr.k === 'absolute') {
      v = lookup(attr.name);
      if (v === MISSING) return fail(`no such attribute(s): ${attr.name}`);
    } else {
      v = this.evaluate(attr.operand, lookup);
      if (isError(v)) return v;
    }
    for (const q of attr.quals) {
      v = this.qualify(q, v, lookup);
      this.cost += 1;
      if (isError(v)) return v;
    }
    return v;
  }

  private qualify(q: Qualifier, obj: unknown, lookup: Lookup): unknown {
    if (q.k === 'const' && q.testOnly) {
      if (obj instanceof Map) return mapHas(obj, q.key);
      return fail(`invalid type for field selection: ${typeName(obj)}`);
    }
    if (q.k === 'const') return index(obj, q.key);
    return index(obj, q.k === 'attr' ? this.resolve(q.attr, lookup) : this.evaluate(q.operand, lookup));
  }

  private call(p: Extract<Plan, { k: 'call' }>, lookup: Lookup): unknown {
    const values: unknown[] = [];
    for (const a of p.args) {
      const v = this.evaluate(a, lookup);
      values.push(v);
      // evalVarArgs stops at the first error: the arguments left are never on the observer's stack, so the call is not charged.
      if (p.style === 'varargs' && isError(v)) return v;
    }
    const firstError = values.find(isError);
    const result = p.style !== 'nonStrict' && firstError !== undefined ? firstError : p.impl(values);
    const charge = (overload: string) => callCost(p.fn, overload, values, result);
    const r = p.resolution;
    this.cost += r.k === 'exact' ? charge(r.overload) : r.k === 'ambiguous' ? charge('') : Math.max(charge(''), charge(runtimeOverload(p.fn, values)));
    return result;
  }

  /** evalAnd / evalOr; `exhaustive` evaluates every term (as over a map, see {@link fold}). */
  private logic(p: Extract<Plan, { k: 'logic' }>, lookup: Lookup, exhaustive: boolean): unknown {
    const decisive = p.op === '||';
    let decided = false;
    let failed: unknown;
    for (const term of p.terms) {
      const v = this.evaluate(term, lookup);
      if (v === decisive) {
        decided = true;
        if (!exhaustive) break;
      } else if (typeof v !== 'boolean' && failed === undefined) failed = isError(v) ? v : fail('no such overload');
    }
    return decided ? decisive : failed ?? !decisive;
  }

  /**
   * evalFold: the range once, then per element the loop condition (stopping when it is false)
   * and the step; the accumulator's initial value on first read; the result without the
   * iteration variable in scope. Over a map, whose order cel-go leaves to Go's randomised map
   * iteration, a fold that can stop early (all, exists) is charged for every element, its step's
   * `&&`/`||` evaluated whole: the value is the same, the cost at least that of the dearest order.
   * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/interpretable.go#L797-L826
   * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/interpretable.go#L1320-L1342
   * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/interpretable.go#L1370-L1401
   */
  private fold(p: Extract<Plan, { k: 'fold' }>, lookup: Lookup): unknown {
    const range = this.evaluate(p.range, lookup);
    if (isError(range)) return range;
    if (!Array.isArray(range) && !(range instanceof Map)) return fail(`got '${typeName(range)}', expected iterable type`);
    const unordered = range instanceof Map && !(p.cond.k === 'const' && p.cond.value === true);
    let accu: unknown;
    let initialized = false;
    let item: unknown;
    let computingResult = false;
    const inner: Lookup = (name) => {
      if (name === p.accuVar) {
        if (!initialized) {
          accu = this.evaluate(p.init, lookup);
          initialized = true;
        }
        return accu;
      }
      if (!computingResult && name === p.iterVar) return item;
      return lookup(name);
    };
    for (const element of Array.isArray(range) ? range : range.keys()) {
      item = element;
      const cond = this.evaluate(p.cond, inner);
      if (cond === false && !unordered) break;
      accu = unordered && p.step.k === 'logic' ? this.logic(p.step, inner, true) : this.evaluate(p.step, inner);
      initialized = true;
    }
    computingResult = true;
    return this.evaluate(p.result, inner);
  }
}

// ==== API

/** The value of an evaluation and its runtime cost. */
export interface CostedResult {
  /** The expression's value; a {@link CelErrorValue} when it failed. */
  readonly value: unknown;
  /**
   * The runtime cost charged to this evaluation, to compare with {@link PER_CALL_LIMIT}. It does
   * not include the variables the expression read (each is its own program).
   */
  readonly cost: number;
}

/** A policy variable, as in `spec.variables`. */
export interface VariableDefinition {
  /** Its name: expressions read it as `variables.<name>`. */
  readonly name: string;
  /** Its CEL expression. */
  readonly expression: string;
}

/** Evaluates the expressions of one policy on one request, keeping Kubernetes' cost accounts. */
export interface CostedEvaluator {
  /** Evaluates an expression as its own program. */
  evaluate(expression: string): CostedResult;
  /** The cost of each variable evaluated so far (each at most once, lazily), in evaluation order. */
  variableCosts(): ReadonlyMap<string, number>;
  /** What the evaluations so far charged to the budget: their costs plus their variables'. */
  budgetSpent(): number;
}

/**
 * An evaluator of a policy's expressions on one set of bindings (as `toCel` of
 * admission-policy.ts builds them: integers bigint, objects Map) and the policy's `variables`.
 * A variable is computed the first time an expression reads it, at most once, as its own program:
 * its cost goes to {@link CostedEvaluator.variableCosts} and the budget, not to the reading
 * expression's cost, which pays only for the read (`variables` 1, `.name` 1), as Kubernetes'
 * composition does. A variable reads only the variables defined before it (Kubernetes compiles
 * them in order and adds each to the `variables` type after compiling it). Kubernetes builds the
 * lazy `variables` map afresh for each filter (validations, then message expressions), so a
 * caller modelling message expressions uses a second evaluator.
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/cel/composition.go#L89-L100
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/cel/composition.go#L172-L231
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/cel/activation.go#L77 (a lazy map per activation)
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/cel/activation.go#L141-L180
 */
export function costedEvaluator(variables: readonly VariableDefinition[], bindings: Record<string, unknown>): CostedEvaluator {
  const rootType = (name: string): StaticType | undefined => {
    if (!(name in bindings)) return undefined;
    return DYN_ROOTS.has(name) ? DYN : UNKNOWN;
  };
  const fields = new Map<string, StaticType>();
  const plans = new Map<string, Plan>();
  const planned = (expression: string) => {
    const scope: TypeScope = (name) => (name === 'variables' && variables.length > 0 ? { kind: 'variables', fields: new Map(fields) } : rootType(name));
    return planExpr(parse(expression).expr, scope);
  };
  for (const v of variables) {
    if (plans.has(v.name)) throw new Error(`cel-cost: variables.${v.name} is defined twice`);
    const p = planned(v.expression);
    plans.set(v.name, p);
    fields.set(v.name, p.type);
  }
  const costs = new Map<string, number>();
  const values = new Map<string, unknown>();
  let spent = 0;
  const lookup: Lookup = (name) => (name === 'variables' && variables.length > 0 ? lazy : name in bindings ? bindings[name] : MISSING);
  const lazy = new LazyVariables((name) => {
    if (!values.has(name)) {
      const run = new Run();
      const value = run.evaluate(plans.get(name) as Plan, lookup);
      costs.set(name, run.cost);
      spent += run.cost;
      values.set(name, isError(value) ? fail(`composited variable "${name}" fails to evaluate: ${value.message}`) : value);
    }
    return values.get(name);
  }, (name) => plans.has(name));
  return {
    evaluate(expression) {
      const run = new Run();
      const value = run.evaluate(planned(expression), lookup);
      spent += run.cost;
      return { value, cost: run.cost };
    },
    variableCosts: () => new Map(costs),
    budgetSpent: () => spent,
  };
}

/**
 * The value of an expression and the runtime cost cel-go v0.26.0 charges for it as Kubernetes
 * configures it (OptOptimize, OptTrackCost, PresenceTestHasCost(false), Kubernetes' cost
 * estimator), for the subset of CEL the project's policies use: int, double, string, bool, null,
 * lists and maps; identifiers, field selection (a missing field is an error), `has()`, index,
 * `in`, `==`, `!=`, `<`, `<=`, `>`, `>=`, `+` (strings, lists, ints, doubles), `!`, `&&`, `||`,
 * `?:`, `size()`, `matches`, `startsWith`, `endsWith`, `contains`, `join` (strings extension),
 * `string()` of an int, a bool or a string, and the macros all, exists, exists_one, filter and map
 * (two and three arguments). Anything else throws.
 *
 * Costs (runtimecost.go `Observe` and `costCall`, common/cost.go):
 * - an identifier or a select chain: 1 for the attribute plus 1 per field or constant index
 *   (`object.spec.x` is 3); an index by an attribute `m[k]`: 1 for `m`, 1 for the index, and
 *   nothing for reading `k` itself; an index computed by a call: the call plus 1 plus 1;
 * - `has(a.b.c)`: 1 per qualifier (2 here): Kubernetes' PresenceTestHasCost(false) gives back
 *   the attribute's 1, not the test's qualifier;
 * - constants, constant list and map literals, `string()` of a constant: 0; other list literals
 *   10, map literals 30, plus their elements;
 * - `x in [constants]`: x only (a set lookup cel-go never charges); `x in []`: 0 (x is not
 *   evaluated); `in` a list: its size; `in` a map, or a `dyn` operand (overload unresolved): 1;
 * - `==`, `!=`: ceil(min(size(l), size(r)) × 0.1), a scalar's size being 1 (so `s == ''` is 0);
 *   `<`… on strings: the same; on numbers: 1; `+` on strings: ceil((m + n) × 0.1), on lists 1;
 * - `s.matches(re)`: ceil((1 + size(s)) × 0.1) × ceil(size(re) × 0.25), but `matches(s, re)`
 *   (the global overload `matches`) 1; `startsWith`, `endsWith`: ceil(size(s) × 0.1);
 *   `contains`: ceil(size(s) × 0.1) × ceil(size(sub) × 0.1); `join`: ceil(size(result) × 2 × 0.1);
 *   `size()`, `!`, `string()`: 1;
 * - `&&`, `||`, `?:`: nothing of their own; a ternary branch that is an attribute does not pay
 *   its attribute's 1 (cel-go resolves it without observing it);
 * - a macro: its fold (cel-go's evalFold, modelled by `Run.fold`): `l.all(x, p)` pays per element 2 for the loop
 *   condition `@not_strictly_false(@result)`, 1 for `@result` in `@result && p`, and p; then 1 for
 *   the result. `exists` pays 3 for its condition; `filter` pays p, plus 13 when p holds
 *   (`@result + [x]`: 1 + 10 + 1 + 1); `map` pays 1 + 10 + f + 1 per element (1 + f + 1 when f is
 *   constant); `exists_one` p, plus 2 when p holds, then 2 for `@result == 1`.
 * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/runtimecost.go#L132-L204
 * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/planner.go#L161-L212 (planSelect)
 * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/planner.go#L429-L453 (planCallConditional)
 * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/interpretable.go#L155-L185 (evalTestOnly)
 * @see https://github.com/google/cel-go/blob/v0.26.0/interpreter/decorators.go#L107-L124 (decOptimize)
 * @see https://github.com/google/cel-go/blob/v0.26.0/cel/program.go#L227-L265 (decorator order: optimize, regex, then the cost observer)
 * @see https://github.com/google/cel-go/blob/v0.26.0/parser/macro.go#L497-L595
 */
export function evaluateWithCost(expression: string, bindings: Record<string, unknown>): CostedResult {
  return costedEvaluator([], bindings).evaluate(expression);
}
