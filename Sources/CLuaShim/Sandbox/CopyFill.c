/* Filling the placeholders of the pack's copy for permit.copy(key, values): `{app}` becomes the
   value named app, `{{` and `}}` a brace (the grammar of PermitCore's CopyPlaceholders, which
   refuses a text with a brace out of place before it reaches the VM).

   Bounds: the walk over a text is charged by its length before it starts, and each placeholder
   by the lookup and append it costs, so the work of one call is bounded by the texts it reads;
   the bytes it writes are charged where they are allocated (the buffer grows to hold them, and
   Allocator.c charges work by what it allocates), as for every string the script builds. */
#include "shim_internal.h"
#include <lauxlib.h>
#include <string.h>

/* The most bytes of a placeholder's name an error message quotes. */
#define NAME_SHOWN_MAX 64

/* Units a placeholder costs besides the bytes of its text: interning its name, a raw get and
   an append, about 50 ns (a unit is about one VM instruction, 2.5 ns). */
#define PLACEHOLDER_UNITS 20

static int is_name_byte(unsigned char c, int first) {
    return (c >= 'a' && c <= 'z') || c == '_' || (!first && c >= '0' && c <= '9');
}

/* Pushes a placeholder's name as a string, cut to NAME_SHOWN_MAX bytes, for a message. */
static const char *shown_name(lua_State *L, const char *name, size_t len) {
    return lua_pushlstring(L, name, len < NAME_SHOWN_MAX ? len : NAME_SHOWN_MAX);
}

void permit_shim_check_copy_values(lua_State *L, int values, const char *key) {
    permit_vm *vm = getvm(L);
    lua_pushnil(L);
    while (lua_next(L, values)) {
        permit_shim_charge(L, vm, 1, "permit.copy");
        if (lua_type(L, -2) != LUA_TSTRING)
            luaL_error(L, "permit.copy(\"%s\"): the values are named, like { app = ctx.app.name }; a key of the table is a %s",
                       key, luaL_typename(L, -2));
        int type = lua_type(L, -1);
        if (type != LUA_TSTRING && type != LUA_TNUMBER) {
            size_t len;
            const char *name = lua_tolstring(L, -2, &len);
            const char *kind = luaL_typename(L, -1);
            luaL_error(L, "permit.copy(\"%s\"): the value of {%s} is a %s; give a string or a number", key,
                       shown_name(L, name, len), kind);
        }
        lua_pop(L, 1);
    }
}

/* Raises the error of a text whose braces are out of place: PolicyCopy refuses such a text, so
   this is reached only if the copy was set some other way. */
static int brace_error(lua_State *L, const char *key, const char *locale) {
    return luaL_error(L, "permit.copy(\"%s\"): the %s text has a brace that starts no placeholder; write {{ or }} for a brace",
                      key, locale);
}

void permit_shim_push_filled(lua_State *L, const char *text, size_t len, int values, const char *key, const char *locale) {
    permit_vm *vm = getvm(L);
    permit_shim_charge_input(L, 1 + (uint64_t)len, "permit.copy");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t i = 0;
    while (i < len) {
        size_t run = i;
        while (run < len && text[run] != '{' && text[run] != '}') run++;
        luaL_addlstring(&b, text + i, run - i);
        if (run == len) break;
        char brace = text[run];
        if (run + 1 < len && text[run + 1] == brace) { /* {{ or }}: the brace itself */
            luaL_addchar(&b, brace);
            i = run + 2;
            continue;
        }
        if (brace == '}') return (void)brace_error(L, key, locale);
        size_t start = run + 1, end = start;
        while (end < len && is_name_byte((unsigned char)text[end], end == start)) end++;
        if (end == start || end == len || text[end] != '}') return (void)brace_error(L, key, locale);
        int found = LUA_TNIL;
        if (values != 0) {
            lua_pushlstring(L, text + start, end - start);
            found = lua_rawget(L, values);
        }
        if (found != LUA_TSTRING && found != LUA_TNUMBER) {
            /* No value: nil, or none given (a value of another type was refused beforehand). */
            const char *name = shown_name(L, text + start, end - start);
            luaL_error(L, "permit.copy(\"%s\"): the %s text has {%s}, which no value fills; pass it: "
                          "permit.copy(\"%s\", { %s = ... })", key, locale, name, key, name);
        }
        permit_shim_charge(L, vm, PLACEHOLDER_UNITS, "permit.copy");
        luaL_addvalue(&b); /* a number is written as its numeral */
        i = end + 1;
    }
    luaL_pushresult(&b);
}
