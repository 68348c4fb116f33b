#ifndef PERMIT_TEST_HOOKS_H
#define PERMIT_TEST_HOOKS_H
/*
 * Test hooks: the shim's private layer for tests, which no host calls. Included by the test
 * targets alone, as the explicit submodule `CLuaShim.TestHooks` (`import CLuaShim.TestHooks`;
 * include/module.modulemap), and by the C files that define the hooks (Allocator.c, Bounds.c,
 * LazyContext.c) so that their definitions are checked against it. A plain `import CLuaShim`
 * does not bring it in, and LayeringTests fails if a target under Sources/ imports it.
 *
 * What only tests reach: a refused allocation at a chosen step, the sandbox's base table to
 * enumerate what a policy can call, a damaged lazy-ctx snapshot, and the small pool itself
 * (small_pool.h, included below, private to the shim otherwise).
 */
#include <stddef.h>
#include <stdint.h>
#include <lua.h>
#include "include/permit_sandbox.h"
#include "small_pool.h"

/* Refuses the `n`th allocation that grows memory while the cap applies (script code
   running), as if the cap were reached; 0 disarms. It costs the normal path nothing.
   permit_fail_allocation_pending is how many growths remain before it (0: it happened, or
   none was armed). */
void permit_fail_allocation(lua_State *L, uint64_t n);
uint64_t permit_fail_allocation_pending(lua_State *L);

/* Pushes the sandbox's base table (what a policy's globals read through to). */
void permit_push_sandbox_base(lua_State *L);

/* Attaches a snapshot of `bytes` bytes to the ctx table at `ctx` (made with room in its hash
   part for the snapshot's key and every lazy field) and returns its memory for the test to
   fill with a damaged snapshot (NULL when the stack cannot grow or memory ran out; it runs
   under protection, so it never raises). Raw operations only; call between calls. The host's
   own snapshots are made inside the call instead (permit_ctx_fields). */
void *permit_lazy_attach(lua_State *L, int ctx, size_t bytes);

#endif
