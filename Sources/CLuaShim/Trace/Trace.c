/* print and permit.log: what a policy prints goes to a capped per-VM trace buffer. */
#include "shim_internal.h"
#include <lauxlib.h>
#include <string.h>

static void trace_add(permit_vm *vm, const char *s, size_t l) {
    if (vm->trace_truncated) {
        vm->trace_dropped += l;
        return;
    }
    size_t room = vm->trace_cap - vm->trace_len;
    if (l > room) {
        memcpy(vm->trace + vm->trace_len, s, room);
        vm->trace_len += room;
        vm->trace_truncated = 1;
        vm->trace_dropped += l - room;
        return;
    }
    memcpy(vm->trace + vm->trace_len, s, l);
    vm->trace_len += l;
}

int permit_shim_print(lua_State *L) {
    permit_vm *vm = getvm(L);
    int n = lua_gettop(L);
    size_t total = 1;
    uint64_t visited = 0;
    for (int i = 1; i <= n; i++) {
        size_t l;
        if (vm->trace_truncated) { /* nothing more is kept: do not run __tostring */
            vm->trace_dropped += 1;
            continue;
        }
        permit_push_trace_string(L, i, &visited); /* tables readable, never a host address */
        const char *s = lua_tolstring(L, -1, &l);
        if (i > 1) trace_add(vm, "\t", 1);
        trace_add(vm, s, l);
        total += l;
        lua_pop(L, 1);
    }
    trace_add(vm, "\n", 1);
    permit_shim_charge(L, vm, 1 + total / 64 + visited, "print");
    return 0;
}

const char *permit_trace(lua_State *L, size_t *len, int *truncated, size_t *dropped) {
    permit_vm *vm = getvm(L);
    *len = vm->trace_len;
    *truncated = vm->trace_truncated;
    *dropped = vm->trace_dropped;
    return vm->trace;
}

void permit_trace_clear(lua_State *L) {
    permit_vm *vm = getvm(L);
    vm->trace_len = 0;
    vm->trace_truncated = 0;
    vm->trace_dropped = 0;
}
