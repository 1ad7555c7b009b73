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
}

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
}

/** `--help` and `--version`: every command takes them. */
export const COMMON_OPTIONS: readonly OptionSpec[] = [
  { name: 'help', help: 'print this help and exit' },
  { name: 'version', help: 'print the version of karpenter-gitops and of Karpenter it generates for, and exit' },
];

/** A command line cut into options and arguments. */
export interface Tokens {
  /** The options of the table that were given, by name; a flag's value is `true`. The last one given wins. */
  readonly given: ReadonlyMap<string, string | true>;
  /** Options that are not in the table, as typed (`--form`, `-x`). */
  readonly unknown: readonly string[];
  /** Everything that is not an option or an option's value, in order. */
  readonly positionals: readonly string[];
  /** An option's value missing, or a value given to a flag. */
  readonly problems: readonly string[];
}

/**
 * Cuts a command line into options (`--name VALUE`, `--name=VALUE`, `--flag`, `-h`) and
 * arguments; everything after `--` is an argument. An option that is not in `table` is set
 * aside for {@link commandProblems}, and so is the value after it when the option it most
 * likely meant takes one (`--form json` is one mistake, not two).
 */
export function tokenize(argv: readonly string[], table: readonly OptionSpec[]): Tokens {
  const given = new Map<string, string | true>();
  const unknown: string[] = [];
  const positionals: string[] = [];
  const problems: string[] = [];
  const isOption = (arg: string | undefined) => arg !== undefined && arg.startsWith('-') && arg !== '-';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!isOption(arg)) {
      positionals.push(arg);
      continue;
    }
    if (!arg.startsWith('--')) {
      if (arg === '-h') given.set('help', true);
      else unknown.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    const spec = table.find((o) => o.name === name);
    if (!spec) {
      unknown.push(`--${name}`);
      if (inline === undefined && closest(name, table)?.value !== undefined && !isOption(argv[i + 1])) i++;
      continue;
    }
    if (spec.value === undefined) {
      if (inline !== undefined) problems.push(`--${name} takes no value (given "${inline}")`);
      else given.set(name, true);
      continue;
    }
    const value = inline ?? (isOption(argv[i + 1]) ? undefined : argv[++i]);
    if (value === undefined) problems.push(`--${name} needs a value: --${name} ${spec.value}`);
    else given.set(name, value);
  }
  return { given, unknown, positionals, problems };
}

/** The values of a command's options and its argument, once {@link commandProblems} found none. */
export interface CommandArgs {
  /** Option values by name; a flag's value is `true`. */
  readonly values: Readonly<Record<string, string | true | undefined>>;
  /** The command's argument. @default - the command takes none */
  readonly argument?: string;
}

/**
 * Everything wrong with a command line for `spec`, one message each: unknown options
 * (with the closest one the command has), options of other commands, values outside
 * an option's choices, a missing required option, a missing or extra argument.
 * @param positionals the arguments after the command's name
 */
export function commandProblems(spec: CommandSpec, tokens: Tokens, positionals: readonly string[]): string[] {
  const problems = [...tokens.problems];
  const own = [...spec.options, ...COMMON_OPTIONS];
  for (const raw of tokens.unknown) {
    const near = raw.startsWith('--') ? closest(raw.slice(2), own) : undefined;
    problems.push(`unknown option ${raw} for ${spec.name}${near ? ` (did you mean --${near.name}?)` : ''}`);
  }
  for (const [name, value] of tokens.given) {
    const option = own.find((o) => o.name === name);
    if (!option) {
      problems.push(`--${name} does not go with ${spec.name} (${spec.name} takes ${list(spec.options.map((o) => `--${o.name}`))})`);
    } else if (option.choices && typeof value === 'string' && !option.choices.includes(value)) {
      problems.push(`unknown ${option.noun ?? 'value'} "${value}" for --${name} (allowed: ${option.choices.join(', ')})`);
    }
  }
  const argument = spec.argument;
  if (!argument && positionals.length > 0) {
    problems.push(`${spec.name} takes no arguments, got: ${positionals.join(' ')}`);
  } else if (argument && positionals.length === 0) {
    problems.push(argument.missing);
  } else if (argument && positionals.length > 1) {
    problems.push(`${spec.name} takes one ${argument.name}, got ${positionals.length}: ${positionals.join(' ')}`);
  } else if (argument?.pattern && !argument.pattern.test(positionals[0])) {
    problems.push(argument.invalid ?? argument.missing);
  }
  for (const o of spec.options) if (o.required && !tokens.given.has(o.name)) problems.push(o.required);
  return problems;
}

/** The option values and argument of a command line that has no problems. */
export function commandArgs(tokens: Tokens, positionals: readonly string[]): CommandArgs {
  return { values: Object.fromEntries(tokens.given), argument: positionals[0] };
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

/** `npm run diff -- --base REF [--config FILE] [--full]`. */
export function synopsis(spec: CommandSpec): string {
  const placeholder = (o: OptionSpec) => (o.value === undefined ? `--${o.name}` : `--${o.name} ${o.choices ? o.choices.join('|') : o.value}`);
  const parts = [
    ...(spec.argument ? [spec.argument.name] : []),
    ...spec.options.filter((o) => o.required).map(placeholder),
    ...spec.options.filter((o) => !o.required).map((o) => `[${placeholder(o)}]`),
  ];
  return `npm run ${spec.name}${parts.length ? ` -- ${parts.join(' ')}` : ''}`;
}

/** The help of one command: its synopsis, what it does, its options and examples. */
export function commandHelp(spec: CommandSpec): string {
  const rows = [...spec.options, ...COMMON_OPTIONS].map((o) => [
    `${o.name === 'help' ? '-h, ' : ''}--${o.name}${o.value === undefined ? '' : ` ${o.value}`}`,
    o.help,
  ]);
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return [
    `usage: ${synopsis(spec)}`,
    '',
    spec.description,
    '',
    'options:',
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`),
    '',
    spec.examples.length > 1 ? 'examples:' : 'example:',
    ...spec.examples.map((e) => `  ${e}`),
    ...(spec.notes ? ['', spec.notes] : []),
  ].join('\n');
}

/** The lines printed after usage errors: the command's synopsis and where its help is. */
export function usageHint(spec: CommandSpec): string[] {
  return [`usage: ${synopsis(spec)}`, `\`npm run ${spec.name} -- --help\` explains each option`];
}

/** `a`, `a and b`, `a, b and c`. */
function list(items: readonly string[]): string {
  if (items.length === 0) return 'no options';
  return items.length === 1 ? items[0] : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
