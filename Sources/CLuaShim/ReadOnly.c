/* Read-only proxies: the library tables and what the host freezes (permit_make_readonly). */
#include "shim_internal.h"
#include <lauxlib.h>

int shim_is_frozen(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_getfield(L, LUA_REGISTRYINDEX, KEY_FROZEN);
    lua_pushvalue(L, idx);
    int frozen = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return frozen;
}

static int ro_newindex(lua_State *L) { return luaL_error(L, "attempt to modify a read-only table"); }

static int ro_next(lua_State *L) {
    lua_settop(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 2);
    if (lua_next(L, 3)) return 2;
    lua_pushnil(L);
    return 1;
}

/* __pairs of a read-only proxy: iterates the hidden table without exposing it. */
static int ro_pairs(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, ro_next, 1);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static int ro_len(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, lua_upvalueindex(1)));
    return 1;
}

/* Pushes an empty proxy whose reads go to the table at `real`. */
void shim_push_proxy(lua_State *L, int real) {
    real = lua_absindex(L, real);
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 5);
    lua_pushvalue(L, real);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, ro_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushvalue(L, real);
    lua_pushcclosure(L, ro_pairs, 1);
    lua_setfield(L, -2, "__pairs");
    lua_pushvalue(L, real);
    lua_pushcclosure(L, ro_len, 1);
    lua_setfield(L, -2, "__len");
    lua_setmetatable(L, -2);
    lua_getfield(L, LUA_REGISTRYINDEX, KEY_FROZEN);
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

static void freeze_deep(lua_State *L, int depth) {
    int t = lua_gettop(L);
    if (depth < 64) {
        lua_pushnil(L);
        while (lua_next(L, t)) {
            if (lua_type(L, -1) == LUA_TTABLE && !shim_is_frozen(L, -1)) {
                freeze_deep(L, depth + 1); /* replaces the value on top by its proxy */
                lua_pushvalue(L, -2);
                lua_insert(L, -2);
                lua_rawset(L, t);
            } else {
                lua_pop(L, 1);
            }
        }
    }
    shim_push_proxy(L, t);
    lua_replace(L, t);
}

void permit_make_readonly(lua_State *L) {
    if (lua_type(L, -1) == LUA_TTABLE && !shim_is_frozen(L, -1)) freeze_deep(L, 0);
}
