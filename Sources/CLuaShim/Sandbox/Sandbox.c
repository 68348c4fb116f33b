/* Building the sandbox (which libraries and functions a policy sees) and opening and closing
   a VM. */
#include "shim_internal.h"
#include "lazy_context.h"
#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>

const char permit_shim_key_base = 0, permit_shim_key_frozen = 0, permit_shim_key_traceback = 0, permit_shim_key_guard = 0,
           permit_shim_key_randomseed = 0;

static const char *const allowed_base[] = {
    "assert", "error", "ipairs", "pcall", "select", "tonumber", "tostring", "type", "rawequal", NULL,
};

static void set_fn(lua_State *L, int t, const char *name, lua_CFunction f) {
    lua_pushcfunction(L, f);
    lua_setfield(L, t, name);
}

/* Replaces t[name] by f with the original as upvalue 1. */
static void wrap_fn(lua_State *L, int t, const char *name, lua_CFunction f) {
    lua_getfield(L, t, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, t, name);
}

/* Sets base[name] to f with Lua's own function of that name (from the real globals) as
   upvalue 1. */
static void wrap_base(lua_State *L, int globals, int base, const char *name, lua_CFunction f) {
    lua_getfield(L, globals, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, base, name);
}

/* The parts of `setup`, in order. They share one stack frame and its absolute slots:
   1 the real globals, 2 the sandbox base, 3 string, 4 table, 5 math, 6 utf8, 7 coroutine,
   8 permit. */

/* Opens the libraries a policy may use (never io, os, package or debug). */
static void open_libraries(lua_State *L) {
    luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
    luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 1);
    lua_settop(L, 0);

    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, KEY_FROZEN);
    permit_lazy_install(L);
}

/* Slots 1 and 2: the real globals, and the sandbox base with the allowed functions copied and
   the ones that see past metamethods wrapped. */
static void build_base(lua_State *L) {
    lua_pushglobaltable(L); /* 1: the real globals (emptied below) */
    lua_newtable(L);        /* 2: the sandbox base */
    for (const char *const *n = allowed_base; *n != NULL; n++) {
        lua_getfield(L, 1, *n);
        lua_setfield(L, 2, *n);
    }
    wrap_base(L, 1, 2, "next", permit_shim_next);
    lua_getfield(L, 1, "pairs"); /* pairs: Lua's, the sandbox's next, Lua's next */
    lua_getfield(L, 2, "next");
    lua_getfield(L, 1, "next");
    lua_pushcclosure(L, permit_shim_pairs, 3);
    lua_setfield(L, 2, "pairs");
    wrap_base(L, 1, 2, "rawget", permit_shim_rawget);
    wrap_base(L, 1, 2, "rawset", permit_shim_rawset);
    wrap_base(L, 1, 2, "rawlen", permit_shim_rawlen);
    wrap_base(L, 1, 2, "load", permit_shim_load);
    set_fn(L, 2, "print", permit_shim_print);
}

/* Slot 3: string without dump or patterns, its metatable locked. */
static void sandbox_string(lua_State *L) {
    /* string: the real table stays the string metatable's __index. */
    lua_getfield(L, 1, "string"); /* 3 */
    lua_pushnil(L);
    lua_setfield(L, 3, "dump");
    set_fn(L, 3, "find", permit_shim_find);
    permit_shim_refuse_patterns(L, 3, "match");
    permit_shim_refuse_patterns(L, 3, "gmatch");
    permit_shim_refuse_patterns(L, 3, "gsub");
    wrap_fn(L, 3, "rep", permit_shim_rep);
    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) {
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
        lua_pushvalue(L, 3);
        lua_setfield(L, -2, "__index");
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* Slots 4 and 5: table's shifting functions charged; math seeded per VM. */
static void sandbox_table_and_math(lua_State *L, uint64_t seed) {
    lua_getfield(L, 1, "table"); /* 4 */
    wrap_fn(L, 4, "insert", permit_shim_tinsert);
    wrap_fn(L, 4, "remove", permit_shim_tremove);
    wrap_fn(L, 4, "move", permit_shim_tmove);

    lua_getfield(L, 1, "math"); /* 5 */
    lua_getfield(L, 5, "randomseed");
    lua_pushinteger(L, (lua_Integer)(seed >> 32));
    lua_pushinteger(L, (lua_Integer)(seed & 0xffffffffu));
    lua_call(L, 2, 0);
    /* Lua's own, for the host to seed each new process of a policy (Restart.c). */
    lua_getfield(L, 5, "randomseed");
    lua_rawsetp(L, LUA_REGISTRYINDEX, KEY_RANDOMSEED);
    wrap_fn(L, 5, "randomseed", permit_shim_randomseed);
}

/* Slot 8: the permit helpers. */
static void push_permit_table(lua_State *L) {
    lua_createtable(L, 0, 13); /* 8: permit */
    set_fn(L, 8, "minutes", permit_shim_minutes);
    set_fn(L, 8, "hours", permit_shim_hours);
    set_fn(L, 8, "days", permit_shim_days);
    set_fn(L, 8, "since", permit_shim_since);
    set_fn(L, 8, "at_least", permit_shim_at_least);
    set_fn(L, 8, "within_hours", permit_shim_within_hours);
    set_fn(L, 8, "log", permit_shim_print);
    set_fn(L, 8, "starts_with", permit_shim_starts_with);
    set_fn(L, 8, "ends_with", permit_shim_ends_with);
    set_fn(L, 8, "contains", permit_shim_contains);
    set_fn(L, 8, "split", permit_shim_split);
    set_fn(L, 8, "trim", permit_shim_trim);
    /* `remember = { key = permit.forget }` deletes a key: a Lua table cannot hold nil. The NUL
       byte keeps the marker out of any real text. */
    lua_pushlstring(L, "\0permit.forget", 14);
    lua_setfield(L, 8, "forget");
}

/* Publishes the libraries as read-only proxies in the base, keeps the base in the registry,
   and empties the real globals. */
static void publish_and_seal(lua_State *L) {
    static const char *const libs[] = {"string", "table", "math", "utf8", "coroutine", "permit"};
    for (int i = 0; i < 6; i++) {
        permit_shim_push_proxy(L, 3 + i);
        lua_setfield(L, 2, libs[i]);
    }

    lua_pushvalue(L, 2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, KEY_BASE);

    /* Empty the real globals: nothing in the sandbox reaches them, and nothing
       dangerous (dofile, loadfile, collectgarbage, ...) is left anywhere. */
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, 1);
    }

    /* Lua names a function called from C (pcall(next, 1)) in an argument error by looking it up
       in the loaded modules: there, _G is the sandbox base, and permit is the permit table. */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L, 2);
    lua_setfield(L, -2, LUA_GNAME);
    lua_pushvalue(L, 8);
    lua_setfield(L, -2, "permit");
    lua_pop(L, 1);
}

static int setup(lua_State *L) {
    uint64_t seed = (uint64_t)lua_tointeger(L, 1);
    lua_settop(L, 0);
    open_libraries(L);
    build_base(L);
    sandbox_string(L);
    sandbox_table_and_math(L, seed);
    lua_getfield(L, 1, "utf8");      /* 6 */
    lua_getfield(L, 1, "coroutine"); /* 7 */
    /* tostring, getmetatable, setmetatable, xpcall and the charged or guarded library
       functions (sandbox_guards.h); charged first, so the guards wrap charged functions. */
    permit_install_charged_lib(L, 2, 3, 4, 6);
    permit_install_bug_guards(L, 2, 6, 7);
    permit_shim_install_bounds(L, 2, 3); /* input-size charges (Bounds.c) */
    push_permit_table(L);
    publish_and_seal(L);
    lua_settop(L, 0);
    return 0;
}

/* The coarse clock can read up to one tick late at either end of a call, so the checks fire
   one tick early and a call never runs a tick past its limit (at 50 ms and a 4 ms tick, calls
   end between 42 and 50 ms plus the hook's granularity). Never more than half the limit. */
static int64_t coarse_tick_ns(int64_t limit_ns) {
    if (limit_ns <= 0) return 0;
    struct timespec tick = {0, 0};
#ifdef CLOCK_MONOTONIC_COARSE
    if (clock_getres(CLOCK_MONOTONIC_COARSE, &tick) != 0) tick.tv_sec = 0, tick.tv_nsec = 0;
#endif
    int64_t early = (int64_t)tick.tv_sec * 1000000000 + tick.tv_nsec;
    return early * 2 < limit_ns ? early : limit_ns / 2;
}

lua_State *permit_open(const permit_limits *limits, uint64_t seed) {
    permit_vm *vm = (permit_vm *)calloc(1, sizeof(permit_vm));
    if (vm == NULL) return NULL;
    vm->limit = limits->memory_bytes;
    vm->budget_limit = limits->instructions_per_call > 0 ? limits->instructions_per_call : 1;
    vm->time_limit_ns = limits->time_limit_ms > 0 ? limits->time_limit_ms * 1000000 : 0;
    vm->budget_exceeded = 1; /* no script code runs outside permit_call */
    vm->max_string = limits->max_string;
    vm->trace_cap = limits->trace_cap;
    vm->max_table_bytes = limits->max_table_slots * NODE_BYTES;
    vm->max_source = limits->max_source;
    vm->time_check_ns = vm->time_limit_ns - coarse_tick_ns(vm->time_limit_ns);
    vm->trace = (char *)malloc(vm->trace_cap + 1);
    if (vm->trace == NULL) {
        free(vm);
        return NULL;
    }
    lua_State *L = lua_newstate(permit_shim_alloc, vm);
    if (L == NULL) {
        permit_small_pool_release(&vm->pool);
        free(vm->trace);
        free(vm);
        return NULL;
    }
    lua_pushcfunction(L, setup);
    lua_pushinteger(L, (lua_Integer)seed);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        permit_close(L);
        return NULL;
    }
    lua_settop(L, 0);
    /* A cycle starts when the heap reaches 4x what survived the last one (Lua's default: 2x).
       A policy's live data is tens of KiB and every decision leaves about a dozen dead tables,
       so the default re-marked the live set every few dozen decisions; 4x halves that work for
       a heap of a few hundred KiB, far below the memory cap (which still applies). */
    (void)lua_gc(L, LUA_GCINC, 400, 0, 0);
    return L;
}

void permit_close(lua_State *L) {
    permit_vm *vm = getvm(L);
    vm->limit_on = 0;
    lua_close(L);
    permit_small_pool_release(&vm->pool);
    for (int i = 0; i < vm->ncov; i++) {
        free(vm->cov[i].source);
        free(vm->cov[i].lines);
    }
    permit_shim_drop_staged(vm);
    free(vm->long_strings);
    free(vm->trace);
    free(vm);
}
