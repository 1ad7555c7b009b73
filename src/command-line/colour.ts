/** The few colours the command line uses: errors, warnings, headers and the classes of `diff`. */
export type Colour = 'red' | 'yellow' | 'cyan' | 'magenta' | 'bold';

/** Wraps `text` in a colour, or returns it unchanged. */
export type Paint = (colour: Colour, text: string) => string;

/** Start and end codes of each colour (ANSI SGR); the end code resets only that attribute. */
const CODES: Record<Colour, readonly [number, number]> = { red: [31, 39], yellow: [33, 39], cyan: [36, 39], magenta: [35, 39], bold: [1, 22] };

/** No colour: for files, pipes, CI logs, and whenever the user asks for none. */
export const PLAIN: Paint = (_colour, text) => text;

/** ANSI escape codes. (`util.styleText` would do, but only from Node 20.12; engines allows 20.0.) */
export const ANSI: Paint = (colour, text) => `\u001b[${CODES[colour][0]}m${text}\u001b[${CODES[colour][1]}m`;

/**
 * How to paint a stream. Never with `NO_COLOR` set, whatever its value
 * (https://no-color.org); always with `FORCE_COLOR` set (but to `0` or `false`);
 * otherwise only on a terminal outside CI (`CI` set) and not on a `TERM=dumb` one.
 * @param isTerminal whether the stream is a terminal (a TTY)
 */
export function paintFor(isTerminal: boolean, env: NodeJS.ProcessEnv): Paint {
  if (env.NO_COLOR !== undefined) return PLAIN;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false' ? PLAIN : ANSI;
  return isTerminal && env.CI === undefined && env.TERM !== 'dumb' ? ANSI : PLAIN;
}

/**
 * A printer of lines to stderr that paints the `error:` and `warning:` a line starts with
 * (red, yellow), for output written by code that does not colour it itself.
 */
export function paintErrors(paint: Paint, print: (line: string) => void): (line: string) => void {
  return (line) => {
    const label = /^(error|warning):/.exec(line)?.[0];
    if (!label) print(line);
    else print(`${paint(label === 'error:' ? 'red' : 'yellow', label)}${line.slice(label.length)}`);
  };
}
