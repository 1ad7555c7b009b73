/**
 * scanJson (src/input/json-text.ts): a JSON text is read with JSON.parse only when SourceFile
 * would read the same data with no problem; side by side over texts built to hit the differences.
 */
import { parse, ParseError } from 'jsonc-parser';
import { scanJson } from '../../src/input/json-text';
import { SourceFile } from '../../src/input/source';

/** A small seeded generator: the same texts on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Characters where JSON and YAML could part ways: indicators, escapes, line breaks of YAML 1.1, controls. */
const CHARS = ['a', ':', '#', '-', ' ', '"', '\\', '\t', '\n', '\r', '\u2028', '\u0085', '\u00a0', '\ufeff', 'é', '😀', '{', '[', ',', '&', '*', '!', '%', '@', '`', '<<', '~', '\u0000'];
const WHITESPACE = ['', ' ', '\n', '\r\n', '\t', '\n\t\t', '  '];

/** Random JSON texts: nested maps and lists, strings of {@link CHARS}, numbers, booleans, null, some repeated or empty keys. */
function texts(count: number): string[] {
  const r = random(47);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const ws = () => (r() < 0.02 ? pick(['\r', '\u00a0']) : pick(WHITESPACE));
  const str = () => JSON.stringify(Array.from({ length: Math.floor(r() * 4) }, () => pick(CHARS)).join(''));
  const value = (depth: number): string => {
    // Mostly a map or a list at the top, as a Terraform outputs file; sometimes a plain value.
    const kind = depth > 3 ? 3 : depth === 0 && r() < 0.9 ? Math.floor(r() * 2) : Math.floor(r() * 5);
    if (kind === 0) return `{${ws()}${Array.from({ length: Math.floor(r() * 4) }, () => `${r() < 0.1 ? '"k"' : str()}${ws()}:${ws()}${value(depth + 1)}`).join(`,${ws()}`)}${ws()}}`;
    if (kind === 1) return `[${ws()}${Array.from({ length: Math.floor(r() * 3) }, () => value(depth + 1)).join(`,${ws()}`)}${ws()}]`;
    if (kind === 2) return pick(['0', '-0', '1.50', '1e400', '-2.5E-3', '12345678901234567890', 'true', 'false', 'null']);
    return str();
  };
  return Array.from({ length: count }, () => `${ws()}${value(0)}${ws()}`);
}

describe('scanJson', () => {
  it('reads with JSON.parse exactly the data SourceFile reads, and only texts SourceFile reads with no problem', () => {
    let plain = 0;
    for (const text of texts(400)) {
      const scan = scanJson(text);
      if (!scan.plain) continue;
      plain++;
      const source = SourceFile.parse(text, 'f.json');
      expect({ text, problems: source.problems }).toEqual({ text, problems: [] });
      expect({ text, value: scan.plain.value }).toEqual({ text, value: source.value });
    }
    // The comparison must have run on most texts, not only on the ones left to SourceFile.
    expect(plain).toBeGreaterThan(200);
  });

  it('gives maps without a prototype, as SourceFile does: __proto__ is an ordinary key', () => {
    const value = scanJson('{"__proto__": {"value": "x"}}').plain?.value;
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.keys(value ?? {})).toEqual(['__proto__']);
  });

  it.each([
    ['a key twice in one map (JSON.parse keeps the last)', '{"a": 1, "b": {"c": 1, "c": 2}}'],
    ['a key twice, once escaped', '{"a_b": 1, "a\\u005fb": 2}'],
    ['an empty key', '{"": 1}'],
    ['a carriage return not followed by a line feed', '{"a":\r"x"}'],
    ['nesting deeper than 64', `${'['.repeat(65)}${']'.repeat(65)}`],
    ['whitespace JSON does not allow', '{\u00a0"a": 1}'],
    ['a syntax error', '{"a": 1,}'],
    ['a value that is not a map or a list (a tab before it is YAML indentation)', '\t"x"'],
  ])('leaves to SourceFile %s', (_, text) => {
    expect(scanJson(text).plain).toBeUndefined();
  });

  it('reads the same key in different maps, CRLF line ends and 64 levels', () => {
    expect(scanJson('{"a": {"a": 1},\r\n "b": {"a": 2}}').plain?.value).toEqual({ a: { a: 1 }, b: { a: 2 } });
    expect(scanJson(`${'['.repeat(64)}${']'.repeat(64)}`).plain).toBeDefined();
  });

  it.each(['{"a": 1,}', '{"a": 1', '{ a: 1 }', '// c\n{}', '', '{"a": 1}'])('reports the syntax errors of %j as jsonc-parser parse does', (text) => {
    const errors: ParseError[] = [];
    parse(text, errors, { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false });
    expect(scanJson(text).errors).toEqual(errors);
  });
});
