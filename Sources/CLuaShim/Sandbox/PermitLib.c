/* The `permit` helpers written in C: durations, since, at_least, version_at_least, within_hours,
   copy. */
#include "shim_internal.h"
#include <lauxlib.h>
#include <ctype.h>
#include <math.h>
#include <string.h>

static int scale(lua_State *L, lua_Integer k) {
    if (lua_isinteger(L, 1)) {
        lua_Integer n = lua_tointeger(L, 1);
        if (n <= LUA_MAXINTEGER / k && n >= LUA_MININTEGER / k)
            lua_pushinteger(L, n * k);
        else
            lua_pushnumber(L, (lua_Number)n * (lua_Number)k);
        return 1;
    }
    luaL_checktype(L, 1, LUA_TNUMBER);
    lua_pushnumber(L, lua_tonumber(L, 1) * (lua_Number)k);
    return 1;
}

int permit_shim_minutes(lua_State *L) { return scale(L, 60); }
int permit_shim_hours(lua_State *L) { return scale(L, 3600); }
int permit_shim_days(lua_State *L) { return scale(L, 86400); }

int permit_shim_since(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    if (lua_isnoneornil(L, 2)) {
        lua_pushnumber(L, HUGE_VAL);
        return 1;
    }
    luaL_checktype(L, 2, LUA_TNUMBER);
    if (lua_getfield(L, 1, "now") != LUA_TNUMBER) return luaL_error(L, "permit.since: ctx.now is not a number");
    lua_pushvalue(L, 2);
    lua_arith(L, LUA_OPSUB);
    return 1;
}

/* Reads the next numeric component; leading zeros are skipped so components
   of any length compare by (length, bytes). Returns 0 at the end. */
static int version_component(const char **s, const char **start, size_t *len) {
    const char *p = *s;
    if (!isdigit((unsigned char)*p)) return 0;
    while (*p == '0' && isdigit((unsigned char)p[1])) p++;
    *start = p;
    while (isdigit((unsigned char)*p)) p++;
    *len = (size_t)(p - *start);
    if ((*start)[0] == '0') *len = 0; /* the value zero */
    if (*p == '.' && isdigit((unsigned char)p[1])) p++;
    *s = p;
    return 1;
}

static int compare_versions(const char *a, const char *b) {
    for (;;) {
        const char *sa = "", *sb = "";
        size_t la = 0, lb = 0;
        int ha = version_component(&a, &sa, &la);
        int hb = version_component(&b, &sb, &lb);
        if (!ha && !hb) return 0;
        if (la != lb) return la < lb ? -1 : 1;
        int c = memcmp(sa, sb, la);
        if (c != 0) return c < 0 ? -1 : 1;
    }
}

static int valid_version(const char *s) {
    if (!isdigit((unsigned char)*s)) return 0;
    for (;;) {
        while (isdigit((unsigned char)*s)) s++;
        if (*s == '\0') return 1;
        if (*s != '.' || !isdigit((unsigned char)s[1])) return 0;
        s++;
    }
}

int permit_shim_at_least(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    const char *want = luaL_checkstring(L, 2);
    /* Both versions are walked a byte at a time: each is charged by its length first. */
    permit_shim_charge_input(L, 1 + lua_rawlen(L, 2), "permit.at_least");
    luaL_argcheck(L, valid_version(want), 2, "version like \"12.0\" expected");
    if (lua_getfield(L, 1, "platform") != LUA_TTABLE) return luaL_error(L, "permit.at_least: ctx.platform is not a table");
    if (lua_getfield(L, -1, "version") != LUA_TSTRING)
        return luaL_error(L, "permit.at_least: ctx.platform.version is not a string");
    permit_shim_charge_input(L, 1 + lua_rawlen(L, -1), "permit.at_least");
    lua_pushboolean(L, compare_versions(lua_tostring(L, -1), want) >= 0);
    return 1;
}

/* permit.version_at_least(version, minimum): whether the app version `version` ("2.14.1") is
   `minimum` or later, compared a number at a time ("2.10" is after "2.9"). nil for `version`
   answers false: ctx.app.previous_version is nil but in the first process after an update. */
int permit_shim_version_at_least(lua_State *L) {
    const char *want = luaL_checkstring(L, 2);
    permit_shim_charge_input(L, 1 + lua_rawlen(L, 2), "permit.version_at_least");
    luaL_argcheck(L, valid_version(want), 2, "version like \"2.14\" expected");
    if (lua_isnil(L, 1)) {
        lua_pushboolean(L, 0);
        return 1;
    }
    const char *have = luaL_checkstring(L, 1);
    permit_shim_charge_input(L, 1 + lua_rawlen(L, 1), "permit.version_at_least");
    luaL_argcheck(L, valid_version(have), 1, "version like \"2.14.1\" expected (digits and dots)");
    lua_pushboolean(L, compare_versions(have, want) >= 0);
    return 1;
}

/* The longest key permit.copy looks up; the pack's own keys are no longer (PolicyCopy). */
#define COPY_KEY_MAX 128

/* permit.copy(key [, values]): the pack's texts for `key` as a fresh table of translations
   ({ en = "...", de = "..." }), usable wherever a text goes, each text's placeholders filled
   from `values` ({ app = ctx.app.name }: CopyFill.c). The copy itself lives in the registry,
   where no script reaches it: each call hands out a new table, so a script that changes what
   it got changes nothing the next call sees. An unknown key, or a placeholder no value fills,
   is an error that names it, not a nil or a raw `{app}` that surfaces later in a user's text. */
int permit_shim_copy(lua_State *L) {
    size_t len;
    const char *key = luaL_checklstring(L, 1, &len);
    if (len > COPY_KEY_MAX) return luaL_error(L, "permit.copy: a key is at most %d bytes", COPY_KEY_MAX);
    int values = 0;
    if (!lua_isnoneornil(L, 2)) {
        if (!lua_istable(L, 2))
            return luaL_error(L, "permit.copy(\"%s\"): the values are a table like { app = ctx.app.name }, got a %s", key,
                              luaL_typename(L, 2));
        values = 2;
    }
    lua_settop(L, 2);
    /* A read-only table (ctx.app, ctx.params) is read through: its values are its own table's. */
    if (values != 0) (void)permit_shim_unwrap_frozen(L, values);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, KEY_COPY) != LUA_TTABLE)
        return luaL_error(L, "permit.copy: the pack has no copy; put the texts in copy/<locale>.yaml files beside policy.lua");
    lua_pushvalue(L, 1);
    if (lua_rawget(L, -2) != LUA_TTABLE)
        return luaL_error(L, "permit.copy: no text \"%s\" in the pack's copy (copy/<locale>.yaml)", key);
    int texts = lua_gettop(L);
    if (values != 0) permit_shim_check_copy_values(L, values, key);
    /* Charged by the translations it copies, as the library's other copying functions are, and
       by the bytes it looks through for a brace; a text with one is charged again to be filled. */
    lua_Integer count = 0;
    uint64_t bytes = 0;
    lua_pushnil(L);
    while (lua_next(L, texts)) {
        bytes += lua_rawlen(L, -1);
        lua_pop(L, 1);
        count++;
    }
    permit_shim_charge_input(L, (uint64_t)(1 + count) + bytes / 32, "permit.copy");
    lua_createtable(L, 0, (int)count);
    int result = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, texts)) {
        size_t text_len;
        const char *text = lua_tolstring(L, -1, &text_len);
        if (memchr(text, '{', text_len) != NULL || memchr(text, '}', text_len) != NULL) {
            permit_shim_push_filled(L, text, text_len, values, key, lua_tostring(L, -2));
            lua_remove(L, -2);
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, result);
    }
    return 1;
}

void permit_set_copy(lua_State *L, int ref) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_rawsetp(L, LUA_REGISTRYINDEX, KEY_COPY);
}

/* An hour argument of within_hours: an integer 0–23, or an error that says which and why. */
static lua_Integer hour_argument(lua_State *L, int arg, const char *name) {
    if (!lua_isinteger(L, arg))
        return luaL_error(L, "permit.within_hours: %s must be a whole hour 0-23 (got %s)", name, luaL_typename(L, arg));
    lua_Integer hour = lua_tointeger(L, arg);
    if (hour < 0 || hour > 23)
        return luaL_error(L, "permit.within_hours: %s must be a whole hour 0-23 (got %I)", name, (LUAI_UACINT)hour);
    return hour;
}

/* permit.within_hours(ctx, from_hour, to_hour): whether ctx.local_time.hour is in
   [from_hour, to_hour), wrapping past midnight when from_hour > to_hour, so quiet hours
   "22 to 8" are one call. Equal hours are refused: "from 9 to 9" could mean all day or
   never, and a policy must say which. */
int permit_shim_within_hours(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer from = hour_argument(L, 2, "from_hour");
    lua_Integer to = hour_argument(L, 3, "to_hour");
    if (from == to)
        return luaL_error(L, "permit.within_hours: from_hour and to_hour are both %I; the window would be empty "
                             "(use 0 and 23 with an hour check for a whole day)", (LUAI_UACINT)from);
    if (lua_getfield(L, 1, "local_time") != LUA_TTABLE)
        return luaL_error(L, "permit.within_hours: ctx.local_time is not a table (pass ctx itself)");
    if (lua_getfield(L, -1, "hour") != LUA_TNUMBER || !lua_isinteger(L, -1))
        return luaL_error(L, "permit.within_hours: ctx.local_time.hour is not an integer");
    lua_Integer hour = lua_tointeger(L, -1);
    int inside = from < to ? (hour >= from && hour < to) : (hour >= from || hour < to);
    lua_pushboolean(L, inside);
    return 1;
}
