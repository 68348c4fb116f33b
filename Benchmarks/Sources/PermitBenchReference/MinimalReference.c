/* The minimal C + Lua reference (MinimalReference.h): a host that builds only what the policy
 * reads, calls it, and reads the answer back. Nothing else: no sandbox, no validation, no
 * ledger. It is the limit Permit's cost per event is compared with. */
#include "MinimalReference.h"
#include "open_policy.h"
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The helpers a policy expects, in plain Lua, and the read tracker used by discovery. The
 * tracker's proxies answer every read through __index, so each path a policy touches is seen;
 * iterating a table (pairs, #) marks its whole subtree as read. */
static const char *minimal_prelude =
    BENCH_HELPERS
    "__permit_reads = {}\n"
    "function __permit_track(t, prefix)\n"
    "  return setmetatable({}, {\n"
    "    __index = function(_, k)\n"
    "      local path = prefix .. tostring(k)\n"
    "      __permit_reads[path] = true\n"
    "      local v = t[k]\n"
    "      if type(v) == 'table' then return __permit_track(v, path .. '.') end\n"
    "      return v\n"
    "    end,\n"
    "    __len = function() __permit_reads[prefix .. '*'] = true return #t end,\n"
    "    __pairs = function() __permit_reads[prefix .. '*'] = true return next, t, nil end,\n"
    "  })\n"
    "end\n"
    "function __permit_read_list()\n"
    "  local list = {}\n"
    "  for path in pairs(__permit_reads) do list[#list + 1] = path end\n"
    "  table.sort(list)\n"
    "  return table.concat(list, '\\n')\n"
    "end\n";

static double thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t mix(uint64_t hash, const char *text, size_t length) {
    for (size_t i = 0; i < length; i++) hash = (hash ^ (unsigned char)text[i]) * 1099511628211ULL;
    return hash;
}

/* A text field as a host reads it: a string, or the "en" entry of a table of translations. */
static int read_text(lua_State *L, int table, const char *key) {
    int found = 0;
    int type = lua_getfield(L, table, key);
    if (type == LUA_TSTRING) {
        size_t length;
        found = lua_tolstring(L, -1, &length) != NULL && length > 0;
    } else if (type == LUA_TTABLE) {
        lua_getfield(L, -1, "en");
        found = lua_isstring(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return found;
}

static uint64_t read_decision(lua_State *L, uint64_t hash) {
    static const char *texts[] = {"reason", "title", "message", "accept", "decline", "open", "cancel", "deep_link"};
    int decision = lua_gettop(L);
    if (!lua_istable(L, decision)) return mix(hash, "nil", 3);
    size_t length = 0;
    lua_getfield(L, decision, "action");
    const char *action = lua_tolstring(L, -1, &length);
    hash = action ? mix(hash, action, length) : mix(hash, "?", 1);
    lua_pop(L, 1);
    int found = 0;
    for (int i = 0; i < 8; i++) found += read_text(L, decision, texts[i]);
    if (lua_getfield(L, decision, "options") == LUA_TTABLE) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            found += lua_isstring(L, -1);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return hash ^ (uint64_t)found;
}

static uint64_t read_reminders(lua_State *L, uint64_t hash) {
    static const char *numbers[] = {"day", "hour", "minute", "badge"};
    int list = lua_gettop(L);
    if (!lua_istable(L, list)) return mix(hash, "none", 4);
    lua_Integer n = (lua_Integer)lua_rawlen(L, list);
    lua_Integer sum = n;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, list, i);
        int item = lua_gettop(L);
        for (int f = 0; f < 4; f++) {
            lua_getfield(L, item, numbers[f]);
            sum += lua_tointeger(L, -1);
            lua_pop(L, 1);
        }
        sum += read_text(L, item, "title") + read_text(L, item, "body") + read_text(L, item, "action");
        lua_getfield(L, item, "sound");
        sum += lua_toboolean(L, -1);
        lua_pop(L, 2);
    }
    return (hash ^ (uint64_t)sum) * 1099511628211ULL;
}

/* Runs one op that builds tables; a finished root table stays on the stack. */
static int build(lua_State *L, const permit_reference_op *op, const char *strings, const int *cache_refs,
                 int params_ref) {
    switch (op->kind) {
    case PERMIT_OP_TABLE: lua_createtable(L, 0, (int)op->value); return 0;
    case PERMIT_OP_END: break;
    case PERMIT_OP_INTEGER: lua_pushinteger(L, (lua_Integer)op->value); break;
    case PERMIT_OP_STRING: lua_pushstring(L, strings + op->value); break;
    case PERMIT_OP_BOOLEAN: lua_pushboolean(L, op->value != 0); break;
    case PERMIT_OP_NUMBER: lua_pushnumber(L, op->number); break;
    case PERMIT_OP_CACHED: lua_rawgeti(L, LUA_REGISTRYINDEX, cache_refs[op->value]); break;
    case PERMIT_OP_PARAMS: lua_rawgeti(L, LUA_REGISTRYINDEX, params_ref); break;
    default: return -1;
    }
    if (op->key >= 0) lua_setfield(L, -2, strings + op->key);
    return 0;
}

static lua_State *open_minimal(const char *source, size_t length, char *error, size_t error_size) {
    return bench_open_policy(minimal_prelude, source, length, error, error_size);
}

static int ref_field(lua_State *L, const char *name, int want_table) {
    lua_getfield(L, -1, name);
    if (want_table && !lua_istable(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
    }
    return luaL_ref(L, LUA_REGISTRYINDEX);
}

typedef struct {
    int decide_ref, plan_ref, params_ref, track_ref;
    int cache_refs[64];
} refs;

/* One replay of every call; returns -1 (message on the stack) when the policy raised. */
static int replay(lua_State *L, const refs *r, const permit_reference_op *ops, size_t count, const char *strings,
                  int tracking, uint64_t *checksum, int64_t *calls) {
    int top = lua_gettop(L);
    uint64_t hash = 1469598103934665603ULL;
    int64_t made = 0;
    for (size_t i = 0; i < count; i++) {
        const permit_reference_op *op = &ops[i];
        if (op->kind == PERMIT_OP_DECIDE || op->kind == PERMIT_OP_PLAN) {
            int function = op->kind == PERMIT_OP_DECIDE ? r->decide_ref : r->plan_ref;
            lua_rawgeti(L, LUA_REGISTRYINDEX, function);
            lua_insert(L, -2);
            if (tracking) {
                lua_rawgeti(L, LUA_REGISTRYINDEX, r->track_ref);
                lua_insert(L, -2);
                lua_pushstring(L, "");
                if (lua_pcall(L, 2, 1, 0) != LUA_OK) return -1;
            }
            if (lua_pcall(L, 1, 1, 0) != LUA_OK) return -1;
            hash = op->kind == PERMIT_OP_DECIDE ? read_decision(L, hash) : read_reminders(L, hash);
            lua_settop(L, top);
            made++;
        } else if (build(L, op, strings, r->cache_refs, r->params_ref) != 0) {
            lua_pushstring(L, "unknown op");
            return -1;
        }
    }
    *checksum = hash;
    *calls = made;
    return 0;
}

static int fail(lua_State *L, char *error, size_t error_size) {
    snprintf(error, error_size, "%s", lua_tostring(L, -1));
    lua_close(L);
    return -1;
}

int permit_minimal_reference(const char *source, size_t length, const permit_reference_op *cache_ops,
                             size_t cache_count, const permit_reference_op *ops, size_t count,
                             const char *strings, int rounds, char *reads, size_t reads_size,
                             permit_reference_run *run, char *error, size_t error_size) {
    lua_State *L = open_minimal(source, length, error, error_size);
    if (L == NULL) return -1;
    refs r;
    memset(&r, 0, sizeof r);
    r.decide_ref = ref_field(L, "decide", 0);
    r.plan_ref = ref_field(L, "plan_reminders", 0);
    r.params_ref = ref_field(L, "params", 1);
    lua_pop(L, 1);
    lua_getglobal(L, "__permit_track");
    r.track_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    int cached = 0;
    for (size_t i = 0; i < cache_count; i++) {
        if (cache_ops[i].kind == PERMIT_OP_CACHE_END) {
            if (cached == 64) {
                lua_pushstring(L, "more than 64 cached tables");
                return fail(L, error, error_size);
            }
            r.cache_refs[cached++] = luaL_ref(L, LUA_REGISTRYINDEX);
        } else if (build(L, &cache_ops[i], strings, r.cache_refs, r.params_ref) != 0) {
            lua_pushstring(L, "unknown op in a cached table");
            return fail(L, error, error_size);
        }
    }
    run->cpu_ns = 0;
    for (int round = 0; round < (rounds < 1 ? 1 : rounds); round++) {
        double start = thread_cpu_ns();
        if (replay(L, &r, ops, count, strings, reads != NULL, &run->checksum, &run->calls) != 0)
            return fail(L, error, error_size);
        double spent = thread_cpu_ns() - start;
        if (round == 0 || spent < run->cpu_ns) run->cpu_ns = spent;
    }
    if (reads != NULL && reads_size > 0) {
        lua_getglobal(L, "__permit_read_list");
        if (lua_pcall(L, 0, 1, 0) != LUA_OK) return fail(L, error, error_size);
        snprintf(reads, reads_size, "%s", lua_tostring(L, -1));
    }
    lua_close(L);
    return 0;
}
