/* Nothing to compile: the target's one purpose is its dependency on CPermitLua
   (include/permit_lua_from_source.h says why). */
#include "permit_lua_from_source.h"
