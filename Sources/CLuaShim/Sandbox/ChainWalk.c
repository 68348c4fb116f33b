/* The walkers: the __index and __newindex of every metatable Lua reads for a script's table
   (Metatables.c installs them in place of the script's own). Lua follows a chain of __index
   tables inside one VM step, up to 2,000 tables, each lookup walking that table's collision
   chain; nothing sees it. A walker is a call (a hook event), and it follows the same chain
   itself, one table at a time: each step is charged a unit and reads the clock, so a chain of
   any length or shape ends within one table's lookup of the time limit. What a step does is
   what the Lua 5.4 manual (2.4) says of "index" and "newindex": a table handler is read
   (written) raw when it has the key, else its own metatable's handler is followed; a function
   handler is called with the table whose metatable holds it. The handler is read from the
   script's table at each step, so a script that replaces its __index sees the change at once.
   A table whose metatable is the host's (a read-only library table, ctx) is handed to Lua,
   which reads it in one step of its own (its chain is the host's: one table). */
#include "shim_internal.h"
#include <lauxlib.h>

/* Lua's own bound on a chain (MAXTAGLOOP, with the same message). */
#define CHAIN_STEPS 2000

static void take_step(lua_State *L, int steps, const char *event) {
    if (steps >= CHAIN_STEPS) luaL_error(L, "'%s' chain too long; possible loop", event);
    permit_charge_work(L, 1, event);
}

/* Reads the handler named `event` of the script's table at `origin` onto the stack. */
static int push_handler(lua_State *L, int origin, const char *event) {
    lua_pushstring(L, event);
    return lua_rawget(L, origin);
}

/* Replaces the origin at `origin` by what the metatable of the table at `table` stands for.
   Returns 1 when the walk goes on from there, 0 when that table has no handler (no metatable,
   or a guard), -1 when its metatable is the host's. */
static int follow(lua_State *L, int origin, int table) {
    if (!lua_getmetatable(L, table)) return 0;
    int found = permit_metatable_origin(L, -1);
    if (found == 1) {
        lua_replace(L, origin);
    }
    lua_pop(L, 1);
    return found;
}

/* __index (t, k). Stack: 1 t, 2 k, 3 the script's table whose handler applies, 4 the table
   that handler is the __index of. */
int permit_index_walker(lua_State *L) {
    lua_settop(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    for (int steps = 0;; steps++) {
        int type = push_handler(L, 3, "__index"); /* 5 */
        if (type == LUA_TNIL) return 1;
        if (type == LUA_TFUNCTION) {
            lua_pushvalue(L, 4);
            lua_pushvalue(L, 2);
            lua_call(L, 2, 1);
            return 1;
        }
        lua_pushvalue(L, 2);
        if (type != LUA_TTABLE) { /* a string (its library) or Lua's own error */
            lua_gettable(L, 5);
            return 1;
        }
        take_step(L, steps, "__index");
        if (lua_rawget(L, 5) != LUA_TNIL) return 1;
        lua_pop(L, 1);
        int next = follow(L, 3, 5);
        if (next <= 0) {
            if (next == 0) lua_pushnil(L);
            else {
                lua_pushvalue(L, 2);
                lua_gettable(L, 5);
            }
            return 1;
        }
        lua_replace(L, 4);
    }
}

/* __newindex (t, k, v). Stack: 1 t, 2 k, 3 v, 4 the script's table whose handler applies, 5
   the table that handler is the __newindex of. */
int permit_newindex_walker(lua_State *L) {
    lua_settop(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    for (int steps = 0;; steps++) {
        int type = push_handler(L, 4, "__newindex"); /* 6 */
        if (type == LUA_TNIL) {
            permit_checked_store(L, 5, 2, 3);
            return 0;
        }
        if (type == LUA_TFUNCTION) {
            lua_pushvalue(L, 5);
            lua_pushvalue(L, 2);
            lua_pushvalue(L, 3);
            lua_call(L, 3, 0);
            return 0;
        }
        if (type != LUA_TTABLE) { /* Lua's own error (a string cannot be assigned to) */
            lua_pushvalue(L, 2);
            lua_pushvalue(L, 3);
            lua_settable(L, 6);
            return 0;
        }
        take_step(L, steps, "__newindex");
        lua_pushvalue(L, 2);
        if (lua_rawget(L, 6) != LUA_TNIL) { /* a key the table has: written raw, as Lua does */
            lua_pop(L, 1);
            lua_pushvalue(L, 2);
            lua_pushvalue(L, 3);
            lua_rawset(L, 6);
            return 0;
        }
        lua_pop(L, 1);
        int next = follow(L, 4, 6);
        if (next == 0) {
            permit_checked_store(L, 6, 2, 3);
            return 0;
        }
        if (next < 0) {
            lua_pushvalue(L, 2);
            lua_pushvalue(L, 3);
            lua_settable(L, 6);
            return 0;
        }
        lua_replace(L, 5);
    }
}
