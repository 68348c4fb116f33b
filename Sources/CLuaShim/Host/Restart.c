/* Starting a policy over as a new process of the app would load it, on the same VM: the file's
   main chunk runs again in a fresh environment, so nothing a run kept (globals, top-level
   locals and the closures that share them, math.random's state, tostring's object numbers)
   reaches the next one. The libraries, the sandbox base and the host's stored tables are the
   same objects, read-only, for every run. */
#include "shim_internal.h"
#include <lauxlib.h>

/* Arguments: the main chunk, the seed. */
static int fresh_process_protected(lua_State *L) {
    uint64_t seed = (uint64_t)lua_tointeger(L, 2);
    /* A main chunk's one upvalue is its _ENV; the closures it made share it, and are dropped.
       An environment the run left empty, with the metatable it was made with (no `__newindex`:
       a script that used it as a metatable has it guarded, Metatables.c), is as fresh as a new
       one (its metatable is locked, so nothing can tell them apart): it is kept, the common
       case of a policy without globals, saving two tables per process. */
    int empty = 0;
    if (lua_getupvalue(L, 1, 1) != NULL) {
        if (lua_type(L, -1) == LUA_TTABLE) {
            lua_pushnil(L);
            if (lua_next(L, -2)) {
                lua_pop(L, 2); /* a global: the first key and its value */
            } else if (lua_getmetatable(L, -1)) {
                lua_pushliteral(L, "__newindex");
                empty = lua_rawget(L, -2) == LUA_TNIL;
                lua_pop(L, 2);
            }
        }
        lua_pop(L, 1);
    }
    if (!empty) {
        permit_shim_push_new_env(L);
        if (lua_setupvalue(L, 1, 1) == NULL) lua_pop(L, 1);
    }
    lua_rawgetp(L, LUA_REGISTRYINDEX, KEY_RANDOMSEED);
    lua_pushinteger(L, (lua_Integer)(seed >> 32));
    lua_pushinteger(L, (lua_Integer)(seed & 0xffffffffu));
    lua_call(L, 2, 0);
    permit_shim_restart_object_ids(L);
    return 0;
}

int permit_fresh_process(lua_State *L, int chunk_ref, uint64_t seed) {
    if (!lua_checkstack(L, 6)) return PERMIT_E_RUNTIME;
    lua_pushcfunction(L, fresh_process_protected);
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, chunk_ref) != LUA_TFUNCTION) {
        lua_pop(L, 2);
        lua_pushliteral(L, "the policy's main chunk is not kept");
        return PERMIT_E_RUNTIME;
    }
    lua_pushinteger(L, (lua_Integer)seed);
    int status = lua_pcall(L, 2, 0, 0);
    return status == LUA_OK ? PERMIT_OK : status == LUA_ERRMEM ? PERMIT_E_MEMORY : PERMIT_E_RUNTIME;
}

/* Pushes t[name] (raw) and whether it is a function; nil counts as absent. */
static int field_kind(lua_State *L, const char *name) {
    lua_pushstring(L, name);
    int type = lua_rawget(L, 1);
    return type == LUA_TFUNCTION ? 1 : type == LUA_TNIL ? 0 : -1;
}

/* Arguments: what the chunk returned, the registry slots of decide and plan_reminders (0: the
   policy has none). Both are checked before either slot changes. */
static int adopt_protected(lua_State *L) {
    int decide_slot = (int)lua_tointeger(L, 2), plan_slot = (int)lua_tointeger(L, 3);
    if (lua_type(L, 1) != LUA_TTABLE)
        return luaL_error(L, "the policy file returned %s when run again for a new process, not its policy table",
                          luaL_typename(L, 1));
    if (field_kind(L, "decide") != 1)
        return luaL_error(L, "the policy file returned a table without decide when run again for a new process");
    int plan = field_kind(L, "plan_reminders");
    if (plan != (plan_slot > 0 ? 1 : 0))
        return luaL_error(L, "the policy file returned a table %s plan_reminders when run again for a new process",
                          plan_slot > 0 ? "without" : "with");
    if (plan_slot > 0) lua_rawseti(L, LUA_REGISTRYINDEX, plan_slot);
    else lua_pop(L, 1);
    lua_rawseti(L, LUA_REGISTRYINDEX, decide_slot);
    return 0;
}

int permit_adopt_policy(lua_State *L, int idx, int decide_slot, int plan_slot) {
    idx = lua_absindex(L, idx);
    if (!lua_checkstack(L, 6)) return PERMIT_E_RUNTIME;
    lua_pushcfunction(L, adopt_protected);
    lua_pushvalue(L, idx);
    lua_pushinteger(L, decide_slot);
    lua_pushinteger(L, plan_slot);
    int status = lua_pcall(L, 3, 0, 0);
    return status == LUA_OK ? PERMIT_OK : status == LUA_ERRMEM ? PERMIT_E_MEMORY : PERMIT_E_RUNTIME;
}
