/*
 * ctx fields built on first use.
 *
 * Most decisions read `ctx.event.name` and little else, yet a full ctx is a dozen fresh tables
 * (history and its parts, settings, state, user): building them and collecting them again
 * was most of what an event cost. So the host pushes ctx with its small fields, and each of
 * the rest is built when the policy first reads it, from a snapshot (plain bytes in a
 * userdata, see permit_lazy_header). Two tables are lazy this way:
 * ctx (history, settings, state, user, local_time) and history (events, features, settings_prompt,
 * soft_prompt, state, system_prompt, and its own values: launches, denied_at, ...). A policy
 * that reads `ctx.history.soft_prompt.shown` builds two tables, not fourteen, and sets none of
 * the ledger's other numbers.
 *
 * The snapshot itself is made on the first read of a lazy field, during the call: until then
 * ctx has none, the VM knows the call's ctx by its address, and the host's source
 * (permit_ctx_fields.source) is valid only while that call lasts. Most events read none of
 * these fields, and writing the snapshot cost more than the policy's own work on them.
 *
 *   - Reading a lazy key builds its value (`__index` of a metatable lazy tables share, which
 *     no script can reach: getmetatable settles first and then finds none); writing one first
 *     (`__newindex`) just marks it set, as it would replace the value anyway.
 *   - The sandbox functions that bypass metamethods (next, pairs, rawget, rawset,
 *     getmetatable, setmetatable) settle the table first: every field built, the metatable gone.
 *   - The host settles a table before reading it back (permit_settle_then_has_metatable, used by
 *     every reader).
 *
 * Whatever a policy does, it sees the table it would have had with every field present: the
 * same keys, values and fresh tables (only the order `next` walks them in may differ, which
 * Lua leaves unspecified). The snapshot belongs to its ctx, so a ctx kept past its call still
 * holds its own event's values, never the next one's: what the policy read during the call
 * stays readable, and a field first read after the call has returned is an error that says
 * so (its source is gone; the snapshot made during the call stops building then too, so the
 * rule does not depend on which other field was read). Building is atomic per key: a value is
 * made on the stack before its table changes, and a key is marked built in the same step as it is set,
 * so a memory error at any point leaves each lazy key either set and marked or absent and lazy
 * (LazyContextAtomicityTests fails an allocation at every step to hold this).
 */
#include "permit_context.h"
#include "lazy_context.h"
#include "shim_internal.h"
#include "permit_test_hooks.h"
#include <lauxlib.h>
#include <string.h>

/* Its address is the snapshot's key in a lazy table. No script can make a light userdata, so
   it cannot be named from Lua. The metatables and the key names live in registry slots kept in
   the VM's state (permit_vm: an array read, on every event). */
static const char snapshot_key = 0;

/* What a lazy table is, by its metatable; its lazy keys, by bit. */
enum { NOT_LAZY, LAZY_CTX, LAZY_HISTORY };
enum { C_HISTORY, C_SETTINGS, C_STATE, C_USER, C_LOCAL_TIME, C_CAPABILITIES, C_LOCALE, C_PLATFORM, C_APP, C_COUNT };
enum {
    H_EVENTS, H_FEATURES, H_INFORM, H_SETTINGS_PROMPT, H_SOFT_PROMPT, H_STATE, H_SYSTEM_PROMPT,
    /* history's own values: most policies read none of them */
    H_DENIED_AT, H_FIRST_LAUNCH_AT, H_FOREGROUNDS, H_LAST_STATUS, H_LAUNCHES, H_LEGACY_REGISTERED, H_PROMPTS_TODAY,
    H_STATUS_CHANGED_AT, H_COUNT
};

/* The key names the builder sets (N_*, lazy_names), generated from ContextSchema. */
#include "lazy_names.generated.h"
_Static_assert(N_TIME_SENSITIVE == N_ALERT + PERMIT_S_COUNT - 1, "ctx.settings' names are contiguous, in PERMIT_S_* order");
_Static_assert(N_NAME_COUNT <= LAZY_NAME_SLOTS, "permit_vm.lazy_name_text holds every key name");
_Static_assert(PERMIT_H_COUNT <= 32, "permit_lazy_header.absent has one bit for each history number");

/* Bounds the C recursion whatever the host's table depth limit. */
#define MAX_DEPTH 200

/* By the metatable's address: the two lazy metatables stay in the registry for the VM's life,
   so no other table can have their addresses. */
static int lazy_kind(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx)) return NOT_LAZY;
    const void *metatable = lua_topointer(L, -1);
    lua_pop(L, 1);
    const permit_vm *vm = getvm(L);
    if (metatable == vm->lazy_metatable[LAZY_CTX - 1]) return LAZY_CTX;
    if (metatable == vm->lazy_metatable[LAZY_HISTORY - 1]) return LAZY_HISTORY;
    return NOT_LAZY;
}

/* Pushes the lazy metatable of `kind`. */
static void push_lazy_metatable(lua_State *L, int kind) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, getvm(L)->lazy_metatable_ref[kind - 1]);
}

typedef struct snapshot {
    permit_lazy_header *header; /* `built` changes as fields are built */
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
    if (at != s->header->arms_node) damaged(L);
}

/* user: the bucket, and the arms (a table of strings) from the nodes after state's. */
static void push_user(lua_State *L, const snapshot *s) {
    luaL_checkstack(L, 4, "ctx");
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, s->header->bucket);
    set_top(L, s, N_BUCKET);
    uint32_t at = s->header->arms_node;
    push_node(L, s, &at, 2);
    if (at != s->header->state_nodes) damaged(L);
    set_top(L, s, N_ARMS);
    permit_strict_set(L, -1, PERMIT_STRICT_USER);
}

/* Whether feature `a`'s name sorts strictly before `b`'s (bytewise, a prefix first). Adds the
   comparison's charge to `*units`: one unit plus the shorter length / 32, as table.sort's
   comparisons are charged (ChargedLib.c). */
static int name_before(const snapshot *s, const permit_lazy_feature *a, const permit_lazy_feature *b,
                       uint64_t *units) {
    uint32_t n = a->name_length < b->name_length ? a->name_length : b->name_length;
    *units += 1 + n / 32;
    int order = memcmp(s->text + a->name_offset, s->text + b->name_offset, n);
    return order < 0 || (order == 0 && a->name_length < b->name_length);
}

/* One pass of the merge sort: merges each pair of sorted runs of `width` in `from` into `to`;
   returns the pass's charge. The right run's head goes first only when strictly before: equal
   names keep their order. */
static uint64_t merge_pass(const snapshot *s, const uint32_t *from, uint32_t *to, uint32_t count, uint64_t width) {
    uint64_t units = 0;
    for (uint64_t lo = 0; lo < count; lo += 2 * width) {
        uint64_t mid = lo + width < count ? lo + width : count;
        uint64_t hi = lo + 2 * width < count ? lo + 2 * width : count;
        uint64_t a = lo, b = mid, k = lo;
        while (a < mid && b < hi) {
            if (name_before(s, &s->features[from[b]], &s->features[from[a]], &units)) to[k++] = from[b++];
            else to[k++] = from[a++];
        }
        while (a < mid) to[k++] = from[a++];
        while (b < hi) to[k++] = from[b++];
    }
    return units;
}

/* Sorts `order` (feature indices) by name with a bottom-up merge sort: n log n comparisons,
   so a ledger with many features costs what its size warrants (an insertion sort here was
   quadratic, in one C call the budget never saw). Stable; `spare` holds `count` slots. Inside
   a call each pass's comparisons are charged to the budget as they are made
   (BoundaryTests.manyFeaturesAreChargedAsAMergeSort holds the total within n log n); the host
   settling a ctx it reads back after the call is not charged, as its allocations are not. */
static void sort_by_name(lua_State *L, const snapshot *s, uint32_t *order, uint32_t *spare, uint32_t count) {
    uint32_t *from = order, *to = spare;
    int charged = permit_in_call(L);
    for (uint64_t width = 1; width < count; width *= 2) {
        uint64_t units = merge_pass(s, from, to, count, width);
        if (charged) permit_charge_work(L, units, "building ctx.history.features");
        uint32_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != order) memcpy(order, from, (size_t)count * sizeof *order);
}

/* The order of `count` records from `records` by name (bytewise), in `order` (pushed as a
   userdata when more than fit in `few`; the caller pops it when `order != few`). */
static uint32_t *sorted_records(lua_State *L, const snapshot *s, const permit_lazy_feature *records, uint32_t count,
                                uint32_t *few) {
    uint32_t *order =
        count <= 32 ? few : (uint32_t *)lua_newuserdatauv(L, (size_t)count * 2 * sizeof(uint32_t), 0);
    for (uint32_t i = 0; i < count; i++) {
        const permit_lazy_feature *f = &records[i];
        if (f->name_offset > s->header->text_bytes || f->name_length > s->header->text_bytes - f->name_offset) damaged(L);
        order[i] = i;
    }
    /* The features' sorter compares its snapshot's records: a view whose records are these. */
    snapshot view = *s;
    view.features = records;
    sort_by_name(L, &view, order, order + count, count);
    return order;
}

/* events: one table per event name ({count, last_at}), inserted in name order. */
static void push_events(lua_State *L, const snapshot *s) {
    uint32_t count = s->header->event_count;
    lua_createtable(L, 0, (int)count);
    int table = lua_gettop(L);
    permit_strict_set(L, table, PERMIT_STRICT_EVENTS);
    if (count == 0) return;
    const permit_lazy_feature *records = s->features + s->header->feature_count;
    uint32_t few[64];
    uint32_t *order = sorted_records(L, s, records, count, few);
    for (uint32_t i = 0; i < count; i++) {
        const permit_lazy_feature *e = &records[order[i]];
        push_text(L, s, e->name_offset, e->name_length);
        int at_present = (e->absent & 2u) ? 0 : 1;
        lua_createtable(L, 0, 1 + at_present);
        lua_pushinteger(L, e->opened);
        set_top(L, s, N_COUNT);
        if (at_present) {
            lua_pushinteger(L, e->last_opened_at);
            set_top(L, s, N_LAST_AT);
        }
        permit_strict_set(L, -1, PERMIT_STRICT_EVENT_HISTORY);
        lua_rawset(L, table);
    }
    if (order != few) lua_pop(L, 1);
}

/* features: one table per feature, inserted in name order (bytewise). */
static void push_features(lua_State *L, const snapshot *s) {
    uint32_t count = s->header->feature_count;
    lua_createtable(L, 0, (int)count);
    int table = lua_gettop(L);
    if (count == 0) return;
    uint32_t few[64];
    uint32_t *order =
        count <= 32 ? few : (uint32_t *)lua_newuserdatauv(L, (size_t)count * 2 * sizeof(uint32_t), 0);
    for (uint32_t i = 0; i < count; i++) {
        const permit_lazy_feature *f = &s->features[i];
        if (f->name_offset > s->header->text_bytes || f->name_length > s->header->text_bytes - f->name_offset) damaged(L);
        order[i] = i;
    }
    sort_by_name(L, s, order, order + count, count);
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
        permit_strict_set(L, -1, PERMIT_STRICT_FEATURE);
        lua_rawset(L, table);
    }
    if (order != few) lua_pop(L, 1);
}

static void push_settings_prompt(lua_State *L, const snapshot *s) {
    lua_createtable(L, 0, 6 + present(s, PERMIT_H_SETTINGS_LAST_SHOWN_AT));
    set_number(L, s, N_CANCELLED, PERMIT_H_SETTINGS_CANCELLED);
    set_number(L, s, N_INLINE_ACTED, PERMIT_H_SETTINGS_INLINE_ACTED);
    set_number(L, s, N_INLINE_SHOWN, PERMIT_H_SETTINGS_INLINE_SHOWN);
    set_number(L, s, N_LAST_SHOWN_AT, PERMIT_H_SETTINGS_LAST_SHOWN_AT);
    set_number(L, s, N_LINKS, PERMIT_H_SETTINGS_LINKS);
    set_number(L, s, N_OPENED, PERMIT_H_SETTINGS_OPENED);
    set_number(L, s, N_SHOWN, PERMIT_H_SETTINGS_SHOWN);
    permit_strict_set(L, -1, PERMIT_STRICT_SETTINGS_PROMPT);
}

static void push_inform(lua_State *L, const snapshot *s) {
    lua_createtable(L, 0, 5 + present(s, PERMIT_H_INFORM_LAST_SHOWN_AT));
    set_number(L, s, N_DISMISSED, PERMIT_H_INFORM_DISMISSED);
    set_number(L, s, N_LAST_SHOWN_AT, PERMIT_H_INFORM_LAST_SHOWN_AT);
    set_number(L, s, N_LINKS, PERMIT_H_INFORM_LINKS);
    set_number(L, s, N_OK, PERMIT_H_INFORM_OK);
    set_number(L, s, N_OPENED, PERMIT_H_INFORM_OPENED);
    set_number(L, s, N_SHOWN, PERMIT_H_INFORM_SHOWN);
    permit_strict_set(L, -1, PERMIT_STRICT_INFORM);
}

static void push_soft_prompt(lua_State *L, const snapshot *s) {
    lua_createtable(L, 0, 7 + present(s, PERMIT_H_SOFT_LAST_SHOWN_AT) + present(s, PERMIT_H_SOFT_LAST_ANSWERED_AT));
    set_number(L, s, N_ACCEPTED, PERMIT_H_SOFT_ACCEPTED);
    set_number(L, s, N_DECLINED, PERMIT_H_SOFT_DECLINED);
    set_number(L, s, N_DISMISSED, PERMIT_H_SOFT_DISMISSED);
    set_number(L, s, N_INLINE_ACTED, PERMIT_H_SOFT_INLINE_ACTED);
    set_number(L, s, N_INLINE_SHOWN, PERMIT_H_SOFT_INLINE_SHOWN);
    set_number(L, s, N_LAST_ANSWERED_AT, PERMIT_H_SOFT_LAST_ANSWERED_AT);
    set_number(L, s, N_LAST_SHOWN_AT, PERMIT_H_SOFT_LAST_SHOWN_AT);
    set_number(L, s, N_LINKS, PERMIT_H_SOFT_LINKS);
    set_number(L, s, N_SHOWN, PERMIT_H_SOFT_SHOWN);
    permit_strict_set(L, -1, PERMIT_STRICT_SOFT_PROMPT);
}

static void push_system_prompt(lua_State *L, const snapshot *s) {
    lua_createtable(L, 0, 2 + present(s, PERMIT_H_SYSTEM_ANSWERED_AT) + present(s, PERMIT_H_SYSTEM_GRANTED));
    set_number(L, s, N_ANSWERED_AT, PERMIT_H_SYSTEM_ANSWERED_AT);
    if (present(s, PERMIT_H_SYSTEM_GRANTED)) {
        lua_pushboolean(L, s->header->history[PERMIT_H_SYSTEM_GRANTED] != 0);
        set_top(L, s, N_GRANTED);
    }
    set_number(L, s, N_REQUESTED, PERMIT_H_SYSTEM_REQUESTED);
    set_number(L, s, N_SHOWN, PERMIT_H_SYSTEM_SHOWN);
    permit_strict_set(L, -1, PERMIT_STRICT_SYSTEM_PROMPT);
}

/* history, every field of it built on first use: its tables and its values alike (a policy
   reading `ctx.history.soft_prompt` pays for none of the ledger's other numbers). Sized for
   every key (LuaBridge.history's hint) plus the snapshot's, so no field it builds grows it. The
   snapshot's userdata is at `ud`. */
static void push_history(lua_State *L, const snapshot *s, int ud) {
    luaL_checkstack(L, 4, "ctx");
    lua_createtable(L, 0, 13 + present(s, PERMIT_H_FIRST_LAUNCH_AT) + present(s, PERMIT_H_STATUS_CHANGED_AT) +
                              present(s, PERMIT_H_DENIED_AT));
    lua_pushvalue(L, ud);
    lua_rawsetp(L, -2, &snapshot_key);
    push_lazy_metatable(L, LAZY_HISTORY);
    lua_setmetatable(L, -2);
}

/* One of history's own values (nil when the ledger has none). */
static void push_history_value(lua_State *L, const snapshot *s, int key) {
    static const int numbers[H_COUNT] = {
        [H_DENIED_AT] = PERMIT_H_DENIED_AT, [H_FIRST_LAUNCH_AT] = PERMIT_H_FIRST_LAUNCH_AT,
        [H_FOREGROUNDS] = PERMIT_H_FOREGROUNDS, [H_LAUNCHES] = PERMIT_H_LAUNCHES,
        [H_PROMPTS_TODAY] = PERMIT_H_PROMPTS_TODAY, [H_STATUS_CHANGED_AT] = PERMIT_H_STATUS_CHANGED_AT,
    };
    switch (key) {
    case H_LAST_STATUS: push_interned(L, s, s->header->last_status); break;
    case H_LEGACY_REGISTERED: lua_pushboolean(L, s->header->legacy_registered != 0); break;
    default:
        if (present(s, numbers[key])) lua_pushinteger(L, s->header->history[numbers[key]]);
        else lua_pushnil(L);
    }
}

static void push_settings(lua_State *L, const snapshot *s) {
    lua_createtable(L, 0, PERMIT_S_COUNT);
    for (int i = 0; i < PERMIT_S_COUNT; i++) { /* PERMIT_S_* follow the names' order from N_ALERT */
        push_interned(L, s, s->header->settings[i]);
        set_top(L, s, N_ALERT + i);
    }
    permit_strict_set(L, -1, PERMIT_STRICT_SETTINGS);
}

/* local_time: the wall clock in the device's zone, worked out by the host. */
static void push_local_time(lua_State *L, const snapshot *s) {
    const permit_lazy_header *h = s->header;
    if (h->local_date_length > UINT32_MAX - h->local_text_offset) damaged(L);
    lua_createtable(L, 0, 5);
    push_text(L, s, h->local_text_offset, h->local_date_length);
    set_top(L, s, N_DATE);
    lua_pushinteger(L, h->local_hour);
    set_top(L, s, N_HOUR);
    lua_pushinteger(L, h->local_minute);
    set_top(L, s, N_MINUTE);
    push_text(L, s, h->local_text_offset + h->local_date_length, h->local_zone_length);
    set_top(L, s, N_TIMEZONE);
    lua_pushinteger(L, h->local_weekday);
    set_top(L, s, N_WEEKDAY);
    permit_strict_set(L, -1, PERMIT_STRICT_LOCAL_TIME);
}

static const int ctx_names[C_COUNT] = {
    N_HISTORY, N_SETTINGS, N_STATE, N_USER, N_LOCAL_TIME, N_CAPABILITIES, N_LOCALE, N_PLATFORM, N_APP};

/* A stored value of the list the snapshot's userdata (at `ud`) holds as its user value:
   the host keeps these tables between calls, and the list keeps them for this ctx. */
static void push_shared(lua_State *L, int ud, int position, int type) {
    if (lua_getiuservalue(L, ud, 1) != LUA_TTABLE || lua_rawgeti(L, -1, position) != type) damaged(L);
    lua_remove(L, -2);
}
static const int history_names[H_COUNT] = {
    N_EVENTS, N_FEATURES, N_INFORM, N_SETTINGS_PROMPT, N_SOFT_PROMPT, N_STATE, N_SYSTEM_PROMPT, N_DENIED_AT, N_FIRST_LAUNCH_AT,
    N_FOREGROUNDS, N_LAST_STATUS, N_LAUNCHES, N_LEGACY_REGISTERED, N_PROMPTS_TODAY, N_STATUS_CHANGED_AT};

/* The call a ctx belongs to has returned and the policy reads a part of it that was not read
   during the call: the host's source for it is gone, so this is the policy's error (a kept ctx
   keeps what was read of it, docs/reference/policy.md "ctx"). */
static void expired(lua_State *L, const char *path, const char *name, const char *verb) {
    permit_shim_push_where(L);
    lua_pushfstring(L,
                    "%s%s %s after its call returned: ctx keeps only what was read of it during the call; "
                    "keep the values you need, not ctx",
                    path, name, verb);
    lua_concat(L, 2);
    (void)lua_error(L);
}

/* Whether the ctx at absolute `idx`, which has no snapshot yet, is the one of the call that
   runs: the VM keeps its address while the call lasts. A ctx kept from an earlier call is
   still alive, so no other table can have its address. */
static int is_current(lua_State *L, int idx) {
    const permit_vm *vm = getvm(L);
    return vm->lazy_ctx != NULL && lua_topointer(L, idx) == vm->lazy_ctx;
}

/* The snapshot of the ctx at absolute `idx`, made now from the host's source, replacing the
   nil on top. The userdata is made before ctx changes, so a memory error leaves ctx without
   one (a later read tries again). */
static void make_snapshot(lua_State *L, int idx, const char *path, const char *name, const char *verb) {
    permit_vm *vm = getvm(L);
    if (!is_current(L, idx)) expired(L, path, name, verb);
    size_t bytes = vm->lazy_measure(vm->lazy_source);
    if (bytes < sizeof(permit_lazy_header)) damaged(L);
    lua_pop(L, 1);
    void *memory = lua_newuserdatauv(L, bytes, vm->lazy_shared > 0 ? 1 : 0);
    if (vm->lazy_shared > 0) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, vm->lazy_shared);
        lua_setiuservalue(L, -2, 1);
    }
    vm->lazy_write(vm->lazy_source, memory);
    ((permit_lazy_header *)memory)->serial = vm->lazy_serial;
    lua_pushvalue(L, -1);
    lua_rawsetp(L, idx, &snapshot_key);
}

/* Opens the snapshot of the lazy table of `kind` at absolute index `idx` (made first if ctx
   has none yet, for lazy key `key` or for every key when -1): pushes its userdata, the
   interned keys and the key names (3 slots; `s->names` is the top). */
static void open_snapshot(lua_State *L, int idx, int kind, int key, snapshot *s) {
    luaL_checkstack(L, 8, "ctx");
    if (lua_rawgetp(L, idx, &snapshot_key) == LUA_TNIL && kind == LAZY_CTX) {
        /* only ctx is made without one: history is made from a snapshot */
        if (key < 0) make_snapshot(L, idx, "ctx", "", "is iterated");
        else make_snapshot(L, idx, "ctx.", lazy_names[ctx_names[key]], "is read");
    }
    s->header = (permit_lazy_header *)lua_touserdata(L, -1);
    if (s->header == NULL || lua_rawlen(L, -1) < sizeof(permit_lazy_header) || s->header->arms_node == 0 ||
        s->header->arms_node >= s->header->state_nodes)
        damaged(L);
    /* The counts come from the host: the userdata must hold what they say (in 64 bits, which
       32-bit counts times the record sizes cannot overflow). */
    uint64_t needed = (uint64_t)sizeof(permit_lazy_header) +
                      ((uint64_t)s->header->feature_count + s->header->event_count) * sizeof(permit_lazy_feature) +
                      (uint64_t)s->header->state_nodes * sizeof(permit_lazy_node) + (uint64_t)s->header->text_bytes;
    if (needed > (uint64_t)lua_rawlen(L, -1)) damaged(L);
    s->features = (const permit_lazy_feature *)(s->header + 1);
    s->nodes = (const permit_lazy_node *)(s->features + s->header->feature_count + s->header->event_count);
    s->text = (const char *)(s->nodes + s->header->state_nodes);
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, s->header->keys_ref) != LUA_TTABLE) damaged(L);
    s->keys = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, getvm(L)->lazy_names_ref);
    s->names = lua_gettop(L);
}

/* Pushes the value of lazy key `key` of a table of `kind`; the snapshot's userdata is at `ud`. */
static void push_field(lua_State *L, const snapshot *s, int kind, int key, int ud) {
    const permit_vm *vm = getvm(L);
    if (s->header->serial != 0 && (vm->lazy_ctx == NULL || s->header->serial != vm->lazy_serial))
        expired(L, kind == LAZY_CTX ? "ctx." : "ctx.history.", lazy_names[(kind == LAZY_CTX ? ctx_names : history_names)[key]],
                "is read");
    if (kind == LAZY_CTX) {
        switch (key) {
        case C_HISTORY: push_history(L, s, ud); break;
        case C_SETTINGS: push_settings(L, s); break;
        case C_STATE: push_state(L, s); break;
        case C_LOCAL_TIME: push_local_time(L, s); break;
        case C_CAPABILITIES: push_shared(L, ud, PERMIT_SHARED_CAPABILITIES, LUA_TTABLE); break;
        case C_LOCALE: push_shared(L, ud, PERMIT_SHARED_LOCALE, LUA_TSTRING); break;
        case C_PLATFORM: push_shared(L, ud, PERMIT_SHARED_PLATFORM, LUA_TTABLE); break;
        case C_APP: push_shared(L, ud, PERMIT_SHARED_APP, LUA_TTABLE); break;
        default: push_user(L, s);
        }
    } else {
        switch (key) {
        case H_EVENTS: push_events(L, s); break;
        case H_FEATURES: push_features(L, s); break;
        case H_INFORM: push_inform(L, s); break;
        case H_SETTINGS_PROMPT: push_settings_prompt(L, s); break;
        case H_SOFT_PROMPT: push_soft_prompt(L, s); break;
        case H_STATE: push_state(L, s); break;
        case H_SYSTEM_PROMPT: push_system_prompt(L, s); break;
        default: push_history_value(L, s, key);
        }
    }
}

static int key_count(int kind) { return kind == LAZY_CTX ? C_COUNT : H_COUNT; }
static const int *key_names(int kind) { return kind == LAZY_CTX ? ctx_names : history_names; }
static uint32_t *built_bits(const snapshot *s, int kind) { return &s->header->built[kind - 1]; }

/* The lazy key the value at `k` is for a table of `kind`, or -1. Every name is a short
   string, and Lua interns those: a string equals a name exactly when its text is the name's,
   at the same address (kept in the VM's state at install; the names table keeps them alive). */
static int lazy_key(lua_State *L, int kind, int k) {
    if (lua_type(L, k) != LUA_TSTRING) return -1;
    const char *text = lua_tostring(L, k);
    const char *const *name_text = getvm(L)->lazy_name_text;
    const int *names_of = key_names(kind);
    for (int key = 0; key < key_count(kind); key++) {
        if (name_text[names_of[key]] == text) return key;
    }
    return -1;
}

static int strict_id(int kind) { return kind == LAZY_CTX ? PERMIT_STRICT_CTX : PERMIT_STRICT_HISTORY; }

/* Drops the lazy metatable and the snapshot once every lazy key is set: a plain table again,
   but for its strict metatable (StrictContext.c). */
static void finish_if_complete(lua_State *L, const snapshot *s, int kind, int idx) {
    if (*built_bits(s, kind) != (1u << key_count(kind)) - 1) return;
    lua_pushnil(L);
    lua_rawsetp(L, idx, &snapshot_key);
    lua_pushnil(L);
    lua_setmetatable(L, idx);
    permit_strict_set(L, idx, strict_id(kind));
}

/* Builds every lazy key not yet set of the lazy table at absolute `idx` and makes it plain. */
static void settle(lua_State *L, int idx, int kind) {
    int base = lua_gettop(L);
    snapshot s;
    open_snapshot(L, idx, kind, -1, &s);
    int ud = s.keys - 1;
    /* Every value on the stack first: a memory error here leaves the table untouched. */
    int first = lua_gettop(L) + 1;
    const int *names_of = key_names(kind);
    int missing[H_COUNT > C_COUNT ? H_COUNT : C_COUNT];
    int count = 0;
    luaL_checkstack(L, 2 * key_count(kind) + 4, "ctx");
    for (int key = 0; key < key_count(kind); key++) {
        if (*built_bits(&s, kind) & (1u << key)) continue;
        lua_rawgeti(L, s.names, names_of[key]);
        push_field(L, &s, kind, key, ud);
        missing[count++] = key;
    }
    /* Then one write per key, each marked as soon as it is made. A write can still fail (the
       table may have to grow); Lua then leaves the table as it was, so every key is either set
       and marked or absent and lazy. A key set but left unmarked would be built again later,
       over whatever the policy assigned to it meanwhile. */
    for (int i = 0; i < count; i++) {
        lua_pushvalue(L, first + 2 * i);
        lua_pushvalue(L, first + 2 * i + 1);
        lua_rawset(L, idx); /* raw: the table still has the lazy metatable */
        *built_bits(&s, kind) |= 1u << missing[i];
    }
    finish_if_complete(L, &s, kind, idx);
    lua_settop(L, base);
}

void permit_lazy_settle_in_call(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    int kind = lazy_kind(L, idx);
    if (kind != NOT_LAZY) settle(L, idx, kind);
}

static int settle_protected(lua_State *L) {
    settle(L, 1, (int)lua_tointeger(L, 2));
    return 0;
}

int permit_lazy_settle(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    int kind = lazy_kind(L, idx);
    if (kind == NOT_LAZY) return 0;
    if (!lua_checkstack(L, 4)) return -1;
    lua_pushcfunction(L, settle_protected);
    lua_pushvalue(L, idx);
    lua_pushinteger(L, kind);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
        lua_pop(L, 1);
        return -1;
    }
    return 1;
}

/* Whether the ctx at absolute `idx` has no snapshot yet and its call has returned. */
static int call_ended(lua_State *L, int idx) {
    int ended = lua_rawgetp(L, idx, &snapshot_key) == LUA_TNIL && !is_current(L, idx);
    lua_pop(L, 1);
    return ended;
}

/* The common start of __index and __newindex (t, k[, v] as the first `nargs` slots): which of
   t's lazy keys k is (-1 for none), with t's kind. The snapshot is opened by the caller, and
   only for a lazy key: reading another name (strictness's error or nil) or setting one needs
   none, so it does not make a ctx's snapshot. */
static int lazy_access(lua_State *L, int nargs, int *kind) {
    lua_settop(L, nargs);
    *kind = lazy_kind(L, 1);
    if (*kind == NOT_LAZY) damaged(L);
    return lazy_key(L, *kind, 2);
}

/* t[k] for an absent k: a lazy key not yet set is built and kept; a lazy key the policy set to
   nil is nil; any other is answered as the strict table would (nil or an error). */
static int lazy_index(lua_State *L) {
    snapshot s;
    int kind;
    int key = lazy_access(L, 2, &kind);
    if (key < 0) {
        permit_strict_index(L, strict_id(kind));
        return 1;
    }
    open_snapshot(L, 1, kind, key, &s);
    if (*built_bits(&s, kind) & (1u << key)) {
        lua_pushnil(L);
        return 1;
    }
    push_field(L, &s, kind, key, 3); /* the snapshot's userdata is at 3 */
    lua_pushvalue(L, 2);
    lua_pushvalue(L, -2);
    lua_rawset(L, 1);
    *built_bits(&s, kind) |= 1u << key;
    finish_if_complete(L, &s, kind, 1);
    return 1;
}

/* t[k] = v for an absent k: a lazy key not yet set is set to v, as it would have been. */
static int lazy_newindex(lua_State *L) {
    snapshot s;
    int kind;
    int key = lazy_access(L, 3, &kind);
    if (key >= 0 && kind == LAZY_CTX && call_ended(L, 1)) key = -1; /* nothing to build, nothing to mark */
    if (key >= 0) open_snapshot(L, 1, kind, key, &s);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_rawset(L, 1);
    if (key >= 0) {
        *built_bits(&s, kind) |= 1u << key;
        finish_if_complete(L, &s, kind, 1);
    }
    return 0;
}

void permit_lazy_install(lua_State *L) {
    permit_vm *vm = getvm(L);
    lua_createtable(L, N_NAME_COUNT - 1, 0);
    for (int n = 1; n < N_NAME_COUNT; n++) {
        lua_pushstring(L, lazy_names[n]);
        vm->lazy_name_text[n] = lua_tostring(L, -1);
        lua_rawseti(L, -2, n);
    }
    vm->lazy_names_ref = luaL_ref(L, LUA_REGISTRYINDEX);

    for (int kind = LAZY_CTX; kind <= LAZY_HISTORY; kind++) {
        lua_createtable(L, 0, 2);
        lua_pushcfunction(L, lazy_index);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, lazy_newindex);
        lua_setfield(L, -2, "__newindex");
        vm->lazy_metatable[kind - 1] = lua_topointer(L, -1);
        vm->lazy_metatable_ref[kind - 1] = luaL_ref(L, LUA_REGISTRYINDEX);
    }
}

/* A snapshot of `bytes` bytes made now, for the host to fill (permit_lazy_attach: the tests'
   damaged snapshots), its user value the list at registry slot `shared` (0: none). */
static void *attach_in_call(lua_State *L, int ctx, size_t bytes, int shared) {
    ctx = lua_absindex(L, ctx);
    void *memory = lua_newuserdatauv(L, bytes, shared > 0 ? 1 : 0);
    if (shared > 0) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, shared);
        lua_setiuservalue(L, -2, 1);
    }
    lua_rawsetp(L, ctx, &snapshot_key);
    push_lazy_metatable(L, LAZY_CTX);
    lua_setmetatable(L, ctx);
    return memory;
}

void permit_lazy_defer_in_call(lua_State *L, int ctx, const permit_ctx_fields *f) {
    ctx = lua_absindex(L, ctx);
    permit_vm *vm = getvm(L);
    vm->lazy_serial++;
    vm->lazy_shared = f->shared;
    vm->lazy_source = f->source;
    vm->lazy_measure = f->measure;
    vm->lazy_write = f->write;
    vm->lazy_ctx = lua_topointer(L, ctx);
    push_lazy_metatable(L, LAZY_CTX);
    lua_setmetatable(L, ctx);
}

void permit_lazy_close(lua_State *L) {
    permit_vm *vm = getvm(L);
    vm->lazy_source = NULL;
    vm->lazy_ctx = NULL;
}

/* Arguments: ctx, the size (light userdata pointing at a size_t). Returns the memory as a light
   userdata. The userdata's allocation may raise, so this runs under lua_pcall. */
static int attach_protected(lua_State *L) {
    size_t bytes = *(const size_t *)lua_touserdata(L, 2);
    lua_pushlightuserdata(L, attach_in_call(L, 1, bytes, 0));
    return 1;
}

void *permit_lazy_attach(lua_State *L, int ctx, size_t bytes) {
    ctx = lua_absindex(L, ctx);
    if (!lua_checkstack(L, 5)) return NULL;
    lua_pushcfunction(L, attach_protected);
    lua_pushvalue(L, ctx);
    lua_pushlightuserdata(L, &bytes);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        return NULL;
    }
    void *memory = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return memory;
}
