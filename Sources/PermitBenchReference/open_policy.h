#ifndef PERMIT_BENCH_OPEN_POLICY_H
#define PERMIT_BENCH_OPEN_POLICY_H
#include <lua.h>
#include <stddef.h>

/* A plain Lua state (all standard libraries, no sandbox) that ran `prelude` and then the
   policy `source`, with the policy's table on top; NULL with the reason in `error` otherwise.
   Shared by both reference hosts, so they load a policy exactly alike. */
lua_State *bench_open_policy(const char *prelude, const char *source, size_t length, char *error, size_t error_size);

#endif
