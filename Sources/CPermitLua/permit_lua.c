/* Lua 5.4 compiled into Permit, from Lua's own repository (the submodule in ./lua): one
   translation unit that includes Lua's files, so that every internal function is static and
   only the public API is global, and that global API carries the prefix `permit_`
   (permit_lua_config.h). An app can then link its own Lua beside Permit's without a clash.

   Left out: the io, os and package libraries (liolib.c, loslib.c, loadlib.c) and Lua's own
   luaL_openlibs (linit.c), which opens them. They reach `system`, `popen`, `tmpnam` and
   `dlopen`, which iOS refuses and a sandboxed policy never gets; the luaL_openlibs below opens
   what is compiled. Also left out: the stand-alone interpreter and Lua's test library.

   Compiled on every Apple platform, whatever the package traits: the compiler knows its target
   (__APPLE__), so an app's build needs no trait setting, which Xcode before 26.4 does not pass to
   C. On Linux, only with the trait LuaFromSource (Package.swift defines PERMIT_LUA_FROM_SOURCE);
   otherwise this file is empty and the submodule need not be checked out. The traits SystemLua
   and LuaFromSource exclude each other: with both, one program would hold two Lua libraries
   under one set of names.

   Lua's errors are long jumps. Lua uses _setjmp/_longjmp under its POSIX setting and ISO C's
   setjmp/longjmp otherwise; on Apple platforms setjmp also saves the signal mask, a system call
   on every protected call (every policy call), which _setjmp does not. So the POSIX setting,
   on every platform this compiles for. */
#if defined(PERMIT_LUA_FROM_SOURCE) && defined(PERMIT_SYSTEM_LUA)
#error "the package traits SystemLua and LuaFromSource exclude each other: enable one (swift build --traits LuaFromSource, or the default)"
#endif

#if defined(__APPLE__) || defined(PERMIT_LUA_FROM_SOURCE)

#if !__has_include("lapi.c")
#error "Lua's sources are missing: run `git submodule update --init` (Sources/CPermitLua/lua), or on Linux build with the trait SystemLua"
#endif

#define LUA_USE_POSIX
#include "permit_lua_config.h"
#include "lprefix.h"
/* Lua's configuration as its core and libraries see it (each of their files defines these). */
#define LUA_CORE
#define LUA_LIB
#include "luaconf.h"

/* Internal functions and data are static in this one unit; nothing but the API leaves it. */
#undef LUAI_FUNC
#undef LUAI_DDEC
#undef LUAI_DDEF
#define LUAI_FUNC static
#define LUAI_DDEC(declaration) /* defined below, before any use */
#define LUAI_DDEF static

/* Tables other files read come first: their declarations are gone (LUAI_DDEC). */
#include "lctype.c"
#include "lopcodes.c"
#include "ltm.c"
/* The core. */
#include "lzio.c"
#include "lmem.c"
#include "lobject.c"
#include "lstring.c"
#include "ltable.c"
#include "lfunc.c"
#include "lstate.c"
#include "lgc.c"
#include "ldebug.c"
#include "ldo.c"
#include "lvm.c"
#include "llex.c"
#include "lcode.c"
#include "lparser.c"
#include "lundump.c"
#include "ldump.c"
#include "lapi.c"
/* The auxiliary library and the libraries a policy can be given. */
#include "lauxlib.c"
#include "lbaselib.c"
#include "lcorolib.c"
#include "ltablib.c"
#include "lstrlib.c"
#include "lmathlib.c"
#include "lutf8lib.c"
#include "ldblib.c"

/* luaL_openlibs for this Lua: every library compiled above, into the globals. */
LUALIB_API void luaL_openlibs(lua_State *L) {
    static const luaL_Reg compiled[] = {
        {LUA_GNAME, luaopen_base},       {LUA_COLIBNAME, luaopen_coroutine}, {LUA_TABLIBNAME, luaopen_table},
        {LUA_STRLIBNAME, luaopen_string}, {LUA_MATHLIBNAME, luaopen_math},   {LUA_UTF8LIBNAME, luaopen_utf8},
        {LUA_DBLIBNAME, luaopen_debug},   {NULL, NULL},
    };
    for (const luaL_Reg *library = compiled; library->func != NULL; library++) {
        luaL_requiref(L, library->name, library->func, 1);
        lua_pop(L, 1);
    }
}

#endif
