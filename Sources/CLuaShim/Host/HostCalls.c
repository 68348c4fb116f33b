/* The host's side of the boundary: loading a chunk, calling under the budgets, refs, queries
   and the trampoline for host functions written in Swift. */
#include "shim_internal.h"
#include <lauxlib.h>
#include <string.h>

/* Argument 1: a compiled chunk; gives it a fresh sandbox environment and returns it. */
static int give_fresh_env(lua_State *L) {
    permit_shim_push_new_env(L);
    if (lua_setupvalue(L, 1, 1) == NULL) lua_pop(L, 1);
    lua_settop(L, 1);
    return 1;
}

/* Argument 1: the chunk name (light userdata); returns the refusal of a binary chunk. */
static int binary_refusal(lua_State *L) {
    const char *name = (const char *)lua_touserdata(L, 1);
    const char *shown = (name[0] == '@' || name[0] == '=') ? name + 1 : name;
    lua_pushfstring(L, "%s: precompiled (binary) chunks are refused; load the policy as Lua source text", shown);
    return 1;
}

int permit_load(lua_State *L, const char *src, size_t len, const char *chunkname) {
    permit_vm *vm = getvm(L);
    if (len > 0 && src[0] == LUA_SIGNATURE[0]) {
        if (!lua_checkstack(L, 3)) return PERMIT_E_RUNTIME;
        lua_pushcfunction(L, binary_refusal);
        lua_pushlightuserdata(L, (void *)chunkname);
        int st = lua_pcall(L, 1, 1, 0); /* on failure, the memory error's message instead */
        return st == LUA_OK ? PERMIT_E_BINARY : PERMIT_E_MEMORY;
    }
    char refusal[200];
    int refused_line = permit_source_refusal(src, len, refusal, sizeof refusal);
    if (refused_line > 0) {
        const char *shown = (chunkname[0] == '@' || chunkname[0] == '=') ? chunkname + 1 : chunkname;
        lua_pushfstring(L, "%s:%d: %s", shown, refused_line, refusal);
        return PERMIT_E_SYNTAX;
    }
    vm->mem_refused = 0;
    vm->table_refused = 0;
    vm->limit_on = 1;
    int st = luaL_loadbufferx(L, src, len, chunkname, "t");
    vm->limit_on = 0;
    if (st == LUA_ERRSYNTAX) return PERMIT_E_SYNTAX;
    if (st == LUA_ERRMEM) return PERMIT_E_MEMORY;
    if (st != LUA_OK) return PERMIT_E_RUNTIME;
    /* The environment is a new table: made under protection, as the host is not in a call. */
    if (!lua_checkstack(L, 3)) {
        lua_pop(L, 1);
        lua_pushliteral(L, "Lua stack exhausted");
        return PERMIT_E_RUNTIME;
    }
    lua_pushcfunction(L, give_fresh_env);
    lua_insert(L, -2);
    st = lua_pcall(L, 1, 1, 0);
    return st == LUA_OK ? PERMIT_OK : st == LUA_ERRMEM ? PERMIT_E_MEMORY : PERMIT_E_RUNTIME;
}

/* Message handler: adds a traceback, never runs script code (no __tostring). */
int permit_shim_msgh(lua_State *L) {
    permit_vm *vm = getvm(L);
    int saved = vm->limit_on;
    vm->limit_on = 0;
    permit_push_error_text(L, 1);
    luaL_traceback(L, L, lua_tostring(L, -1), 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, KEY_TRACEBACK);
    vm->limit_on = saved;
    lua_settop(L, 1);
    return 1;
}

/* Argument 1: the error object; returns its text. */
static int error_text_protected(lua_State *L) {
    int type = lua_type(L, 1);
    if (type == LUA_TSTRING || type == LUA_TNUMBER) {
        /* Converted in place: numbers read as Lua prints them, and no __tostring runs. */
        (void)lua_tolstring(L, 1, NULL);
        lua_settop(L, 1);
    } else if (type == LUA_TBOOLEAN || type == LUA_TNIL) {
        lua_pushstring(L, type == LUA_TNIL ? "nil" : (lua_toboolean(L, 1) ? "true" : "false"));
    } else {
        lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    return 1;
}

/* The host asks between calls, where nothing may raise: under lua_pcall. Should memory run
   out, the result is the memory error's own (preallocated) message. */
void permit_push_error_text(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) == LUA_TSTRING || !lua_checkstack(L, 3)) {
        lua_pushvalue(L, idx); /* nothing to make */
        return;
    }
    lua_pushcfunction(L, error_text_protected);
    lua_pushvalue(L, idx);
    (void)lua_pcall(L, 1, 1, 0);
}

static int classify(lua_State *L, permit_vm *vm, int st) {
    if (vm->sticky_kind != 0) return vm->sticky_kind;
    if (vm->time_exceeded) return PERMIT_E_TIME;
    if (vm->budget_exceeded) return PERMIT_E_BUDGET;
    if (st == LUA_ERRMEM) return PERMIT_E_MEMORY;
    if (st == LUA_ERRERR) return PERMIT_E_ERRERR;
    if (vm->guard_kind != 0) {
        lua_rawgetp(L, LUA_REGISTRYINDEX, KEY_GUARD);
        int same = lua_rawequal(L, -1, -2);
        lua_pop(L, 1);
        if (same) return vm->guard_kind;
    }
    if (vm->mem_refused && lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "not enough memory") == 0)
        return PERMIT_E_MEMORY;
    return PERMIT_E_RUNTIME;
}

int permit_call(lua_State *L, int nargs) {
    permit_vm *vm = getvm(L);
    int hidx = lua_gettop(L) - nargs; /* the function's slot; the handler goes there */
    lua_pushcfunction(L, permit_shim_msgh);
    lua_insert(L, hidx);
    vm->budget_left = vm->budget_limit;
    vm->budget_exceeded = 0;
    vm->time_exceeded = 0;
    vm->guard_kind = 0;
    vm->mem_refused = 0;
    vm->table_refused = 0;
    vm->sticky_kind = 0;
    vm->cov_return_line = 0;
    vm->cov_base_line = 0;
    vm->guards.coroutine_depth = 0;
    vm->guards.handler_depth = 0;
    vm->call_events = 0;
    vm->running = L;
    /* A long string a call left behind would cut this call's time (Budget.c reserves the time
       comparing it may take): when that reserve is large, strings no one holds are dropped
       first, so only live ones count. */
    if (vm->long_count > 0 && vm->reserve_ns * 4 > vm->time_check_ns) (void)lua_gc(L, LUA_GCCOLLECT);
    /* The clock starts after that collection: the garbage is an earlier call's, whose time it
       was. */
    vm->call_start_ns = vm->time_limit_ns > 0 ? now_ns() : 0;
    lua_sethook(L, permit_shim_count_hook, hook_mask(vm), hook_step(vm));
    vm->limit_on = 1;
    vm->in_call = 1;
    int st = lua_pcall(L, nargs, LUA_MULTRET, hidx);
    vm->in_call = 0;
    vm->limit_on = 0;
    int kind = st == LUA_OK ? PERMIT_OK : classify(L, vm, st);
    if (kind == PERMIT_OK && vm->sticky_kind != 0) {
        /* The error was raised where the script caught it (coroutine.close returns it as a
           value) and the call ended before any later hook: it fails all the same. */
        lua_settop(L, hidx);
        lua_getfield(L, LUA_REGISTRYINDEX, KEY_GUARD);
        kind = vm->sticky_kind;
    }
    vm->budget_exceeded = 1; /* nothing runs between calls */
    /* A failed call can leave up to the memory cap in garbage (a runaway loop's tables, a
       string it was building). It is collected now, on the host's time and with no script able
       to run (the sandbox refuses __gc): the app gets the memory back at once, and the next
       call does not pay for the collection out of its own time limit. Calls that succeed leave
       their garbage to the incremental collector, whose steps are paced by what each call
       allocates. */
    if (kind != PERMIT_OK) (void)lua_gc(L, LUA_GCCOLLECT);
    if (vm->guard_kind != 0 || vm->sticky_kind != 0) {
        lua_pushnil(L);
        lua_rawsetp(L, LUA_REGISTRYINDEX, KEY_GUARD);
    }
    lua_remove(L, hidx);
    return kind;
}

void permit_take_traceback(lua_State *L) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, KEY_TRACEBACK);
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, KEY_TRACEBACK);
}

/* Argument 1: a value; returns its source name if it is a Lua function, else nil. */
static int source_protected(lua_State *L) {
    lua_Debug ar;
    lua_settop(L, 1);
    if (lua_type(L, 1) == LUA_TFUNCTION && lua_getinfo(L, ">S", &ar))
        lua_pushstring(L, ar.source);
    else
        lua_pushnil(L);
    return 1;
}

int permit_line_defined(lua_State *L, int idx) {
    lua_Debug ar;
    if (lua_type(L, idx) != LUA_TFUNCTION || !lua_checkstack(L, 1)) return -1;
    lua_pushvalue(L, idx);
    /* ">S" only reads the function's prototype (its source is already a string): nothing is
       allocated, so nothing can raise. */
    if (!lua_getinfo(L, ">S", &ar)) return -1;
    return ar.linedefined;
}

void permit_push_source(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (!lua_checkstack(L, 3)) {
        lua_pushnil(L); /* room for one value is always there (LUA_MINSTACK) */
        return;
    }
    lua_pushcfunction(L, source_protected);
    lua_pushvalue(L, idx);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        lua_pushnil(L);
    }
}

/* The value to keep is argument 1; luaL_ref may grow the registry, so it runs protected. */
static int ref_protected(lua_State *L) {
    lua_pushinteger(L, luaL_ref(L, LUA_REGISTRYINDEX));
    return 1;
}

int permit_ref(lua_State *L) {
    if (!lua_checkstack(L, 2)) {
        lua_pop(L, 1);
        return LUA_NOREF;
    }
    lua_pushcfunction(L, ref_protected);
    lua_insert(L, -2);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        return LUA_NOREF;
    }
    int ref = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return ref;
}
void permit_unref(lua_State *L, int ref) { luaL_unref(L, LUA_REGISTRYINDEX, ref); }
int permit_push_ref(lua_State *L, int ref) { return lua_rawgeti(L, LUA_REGISTRYINDEX, ref); }

size_t permit_memory_used(lua_State *L) { return getvm(L)->used; }
size_t permit_memory_peak(lua_State *L) { return getvm(L)->peak; }
void permit_collect_garbage(lua_State *L) { (void)lua_gc(L, LUA_GCCOLLECT); }
int64_t permit_instructions_used(lua_State *L) {
    permit_vm *vm = getvm(L);
    return vm->budget_limit - vm->budget_left;
}

typedef struct HostFn {
    permit_host_callback callback;
    void *context;
} HostFn;

static int host_trampoline(lua_State *L) {
    HostFn *h = (HostFn *)lua_touserdata(L, lua_upvalueindex(1));
    permit_vm *vm = getvm(L);
    if (!lua_checkstack(L, PERMIT_HOST_STACK)) return luaL_error(L, "stack overflow (host function)");
    int saved = vm->limit_on;
    vm->limit_on = 0;
    vm->host_error[0] = '\0';
    permit_shim_drop_staged(vm);
    int n = h->callback(L, h->context); /* Swift: must not raise; stages its results */
    if (n < 0) {
        vm->limit_on = saved;
        return luaL_error(L, "%s", vm->host_error);
    }
    /* The results are pushed here, after the host's frames are gone: an error while pushing
       unwinds through C only. */
    lua_settop(L, 0);
    int status = permit_shim_push_staged(L, vm, n);
    vm->limit_on = saved;
    if (status != LUA_OK) {
        if (status == LUA_ERRMEM) vm->mem_refused = 1;
        return lua_error(L);
    }
    return n;
}

/* Arguments: the callback and context, as light userdata. */
static int push_host_function_protected(lua_State *L) {
    HostFn *h = (HostFn *)lua_newuserdatauv(L, sizeof(HostFn), 0);
    h->callback = *(permit_host_callback *)lua_touserdata(L, 1);
    h->context = lua_touserdata(L, 2);
    lua_pushcclosure(L, host_trampoline, 1);
    return 1;
}

int permit_push_host_function(lua_State *L, permit_host_callback callback, void *context) {
    if (!lua_checkstack(L, 4)) return PERMIT_E_RUNTIME;
    lua_pushcfunction(L, push_host_function_protected);
    lua_pushlightuserdata(L, &callback);
    lua_pushlightuserdata(L, context);
    int status = lua_pcall(L, 2, 1, 0);
    if (status == LUA_OK) return PERMIT_OK;
    lua_pop(L, 1);
    return status == LUA_ERRMEM ? PERMIT_E_MEMORY : PERMIT_E_RUNTIME;
}

void permit_host_error(lua_State *L, const char *message) {
    permit_vm *vm = getvm(L);
    size_t n = strlen(message);
    if (n >= sizeof vm->host_error) n = sizeof vm->host_error - 1;
    memcpy(vm->host_error, message, n);
    vm->host_error[n] = '\0';
}

void permit_pop(lua_State *L, int n) { lua_pop(L, n); }
const char *permit_tolstring_raw(lua_State *L, int idx, size_t *len) {
    if (lua_type(L, idx) != LUA_TSTRING) {
        *len = 0;
        return NULL;
    }
    return lua_tolstring(L, idx, len);
}
int permit_is_integer(lua_State *L, int idx) { return lua_isinteger(L, idx); }
int permit_lua_version_num(void) { return LUA_VERSION_NUM; }
