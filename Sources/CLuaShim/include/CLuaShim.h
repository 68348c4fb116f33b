#ifndef PERMIT_CLUASHIM_H
#define PERMIT_CLUASHIM_H
#include <lua.h>
/// Placeholder; the Lua runtime issue fills this target.
int permit_lua_version_num(void);
#endif
