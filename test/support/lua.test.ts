import { FENGARI, LUA_RUNTIMES, LuaRuntime, assertLua51, hasLua51 } from './lua';

describe.each(LUA_RUNTIMES.map((runtime) => [runtime.name, runtime] as [string, LuaRuntime]))('the Lua runner %s', (_name, runtime) => {
  const runLua = (script: string, obj: unknown) => runtime.run(script, obj);

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

  it('behaves as Lua 5.1: numbers print without ".0", 5.1\'s library is there and 5.2+\'s is not', () => {
    expect(runLua('return tostring(3) .. " " .. tostring(6 / 2) .. " " .. tostring(0.5) .. " " .. obj.n .. " " .. (obj.big + 1)', { n: 4, big: 2 ** 40 }))
      .toBe('3 3 0.5 4 1099511627777');
    expect(runLua('return { unpack({ "a", "b" }) }', {})).toEqual(['a', 'b']);
    expect(runLua('return loadstring("return 1 + 1")()', {})).toBe(2);
    expect(runLua('return { table.unpack == nil, utf8 == nil, rawlen == nil }', {})).toEqual([true, true, true]);
  });

  it('gives the script what Argo CD gives a health check: base, table, a safe os; no string or math library, no string methods', () => {
    expect(runLua('return { string == nil, math == nil, io == nil, type(table.insert), type(os.time), os.exit == nil }', {}))
      .toEqual([true, true, true, 'function', 'function', true]);
    expect(() => runLua('return ("Error"):find("Err")', {})).toThrow(/lua script failed: script:1:/);
    expect(runLua('return "a" .. "b" .. #obj.s', { s: 'xyz' })).toBe('ab3');
  });
});

describe('Lua 5.1 syntax', () => {
  it('accepts 5.1 syntax', () => {
    expect(() => assertLua51('local t = { a = 1 }\nfor k, v in pairs(t) do t[k] = v .. "x" end\nreturn #t')).not.toThrow();
  });

  it.each([
    ['goto', 'goto done\n::done::'],
    ['integer division', 'return 7 // 2'],
    ['bitwise operators', 'return 1 & 3'],
  ])('fails when a script uses %s (Lua 5.2+)', (_what, script) => {
    expect(() => assertLua51(script)).toThrow();
  });
});

describe('the Lua runners on this machine', () => {
  it('always include fengari, and lua5.1 exactly when it is on PATH', () => {
    expect(LUA_RUNTIMES[0]).toBe(FENGARI);
    expect(LUA_RUNTIMES.map((r) => r.name).includes('lua5.1')).toBe(hasLua51());
  });
});
