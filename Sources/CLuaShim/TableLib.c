/* The sandbox's table functions (charged by the elements they move) and math.randomseed. */
#include "shim_internal.h"
#include <lauxlib.h>

static lua_Integer checked_len(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    return luaL_len(L, 1);
}

int shim_tinsert(lua_State *L) {
    lua_Integer e = checked_len(L) + 1; /* first empty slot */
    lua_Integer pos;
    switch (lua_gettop(L)) {
    case 2: pos = e; break;
    case 3:
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
        shim_charge(L, getvm(L), (uint64_t)(e - pos), "table.insert");
        for (lua_Integer i = e; i > pos; i--) {
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        break;
    default: return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

int shim_tremove(lua_State *L) {
    lua_Integer size = checked_len(L);
    lua_Integer pos = luaL_optinteger(L, 2, size);
    if (pos != size) luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2, "position out of bounds");
    if (size > pos) shim_charge(L, getvm(L), (uint64_t)(size - pos), "table.remove");
    lua_geti(L, 1, pos);
    for (; pos < size; pos++) {
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

/* Charges the element count, then runs the original table.move (upvalue 1). */
int shim_tmove(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    if (e >= f) shim_charge(L, getvm(L), (uint64_t)((lua_Unsigned)e - (lua_Unsigned)f) + 1, "table.move");
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* math.randomseed without arguments would seed from the clock: refused. */
int shim_randomseed(lua_State *L) {
    int n = lua_gettop(L);
    if (n == 0) return luaL_error(L, "math.randomseed needs an explicit seed in the sandbox");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}
