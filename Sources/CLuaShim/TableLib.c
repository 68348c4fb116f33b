/* The sandbox's table functions: Lua's own insert, remove and move, each charged first for the
   elements it will move (the work happens in one C call the count hook cannot interrupt), and
   math.randomseed, refused without a seed. */
#include "shim_internal.h"
#include <lauxlib.h>

/* Runs the library function in upvalue 1 on this call's arguments and returns its results. */
static int call_original(lua_State *L) {
    int args = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, args, LUA_MULTRET);
    return lua_gettop(L);
}

/* The length the original function will see. It reads the length again itself, so a __len
   metamethod could answer 1 to the charge and 2^40 to the shift loop (which runs in C, out of
   the hook's reach): tables with one are refused, except the sandbox's read-only proxies,
   whose __len is the raw length of the table they guard. */
static lua_Integer stable_length(lua_State *L, const char *name) {
    luaL_checktype(L, 1, LUA_TTABLE);
    if (!shim_is_frozen(L, 1) && luaL_getmetafield(L, 1, "__len") != LUA_TNIL)
        luaL_error(L, "table.%s on a table with a __len metamethod is not available in the sandbox", name);
    return (lua_Integer)lua_rawlen(L, 1);
}

/* table.insert(t, [pos,] v): Lua's own, charged first for the elements it shifts up. */
int shim_tinsert(lua_State *L) {
    lua_Integer length = stable_length(L, "insert");
    int isnum = 0;
    lua_Integer pos = lua_gettop(L) == 3 ? lua_tointegerx(L, 2, &isnum) : 0;
    if (isnum && pos >= 1 && pos <= length) shim_charge(L, getvm(L), (uint64_t)(length - pos + 1), "table.insert");
    return call_original(L);
}

/* table.remove(t [, pos]): Lua's own, charged first for the elements it shifts down. */
int shim_tremove(lua_State *L) {
    lua_Integer length = stable_length(L, "remove");
    int isnum = 0;
    lua_Integer pos = lua_isnoneornil(L, 2) ? length : lua_tointegerx(L, 2, &isnum);
    if (isnum && pos >= 1 && pos < length) shim_charge(L, getvm(L), (uint64_t)(length - pos), "table.remove");
    return call_original(L);
}

/* Charges the element count, then runs the original table.move (upvalue 1). */
int shim_tmove(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    if (e >= f) shim_charge(L, getvm(L), (uint64_t)((lua_Unsigned)e - (lua_Unsigned)f) + 1, "table.move");
    return call_original(L);
}

/* math.randomseed without arguments would seed from the clock: refused. */
int shim_randomseed(lua_State *L) {
    if (lua_gettop(L) == 0) return luaL_error(L, "math.randomseed needs an explicit seed in the sandbox");
    return call_original(L);
}
