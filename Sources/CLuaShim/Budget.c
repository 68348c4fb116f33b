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
   every 16th (at every one once the VM holds a big block, when a single call may walk a long
   string). The host's own protected helpers between calls are not script work. Returns 0 when
   the limit error must be raised. */
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
    if (vm->time_limit_ns > 0 && ((++vm->call_events & 15) == 0 || vm->big_blocks) &&
        now_ns() - vm->call_start_ns > vm->time_check_ns) {
        vm->time_exceeded = 1;
    } else if (vm->budget_left >= CALL_EVENT_UNITS) {
        vm->budget_left -= CALL_EVENT_UNITS;
        /* A big block made since the call started: the count hook's step shrinks now, not at
           its next event up to 1,000 instructions (long comparisons) away. */
        if (vm->big_blocks && step > BIG_HOOK_STEP)
            lua_sethook(L, permit_shim_count_hook, hook_mask(vm), BIG_HOOK_STEP);
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
        /* Safety net for work neither instructions nor allocations show
           (e.g. comparing two long equal strings): a wall-clock limit. */
        if (vm->time_limit_ns > 0 && now_ns() - vm->call_start_ns > vm->time_check_ns) {
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
    int64_t predicted = (int64_t)(units < (1u << 30) ? units : (1u << 30)) * 5 / 2;
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
