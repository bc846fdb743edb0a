/* The heap's private state, shared by the files of src/heap. */
#ifndef HEAPSCOPE_HEAP_INTERNAL_H
#define HEAPSCOPE_HEAP_INTERNAL_H

#include "heapscope/heap.h"
#include "heapscope/u64map.h"

/* A static closure's image, fetched with CLOSURES and kept for the pause. */
typedef struct heap_static_image {
    size_t len;
    uint8_t bytes[];
} heap_static_image;

/* A cached bitmap answer (RET_BIG frames by info pointer, fun bitmaps by
 * function info pointer and length). */
typedef struct heap_cached_bitmap {
    size_t count;
    uint8_t bits[];
} heap_cached_bitmap;

struct heap {
    heap_source src;
    wire_version version;
    unsigned header_bytes; /* H: 8 or 24 */
    unsigned info_bytes;   /* S: 16 or 32 */

    wire_ptr_list roots;
    wire_ptr_list saved;

    /* block store: groups as fetched, an index sorted by start, and a table
     * from 4 KiB block number (relative to span_lo) to group index + 1 */
    wire_block_list blocks;
    uint32_t *sorted;
    uint64_t span_lo;
    uint64_t span_blocks;
    uint32_t *block_table; /* NULL when the span is too sparse: binary search */
    uint64_t block_bytes;

    u64map statics;      /* address -> heap_static_image* */
    u64map infos;        /* info pointer -> heap_info* */
    u64map frame_bitmaps; /* RET_BIG info pointer -> heap_cached_bitmap* */
    u64map fun_bitmaps;  /* hash of (function info pointer, n) -> heap_cached_bitmap* */
};

/* Index of the block group holding addr, or -1. */
long heap_find_group(const heap *h, uint64_t addr);

/* Frees the cached info tables (heap_free). */
void heap_infos_free(heap *h);

#endif
