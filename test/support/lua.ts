/**
 * A Lua 5.1 runner for Argo CD health-check scripts. Argo CD runs them with
 * gopher-lua (Lua 5.1 semantics) and a global `obj` holding the resource;
 * tests run them with Debian's `lua5.1` the same way.
 * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/health/#custom-health-checks
 * @see https://github.com/yuin/gopher-lua
 */
import { spawnSync } from 'node:child_process';

const LUA = 'lua5.1';

/**
 * Runs `script` as a Lua chunk with the global `obj` built from `obj` and
 * returns the chunk's (first) return value as JSON data.
 *
 * In: JSON objects become tables with string keys, arrays become 1-based
 * sequences, `null` becomes nil (a key that is absent; a hole in an array).
 * Out: a table whose keys are exactly 1..n is an array, as is one that came
 * in as an array (even when empty); any other table is an object; nil is
 * `null`. Functions, cycles, NaN and infinities cannot come back and fail.
 * @see https://www.lua.org/manual/5.1/manual.html#2.5.7 (table constructors)
 */
export function runLua(script: string, obj: unknown): unknown {
  const program = [
    PRELUDE,
    `obj = ${toLua(obj)}`,
    `local chunk, err = loadstring(${luaString(script)}, "=script")`,
    'if not chunk then io.stderr:write(err) os.exit(2) end',
    'local ok, result = pcall(chunk)',
    'if not ok then io.stderr:write(tostring(result)) os.exit(3) end',
    'io.write(encode(result))',
  ].join('\n');
  const run = spawnSync(LUA, ['-'], { input: program, env: process.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error) {
    const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(missing ? `${LUA} is not on PATH: apt-get install lua5.1 (.ci/run installs it)` : `${LUA}: ${run.error.message}`);
  }
  if (run.status !== 0) throw new Error(`lua script failed: ${run.stderr.trim()}`);
  return JSON.parse(run.stdout) as unknown;
}

/** `value` as a Lua expression. */
function toLua(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return luaString(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`runLua: ${value} has no JSON form`);
    return String(value);
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
  if n == math.floor(n) and math.abs(n) < 2^53 then return string.format('%d', n) end
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
