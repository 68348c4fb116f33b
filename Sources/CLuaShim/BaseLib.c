/* The sandbox's base functions that differ from Lua's: xpcall, next, pairs, rawget, rawset,
   getmetatable, setmetatable and load. */
#include "shim_internal.h"
#include "lazy_context.h"
#include <lauxlib.h>

/* xpcall's message handler runs before the stack unwinds; when the error was
   raised by the count hook, Lua runs it with hooks disabled. So once the budget
   is gone the script's handler is skipped and the error passes unchanged. */
static int xpcall_handler(lua_State *L) {
    if (getvm(L)->budget_exceeded) return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int finish_pcall(lua_State *L, int status, lua_KContext extra) {
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

int shim_xpcall(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, xpcall_handler, 1); /* the guarded handler */
    lua_pushboolean(L, 1);                  /* first result */
    lua_pushvalue(L, 1);                    /* the function */
    lua_rotate(L, 3, 3);                    /* handler, true, function, args... */
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 3, 3, finish_pcall);
    return finish_pcall(L, status, 3);
}

/* next, pairs, rawget, rawset, getmetatable and setmetatable see past metamethods: on a ctx
   whose fields are still to be built (LazyContext.c), they build them first. */

int shim_next(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    permit_lazy_settle_in_call(L, 1);
    lua_settop(L, 2);
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

static int pairs_from_metamethod(lua_State *L, int status, lua_KContext k) {
    (void)L;
    (void)status;
    (void)k;
    return 3;
}

/* As Lua's pairs (a __pairs metamethod is honoured), with the sandbox's next. */
int shim_pairs(lua_State *L) {
    luaL_checkany(L, 1);
    permit_lazy_settle_in_call(L, 1);
    if (luaL_getmetafield(L, 1, "__pairs") == LUA_TNIL) {
        lua_pushcfunction(L, shim_next);
        lua_pushvalue(L, 1);
        lua_pushnil(L);
        return 3;
    }
    lua_pushvalue(L, 1);
    lua_callk(L, 1, 3, 0, pairs_from_metamethod);
    return 3;
}

int shim_rawget(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    permit_lazy_settle_in_call(L, 1);
    lua_settop(L, 2);
    lua_rawget(L, 1);
    return 1;
}

int shim_rawset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    permit_lazy_settle_in_call(L, 1);
    if (shim_is_frozen(L, 1)) return luaL_error(L, "attempt to modify a read-only table");
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

/* Only tables show a metatable: the string metatable stays hidden. */
int shim_getmetatable(lua_State *L) {
    luaL_checkany(L, 1);
    permit_lazy_settle_in_call(L, 1);
    if (lua_type(L, 1) != LUA_TTABLE || !lua_getmetatable(L, 1)) {
        lua_pushnil(L);
        return 1;
    }
    (void)luaL_getmetafield(L, 1, "__metatable"); /* pushes the field only when present */
    return 1;
}

/* Finalizers would run policy code at arbitrary moments (between calls, while
   the host reads results): refused. */
int shim_setmetatable(lua_State *L) {
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    permit_lazy_settle_in_call(L, 1);
    if (t == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL) return luaL_error(L, "__gc metamethods are not available in the sandbox");
        lua_pop(L, 1);
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

void shim_push_new_env(lua_State *L) {
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 2);
    lua_getfield(L, LUA_REGISTRYINDEX, KEY_BASE);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}

/* load(chunk [, chunkname [, mode [, env]]]): text chunks only, into a fresh
   sandbox environment or into a table the script provides. */
int shim_load(lua_State *L) {
    size_t l;
    if (lua_type(L, 1) != LUA_TSTRING) return luaL_argerror(L, 1, "string expected (only text chunks can be loaded)");
    const char *s = lua_tolstring(L, 1, &l);
    const char *name = luaL_optstring(L, 2, "=(load)");
    /* A script-chosen name shows as [string "name"]: it cannot pose as a policy file. */
    if (!lua_isnoneornil(L, 2) && (name[0] == '@' || name[0] == '=')) name++;
    int hasenv = !lua_isnone(L, 4);
    if (hasenv) luaL_checktype(L, 4, LUA_TTABLE);
    shim_charge(L, getvm(L), 1 + l, "load");
    if (l > 0 && s[0] == LUA_SIGNATURE[0]) {
        luaL_pushfail(L);
        lua_pushliteral(L, "binary chunks are not allowed in the sandbox");
        return 2;
    }
    int st = luaL_loadbufferx(L, s, l, name, "t");
    if (st == LUA_ERRMEM) return lua_error(L);
    if (st != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (hasenv)
        lua_pushvalue(L, 4);
    else
        shim_push_new_env(L);
    if (lua_setupvalue(L, -2, 1) == NULL) lua_pop(L, 1);
    return 1;
}
