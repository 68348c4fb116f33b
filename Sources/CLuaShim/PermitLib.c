/* The `permit` helpers written in C: durations, since, at_least. */
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

int shim_minutes(lua_State *L) { return scale(L, 60); }
int shim_hours(lua_State *L) { return scale(L, 3600); }
int shim_days(lua_State *L) { return scale(L, 86400); }

int shim_since(lua_State *L) {
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

int shim_at_least(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    const char *want = luaL_checkstring(L, 2);
    luaL_argcheck(L, valid_version(want), 2, "version like \"12.0\" expected");
    if (lua_getfield(L, 1, "platform") != LUA_TTABLE) return luaL_error(L, "permit.at_least: ctx.platform is not a table");
    if (lua_getfield(L, -1, "version") != LUA_TSTRING)
        return luaL_error(L, "permit.at_least: ctx.platform.version is not a string");
    lua_pushboolean(L, compare_versions(lua_tostring(L, -1), want) >= 0);
    return 1;
}
