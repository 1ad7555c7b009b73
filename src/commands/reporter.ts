import type { CommandSpec } from '../command-line/args';
import { usageHint } from '../command-line/help';
import { Colour, Paint, paintErrors, paintFor } from '../command-line/colour';
import { UserPaths } from '../command-line/paths';
import { formatProblem, Problem } from '../input/problems';

/** Where the command line prints; tests pass their own. */
export interface Io {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  /** Whether `out` and `err` are terminals: only there is anything coloured (see {@link paintFor}). @default - neither */
  readonly tty?: { readonly out: boolean; readonly err: boolean };
}

/**
 * Exit codes of the command line (contract sections 3 and 5.4): `gate` is `diff
 * --fail-on` finding a change of the given class or a louder one.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, gate: 3 } as const;

/** Prints for the commands: errors red and warnings yellow on a terminal, paths as the user sees them. */
export class Reporter {
  private readonly paint: { readonly out: Paint; readonly err: Paint };

  public constructor(private readonly io: Io, env: NodeJS.ProcessEnv, public readonly paths: UserPaths) {
    this.paint = { out: paintFor(io.tty?.out ?? false, env), err: paintFor(io.tty?.err ?? false, env) };
  }

  public readonly out = (line: string): void => this.io.out(line);
  public readonly err = (line: string): void => this.io.err(line);

  /** A line of standard output in a colour (on a terminal). */
  public outIn(colour: Colour, line: string): void {
    this.io.out(this.paint.out(colour, line));
  }

  /** Paints a text for standard output (on a terminal). */
  public paintOut(colour: Colour, text: string): string {
    return this.paint.out(colour, text);
  }

  /** `error: message`. */
  public error(message: string): void {
    this.io.err(`${this.paint.err('red', 'error:')} ${message}`);
  }

  /** Prints a line of another part's output (the upgrade), its `error:` or `warning:` painted like ours. */
  public get errWithLabels(): (line: string) => void {
    return paintErrors(this.paint.err, this.io.err);
  }

  /** A problem of an input file, `file:line:col: field: message` (files are named from where the user ran npm: {@link Reporter.loadOptions}). */
  public problem(p: Problem): void {
    const line = formatProblem(p);
    const at = line.indexOf(': ');
    this.io.err(at < 0 ? this.paint.err('red', line) : `${this.paint.err('red', line.slice(0, at + 1))}${line.slice(at + 1)}`);
  }

  /** `warning: file:line:col: field: message`. */
  public warning(p: Problem): void {
    this.warningLine(formatProblem(p));
  }

  /** A warning already formatted ({@link formatProblem}): what a synth with nothing to do prints again (output/unchanged-run.ts). */
  public warningLine(line: string): void {
    this.io.err(`${this.paint.err('yellow', 'warning:')} ${line}`);
  }

  /** How the config is loaded for this user: files named, in problems and their messages, from where they ran npm. */
  public get loadOptions(): { readonly showPath: (path: string) => string } {
    return { showPath: (path) => this.paths.show(path) };
  }
}

/** Bad usage: every problem, then the command's synopsis and where its help is. */
export function usage(say: Reporter, spec: CommandSpec, problems: readonly string[]): number {
  for (const p of problems) say.error(p);
  for (const line of usageHint(spec)) say.err(line);
  return EXIT.usage;
}
