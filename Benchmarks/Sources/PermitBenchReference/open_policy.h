#ifndef PERMIT_BENCH_OPEN_POLICY_H
#define PERMIT_BENCH_OPEN_POLICY_H
#include <lua.h>
#include <stddef.h>

/* The `permit` helpers a policy calls, in plain Lua, with the results the sandbox's give (docs/
   reference/policy.md#helpers): both reference hosts load them, so a policy decides there as in Permit.
   Text helpers are left out: the packs the benchmarks run do not call them. */
#define BENCH_HELPERS \
    "permit = {" \
    "  minutes = function(n) return n * 60 end," \
    "  hours = function(n) return n * 3600 end," \
    "  days = function(n) return n * 86400 end," \
    "  since = function(ctx, t) if t == nil then return math.huge end return ctx.now - t end," \
    "  at_least = function(ctx, v)" \
    "    local major, minor = v:match('^(%d+)%.?(%d*)')" \
    "    major, minor = tonumber(major), tonumber(minor) or 0" \
    "    local p = ctx.platform" \
    "    return p.major > major or (p.major == major and p.minor >= minor)" \
    "  end," \
    "  within_hours = function(ctx, from, to)" \
    "    local h = ctx.local_time.hour" \
    "    if from <= to then return h >= from and h < to end" \
    "    return h >= from or h < to" \
    "  end," \
    "  log = function() end," \
    "}\n"

/* A plain Lua state (all standard libraries, no sandbox) that ran `prelude` and then the
   policy `source`, with the policy's table on top; NULL with the reason in `error` otherwise.
   Shared by both reference hosts, so they load a policy exactly alike. The state allocates as
   luaL_newstate's does (the C library's realloc and free), as a minimal C + Lua host's would. */
lua_State *bench_open_policy(const char *prelude, const char *source, size_t length, char *error, size_t error_size);

#endif
