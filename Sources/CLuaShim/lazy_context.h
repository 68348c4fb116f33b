#ifndef PERMIT_LAZY_CONTEXT_H
#define PERMIT_LAZY_CONTEXT_H

#include <lua.h>

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

/* Attaches a snapshot of `bytes` bytes to the ctx table at `ctx` and returns its memory for
   the host to fill; the list at registry slot `shared` (0: none) becomes the snapshot's user
   value (PERMIT_SHARED_*). May raise (memory), so it runs inside a protected call (FastPath.c
   builds ctx and attaches its snapshot in one). */
void *permit_lazy_attach_in_call(lua_State *L, int ctx, size_t bytes, int shared);

#endif
