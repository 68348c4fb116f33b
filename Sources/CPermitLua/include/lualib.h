/* Lua's lualib.h as Permit's own Lua shows it: the configuration first (every public name
   prefixed), then Lua's header from the submodule. Files that write #include <lualib.h> get this
   one, because this folder is on their include path. */
#ifndef PERMIT_CPERMITLUA_LUALIB_H
#define PERMIT_CPERMITLUA_LUALIB_H
#include "permit_lua_config.h"
#include "../lua/lualib.h"
#endif
