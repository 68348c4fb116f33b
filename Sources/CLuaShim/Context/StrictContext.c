/*
 * A strict ctx: reading a field the host never puts in a ctx table is an error, not nil.
 *
 * A typo such as `ctx.capabilities.notification_setting_link` used to read nil and quietly
 * take the other branch. Each closed table of ctx gets a metatable (one per table kind, made
 * once per VM by the host from the schema, permit_strict_define) whose __index runs only for
 * an absent key: a field the schema names that may be absent (`last_shown_at` before the
 * first prompt) is nil as before; any other name raises "ctx.history.soft_prompt has no field
 * \"shwon\"; did you mean \"shown\"?" at the policy's line (luaL_error's level 1 is the Lua
 * code that indexed). A present key never reaches __index, so reads that succeed cost nothing.
 *
 * Open tables (state, params' nested values, an event's properties, features) get none.
 * Closed maps (history.events, params) have no fixed names: every valid key is present, so
 * any absent one is an error and the suggestion comes from the keys the table holds.
 * Non-string keys read nil, so ipairs and `#` over a ctx table behave as before.
 *
 * The metatables carry __metatable = false, like the read-only proxies: getmetatable shows no
 * host table and setmetatable cannot replace it.
 */
#include "permit_context.h"
#include "lazy_context.h"
#include "shim_internal.h"
#include <lauxlib.h>
#include <string.h>

/* Their addresses are the registry keys of the metatables, by id. */
static const char strict_keys[PERMIT_STRICT_COUNT] = {0};

/* The longest name compared for a suggestion; longer ones get none. */
#define NAME_MAX_BYTES 64

/* Edit distance where swapping two neighbours is one edit (optimal string alignment), over
   bytes: the same measure `Suggestion.editDistance` uses for Swift's own hints. */
static size_t edit_distance(const char *a, size_t n, const char *b, size_t m) {
    size_t rows[3][NAME_MAX_BYTES + 1];
    size_t *before = rows[0], *previous = rows[1], *current = rows[2];
    for (size_t j = 0; j <= m; j++) previous[j] = j;
    for (size_t i = 1; i <= n; i++) {
        current[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t best = previous[j] + 1;
            if (current[j - 1] + 1 < best) best = current[j - 1] + 1;
            size_t replace = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            if (replace < best) best = replace;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && before[j - 2] + 1 < best)
                best = before[j - 2] + 1;
            current[j] = best;
        }
        size_t *spare = before;
        before = previous;
        previous = current;
        current = spare;
    }
    return previous[m];
}

/* How many edits a word of `n` bytes may be off and still be suggested (Suggestion.closest). */
static size_t edit_limit(size_t n) { return n <= 3 ? 1 : n <= 6 ? 2 : 3; }

typedef struct suggestion {
    const char *name;
    size_t length, distance;
} suggestion;

static void consider(suggestion *best, const char *key, size_t n, const char *name, size_t m) {
    if (m > NAME_MAX_BYTES) return;
    size_t distance = edit_distance(key, n, name, m);
    if (distance <= edit_limit(n) && distance < best->distance) {
        best->name = name;
        best->length = m;
        best->distance = distance;
    }
}

/* The closest string key of the table at `t` to `key`, or none. Raw traversal, no metamethod. */
static suggestion closest(lua_State *L, int t, const char *key, size_t n) {
    suggestion best = {NULL, 0, (size_t)-1};
    if (n > NAME_MAX_BYTES) return best;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -2) == LUA_TSTRING) {
            size_t m;
            const char *name = lua_tolstring(L, -2, &m);
            consider(&best, key, n, name, m);
        }
        lua_pop(L, 1);
    }
    return best;
}

/* A lazy table's __index (LazyContext.c) calls in here through C, so the nearest Lua function
   may be more than one level up. */
void permit_shim_push_where(lua_State *L) {
    lua_Debug ar;
    for (int level = 1; level < 8 && lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            luaL_where(L, level);
            return;
        }
    }
    lua_pushliteral(L, "");
}

/* __index of a strict table: upvalue 1 the table's path, 2 its known names as a set (or
   false for a closed map), 3 a hint to add (or false). (t, k) are 1 and 2. */
static int strict_index(lua_State *L) {
    if (lua_type(L, 2) != LUA_TSTRING) return 0; /* nil: ipairs and numeric reads stay as they were */
    size_t n;
    const char *key = lua_tolstring(L, 2, &n);
    int names = lua_upvalueindex(2);
    if (lua_type(L, names) == LUA_TTABLE) {
        lua_pushvalue(L, 2);
        if (lua_rawget(L, names) != LUA_TNIL) return 0; /* a field the schema allows to be absent */
        lua_pop(L, 1);
    }
    suggestion best = closest(L, lua_type(L, names) == LUA_TTABLE ? names : 1, key, n);
    const char *path = lua_tostring(L, lua_upvalueindex(1));
    const char *hint = lua_type(L, lua_upvalueindex(3)) == LUA_TSTRING ? lua_tostring(L, lua_upvalueindex(3)) : "";
    permit_shim_push_where(L);
    if (best.name != NULL) {
        lua_pushfstring(L, "%s has no field \"%s\"; did you mean \"%s\"?%s", path, key, best.name, hint);
    } else {
        lua_pushfstring(L, "%s has no field \"%s\"%s", path, key, hint);
    }
    lua_concat(L, 2);
    return lua_error(L);
}

void permit_strict_index(lua_State *L, int id) {
    lua_settop(L, 2);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &strict_keys[id]) != LUA_TTABLE) {
        lua_pushnil(L); /* not defined in this VM: lenient */
        return;
    }
    lua_getfield(L, -1, "__index");
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_call(L, 2, 1);
}

/* Arguments: id, path, hint or nil, then the names (none for a closed map: an empty call
   passes false). Runs under lua_pcall. */
static int define_protected(lua_State *L) {
    int id = (int)lua_tointeger(L, 1);
    int count = lua_gettop(L) - 3;
    lua_createtable(L, 0, 2);
    int metatable = lua_gettop(L);
    lua_pushvalue(L, 2);
    if (count > 0) {
        lua_createtable(L, 0, count);
        for (int i = 0; i < count; i++) {
            lua_pushvalue(L, 4 + i);
            lua_pushboolean(L, 1);
            lua_rawset(L, -3);
        }
    } else {
        lua_pushboolean(L, 0);
    }
    if (lua_isnil(L, 3)) lua_pushboolean(L, 0);
    else lua_pushvalue(L, 3);
    lua_pushcclosure(L, strict_index, 3);
    lua_setfield(L, metatable, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, metatable, "__metatable");
    lua_pushvalue(L, metatable);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &strict_keys[id]);
    /* permit_strict_set runs for most ctx tables: an integer slot is an array read. */
    permit_vm *vm = getvm(L);
    lua_pushvalue(L, metatable);
    int ref = luaL_ref(L, LUA_REGISTRYINDEX);
    if (vm->strict_ref[id] > 0) luaL_unref(L, LUA_REGISTRYINDEX, vm->strict_ref[id]);
    vm->strict_ref[id] = ref;
    return 0;
}

int permit_strict_define(lua_State *L, int id, const char *path, const char *hint, const char *names, int count) {
    if (id < 0 || id >= PERMIT_STRICT_COUNT || count < 0) return PERMIT_E_RUNTIME;
    if (!lua_checkstack(L, count + 8)) return PERMIT_E_RUNTIME;
    int base = lua_gettop(L);
    lua_pushcfunction(L, define_protected);
    lua_pushinteger(L, id);
    lua_pushstring(L, path);
    if (hint) lua_pushstring(L, hint);
    else lua_pushnil(L);
    for (int i = 0; i < count; i++) {
        lua_pushstring(L, names);
        names += strlen(names) + 1;
    }
    int status = lua_pcall(L, 3 + count, 0, 0);
    lua_settop(L, base);
    return status == LUA_OK ? PERMIT_OK : (status == LUA_ERRMEM ? PERMIT_E_MEMORY : PERMIT_E_RUNTIME);
}

void permit_strict_set(lua_State *L, int idx, int id) {
    int ref = getvm(L)->strict_ref[id];
    if (ref <= 0) return; /* not defined in this VM (a bare LuaVM): the table stays lenient */
    idx = lua_absindex(L, idx);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_setmetatable(L, idx);
}

int permit_strict_is(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (!lua_getmetatable(L, idx)) return 0;
    int strict = 0;
    for (int id = 0; id < PERMIT_STRICT_COUNT && !strict; id++) {
        lua_rawgetp(L, LUA_REGISTRYINDEX, &strict_keys[id]);
        strict = lua_rawequal(L, -1, -2);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return strict;
}
