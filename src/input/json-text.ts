import { ParseError, visit } from 'jsonc-parser';
import { withoutPrototypes } from './user-map';

/** What one strict pass over a JSON text found. */
export interface JsonScan {
  /**
   * The syntax errors, as jsonc-parser's `parse` reports them with no comments, no trailing
   * comma and no empty content allowed; empty when the text is strict JSON.
   */
  readonly errors: readonly ParseError[];
  /**
   * The text's data, maps without a prototype, when {@link SourceFile.parse} (source.ts) would
   * read exactly the same with no problem. @default - absent: read it with SourceFile, which says
   * where the problem is (a duplicate key) or reads the text differently (a lone carriage return)
   */
  readonly plain?: { readonly value: unknown };
}

/**
 * Deepest nesting read without SourceFile: the yaml parser's recursion gives up (a
 * RESOURCE_EXHAUSTION problem) some hundreds of levels down, a Terraform output a few levels down.
 */
const MAX_PLAIN_DEPTH = 64;

/**
 * Checks a JSON text in one pass and, when nothing in it needs a located parse, reads it with
 * `JSON.parse`, several times faster than the YAML parser with positions. The text needs the
 * located parse when it is not strict JSON, or when SourceFile would report or read it otherwise:
 * - a key twice in one map (`JSON.parse` keeps the last silently; SourceFile says "duplicate key")
 *   or an empty key ("keys must be names"),
 * - a carriage return not followed by a line feed (JSON's whitespace, but not a line break to
 *   YAML 1.2, which reads it into the next token: https://yaml.org/spec/1.2.2/#53-line-break-characters),
 * - nesting deeper than {@link MAX_PLAIN_DEPTH},
 * - a value that is not a map or a list: YAML reads it in block context, where a tab before it
 *   is indentation, an error (https://yaml.org/spec/1.2.2/#61-indentation-spaces).
 * Everything else strict JSON may hold (escapes, tabs, any other character in a string) YAML's
 * double-quoted and flow forms read alike: https://yaml.org/spec/1.2.2/#yaml-version-12 ("YAML 1.2
 * is a superset of JSON"); test/input/json-text.test.ts holds the two readings side by side.
 */
export function scanJson(text: string): JsonScan {
  const errors: ParseError[] = [];
  // One set of keys per open map; arrays hold undefined, so nesting is the stack's length.
  const open: (Set<string> | undefined)[] = [];
  let plain = /^[ \t\n\r]*[{[]/.test(text) && !/\r(?!\n)/.test(text);
  const enter = (keys: Set<string> | undefined) => {
    open.push(keys);
    if (open.length > MAX_PLAIN_DEPTH) plain = false;
  };
  visit(text, {
    onObjectBegin: () => enter(new Set()),
    onArrayBegin: () => enter(undefined),
    onObjectEnd: () => { open.pop(); },
    onArrayEnd: () => { open.pop(); },
    onObjectProperty: (key) => {
      const keys = open[open.length - 1];
      if (key === '' || !keys || keys.has(key)) plain = false;
      else keys.add(key);
    },
    onError: (error, offset, length) => { errors.push({ error, offset, length }); },
  }, { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false });
  if (errors.length > 0 || !plain) return { errors };
  return { errors, ...plainValue(text) };
}

/**
 * `JSON.parse` of a text jsonc-parser found strict; jsonc-parser takes a few more characters as
 * whitespace (a no-break space) than JSON does, and such a text is left to SourceFile as before.
 */
function plainValue(text: string): { plain?: { value: unknown } } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {};
  }
  return { plain: { value: withoutPrototypes(value) } };
}
