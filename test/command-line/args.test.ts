import { closest, commandProblems, CommandSpec, tokenize } from '../../src/command-line/args';

const SPEC: CommandSpec = {
  name: 'diff', summary: '', description: '', examples: [],
  options: [
    { name: 'base', value: 'REF', required: 'diff needs --base REF', help: '' },
    { name: 'format', value: 'FORMAT', choices: ['terminal', 'markdown'], noun: 'format', help: '' },
    { name: 'full', help: '' },
  ],
};
const TABLE = [...SPEC.options, { name: 'outdir', value: 'DIR', help: '' }, { name: 'help', help: '' }, { name: 'version', help: '' }];

describe('tokenize', () => {
  it('reads --name VALUE, --name=VALUE, flags, -h and arguments after --', () => {
    const t = tokenize(['diff', '--base', 'HEAD', '--format=markdown', '--full', '-h', '--', '--not-an-option'], TABLE);
    expect(Object.fromEntries(t.given)).toEqual({ base: 'HEAD', format: 'markdown', full: true, help: true });
    expect(t.positionals).toEqual(['diff', '--not-an-option']);
    expect(t.unknown).toEqual([]);
  });

  it('sets an unknown option aside with the value of the option it most likely meant', () => {
    const t = tokenize(['diff', '--form', 'json', '--ful', 'x'], TABLE);
    expect(t.unknown).toEqual(['--form', '--ful']);
    expect(t.positionals).toEqual(['diff', 'x']);
  });

  it('fails on a missing value and on a value given to a flag', () => {
    expect(tokenize(['--base'], TABLE).problems).toEqual(['--base needs a value: --base REF']);
    expect(tokenize(['--base', '--full'], TABLE).problems).toEqual(['--base needs a value: --base REF']);
    expect(tokenize(['--full=yes'], TABLE).problems).toEqual(['--full takes no value (given "yes")']);
  });
});

describe('commandProblems', () => {
  const problems = (argv: string[]) => {
    const t = tokenize(argv, TABLE);
    return commandProblems(SPEC, t, t.positionals);
  };

  it('names unknown options with the closest one, options of other commands, bad values and a missing required option', () => {
    expect(problems(['--bsae', 'HEAD', '--dry-run', '--outdir', 'o', '--format', 'html', 'extra'])).toEqual([
      'unknown option --bsae for diff (did you mean --base?)',
      'unknown option --dry-run for diff',
      '--outdir does not go with diff (diff takes --base, --format and --full)',
      'unknown format "html" for --format (allowed: terminal, markdown)',
      'diff takes no arguments, got: extra',
      'diff needs --base REF',
    ]);
    expect(problems(['--base', 'x', '--fromat', 'json'])).toEqual(['unknown option --fromat for diff (did you mean --format?)']);
  });
});

describe('closest', () => {
  const names = ['config', 'outdir', 'format', 'full', 'fail-on', 'help', 'version'].map((name) => ({ name }));
  it.each([
    ['confg', 'config'], ['form', 'format'], ['fromat', 'format'], ['failon', 'fail-on'], ['vesion', 'version'], ['out', 'outdir'],
  ])('suggests --%s -> --%s', (typed, expected) => {
    expect(closest(typed, names)?.name).toBe(expected);
  });

  it('suggests nothing far from every option', () => {
    expect(closest('dry-run', names)).toBeUndefined();
    expect(closest('x', names)).toBeUndefined();
  });
});
