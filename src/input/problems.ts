/**
 * One problem found in an input file, reported as
 * `file:line:col: path: message` (see the contract's error format).
 */
export interface Problem {
  /** Path of the file, as the user would type it (relative to the working directory). */
  readonly file: string;
  /** 1-based line; 0 when the problem concerns the whole file. */
  readonly line: number;
  /** 1-based column; 0 when the problem concerns the whole file. */
  readonly col: number;
  /** Dotted field path (`teams.web.arch[0]`); empty for the whole file. */
  readonly path: string;
  /** What is wrong, what is allowed and, where not obvious, the fix. Lowercase, no trailing period. */
  readonly message: string;
}

/** Formats a problem as one line: `file:line:col: path: message`. */
export function formatProblem(p: Problem): string {
  const where = p.line > 0 ? `${p.file}:${p.line}:${p.col}` : p.file;
  return p.path ? `${where}: ${p.path}: ${p.message}` : `${where}: ${p.message}`;
}

/**
 * Thrown when the inputs are invalid. Carries every problem of the run,
 * so the user fixes them all in one go.
 */
export class InputError extends Error {
  public constructor(public readonly problems: readonly Problem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'InputError';
  }
}

/** A path into a parsed document: map keys and list indexes. */
export type FieldPath = readonly (string | number)[];

/** Renders a field path the way users read it: `teams.web.arch[0]`. */
export function renderPath(path: FieldPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}
