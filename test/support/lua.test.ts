import { runLua } from './lua';

describe('runLua', () => {
  it('round-trips nested tables, arrays, numbers and booleans through obj', () => {
    const obj = {
      metadata: { name: 'web', labels: { 'app.kubernetes.io/name': 'web' } },
      spec: { replicas: 3, ratio: 0.075, big: 2 ** 40, negative: -12.5, paused: false, ready: true },
      status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'False' }], empty: [], nested: [[1, 2], []] },
    };
    expect(runLua('return obj', obj)).toEqual(obj);
  });

  it('round-trips strings with quotes, backslashes, newlines, long brackets and non-ASCII text', () => {
    const strings = ['say "hi"', "it's", 'back\\slash', 'two\nlines\r\n\ttab', ']]', 'a]]b[[c', '[==[ x ]==]', '--[[ comment', 'é ✓ 🙂', '\u0000nul', ''];
    expect(runLua('return obj', { strings })).toEqual({ strings });
  });

  it('gives a 1-based sequence to the script and reads its lengths Lua\'s way', () => {
    const result = runLua('return { first = obj.items[1], count = #obj.items, zero = obj.items[0] }', { items: ['a', 'b', 'c'] });
    expect(result).toEqual({ first: 'a', count: 3 });
  });

  it('turns null into nil: an absent key, a hole in an array, null for a nil result', () => {
    expect(runLua('return { absent = obj.gone == nil, hasKey = next(obj) ~= nil }', { gone: null })).toEqual({ absent: true, hasKey: false });
    expect(runLua('return { second = obj.list[2] == nil, third = obj.list[3] }', { list: [1, null, 3] })).toEqual({ second: true, third: 3 });
    expect(runLua('return obj', { list: [1, null, 3] })).toEqual({ list: [1, null, 3] });
    expect(runLua('return nil', {})).toBeNull();
    expect(runLua('return obj', null)).toBeNull();
  });

  it('returns an Argo CD style health status', () => {
    const script = [
      'hs = {}',
      'if obj.status ~= nil and obj.status.ready then',
      '  hs.status = "Healthy"',
      'else',
      '  hs.status = "Progressing"',
      '  hs.message = "waiting for \\"ready\\""',
      'end',
      'return hs',
    ].join('\n');
    expect(runLua(script, { status: { ready: true } })).toEqual({ status: 'Healthy' });
    expect(runLua(script, {})).toEqual({ status: 'Progressing', message: 'waiting for "ready"' });
  });

  it('keeps a script\'s print out of the result', () => {
    expect(runLua('print("debug", 1)\nreturn 42', {})).toBe(42);
  });

  it('fails with the script\'s error', () => {
    expect(() => runLua('error("boom")', {})).toThrow(/lua script failed: script:1: boom/);
    expect(() => runLua('return (', {})).toThrow(/lua script failed: script:1:/);
    expect(() => runLua('return print', {})).toThrow(/cannot encode a function as JSON/);
  });

  it('fails saying how to install lua5.1 when it is not on PATH', () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      expect(() => runLua('return 1', {})).toThrow(/lua5\.1 is not on PATH: apt-get install lua5\.1/);
    } finally {
      process.env.PATH = path;
    }
  });
});
