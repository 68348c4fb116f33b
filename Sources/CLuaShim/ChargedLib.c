/*
 * Library functions whose work happens inside one C call, where the count hook (and so the
 * wall clock) is never consulted: each is charged against the instruction budget before it
 * runs, in units of roughly one VM instruction's time (about 2.5 ns here; the rates below were
 * measured with the red-team battery). The real library function then does the work (we wrap,
 * we do not re-implement).
 *
 * Also here, because they expose or depend on host memory layout:
 *  - tostring, print and string.format's %s name tables, functions and coroutines by a per-VM
 *    counter (`table: #17`) instead of their address; %p is refused;
 *  - setmetatable installs a sealed copy of the metatable: weak tables (__mode) and finalizers
 *    (__gc) are refused, and adding them to the metatable later changes nothing.
 */
#include "sandbox_guards.h"
#include "lazy_context.h"
#include <lauxlib.h>
#include <string.h>

static const char ORIGINAL_METATABLE = 0; /* key (its address) of the original in a sealed copy */
#define KEY_OBJECT_IDS "permit.object_ids"

/* Calls upvalue 1 with this function's arguments and returns all its results. */
static int call_original(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* A string position as Lua's string functions read it (negative counts from the end). */
static lua_Integer string_position(lua_Integer pos, size_t len) {
    if (pos > 0) return pos;
    if (pos == 0) return 1;
    if (pos < -(lua_Integer)len) return 1;
    return (lua_Integer)len + pos + 1;
}

static uint64_t span(lua_Integer first, lua_Integer last) {
    return last >= first ? (uint64_t)((lua_Unsigned)last - (lua_Unsigned)first) + 1 : 0;
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

/* table.sort(t [, comp]): the real sort (upvalue 1) fed through a charged comparison. */
static int charged_sort(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_settop(L, 2);
    lua_Integer n = luaL_len(L, 1);
    if (n > 1) permit_charge_work(L, (uint64_t)n, "table.sort");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, charged_comparison, 1);
    lua_call(L, 2, 0);
    return 0;
}

/* ------------------------------------------------------- values in one call */

/* string.byte(s [, i [, j]]): 4 units per value pushed (about 10 ns each). */
static int charged_byte(lua_State *L) {
    size_t len;
    luaL_checklstring(L, 1, &len);
    lua_Integer first = string_position(luaL_optinteger(L, 2, 1), len);
    lua_Integer last = luaL_optinteger(L, 3, first);
    if (last < 0) last = string_position(last, len);
    if (last > (lua_Integer)len) last = (lua_Integer)len;
    permit_charge_work(L, 1 + 4 * span(first, last), "string.byte");
    return call_original(L);
}

/* table.unpack(t [, i [, j]]): 5 units per value (about 13 ns each). */
static int charged_unpack(lua_State *L) {
    lua_Integer first = luaL_optinteger(L, 2, 1);
    lua_Integer last = lua_isnoneornil(L, 3) ? luaL_len(L, 1) : luaL_checkinteger(L, 3);
    uint64_t values = span(first, last);
    permit_charge_work(L, 1 + (values < (UINT64_MAX / 8) ? 5 * values : values), "table.unpack");
    return call_original(L);
}

/* table.pack(...), utf8.char(...): 16 units per argument (a table slot or a UTF-8 encoding
   each, about 40 ns). */
static int charged_per_argument(lua_State *L) {
    permit_charge_work(L, 1 + 16 * (uint64_t)lua_gettop(L), lua_tostring(L, lua_upvalueindex(2)));
    return call_original(L);
}

/* utf8.len / utf8.offset / utf8.codepoint (subject first): 3 units per byte of the subject
   (decoding takes about 6.5 ns a byte), and for codepoint 4 per value pushed too. */
static int charged_utf8_scan(lua_State *L) {
    size_t len;
    luaL_checklstring(L, 1, &len);
    uint64_t units = 1 + 3 * (uint64_t)len;
    if (lua_toboolean(L, lua_upvalueindex(3))) { /* codepoint: values pushed */
        lua_Integer first = string_position(luaL_optinteger(L, 2, 1), len);
        lua_Integer last = string_position(luaL_optinteger(L, 3, first), len);
        uint64_t values = span(first, last);
        units += values < (UINT64_MAX / 8) ? 4 * values : values;
    }
    permit_charge_work(L, units, lua_tostring(L, lua_upvalueindex(2)));
    return call_original(L);
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
    permit_charge_work(L, 1 + len / 16, "string.format");
    int arg = 1;
    for (size_t i = 0; i < len; i++) {
        if (fmt[i] != '%') continue;
        if (++i < len && fmt[i] == '%') continue;
        while (i < len && strchr("-+ #0123456789.", fmt[i]) != NULL) i++;
        if (i >= len) break;
        arg++;
        if (fmt[i] == 'p') return luaL_error(L, "string.format: '%%p' is not available in the sandbox (it shows host addresses)");
        if (fmt[i] == 's' && arg <= lua_gettop(L) && lua_type(L, arg) != LUA_TSTRING && lua_type(L, arg) != LUA_TNUMBER) {
            permit_push_display_string(L, arg);
            lua_replace(L, arg);
            fmt = lua_tolstring(L, 1, &len); /* still the same string (slot 1 is untouched) */
        }
    }
    return call_original(L);
}

/* ------------------------------------------------------------ metatables */

/* setmetatable(t, mt): installs a copy of mt the script never sees, so __mode, __gc (refused
   here) cannot be added afterwards. The copy remembers the original for getmetatable. */
static int sealed_setmetatable(lua_State *L) {
    int type = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, type == LUA_TNIL || type == LUA_TTABLE, 2, "nil or table");
    lua_settop(L, 2);
    permit_lazy_settle_in_call(L, 1);
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return luaL_error(L, "cannot change a protected metatable");
    if (type == LUA_TNIL) {
        lua_setmetatable(L, 1);
        return 1;
    }
    permit_lazy_settle_in_call(L, 2);
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, 2) != LUA_TNIL) return luaL_error(L, "__gc metamethods are not available in the sandbox");
    lua_pushliteral(L, "__mode");
    if (lua_rawget(L, 2) != LUA_TNIL)
        return luaL_error(L, "weak tables (__mode) are not available in the sandbox: keep strong references "
                             "and drop them by setting the key to nil");
    lua_settop(L, 2);
    lua_newtable(L); /* 3: the copy */
    uint64_t fields = 0;
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, 3);
        fields++;
    }
    permit_charge_work(L, 1 + fields, "setmetatable");
    lua_pushlightuserdata(L, (void *)&ORIGINAL_METATABLE);
    lua_pushvalue(L, 2);
    lua_rawset(L, 3);
    lua_setmetatable(L, 1);
    lua_settop(L, 1);
    return 1;
}

/* getmetatable(v): tables only (the string metatable stays hidden); __metatable when set;
   the original the script gave, not the sealed copy. */
static int sealed_getmetatable(lua_State *L) {
    luaL_checkany(L, 1);
    permit_lazy_settle_in_call(L, 1);
    if (lua_type(L, 1) != LUA_TTABLE || !lua_getmetatable(L, 1)) {
        lua_pushnil(L);
        return 1;
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return 1;
    lua_pushlightuserdata(L, (void *)&ORIGINAL_METATABLE);
    if (lua_rawget(L, -2) == LUA_TNIL) lua_pop(L, 1); /* a metatable the host set: itself */
    return 1;
}

/* ------------------------------------------------------------------- install */

static void charge_with(lua_State *L, int lib, const char *name, lua_CFunction wrapper) {
    lua_getfield(L, lib, name);
    lua_pushcclosure(L, wrapper, 1);
    lua_setfield(L, lib, name);
}

static void charge_scan(lua_State *L, int lib, const char *name, const char *label, int values) {
    lua_getfield(L, lib, name);
    lua_pushstring(L, label);
    lua_pushboolean(L, values);
    lua_pushcclosure(L, charged_utf8_scan, 3);
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

    charge_with(L, table, "sort", charged_sort);
    charge_with(L, table, "unpack", charged_unpack);
    charge_arguments(L, table, "pack", "table.pack");
    charge_with(L, string, "byte", charged_byte);
    charge_with(L, string, "format", addressless_format);
    charge_scan(L, utf8, "len", "utf8.len", 0);
    charge_scan(L, utf8, "offset", "utf8.offset", 0);
    charge_scan(L, utf8, "codepoint", "utf8.codepoint", 1);
    charge_arguments(L, utf8, "char", "utf8.char");
    lua_pushcfunction(L, display_tostring);
    lua_setfield(L, base, "tostring");
    lua_pushcfunction(L, sealed_setmetatable);
    lua_setfield(L, base, "setmetatable");
    lua_pushcfunction(L, sealed_getmetatable);
    lua_setfield(L, base, "getmetatable");
}
