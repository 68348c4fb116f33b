#include "open_policy.h"
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>

lua_State *bench_open_policy(const char *prelude, const char *source, size_t length, char *error, size_t error_size) {
    lua_State *L = luaL_newstate();
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
