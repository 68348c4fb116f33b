/*
 * Library functions whose work happens inside one C call, where the count hook (and so the
 * wall clock) is never consulted: each is charged against the instruction budget before it
 * runs, in units of roughly one VM instruction's time (about 2.5 ns here; the rates below were
 * measured with the red-team battery). The real library function then does the work (we wrap,
 * we do not re-implement), in the wrapper's own frame (permit_run_original), so its errors
 * read as Lua's own. Arguments Lua's function would refuse are not charged: the real function
 * refuses them with Lua's own message (a bad range must be an error `pcall` catches, not a
 * budget error).
 *
 * Also here, because they expose or depend on host memory layout:
 *  - tostring, print and string.format's %s name tables, functions and coroutines by a per-VM
 *    counter (`table: #17`) instead of their address; %p is refused;
 *  - setmetatable refuses weak tables (__mode) and finalizers (__gc), and guards a table in use
 *    as a metatable so that neither can be added to it later (see "metatables" below).
 */
#include "shim_internal.h"
#include "lazy_context.h"
#include <lauxlib.h>
#include <string.h>

static const char ORIGINAL_METATABLE = 0; /* key (its address) of the original in a metatable copy */
static const char GUARD_METATABLE = 0;    /* registry key (its address) of the guard metatable */
#define KEY_OBJECT_IDS "permit.object_ids"

/* A start position as string.byte reads it: negative counts from the end, and anything before
   the start is the start. */
static lua_Integer string_position(lua_Integer pos, size_t len) {
    if (pos > 0) return pos;
    if (pos == 0) return 1;
    if (pos < -(lua_Integer)len) return 1;
    return (lua_Integer)len + pos + 1;
}

/* An end position as string.byte reads it: past the end is the end, before the start is 0. */
static lua_Integer string_end_position(lua_Integer pos, size_t len) {
    if (pos > (lua_Integer)len) return (lua_Integer)len;
    if (pos >= 0) return pos;
    if (pos < -(lua_Integer)len) return 0;
    return (lua_Integer)len + pos + 1;
}

/* A position as the utf8 functions read it: negative counts from the end, and anything before
   the start is 0 (which they refuse). */
static lua_Integer utf8_position(lua_Integer pos, size_t len) {
    if (pos >= 0) return pos;
    if ((lua_Unsigned)0 - (lua_Unsigned)pos > len) return 0;
    return (lua_Integer)len + pos + 1;
}

/* Whether `count` values (first..last, not empty) can be returned: Lua's functions refuse
   INT_MAX of them or more, and more than the stack can take, with an error of their own.
   Grows the stack as the real function would (the allocator charges the growth). */
static int results_fit(lua_State *L, lua_Integer first, lua_Integer last) {
    lua_Unsigned extra = (lua_Unsigned)last - (lua_Unsigned)first; /* values minus one */
    return extra < (lua_Unsigned)INT_MAX && lua_checkstack(L, (int)extra + 1);
}

/* ---------------------------------------------------------------- table.sort */

/* The comparison table.sort is given: charges one unit, plus the shorter length / 32 for two
   strings (they are compared byte by byte in C), then compares with the script's function
   (upvalue 1) or with `<`. */
static int charged_comparison(lua_State *L) {
    uint64_t units = 1;
    if (lua_type(L, 1) == LUA_TSTRING && lua_type(L, 2) == LUA_TSTRING) {
        size_t a = lua_rawlen(L, 1), b = lua_rawlen(L, 2);
        units += (a < b ? a : b) / 32;
    }
    permit_charge_work(L, units, "table.sort");
    if (lua_isnil(L, lua_upvalueindex(1))) {
        lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 2, 1);
    return 1;
}

/* table.sort(t [, comp]): the real sort (upvalue 1) fed through a charged comparison. A table
   without __len is charged its length up front. One with __len is measured by the real sort
   alone, once, as in Lua: it refuses a length of INT_MAX or more ("array too big") before
   comparing anything, and each comparison it makes is charged. A comparison argument that is
   neither nil nor a function is left for the real sort to refuse (which it does only when
   there are two elements or more to sort, as in Lua). */
static int charged_sort(lua_State *L) {
    lua_settop(L, 2);
    if (lua_type(L, 1) == LUA_TTABLE) {
        if (luaL_getmetafield(L, 1, "__len") == LUA_TNIL) {
            lua_Unsigned n = lua_rawlen(L, 1);
            if (n > 1) permit_charge_work(L, (uint64_t)n, "table.sort");
        } else {
            lua_pop(L, 1);
        }
    }
    int comparison = lua_type(L, 2);
    if (comparison == LUA_TNIL || comparison == LUA_TFUNCTION) lua_pushcclosure(L, charged_comparison, 1);
    return permit_run_original(L);
}

/* ------------------------------------------------------- values in one call */

/* string.byte(s [, i [, j]]): 4 units per value pushed (about 10 ns each). */
static int charged_byte(lua_State *L) {
    size_t len;
    luaL_checklstring(L, 1, &len);
    lua_Integer given = luaL_optinteger(L, 2, 1);
    lua_Integer last = string_end_position(luaL_optinteger(L, 3, given), len);
    lua_Integer first = string_position(given, len);
    if (first <= last && results_fit(L, first, last))
        permit_charge_work(L, 1 + 4 * ((uint64_t)(last - first) + 1), "string.byte");
    return permit_run_original(L);
}

/* table.unpack(t [, i [, j]]): 5 units per value (about 13 ns each). Without j, the length
   (__len included) is read here, once, and handed to the real unpack as j. */
static int charged_unpack(lua_State *L) {
    lua_Integer first = luaL_optinteger(L, 2, 1);
    if (lua_isnoneornil(L, 3)) {
        lua_Integer length = luaL_len(L, 1);
        lua_settop(L, 2);
        lua_pushinteger(L, length);
    }
    lua_Integer last = luaL_checkinteger(L, 3);
    if (first <= last && results_fit(L, first, last))
        permit_charge_work(L, 1 + 5 * ((uint64_t)((lua_Unsigned)last - (lua_Unsigned)first) + 1), "table.unpack");
    return permit_run_original(L);
}

/* table.pack(...), utf8.char(...): 16 units per argument (a table slot or a UTF-8 encoding
   each, about 40 ns). */
static int charged_per_argument(lua_State *L) {
    permit_charge_work(L, 1 + 16 * (uint64_t)lua_gettop(L), lua_tostring(L, lua_upvalueindex(2)));
    return permit_run_original(L);
}

/* utf8.len, utf8.offset and utf8.codepoint: 3 units per byte of the subject (decoding takes
   about 6.5 ns a byte), and for codepoint 4 per value pushed too; charged once the positions
   pass the checks Lua's functions make (the arguments read in their order). */
static int charged_utf8_len(lua_State *L) {
    size_t len;
    luaL_checklstring(L, 1, &len);
    lua_Integer first = utf8_position(luaL_optinteger(L, 2, 1), len);
    lua_Integer last = utf8_position(luaL_optinteger(L, 3, -1), len);
    if (first >= 1 && first - 1 <= (lua_Integer)len && last - 1 < (lua_Integer)len)
        permit_charge_work(L, 1 + 3 * (uint64_t)len, "utf8.len");
    return permit_run_original(L);
}

static int charged_utf8_offset(lua_State *L) {
    size_t len;
    luaL_checklstring(L, 1, &len);
    lua_Integer n = luaL_checkinteger(L, 2);
    lua_Integer from = utf8_position(luaL_optinteger(L, 3, n >= 0 ? 1 : (lua_Integer)len + 1), len);
    if (from >= 1 && from - 1 <= (lua_Integer)len) permit_charge_work(L, 1 + 3 * (uint64_t)len, "utf8.offset");
    return permit_run_original(L);
}

static int charged_utf8_codepoint(lua_State *L) {
    size_t len;
    luaL_checklstring(L, 1, &len);
    lua_Integer first = utf8_position(luaL_optinteger(L, 2, 1), len);
    lua_Integer last = utf8_position(luaL_optinteger(L, 3, first), len);
    if (first >= 1 && last <= (lua_Integer)len && first <= last && results_fit(L, first, last))
        permit_charge_work(L, 1 + 3 * (uint64_t)len + 4 * ((uint64_t)(last - first) + 1), "utf8.codepoint");
    return permit_run_original(L);
}

/* -------------------------------------------------------------- object names */

/* The per-VM number of a table, function, coroutine or userdata: given on first sight, kept
   while the object lives (the registry map's keys are weak; host-side, not a script's). */
static lua_Integer object_id(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_getfield(L, LUA_REGISTRYINDEX, KEY_OBJECT_IDS);
    lua_pushvalue(L, idx);
    lua_Integer id;
    if (lua_rawget(L, -2) == LUA_TNUMBER) {
        id = lua_tointeger(L, -1);
        lua_pop(L, 2);
        return id;
    }
    lua_pop(L, 1);
    id = ++permit_guards(L)->next_object_id;
    lua_pushvalue(L, idx);
    lua_pushinteger(L, id);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    return id;
}

void permit_shim_restart_object_ids(lua_State *L) {
    permit_guard_state *guards = permit_guards(L);
    if (guards->next_object_id == 0) return; /* nothing named since the last start */
    lua_getfield(L, LUA_REGISTRYINDEX, KEY_OBJECT_IDS);
    lua_newtable(L);
    (void)lua_getmetatable(L, -2); /* the weak-keys metatable, shared */
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, KEY_OBJECT_IDS);
    lua_pop(L, 1);
    guards->next_object_id = 0;
}

void permit_push_display_string(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    int type = lua_type(L, idx);
    int addressed = type == LUA_TTABLE || type == LUA_TFUNCTION || type == LUA_TTHREAD || type == LUA_TUSERDATA ||
                    type == LUA_TLIGHTUSERDATA;
    if (!addressed || luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
        if (addressed) lua_pop(L, 1);
        (void)luaL_tolstring(L, idx, NULL);
        return;
    }
    const char *kind = luaL_typename(L, idx);
    int named = luaL_getmetafield(L, idx, "__name") == LUA_TSTRING;
    if (named) kind = lua_tostring(L, -1);
    lua_pushfstring(L, "%s: #%I", kind, (LUAI_UACINT)object_id(L, idx));
    if (named) lua_remove(L, -2);
}

static int display_tostring(lua_State *L) {
    luaL_checkany(L, 1);
    permit_push_display_string(L, 1);
    return 1;
}

/* string.format(fmt, ...): %p is refused; a %s argument that is not a string or number is
   replaced by its display string first (the real format would show its address). */
static int addressless_format(lua_State *L) {
    size_t len;
    const char *fmt = luaL_checklstring(L, 1, &len);
    int arg = 1;
    uint64_t quoted = 0; /* bytes %q quotes one at a time (7 ns a byte: 3 units) */
    for (size_t i = 0; i < len; i++) {
        if (fmt[i] != '%') continue;
        if (++i < len && fmt[i] == '%') continue;
        while (i < len && strchr("-+ #0123456789.", fmt[i]) != NULL) i++;
        if (i >= len) break;
        arg++;
        if (fmt[i] == 'p') return luaL_error(L, "string.format: '%%p' is not available in the sandbox (it shows host addresses)");
        if (fmt[i] == 'q' && arg <= lua_gettop(L) && lua_type(L, arg) == LUA_TSTRING) quoted += lua_rawlen(L, arg);
        if (fmt[i] == 's' && arg <= lua_gettop(L) && lua_type(L, arg) != LUA_TSTRING && lua_type(L, arg) != LUA_TNUMBER) {
            permit_push_display_string(L, arg);
            lua_replace(L, arg);
            fmt = lua_tolstring(L, 1, &len); /* still the same string (slot 1 is untouched) */
        }
    }
    permit_charge_work(L, 1 + len / 16 + 3 * quoted, "string.format");
    return permit_run_original(L);
}

/* ------------------------------------------------------------ metatables */

/* Weak tables (__mode) and finalizers (__gc) must never take effect. Lua reads __mode from a
   table's metatable at every collection, so a __mode added to a metatable after setmetatable
   would make its tables weak; __gc marks a table for finalization only when setmetatable
   installs a metatable that has it (Lua 5.4 manual, 2.5.3), so one added later does nothing.
   setmetatable refuses both, then installs the script's own table (later changes to it take
   effect, as in Lua) and guards it: a table in use as a metatable has, as its own metatable,
   either the guard (whose __newindex refuses __gc and __mode and stores anything else) or a
   copy of the metatable the script gave it, which keeps that table's __newindex or gets the
   guard's. So a new key reaches a metatable in use only through a __newindex (the guard; the
   script's, which can store only through rawset; or a table, which stores elsewhere) or
   through rawset, which refuses __gc and __mode on it: neither key can be added to it. A key
   already there is not new, and __gc and __mode are never there. The one thing left fixed is
   the metatable of a table in use as a metatable (a class's link to its parent): it is a copy
   made when both roles first meet; getmetatable still returns the script's table. */

static int is_named(lua_State *L, int idx, const char *name, size_t length) {
    size_t len;
    const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, &len) : NULL;
    return s != NULL && len == length && memcmp(s, name, length) == 0;
}

static void push_guard(lua_State *L) { lua_rawgetp(L, LUA_REGISTRYINDEX, &GUARD_METATABLE); }

/* Whether the metatable at idx is one the sandbox put under a table in use as a metatable. */
static int is_guarding(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    push_guard(L);
    int guard = lua_rawequal(L, idx, -1);
    lua_pop(L, 1);
    if (guard) return 1;
    int copy = lua_rawgetp(L, idx, &ORIGINAL_METATABLE) != LUA_TNIL;
    lua_pop(L, 1);
    return copy;
}

int permit_has_script_metatable(lua_State *L, int idx) {
    if (!lua_getmetatable(L, idx)) return 0;
    push_guard(L);
    int guard = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return !guard;
}

int permit_metatable_in_use(lua_State *L, int idx) {
    if (!lua_getmetatable(L, idx)) return 0;
    int in_use = is_guarding(L, -1);
    lua_pop(L, 1);
    return in_use;
}

void permit_refuse_metatable_key(lua_State *L, int t, int key) {
    int gc = is_named(L, key, "__gc", 4), mode = !gc && is_named(L, key, "__mode", 6);
    if ((gc || mode) && permit_metatable_in_use(L, t)) {
        if (gc) luaL_error(L, "__gc metamethods are not available in the sandbox (this table is a metatable)");
        luaL_error(L, "weak tables (__mode) are not available in the sandbox (this table is a metatable): keep "
                      "strong references and drop them by setting the key to nil");
    }
}

static int raw_store(lua_State *L) {
    lua_rawset(L, 1);
    return 0;
}

/* __newindex of the guard (t, k, v): refuses __gc and __mode, stores anything else as a plain
   assignment would. A nil or NaN key gets Lua's own error, at the script's line (raised here,
   in C, it would have no position). */
static int guard_newindex(lua_State *L) {
    lua_settop(L, 3);
    permit_refuse_metatable_key(L, 1, 2);
    lua_Number n = lua_type(L, 2) == LUA_TNUMBER && !lua_isinteger(L, 2) ? lua_tonumber(L, 2) : 0;
    if (lua_isnil(L, 2) || n != n) {
        lua_pushcfunction(L, raw_store);
        lua_insert(L, 1);
        if (lua_pcall(L, 3, 0, 0) == LUA_OK) return 0;
        if (lua_type(L, -1) == LUA_TSTRING) {
            luaL_where(L, 1);
            lua_insert(L, -2);
            lua_concat(L, 2);
        }
        return lua_error(L);
    }
    lua_rawset(L, 1);
    return 0;
}

/* Pushes a copy of the metatable at `src` to install under a table in use as a metatable: its
   fields, the original (for getmetatable), and the guard's __newindex when it has none. */
static void push_guarded_copy(lua_State *L, int src) {
    src = lua_absindex(L, src);
    lua_newtable(L);
    int copy = lua_gettop(L);
    uint64_t fields = 0;
    lua_pushnil(L);
    while (lua_next(L, src)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, copy);
        fields++;
    }
    permit_charge_work(L, 1 + fields, "setmetatable");
    lua_pushvalue(L, src);
    lua_rawsetp(L, copy, &ORIGINAL_METATABLE);
    lua_pushliteral(L, "__newindex");
    if (lua_rawget(L, copy) == LUA_TNIL) {
        push_guard(L);
        lua_getfield(L, -1, "__newindex");
        lua_setfield(L, copy, "__newindex");
        lua_pop(L, 1);
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

/* setmetatable(t, mt): refuses __gc and __mode, then installs mt itself, guarded (above); a t
   that is in use as a metatable gets a guarded copy of mt instead, and keeps the guard when
   mt is nil. */
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
        guard_metatable(L, 2); /* first: t may be mt itself, then in use from here on */
    }
    permit_charge_work(L, 1, "setmetatable");
    int in_use = permit_metatable_in_use(L, 1);
    if (type == LUA_TNIL) {
        if (in_use) push_guard(L);
        else lua_pushnil(L);
    } else if (in_use) {
        push_guarded_copy(L, 2);
    } else {
        lua_pushvalue(L, 2);
    }
    lua_setmetatable(L, 1);
    lua_settop(L, 1);
    return 1;
}

/* getmetatable(v): tables only (the string metatable stays hidden); __metatable when set;
   nothing for the guard; the script's table for a copy. */
static int guarded_getmetatable(lua_State *L) {
    luaL_checkany(L, 1);
    permit_lazy_settle_in_call(L, 1);
    if (lua_type(L, 1) != LUA_TTABLE || !lua_getmetatable(L, 1)) {
        lua_pushnil(L);
        return 1;
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return 1;
    push_guard(L);
    if (lua_rawequal(L, -1, -2)) {
        lua_pushnil(L);
        return 1;
    }
    lua_pop(L, 1);
    if (lua_rawgetp(L, -1, &ORIGINAL_METATABLE) == LUA_TNIL) lua_pop(L, 1); /* the host's or the script's own */
    return 1;
}

/* ------------------------------------------------------------------- install */

static void charge_with(lua_State *L, int lib, const char *name, lua_CFunction wrapper) {
    lua_getfield(L, lib, name);
    lua_pushcclosure(L, wrapper, 1);
    lua_setfield(L, lib, name);
}

static void charge_arguments(lua_State *L, int lib, const char *name, const char *label) {
    lua_getfield(L, lib, name);
    lua_pushstring(L, label);
    lua_pushcclosure(L, charged_per_argument, 2);
    lua_setfield(L, lib, name);
}

void permit_install_charged_lib(lua_State *L, int base, int string, int table, int utf8) {
    lua_newtable(L); /* the object ids: weak keys, so naming an object does not keep it */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, KEY_OBJECT_IDS);
    lua_createtable(L, 0, 1); /* the guard of a table in use as a metatable */
    lua_pushcfunction(L, guard_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &GUARD_METATABLE);

    charge_with(L, table, "sort", charged_sort);
    charge_with(L, table, "unpack", charged_unpack);
    charge_arguments(L, table, "pack", "table.pack");
    charge_with(L, string, "byte", charged_byte);
    charge_with(L, string, "format", addressless_format);
    charge_with(L, utf8, "len", charged_utf8_len);
    charge_with(L, utf8, "offset", charged_utf8_offset);
    charge_with(L, utf8, "codepoint", charged_utf8_codepoint);
    charge_arguments(L, utf8, "char", "utf8.char");
    lua_pushcfunction(L, display_tostring);
    lua_setfield(L, base, "tostring");
    lua_pushcfunction(L, guarded_setmetatable);
    lua_setfield(L, base, "setmetatable");
    lua_pushcfunction(L, guarded_getmetatable);
    lua_setfield(L, base, "getmetatable");
}
