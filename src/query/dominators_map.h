/* Dense numbers of the reachable closures of a heap (private to
 * src/query): see dominators_heap.c. */
#ifndef HEAPSCOPE_QUERY_DOMINATORS_MAP_H
#define HEAPSCOPE_QUERY_DOMINATORS_MAP_H

#include "heapscope/query.h"
#include "heapscope/u64map.h"
#include "dominators_internal.h"

/* A reachable closure outside the blocks (or not fitting in them). */
typedef struct dom_other {
    uint64_t addr, size;
} dom_other;

typedef struct dom_map {
    const heap *h;
    uint64_t big_lo, big_bytes; /* the largest block range: dense words from 0 */
    uint64_t words;     /* dense heap words */
    size_t n_bits;      /* 64-bit words of each bitmap */
    uint64_t *starts;   /* a reachable closure starts at this dense word */
    uint64_t *ends;     /* ... ends at this one (its last word) */
    uint32_t *rank;     /* n_bits + 1: starts below each bitmap word */
    uint64_t *samples;  /* the dense word of every 64th start */
    uint32_t n_heap;    /* closures in the blocks: numbers 1..n_heap */
    dom_other *others;  /* the others: numbers n_heap + 1 + i */
    size_t n_other, other_cap;
    u64map other_index; /* address -> i + 1 */
} dom_map;

struct query_dominators {
    heap *h;
    dom_map map;
    dom_result res;
    query_unreadable unreadable;
};

/* Numbers the closure at addr (size bytes), in the bitmaps or as an other;
 * false when out of memory. */
bool dom_map_mark(dom_map *m, uint64_t addr, uint64_t size);
/* Empty bitmaps for h's blocks. */
hs_status dom_map_init(dom_map *m, const heap *h, hs_error *err);
/* Once every start is marked: the ranks and samples. */
hs_status dom_map_index(dom_map *m, hs_error *err);
void dom_map_free(dom_map *m);
size_t dom_map_bytes(const dom_map *m);

static inline uint32_t dom_map_count(const dom_map *m) {
    return m->n_heap + (uint32_t)m->n_other;
}

/* The number of the closure at addr (tagged or not), 0 when unreached. */
uint32_t dom_map_id(const dom_map *m, uint64_t addr);

/* Set bits of x (no popcount instruction is assumed). */
static inline unsigned dom_popcount(uint64_t x) {
    x -= (x >> 1) & UINT64_C(0x5555555555555555);
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* The number of the closure at the untagged addr when it is in the
 * bitmaps; 0 otherwise (unreached, or an other: ask dom_map_id). */
static inline uint32_t dom_map_heap_id(const dom_map *m, uint64_t addr) {
    uint64_t w, off = addr - m->big_lo;
    if (off < m->big_bytes)
        w = off >> 3;
    else if (!heap_dense_word(m->h, addr, &w) || w >= m->words)
        return 0;
    uint64_t bits = m->starts[w >> 6], bit = UINT64_C(1) << (w & 63);
    return bits & bit ? m->rank[w >> 6] + dom_popcount(bits & (bit - 1)) + 1 : 0;
}
/* The address of closure number v (1..count). */
uint64_t dom_map_addr(const dom_map *m, uint32_t v);
/* The dense word where the closure of rank r (0-based, < n_heap) starts. */
uint64_t dom_map_word(const dom_map *m, uint32_t r);
/* The first start at or after dense word w (one must exist). */
uint64_t dom_map_next_start(const dom_map *m, uint64_t w);
/* Bytes of the closure starting at dense word w. */
uint64_t dom_map_size(const dom_map *m, uint64_t w);
/* Own bytes of closure number v. */
uint64_t dom_map_closure_size(const dom_map *m, uint32_t v);

#endif
