#ifndef PERMIT_SMALL_POOL_H
#define PERMIT_SMALL_POOL_H

#include <stddef.h>

/* Free lists for the small blocks Lua makes and drops on every decision (tables, their
   node and array parts, short strings, closures): a block of up to SMALL_POOL_MAX bytes is
   taken from a per-VM free list of its 16-byte size class instead of malloc, and given back
   there instead of free. A warm decision makes about a dozen tables; with malloc and free
   each, the C library's allocator was about a sixth of a simulated event's time.

   One pool per VM (a VM is only ever entered from one thread at a time), so no locking. The
   memory cap is accounted by the caller in requested bytes, as before; the pool only keeps
   the blocks that were once in use (its size is the VM's peak of small blocks) and returns
   them to the C library when the VM closes. Under AddressSanitizer the pool is bypassed, so
   ASan keeps seeing every Lua block. */

#define SMALL_POOL_MAX 512
#define SMALL_POOL_CLASSES (SMALL_POOL_MAX / 16)

typedef struct small_pool {
    void *free_list[SMALL_POOL_CLASSES];
    char *chunk;            /* the chunk new blocks are carved from */
    size_t chunk_left;      /* bytes left in it */
    void *chunks;           /* every chunk, linked through its first word */
} small_pool;

/* realloc semantics for the Lua allocator: `old` is the block's size (0 when `ptr` is NULL),
   `size` the new one (0 frees). Returns NULL only when the C library has no memory. */
void *small_pool_realloc(small_pool *pool, void *ptr, size_t old, size_t size);

/* Returns every chunk to the C library. Blocks still in use become invalid. */
void small_pool_release(small_pool *pool);

#endif
