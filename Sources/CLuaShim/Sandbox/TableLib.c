/* The sandbox's table functions: Lua's own insert, remove and move, each charged first for the
   elements it will move (the work happens in one C call the count hook cannot interrupt), and
   math.randomseed, refused without a seed. */
#include "shim_internal.h"
#include <lauxlib.h>

/* Each runs Lua's function (upvalue 1) in its own frame (permit_run_original): its errors name
   it and carry the script's position, as Lua's own. */

/* The length the original function will see. It reads the length again itself, so a __len
   metamethod could answer 1 to the charge and 2^40 to the shift loop (which runs in C, out of
   the hook's reach): tables with one are refused, except the sandbox's read-only proxies,
   whose __len is the raw length of the table they guard. */
static lua_Integer stable_length(lua_State *L, const char *name) {
    luaL_checktype(L, 1, LUA_TTABLE);
    if (!permit_shim_is_frozen(L, 1) && luaL_getmetafield(L, 1, "__len") != LUA_TNIL)
        luaL_error(L, "table.%s on a table with a __len metamethod is not available in the sandbox", name);
    return (lua_Integer)lua_rawlen(L, 1);
}

/* table.insert(t, [pos,] v): Lua's own, charged first for the elements it shifts up. */
int permit_shim_tinsert(lua_State *L) {
    lua_Integer length = stable_length(L, "insert");
    int isnum = 0;
    lua_Integer pos = lua_gettop(L) == 3 ? lua_tointegerx(L, 2, &isnum) : 0;
    if (isnum && pos >= 1 && pos <= length)
        permit_shim_charge(L, getvm(L), (uint64_t)(length - pos + 1), "table.insert");
    return permit_run_original(L);
}

/* table.remove(t [, pos]): Lua's own, charged first for the elements it shifts down. */
int permit_shim_tremove(lua_State *L) {
    lua_Integer length = stable_length(L, "remove");
    int isnum = 0;
    lua_Integer pos = lua_isnoneornil(L, 2) ? length : lua_tointegerx(L, 2, &isnum);
    if (isnum && pos >= 1 && pos < length) permit_shim_charge(L, getvm(L), (uint64_t)(length - pos), "table.remove");
    return permit_run_original(L);
}

/* Whether table.move would accept the value at idx as a table to read (or write): a table, or
   a value whose metatable has __index (and __newindex). */
static int movable(lua_State *L, int idx, int write) {
    if (lua_type(L, idx) == LUA_TTABLE) return 1;
    if (!lua_getmetatable(L, idx)) return 0;
    lua_pushliteral(L, "__index");
    int ok = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 1);
    if (ok && write) {
        lua_pushliteral(L, "__newindex");
        ok = lua_rawget(L, -2) != LUA_TNIL;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return ok;
}

/* table.move(a1, f, e, t [, a2]): charges the element count, then runs the original table.move
   (upvalue 1). Only a move Lua's would make is charged: with arguments it refuses ("too many
   elements to move", "destination wrap around", a value that is not a table) the original
   raises its own error. */
int permit_shim_tmove(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4);
    int dest = lua_isnoneornil(L, 5) ? 1 : 5;
    if (e >= f && movable(L, 1, 0) && movable(L, dest, 1) && (f > 0 || e < LUA_MAXINTEGER + f)) {
        lua_Integer n = e - f + 1;
        if (t <= LUA_MAXINTEGER - n + 1) permit_shim_charge(L, getvm(L), (uint64_t)n, "table.move");
    }
    return permit_run_original(L);
}

/* math.randomseed without arguments would seed from the clock: refused. The arguments are
   checked here, as Lua's would check them, because Lua's function keeps its generator as an
   upvalue and so runs through lua_call, where its own errors could not name it. */
int permit_shim_randomseed(lua_State *L) {
    if (lua_gettop(L) == 0) return luaL_error(L, "math.randomseed needs an explicit seed in the sandbox");
    (void)luaL_checkinteger(L, 1);
    (void)luaL_optinteger(L, 2, 0);
    int args = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, args, LUA_MULTRET);
    return lua_gettop(L);
}
