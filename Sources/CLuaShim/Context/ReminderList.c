/*
 * The bytes of `plan_reminders`' list, so the host can tell an unchanged list without reading it.
 *
 * A policy returns the same window of reminders on nearly every launch and foreground (the
 * same nine tables of the same texts). Reading one into Swift values costs far more than Lua
 * spent building it, so the host writes the list's contents here as bytes, compares them with
 * the bytes of the list it last read, and when they are equal takes that list again.
 *
 * The encoding is exact, never a hash: every table is written as its entries (tagged key and
 * value, strings with their length) between a start and an end mark, in the order `lua_next`
 * walks them, so equal bytes mean equal contents (the same walk order too, which only makes
 * more lists differ). A table seen before in the same list is written as a reference to its
 * first appearance: no Lua code runs during the walk and every table stays reachable from the
 * list, so one address is one content. Anything the reader would treat specially is refused
 * (returns -1, the caller reads the list the ordinary way): a metatable (lazy ctx tables,
 * strict ones, the policy's own), a value that is not a string, number, boolean or table, a
 * table deeper than the list's three levels, more distinct tables than the reference list holds,
 * an encoding over PERMIT_REMINDER_LIST_MAX_BYTES (a string named many times is written each time,
 * so without the cap a small list could ask the host for gigabytes). Raw access only; nothing is
 * allocated and nothing raises.
 */
#include "permit_context.h"
#include "sandbox_guards.h"
#include <string.h>

enum { MAX_TABLES = 512, MAX_DEPTH = 3 };

typedef struct writer {
    uint8_t *out;
    size_t capacity;
    size_t length; /* what the whole encoding needs, even past `capacity` */
    int table_count;
    const void **tables; /* MAX_TABLES, on the caller's stack and not cleared: only [0, table_count) is read */
} writer;

/* Room for `count` more bytes, or NULL once the output is full (the length still counts them). */
static inline uint8_t *room(writer *w, size_t count) {
    size_t at = w->length;
    w->length += count;
    return w->length <= w->capacity ? w->out + at : NULL;
}

static inline void put_tag(writer *w, uint8_t tag) {
    uint8_t *p = room(w, 1);
    if (p) *p = tag;
}

static inline void put_tagged(writer *w, uint8_t tag, const void *bytes, size_t count) {
    uint8_t *p = room(w, 1 + count);
    if (!p) return;
    *p = tag;
    memcpy(p + 1, bytes, count);
}

static int put_table(lua_State *L, writer *w, int idx, int depth);

/* One key or value at `idx` (negative: relative to the top): a tag, then its bytes. */
static int put_value(lua_State *L, writer *w, int idx, int depth) {
    switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        uint8_t *p = room(w, 1 + sizeof len + len);
        if (p) {
            *p = 'S';
            memcpy(p + 1, &len, sizeof len);
            memcpy(p + 1 + sizeof len, s, len);
        }
        return 0;
    }
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) {
            lua_Integer i = lua_tointegerx(L, idx, NULL);
            put_tagged(w, 'I', &i, sizeof i);
        } else {
            /* the bits: -0.0 and 0.0 differ, which only makes more lists differ */
            lua_Number n = lua_tonumberx(L, idx, NULL);
            put_tagged(w, 'F', &n, sizeof n);
        }
        return 0;
    case LUA_TBOOLEAN:
        put_tag(w, lua_toboolean(L, idx) ? 'Y' : 'N');
        return 0;
    case LUA_TTABLE:
        return put_table(L, w, lua_absindex(L, idx), depth + 1);
    default:
        return -1;
    }
}

/* A table seen before in this list is a reference to its first appearance; a new one, its
   entries between 'T' and 'E'. */
static int put_table(lua_State *L, writer *w, int idx, int depth) {
    if (depth > MAX_DEPTH) return -1;
    const void *address = lua_topointer(L, idx);
    for (int i = 0; i < w->table_count; i++) {
        if (w->tables[i] == address) {
            put_tagged(w, 'R', &i, sizeof i);
            return 0;
        }
    }
    if (w->table_count == MAX_TABLES) return -1;
    if (permit_has_script_metatable(L, idx)) return -1;
    w->tables[w->table_count++] = address;
    put_tag(w, 'T');
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (put_value(L, w, -2, depth) < 0 || put_value(L, w, -1, depth) < 0
            || w->length > PERMIT_REMINDER_LIST_MAX_BYTES) {
            lua_pop(L, 2);
            return -1;
        }
        lua_pop(L, 1);
    }
    put_tag(w, 'E');
    return 0;
}

int permit_reminder_list_bytes(lua_State *L, int idx, uint8_t *out, size_t capacity, size_t *length) {
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE || !lua_checkstack(L, 2 * MAX_DEPTH + 2)) return -1;
    const void *tables[MAX_TABLES];
    writer w = {.out = out, .capacity = capacity, .length = 0, .table_count = 0, .tables = tables};
    if (put_table(L, &w, idx, 1) < 0 || w.length > PERMIT_REMINDER_LIST_MAX_BYTES) return -1;
    *length = w.length;
    return 0;
}
