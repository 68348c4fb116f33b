/* The `permit` helpers written in C: durations, since, at_least, within_hours. */
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
