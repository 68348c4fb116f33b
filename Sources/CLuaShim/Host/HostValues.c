/* Values from the host, pushed under protection. Making a string or a table can raise a memory
   error; raised outside a protected call it would abort the process, and raised while Swift
   code is on the C stack it would unwind through Swift frames. So the host describes its
   values (flattened, permit_sandbox.h's permit_value) and C builds them inside lua_pcall. */
#include "shim_internal.h"
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

/* Deeper than any host value may be (LuaLimits.maxTableDepth is checked before); bounds the C
   recursion whatever the description says. */
#define MAX_DEPTH 200

typedef struct description {
    const permit_value *values;
    size_t count, at;
    const char *text;
    size_t text_bytes;
    int roots;
} description;

static void damaged(lua_State *L) { luaL_error(L, "host value description is damaged"); }

/* Pushes value `d->at` (with its whole subtree) and moves past it. */
static void build(lua_State *L, description *d, int depth) {
    if (d->at >= d->count || depth > MAX_DEPTH) damaged(L);
    const permit_value *v = &d->values[d->at++];
    luaL_checkstack(L, 3, "host value nested too deeply");
    switch (v->type) {
    case PERMIT_V_NIL: lua_pushnil(L); break;
    case PERMIT_V_BOOLEAN: lua_pushboolean(L, v->integer != 0); break;
    case PERMIT_V_INTEGER: lua_pushinteger(L, (lua_Integer)v->integer); break;
    case PERMIT_V_NUMBER: lua_pushnumber(L, (lua_Number)v->number); break;
    case PERMIT_V_STRING:
        if (v->text_offset > d->text_bytes || v->text_length > d->text_bytes - v->text_offset) damaged(L);
        lua_pushlstring(L, d->text + v->text_offset, v->text_length);
        break;
    case PERMIT_V_REF: lua_rawgeti(L, LUA_REGISTRYINDEX, (lua_Integer)v->integer); break;
    case PERMIT_V_TABLE: {
        if (v->integer < 0 || (uint64_t)v->integer > d->count || v->array < 0) damaged(L);
        int64_t hash = v->integer - v->array;
        lua_createtable(L, v->array, hash > 0 ? (int)hash : 0);
        for (int64_t entry = 0; entry < v->integer; entry++) {
            build(L, d, depth + 1);
            build(L, d, depth + 1);
            lua_rawset(L, -3);
        }
        break;
    }
    default: damaged(L);
    }
}

/* Argument 1: the description (light userdata). Returns its roots. */
static int build_protected(lua_State *L) {
    description *d = (description *)lua_touserdata(L, 1);
    lua_pop(L, 1);
    for (int i = 0; i < d->roots; i++) build(L, d, 0);
    if (d->at != d->count) damaged(L);
    return d->roots;
}

/* LUA_OK with the roots pushed, or the status with the error object pushed. */
static int push_described(lua_State *L, description *d) {
    lua_pushcfunction(L, build_protected);
    lua_pushlightuserdata(L, d);
    return lua_pcall(L, 1, d->roots, 0);
}

int permit_push_values(lua_State *L, const permit_value *values, size_t count, const char *text, size_t text_bytes,
                       int roots) {
    if (roots < 0 || roots > 1000000 || !lua_checkstack(L, roots + 3)) return PERMIT_E_RUNTIME;
    description d = {values, count, 0, text, text_bytes, roots};
    int status = push_described(L, &d);
    if (status == LUA_OK) return PERMIT_OK;
    lua_pop(L, 1);
    return status == LUA_ERRMEM ? PERMIT_E_MEMORY : PERMIT_E_RUNTIME;
}

void permit_shim_drop_staged(permit_vm *vm) {
    free(vm->staged);
    vm->staged = NULL;
    vm->staged_count = 0;
    vm->staged_text_bytes = 0;
}

int permit_host_results(lua_State *L, const permit_value *values, size_t count, const char *text, size_t text_bytes) {
    permit_vm *vm = getvm(L);
    permit_shim_drop_staged(vm);
    if (count > (SIZE_MAX - text_bytes - 1) / sizeof(permit_value)) {
        permit_host_error(L, "host function results too large");
        return -1;
    }
    size_t bytes = count * sizeof(permit_value) + text_bytes + 1;
    permit_value *copy = (permit_value *)malloc(bytes);
    if (copy == NULL) {
        permit_host_error(L, "not enough memory");
        return -1;
    }
    if (count > 0) memcpy(copy, values, count * sizeof(permit_value));
    if (text_bytes > 0) memcpy((char *)(copy + count), text, text_bytes);
    vm->staged = copy;
    vm->staged_count = count;
    vm->staged_text_bytes = text_bytes;
    return 0;
}

int permit_shim_push_staged(lua_State *L, permit_vm *vm, int n) {
    description d = {vm->staged, vm->staged_count, 0, (const char *)(vm->staged + vm->staged_count),
                     vm->staged_text_bytes, n};
    if (n > 0 && vm->staged == NULL) {
        lua_pushliteral(L, "host function results were not staged");
        return LUA_ERRRUN;
    }
    if (n == 0) {
        permit_shim_drop_staged(vm);
        return LUA_OK;
    }
    int status = push_described(L, &d);
    permit_shim_drop_staged(vm);
    return status;
}
