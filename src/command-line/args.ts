import { parseArgs, ParseArgsConfig } from 'node:util';
import { distance } from 'fastest-levenshtein';

/** An option of a command, `--name` or `--name VALUE`. */
export interface OptionSpec {
  /** Its name, without the leading `--`. */
  readonly name: string;
  /** The placeholder of its value in help (`FILE`). @default - a flag: it takes no value */
  readonly value?: string;
  /** The values it accepts. @default - any value */
  readonly choices?: readonly string[];
  /** What one of its values is called in an error: `unknown format "html"`. @default "value" */
  readonly noun?: string;
  /** The error when it is missing; makes the option required. @default - optional */
  readonly required?: string;
  /** One line of help. */
  readonly help: string;
}

/** The one argument a command takes after its name (`fit MANIFEST`). */
export interface ArgumentSpec {
  /** Its placeholder in help: `MANIFEST`. */
  readonly name: string;
  /** The error when it is missing. */
  readonly missing: string;
  /** What a valid argument looks like. @default - anything */
  readonly pattern?: RegExp;
  /** The error when it does not match `pattern`. @default - the `missing` error */
  readonly invalid?: string;
  /** It may be given several times (`adopt A=a.yaml B=b.yaml`): each is in {@link CommandLine.arguments}. @default false - once */
  readonly many?: boolean;
}

/** The options of a command line that were read, by name, whatever else is wrong with it; a flag's value is `true`. */
export type Given = ReadonlyMap<string, string | boolean>;

/** A command of the command line: what its help says and what it accepts. */
export interface CommandSpec {
  /** Its name, the npm script that runs it: `diff` (`npm run diff`). */
  readonly name: string;
  /** One line for the list of commands. */
  readonly summary: string;
  /** What it does, for its help: lines of at most 100 characters. */
  readonly description: string;
  /** Its argument. @default - it takes none */
  readonly argument?: ArgumentSpec;
  /** Its options, in the order its help lists them (`--help` and `--version` are always accepted). */
  readonly options: readonly OptionSpec[];
  /** Command lines its help shows, e.g. `npm run diff -- --base origin/main`. */
  readonly examples: readonly string[];
  /** Lines its help ends with (exit codes, environment). @default - none */
  readonly notes?: string;
  /**
   * What it needs of its options together, beyond each one alone (`diff`: `--base` or `--live`),
   * one message each; asked even when the line has other problems, so all are said at once.
   * @default - nothing beyond each option
   */
  readonly constraints?: (given: Given, argument: string | undefined) => readonly string[];
}

/** `--help` and `--version`: every command takes them. */
export const COMMON_OPTIONS: readonly OptionSpec[] = [
  { name: 'help', help: 'print this help and exit' },
  { name: 'version', help: 'print the version of karpenter-gitops and of Karpenter it generates for, and exit' },
];

/** The value an option's spec admits: one of its choices, any text, or, for a flag, whether it was given. */
type ValueOf<O extends OptionSpec> = O extends { readonly choices: readonly (infer C)[] } ? C : O extends { readonly value: string } ? string : boolean;

/** The options of a command line read for `S`, by name: a required option always there, any other valued one maybe. */
export type OptionValues<S extends CommandSpec> = {
  readonly [O in S['options'][number] as O['name']]: O extends { readonly required: string } ? ValueOf<O>
    : O extends { readonly value: string } ? ValueOf<O> | undefined : boolean;
};

/** A command line `S` accepts: its options, typed by its spec, and its argument. */
export interface CommandLine<S extends CommandSpec> {
  readonly options: OptionValues<S>;
  /** The command's argument, there exactly when its spec has one: the first, when it may be given several times. */
  readonly argument: S extends { readonly argument: ArgumentSpec } ? string : undefined;
  /** Every argument given, in order (several when the spec's argument is `many`). */
  readonly arguments: readonly string[];
}

/** A command line read for one command: what it asks for, or every problem it has. */
export interface Reading<S extends CommandSpec> {
  /** `--help` or `-h` was given: print the help, whatever else the line holds. */
  readonly help: boolean;
  /** `--version` was given. */
  readonly version: boolean;
  /** Every problem of the line, one message each; empty when `line` is there. */
  readonly problems: readonly string[];
  /** The line, when it has no problem. */
  readonly line?: CommandLine<S>;
  /** The options that were read, the line's problems notwithstanding. */
  readonly given: Given;
}

/** How `parseArgs` reads a command's options: its own, `--help` (`-h`) and `--version`. */
function parseConfig(spec: CommandSpec): ParseArgsConfig & { readonly options: NonNullable<ParseArgsConfig['options']> } {
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } };
  for (const o of spec.options) options[o.name] = { type: o.value === undefined ? 'boolean' : 'string' };
  return { options, allowPositionals: true };
}

/** The error code of a command line `parseArgs` refuses (`ERR_PARSE_ARGS_UNKNOWN_OPTION`), or undefined when it reads it. */
function refusal(config: ParseArgsConfig, args: readonly string[]): string | undefined {
  try {
    parseArgs({ ...config, args: [...args], strict: true });
    return undefined;
  } catch (err) {
    // Not `instanceof Error`: Node's own errors come from another realm under jest's sandbox.
    if (!(typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' && err.code.startsWith('ERR_PARSE_ARGS_'))) throw err;
    return err.code;
  }
}

/**
 * Reads a command line for `spec` with `node:util` `parseArgs`, strict: `--name VALUE`,
 * `--name=VALUE`, `--flag`, `-h`, everything after `--` an argument; the last of a repeated
 * option wins. Then each value against its choices, the required options, the argument and the
 * spec's constraints: every problem, in the user's words.
 * @param argv the command line after the command's name
 * @param others the options of the other commands: one of them here is said to belong elsewhere
 * @see https://nodejs.org/api/util.html#utilparseargsconfig
 */
export function readCommandLine<S extends CommandSpec>(spec: S, argv: readonly string[], others: readonly OptionSpec[] = []): Reading<S> {
  const config = parseConfig(spec);
  const { kept, problems }: { kept: readonly string[]; problems: string[] } = refusal(config, argv) === undefined
    ? { kept: argv, problems: [] } : refusedOptions(spec, config, argv, others);
  const { values, positionals } = parseArgs({ ...config, args: [...kept], strict: true });
  const given = new Map<string, string | boolean>();
  for (const [name, value] of Object.entries(values)) if (typeof value === 'string' || typeof value === 'boolean') given.set(name, value);
  const read = {
    options: Object.fromEntries(spec.options.map((o) => [o.name, given.get(o.name) ?? (o.value === undefined ? false : undefined)])),
    argument: positionals[0],
    arguments: positionals,
  };
  problems.push(
    ...spec.options.flatMap((o) => (given.has(o.name) ? optionProblem(o, given.get(o.name)) ?? [] : [])),
    ...argumentProblems(spec, positionals),
    ...spec.options.flatMap((o) => (given.has(o.name) ? [] : optionProblem(o, undefined) ?? [])),
    ...(spec.constraints?.(given, positionals[0]) ?? []),
  );
  const base = { help: given.get('help') === true, version: given.get('version') === true, given };
  return problems.length === 0 && accepts(spec, read) ? { ...base, problems, line: read } : { ...base, problems };
}

/**
 * The options `parseArgs` refuses, one message each, and the rest of the line. Strict, it
 * stops at the first option it refuses; its tokens (the same reading, not strict) say which
 * options the line holds, and each one read alone, strict, says whether it is refused and why
 * (its error code), so a line's problems are all said at once. The value after an unknown
 * option goes with it when the option it most likely meant takes one (`--form json` is one
 * mistake, not two).
 */
function refusedOptions(spec: CommandSpec, config: ParseArgsConfig, argv: readonly string[], others: readonly OptionSpec[]): { kept: string[]; problems: string[] } {
  const { tokens } = parseArgs({ ...config, args: [...argv], strict: false, tokens: true });
  const kept: string[] = [];
  const problems: string[] = [];
  const own = [...spec.options, ...COMMON_OPTIONS];
  let skip = -1;
  for (const [i, token] of tokens.entries()) {
    // A group of short options (`-hx`) is one argument with a token per letter: read it once.
    if (token.index <= skip || (i > 0 && token.index === tokens[i - 1].index)) continue;
    const args = argv.slice(token.index, token.index + (token.kind === 'option' && token.value !== undefined && !token.inlineValue ? 2 : 1));
    const code = token.kind === 'option' ? refusal(config, args) : undefined;
    if (token.kind !== 'option' || code === undefined) {
      kept.push(...args);
      continue;
    }
    const option = token.rawName.startsWith('--') ? own.find((o) => o.name === token.name) : undefined;
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
      // A flag given a value (`--full=yes`), or an option's value missing (`--base` last, or `--base --full`).
      problems.push(option.value === undefined ? `--${option.name} takes no value (given "${token.value ?? ''}")` : `--${option.name} needs a value: --${option.name} ${option.value}`);
      continue;
    }
    if (code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new Error(`parseArgs refused ${args.join(' ')} with ${code}, which karpenter-gitops does not put in words`);
    const long = token.rawName.startsWith('--') ? token.name : undefined;
    const elsewhere = others.find((o) => o.name === long);
    const meant = elsewhere ?? (long === undefined ? undefined : closest(long, own));
    problems.push(elsewhere
      ? `--${elsewhere.name} does not go with ${spec.name} (${spec.name} takes ${list(spec.options.map((o) => `--${o.name}`))})`
      : `unknown option ${long === undefined ? argv[token.index] : token.rawName} for ${spec.name}${meant ? ` (did you mean --${meant.name}?)` : ''}`);
    const next = tokens[i + 1];
    if (meant?.value !== undefined && token.value === undefined && next?.kind === 'positional') skip = next.index;
  }
  return { kept, problems };
}

/** What is wrong with one option's value, if anything: not one of its choices, or missing when required. */
function optionProblem(option: OptionSpec, value: string | boolean | undefined): string | undefined {
  if (value === undefined) return option.required;
  if (option.choices && typeof value === 'string' && !option.choices.includes(value)) {
    return `unknown ${option.noun ?? 'value'} "${value}" for --${option.name} (allowed: ${option.choices.join(', ')})`;
  }
  return undefined;
}

/** A missing, extra or malformed argument. */
function argumentProblems(spec: CommandSpec, positionals: readonly string[]): string[] {
  const argument = spec.argument;
  if (!argument) return positionals.length > 0 ? [`${spec.name} takes no arguments, got: ${positionals.join(' ')}`] : [];
  if (positionals.length === 0) return [argument.missing];
  if (positionals.length > 1 && argument.many !== true) return [`${spec.name} takes one ${argument.name}, got ${positionals.length}: ${positionals.join(' ')}`];
  return argument.pattern && !positionals.every((p) => argument.pattern?.test(p)) ? [argument.invalid ?? argument.missing] : [];
}

/**
 * Whether a command line read for `spec` is one it accepts: each option of its kind (a flag
 * true or false, a value text) with no problem, and the argument there exactly when it takes one.
 */
function accepts<S extends CommandSpec>(spec: S, read: { readonly options: Readonly<Record<string, string | boolean | undefined>>; readonly argument: string | undefined }): read is CommandLine<S> {
  const fits = (o: OptionSpec, value: string | boolean | undefined) => (o.value === undefined ? typeof value === 'boolean' : typeof value !== 'boolean');
  return spec.options.every((o) => fits(o, read.options[o.name]) && optionProblem(o, read.options[o.name]) === undefined)
    && (spec.argument === undefined) === (read.argument === undefined);
}

/**
 * The closest name to `typed` among `options`: one that starts with it (`--form`,
 * `--format`) or is at most a third of its length away (at least 2 edits).
 */
export function closest<T extends { readonly name: string }>(typed: string, options: readonly T[]): T | undefined {
  let best: { option: T; score: number } | undefined;
  for (const option of options) {
    const d = distance(typed, option.name);
    const prefix = typed.length >= 2 && (option.name.startsWith(typed) || typed.startsWith(option.name));
    if (!prefix && d > Math.max(2, Math.floor(option.name.length / 3))) continue;
    const score = prefix ? Math.min(d, 1) : d;
    if (!best || score < best.score) best = { option, score };
  }
  return best?.option;
}

/** `a`, `a and b`, `a, b and c`. */
function list(items: readonly string[]): string {
  if (items.length === 0) return 'no options';
  return items.length === 1 ? items[0] : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
