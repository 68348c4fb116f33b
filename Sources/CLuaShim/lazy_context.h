#ifndef PERMIT_LAZY_CONTEXT_H
#define PERMIT_LAZY_CONTEXT_H

/* Private to the shim: the lazy ctx's and the strict ctx's internals that the shim's other C
   files call (the sandbox's library functions settle a lazy table; the fast path's readers
   settle and check). Included by BaseLib.c, ChargedLib.c, FastPath.c, LazyContext.c,
   Sandbox.c and StrictContext.c; never by a host or a test. */
#include <lua.h>
#include "permit_context.h"

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

/* Builds the lazy fields of the table at `idx` if it has any (protected: an error leaves it
   as it was and returns -1); 1 when it built them, 0 when there was nothing to build. For
   the host's readers between calls (FastPath.c). */
int permit_lazy_settle(lua_State *L, int idx);

/* Whether the table at `idx` has a strict metatable (a host table read back as plain data). */
int permit_strict_is(lua_State *L, int idx);

#endif
