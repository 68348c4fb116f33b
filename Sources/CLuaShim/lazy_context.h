#ifndef PERMIT_LAZY_CONTEXT_H
#define PERMIT_LAZY_CONTEXT_H

#include <lua.h>
#include "CLuaShim.h"

/* Creates the metatable lazy contexts share; once, while the sandbox is built. */
void permit_lazy_install(lua_State *L);

/* Inside a call: builds the lazy fields of the value at `idx` if it is a lazy ctx. Errors
   (memory) are raised as Lua errors and leave ctx as it was. For the sandbox's functions that
   bypass metamethods (next, pairs, rawget, rawset, getmetatable, setmetatable). */
void permit_lazy_settle_in_call(lua_State *L, int idx);

/* Inside __index of a lazy table (t at 1, k at 2) for a key that is not lazy: answers as the
   strict table of kind `id` would (nil for a field that may be absent, else an error), leaving
   the value on top. */
void permit_strict_index(lua_State *L, int id);

/* Gives the ctx table at `ctx` its lazy fields, to be made from the host's source in `f` on
   first read (the snapshot is made then, permit_lazy_close ends the source). May raise
   (memory), so it runs inside a protected call, as FastPath.c builds ctx. */
void permit_lazy_defer_in_call(lua_State *L, int ctx, const permit_ctx_fields *f);

#endif
