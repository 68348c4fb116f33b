#ifndef PERMIT_SHIM_INTERNAL_H
#define PERMIT_SHIM_INTERNAL_H
/* Private to the shim: included by its C files alone, never by a host or a test. What they
   share and the host never sees: the per-VM state behind the allocator's user data (it holds
   the sandbox's and the warm context's state, so it includes both public headers), the
   registry keys, and the helpers one concern offers another (charging the budget, raising a
   guard error, read-only proxies, a fresh environment). */
#include "permit_sandbox.h"
#include "permit_context.h"
#include "small_pool.h"
#include "sandbox_guards.h"
#include <lua.h>
#include <stdint.h>
#include <time.h>

/* Instructions between two count-hook events while the budget holds and no instruction can be
   costly (Budget.c's per-instruction cost model shortens it: permit_vm.step). */
#define HOOK_STEP 1000
/* Room for LazyContext.c's key names (a static assertion there checks they fit). */
#define LAZY_NAME_SLOTS 64
/* Bytes of one hash node of a Lua 5.4 table (a node vector is 2^k of them). */
#define NODE_BYTES 24

/* Registry keys: the addresses of these bytes (light userdata), so reading or clearing an
   entry never makes a string, which could raise a memory error where the host is not in a
   protected call (after a call, taking the traceback). Defined in Sandbox.c. */
extern const char permit_shim_key_base, permit_shim_key_frozen, permit_shim_key_traceback, permit_shim_key_guard,
    permit_shim_key_randomseed, permit_shim_key_copy;
#define KEY_BASE ((const void *)&permit_shim_key_base)
#define KEY_FROZEN ((const void *)&permit_shim_key_frozen)
#define KEY_TRACEBACK ((const void *)&permit_shim_key_traceback)
#define KEY_GUARD ((const void *)&permit_shim_key_guard)
#define KEY_RANDOMSEED ((const void *)&permit_shim_key_randomseed)
#define KEY_COPY ((const void *)&permit_shim_key_copy)

typedef struct permit_vm {
    small_pool pool; /* Lua's small blocks (see small_pool.h) */
    size_t used, peak, limit;
    /* Tests (permit_fail_allocation): the growth to refuse (1: the next; 0: not armed), the
       real cap while armed, and the refused request, whose retry is refused too. */
    uint64_t fail_countdown;
    size_t armed_limit;
    int fail_retry;
    const void *fail_ptr;
    size_t fail_old, fail_new;
    int limit_on;    /* the cap applies only while script code can run */
    int mem_refused; /* the allocator refused a request during this call */
    int64_t budget_limit, budget_left;
    int budget_exceeded; /* sticky until the next call starts */
    int time_exceeded;
    int in_call; /* script code may run: allocations are charged */
    int64_t time_limit_ns, call_start_ns;
    int64_t time_check_ns; /* the limit the coarse clock is compared with (see Sandbox.c) */
    int guard_kind;
    size_t max_string;
    char *trace;
    size_t trace_len, trace_cap, trace_dropped;
    int trace_truncated;
    char host_error[512];
    /* A host function's results, staged by permit_host_results for the trampoline to push
       (HostValues.c): malloc'd values then text. */
    permit_value *staged;
    size_t staged_count, staged_text_bytes;
    /* Line coverage (permit test --coverage): lines run, per chunk source. */
    int coverage_on;
    struct cov_chunk {
        char *source;
        unsigned char *lines; /* one byte per line */
        int size;
    } cov[16];
    int ncov;
    /* Decision coverage: the line of the `return` that ended the host's outermost call (0:
       none yet), and the last line that outermost frame ran before a tail call replaced it. */
    int cov_return_line;
    int cov_base_line;
    permit_guard_state guards; /* sandbox_guards.h */
    int sticky_kind;           /* an error the script cannot swallow (PERMIT_E_NESTING), 0: none */
    /* What one VM instruction may cost (Budget.c, "per-instruction cost"): the longest string
       alive (comparing it) and the largest hash part this VM has made (walking a collision
       chain). Strings of LIVE_STRING_MIN bytes or more are tracked while they live (`long`,
       their blocks); shorter ones count by the longest ever made. From them: the instructions
       between two clock readings and the time reserved for them. `running` is the thread the
       hook last saw, whose step shrinks at once when an allocation makes instructions
       costlier. */
    struct live_string {
        const void *block;
        size_t bytes;
    } *long_strings;
    size_t long_count, long_cap;
    size_t longest_short, longest_string, largest_slots;
    int step;
    int64_t reserve_ns;
    lua_State *running;
    int call_events;           /* call events this call (Budget.c reads the clock every 16th) */
    size_t max_source;         /* longest text `load` compiles (0: no cap) */
    size_t max_table_bytes;    /* node vectors of more hash slots are refused (0: no cap) */
    int table_refused;         /* this call's memory error came from that cap */
    /* What building and reading ctx looks up on every event, kept where it costs least
       (LazyContext.c, StrictContext.c): registry entries as integer slots (luaL_ref: an array
       read, where a light-userdata key is a hash lookup; 0 when not made), the lazy
       metatables' addresses (to recognise a lazy table without reading the registry), and
       the text of each lazy key name (short strings are interned: a key is that name exactly
       when its text is at that address). */
    int lazy_names_ref;
    int lazy_metatable_ref[2];
    const void *lazy_metatable[2];
    const char *lazy_name_text[LAZY_NAME_SLOTS];
    int strict_ref[PERMIT_STRICT_COUNT];
    /* The ctx whose snapshot is made on first read (LazyContext.c): its call's serial (which
       the snapshot records), its address (NULL once that call has returned: the host's source
       is valid only while it runs), the stored tables' slot, and the host's functions that
       measure and write the snapshot. */
    int64_t lazy_serial;
    const void *lazy_ctx;
    int lazy_shared;
    const void *lazy_source;
    size_t (*lazy_measure)(const void *source);
    void (*lazy_write)(const void *source, void *memory);
} permit_vm;

/* The wall-clock net needs milliseconds, not nanoseconds: the coarse clock (the kernel's tick,
   a few ms) is read without the cycle counter's cost, which every call paid. */
static inline int64_t now_ns(void) {
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline permit_vm *getvm(lua_State *L) {
    void *ud = NULL;
    (void)lua_getallocf(L, &ud);
    return (permit_vm *)ud;
}

/* The count hook and call events always (Budget.c: a call is the one step a C loop calling
   back into script values takes); line and return events too while coverage is on. */
static inline int hook_mask(const permit_vm *vm) {
    return LUA_MASKCOUNT | LUA_MASKCALL |
           (vm->coverage_on ? LUA_MASKLINE | LUA_MASKRET : 0);
}

/* Instructions between hook events while the budget holds (Budget.c, "per-instruction cost"). */
static inline int hook_step(const permit_vm *vm) { return vm->step > 0 ? vm->step : HOOK_STEP; }

/* Allocator.c */
void *permit_shim_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* Budget.c */
void permit_shim_count_hook(lua_State *L, lua_Debug *ar);
/* Marks the budget spent and raises the budget error naming `where`. */
int permit_shim_budget_fail(lua_State *L, permit_vm *vm, const char *where);
/* Charges work done inside C library functions against the instruction budget. */
void permit_shim_charge(lua_State *L, permit_vm *vm, uint64_t units, const char *where);
/* Raises an error of a guard kind the host can recognise (PERMIT_E_*). */
int permit_shim_raise_guard(lua_State *L, int kind, const char *fmt, ...);

/* Strings this long are tracked while they live (Allocator.c). */
#define LIVE_STRING_MIN 1024
/* Recomputes the step and the reserve after what one instruction may cost has changed (a
   longer string, a larger table, a long string gone); shrinks the running thread's step at
   once during a call. */
void permit_shim_cost_changed(permit_vm *vm);

/* Units one function call costs (a call and its hook event: about 25 ns). */
#define CALL_EVENT_UNITS 10

/* HostCalls.c: the message handler of permit_call (adds the traceback; runs no script code). */
int permit_shim_msgh(lua_State *L);

/* Bounds.c */
/* Charges work proportional to a call's input before it starts: units below a few thousand
   come off the budget, more also read the clock and refuse what would end past the limit. */
void permit_shim_charge_input(lua_State *L, uint64_t units, const char *where);
/* Wraps the library functions whose work grows with a string they walk, charging them by its
   size first (string.format's %q and load are charged by their own wrappers). */
void permit_shim_install_bounds(lua_State *L, int base, int string);
/* The units `load` is charged for compiling `len` bytes: the measured worst case (a chain of
   `or`, whose compile time grows with the square of its length), in budget units. */
uint64_t permit_shim_compile_units(size_t len);

/* Coverage.c */
void permit_shim_cov_record(lua_State *L, permit_vm *vm, lua_Debug *ar);
/* Notes the line of the `return` that ends the host's outermost call. */
void permit_shim_cov_return(lua_State *L, permit_vm *vm, lua_Debug *ar);

/* HostValues.c */
/* Pushes the `n` staged results under protection and drops them: LUA_OK, or the status with
   the error object on the stack. */
int permit_shim_push_staged(lua_State *L, permit_vm *vm, int n);
void permit_shim_drop_staged(permit_vm *vm);

/* Trace.c */
int permit_shim_print(lua_State *L);

/* ReadOnly.c */
int permit_shim_is_frozen(lua_State *L, int idx);
/* Pushes an empty proxy whose reads go to the table at `real`. */
void permit_shim_push_proxy(lua_State *L, int real);
/* When the value at idx is a read-only proxy, replaces it by the table it guards (for next,
   rawget and rawlen, which read without metamethods; the table's values are proxies or
   functions themselves). Returns whether it did. */
int permit_shim_unwrap_frozen(lua_State *L, int idx);

/* BaseLib.c */
/* Pushes a fresh environment whose reads fall through to the sandbox base. */
void permit_shim_push_new_env(lua_State *L);
int permit_shim_next(lua_State *L);
int permit_shim_pairs(lua_State *L);
int permit_shim_rawget(lua_State *L);
int permit_shim_rawset(lua_State *L);
int permit_shim_rawlen(lua_State *L);
int permit_shim_load(lua_State *L);

/* ChargedLib.c */
/* Starts tostring's object numbers over (a new process of the policy): a fresh map, next #1.
   Raises on a memory error; call it protected. */
void permit_shim_restart_object_ids(lua_State *L);
/* StringLib.c */
int permit_shim_find(lua_State *L);
int permit_shim_rep(lua_State *L);
/* Sets lib[name] to a function that refuses with the advice on what to use instead. */
void permit_shim_refuse_patterns(lua_State *L, int lib, const char *name);

/* TableLib.c */
int permit_shim_tinsert(lua_State *L);
int permit_shim_tremove(lua_State *L);
int permit_shim_tmove(lua_State *L);
int permit_shim_randomseed(lua_State *L);

/* PermitLib.c */
int permit_shim_minutes(lua_State *L);
int permit_shim_hours(lua_State *L);
int permit_shim_days(lua_State *L);
int permit_shim_since(lua_State *L);
int permit_shim_at_least(lua_State *L);
int permit_shim_version_at_least(lua_State *L);
int permit_shim_copy(lua_State *L);
int permit_shim_within_hours(lua_State *L);

/* CopyFill.c */
/* Raises an error naming `key` unless the table at `values` holds strings and numbers by name. */
void permit_shim_check_copy_values(lua_State *L, int values, const char *key);
/* Pushes `text` with its placeholders filled from the table at `values` (0: none given), or
   raises an error naming `key`, `locale` and a placeholder no value fills. */
void permit_shim_push_filled(lua_State *L, const char *text, size_t len, int values, const char *key, const char *locale);

/* StrictContext.c */
/* Pushes where the policy's code is ("policy.lua:12: "): the nearest Lua function up the
   stack, for an error raised in a metamethod the policy's read called (luaL_error's level 1
   would name that C function, which has no line). */
void permit_shim_push_where(lua_State *L);

/* TextHelpers.c */
int permit_shim_starts_with(lua_State *L);
int permit_shim_ends_with(lua_State *L);
int permit_shim_contains(lua_State *L);
int permit_shim_split(lua_State *L);
int permit_shim_trim(lua_State *L);

#endif
