#include "open_policy.h"
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>

/* Permit's VM allocator without its memory cap. */
static void *pooled_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    return small_pool_lua_alloc((small_pool *)ud, ptr, ptr != NULL ? osize : 0, nsize);
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
