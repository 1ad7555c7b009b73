import { version } from '../../package.json';
import { CHART_VERSION } from '../release/chart-values-keys.generated';
import { CommandSpec, COMMON_OPTIONS, OptionSpec } from './args';

/** What `--version` prints: this tool's version and the Karpenter release it generates for. */
export function versionText(): string {
  return `karpenter-gitops ${version} (generates for Karpenter ${CHART_VERSION})`;
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

/** The help of `npm run synth -- --help`'s parent: every command, one line each. */
export function overviewHelp(commands: readonly CommandSpec[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 3;
  return [
    versionText(),
    'Karpenter NodePools, controller values and Argo CD Applications from one platform config.',
    '',
    'usage: npm run COMMAND [-- ARGUMENTS AND OPTIONS]',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    '`npm run COMMAND -- --help` shows the options of one command and an example.',
    '--version prints the version of karpenter-gitops and of Karpenter it generates for.',
  ].join('\n');
}
