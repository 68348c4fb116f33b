#ifndef PERMIT_MINIMAL_REFERENCE_H
#define PERMIT_MINIMAL_REFERENCE_H
#include <stddef.h>
#include <stdint.h>

/// The minimal C + Lua reference: the limit a host could reach. Each call's ctx is a short
/// program of ops (built by PermitBench from real contexts) that makes only the tables and
/// fields it lists; the cached tables (params, platform, capabilities) are built once, as any
/// host would keep them. A run first records which ctx paths the policy reads (discovery,
/// through read-tracking proxies), so the caller can drop every other field and time only what
/// the policy needs.

/// What one op does. Keys and string values are offsets of NUL-terminated text in `strings`.
enum {
    PERMIT_OP_TABLE = 1,   /// Opens a table (`value` = hash size hint) to be stored at `key`.
    PERMIT_OP_END = 2,     /// Closes the innermost open table: sets it at its key in its parent.
    PERMIT_OP_INTEGER = 3, /// `key` = `value`.
    PERMIT_OP_STRING = 4,  /// `key` = the text at offset `value`.
    PERMIT_OP_BOOLEAN = 5, /// `key` = `value != 0`.
    PERMIT_OP_NUMBER = 6,  /// `key` = `number`.
    PERMIT_OP_CACHED = 7,  /// `key` = cached table number `value` (made before timing).
    PERMIT_OP_PARAMS = 8,  /// `key` = the policy's own `params` table.
    PERMIT_OP_DECIDE = 9,  /// Ends a ctx: calls `decide(ctx)` and reads the decision back.
    PERMIT_OP_PLAN = 10,   /// Ends a ctx: calls `plan_reminders(ctx)` and reads the list back.
    PERMIT_OP_CACHE_END = 11, /// Ends the definition of one cached table (the ops before it).
};

typedef struct {
    int32_t kind;
    int32_t key;   /// offset of the key in `strings`, or -1 for none (the ctx itself)
    int64_t value;
    double number;
} permit_reference_op;

/// What a run measured and what it saw.
typedef struct {
    double cpu_ns;         /// CPU time of this thread over the timed replay (best of `rounds`)
    int64_t calls;         /// policy calls made per round
    uint64_t checksum;     /// a hash of every decision's action and every plan's length
} permit_reference_run;

/// Replays `ops` `rounds` times in one Lua state (luaL_newstate + openlibs + the policy) and
/// keeps the best round's CPU time, allocating as luaL_newstate's state does (the C library's).
/// `cache_ops` defines the cached tables (each ends with PERMIT_OP_CACHE_END). With `reads`
/// non-NULL, the ctx is wrapped in read-tracking proxies and every path read
/// (`history.soft_prompt.shown`, `params`; `x.*` when a table was iterated) is written to `reads`
/// one a line (NUL-terminated, at most `reads_size` bytes). Returns 0, or -1 with a message in
/// `error`.
int permit_minimal_reference(const char *source, size_t length, const permit_reference_op *cache_ops,
                             size_t cache_count, const permit_reference_op *ops, size_t count,
                             const char *strings, int rounds, char *reads, size_t reads_size,
                             permit_reference_run *run, char *error, size_t error_size);

#endif
