import { closest, CommandSpec, readCommandLine } from '../../src/command-line/args';

const SPEC = {
  name: 'diff', summary: '', description: '', examples: [],
  options: [
    { name: 'base', value: 'REF', required: 'diff needs --base REF', help: '' },
    { name: 'format', value: 'FORMAT', choices: ['terminal', 'markdown'], noun: 'format', help: '' },
    { name: 'full', help: '' },
  ],
} as const satisfies CommandSpec;
/** Options of other commands. */
const OTHERS = [{ name: 'outdir', value: 'DIR', help: '' }, { name: 'verbose', help: '' }];

const read = (argv: string[], spec: CommandSpec = SPEC) => readCommandLine(spec, argv, OTHERS);

describe('readCommandLine', () => {
  it('reads --name VALUE, --name=VALUE, flags, -h and arguments after --, typed by the spec', () => {
    const r = readCommandLine({ ...SPEC, argument: { name: 'X', missing: 'needs X' } }, ['--base', 'HEAD', '--format=markdown', '--full', '-h', '--', '--not-an-option']);
    expect(r.problems).toEqual([]);
    expect(r.help).toBe(true);
    expect(r.line).toEqual({ options: { base: 'HEAD', format: 'markdown', full: true }, argument: '--not-an-option', arguments: ['--not-an-option'] });
  });

  it('gives a flag not given as false and a value not given as undefined; the last of a repeated option wins', () => {
    const { line } = readCommandLine(SPEC, ['--base', 'a', '--base=b'], OTHERS);
    expect(line).toEqual({ options: { base: 'b', format: undefined, full: false }, argument: undefined, arguments: [] });
    if (!line) return;
    // Typed by the spec: a required option is text, a choice one of its values, a flag a boolean, no argument undefined.
    const { base, format, full }: { base: string; format: 'terminal' | 'markdown' | undefined; full: boolean } = line.options;
    const argument: undefined = line.argument;
    // @ts-expect-error a choice is one of its values, not any text
    const html: 'html' | undefined = line.options.format;
    // @ts-expect-error an option the spec does not have is not there
    expect([base, format, full, argument, html, line.options.outdir]).toEqual(['b', undefined, false, undefined, undefined, undefined]);
  });

  it('takes a value that starts with a dash only after =, and - alone as a value', () => {
    expect(read(['--base=-x']).line?.options.base).toBe('-x');
    expect(read(['--base', '-']).line?.options.base).toBe('-');
  });

  it('fails on a missing value and on a value given to a flag, in its own words', () => {
    expect(read(['--base']).problems).toEqual(['--base needs a value: --base REF', 'diff needs --base REF']);
    expect(read(['--base', '--full']).problems).toEqual(['--base needs a value: --base REF', 'diff needs --base REF']);
    expect(read(['--base', 'x', '--full=yes']).problems).toEqual(['--full takes no value (given "yes")']);
    expect(read(['--base', 'x', '--full=yes']).line).toBeUndefined();
  });

  it('names unknown options with the closest one, options of other commands, bad values, arguments and a missing required option, all at once', () => {
    expect(read(['--bsae', 'HEAD', '--dry-run', '--outdir', 'o', '--format', 'html', 'extra']).problems).toEqual([
      'unknown option --bsae for diff (did you mean --base?)',
      'unknown option --dry-run for diff',
      '--outdir does not go with diff (diff takes --base, --format and --full)',
      'unknown format "html" for --format (allowed: terminal, markdown)',
      'diff takes no arguments, got: extra',
      'diff needs --base REF',
    ]);
    expect(read(['--base', 'x', '--fromat', 'json']).problems).toEqual(['unknown option --fromat for diff (did you mean --format?)']);
  });

  it('takes the value after an unknown option with it only when the option it most likely meant takes one', () => {
    expect(read(['--base', 'x', '--form', 'json']).problems).toEqual(['unknown option --form for diff (did you mean --format?)']);
    expect(read(['--base', 'x', '--ful', 'y']).problems).toEqual(['unknown option --ful for diff (did you mean --full?)', 'diff takes no arguments, got: y']);
    expect(read(['--base', 'x', '--verbose', 'y']).problems).toEqual(['--verbose does not go with diff (diff takes --base, --format and --full)', 'diff takes no arguments, got: y']);
    expect(read(['--base', 'x', '--form=json', 'y']).problems).toEqual(['unknown option --form for diff (did you mean --format?)', 'diff takes no arguments, got: y']);
  });

  it('names an unknown short option as typed, a group of them whole', () => {
    expect(read(['--base', 'x', '-x']).problems).toEqual(['unknown option -x for diff']);
    expect(read(['--base', 'x', '-hx']).problems).toEqual(['unknown option -hx for diff']);
  });

  it('answers --help and --version whatever else is wrong', () => {
    expect(read(['--bogus', '--help'])).toMatchObject({ help: true, problems: ['unknown option --bogus for diff', 'diff needs --base REF'] });
    expect(read(['--version'])).toMatchObject({ version: true });
  });

  it('checks the argument: missing, more than one, or not of its pattern', () => {
    const argument = { name: 'STAGE', missing: 'needs a STAGE', pattern: /^[0-9]+$/, invalid: 'a STAGE is a number' };
    const spec: CommandSpec = { ...SPEC, options: [], argument };
    expect(read([], spec).problems).toEqual(['needs a STAGE']);
    expect(read(['1', '2'], spec).problems).toEqual(['diff takes one STAGE, got 2: 1 2']);
    expect(read(['x'], spec).problems).toEqual(['a STAGE is a number']);
    expect(read(['2'], spec).line).toEqual({ options: {}, argument: '2', arguments: ['2'] });
    const many: CommandSpec = { ...spec, argument: { ...argument, many: true } };
    expect(read(['1', '2'], many).line).toEqual({ options: {}, argument: '1', arguments: ['1', '2'] });
    expect(read(['1', 'x'], many).problems).toEqual(['a STAGE is a number']);
  });

  it('asks the spec\'s constraints with the options read, even beside other problems', () => {
    const spec: CommandSpec = { ...SPEC, constraints: (given) => (given.has('full') ? [] : ['give --full']) };
    expect(read(['--bsae', 'x'], spec).problems).toEqual(['unknown option --bsae for diff (did you mean --base?)', 'diff needs --base REF', 'give --full']);
    expect(read(['--base', 'x', '--full'], spec).problems).toEqual([]);
  });

  it('never lets parseArgs\' own wording through', () => {
    for (const argv of [['--nope'], ['--base'], ['--full=1'], ['-z'], ['--base', '--full']]) {
      expect(read(argv).problems.join('\n')).not.toMatch(/Unknown option '|argument missing|ambiguous|does not take an argument|ERR_PARSE_ARGS/);
    }
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
