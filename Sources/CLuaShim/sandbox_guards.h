#ifndef PERMIT_SANDBOX_GUARDS_H
#define PERMIT_SANDBOX_GUARDS_H
/*
 * Private to the shim: included by its C files alone (through shim_internal.h, and directly by
 * FastPath.c and ReminderList.c), never by a host or a test.
 *
 * The sandbox's guards against the linked Lua's known bugs (Lua544Guards.c) and against
 * single C calls that would run past the time limit (ChargedLib.c).
 *
 * Both files replace library functions with wrappers while the sandbox is built; they reach
 * the VM's budget only through the functions below, which the budget code provides.
 */
#include <stdint.h>
#include <lua.h>

/* Deepest nesting of coroutine.resume / wrap / close (together). Lua 5.4.4 does not count the
   C stack used by coroutine.close, so a chain of __close handlers closing coroutines recursed
   until the process crashed. Lua's own C-call limit is 200; real policies nest 0 or 1. */
#define PERMIT_COROUTINE_DEPTH 40
/* Deepest nesting of xpcall message handlers running script code. */
#define PERMIT_HANDLER_DEPTH 4

/* Per-VM state of the guards (lives in the VM, reset at every call). */
typedef struct permit_guard_state {
    int coroutine_depth;
    int handler_depth;
    int64_t next_object_id; /* tostring's counter (per VM, never reset) */
} permit_guard_state;

/* Runs the library function in upvalue 1 on this call's arguments, in this call's own frame,
   and returns its results. A wrapper called from the script has the frame Lua's own function
   would have had, so an argument error names the function as the script called it
   (`bad argument #2 to 'format'`) and an error carries the script's position; through
   lua_call the original would run in a frame called from C, named '?', its position lost.
   Only for library functions that read no upvalues of their own (math.randomseed and the
   functions coroutine.wrap makes do). */
static inline int permit_run_original(lua_State *L) {
    lua_CFunction original = lua_tocfunction(L, lua_upvalueindex(1));
    if (original != NULL) return original(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* ---- provided by the budget code ---- */
permit_guard_state *permit_guards(lua_State *L);
/* Charges `units` of C work against the instruction budget before it runs; raises the budget
   (or time) error when they are not left. Also checks the wall clock. */
void permit_charge_work(lua_State *L, uint64_t units, const char *where);
/* Whether script code may run now (inside permit_call): C work done for the host between calls
   (building a ctx field the host reads back) is not charged, as its allocations are not. */
int permit_in_call(lua_State *L);
/* Whether the budget or the time limit is gone in this call (the error is on its way). */
int permit_budget_gone(lua_State *L);
/* Tells the budget which thread runs now (coroutine.resume, close and wrap around a switch). */
void permit_running_thread(lua_State *L, lua_State *running);
/* Raises a nesting error that the script cannot swallow: every later instruction of the call
   raises it again, and the call fails with PERMIT_E_NESTING. */
int permit_fail_nesting(lua_State *L, const char *what);

/* ---- lua544_guards.c ---- */
/* Replaces coroutine.resume / wrap / close and utf8.codes (tables at the given indices) and
   sets the base table's xpcall. */
void permit_install_bug_guards(lua_State *L, int base, int utf8, int coroutine);
/* Scans Lua source for constructs the linked Lua compiles wrongly. Returns 0 when the source
   is fine, else the line of the first one and writes a message (without position) to `msg`. */
int permit_source_refusal(const char *src, size_t len, char *msg, size_t cap);
/* Whether the linked library (probed at run time) still has 5.4.4's bugs. */
int permit_lua544_guards_needed(void);

/* ---- charged_lib.c ---- */
/* Replaces table.sort / unpack / pack, string.byte / format / reverse / upper / lower,
   utf8.len / codepoint / char / offset, tostring, setmetatable and getmetatable. */
void permit_install_charged_lib(lua_State *L, int base, int string, int table, int utf8);
/* Whether the value at idx has a metatable as the script sees it (getmetatable): the hidden
   guard of a table in use as a metatable does not count. For the readers of what a policy
   returns, which refuse tables with metatables. */
int permit_has_script_metatable(lua_State *L, int idx);
/* Whether the table at idx is in use as a metatable (setmetatable guards it). */
int permit_metatable_in_use(lua_State *L, int idx);
/* Checks a store of the value at `value` under the key at `key` into the table at `t` before
   it is made raw (rawset, the guards' __newindex). When `t` is in use as a metatable: refuses
   "__gc", "__mode", a "__call" that is not a function, and a "__call" added to a metatable
   installed as itself (Lua reads it raw, so a later replacement would go unseen); copies the
   store into the stand-in installed in its place (Metatables.c); notes an __index or
   __newindex (a chain Lua may walk inside one instruction). */
void permit_metatable_store(lua_State *L, int t, int key, int value);
/* permit_metatable_store, then the store itself, raw, with Lua's own error for a nil or NaN
   key at the script's line: what a plain assignment does to a table without __newindex. */
void permit_checked_store(lua_State *L, int t, int key, int value);
/* ---- Metatables.c ---- */
/* Sets the base table's setmetatable and getmetatable, and makes the guard. */
void permit_install_metatables(lua_State *L, int base);
/* What the metatable at idx (one Lua reads) stands for: 1, pushing the script's table whose
   metamethods it holds (a stand-in, or a copy under a table in use as a metatable); 0 for a
   guard (no metamethods); -1 for a metatable of the host's (read-only tables, ctx). */
int permit_metatable_origin(lua_State *L, int idx);
/* ---- ChainWalk.c ---- */
/* The __index and __newindex of every metatable Lua reads for a script's table (upvalue 1: the
   script's table whose current __index / __newindex they follow): they walk the chain one
   table at a time, charging each step and reading the clock, within Lua's 2,000 steps. */
int permit_index_walker(lua_State *L);
int permit_newindex_walker(lua_State *L);
/* Pushes what tostring shows for the value at `idx`: __tostring's result when it has one,
   else its type and per-VM number (`table: #3`), never a host address. */
void permit_push_display_string(lua_State *L, int idx);
/* What print and permit.log show for the value at idx: a table as `{a = 1, b = {c = 2}}`
   (bounded; TraceTable.c), anything else as permit_push_display_string does. Adds the entries
   it looked at to *visited, for the caller to charge. */
void permit_push_trace_string(lua_State *L, int idx, uint64_t *visited);

#endif
