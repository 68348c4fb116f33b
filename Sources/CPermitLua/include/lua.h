/* Lua's lua.h as Permit's own Lua shows it: the configuration first (every public name
   prefixed), then Lua's header from the submodule. Files that write #include <lua.h> get this
   one, because this folder is on their include path. */
#ifndef PERMIT_CPERMITLUA_LUA_H
#define PERMIT_CPERMITLUA_LUA_H
#include "permit_lua_config.h"
#include "../lua/lua.h"
#endif
