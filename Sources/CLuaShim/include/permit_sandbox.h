#ifndef PERMIT_SANDBOX_H
#define PERMIT_SANDBOX_H
/*
 * The sandbox: the shim's public layer, as lua.h is Lua's. Included by PermitLua (Swift, through
 * the CLuaShim module), by permit_context.h, which builds on it, and by the shim's own C files
 * (through shim_internal.h).
 *
 * Everything here runs on one lua_State owned by one Swift `LuaVM`: opening and closing the
 * sandboxed state, loading text, calling under the instruction budget, the time limit and the
 * memory cap, registry references, the trace `print` and `permit.log` write, host functions
 * and the values they exchange, and line coverage. The shim provides what Swift cannot
 * express: Lua's C macros, a byte-capped allocator, an instruction-count hook shared by every
 * thread (coroutine) of the state, the sandboxed standard library (plain-text string.find
 * without patterns, string.rep, table functions, load, rawset, getmetatable, setmetatable,
 * print), the `permit` helpers, a message handler and a trampoline for host functions written
 * in Swift (the Swift callback never sees a longjmp: it reports failure through its return
 * value and the trampoline raises the Lua error).
 *
 * The warm context a decision pushes is permit_context.h's; what only tests reach is
 * permit_test_hooks.h's (private, next to the C files).
 */
#include <stddef.h>
#include <stdint.h>
#include <lua.h>

/// Returned by permit_load / permit_call; also the error kinds.
enum {
    PERMIT_OK = 0,
    PERMIT_E_RUNTIME = 1,
    PERMIT_E_SYNTAX = 2,
    PERMIT_E_MEMORY = 3,
    PERMIT_E_BUDGET = 4,
    PERMIT_E_ERRERR = 5,
    PERMIT_E_BINARY = 6,
    PERMIT_E_STRING_SIZE = 8,
    PERMIT_E_TIME = 9,
    PERMIT_E_NESTING = 10
};

typedef struct permit_limits {
    int64_t instructions_per_call;
    size_t memory_bytes;
    size_t max_string;
    size_t trace_cap;
    int64_t time_limit_ms; /* 0: none */
    size_t max_table_slots; /* most hash slots of one table (0: no cap) */
    size_t max_source;      /* longest source text `load` compiles (0: no cap) */
} permit_limits;

/// Opens a sandboxed state (NULL when the state cannot be created).
lua_State *permit_open(const permit_limits *limits, uint64_t seed);
/// The pack's copy for permit.copy: the table stored at registry reference `ref` (key → a table
/// of translations by locale), kept where no script reaches it. Set before the policy's chunk runs.
void permit_set_copy(lua_State *L, int ref);
void permit_close(lua_State *L);

/// Compiles text only into a fresh sandbox environment. On PERMIT_OK pushes the
/// function, otherwise pushes an error message. Never raises.
int permit_load(lua_State *L, const char *src, size_t len, const char *chunkname);

/// Prepares the main chunk at registry slot `chunk_ref` to run again as a new process of the
/// policy (Restart.c): a fresh environment for it, math.random seeded with `seed`, tostring's
/// object numbers started over. Runs nothing of the script. PERMIT_OK, or an error status
/// with its message pushed. Never raises.
int permit_fresh_process(lua_State *L, int chunk_ref, uint64_t seed);
/// After that run: checks that the value at `idx` is a policy table with `decide` (and with
/// `plan_reminders` exactly when `plan_slot` > 0), then stores them at registry slots
/// `decide_slot` and `plan_slot`. PERMIT_OK, or an error status with its message pushed (the
/// slots unchanged). Never raises.
int permit_adopt_policy(lua_State *L, int idx, int decide_slot, int plan_slot);

/// Calls the function below `nargs` arguments under the budgets and the memory
/// cap. Leaves every result (PERMIT_OK) or one error object on the stack in
/// place of function and arguments. Never raises.
int permit_call(lua_State *L, int nargs);
/// Pushes the traceback of the last failed call (or nil) and forgets it.
void permit_take_traceback(lua_State *L);
/// Pushes the source name of the function at `idx` (e.g. "@policy.lua").
void permit_push_source(lua_State *L, int idx);
/// The line where the Lua function at `idx` starts (0 for a main chunk), -1 for a C function or
/// any other value. Never raises.
int permit_line_defined(lua_State *L, int idx);

int permit_ref(lua_State *L);               /* pops the top value; LUA_NOREF (-2) when memory ran out */
void permit_unref(lua_State *L, int ref);
int permit_push_ref(lua_State *L, int ref); /* returns the pushed type */
/// Replaces the table on top by a read-only proxy (nested tables too). Runs under protection:
/// PERMIT_OK, or PERMIT_E_MEMORY / PERMIT_E_RUNTIME with the error message in the table's place.
int permit_make_readonly(lua_State *L);
/// Describes a non-string error object without running any metamethod.
void permit_push_error_text(lua_State *L, int idx);

size_t permit_memory_used(lua_State *L);
size_t permit_memory_peak(lua_State *L);
void permit_collect_garbage(lua_State *L);
int64_t permit_instructions_used(lua_State *L);

const char *permit_trace(lua_State *L, size_t *len, int *truncated, size_t *dropped);
void permit_trace_clear(lua_State *L);
/// Nothing printed since the last drain (so there is nothing to copy out).
int permit_trace_is_empty(lua_State *L);

/// A host function: reads its arguments (1...lua_gettop) using only API calls that cannot
/// raise, stages its results with permit_host_results and returns their number, or returns -1
/// after permit_host_error. The trampoline pushes the staged results after the callback has
/// returned, so an error while pushing (memory) never unwinds through the host's frames. The
/// memory cap is off while it runs and at least PERMIT_HOST_STACK slots are free.
#define PERMIT_HOST_STACK 40
typedef int (*permit_host_callback)(lua_State *L, void *context);
/// Pushes the host function (PERMIT_OK), or nothing (PERMIT_E_MEMORY); never raises.
int permit_push_host_function(lua_State *L, permit_host_callback callback, void *context);
void permit_host_error(lua_State *L, const char *message);

/* Host values, flattened so C can push them under protection: in pre-order, a table is
   followed by its entries, each a key subtree then a value subtree. Strings are bytes of
   `text`. */
enum {
    PERMIT_V_NIL = 1, PERMIT_V_BOOLEAN, PERMIT_V_INTEGER, PERMIT_V_NUMBER, PERMIT_V_STRING, PERMIT_V_TABLE,
    PERMIT_V_REF
};
typedef struct permit_value {
    int64_t integer; /* INTEGER; BOOLEAN 0 or 1; REF: registry slot; TABLE: entries that follow */
    double number;   /* NUMBER */
    int32_t type;    /* PERMIT_V_* */
    int32_t array;   /* TABLE: array size hint */
    size_t text_offset, text_length; /* STRING */
} permit_value;
/// Pushes the `roots` values described by `values` (PERMIT_OK), or nothing: PERMIT_E_MEMORY
/// when memory ran out, PERMIT_E_RUNTIME when the stack cannot grow or the description is
/// damaged. Never raises.
int permit_push_values(lua_State *L, const permit_value *values, size_t count, const char *text, size_t text_bytes,
                       int roots);
/// Inside a host callback: copies the results for the trampoline to push; 0, or -1 (after
/// setting the host error) when there is no memory for the copy.
int permit_host_results(lua_State *L, const permit_value *values, size_t count, const char *text, size_t text_bytes);

/* Macro wrappers. */
void permit_pop(lua_State *L, int n);
const char *permit_tolstring_raw(lua_State *L, int idx, size_t *len); /* strings only */
int permit_is_integer(lua_State *L, int idx);
int permit_lua_version_num(void);
/// How many times slower than the app's build this build runs the same work: 10 when the shim
/// is compiled with AddressSanitizer or ThreadSanitizer, otherwise 1 (Budget/Instrumented.c).
int permit_instrumented_slowdown(void);
/// LUA_VERSION_RELEASE_NUM of the header compiled against (50404 for 5.4.4).
int permit_lua_header_release(void);
/// The linked library's release as a behaviour probe sees it: 50404 when 5.4.4's bugs show
/// (5.4.4 or older), 50406 when they do not (5.4.6 or newer), 0 when the probe cannot run.
int permit_lua_runtime_release(void);
/// Whether the last memory error of a call was a table growing past max_table_slots.
int permit_table_cap_hit(lua_State *L);

/* Line coverage. With coverage on, the hook also records each line run, per chunk source
   (`@name`). permit_covered_lines writes up to `max` covered lines of `source` to `out`, in
   order, and returns how many; permit_active_lines does the same for the lines with code in
   the functions behind `refs` and those reachable from their upvalues (same chunk only). */
void permit_set_coverage(lua_State *L, int on);
int permit_covered_lines(lua_State *L, const char *source, int *out, int max);
int permit_active_lines(lua_State *L, const int *refs, int nrefs, const char *source, int *out, int max);
/* Decision coverage: the line of the `return` that ended the last call's outermost function
   (for `return f(x)`, that line, not f's), 0 when it raised or coverage is off. */
int permit_cov_return_line(lua_State *L);
/* The first and last line of the Lua function behind `ref`; 0 when it is not one. */
int permit_function_span(lua_State *L, int ref, int *first, int *last);

#endif
