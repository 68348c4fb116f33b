#ifndef PERMIT_CLUA_REFERENCE_SHIM_H
#define PERMIT_CLUA_REFERENCE_SHIM_H
/* Lua 5.4 as the reference hosts use it: plain, straight through its C API. */
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#endif
