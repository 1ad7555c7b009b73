import { closeSync, constants, existsSync, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { LineCounter } from 'yaml';
import { Problem } from './problems';

/** Limits and confinement of one input file. */
export interface InputOptions {
  /** The folder the file must resolve into (symbolic links followed). @default - anywhere */
  readonly confineTo?: string;
  /** What the confinement folder is, for the message (`the repository`). @default "the repository" */
  readonly confineName?: string;
  /** Largest size accepted, in bytes. */
  readonly maxBytes: number;
  /** Says how to save the file as UTF-8 when it is UTF-16. @default - a generic hint */
  readonly utf16Hint?: string;
  /** Told of each file read: what it was when opened, and the bytes read (an incremental synth's record of its inputs). @default - no one */
  readonly seen?: (path: string, file: SeenFile) => void;
}

/** A file as {@link readInput} read it: its size and modification time when it was opened (before the read), and its bytes. */
export interface SeenFile {
  readonly size: number;
  readonly mtimeMs: number;
  readonly bytes: Buffer;
}

/** Bidirectional control characters: they make text display differently from what it is (CVE-2021-42574). */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

/**
 * Reads an input file as text, or returns the problem that stops it: not found, outside
 * its confinement folder, not a regular file (a FIFO would block forever, a device never
 * end), too large, UTF-16, invalid UTF-8, a NUL or a bidirectional control character.
 * A UTF-8 byte order mark is dropped. Messages never quote the file's content.
 */
export function readInput(path: string, displayPath: string, options: InputOptions): string | Problem {
  const problem = (message: string, line = 0, col = 0): Problem => ({ file: displayPath, line, col, path: '', message });
  let real: string;
  try {
    real = realpathSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return problem(code === 'ENOENT' ? 'file not found' : `cannot read file (${code ?? String(err)})`);
  }
  if (options.confineTo !== undefined && !isInside(real, realpathSync(options.confineTo))) {
    return problem(`resolves outside ${options.confineName ?? 'the repository'} (through a symbolic link or ..): input files must be inside it`);
  }
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the real path is final.
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    return problem(`cannot read file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return problem(`is ${st.isDirectory() ? 'a folder' : st.isFIFO() ? 'a FIFO' : 'a device or socket'}, not a regular file`);
    if (st.size > options.maxBytes) return problem(`is ${st.size} bytes; input files are at most ${options.maxBytes} bytes`);
    const bytes = Buffer.alloc(st.size);
    const n = readSync(fd, bytes, 0, st.size, 0);
    options.seen?.(path, { size: st.size, mtimeMs: st.mtimeMs, bytes: bytes.subarray(0, n) });
    return decode(bytes.subarray(0, n), problem, options.utf16Hint);
  } finally {
    closeSync(fd);
  }
}

/**
 * The repository (the nearest folder above `path` holding `.git`), or `path`'s own folder when there is none.
 * @param show how its name shows a folder. @default - relative to the working directory
 */
export function repositoryOf(path: string, show: (dir: string) => string = (d) => relative(process.cwd(), d) || '.'): { readonly dir: string; readonly name: string; readonly isRepository: boolean } {
  const start = dirname(path);
  for (let d = start; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return { dir: d, name: `the repository (${show(d)})`, isRepository: true };
    if (dirname(d) === d) return { dir: start, name: `the config's folder (${show(start)})`, isRepository: false };
  }
}

/**
 * Line and column (1-based) of any offset of `text`, by yaml's `LineCounter` as
 * `SourceFile` (source.ts) locates parsed nodes, for text that is not parsed yet or failed to parse.
 * Filled from the text's line feeds rather than by a parse: yaml's parser stops counting lines
 * at some syntax errors. A line starts after each "\n" in both, so the positions agree.
 */
export function linePositions(text: string): LineCounter {
  const lines = new LineCounter();
  lines.addNewLine(0);
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines.addNewLine(at + 1);
  return lines;
}

function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

function decode(bytes: Buffer, problem: (message: string, line?: number, col?: number) => Problem, utf16Hint?: string): string | Problem {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return problem(`is UTF-16 text: save it as UTF-8${utf16Hint ? ` (${utf16Hint})` : ''}`);
  }
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  if (!isUtf8(body)) {
    const { line, col } = firstInvalidUtf8(body);
    return problem('invalid UTF-8: save the file as UTF-8', line, col);
  }
  const text = body.toString('utf8');
  const bad = /\u0000/.exec(text) ?? BIDI.exec(text);
  if (bad) {
    const { line, col } = linePositions(text).linePos(bad.index);
    const code = bad[0].codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0');
    return problem(bad[0] === '\u0000'
      ? 'NUL character: input files are text'
      : `bidirectional control character U+${code}: it makes the text display differently from what it is; remove it`, line, col);
  }
  return text;
}

/** Line and column (1-based, in characters) of the first byte that is not valid UTF-8. */
function firstInvalidUtf8(bytes: Buffer): { line: number; col: number } {
  // Decoding replaces each invalid sequence with U+FFFD; the first U+FFFD that is not a
  // literal one (EF BF BD) in the file marks the first invalid byte. Everything before it
  // decoded exactly, so its byte offset is the UTF-8 length of the text before it.
  const text = bytes.toString('utf8');
  let offset = 0;
  let from = 0;
  for (let at = text.indexOf('\uFFFD'); at >= 0; at = text.indexOf('\uFFFD', at + 1)) {
    offset += Buffer.byteLength(text.slice(from, at));
    from = at;
    if (!(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return linePositions(text).linePos(at);
  }
  return { line: 0, col: 0 };
}
