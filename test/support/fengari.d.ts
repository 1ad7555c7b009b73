/** The part of fengari's API the Lua runner uses (fengari ships no type declarations). @see https://github.com/fengari-lua/fengari#api */
declare module 'fengari' {
  type LuaState = { readonly __luaState: unique symbol };
  export const lua: {
    readonly LUA_OK: number;
    lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number;
    lua_tostring(L: LuaState, index: number): Uint8Array | null;
    lua_pop(L: LuaState, n: number): void;
    lua_settop(L: LuaState, index: number): void;
    lua_getglobal(L: LuaState, name: Uint8Array): number;
    lua_pushnil(L: LuaState): void;
    lua_pushstring(L: LuaState, s: Uint8Array): void;
    lua_pushboolean(L: LuaState, b: boolean): void;
    lua_pushnumber(L: LuaState, n: number): void;
    lua_createtable(L: LuaState, narr: number, nrec: number): void;
    lua_rawseti(L: LuaState, index: number, i: number): void;
    lua_setfield(L: LuaState, index: number, k: Uint8Array): void;
    lua_setmetatable(L: LuaState, index: number): void;
  };
  export const lauxlib: {
    luaL_newstate(): LuaState;
    luaL_loadstring(L: LuaState, source: Uint8Array): number;
    luaL_requiref(L: LuaState, name: Uint8Array, open: (L: LuaState) => number, global: number): void;
    luaL_checkstack(L: LuaState, space: number, message: Uint8Array): void;
  };
  type Open = (L: LuaState) => number;
  export const lualib: {
    luaopen_base: Open; luaopen_package: Open; luaopen_table: Open; luaopen_string: Open;
    luaopen_math: Open; luaopen_os: Open; luaopen_coroutine: Open; luaopen_debug: Open;
  };
  export function to_luastring(text: string): Uint8Array;
  export function to_jsstring(bytes: Uint8Array): string;
}
