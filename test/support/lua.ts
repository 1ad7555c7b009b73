/**
 * Lua 5.1 runners for Argo CD health-check scripts. Argo CD runs them with gopher-lua (Lua 5.1
 * semantics) and a global `obj` holding the resource; tests run them the same way:
 * - always with fengari, a Lua VM written in JavaScript (npm), so `npm test` needs only Node;
 * - also with Debian's `lua5.1` where it is on PATH (CI installs it), the reference 5.1.
 *
 * Why fengari: it is Lua 5.3's own C code ported line by line to JavaScript and runs
 * synchronously inside the test process; wasmoon (Lua 5.4 compiled to WebAssembly) is a
 * version further from 5.1 and only has an asynchronous API. Neither is 5.1, so the fengari
 * runner narrows 5.3 to what 5.1 has: every number of `obj` is a float, as all of gopher-lua's
 * are (fengari's integers are 32-bit and would wrap), integral floats print as 5.1 prints them
 * (LUA_COMPAT_FLOATSTRING), 5.1's `unpack`, `loadstring`, `math.pow` and `math.log10` exist, and
 * the library functions that 5.1 lacks are removed (a script that calls one fails here as it
 * would in Argo CD). What stays 5.3: integer literals in a script are integers, and floats
 * beyond 2^53 print in full rather than with 14 digits. Syntax that 5.1 lacks (`goto`, `//`, bitwise operators) is caught by
 * {@link assertLua51}, which parses a script with luaparse in 5.1 mode.
 * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/health/#custom-health-checks
 * @see https://github.com/yuin/gopher-lua (Lua 5.1)
 * @see https://github.com/fengari-lua/fengari (Lua 5.3 in JavaScript)
 * @see https://www.lua.org/manual/5.3/manual.html#8 (incompatibilities with 5.1 and 5.2)
 *
 * Upstream: MODELS.argocd (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import { spawnSync } from 'node:child_process';
import { parse } from 'luaparse';

// Must be set before fengari is loaded: it reads its configuration once.
process.env.FENGARICONF = JSON.stringify({ LUA_COMPAT_FLOATSTRING: true });
const fengari = require('fengari') as typeof import('fengari');

/** How a health script is run. */
export interface LuaRunOptions {
  /**
   * Argo CD's `resource.customizations.useOpenLibs.<group_kind>` for the script's kind (see
   * {@link useOpenLibs}): gopher-lua's OpenLibs, every standard library with string methods
   * (util/lua/lua.go v3.5.1 l. 76-78; yuin/gopher-lua v1.1.2 linit.go l. 31-54), as Argo CD
   * also runs its built-in scripts (lua.go l. 203-204). Under fengari `io` is missing (opening it
   * holds process.stdin); under lua5.1 it is there.
   * @default false - the sandbox Argo CD gives a custom health check (see {@link program51})
   */
  readonly openLibs?: boolean;
}

/**
 * Whether an argocd-cm `useOpenLibs` value opens the standard libraries, read as Argo CD reads
 * it: Go's `strconv.ParseBool` (util/settings/settings.go v3.5.1 l. 1170-1175), which takes 1, t,
 * T, TRUE, true, True and 0, f, F, FALSE, false, False; anything else fails Argo CD's settings,
 * and fails here. Absent: false.
 */
export function useOpenLibs(value: string | undefined): boolean {
  if (value === undefined) return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new Error(`useOpenLibs: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

/** A Lua interpreter that runs a health script against `obj` and returns its result as JSON data. */
export interface LuaRuntime {
  /** Its name in test titles. */
  readonly name: string;
  /**
   * Runs `script` as a Lua chunk with the global `obj` built from `obj` and returns the chunk's
   * (first) return value as JSON data.
   *
   * In: JSON objects become tables with string keys, arrays become 1-based sequences, `null`
   * becomes nil (a key that is absent; a hole in an array). Out: a table whose keys are exactly
   * 1..n is an array, as is one that came in as an array (even when empty); any other table is
   * an object; nil is `null`. Functions, cycles, NaN and infinities cannot come back and fail.
   * @see https://www.lua.org/manual/5.1/manual.html#2.5.7 (table constructors)
   */
  run(script: string, obj: unknown, options?: LuaRunOptions): unknown;
}

/** What Lua 5.1 has and 5.3 does not, and what 5.3 added: run before every script under fengari. */
const AS_LUA_51 = String.raw`
unpack = table.unpack
loadstring = load
math.pow = function(x, y) return x ^ y end
math.log10 = function(x) return math.log(x, 10) end
table.unpack, table.move, rawlen, utf8 = nil, nil, nil, nil
math.type, math.tointeger, math.ult, math.maxinteger, math.mininteger = nil, nil, nil, nil, nil
string.pack, string.unpack, string.packsize, coroutine.isyieldable = nil, nil, nil, nil
`;

/** fengari (npm), narrowed to Lua 5.1: the runner `npm test` always has. */
export const FENGARI: LuaRuntime = {
  name: 'fengari (Lua 5.3 narrowed to 5.1)',
  run(script, obj, options = {}) {
    const { lua, lauxlib, to_luastring, to_jsstring } = fengari;
    const L = openState();
    const program = [AS_LUA_51, PRELUDE, 'print = function() end', program51(script, obj, options.openLibs === true), 'return encode(result)'].join('\n');
    if (lauxlib.luaL_loadstring(L, to_luastring(program)) !== lua.LUA_OK || lua.lua_pcall(L, 0, 1, 0) !== lua.LUA_OK) {
      throw new Error(`lua script failed: ${to_jsstring(lua.lua_tostring(L, -1) ?? to_luastring('(no message)'))}`);
    }
    return JSON.parse(to_jsstring(lua.lua_tostring(L, -1) ?? to_luastring('null'))) as unknown;
  },
};

/**
 * fengari, each script compiled once: the runner for simulations that ask one health check
 * thousands of times. {@link FENGARI} compiles its prelude, the script and `obj` (as a Lua
 * literal) on every call, some 20 ms; this one keeps one Lua state per script, compiles the
 * script once, and builds `obj` with fengari's C API (every number a float, as in
 * {@link FENGARI}). Each call still runs the script in a fresh environment with only what Argo
 * CD gives a health check, without string methods (with `openLibs`: every library, and string
 * methods); what the libraries themselves hold (`table`, `os`) is shared between calls, which no
 * health check writes to. It runs every test that {@link FENGARI} runs (it is in
 * {@link LUA_RUNTIMES}).
 */
export const FENGARI_COMPILED: LuaRuntime = {
  name: 'fengari (each script compiled once)',
  run(script, obj, options = {}) {
    let compiled = compiledScripts.get(script);
    if (!compiled) {
      compiled = compileFengari(script);
      compiledScripts.set(script, compiled);
    }
    return compiled(obj, options.openLibs === true);
  },
};

const compiledScripts = new Map<string, (obj: unknown, openLibs: boolean) => unknown>();

/** The Lua that {@link FENGARI_COMPILED} loads once per script: `__run(obj, openLibs)` returns the script's result as JSON text. */
const COMPILED_RUNNER = String.raw`
__ARRAY = ARRAY
local names = { "assert", "error", "getmetatable", "ipairs", "load", "loadstring", "next", "pairs", "pcall", "print", "rawequal", "rawget", "rawset",
  "select", "setmetatable", "tonumber", "tostring", "type", "unpack", "xpcall", "_VERSION" }
local chunk, compileError
if setfenv then
  chunk, compileError = loadstring(source, "=script")
else
  chunk, compileError = load(source, "=script", "t", {})
end
function __run(o, openLibs)
  obj = o
  if not chunk then error(compileError, 0) end
  local env = { obj = o, table = table, os = { time = os.time, date = os.date }, require = require }
  if openLibs then
    for name, value in pairs(_G) do env[name] = value end
    env.obj = o
  else
    for _, name in ipairs(names) do env[name] = _G[name] end
  end
  env._G = env
  if setfenv then setfenv(chunk, env) else debug.setupvalue(chunk, 1, env) end
  local strings = debug.getmetatable("")
  if not openLibs then debug.setmetatable("", nil) end
  local ok, value = pcall(chunk)
  debug.setmetatable("", strings)
  if not ok then error(tostring(value), 0) end
  return encode(value)
end
`;

/** One fengari state holding `script` compiled, and the function that runs it against an `obj`. */
function compileFengari(script: string): (obj: unknown, openLibs: boolean) => unknown {
  const { lua, lauxlib, to_luastring, to_jsstring } = fengari;
  const L = openState();
  const setup = [AS_LUA_51, PRELUDE, 'print = function() end', `local source = ${luaString(script)}`, COMPILED_RUNNER].join('\n');
  if (lauxlib.luaL_loadstring(L, to_luastring(setup)) !== lua.LUA_OK || lua.lua_pcall(L, 0, 0, 0) !== lua.LUA_OK) {
    throw new Error(`lua runner setup failed: ${to_jsstring(lua.lua_tostring(L, -1) ?? to_luastring('(no message)'))}`);
  }
  const push = (value: unknown): void => {
    lauxlib.luaL_checkstack(L, 4, to_luastring('obj nested too deeply'));
    if (value === null || value === undefined) lua.lua_pushnil(L);
    else if (typeof value === 'string') lua.lua_pushstring(L, to_luastring(value));
    else if (typeof value === 'boolean') lua.lua_pushboolean(L, value);
    else if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new Error(`runLua: ${value} has no JSON form`);
      lua.lua_pushnumber(L, value);
    } else if (Array.isArray(value)) {
      lua.lua_createtable(L, value.length, 0);
      value.forEach((v, i) => {
        if (v === null || v === undefined) return;
        push(v);
        lua.lua_rawseti(L, -2, i + 1);
      });
      lua.lua_getglobal(L, to_luastring('__ARRAY'));
      lua.lua_setmetatable(L, -2);
    } else if (typeof value === 'object') {
      const entries = Object.entries(value);
      lua.lua_createtable(L, 0, entries.length);
      for (const [k, v] of entries) {
        if (v === null || v === undefined) continue;
        push(v);
        lua.lua_setfield(L, -2, to_luastring(k));
      }
    } else throw new Error(`runLua: a ${typeof value} has no JSON form`);
  };
  return (obj, openLibs) => {
    lua.lua_settop(L, 0);
    lua.lua_getglobal(L, to_luastring('__run'));
    push(obj);
    lua.lua_pushboolean(L, openLibs);
    if (lua.lua_pcall(L, 2, 1, 0) !== lua.LUA_OK) {
      const message = to_jsstring(lua.lua_tostring(L, -1) ?? to_luastring('(no message)'));
      lua.lua_settop(L, 0);
      throw new Error(`lua script failed: ${message}`);
    }
    const json = to_jsstring(lua.lua_tostring(L, -1) ?? to_luastring('null'));
    lua.lua_settop(L, 0);
    return JSON.parse(json) as unknown;
  };
}

/** A fengari state with the libraries both fengari runners open (not io: it opens process.stdin, which keeps a Jest worker from exiting). */
function openState(): ReturnType<typeof fengari.lauxlib.luaL_newstate> {
  const { lua, lauxlib, lualib, to_luastring } = fengari;
  const L = lauxlib.luaL_newstate();
  for (const [name, open] of [['_G', lualib.luaopen_base], ['package', lualib.luaopen_package], ['table', lualib.luaopen_table],
    ['string', lualib.luaopen_string], ['math', lualib.luaopen_math], ['os', lualib.luaopen_os], ['coroutine', lualib.luaopen_coroutine], ['debug', lualib.luaopen_debug]] as const) {
    lauxlib.luaL_requiref(L, to_luastring(name), open, 1);
    lua.lua_pop(L, 1);
  }
  return L;
}

const LUA51 = 'lua5.1';

/** Debian's `lua5.1`, the reference interpreter, where it is on PATH. */
export const LUA_51: LuaRuntime = {
  name: LUA51,
  run(script, obj, options = {}) {
    const program = [PRELUDE, program51(script, obj, options.openLibs === true), 'io.write(encode(result))'].join('\n');
    const run = spawnSync(LUA51, ['-'], { input: program, env: process.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (run.error) throw new Error(`${LUA51}: ${run.error.message}`);
    if (run.status !== 0) throw new Error(`lua script failed: ${run.stderr.trim().replace(/^lua5\.1: /, '')}`);
    return JSON.parse(run.stdout) as unknown;
  },
};

/** Whether `lua5.1` is on PATH. */
export function hasLua51(): boolean {
  return !spawnSync(LUA51, ['-v'], { encoding: 'utf8' }).error;
}

/** Every Lua runner this machine has: fengari always (both ways), `lua5.1` where it is on PATH. */
export const LUA_RUNTIMES: readonly LuaRuntime[] = hasLua51() ? [FENGARI, FENGARI_COMPILED, LUA_51] : [FENGARI, FENGARI_COMPILED];

/**
 * Fails unless `script` parses as Lua 5.1: `goto`, labels, `//`, bitwise operators and the
 * other syntax of later versions are errors.
 * @see https://github.com/fstirlitz/luaparse (luaVersion '5.1')
 */
export function assertLua51(script: string): void {
  parse(script, { luaVersion: '5.1' });
}

/**
 * The Lua that loads `script`, runs it with `obj` and leaves its result in `result`, or fails
 * with its error. The script runs as Argo CD runs a health check (util/lua/lua.go v3.5.1
 * l. 75-100): with only the base, table and package libraries and a safe os (time, date), so
 * neither the string nor the math library, nor string methods (their metatable comes with the
 * string library: it is taken away while the script runs); with `openLibs`, with every
 * library the runner has and string methods (see {@link LuaRunOptions}).
 */
function program51(script: string, obj: unknown, openLibs: boolean): string {
  return [
    `obj = ${toLua(obj)}`,
    'local env = { obj = obj, table = table, os = { time = os.time, date = os.date }, require = require }',
    `local openLibs = ${openLibs}`,
    'if openLibs then',
    '  for name, value in pairs(_G) do env[name] = value end',
    '  env.obj = obj',
    'else',
    '  for _, name in ipairs({ "assert", "error", "getmetatable", "ipairs", "load", "loadstring", "next", "pairs", "pcall", "print", "rawequal", "rawget", "rawset",',
    '    "select", "setmetatable", "tonumber", "tostring", "type", "unpack", "xpcall", "_VERSION" }) do env[name] = _G[name] end',
    'end',
    'env._G = env',
    `local source = ${luaString(script)}`,
    'local chunk, err',
    'if setfenv then',
    '  chunk, err = loadstring(source, "=script")',
    '  if chunk then setfenv(chunk, env) end',
    'else',
    '  chunk, err = load(source, "=script", "t", env)',
    'end',
    'if not chunk then error(err, 0) end',
    'local strings = debug.getmetatable("")',
    'if not openLibs then debug.setmetatable("", nil) end',
    'local ok, value = pcall(chunk)',
    'debug.setmetatable("", strings)',
    'if not ok then error(tostring(value), 0) end',
    'result = value',
  ].join('\n');
}

/** `value` as a Lua expression. */
function toLua(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return luaString(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`runLua: ${value} has no JSON form`);
    // A float literal: gopher-lua's numbers are all float64, and fengari's integers are 32-bit.
    return Number.isInteger(value) && !/e/.test(String(value)) ? `${value}.0` : String(value);
  }
  if (Array.isArray(value)) {
    // Explicit indices: a null element must leave a hole at its own index, not shift the rest.
    return `array{${value.map((v, i) => `[${i + 1}]=${toLua(v)}`).join(',')}}`;
  }
  if (typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `[${luaString(k)}]=${toLua(v)}`).join(',')}}`;
  }
  throw new Error(`runLua: a ${typeof value} has no JSON form`);
}

/**
 * A Lua string literal of `text`'s UTF-8 bytes: printable ASCII as is (but
 * `"` and `\`), every other byte as a decimal escape, so no byte of the input
 * can end the literal or be read as a long bracket.
 */
function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\${String(byte).padStart(3, '0')}`;
  }
  return `${out}"`;
}

/** Lua side: `array` marks tables that came in as JSON arrays, `encode` writes JSON. */
const PRELUDE = String.raw`
local ARRAY = {}
local function array(t) return setmetatable(t, ARRAY) end
-- stdout carries the result alone: a script's print goes to stderr.
print = function(...)
  local parts = {}
  for i = 1, select('#', ...) do parts[i] = tostring((select(i, ...))) end
  io.stderr:write(table.concat(parts, '\t'), '\n')
end

local function encode_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    if c == '"' then return '\\"' end
    if c == '\\' then return '\\\\' end
    return string.format('\\u%04x', c:byte())
  end) .. '"'
end

local function encode_number(n)
  if n ~= n or n == math.huge or n == -math.huge then error('cannot encode ' .. tostring(n) .. ' as JSON') end
  if n == math.floor(n) and math.abs(n) < 2^53 then return string.format('%.0f', n) end
  local short = string.format('%.14g', n)
  if tonumber(short) == n then return short end
  return string.format('%.17g', n)
end

local function array_length(t)
  local max, count = 0, 0
  for k in pairs(t) do
    if type(k) ~= 'number' or k < 1 or k ~= math.floor(k) then return nil end
    if k > max then max = k end
    count = count + 1
  end
  if getmetatable(t) == ARRAY then return max end
  if count > 0 and count == max then return max end
  return nil
end

local encode_value

local function encode_table(t, seen)
  if seen[t] then error('cannot encode a table that contains itself') end
  seen[t] = true
  local parts = {}
  local n = array_length(t)
  if n then
    for i = 1, n do parts[#parts + 1] = encode_value(t[i], seen) end
    seen[t] = nil
    return '[' .. table.concat(parts, ',') .. ']'
  end
  local keys = {}
  for k in pairs(t) do
    if type(k) ~= 'string' and type(k) ~= 'number' then error('cannot encode a ' .. type(k) .. ' key as JSON') end
    keys[#keys + 1] = tostring(k)
  end
  table.sort(keys)
  local values = {}
  for k, v in pairs(t) do values[tostring(k)] = v end
  for _, k in ipairs(keys) do parts[#parts + 1] = encode_string(k) .. ':' .. encode_value(values[k], seen) end
  seen[t] = nil
  return '{' .. table.concat(parts, ',') .. '}'
end

encode_value = function(v, seen)
  local kind = type(v)
  if kind == 'nil' then return 'null' end
  if kind == 'boolean' then return tostring(v) end
  if kind == 'number' then return encode_number(v) end
  if kind == 'string' then return encode_string(v) end
  if kind == 'table' then return encode_table(v, seen) end
  error('cannot encode a ' .. kind .. ' as JSON')
end

local function encode(v) return encode_value(v, {}) end
`;
