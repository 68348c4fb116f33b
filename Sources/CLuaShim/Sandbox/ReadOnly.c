/* Read-only proxies: the library tables and what the host freezes (permit_make_readonly). */
#include "shim_internal.h"
#include <lauxlib.h>

int permit_shim_is_frozen(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_rawgetp(L, LUA_REGISTRYINDEX, KEY_FROZEN);
    lua_pushvalue(L, idx);
    int frozen = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return frozen;
}

int permit_shim_unwrap_frozen(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (!lua_getmetatable(L, idx)) return 0; /* most tables: no registry lookup */
    lua_pop(L, 1);
    if (!permit_shim_is_frozen(L, idx)) return 0;
    lua_getmetatable(L, idx);
    lua_getfield(L, -1, "__index");
    lua_replace(L, idx);
    lua_pop(L, 1);
    return 1;
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
void permit_shim_push_proxy(lua_State *L, int real) {
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
    lua_rawgetp(L, LUA_REGISTRYINDEX, KEY_FROZEN);
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

static void freeze_deep(lua_State *L, int depth) {
    int t = lua_gettop(L);
    /* Each level holds a key and a value while the next one works; push_proxy needs 4 more. */
    luaL_checkstack(L, 8, "table nested too deeply to make read-only");
    if (depth < 64) {
        lua_pushnil(L);
        while (lua_next(L, t)) {
            if (lua_type(L, -1) == LUA_TTABLE && !permit_shim_is_frozen(L, -1)) {
                freeze_deep(L, depth + 1); /* replaces the value on top by its proxy */
                lua_pushvalue(L, -2);
                lua_insert(L, -2);
                lua_rawset(L, t);
            } else {
                lua_pop(L, 1);
            }
        }
    }
    permit_shim_push_proxy(L, t);
    lua_replace(L, t);
}

/* The table is argument 1; its proxy the result. */
static int make_readonly_protected(lua_State *L) {
    freeze_deep(L, 0);
    return 1;
}

int permit_make_readonly(lua_State *L) {
    if (lua_type(L, -1) != LUA_TTABLE || permit_shim_is_frozen(L, -1)) return PERMIT_OK;
    if (!lua_checkstack(L, 2)) return PERMIT_E_RUNTIME;
    lua_pushcfunction(L, make_readonly_protected);
    lua_insert(L, -2);
    int status = lua_pcall(L, 1, 1, 0);
    return status == LUA_OK ? PERMIT_OK : status == LUA_ERRMEM ? PERMIT_E_MEMORY : PERMIT_E_RUNTIME;
}
