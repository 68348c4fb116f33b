#ifndef PERMIT_CLUA_SHIM_H
#define PERMIT_CLUA_SHIM_H
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#endif
