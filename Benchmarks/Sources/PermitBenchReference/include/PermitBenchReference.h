#ifndef PERMIT_BENCH_REFERENCE_H
#define PERMIT_BENCH_REFERENCE_H
#include <stddef.h>
#include "MinimalReference.h"

/// The C reference of `permit-benchmark`: the same policy driven straight through the Lua C
/// API, with no Swift in between. Each function returns 0 on success, or -1 and writes a
/// message into `error` (of `error_size` bytes).

/// Warm decisions: builds a context with the same fields Permit's bridge builds (20 top-level
/// and nested fields), calls the cached `decide` through lua_pcall, reads the decision's
/// action and texts back. Writes the duration of each decision in nanoseconds to `samples`.
int permit_reference_decisions(const char *source, size_t length, int iterations, double *samples,
                               char *error, size_t error_size);

/// Cold start: luaL_newstate + luaL_openlibs + loading and running the policy chunk. Writes
/// each start's duration in nanoseconds to `samples`.
int permit_reference_cold_starts(const char *source, size_t length, int iterations, double *samples,
                                 char *error, size_t error_size);

#endif
