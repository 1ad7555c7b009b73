/**
 * The Lua runners with Argo CD's `useOpenLibs` (test/support/lua.ts): a script then gets the
 * standard libraries gopher-lua's OpenLibs opens (util/lua/lua.go v3.5.1 l. 76-78; yuin/gopher-lua
 * v1.1.2 linit.go l. 31-54), string methods included; without it, the sandbox of lua.test.ts.
 */
import { LUA_RUNTIMES, LuaRuntime, useOpenLibs } from './lua';

describe.each(LUA_RUNTIMES.map((runtime) => [runtime.name, runtime] as [string, LuaRuntime]))('the Lua runner %s with openLibs', (_name, runtime) => {
  it('gives the script the string, math, os and debug libraries and string methods', () => {
    const script = 'return { string.find(obj.m, "a.b", 1, true), string.sub(obj.t, -5), ("xy"):upper(), math.floor(2.5), type(os.getenv), type(debug.traceback) }';
    expect(runtime.run(script, { m: 'xa.by', t: 'ComparisonError' }, { openLibs: true })).toEqual([2, 'Error', 'XY', 2, 'function', 'function']);
  });

  it('still runs the script in a fresh environment with obj, and keeps the sandbox for the next script', () => {
    expect(runtime.run('leaked = obj.n\nreturn obj.n', { n: 1 }, { openLibs: true })).toBe(1);
    expect(runtime.run('return { leaked == nil, string == nil }', { n: 2 })).toEqual([true, true]);
    expect(() => runtime.run('return ("Error"):find("Err")', {})).toThrow(/lua script failed: script:1:/);
  });
});

describe('useOpenLibs, as Argo CD reads the argocd-cm key (strconv.ParseBool, util/settings/settings.go v3.5.1 l. 1170-1175)', () => {
  it('reads Go\'s true and false spellings, and absent as false', () => {
    expect(['1', 't', 'T', 'TRUE', 'true', 'True'].map(useOpenLibs)).toEqual([true, true, true, true, true, true]);
    expect(['0', 'f', 'F', 'FALSE', 'false', 'False', undefined].map(useOpenLibs)).toEqual([false, false, false, false, false, false, false]);
  });

  it('fails on anything else, as Argo CD\'s settings do', () => {
    expect(() => useOpenLibs('yes')).toThrow(/useOpenLibs: strconv\.ParseBool: parsing "yes": invalid syntax/);
  });
});
