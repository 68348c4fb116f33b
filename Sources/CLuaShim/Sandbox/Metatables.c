/*
 * setmetatable and getmetatable: what a script may put in a metatable, and what Lua may do
 * with it in one step no hook sees.
 *
 * Weak tables (__mode) and finalizers (__gc) must never take effect. Lua reads __mode from a
 * table's metatable at every collection, so a __mode added to a metatable after setmetatable
 * would make its tables weak; __gc marks a table for finalization only when setmetatable
 * installs a metatable that has it (Lua 5.4 manual, 2.5.3), so one added later does nothing.
 *
 * Two loops inside one VM step run on what a metatable holds, and no hook sees either:
 *  - __call: calling a value that is not a function makes Lua look up that value's __call, and
 *    when that is not a function either, look again, shifting the arguments each round:
 *    `getmetatable(t).__call = t` looped until the stack filled the memory cap (17 s). Every
 *    metamethod Lua calls (__lt, __concat, __close, arithmetic) goes through the same lookup.
 *  - __index and __newindex: a table there is read (written) raw, then its own metatable's
 *    __index is followed, up to 2,000 tables, each lookup walking that table's collision
 *    chain: one `t[k]` took 0.5 ms through small tables, 150 ms through two of 2,048 slots.
 * Lua reads metamethods raw, and a store into a key a table already has is raw too (no
 * __newindex sees `mt.__call = t` once mt has a __call). So a script's table is never the
 * metatable Lua reads: setmetatable installs a stand-in, a table no script can reach, holding
 * the metamethods (the names Lua and its library read) of the script's table, read again (in
 * place) at every setmetatable with that table and shared by every table it was given to:
 *  - its __call is a function (setmetatable and every later store refuse anything else), so a
 *    call resolves in at most one round;
 *  - its __index and __newindex are the sandbox's walkers (ChainWalk.c): C functions that
 *    read the script's table's current __index / __newindex and follow the chain one table at
 *    a time, charging each step and reading the clock, within Lua's own 2,000 steps. Lua itself
 *    then never walks a script's chain: the walk is calls and charged steps, so C loops reading
 *    through it (table.concat, unpack, move, sort, insert, remove) are bounded as any call is.
 * Keys the script adds to its table later reach the stand-in through the guard below, and a
 * replaced __index or __newindex applies at once (the walkers read it each time); another
 * metamethod replaced in place (a store to a key already there) applies at the next
 * setmetatable with that table.
 *
 * The guard: a table in use as a metatable has, as its own metatable, either the shared guard
 * (whose __newindex checks the key and stores it), a guard of its own holding its stand-in, or
 * a copy of the metatable the script gave it (a class's parent), with the stand-in, the walkers
 * in place of its __index and __newindex and the guard's __newindex when it has none. So a new
 * key reaches a metatable in use only through a __newindex (the guard; a walker, which stores
 * through the same check; the script's function, which can store only through rawset) or
 * through rawset, and each checks it (permit_metatable_store). A key already there is not new,
 * and __gc, __mode and a __call that is not a function are never there. The one thing left
 * fixed is the metatable of a table in use as a metatable (a class's link to its parent): it
 * is a copy made when both roles first meet; getmetatable still returns the script's table.
 */
#include "shim_internal.h"
#include "lazy_context.h"
#include <lauxlib.h>
#include <string.h>

static const char ORIGINAL_METATABLE = 0; /* key (its address) of the original in a metatable copy */
static const char GUARD_METATABLE = 0;    /* registry key (its address) of the shared guard */
static const char STAND_IN = 0;           /* key in a metatable in use's own metatable: its stand-in */
static const char STANDS_FOR = 0;         /* key in a stand-in: the script's table it stands for */
static const char INDEX_WALKER = 0;       /* keys in a stand-in or a copy: its walkers */
static const char NEWINDEX_WALKER = 0;

/* The names Lua and its library read from a metatable (the events of the Lua 5.4 manual, 2.4,
   and __tostring, __name, __metatable, __pairs); __gc and __mode are refused. */
static const char *const METAMETHODS[] = {
    "__index", "__newindex", "__len",  "__eq",  "__add",    "__sub",     "__mul",  "__mod",      "__pow",
    "__div",   "__idiv",     "__band", "__bor", "__bxor",   "__shl",     "__shr",  "__unm",      "__bnot",
    "__lt",    "__le",       "__concat", "__call", "__close", "__tostring", "__name", "__metatable", "__pairs",
};
#define METAMETHOD_COUNT (sizeof(METAMETHODS) / sizeof(METAMETHODS[0]))

static int is_named(lua_State *L, int idx, const char *name, size_t length) {
    size_t len;
    const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, &len) : NULL;
    return s != NULL && len == length && memcmp(s, name, length) == 0;
}

static void push_guard(lua_State *L) { lua_rawgetp(L, LUA_REGISTRYINDEX, &GUARD_METATABLE); }

static int has_key(lua_State *L, int idx, const void *key) {
    int present = lua_rawgetp(L, idx, key) != LUA_TNIL;
    lua_pop(L, 1);
    return present;
}

static int is_shared_guard(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    push_guard(L);
    int guard = lua_rawequal(L, idx, -1);
    lua_pop(L, 1);
    return guard;
}

/* Whether the metatable at idx is one the sandbox put under a table in use as a metatable. */
static int is_guarding(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    return is_shared_guard(L, idx) || has_key(L, idx, &ORIGINAL_METATABLE) || has_key(L, idx, &STAND_IN);
}

/* Whether the metatable at idx is a guard that stands for no script table (getmetatable shows
   nothing for it): the shared guard or a guard of a table's own. */
static int is_plain_guard(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    return is_shared_guard(L, idx) || (has_key(L, idx, &STAND_IN) && !has_key(L, idx, &ORIGINAL_METATABLE));
}

int permit_has_script_metatable(lua_State *L, int idx) {
    if (!lua_getmetatable(L, idx)) return 0;
    int plain = is_plain_guard(L, -1);
    lua_pop(L, 1);
    return !plain;
}

int permit_metatable_in_use(lua_State *L, int idx) {
    if (!lua_getmetatable(L, idx)) return 0;
    int in_use = is_guarding(L, -1);
    lua_pop(L, 1);
    return in_use;
}

int permit_metatable_origin(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (lua_rawgetp(L, idx, &STANDS_FOR) == LUA_TTABLE) return 1;
    lua_pop(L, 1);
    if (lua_rawgetp(L, idx, &ORIGINAL_METATABLE) == LUA_TTABLE) return 1;
    lua_pop(L, 1);
    return is_plain_guard(L, idx) ? 0 : -1;
}

/* Pushes the stand-in of the table at idx (a metatable in use) and returns 1, or pushes nothing
   and returns 0. */
static int push_stand_in(lua_State *L, int idx) {
    if (!lua_getmetatable(L, idx)) return 0;
    if (lua_rawgetp(L, -1, &STAND_IN) == LUA_TTABLE) {
        lua_remove(L, -2);
        return 1;
    }
    lua_pop(L, 2);
    return 0;
}

/* Refuses a __call in the table at idx that is not a function. */
static void check_call(lua_State *L, int idx) {
    lua_pushliteral(L, "__call");
    int type = lua_rawget(L, idx);
    lua_pop(L, 1);
    if (type != LUA_TNIL && type != LUA_TFUNCTION)
        luaL_error(L, "a __call metamethod must be a function in the sandbox (got a %s value): Lua would look up "
                      "that value's own __call again and again in one step no limit sees",
                   lua_typename(L, type));
}

/* Sets field `name` of the installed table at `dst` to the value at `value` as Lua should read
   it: a walker (made once per table, reading the script's table at `origin`) for a non-nil
   __index or __newindex, the value itself for anything else. */
static void set_metamethod(lua_State *L, int dst, int origin, const char *name, int value) {
    dst = lua_absindex(L, dst);
    value = lua_absindex(L, value);
    int index = strcmp(name, "__index") == 0, newindex = !index && strcmp(name, "__newindex") == 0;
    if ((index || newindex) && !lua_isnil(L, value)) {
        const void *key = index ? (const void *)&INDEX_WALKER : (const void *)&NEWINDEX_WALKER;
        if (lua_rawgetp(L, dst, key) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_pushvalue(L, origin);
            lua_pushcclosure(L, index ? permit_index_walker : permit_newindex_walker, 1);
            lua_pushvalue(L, -1);
            lua_rawsetp(L, dst, key);
        }
    } else {
        lua_pushvalue(L, value);
    }
    lua_setfield(L, dst, name); /* dst has no metatable: a raw store */
}

/* Sets every metamethod of the installed table at dst from the script's table at origin;
   returns how many names it read. */
static uint64_t copy_metamethods(lua_State *L, int dst, int origin) {
    dst = lua_absindex(L, dst);
    origin = lua_absindex(L, origin);
    for (size_t i = 0; i < METAMETHOD_COUNT; i++) {
        lua_pushstring(L, METAMETHODS[i]);
        lua_rawget(L, origin);
        set_metamethod(L, dst, origin, METAMETHODS[i], -1);
        lua_pop(L, 1);
    }
    return METAMETHOD_COUNT;
}

void permit_metatable_store(lua_State *L, int t, int key, int value) {
    t = lua_absindex(L, t);
    key = lua_absindex(L, key);
    value = lua_absindex(L, value);
    if (!lua_getmetatable(L, t)) return; /* not in use: setmetatable checks it */
    int own = lua_gettop(L);
    if (!is_guarding(L, own)) {
        lua_pop(L, 1);
        return;
    }
    if (is_named(L, key, "__gc", 4))
        luaL_error(L, "__gc metamethods are not available in the sandbox (this table is a metatable)");
    if (is_named(L, key, "__mode", 6))
        luaL_error(L, "weak tables (__mode) are not available in the sandbox (this table is a metatable): keep "
                      "strong references and drop them by setting the key to nil");
    if (is_named(L, key, "__call", 6) && !lua_isnil(L, value) && !lua_isfunction(L, value))
        luaL_error(L, "a __call metamethod must be a function in the sandbox (got a %s value)",
                   luaL_typename(L, value));
    if (lua_type(L, key) == LUA_TSTRING && lua_rawgetp(L, own, &STAND_IN) == LUA_TTABLE) {
        const char *name = lua_tostring(L, key);
        for (size_t i = 0; i < METAMETHOD_COUNT; i++)
            if (strcmp(name, METAMETHODS[i]) == 0) set_metamethod(L, -1, t, name, value);
    }
    lua_settop(L, own - 1);
}

static int raw_store(lua_State *L) {
    lua_rawset(L, 1);
    return 0;
}

void permit_checked_store(lua_State *L, int t, int key, int value) {
    t = lua_absindex(L, t);
    key = lua_absindex(L, key);
    value = lua_absindex(L, value);
    permit_metatable_store(L, t, key, value);
    lua_Number n = lua_type(L, key) == LUA_TNUMBER && !lua_isinteger(L, key) ? lua_tonumber(L, key) : 0;
    if (lua_isnil(L, key) || n != n) { /* Lua's own error, at the script's line */
        lua_pushcfunction(L, raw_store);
        lua_pushvalue(L, t);
        lua_pushvalue(L, key);
        lua_pushvalue(L, value);
        if (lua_pcall(L, 3, 0, 0) == LUA_OK) return;
        if (lua_type(L, -1) == LUA_TSTRING) {
            luaL_where(L, 1);
            lua_insert(L, -2);
            lua_concat(L, 2);
        }
        lua_error(L);
    }
    lua_pushvalue(L, key);
    lua_pushvalue(L, value);
    lua_rawset(L, t);
}

/* __newindex of the guards (t, k, v): checks the key (permit_metatable_store), stores it as a
   plain assignment would. */
static int guard_newindex(lua_State *L) {
    lua_settop(L, 3);
    permit_checked_store(L, 1, 2, 3);
    return 0;
}

/* Pushes a guard of a table's own, holding the stand-in at idx. */
static void push_own_guard(lua_State *L, int stand_in) {
    stand_in = lua_absindex(L, stand_in);
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, guard_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushvalue(L, stand_in);
    lua_rawsetp(L, -2, &STAND_IN);
}

/* Pushes a copy of the metatable at `src` to install under a table in use as a metatable: its
   metamethods (walkers for __index and __newindex), the original (for getmetatable), and the
   guard's __newindex when it has none. */
static void push_guarded_copy(lua_State *L, int src) {
    src = lua_absindex(L, src);
    check_call(L, src);
    lua_newtable(L);
    int copy = lua_gettop(L);
    permit_charge_work(L, 1 + copy_metamethods(L, copy, src), "setmetatable");
    lua_pushvalue(L, src);
    lua_rawsetp(L, copy, &ORIGINAL_METATABLE);
    lua_pushliteral(L, "__newindex");
    if (lua_rawget(L, copy) == LUA_TNIL) {
        lua_pushcfunction(L, guard_newindex);
        lua_setfield(L, copy, "__newindex");
    }
    lua_pop(L, 1);
}

/* Makes the table at mt (a script's, about to be installed as a metatable) guarded. */
static void guard_metatable(lua_State *L, int mt) {
    if (!lua_getmetatable(L, mt)) {
        push_guard(L);
        lua_setmetatable(L, mt);
        return;
    }
    int own = lua_gettop(L);
    if (is_guarding(L, own) || permit_shim_is_frozen(L, mt)) { /* guarded already, or never writable */
        lua_pop(L, 1);
        return;
    }
    if (lua_rawgetp(L, own, &STANDS_FOR) == LUA_TTABLE) { /* a stand-in: copy the script's table */
        lua_replace(L, own);
    } else {
        lua_pop(L, 1);
    }
    /* Its metatable came from setmetatable (so it is in use itself, guarded, or a read-only
       table) or is the host's (ctx, _ENV), which is not copied: the host recognises its
       tables by it. */
    if (!permit_metatable_in_use(L, own) && !permit_shim_is_frozen(L, own))
        luaL_error(L, "setmetatable: this table cannot be a metatable in the sandbox (it has a metatable of "
                      "Permit's own); use a table of your own, e.g. { __index = t }");
    push_guarded_copy(L, own);
    lua_setmetatable(L, mt);
    lua_pop(L, 1);
}

/* Reads again, from the script's table at mt, the metamethods the stand-in at idx holds: those
   are the only ones a store could have changed unseen (a store to a key mt already had). A key
   mt did not have reached the stand-in when it was added (the guard). Returns how many. */
static uint64_t refresh_stand_in(lua_State *L, int idx, int mt) {
    idx = lua_absindex(L, idx);
    uint64_t fields = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) { /* only existing fields change: allowed during a traversal */
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) continue;
        lua_pushvalue(L, -1);
        lua_rawget(L, mt);
        set_metamethod(L, idx, mt, lua_tostring(L, -2), -1);
        lua_pop(L, 1);
        fields++;
    }
    return fields;
}

/* Pushes the stand-in to install for the table at mt (guarded already): its own, refreshed,
   or a new one made from mt's metamethods, which mt's guard then holds. */
static void push_fresh_stand_in(lua_State *L, int mt) {
    mt = lua_absindex(L, mt);
    if (push_stand_in(L, mt)) {
        permit_charge_work(L, 1 + refresh_stand_in(L, -1, mt), "setmetatable");
        return;
    }
    lua_newtable(L);
    lua_pushvalue(L, mt);
    lua_rawsetp(L, -2, &STANDS_FOR);
    lua_getmetatable(L, mt);
    if (is_shared_guard(L, -1)) {
        push_own_guard(L, -2);
        lua_setmetatable(L, mt);
    } else { /* a guarded copy of mt's own metatable, made for mt alone */
        lua_pushvalue(L, -2);
        lua_rawsetp(L, -2, &STAND_IN);
    }
    lua_pop(L, 1);
    permit_charge_work(L, 1 + copy_metamethods(L, -1, mt), "setmetatable");
}

/* The metatable to give a table in use as a metatable: a guarded copy of the table at mt, or
   (mt nil) a guard; either keeps the stand-in its current metatable holds. */
static void push_guarding_metatable(lua_State *L, int t, int mt) {
    t = lua_absindex(L, t);
    if (lua_isnil(L, mt)) {
        if (push_stand_in(L, t)) {
            push_own_guard(L, -1);
            lua_remove(L, -2);
        } else {
            push_guard(L);
        }
        return;
    }
    push_guarded_copy(L, mt);
    if (push_stand_in(L, t)) lua_rawsetp(L, -2, &STAND_IN);
}

/* setmetatable(t, mt): refuses __gc, __mode and a __call that is not a function, then installs
   mt's stand-in (above), mt guarded; a t that is in use as a metatable gets a guarded copy of
   mt instead, and keeps a guard when mt is nil. A read-only table (which has no fields of its
   own) is installed itself. */
static int guarded_setmetatable(lua_State *L) {
    int type = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, type == LUA_TNIL || type == LUA_TTABLE, 2, "nil or table");
    lua_settop(L, 2);
    permit_lazy_settle_in_call(L, 1);
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return luaL_error(L, "cannot change a protected metatable");
    if (type == LUA_TTABLE) {
        permit_lazy_settle_in_call(L, 2);
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL) return luaL_error(L, "__gc metamethods are not available in the sandbox");
        lua_pushliteral(L, "__mode");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "weak tables (__mode) are not available in the sandbox: keep strong references "
                                 "and drop them by setting the key to nil");
        lua_settop(L, 2);
        check_call(L, 2);
        guard_metatable(L, 2); /* first: t may be mt itself, then in use from here on */
    }
    permit_charge_work(L, 1, "setmetatable");
    if (permit_metatable_in_use(L, 1)) push_guarding_metatable(L, 1, 2);
    else if (type == LUA_TTABLE && !permit_shim_is_frozen(L, 2)) push_fresh_stand_in(L, 2);
    else lua_pushvalue(L, 2);
    lua_setmetatable(L, 1);
    lua_settop(L, 1);
    return 1;
}

/* getmetatable(v): tables only (the string metatable stays hidden); __metatable when set;
   nothing for a guard; the script's table for a copy or a stand-in. */
static int guarded_getmetatable(lua_State *L) {
    luaL_checkany(L, 1);
    permit_lazy_settle_in_call(L, 1);
    if (lua_type(L, 1) != LUA_TTABLE || !lua_getmetatable(L, 1)) {
        lua_pushnil(L);
        return 1;
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return 1;
    if (is_plain_guard(L, -1)) {
        lua_pushnil(L);
        return 1;
    }
    if (permit_metatable_origin(L, -1) == 1) return 1;
    return 1; /* the host's */
}

void permit_install_metatables(lua_State *L, int base) {
    base = lua_absindex(L, base);
    lua_createtable(L, 0, 1); /* the shared guard of a table in use as a metatable */
    lua_pushcfunction(L, guard_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &GUARD_METATABLE);
    lua_pushcfunction(L, guarded_setmetatable);
    lua_setfield(L, base, "setmetatable");
    lua_pushcfunction(L, guarded_getmetatable);
    lua_setfield(L, base, "getmetatable");
}
