/* Line coverage for `permit test --coverage`: lines run (recorded from the hook) and lines
   with code (read from the functions a policy defines). */
#include "shim_internal.h"
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

/* Whether the hook runs in the VM's main thread: a coroutine's body also has no Lua frame
   below it, but its `return` is not the host call's. Pushing a thread allocates nothing. */
static int on_main_thread(lua_State *L) {
    int main = lua_pushthread(L);
    lua_pop(L, 1);
    return main;
}

/* Notes that `line` of the running chunk ran. Uses malloc, not Lua's allocator, so coverage
   never changes what the memory cap sees. */
void permit_shim_cov_record(lua_State *L, permit_vm *vm, lua_Debug *ar) {
    if (!lua_getinfo(L, "S", ar) || ar->source == NULL || ar->source[0] != '@') return;
    int line = ar->currentline;
    if (line <= 0 || line >= (1 << 20)) return;
    struct cov_chunk *chunk = NULL;
    for (int i = 0; i < vm->ncov; i++) {
        if (strcmp(vm->cov[i].source, ar->source) == 0) { chunk = &vm->cov[i]; break; }
    }
    if (chunk == NULL) {
        if (vm->ncov == (int)(sizeof(vm->cov) / sizeof(vm->cov[0]))) return;
        char *copy = strdup(ar->source);
        if (copy == NULL) return;
        chunk = &vm->cov[vm->ncov++];
        chunk->source = copy;
        chunk->lines = NULL;
        chunk->size = 0;
    }
    if (line >= chunk->size) {
        int size = chunk->size ? chunk->size : 256;
        while (size <= line) size *= 2;
        unsigned char *grown = (unsigned char *)realloc(chunk->lines, (size_t)size);
        if (grown == NULL) return;
        memset(grown + chunk->size, 0, (size_t)(size - chunk->size));
        chunk->lines = grown;
        chunk->size = size;
    }
    chunk->lines[line] = 1;
    /* The outermost frame's last line before a tail call replaces it: that `return f(...)` is
       the statement that decided, though the frame that returns is f's. */
    lua_Debug caller;
    if (!lua_getstack(L, 1, &caller) && on_main_thread(L) && lua_getinfo(L, "t", ar) && !ar->istailcall)
        vm->cov_base_line = line;
}

/* Only the host's outermost call counts (no Lua frame below it): a helper's `return` is not
   the policy's answer. Reads no memory Lua could refuse. */
void permit_shim_cov_return(lua_State *L, permit_vm *vm, lua_Debug *ar) {
    lua_Debug caller;
    if (lua_getstack(L, 1, &caller) || !on_main_thread(L)) return;
    if (!lua_getinfo(L, "Slt", ar) || ar->source == NULL || ar->source[0] != '@') return;
    vm->cov_return_line = ar->istailcall ? vm->cov_base_line : ar->currentline;
}

int permit_cov_return_line(lua_State *L) { return getvm(L)->cov_return_line; }

int permit_function_span(lua_State *L, int ref, int *first, int *last) {
    lua_Debug ar;
    if (!lua_checkstack(L, 2)) return 0;
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, ref) != LUA_TFUNCTION || lua_iscfunction(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    if (!lua_getinfo(L, ">S", &ar)) return 0;
    *first = ar.linedefined;
    *last = ar.lastlinedefined;
    return 1;
}

void permit_set_coverage(lua_State *L, int on) {
    permit_vm *vm = getvm(L);
    vm->coverage_on = on != 0;
    lua_sethook(L, permit_shim_count_hook, hook_mask(vm), hook_step(vm));
}

int permit_covered_lines(lua_State *L, const char *source, int *out, int max) {
    permit_vm *vm = getvm(L);
    int n = 0;
    for (int i = 0; i < vm->ncov; i++) {
        if (strcmp(vm->cov[i].source, source) != 0) continue;
        for (int line = 1; line < vm->cov[i].size && n < max; line++) {
            if (vm->cov[i].lines[line]) out[n++] = line;
        }
    }
    return n;
}

/* Adds the lines with code of the Lua function on the top of the stack (popped) and of the
   functions reachable from its upvalues, directly or through tables, that come from the same
   chunk. `seen` holds visited objects; depth bounds the walk. */
static void active_lines(lua_State *L, const char *source, int seen, unsigned char *lines, int size, int depth) {
    const void *p = lua_topointer(L, -1);
    /* A level holds its table or function, a key and a value, and lua_getinfo's table. */
    if (depth > 8 || p == NULL || !lua_checkstack(L, 6)) {
        lua_pop(L, 1);
        return;
    }
    if (lua_rawgetp(L, seen, p) != LUA_TNIL) {
        lua_pop(L, 2);
        return;
    }
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
    lua_rawsetp(L, seen, p);
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            int type = lua_type(L, -1);
            if (type == LUA_TFUNCTION || type == LUA_TTABLE) {
                active_lines(L, source, seen, lines, size, depth + 1);
            } else {
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
        return;
    }
    if (lua_type(L, -1) != LUA_TFUNCTION || lua_iscfunction(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    for (int i = 1; lua_getupvalue(L, -1, i) != NULL; i++) {
        int type = lua_type(L, -1);
        if (type == LUA_TFUNCTION || type == LUA_TTABLE) {
            active_lines(L, source, seen, lines, size, depth + 1);
        } else {
            lua_pop(L, 1);
        }
    }
    lua_Debug ar;
    lua_pushvalue(L, -1);
    if (lua_getinfo(L, ">SL", &ar) && ar.source != NULL && strcmp(ar.source, source) == 0 && lua_istable(L, -1)) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_Integer line = lua_tointeger(L, -2);
            if (line > 0 && line < size) lines[line] = 1;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 2); /* the activelines table (or nil), the function */
}

typedef struct active_lines_walk {
    const int *refs;
    int nrefs;
    const char *source;
    unsigned char *lines;
    int size;
} active_lines_walk;

/* The walk allocates (its `seen` table, lua_getinfo's tables), so it runs under lua_pcall. */
static int active_lines_protected(lua_State *L) {
    const active_lines_walk *walk = (const active_lines_walk *)lua_touserdata(L, 1);
    lua_newtable(L);
    int seen = lua_gettop(L);
    for (int i = 0; i < walk->nrefs; i++) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, walk->refs[i]);
        active_lines(L, walk->source, seen, walk->lines, walk->size, 0);
    }
    return 0;
}

int permit_active_lines(lua_State *L, const int *refs, int nrefs, const char *source, int *out, int max) {
    permit_vm *vm = getvm(L);
    int size = 1 << 16;
    unsigned char *lines = (unsigned char *)calloc((size_t)size, 1);
    if (lines == NULL || !lua_checkstack(L, 3)) {
        free(lines);
        return 0;
    }
    int saved = vm->limit_on;
    vm->limit_on = 0;
    active_lines_walk walk = {refs, nrefs, source, lines, size};
    int base = lua_gettop(L);
    lua_pushcfunction(L, active_lines_protected);
    lua_pushlightuserdata(L, &walk);
    int status = lua_pcall(L, 1, 0, 0);
    lua_settop(L, base);
    vm->limit_on = saved;
    int n = 0;
    for (int line = 1; status == LUA_OK && line < size && n < max; line++) {
        if (lines[line]) out[n++] = line;
    }
    free(lines);
    return n;
}
