/** The part of fengari's API the Lua runner uses (fengari ships no type declarations). @see https://github.com/fengari-lua/fengari#api */
declare module 'fengari' {
  type LuaState = { readonly __luaState: unique symbol };
  export const lua: {
    readonly LUA_OK: number;
    lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number;
    lua_tostring(L: LuaState, index: number): Uint8Array | null;
  };
  export const lauxlib: {
    luaL_newstate(): LuaState;
    luaL_loadstring(L: LuaState, source: Uint8Array): number;
  };
  export const lualib: { luaL_openlibs(L: LuaState): void };
  export function to_luastring(text: string): Uint8Array;
  export function to_jsstring(bytes: Uint8Array): string;
}
