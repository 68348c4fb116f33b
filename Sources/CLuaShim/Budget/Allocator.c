/* The byte-capped allocator every VM uses: it refuses growth past the memory cap while script
   code can run, charges big allocations to the instruction budget, and keeps small blocks in
   the VM's pool (small_pool.h). */
#include "shim_internal.h"
#include "permit_test_hooks.h"
#include <stdlib.h>

static void fail_allocation_disarm(permit_vm *vm) {
    if (vm->fail_countdown != 0) vm->limit = vm->armed_limit;
    vm->fail_countdown = 0;
    vm->fail_retry = 0;
}

/* An allocation over the cap. When a test armed an injected failure, the cap is 0, so every
   growth lands here and the normal path pays nothing: this refuses the armed growth and Lua's
   one retry of it (after an emergency collection), then disarms; any other growth meets the
   real cap. */
static int over_cap(permit_vm *vm, const void *ptr, size_t old, size_t nsize) {
    if (vm->fail_countdown == 0) return 1;
    if (vm->fail_countdown > 1) {
        vm->fail_countdown--;
    } else if (!vm->fail_retry) {
        vm->fail_retry = 1;
        vm->fail_ptr = ptr;
        vm->fail_old = old;
        vm->fail_new = nsize;
        return 1;
    } else {
        int retry = ptr == vm->fail_ptr && old == vm->fail_old && nsize == vm->fail_new;
        fail_allocation_disarm(vm);
        if (retry) return 1;
    }
    return vm->used > vm->armed_limit || nsize - old > vm->armed_limit - vm->used;
}

void permit_fail_allocation(lua_State *L, uint64_t n) {
    permit_vm *vm = getvm(L);
    fail_allocation_disarm(vm);
    if (n == 0) return;
    vm->fail_countdown = n;
    vm->armed_limit = vm->limit;
    vm->limit = 0;
}

uint64_t permit_fail_allocation_pending(lua_State *L) {
    permit_vm *vm = getvm(L);
    return vm->fail_retry ? 0 : vm->fail_countdown;
}

/* Whether a fresh table node vector of `nsize` bytes must be refused. A table's hash part is
   a fresh vector of 2^k nodes (NODE_BYTES each: 3 * 2^(k+3) bytes, never a power of two).
   Re-inserting n colliding integer keys walks one chain per key, O(n^2) in a single C call no
   hook interrupts; capping the slots bounds that call. A string buffer of exactly such a size
   is refused too: a rare, typed memory error. Inline: on the hot path, most requests leave at
   the first test. */
static inline int refuse_table_growth(permit_vm *vm, const void *ptr, size_t osize, size_t nsize) {
    if (ptr != NULL || osize != 0 || nsize % NODE_BYTES != 0 || nsize < NODE_BYTES * 256) return 0;
    size_t slots = nsize / NODE_BYTES;
    if ((slots & (slots - 1)) != 0) return 0;
    if (vm->max_table_bytes > 0 && nsize > vm->max_table_bytes) {
        vm->mem_refused = 1;
        vm->table_refused = 1;
        return 1;
    }
    /* Within the cap, the rehash that follows may still take up to slots^2 * 7 ns (measured:
       2^10 slots 5.7 ms, 2^11 17.7 ms): refused when it could end past the time limit, as the
       time limit. */
    if (vm->in_call && vm->time_limit_ns > 0 && !vm->budget_exceeded &&
        now_ns() - vm->call_start_ns + (int64_t)(slots * slots) * 7 > vm->time_check_ns) {
        vm->time_exceeded = 1;
        vm->budget_exceeded = 1;
        vm->budget_left = 0;
        vm->mem_refused = 1;
        return 1;
    }
    return 0;
}

/* Charges a growth of `grow` bytes; 0 when it must be refused. Work on big strings
   (concatenation, upper, sub, format, ...) is proportional to what it allocates: one unit per
   64 bytes. The allocation that exhausts the budget still succeeds (the count hook raises the
   budget error, with its position, at most 1000 instructions later); until then allocations of
   1 KiB or more fail, so those instructions cannot do much work. */
static inline int charge_growth(permit_vm *vm, size_t grow) {
    uint64_t units = (uint64_t)(grow >> 6);
    if (units == 0 || !vm->in_call) return 1;
    if (vm->budget_exceeded) return grow < 1024;
    if (units > (uint64_t)vm->budget_left) {
        vm->budget_exceeded = 1;
        vm->budget_left = 0;
    } else {
        vm->budget_left -= (int64_t)units;
    }
    return 1;
}

/* Whether a growth from `old` to `nsize` bytes (script code able to run) is allowed: the table
   slot cap, the memory cap and the budget's charge. */
static inline int allow_growth(permit_vm *vm, void *ptr, size_t osize, size_t old, size_t nsize) {
    if (refuse_table_growth(vm, ptr, osize, nsize)) return 0;
    size_t grow = nsize - old;
    if ((vm->used > vm->limit || grow > vm->limit - vm->used) && over_cap(vm, ptr, old, nsize)) {
        vm->mem_refused = 1;
        return 0;
    }
    return charge_growth(vm, grow);
}

/* What makes one instruction costlier (Budget.c, "per-instruction cost"): a longer string
   (Lua tells the allocator a new object's type in osize: a string's block is its length plus
   a small header), or a larger hash part (a node vector, recognised by its size as the slot
   cap recognises it). The host's strings count too: a long parameter compares as slowly as a
   long string the script built. Long strings are tracked while they live, so a call after the
   one that dropped a megabyte string runs at the full step again. */
/* Blocks smaller than this make no instruction measurably costlier. */
#define COST_BLOCK 64

static int grow_long_strings(permit_vm *vm) {
    size_t cap = vm->long_cap ? vm->long_cap * 2 : 16;
    struct live_string *grown = (struct live_string *)realloc(vm->long_strings, cap * sizeof(*grown));
    if (grown == NULL) return 0;
    vm->long_strings = grown;
    vm->long_cap = cap;
    return 1;
}

static void note_new_block(permit_vm *vm, const void *block, size_t osize, size_t nsize) {
    if (osize == LUA_TSTRING) {
        if (nsize < LIVE_STRING_MIN) {
            if (nsize <= vm->longest_short) return;
            vm->longest_short = nsize;
        } else if (vm->long_count < vm->long_cap || grow_long_strings(vm)) {
            vm->long_strings[vm->long_count].block = block;
            vm->long_strings[vm->long_count].bytes = nsize;
            vm->long_count++;
        } else { /* untracked: counted as if it lived for ever */
            vm->longest_short = nsize > vm->longest_short ? nsize : vm->longest_short;
        }
        if (nsize <= vm->longest_string) return;
        vm->longest_string = nsize;
    } else {
        size_t slots = nsize / NODE_BYTES;
        if (osize != 0 || nsize % NODE_BYTES != 0 || (slots & (slots - 1)) != 0 || slots <= vm->largest_slots) return;
        vm->largest_slots = slots;
    }
    permit_shim_cost_changed(vm);
}

/* A block of LIVE_STRING_MIN bytes or more is freed: when it is a tracked string, it no longer
   counts, and the longest string alive is found again. */
static void note_freed_block(permit_vm *vm, const void *block) {
    size_t i = 0;
    while (i < vm->long_count && vm->long_strings[i].block != block) i++;
    if (i == vm->long_count) return;
    size_t bytes = vm->long_strings[i].bytes;
    vm->long_strings[i] = vm->long_strings[--vm->long_count];
    if (bytes < vm->longest_string) return;
    size_t longest = vm->longest_short;
    for (size_t j = 0; j < vm->long_count; j++)
        if (vm->long_strings[j].bytes > longest) longest = vm->long_strings[j].bytes;
    vm->longest_string = longest;
    permit_shim_cost_changed(vm);
}

void *permit_shim_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    permit_vm *vm = (permit_vm *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        if (old >= LIVE_STRING_MIN && vm->long_count > 0) note_freed_block(vm, ptr);
        (void)small_pool_lua_alloc(&vm->pool, ptr, old, 0);
        vm->used -= old;
        return NULL;
    }
    if (nsize > old && vm->limit_on && !allow_growth(vm, ptr, osize, old, nsize)) return NULL;

    void *p = small_pool_lua_alloc(&vm->pool, ptr, old, nsize);
    if (p == NULL) { /* only a growth can fail: the pool never fails a shrink */
        vm->mem_refused = 1;
        return NULL;
    }
    if (ptr == NULL && nsize > COST_BLOCK) note_new_block(vm, p, osize, nsize);
    vm->used = vm->used - old + nsize;
    if (vm->used > vm->peak) vm->peak = vm->used;
    return p;
}
