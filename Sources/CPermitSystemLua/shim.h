#ifndef PERMIT_SYSTEM_LUA_H
#define PERMIT_SYSTEM_LUA_H
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#endif
