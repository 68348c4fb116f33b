#include "small_pool.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A chunk holds 64 KiB of blocks after its header (the link to the previous chunk, padded
   to 16 bytes so blocks stay 16-byte aligned like malloc's). */
#define CHUNK_BYTES (64 * 1024)
#define CHUNK_HEADER 16

static size_t class_of(size_t size) { return (size - 1) >> 4; } /* 1...16 -> 0, 17...32 -> 1 */

static int pooled(size_t size) { return small_pool_holds(size); }

static void *system_malloc(small_pool *pool, size_t size) {
    return pool->system_malloc != NULL ? pool->system_malloc(size) : malloc(size);
}

static void *take(small_pool *pool, size_t size) {
    size_t c = class_of(size);
    void *block = pool->free_list[c];
    if (block != NULL) {
        pool->free_list[c] = *(void **)block;
        return block;
    }
    size_t bytes = (c + 1) << 4;
    if (pool->chunk_left < bytes) {
        /* The tail of the old chunk goes to the free list of its size, so nothing is lost. */
        if (pool->chunk_left >= 16) {
            size_t tail = class_of(pool->chunk_left);
            if (((tail + 1) << 4) > pool->chunk_left) tail -= 1;
            *(void **)pool->chunk = pool->free_list[tail];
            pool->free_list[tail] = pool->chunk;
        }
        char *chunk = (char *)system_malloc(pool, CHUNK_BYTES + CHUNK_HEADER);
        if (chunk == NULL) return NULL;
        *(void **)chunk = pool->chunks;
        pool->chunks = chunk;
        pool->chunk = chunk + CHUNK_HEADER;
        pool->chunk_left = CHUNK_BYTES;
    }
    block = pool->chunk;
    pool->chunk += bytes;
    pool->chunk_left -= bytes;
    return block;
}

static void give_back(small_pool *pool, void *block, size_t size) {
    size_t c = class_of(size);
    *(void **)block = pool->free_list[c];
    pool->free_list[c] = block;
}

/* A free block of class `c` or larger, taken off its list; NULL when there is none. */
static void *take_listed_at_least(small_pool *pool, size_t c) {
    for (; c < SMALL_POOL_CLASSES; c++) {
        void *block = pool->free_list[c];
        if (block != NULL) {
            pool->free_list[c] = *(void **)block;
            return block;
        }
    }
    return NULL;
}

/* A big (malloc'd) block of `old` bytes must shrink to a pooled `size` and no new pool block
   could be had. It is kept, and becomes a chunk of the pool: its first CHUNK_HEADER bytes link
   it into `chunks` (so releasing the pool frees it) and the data moves up behind them. Returns
   the block's new address. When the block has no room for the header (its size is within 16
   bytes of SMALL_POOL_MAX), the C library is asked for those few bytes first. */
static void *adopt_as_chunk(small_pool *pool, void *ptr, size_t old, size_t size) {
    if (old < size + CHUNK_HEADER) {
        void *grown = realloc(ptr, size + CHUNK_HEADER);
        if (grown == NULL) return NULL;
        ptr = grown;
    }
    char *chunk = (char *)ptr;
    memmove(chunk + CHUNK_HEADER, chunk, size);
    *(void **)chunk = pool->chunks;
    pool->chunks = chunk;
    return chunk + CHUNK_HEADER;
}

/* A shrink the normal way could not do (no memory for a new block): never fails while the
   block itself can serve. */
static void *shrink_without_memory(small_pool *pool, void *ptr, size_t old, size_t size, int was_pooled) {
    if (was_pooled) return ptr; /* a pooled block serves as one of any smaller class */
    void *block = take_listed_at_least(pool, class_of(size));
    if (block != NULL) {
        memcpy(block, ptr, size);
        free(ptr);
        return block;
    }
    return adopt_as_chunk(pool, ptr, old, size);
}

void *permit_small_pool_realloc(small_pool *pool, void *ptr, size_t old, size_t size) {
    if (ptr == NULL) old = 0;
    int was_pooled = pooled(old);
    if (size == 0) {
        if (ptr == NULL) return NULL;
        if (was_pooled) give_back(pool, ptr, old);
        else free(ptr);
        return NULL;
    }
    if (pooled(size)) {
        if (was_pooled && class_of(old) == class_of(size)) return ptr;
        void *block = take(pool, size);
        if (block == NULL) return ptr != NULL && size <= old ? shrink_without_memory(pool, ptr, old, size, was_pooled) : NULL;
        if (ptr != NULL) {
            memcpy(block, ptr, old < size ? old : size);
            if (was_pooled) give_back(pool, ptr, old);
            else free(ptr);
        }
        return block;
    }
    if (!was_pooled) {
        if (ptr == NULL) return system_malloc(pool, size);
        void *block = realloc(ptr, size);
        /* A failed shrink leaves the block as it was: still a valid malloc'd block. */
        return block == NULL && ptr != NULL && size <= old ? ptr : block;
    }
    void *block = system_malloc(pool, size);
    if (block == NULL) return NULL;
    memcpy(block, ptr, old < size ? old : size);
    give_back(pool, ptr, old);
    return block;
}

size_t permit_small_pool_chunk_count(const small_pool *pool) {
    size_t count = 0;
    for (void *chunk = pool->chunks; chunk != NULL; chunk = *(void **)chunk) count++;
    return count;
}

void permit_small_pool_release(small_pool *pool) {
    void *chunk = pool->chunks;
    while (chunk != NULL) {
        void *previous = *(void **)chunk;
        free(chunk);
        chunk = previous;
    }
    memset(pool, 0, sizeof *pool);
}
