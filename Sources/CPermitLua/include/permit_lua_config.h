/* How Permit's own Lua is configured, seen by Lua's files and by every file that includes its
   headers alike: Lua 5.3's compatibility switch on, as Debian builds the system's Lua (so a
   policy meets the same math library under `permit test` on Linux and in an app), and every
   public name prefixed (permit_lua_names.h). No system headers here: Lua's lprefix.h must come
   before them in Lua's own translation unit. */
#ifndef PERMIT_LUA_CONFIG_H
#define PERMIT_LUA_CONFIG_H
#ifndef LUA_COMPAT_5_3
#define LUA_COMPAT_5_3
#endif
#include "permit_lua_names.h"
#endif
