#ifndef PERMIT_SMALL_POOL_H
#define PERMIT_SMALL_POOL_H

/* Private to the shim: included by its allocator (through shim_internal.h), by small_pool.c
   and by permit_test_hooks.h, through which the tests reach the pool; never by a host.

   Free lists for the small blocks Lua makes and drops on every decision (tables, their
   node and array parts, short strings, closures): a block of up to SMALL_POOL_MAX bytes is
   taken from a per-VM free list of its 16-byte size class instead of malloc, and given back
   there instead of free. A warm decision makes about a dozen tables; with malloc and free
   each, the C library's allocator was about a sixth of a simulated event's time.

   One pool per VM (a VM is only ever entered from one thread at a time), so no locking. The
   memory cap is accounted by the caller in requested bytes, as before; the pool only keeps
   the blocks that were once in use (its size is the VM's peak of small blocks) and returns
   them to the C library when the VM closes. Under AddressSanitizer the pool is bypassed, so
   ASan keeps seeing every Lua block.

   1024 rather than 512: every event also makes the lazy ctx's snapshot, a userdata of a
   280-byte header, 40 bytes per feature and app event, 48 per state node and the texts:
   about 600 bytes for a user who has opened the default model's four features. Taken from
   malloc it cost polite about 300 instructions per simulated event more.

   What must stay true: a pool is used by one thread at a time (the VM's lock; it has none of
   its own); the memory cap is charged above it, by permit_shim_alloc, in the bytes Lua asked for, so
   the pool never decides what fits; a shrink (a block given back smaller) never fails, as Lua
   requires; and nothing but the pool's own VM frees its blocks. */
#include <stddef.h>
#include <stdlib.h>

#define SMALL_POOL_MAX 1024
#define SMALL_POOL_CLASSES (SMALL_POOL_MAX / 16)

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SMALL_POOL_OFF 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SMALL_POOL_OFF 1
#endif

typedef struct small_pool {
    void *free_list[SMALL_POOL_CLASSES];
    char *chunk;            /* the chunk new blocks are carved from */
    size_t chunk_left;      /* bytes left in it */
    void *chunks;           /* every chunk, linked through its first word */
    /* Where new chunks and big blocks come from: NULL means the C library's malloc. (Tests
       set a malloc that fails, to check that a shrink still succeeds.) */
    void *(*system_malloc)(size_t);
} small_pool;

/* realloc semantics for the Lua allocator: `old` is the block's size (0 when `ptr` is NULL),
   `size` the new one (0 frees). Returns NULL only when the C library has no memory, and never
   for a shrink (`size` <= `old`), which Lua assumes cannot fail: the block then stays where it
   is and is accounted at its new size, and nothing leaks when the pool is released. */
void *permit_small_pool_realloc(small_pool *pool, void *ptr, size_t old, size_t size);

/* Whether blocks of `size` bytes come from the pool. */
static inline int small_pool_holds(size_t size) {
#ifdef SMALL_POOL_OFF
    (void)size;
    return 0;
#else
    return size > 0 && size <= SMALL_POOL_MAX;
#endif
}

/* The common cases without a call: a new small block from a non-empty free list, and a small
   block given back. Both return 0 when they did nothing (use permit_small_pool_realloc). */
static inline void *small_pool_take_listed(small_pool *pool, size_t size) {
    if (!small_pool_holds(size)) return NULL;
    void **list = &pool->free_list[(size - 1) >> 4];
    void *block = *list;
    if (block != NULL) *list = *(void **)block;
    return block;
}

static inline int small_pool_give(small_pool *pool, void *block, size_t size) {
    if (!small_pool_holds(size)) return 0;
    void **list = &pool->free_list[(size - 1) >> 4];
    *(void **)block = *list;
    *list = block;
    return 1;
}

/* Lua's allocator over `pool` (lua_Alloc's contract, `old` already 0 for a new block): a block
   given back or freed when `size` is 0, otherwise taken from a free list or moved by
   permit_small_pool_realloc. Permit's VM allocator adds its memory cap around it. */
static inline void *small_pool_lua_alloc(small_pool *pool, void *ptr, size_t old, size_t size) {
    if (size == 0) {
        if (ptr != NULL && !small_pool_give(pool, ptr, old)) free(ptr);
        return NULL;
    }
    void *block = ptr == NULL ? small_pool_take_listed(pool, size) : NULL;
    return block != NULL ? block : permit_small_pool_realloc(pool, ptr, old, size);
}

/* How many chunks the pool has taken from the C library (0: it served no block). */
size_t permit_small_pool_chunk_count(const small_pool *pool);

/* Returns every chunk to the C library. Blocks still in use become invalid. */
void permit_small_pool_release(small_pool *pool);

#endif
