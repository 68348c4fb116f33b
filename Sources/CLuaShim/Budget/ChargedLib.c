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
 *    counter (`table: #17`) instead of their address; %p is refused.
 * (setmetatable and getmetatable are Metatables.c's.)
 */
#include "shim_internal.h"
#include "lazy_context.h"
#include <lauxlib.h>
#include <string.h>

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
    permit_install_metatables(L, base);
}
