/* Lua's lauxlib.h as Permit's own Lua shows it: the configuration first (every public name
   prefixed), then Lua's header from the submodule. Files that write #include <lauxlib.h> get this
   one, because this folder is on their include path. */
#ifndef PERMIT_CPERMITLUA_LAUXLIB_H
#define PERMIT_CPERMITLUA_LAUXLIB_H
#if __has_include("../lua/lauxlib.h")
#include "permit_lua_config.h"
#include "../lua/lauxlib.h"
#else
/* Lua's sources are not checked out, so this Lua is not built: tools that read every module map
   whatever the traits (the documentation's symbol extraction) get the next lauxlib.h on the path. */
#include_next <lauxlib.h>
#endif
#endif
