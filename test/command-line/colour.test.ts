import { ANSI, paintErrors, paintFor, PLAIN } from '../../src/command-line/colour';

describe('paintFor', () => {
  it.each([
    ['a terminal', true, {}, ANSI],
    ['a pipe or a file', false, {}, PLAIN],
    ['NO_COLOR, any value', true, { NO_COLOR: '' }, PLAIN],
    ['NO_COLOR over FORCE_COLOR', true, { NO_COLOR: '1', FORCE_COLOR: '1' }, PLAIN],
    ['CI', true, { CI: 'true' }, PLAIN],
    ['TERM=dumb', true, { TERM: 'dumb' }, PLAIN],
    ['FORCE_COLOR on a pipe', false, { FORCE_COLOR: '1' }, ANSI],
    ['FORCE_COLOR in CI', true, { CI: 'true', FORCE_COLOR: '' }, ANSI],
    ['FORCE_COLOR=0 on a terminal', true, { FORCE_COLOR: '0' }, PLAIN],
  ])('paints %s as it should', (_, tty, env, paint) => {
    expect(paintFor(tty, env)).toBe(paint);
  });

  it('wraps text in an ANSI colour and resets only that attribute', () => {
    expect(ANSI('red', 'error:')).toBe('\u001b[31merror:\u001b[39m');
    expect(ANSI('bold', 'CLUSTER')).toBe('\u001b[1mCLUSTER\u001b[22m');
    expect(PLAIN('red', 'error:')).toBe('error:');
  });

  it('paints the label of error and warning lines written by others', () => {
    const lines: string[] = [];
    const print = paintErrors(ANSI, (l) => lines.push(l));
    for (const l of ['error: x', 'warning: y', 'nothing was changed']) print(l);
    expect(lines).toEqual(['\u001b[31merror:\u001b[39m x', '\u001b[33mwarning:\u001b[39m y', 'nothing was changed']);
  });
});
