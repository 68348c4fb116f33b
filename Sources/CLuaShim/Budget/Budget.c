/* The instruction budget and the wall-clock limit: the count hook, charges for work done
   inside C library functions, and the guard errors the host can tell apart. */
#include "shim_internal.h"
#include <lauxlib.h>
#include <stdarg.h>

/* Grows the stack, while the allocator is told not to refuse, by what raising needs: the
   message handler runs on top of the error, and with the budget gone a stack that had to grow
   for it would be refused, turning the error into a bare "not enough memory" (the handler
   never runs, so the message loses what ran out and where). */
static void reserve_handler_stack(lua_State *L) { (void)lua_checkstack(L, LUA_MINSTACK + 8); }

int permit_shim_budget_fail(lua_State *L, permit_vm *vm, const char *where) {
    vm->budget_exceeded = 1;
    vm->budget_left = 0;
    /* From now on every instruction of this thread raises again, so a script's
       pcall cannot swallow the error and carry on. */
    lua_sethook(L, permit_shim_count_hook, hook_mask(vm), 1);
    int saved = vm->limit_on; /* the message must not be refused by the allocator */
    vm->limit_on = 0;
    reserve_handler_stack(L);
    luaL_where(L, 1);
    lua_pushfstring(L, "instruction budget of %I exceeded (%s)", (LUAI_UACINT)vm->budget_limit, where);
    lua_concat(L, 2);
    vm->limit_on = saved;
    return lua_error(L);
}

/* Every function call, Lua or C. A C function called from C (a metamethod called by
   table.concat's loop, a comparison by table.sort's) runs no instruction, so only this event
   sees a C loop that calls back into script values: each call is charged, and the clock read at
   every 16th (at every one once an instruction may be costly: the step is under a tenth of
   HOOK_STEP, when one call may walk a long string). The host's own protected helpers between
   calls are not script work. Returns 0 when the limit error must be raised. */
static int call_may_go_on(lua_State *L, permit_vm *vm, lua_Debug *ar, int step) {
    if (!vm->in_call) return 1;
    if (vm->budget_exceeded) {
        /* Raising the error calls the host's message handler: let it run. */
        int handler = 0;
        if (lua_getinfo(L, "f", ar)) {
            handler = lua_tocfunction(L, -1) == permit_shim_msgh;
            lua_pop(L, 1);
        }
        return handler;
    }
    vm->running = L;
    if (vm->time_limit_ns > 0 && ((++vm->call_events & 15) == 0 || vm->step < HOOK_STEP / 10) &&
        now_ns() - vm->call_start_ns + vm->reserve_ns > vm->time_check_ns) {
        vm->time_exceeded = 1;
    } else if (vm->budget_left >= CALL_EVENT_UNITS) {
        vm->budget_left -= CALL_EVENT_UNITS;
        /* A thread entered with a longer step than the VM's now (a coroutine): shrunk here,
           not at its next count event. */
        if (step > hook_step(vm)) lua_sethook(L, permit_shim_count_hook, hook_mask(vm), hook_step(vm));
        return 1;
    }
    vm->budget_exceeded = 1;
    vm->budget_left = 0;
    return 0;
}

void permit_shim_count_hook(lua_State *L, lua_Debug *ar) {
    permit_vm *vm = getvm(L);
    if (ar->event == LUA_HOOKLINE) {
        permit_shim_cov_record(L, vm, ar);
        return;
    }
    if (ar->event == LUA_HOOKRET) {
        permit_shim_cov_return(L, vm, ar);
        return;
    }
    int step = lua_gethookcount(L);
    if (ar->event == LUA_HOOKCALL || ar->event == LUA_HOOKTAILCALL) {
        if (call_may_go_on(L, vm, ar, step)) return;
        step = 0; /* the count below is reset to one instruction */
    } else if (!vm->budget_exceeded) {
        vm->running = L;
        /* Safety net for work neither instructions nor allocations show (comparing two long
           strings, walking a collision chain): a wall-clock limit, read with the time the next
           step's instructions may take reserved, so the call stops before the limit. */
        if (vm->time_limit_ns > 0 && now_ns() - vm->call_start_ns + vm->reserve_ns > vm->time_check_ns) {
            vm->time_exceeded = 1;
            vm->budget_exceeded = 1;
            vm->budget_left = 0;
        } else if (vm->budget_left >= step) {
            vm->budget_left -= step;
            if (step != hook_step(vm)) lua_sethook(L, permit_shim_count_hook, hook_mask(vm), hook_step(vm));
            return;
        }
        vm->budget_exceeded = 1;
        vm->budget_left = 0;
    }
    if (step != 1) lua_sethook(L, permit_shim_count_hook, hook_mask(vm), 1);
    if (vm->sticky_kind != 0) {
        lua_getfield(L, LUA_REGISTRYINDEX, KEY_GUARD);
        lua_error(L);
    }
    int saved = vm->limit_on; /* the message must not be refused by the allocator */
    vm->limit_on = 0;
    if (vm->time_exceeded) {
        if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
            lua_pushfstring(L, "%s:%d: time limit of %I ms exceeded", ar->short_src, ar->currentline,
                            (LUAI_UACINT)(vm->time_limit_ns / 1000000));
        else
            lua_pushfstring(L, "time limit of %I ms exceeded", (LUAI_UACINT)(vm->time_limit_ns / 1000000));
        vm->limit_on = saved;
        lua_error(L);
    }
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
        lua_pushfstring(L, "%s:%d: instruction budget of %I exceeded", ar->short_src, ar->currentline,
                        (LUAI_UACINT)vm->budget_limit);
    else
        lua_pushfstring(L, "instruction budget of %I exceeded", (LUAI_UACINT)vm->budget_limit);
    vm->limit_on = saved;
    lua_error(L);
}

/* Charges work done inside C library functions against the instruction budget. */
void permit_shim_charge(lua_State *L, permit_vm *vm, uint64_t units, const char *where) {
    if (vm->budget_exceeded || units > (uint64_t)vm->budget_left) permit_shim_budget_fail(L, vm, where);
    vm->budget_left -= (int64_t)units;
}

/* Raises an error of a guard kind; the error value is remembered so the host
   can tell whether the call finally failed with this very error. */
int permit_shim_raise_guard(lua_State *L, int kind, const char *fmt, ...) {
    permit_vm *vm = getvm(L);
    va_list ap;
    luaL_where(L, 1);
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 2);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, KEY_GUARD);
    vm->guard_kind = kind;
    return lua_error(L);
}

/* ------------------------------------------------- for the guards (sandbox_guards.h) */

permit_guard_state *permit_guards(lua_State *L) { return &getvm(L)->guards; }

int permit_budget_gone(lua_State *L) { return getvm(L)->budget_exceeded; }

int permit_in_call(lua_State *L) { return getvm(L)->in_call; }

/* Also reads the wall clock. A unit is about one VM instruction, 2.5 ns on the reference
   machine: work that would end past the limit is refused before it starts instead of
   overshooting it. */
void permit_charge_work(lua_State *L, uint64_t units, const char *where) {
    permit_vm *vm = getvm(L);
    if (vm->sticky_kind != 0) {
        lua_getfield(L, LUA_REGISTRYINDEX, KEY_GUARD);
        lua_error(L);
    }
    int64_t predicted = (int64_t)(units < (1u << 30) ? units : (1u << 30)) * 5 / 2 + vm->reserve_ns;
    if (!vm->budget_exceeded && vm->time_limit_ns > 0 && now_ns() - vm->call_start_ns + predicted > vm->time_check_ns) {
        vm->time_exceeded = 1;
        vm->budget_exceeded = 1;
        vm->budget_left = 0;
        lua_sethook(L, permit_shim_count_hook, hook_mask(vm), 1);
        int saved = vm->limit_on;
        vm->limit_on = 0;
        reserve_handler_stack(L);
        luaL_where(L, 1);
        lua_pushfstring(L, "time limit of %I ms exceeded (%s)", (LUAI_UACINT)(vm->time_limit_ns / 1000000), where);
        lua_concat(L, 2);
        vm->limit_on = saved;
        lua_error(L);
    }
    permit_shim_charge(L, vm, units, where);
}

int permit_fail_nesting(lua_State *L, const char *what) {
    permit_vm *vm = getvm(L);
    vm->sticky_kind = PERMIT_E_NESTING;
    vm->budget_exceeded = 1; /* every thread's next hook event raises the same error */
    vm->budget_left = 0;
    lua_sethook(L, permit_shim_count_hook, hook_mask(vm), 1);
    int saved = vm->limit_on;
    vm->limit_on = 0;
    luaL_where(L, 1);
    lua_pushfstring(L, "%s nested deeper than %d levels (the sandbox's limit)", what, PERMIT_COROUTINE_DEPTH);
    lua_concat(L, 2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, KEY_GUARD);
    vm->limit_on = saved;
    return lua_error(L);
}

int permit_table_cap_hit(lua_State *L) { return getvm(L)->table_refused; }

/* ------------------------------------------------------------ per-instruction cost */

/* The per-instruction cost assumption (docs/security.md): apart from the work charged above,
   one VM instruction costs at most
     - comparing the longest string alive: Lua compares strings with strcoll, once per
       NUL-separated piece, so a string of NUL bytes costs about 50 ns a byte (measured on this
       machine under load: 42-52 ns; a plain string compares in well under 1 ns a byte);
     - walking a collision chain as long as the largest hash part the VM has made, in the
       table itself and in one table of the host's behind it (a read-only library table):
       about 20 ns a node (measured: 15 ns in a warm cache, 38 ns under load). A script's
       __index chain is walked by calls (ChainWalk.c), never inside one instruction.
   The step is the most instructions whose worst cost fits STEP_NS; the clock check reserves
   that much, so a call stops before the limit rather than one step after it. An instruction
   whose worst cost is more than the time left stops the call at the next hook event. */
#define STRING_BYTE_NS 50
#define NODE_NS 20
#define STEP_NS 4000000
/* What an ordinary instruction's noise already covers: a step of HOOK_STEP of them. */
#define COST_FLOOR_NS (STEP_NS / HOOK_STEP)

void permit_shim_cost_changed(permit_vm *vm) {
    int64_t string_ns = (int64_t)vm->longest_string * STRING_BYTE_NS;
    int64_t walk_ns = (int64_t)vm->largest_slots * NODE_NS * 2;
    int64_t worst = string_ns > walk_ns ? string_ns : walk_ns;
    int step = HOOK_STEP;
    int64_t reserve = 0;
    if (worst > COST_FLOOR_NS) {
        int64_t fits = STEP_NS / worst;
        step = fits < 1 ? 1 : fits > HOOK_STEP ? HOOK_STEP : (int)fits;
        reserve = worst * step;
    }
    int shrank = step < hook_step(vm);
    vm->step = step;
    vm->reserve_ns = reserve;
    if (shrank && vm->in_call && vm->running != NULL && !vm->budget_exceeded)
        lua_sethook(vm->running, permit_shim_count_hook, hook_mask(vm), step);
}

/* A thread that runs with a longer step than the VM's now (costlier instructions appeared while
   another thread ran) gets the VM's step at once. */
void permit_running_thread(lua_State *L, lua_State *running) {
    permit_vm *vm = getvm(L);
    vm->running = running;
    if (vm->in_call && !vm->budget_exceeded && lua_gethookcount(running) > hook_step(vm))
        lua_sethook(running, permit_shim_count_hook, hook_mask(vm), hook_step(vm));
}
