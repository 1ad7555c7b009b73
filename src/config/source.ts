import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { Document, isMap, isPair, isScalar, LineCounter, parseDocument, type Node } from 'yaml';
import { FieldPath, Problem, renderPath } from './problems';

/**
 * A YAML or JSON input file parsed with source positions, so that every
 * problem can name the line and column of the field it is about.
 */
export class SourceFile {
  /**
   * Reads and parses a file. Syntax errors and duplicate keys are returned as
   * problems rather than thrown; `value` is then undefined.
   */
  public static read(path: string, displayPath: string = relative(process.cwd(), path) || path): SourceFile {
    const read = readText(path, displayPath);
    if (typeof read !== 'string') return new SourceFile(displayPath, undefined, new LineCounter(), [read]);
    return SourceFile.parse(read, displayPath);
  }

  /** Parses text already in memory (tests, JSON files). */
  public static parse(text: string, displayPath: string): SourceFile {
    const lineCounter = new LineCounter();
    const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: true, merge: true });
    const problems: Problem[] = [...doc.errors, ...doc.warnings].map((e) => {
      const pos = e.linePos?.[0] ?? lineCounter.linePos(e.pos[0]);
      return { file: displayPath, line: pos.line, col: pos.col, path: '', message: yamlMessage(e.code, e.message) };
    });
    return new SourceFile(displayPath, problems.length ? undefined : doc, lineCounter, problems);
  }

  private constructor(
    /** Path shown in messages. */
    public readonly displayPath: string,
    private readonly doc: Document | undefined,
    private readonly lineCounter: LineCounter,
    /** Problems found while reading or parsing. */
    public readonly problems: readonly Problem[],
  ) {}

  /** The parsed content as plain JavaScript data; undefined when parsing failed. */
  public get value(): unknown {
    return this.doc?.toJS({ maxAliasCount: 100 });
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

  private position(path: FieldPath, at: 'key' | 'value'): [number, number] {
    if (!this.doc) return [0, 0];
    let node: unknown = this.doc.contents;
    let offset = rangeStart(node) ?? 0;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        const keyStart = rangeStart(pair.key);
        if (last && at === 'key' && keyStart !== undefined) {
          offset = keyStart;
          break;
        }
        node = pair.value;
        offset = rangeStart(node) ?? keyStart ?? offset;
      } else if (node && typeof node === 'object' && 'items' in node && typeof seg === 'number') {
        const item = (node as { items: unknown[] }).items[seg];
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
}

/** A file's text, or the problem of reading it (`file not found` when it does not exist). */
export function readText(path: string, displayPath: string): string | Problem {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'file not found' : `cannot read file (${code ?? String(err)})`;
    return { file: displayPath, line: 0, col: 0, path: '', message: why };
  }
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}

function yamlMessage(code: string, message: string): string {
  if (code === 'DUPLICATE_KEY') return 'duplicate key (each key may appear once in a map)';
  // The yaml library's messages start with a capital and may span lines; keep the first line.
  const first = message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  return `invalid YAML: ${first.charAt(0).toLowerCase()}${first.slice(1)}`;
}
