/*
 * The warm decision path: building `ctx` and reading a decision with few API calls.
 *
 * Keys are interned once per VM: Swift stores a sequence of strings in the registry and
 * passes its slot; a key is then one lua_rawgeti instead of hashing the text on every call. Every function here uses raw access only (no metamethod can run) and runs
 * between calls, while the memory cap is off, like the rest of the host's pushes.
 */
#include "permit_context.h"
#include "lazy_context.h"
#include "sandbox_guards.h"
#include <lauxlib.h>
#include <string.h>

static void push_key(lua_State *L, int k, int key) { lua_rawgeti(L, k, key); }

static void set_int(lua_State *L, int t, int k, int key, lua_Integer value) {
    push_key(L, k, key);
    lua_pushinteger(L, value);
    lua_rawset(L, t);
}

static void set_interned(lua_State *L, int t, int k, int key, int value) {
    push_key(L, k, key);
    lua_rawgeti(L, k, value);
    lua_rawset(L, t);
}

static void set_ref(lua_State *L, int t, int k, int key, int ref) {
    push_key(L, k, key);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_rawset(L, t);
}

/* The pushes themselves; they may raise (memory), so they run under one lua_pcall. The lazy
   fields' snapshot is made only if the policy reads one of them (LazyContext.c). */
static int push_context_protected(lua_State *L) {
    permit_ctx_fields *f = (permit_ctx_fields *)lua_touserdata(L, 1);
    lua_pop(L, 1);
    luaL_checkstack(L, 8, "ctx");
    lua_rawgeti(L, LUA_REGISTRYINDEX, f->keys);
    int k = lua_gettop(L);
    lua_createtable(L, 0, f->hash);
    int ctx = k + 1;

    /* event: its extra field's name sorts before "name" */
    push_key(L, k, f->key_event);
    lua_createtable(L, 0, (f->event_key || f->event_kind == 4 ? 2 : 1) + (f->key_prompt_id != 0));
    if (f->event_key) {
        push_key(L, k, f->event_key);
        switch (f->event_kind) {
        case 1: push_key(L, k, f->event_value); break;
        case 2: lua_pushlstring(L, f->event_text, f->event_text_length); break;
        default: lua_pushboolean(L, f->event_value); break;
        }
        lua_rawset(L, -3);
    }
    permit_strict_set(L, -1, PERMIT_STRICT_EVENT);
    if (f->event_kind == 4) {
        push_key(L, k, f->key_name);
        lua_pushlstring(L, f->event_text, f->event_text_length);
        lua_rawset(L, -3);
    } else {
        set_interned(L, lua_gettop(L), k, f->key_name, f->event_name);
    }
    if (f->key_prompt_id) { /* "prompt_id" sorts after "name" */
        push_key(L, k, f->key_prompt_id);
        lua_pushlstring(L, f->prompt_id, f->prompt_id_length);
        lua_rawset(L, -3);
    }
    lua_rawset(L, ctx);

    set_int(L, ctx, k, f->key_now, f->now);
    set_ref(L, ctx, k, f->key_params, f->params);
    set_interned(L, ctx, k, f->key_previous_status, f->previous_status);
    set_interned(L, ctx, k, f->key_status, f->status);
    if (f->measure != NULL) permit_lazy_defer_in_call(L, ctx, f);
    lua_remove(L, k); /* ctx now at k */
    return 1;
}

int permit_push_context(lua_State *L, permit_ctx_fields *f) {
    if (!lua_checkstack(L, 3)) return 0;
    lua_pushcfunction(L, push_context_protected);
    lua_pushlightuserdata(L, (void *)f);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        return -1;
    }
    return lua_gettop(L);
}

void permit_set_event_properties(lua_State *L, int ctx, int32_t keys, int32_t key_event, int32_t key_properties) {
    int value = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, keys);
    int k = lua_gettop(L);
    push_key(L, k, key_event);
    lua_rawget(L, ctx);
    push_key(L, k, key_properties);
    lua_pushvalue(L, value);
    lua_rawset(L, -3);
    lua_settop(L, value - 1);
}

/* ------------------------------------------------------------ decision table */

/* decision_names, action_names and allowed_fields: generated from ContextSchema, the names
   DecisionReader accepts. */
#include "decision_fields.generated.h"

#define BIT(f) (1u << (f))
/* The action's code takes bits 24 and up of the answer, the fields the bits below. */
_Static_assert(PERMIT_D_COUNT <= 24, "a decision's field bits must fit below the action's");
_Static_assert(PERMIT_A_COUNT <= 64, "an action's code must fit in the answer's bits 24 to 30");

static int field_code(const char *s, size_t len) {
    for (int i = 0; i < PERMIT_D_COUNT; i++) {
        if (strlen(decision_names[i]) == len && memcmp(decision_names[i], s, len) == 0) return i;
    }
    return -1;
}

int permit_decision_fields(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE) return -1;
    if (!lua_checkstack(L, PERMIT_D_COUNT + 4)) return -1;
    if (permit_has_script_metatable(L, idx)) return -1;
    int base = lua_gettop(L);
    for (int i = 0; i < PERMIT_D_COUNT; i++) lua_pushnil(L);
    unsigned present = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int code = -1;
        if (lua_type(L, -2) == LUA_TSTRING) {
            size_t len;
            const char *s = lua_tolstring(L, -2, &len);
            code = field_code(s, len);
        }
        if (code < 0) {
            lua_settop(L, base);
            return -1;
        }
        present |= BIT(code);
        lua_replace(L, base + 1 + code); /* pops the value */
    }
    if (lua_type(L, base + 1 + PERMIT_D_ACTION) != LUA_TSTRING) {
        lua_settop(L, base);
        return -1;
    }
    size_t len;
    const char *action = lua_tolstring(L, base + 1 + PERMIT_D_ACTION, &len);
    for (int a = 0; a < PERMIT_A_COUNT; a++) {
        if (strlen(action_names[a]) == len && memcmp(action_names[a], action, len) == 0) {
            if ((present & ~allowed_fields[a]) != 0) break;
            return (int)(((unsigned)a << 24) | present);
        }
    }
    lua_settop(L, base);
    return -1;
}

int permit_settle_then_has_metatable(lua_State *L, int idx) {
    if (permit_lazy_settle(L, idx) < 0) return 1;
    if (permit_strict_is(L, idx)) return 0; /* the host's own table, plain data but for its strictness */
    return permit_has_script_metatable(L, idx);
}

int permit_trace_is_empty(lua_State *L) {
    size_t len;
    int truncated;
    size_t dropped;
    (void)permit_trace(L, &len, &truncated, &dropped);
    return len == 0 && !truncated;
}
