#include "CLuaShim.h"
int permit_lua_version_num(void) { return LUA_VERSION_NUM; }
