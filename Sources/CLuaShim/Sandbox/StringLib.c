/* The sandbox's string functions. Policies get no Lua patterns (docs/security.md says why):
   `string.find` searches for plain text only, and `match`, `gmatch`, `gsub` and a pattern
   `find` raise an error naming what to use instead. `string.rep` is Lua's own, behind a size
   cap and a charge. */
#define _GNU_SOURCE /* memmem */
#include "shim_internal.h"
#include <lauxlib.h>
#include <string.h>

/* One message for every refusal, so a policy author sees the same advice wherever they hit it. */
#define NO_PATTERNS_ADVICE                                                                                   \
    "Lua patterns are disabled in the sandbox; use permit.starts_with, permit.ends_with, "              \
    "permit.contains, permit.split or permit.trim, or string.find(s, text, 1, true)"

/* The characters that give a Lua pattern meaning beyond its literal text. A `find` whose
   pattern has none of them is a plain search, as it is in Lua. */
static int is_plain_text(const char *p, size_t len) {
    static const char magic[] = "^$*+?.([%-";
    for (size_t i = 0; i < len; i++) {
        if (memchr(magic, p[i], sizeof magic - 1) != NULL) return 0;
    }
    return 1;
}

/* string.match, string.gmatch and string.gsub: the function's name is upvalue 1. */
static int refuse_patterns(lua_State *L) {
    return luaL_error(L, "string.%s is not available in Permit policies: " NO_PATTERNS_ADVICE,
                      lua_tostring(L, lua_upvalueindex(1)));
}

void permit_shim_refuse_patterns(lua_State *L, int lib, const char *name) {
    lib = lua_absindex(L, lib);
    lua_pushstring(L, name);
    lua_pushcclosure(L, refuse_patterns, 1);
    lua_setfield(L, lib, name);
}

/* The manual's rule for `init`: 1 is the first byte, a negative value counts back from the
   end, and anything before the start means the start. Returns the 0-based offset, which may be
   past the end (then nothing is found). */
static size_t start_offset(lua_Integer init, size_t len) {
    if (init >= 1) return (lua_Unsigned)init - 1 > len ? len + 1 : (size_t)(init - 1);
    if (init == 0) return 0;
    lua_Unsigned back = (lua_Unsigned)0 - (lua_Unsigned)init; /* -init without overflow */
    return back >= len ? 0 : len - (size_t)back;
}

/* string.find(s, text [, init [, plain]]): plain text only. memmem runs in time linear in the
   bytes it is given, so the search is charged up front by those bytes. */
int permit_shim_find(lua_State *L) {
    size_t ls, lt;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *text = luaL_checklstring(L, 2, &lt);
    size_t from = start_offset(luaL_optinteger(L, 3, 1), ls);
    if (!lua_toboolean(L, 4) && !is_plain_text(text, lt))
        return luaL_error(L, "string.find with a pattern is not available in Permit policies: " NO_PATTERNS_ADVICE);
    if (from > ls) {
        luaL_pushfail(L);
        return 1;
    }
    size_t rest = ls - from;
    permit_shim_charge(L, getvm(L), 1 + (rest + lt) / 64, "string.find");
    const char *hit = lt == 0 ? s + from : (lt > rest ? NULL : (const char *)memmem(s + from, rest, text, lt));
    if (hit == NULL) {
        luaL_pushfail(L);
        return 1;
    }
    size_t at = (size_t)(hit - s);
    lua_pushinteger(L, (lua_Integer)at + 1);
    lua_pushinteger(L, (lua_Integer)(at + lt));
    return 2;
}

/* string.rep(s, n [, sep]) is Lua's (upvalue 1), after two checks of the size it would build:
   it must fit `max_string` (stock Lua would try to build a string of up to 2^63 bytes), and its
   bytes are charged before the copying starts. Repeating nothing is answered here: Lua's would
   loop n times (up to 2^63) copying nothing. */
int permit_shim_rep(lua_State *L) {
    size_t ls, lsep;
    (void)luaL_checklstring(L, 1, &ls);
    lua_Integer n = luaL_checkinteger(L, 2);
    (void)luaL_optlstring(L, 3, "", &lsep);
    permit_vm *vm = getvm(L);
    if (n <= 0 || (ls == 0 && lsep == 0)) { /* Lua's own would loop n times over nothing */
        lua_pushliteral(L, "");
        return 1;
    }
    {
        /* n copies and n - 1 separators, computed so that nothing overflows. */
        uint64_t copies = (uint64_t)n, max = vm->max_string;
        int fits = (ls == 0 || copies <= max / ls) && (lsep == 0 || copies - 1 <= max / lsep);
        uint64_t total = fits ? copies * ls + (copies - 1) * lsep : 0;
        if (!fits || total > max)
            return permit_shim_raise_guard(L, PERMIT_E_STRING_SIZE,
                                    "string.rep: resulting string too large (the limit is %I bytes)", (LUAI_UACINT)max);
        permit_shim_charge(L, vm, 1 + (total + copies) / 64, "string.rep"); /* the bytes, and one copy call each */
    }
    return permit_run_original(L);
}
