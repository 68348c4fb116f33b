/* How print and permit.log show a table: `{1, 2, a = 1, b = {…}}`, bounded in size and depth,
   keys in a stable order, never a host address.

   A policy author logs a table to see what is in it; `table: #3` says nothing. The form is
   bounded three ways so a log call cannot become expensive: at most TABLE_MAX_ENTRIES entries
   per table are looked at (a larger table shows its first ones and `…`), nested tables are
   shown TABLE_MAX_DEPTH levels deep (deeper ones as `{…}`), and the whole text stops at
   TABLE_MAX_TEXT bytes. Every entry looked at is charged to the instruction budget by the
   caller. Keys are sorted (numbers, then strings, then booleans) and a large table shows its
   smallest keys, because Lua's traversal order of hashed keys changes from run to run with
   its hash seed, and traces are compared in tests.
   A table with a __tostring metamethod is shown as its tostring, as before. */
#include "shim_internal.h"
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#define TABLE_MAX_ENTRIES 32
#define TABLE_MAX_DEPTH 2
#define TABLE_MAX_TEXT 400
#define STRING_MAX_SHOWN 60

typedef struct {
    char text[TABLE_MAX_TEXT + 8];
    size_t len;
    int full;
    uint64_t visited; /* entries looked at: the work to charge */
} shown_text;

static void add(shown_text *out, const char *s, size_t l) {
    if (out->full) return;
    size_t room = TABLE_MAX_TEXT - out->len;
    if (l > room) {
        memcpy(out->text + out->len, s, room);
        out->len += room;
        memcpy(out->text + out->len, "\xE2\x80\xA6", 3); /* … */
        out->len += 3;
        out->full = 1;
        return;
    }
    memcpy(out->text + out->len, s, l);
    out->len += l;
}

static void add_cstring(shown_text *out, const char *s) { add(out, s, strlen(s)); }

/* A Lua identifier (not checked against keywords: `end = 1` reads fine in a log). */
static int is_name(const char *s, size_t l) {
    if (l == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_')) return 0;
    for (size_t i = 1; i < l; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return 0;
    }
    return 1;
}

static int has_tostring(lua_State *L, int idx) {
    if (luaL_getmetafield(L, idx, "__tostring") == LUA_TNIL) return 0;
    lua_pop(L, 1);
    return 1;
}

static void add_table(lua_State *L, int idx, shown_text *out, int depth);

/* One value: strings quoted (long ones cut), tables nested, the rest as tostring shows them. */
static void add_value(lua_State *L, int idx, shown_text *out, int depth) {
    idx = lua_absindex(L, idx);
    int type = lua_type(L, idx);
    if (type == LUA_TSTRING) {
        size_t l;
        const char *s = lua_tolstring(L, idx, &l);
        add(out, "\"", 1);
        if (l > STRING_MAX_SHOWN) {
            add(out, s, STRING_MAX_SHOWN);
            add_cstring(out, "\xE2\x80\xA6");
        } else {
            add(out, s, l);
        }
        add(out, "\"", 1);
    } else if (type == LUA_TTABLE && !has_tostring(L, idx)) {
        add_table(L, idx, out, depth + 1);
    } else {
        permit_push_display_string(L, idx);
        size_t l;
        const char *s = lua_tolstring(L, -1, &l);
        add(out, s, l);
        lua_pop(L, 1);
    }
}

/* The order keys are shown in: numbers by value, then strings, then booleans, then the rest. */
static int key_rank(lua_State *L, int idx) {
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER: return 0;
    case LUA_TSTRING: return 1;
    case LUA_TBOOLEAN: return 2;
    default: return 3;
    }
}

static int key_less(lua_State *L, int a, int b) {
    int ra = key_rank(L, a), rb = key_rank(L, b);
    if (ra != rb) return ra < rb;
    if (ra == 0 || ra == 1) return lua_compare(L, a, b, LUA_OPLT); /* raw for numbers and strings */
    if (ra == 2) return !lua_toboolean(L, a) && lua_toboolean(L, b);
    return 0;
}

/* The smallest `room` keys (in key_less order) of the table at `idx` that are not its 1..n
   sequence, sorted, in a new array table pushed on the stack; `*more` is set when some were
   left out. Every key is looked at (and counted in *visited, which the caller charges), so
   the keys shown do not depend on Lua's traversal order; keeping only `room` of them makes
   that O(entries × room). */
static void push_sorted_keys(lua_State *L, int idx, lua_Integer sequence, int room, int *more, uint64_t *visited) {
    lua_createtable(L, room, 0);
    int keys = lua_gettop(L), count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        lua_pop(L, 1); /* the value */
        (*visited)++;
        if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 && lua_tointeger(L, -1) <= sequence) continue;
        int key = lua_gettop(L);
        if (count == room) {
            *more = 1;
            if (room == 0) continue;
            lua_rawgeti(L, keys, count);
            int smaller = key_less(L, key, -1);
            lua_pop(L, 1);
            if (!smaller) continue;
            count--; /* the largest kept key makes way */
        }
        /* Insert in order: shift larger keys up one place. */
        int j = count;
        for (; j >= 1; j--) {
            lua_rawgeti(L, keys, j);
            if (!key_less(L, key, -1)) {
                lua_pop(L, 1);
                break;
            }
            lua_rawseti(L, keys, j + 1);
        }
        lua_pushvalue(L, key);
        lua_rawseti(L, keys, j + 1);
        count++;
    }
}

static void add_table(lua_State *L, int idx, shown_text *out, int depth) {
    idx = lua_absindex(L, idx);
    if (depth > TABLE_MAX_DEPTH) {
        add_cstring(out, "{\xE2\x80\xA6}");
        return;
    }
    luaL_checkstack(L, 8, "showing a table");
    add(out, "{", 1);
    int shown = 0;
    lua_Integer sequence = 0;
    while (shown < TABLE_MAX_ENTRIES && !out->full) {
        if (lua_rawgeti(L, idx, sequence + 1) == LUA_TNIL) {
            lua_pop(L, 1);
            break;
        }
        out->visited++;
        if (shown++ > 0) add(out, ", ", 2);
        add_value(L, -1, out, depth);
        lua_pop(L, 1);
        sequence++;
    }
    int more = 0;
    if (shown == TABLE_MAX_ENTRIES) {
        more = lua_rawgeti(L, idx, sequence + 1) != LUA_TNIL;
        lua_pop(L, 1);
    }
    if (!more && !out->full) {
        push_sorted_keys(L, idx, sequence, TABLE_MAX_ENTRIES - shown, &more, &out->visited);
        int keys = lua_gettop(L);
        for (lua_Integer i = 1; !out->full; i++) {
            if (lua_rawgeti(L, keys, i) == LUA_TNIL) {
                lua_pop(L, 1);
                break;
            }
            if (shown++ > 0) add(out, ", ", 2);
            size_t l;
            if (lua_type(L, -1) == LUA_TSTRING && is_name(lua_tolstring(L, -1, &l), l)) {
                add(out, lua_tostring(L, -1), l);
            } else {
                add(out, "[", 1);
                add_value(L, -1, out, TABLE_MAX_DEPTH); /* a table as a key is not opened */
                add(out, "]", 1);
            }
            add(out, " = ", 3);
            lua_rawget(L, idx);
            add_value(L, -1, out, depth);
            lua_pop(L, 1);
        }
        lua_pop(L, 1); /* the keys */
    }
    if (more) add_cstring(out, shown > 0 ? ", \xE2\x80\xA6" : "\xE2\x80\xA6");
    add(out, "}", 1);
}

void permit_push_trace_string(lua_State *L, int idx, uint64_t *visited) {
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE || has_tostring(L, idx)) {
        permit_push_display_string(L, idx);
        return;
    }
    shown_text out = {.len = 0, .full = 0, .visited = 0};
    add_table(L, idx, &out, 1);
    *visited += out.visited;
    lua_pushlstring(L, out.text, out.len);
}
