#include "open_policy.h"
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>

/* Lua's allocator over the pool: what Permit's VM allocator does without its memory cap. */
static void *pooled_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    small_pool *pool = (small_pool *)ud;
    size_t old = ptr != NULL ? osize : 0;
    if (nsize == 0) {
        if (ptr != NULL && !small_pool_give(pool, ptr, old)) free(ptr);
        return NULL;
    }
    void *block = ptr == NULL ? small_pool_take_listed(pool, nsize) : NULL;
    return block != NULL ? block : small_pool_realloc(pool, ptr, old, nsize);
}

lua_State *bench_open_policy(const char *prelude, const char *source, size_t length, small_pool *pool, char *error,
                             size_t error_size) {
    lua_State *L = pool != NULL ? lua_newstate(pooled_alloc, pool) : luaL_newstate();
    if (L == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    luaL_openlibs(L);
    if (luaL_dostring(L, prelude) != LUA_OK ||
        luaL_loadbufferx(L, source, length, "=policy", "t") != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
        snprintf(error, error_size, "%s", lua_tostring(L, -1));
        lua_close(L);
        return NULL;
    }
    if (!lua_istable(L, -1)) {
        snprintf(error, error_size, "the policy did not return a table");
        lua_close(L);
        return NULL;
    }
    return L;
}
