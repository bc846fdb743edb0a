/* The heap's private state, shared by the files of src/heap. */
#ifndef HEAPSCOPE_HEAP_INTERNAL_H
#define HEAPSCOPE_HEAP_INTERNAL_H

#include "heapscope/heap.h"
#include "heapscope/u64map.h"

/* A static closure's image, fetched with CLOSURES and kept for the pause;
 * or, refused, the source's reason (NUL-terminated in bytes, len 0). */
typedef struct heap_static_image {
    size_t len;
    bool refused;
    uint8_t bytes[];
} heap_static_image;

/* A cached bitmap answer (RET_BIG frames by info pointer, RET_FUN frames by
 * frame address, fun bitmaps by function info pointer and length). */
typedef struct heap_cached_bitmap {
    size_t count;
    uint64_t owner; /* RET_FUN frames: the frame's info pointer */
    uint8_t bits[];
} heap_cached_bitmap;

struct heap {
    heap_source src;
    wire_version version;
    unsigned header_bytes; /* H: 8 or 24 */
    unsigned info_bytes;   /* S: 16 or 32 */

    wire_ptr_list roots;
    wire_ptr_list saved;

    /* block store: groups as fetched, the ranges that number their words
     * densely (heap_block_ranges), and a table from dense 4 KiB block number
     * to group index + 1 */
    heap_block_list blocks;
    heap_block_range *ranges;
    size_t n_ranges;
    size_t big;     /* the largest range, numbered from 0: */
    uint64_t big_lo, big_bytes; /* its start and length */
    uint64_t words; /* dense words of all ranges */
    uint32_t *block_table;
    uint64_t block_bytes;
    /* identical copies of a group listed before them (same start, length
     * and bytes: the RTS lists an empty pinned group once per capability),
     * left in `blocks` so a lazy source's group numbers stay valid but
     * indexed, counted and exported once: dropped[g] is 1 for a copy;
     * NULL when there is none */
    uint8_t *dropped;
    size_t n_dropped;

    u64map statics;      /* address -> heap_static_image* */
    u64map infos;        /* info pointer -> heap_info* */
    bool ipe_seen;       /* some info table had an IPE entry (heap_program_ipe) */
    uint8_t ipe_here;    /* heap_ipe_presence + 1 found for this pause, 0: not asked */
    u64map frame_bitmaps; /* RET_BIG info pointer -> heap_cached_bitmap* */
    u64map fun_bitmaps;  /* (function info pointer | n << 48) -> heap_cached_bitmap* */
    u64map ret_fun_bitmaps; /* RET_FUN frame address -> heap_cached_bitmap*, this pause */

    /* cost centres of this pause (heap_cost.c) */
    u64map ccs;   /* address -> wire_ccs* */
    u64map cc;    /* address -> wire_cc* */
    u64map index; /* address -> wire_index_entry* */
    u64map cost_refused; /* CCS or CC address the source has no answer for -> its
                            message (strdup): asked once, however many closures name it */
    uint64_t ccs_main;
    bool ccs_main_known;

    /* the closures of this pause (reached.c) */
    u64map named;           /* roots and saved objects, untagged */
    uint64_t *reached_bits; /* one bit per dense heap word; NULL until a mark */
    u64map reached_other;   /* closures outside the blocks */
    bool reached_complete;  /* a traversal from every root has marked them all */
    /* the span of info pointers answered so far (guard.c), 0 = none */
    uint64_t info_lo, info_hi;
};

/* The key of a function bitmap in fun_bitmaps; 0 when it has none. */
static inline uint64_t heap_fun_bitmap_key(uint64_t fun_info, uint32_t n) {
    return fun_info && (fun_info >> 48) == 0 && n <= UINT16_MAX ? fun_info | (uint64_t)n << 48
                                                                 : 0;
}

/* Frees every value of m (allocated with malloc) and the map. */
void heap_free_map_values(u64map *m);
/* Copies a bitmap answer into a cached one; NULL when out of memory. */
heap_cached_bitmap *heap_cache_bitmap(const uint8_t *bits, size_t count);

/* heap_info plus the storage its pointers refer to (infos.c). */
typedef struct info_entry {
    heap_info pub; /* first: a heap_info* is an info_entry* */
    wire_con_desc desc;
    wire_source_info ipe;
    uint8_t raw[40]; /* the info table's bytes as the source gave them */
    uint8_t raw_len;
    bool srt_asked; /* pub.srt is the source's answer */
    /* Not an info table: the source had none for this pointer (or sent one
     * that makes no sense). heap_info_get says why; lookups find nothing. */
    hs_status failed;
    char *why;
} info_entry;

/* Asks the source for the answers of n keys in one call; HEAP_UNAVAILABLE
 * when it refuses the call. */
typedef hs_status (*heap_fetch_fn)(heap *h, const uint64_t *keys, size_t n, hs_error *err);
/* Records that the source has no answer for key, and why. */
typedef hs_status (*heap_refuse_fn)(heap *h, uint64_t key, const hs_error *why, hs_error *err);
/* Runs fetch over keys in as few calls as it can: a refused call of several
 * keys is split in halves, down to single keys, which go to refuse. So one
 * key the source has no answer for costs about 2 log2 n calls, not the
 * whole batch (or the command). */
hs_status heap_fetch_split(heap *h, const uint64_t *keys, size_t n, heap_fetch_fn fetch,
                           heap_refuse_fn refuse, hs_error *err);

/* True when group g is an identical copy of an earlier one (h->dropped). */
static inline bool heap_group_dropped(const heap *h, size_t g) {
    return h->dropped && h->dropped[g];
}

/* Index of the block group holding addr, or -1. */
long heap_find_group(const heap *h, uint64_t addr);

/* Frees the cached info tables (heap_free). */
void heap_infos_free(heap *h);
/* Drops the cost centres of a pause (heap_refresh, heap_free). */
void heap_cost_drop(heap *h);
/* Loads block group g of a lazy source. */
hs_status heap_load_group(heap *h, size_t g, hs_error *err);

/* What the heap may ask the source about (guard.c): false, with why
 * (HEAP_UNAVAILABLE), when a request would name an address that cannot be
 * what it should be. */
bool heap_guard_closure(const heap *h, uint64_t addr, hs_error *why);
bool heap_guard_info(const heap *h, uint64_t info, hs_error *why);
bool heap_guard_cost(const heap *h, uint64_t addr, const char *what, hs_error *why);
/* True when the debuggee named addr (untagged) a root or saved object. */
bool heap_guard_named(const heap *h, uint64_t addr);
/* When no info table is known yet: fetches those of the roots and saved
 * objects in the blocks (closures of the pause), so heap_guard_closure can
 * measure a static closure against the program's code. */
hs_status heap_guard_learn_code(heap *h, hs_error *err);
/* An info table was answered for info: widens the span of known code. */
void heap_guard_note_info(heap *h, uint64_t info);

/* The closures of this pause (reached.c). */
hs_status heap_reached_mark(heap *h, uint64_t addr, hs_error *err);
hs_status heap_reached_name_roots(heap *h, hs_error *err);
void heap_reached_drop(heap *h);

#endif
