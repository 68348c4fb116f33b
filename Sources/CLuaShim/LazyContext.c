/*
 * ctx fields built on first use.
 *
 * Most decisions read `ctx.event.name` and little else, yet a full ctx is a dozen fresh tables
 * (history and its parts, settings, state, user): building them and collecting them again
 * was most of what an event cost. So the host pushes ctx with its small fields and attaches
 * a snapshot of the rest (plain bytes in a userdata, see permit_lazy_header), and the tables
 * are built from that snapshot the first time the policy can tell they are missing:
 *
 *   - reading or writing an absent key (`__index`, `__newindex` of a metatable every lazy ctx
 *     shares, which no script can reach: getmetatable builds first and then finds none);
 *   - the sandbox functions that bypass metamethods: next, pairs, rawget, rawset,
 *     getmetatable, setmetatable build first;
 *   - the host reading a ctx back (permit_table_has_metatable, used by every reader).
 *
 * Whatever a policy does, it sees the table it would have had with every field present: the
 * same keys, values and fresh tables. The snapshot belongs to its ctx, so a ctx kept past its
 * call still builds its own fields, not the next event's. Building is atomic: every table is
 * made on the stack before ctx changes, so a memory error leaves ctx lazy and intact.
 */
#include "CLuaShim.h"
#include "lazy_context.h"
#include <lauxlib.h>
#include <string.h>

/* Their addresses are the keys: the snapshot's in a lazy ctx, the metatable's in the registry.
   No script can make a light userdata, so neither key can be named from Lua. */
static const char snapshot_key = 0;
static const char metatable_key = 0;

/* The key strings the builder sets, made once per VM (a sequence in the registry): a key is
   then one lua_rawgeti, where lua_setfield with a C string hashed or compared it every time. */
static const char names_key = 0;
enum {
    N_ACCEPTED = 1, N_ANSWERED_AT, N_BUCKET, N_CANCELLED, N_DECLINED, N_DENIED_AT, N_DISMISSED, N_FEATURES,
    N_FIRST_LAUNCH_AT, N_FOREGROUNDS, N_GRANTED, N_HISTORY, N_LAST_ANSWERED_AT, N_LAST_OPENED_AT, N_LAST_PROMPT_AT,
    N_LAST_SHOWN_AT, N_LAST_STATUS, N_LAUNCHES, N_LEGACY_REGISTERED, N_OPENED, N_PROMPTS_TODAY, N_REQUESTED,
    N_SETTINGS, N_SETTINGS_PROMPT, N_SHOWN, N_SOFT_PROMPT, N_STATE, N_STATUS_CHANGED_AT, N_SYSTEM_PROMPT, N_USER,
    N_ALERT, N_BADGE, N_CAR_PLAY, N_CRITICAL_ALERT, N_LOCK_SCREEN, N_NOTIFICATION_CENTER, N_SCHEDULED_DELIVERY,
    N_SOUND, N_TIME_SENSITIVE, N_COUNT
};
static const char *const names[N_COUNT] = {
    NULL, "accepted", "answered_at", "bucket", "cancelled", "declined", "denied_at", "dismissed", "features",
    "first_launch_at", "foregrounds", "granted", "history", "last_answered_at", "last_opened_at", "last_prompt_at",
    "last_shown_at", "last_status", "launches", "legacy_registered", "opened", "prompts_today", "requested",
    "settings", "settings_prompt", "shown", "soft_prompt", "state", "status_changed_at", "system_prompt", "user",
    "alert", "badge", "car_play", "critical_alert", "lock_screen", "notification_center", "scheduled_delivery",
    "sound", "time_sensitive",
};

/* Bounds the C recursion whatever the host's table depth limit. */
#define MAX_DEPTH 200

static int is_lazy(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx)) return 0;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &metatable_key);
    int lazy = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return lazy;
}

typedef struct snapshot {
    const permit_lazy_header *header;
    const permit_lazy_feature *features;
    const permit_lazy_node *nodes; /* of state */
    const char *text;
    int keys;  /* stack index of the host's interned keys (status and setting values) */
    int names; /* stack index of the builder's key names */
} snapshot;

static void damaged(lua_State *L) { (void)luaL_error(L, "internal error: damaged ctx snapshot"); }

static void push_text(lua_State *L, const snapshot *s, uint32_t offset, uint32_t length) {
    if (offset > s->header->text_bytes || length > s->header->text_bytes - offset) damaged(L);
    lua_pushlstring(L, s->text + offset, length);
}

static void push_interned(lua_State *L, const snapshot *s, int32_t index) {
    if (index <= 0 || lua_rawgeti(L, s->keys, index) != LUA_TSTRING) damaged(L);
}

/* t[name] = the value on top (popped), t at -2 below it. */
static void set_top(lua_State *L, const snapshot *s, int name) {
    lua_rawgeti(L, s->names, name);
    lua_insert(L, -2);
    lua_rawset(L, -3);
}

/* t[name] = history[n] (nothing when absent), t at the top. */
static void set_number(lua_State *L, const snapshot *s, int name, int n) {
    if (s->header->absent & (1u << n)) return;
    lua_rawgeti(L, s->names, name);
    lua_pushinteger(L, s->header->history[n]);
    lua_rawset(L, -3);
}

static int present(const snapshot *s, int n) { return (s->header->absent & (1u << n)) ? 0 : 1; }

/* Pushes the value of state node `*at` (a table with its whole subtree), moving `*at` past it. */
static void push_node(lua_State *L, const snapshot *s, uint32_t *at, int depth) {
    if (*at >= s->header->state_nodes || depth > MAX_DEPTH) damaged(L);
    const permit_lazy_node *node = &s->nodes[(*at)++];
    switch (node->type) {
    case PERMIT_LAZY_TABLE: {
        luaL_checkstack(L, 3, "ctx nested too deep");
        if (node->integer < 0 || node->integer > INT32_MAX || node->hash < 0 || node->children < 0) damaged(L);
        lua_createtable(L, (int)node->integer, node->hash);
        for (int32_t child = 0; child < node->children; child++) {
            if (*at >= s->header->state_nodes) damaged(L);
            const permit_lazy_node *item = &s->nodes[*at];
            if (item->key < 0) lua_pushinteger(L, -(lua_Integer)item->key);
            else push_text(L, s, item->key_offset, item->key_length);
            push_node(L, s, at, depth + 1);
            lua_rawset(L, -3);
        }
        break;
    }
    case PERMIT_LAZY_INTEGER: lua_pushinteger(L, node->integer); break;
    case PERMIT_LAZY_NUMBER: lua_pushnumber(L, node->number); break;
    case PERMIT_LAZY_BOOLEAN: lua_pushboolean(L, node->integer != 0); break;
    case PERMIT_LAZY_STRING: push_text(L, s, node->text_offset, node->text_length); break;
    default: damaged(L);
    }
}

static void push_state(lua_State *L, const snapshot *s) {
    uint32_t at = 0;
    push_node(L, s, &at, 1);
    if (at != s->header->state_nodes) damaged(L);
}

static int name_before(const snapshot *s, const permit_lazy_feature *a, const permit_lazy_feature *b) {
    uint32_t n = a->name_length < b->name_length ? a->name_length : b->name_length;
    int order = memcmp(s->text + a->name_offset, s->text + b->name_offset, n);
    return order < 0 || (order == 0 && a->name_length < b->name_length);
}

/* features: one table per feature, inserted in name order (bytewise). */
static void push_features(lua_State *L, const snapshot *s) {
    uint32_t count = s->header->feature_count;
    lua_createtable(L, 0, (int)count);
    int table = lua_gettop(L);
    if (count == 0) return;
    uint32_t few[32];
    uint32_t *order = count <= 32 ? few : (uint32_t *)lua_newuserdatauv(L, count * sizeof(uint32_t), 0);
    for (uint32_t i = 0; i < count; i++) {
        const permit_lazy_feature *f = &s->features[i];
        if (f->name_offset > s->header->text_bytes || f->name_length > s->header->text_bytes - f->name_offset) damaged(L);
        uint32_t j = i;
        while (j > 0 && name_before(s, f, &s->features[order[j - 1]])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (uint32_t i = 0; i < count; i++) {
        const permit_lazy_feature *f = &s->features[order[i]];
        push_text(L, s, f->name_offset, f->name_length);
        int opened_present = (f->absent & 2u) ? 0 : 1, prompt_present = (f->absent & 4u) ? 0 : 1;
        lua_createtable(L, 0, 1 + opened_present + prompt_present);
        if (opened_present) {
            lua_pushinteger(L, f->last_opened_at);
            set_top(L, s, N_LAST_OPENED_AT);
        }
        if (prompt_present) {
            lua_pushinteger(L, f->last_prompt_at);
            set_top(L, s, N_LAST_PROMPT_AT);
        }
        lua_pushinteger(L, f->opened);
        set_top(L, s, N_OPENED);
        lua_rawset(L, table);
    }
    if (order != few) lua_pop(L, 1);
}

/* history, as LuaBridge.history builds it: keys inserted in sorted order, the same size hints. */
static void push_history(lua_State *L, const snapshot *s) {
    const permit_lazy_header *h = s->header;
    luaL_checkstack(L, 8, "ctx");
    lua_createtable(L, 0, 10 + present(s, PERMIT_H_FIRST_LAUNCH_AT) + present(s, PERMIT_H_STATUS_CHANGED_AT) +
                              present(s, PERMIT_H_DENIED_AT));
    set_number(L, s, N_DENIED_AT, PERMIT_H_DENIED_AT);
    push_features(L, s);
    set_top(L, s, N_FEATURES);
    set_number(L, s, N_FIRST_LAUNCH_AT, PERMIT_H_FIRST_LAUNCH_AT);
    set_number(L, s, N_FOREGROUNDS, PERMIT_H_FOREGROUNDS);
    push_interned(L, s, h->last_status);
    set_top(L, s, N_LAST_STATUS);
    set_number(L, s, N_LAUNCHES, PERMIT_H_LAUNCHES);
    lua_pushboolean(L, h->legacy_registered != 0);
    set_top(L, s, N_LEGACY_REGISTERED);
    set_number(L, s, N_PROMPTS_TODAY, PERMIT_H_PROMPTS_TODAY);

    lua_createtable(L, 0, 3 + present(s, PERMIT_H_SETTINGS_LAST_SHOWN_AT));
    set_number(L, s, N_CANCELLED, PERMIT_H_SETTINGS_CANCELLED);
    set_number(L, s, N_LAST_SHOWN_AT, PERMIT_H_SETTINGS_LAST_SHOWN_AT);
    set_number(L, s, N_OPENED, PERMIT_H_SETTINGS_OPENED);
    set_number(L, s, N_SHOWN, PERMIT_H_SETTINGS_SHOWN);
    set_top(L, s, N_SETTINGS_PROMPT);

    lua_createtable(L, 0, 4 + present(s, PERMIT_H_SOFT_LAST_SHOWN_AT) + present(s, PERMIT_H_SOFT_LAST_ANSWERED_AT));
    set_number(L, s, N_ACCEPTED, PERMIT_H_SOFT_ACCEPTED);
    set_number(L, s, N_DECLINED, PERMIT_H_SOFT_DECLINED);
    set_number(L, s, N_DISMISSED, PERMIT_H_SOFT_DISMISSED);
    set_number(L, s, N_LAST_ANSWERED_AT, PERMIT_H_SOFT_LAST_ANSWERED_AT);
    set_number(L, s, N_LAST_SHOWN_AT, PERMIT_H_SOFT_LAST_SHOWN_AT);
    set_number(L, s, N_SHOWN, PERMIT_H_SOFT_SHOWN);
    set_top(L, s, N_SOFT_PROMPT);

    push_state(L, s);
    set_top(L, s, N_STATE);
    set_number(L, s, N_STATUS_CHANGED_AT, PERMIT_H_STATUS_CHANGED_AT);

    lua_createtable(L, 0, 2 + present(s, PERMIT_H_SYSTEM_ANSWERED_AT) + present(s, PERMIT_H_SYSTEM_GRANTED));
    set_number(L, s, N_ANSWERED_AT, PERMIT_H_SYSTEM_ANSWERED_AT);
    if (present(s, PERMIT_H_SYSTEM_GRANTED)) {
        lua_pushboolean(L, h->history[PERMIT_H_SYSTEM_GRANTED] != 0);
        set_top(L, s, N_GRANTED);
    }
    set_number(L, s, N_REQUESTED, PERMIT_H_SYSTEM_REQUESTED);
    set_number(L, s, N_SHOWN, PERMIT_H_SYSTEM_SHOWN);
    set_top(L, s, N_SYSTEM_PROMPT);
}

static void push_settings(lua_State *L, const snapshot *s) {
    lua_createtable(L, 0, PERMIT_S_COUNT);
    for (int i = 0; i < PERMIT_S_COUNT; i++) { /* PERMIT_S_* follow the names' order from N_ALERT */
        push_interned(L, s, s->header->settings[i]);
        set_top(L, s, N_ALERT + i);
    }
}

/* Builds the lazy fields of the lazy ctx at absolute index `idx`. */
static void build(lua_State *L, int idx) {
    int base = lua_gettop(L);
    luaL_checkstack(L, 12, "ctx");
    lua_rawgetp(L, idx, &snapshot_key);
    snapshot s;
    s.header = (const permit_lazy_header *)lua_touserdata(L, -1);
    if (s.header == NULL || s.header->state_nodes == 0) damaged(L);
    s.features = (const permit_lazy_feature *)(s.header + 1);
    s.nodes = (const permit_lazy_node *)(s.features + s.header->feature_count);
    s.text = (const char *)(s.nodes + s.header->state_nodes);
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, s.header->keys_ref) != LUA_TTABLE) damaged(L);
    s.keys = lua_gettop(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &names_key);
    s.names = lua_gettop(L);

    /* Every field on the stack first, in key order: a memory error here leaves ctx untouched. */
    push_history(L, &s);
    push_settings(L, &s);
    push_state(L, &s);
    lua_createtable(L, 0, 1);
    lua_pushinteger(L, s.header->bucket);
    set_top(L, &s, N_BUCKET);

    static const int fields[4] = {N_HISTORY, N_SETTINGS, N_STATE, N_USER};
    for (int field = 0; field < 4; field++) {
        lua_rawgeti(L, s.names, fields[field]);
        lua_pushvalue(L, s.names + 1 + field);
        lua_rawset(L, idx); /* raw: ctx still has the lazy metatable */
    }
    /* Last, so that a failure above leaves a ctx that can still build. */
    lua_pushnil(L);
    lua_rawsetp(L, idx, &snapshot_key);
    lua_pushnil(L);
    lua_setmetatable(L, idx);
    lua_settop(L, base);
}

void permit_lazy_settle_in_call(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (is_lazy(L, idx)) build(L, idx);
}

static int build_protected(lua_State *L) {
    build(L, 1);
    return 0;
}

int permit_lazy_settle(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (!is_lazy(L, idx)) return 0;
    if (!lua_checkstack(L, 3)) return -1;
    lua_pushcfunction(L, build_protected);
    lua_pushvalue(L, idx);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        lua_pop(L, 1);
        return -1;
    }
    return 1;
}

static int lazy_index(lua_State *L) {
    build(L, 1);
    lua_settop(L, 2);
    lua_rawget(L, 1);
    return 1;
}

static int lazy_newindex(lua_State *L) {
    build(L, 1);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 0;
}

void permit_lazy_install(lua_State *L) {
    lua_createtable(L, N_COUNT - 1, 0);
    for (int n = 1; n < N_COUNT; n++) {
        lua_pushstring(L, names[n]);
        lua_rawseti(L, -2, n);
    }
    lua_rawsetp(L, LUA_REGISTRYINDEX, &names_key);

    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, lazy_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, lazy_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &metatable_key);
}

void *permit_lazy_attach(lua_State *L, int ctx, size_t bytes) {
    ctx = lua_absindex(L, ctx);
    if (!lua_checkstack(L, 2)) return NULL;
    void *memory = lua_newuserdatauv(L, bytes, 0);
    lua_rawsetp(L, ctx, &snapshot_key);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &metatable_key);
    lua_setmetatable(L, ctx);
    return memory;
}
