/* permit.starts_with, ends_with, contains, split and trim: the text work real policies need,
   in place of Lua patterns (which the sandbox does not offer; docs/security.md says why).
   Every helper takes strings only (a number is not silently turned into text), works on
   bytes, and charges the budget by the bytes it reads before it reads them. */
#define _GNU_SOURCE /* memmem */
#include "shim_internal.h"
#include <lauxlib.h>
#include <string.h>

/* The string argument `arg`, refusing anything else with Lua's usual argument error. */
static const char *text_argument(lua_State *L, int arg, size_t *len) {
    if (lua_type(L, arg) != LUA_TSTRING) luaL_typeerror(L, arg, "string");
    return lua_tolstring(L, arg, len);
}

/* One unit, plus one per 64 bytes read (the rate the allocator charges big strings at). */
static void charge_bytes(lua_State *L, size_t bytes, const char *where) {
    permit_shim_charge(L, getvm(L), 1 + (uint64_t)bytes / 64, where);
}

/* The first occurrence of `part` in `s` (both with their lengths), or NULL; "" is found at
   the start. */
static const char *find_text(const char *s, size_t len, const char *part, size_t part_len) {
    if (part_len == 0) return s;
    if (part_len > len) return NULL;
    return (const char *)memmem(s, len, part, part_len);
}

/* permit.starts_with(s, prefix): whether s begins with prefix ("" begins every string). */
int permit_shim_starts_with(lua_State *L) {
    size_t len, plen;
    const char *s = text_argument(L, 1, &len);
    const char *prefix = text_argument(L, 2, &plen);
    charge_bytes(L, plen, "permit.starts_with");
    lua_pushboolean(L, plen <= len && memcmp(s, prefix, plen) == 0);
    return 1;
}

/* permit.ends_with(s, suffix): whether s ends with suffix ("" ends every string). */
int permit_shim_ends_with(lua_State *L) {
    size_t len, slen;
    const char *s = text_argument(L, 1, &len);
    const char *suffix = text_argument(L, 2, &slen);
    charge_bytes(L, slen, "permit.ends_with");
    lua_pushboolean(L, slen <= len && memcmp(s + len - slen, suffix, slen) == 0);
    return 1;
}

/* permit.contains(s, part): whether part occurs in s, as plain text ("" occurs in every
   string). */
int permit_shim_contains(lua_State *L) {
    size_t len, plen;
    const char *s = text_argument(L, 1, &len);
    const char *part = text_argument(L, 2, &plen);
    charge_bytes(L, len + plen, "permit.contains");
    lua_pushboolean(L, find_text(s, len, part, plen) != NULL);
    return 1;
}

/* permit.split(s, sep): the pieces of s between occurrences of the plain text sep, in order,
   as a new array. n separators give n + 1 pieces, so empty pieces are kept: "a,,b" gives
   {"a", "", "b"}, "" gives {""}, "a," gives {"a", ""}. An empty separator is an error (there
   is no sensible place to cut). The pieces are counted first, so the whole work (two passes
   over s, and one string and one array slot per piece) is charged before anything is built. */
int permit_shim_split(lua_State *L) {
    size_t len, slen;
    const char *s = text_argument(L, 1, &len);
    const char *sep = text_argument(L, 2, &slen);
    if (slen == 0) return luaL_argerror(L, 2, "the separator must not be empty");
    charge_bytes(L, len + slen, "permit.split");
    uint64_t pieces = 1;
    for (const char *at = s, *end = s + len, *hit; (hit = find_text(at, (size_t)(end - at), sep, slen)) != NULL;) {
        pieces++;
        at = hit + slen;
    }
    charge_bytes(L, len, "permit.split");
    permit_shim_charge(L, getvm(L), pieces, "permit.split");
    if (pieces > (uint64_t)INT32_MAX) return luaL_error(L, "permit.split: too many pieces");
    lua_createtable(L, (int)pieces, 0);
    const char *at = s, *end = s + len;
    for (lua_Integer i = 1;; i++) {
        const char *hit = find_text(at, (size_t)(end - at), sep, slen);
        size_t piece = hit != NULL ? (size_t)(hit - at) : (size_t)(end - at);
        lua_pushlstring(L, at, piece);
        lua_rawseti(L, -2, i);
        if (hit == NULL) break;
        at = hit + slen;
    }
    return 1;
}

/* The ASCII white space trim removes: space, tab, newline, vertical tab, form feed, carriage
   return. (Not the C library's isspace, whose answer depends on the locale.) */
static int is_blank(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* permit.trim(s): s without leading and trailing ASCII white space. */
int permit_shim_trim(lua_State *L) {
    size_t len;
    const char *s = text_argument(L, 1, &len);
    charge_bytes(L, len, "permit.trim");
    size_t first = 0, last = len;
    while (first < last && is_blank(s[first])) first++;
    while (last > first && is_blank(s[last - 1])) last--;
    lua_pushlstring(L, s + first, last - first);
    return 1;
}
