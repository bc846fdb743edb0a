/* Opening a paused heap: version, roots, saved objects and all blocks,
 * indexed by address. */
#include <stdlib.h>
#include <string.h>

#include "heap_internal.h"
#include "heapscope/grow.h"

#define BLOCK_SHIFT 12
/* The direct block table costs 4 bytes per 4 KiB of address span; beyond
 * this many entries (a very sparse heap) lookups fall back to a search. */
#define MAX_TABLE_ENTRIES (UINT64_C(64) << 20)

static int cmp_start(const void *a, const void *b, void *ctx) {
    const heap_block_list *bl = ctx;
    uint64_t x = bl->items[*(const uint32_t *)a].start, y = bl->items[*(const uint32_t *)b].start;
    return x < y ? -1 : x > y;
}

static hs_status index_blocks(heap *h, hs_error *err) {
    size_t n = h->blocks.count;
    if (n > UINT32_MAX - 1)
        return hs_fail(err, HS_ERR_TOO_LARGE, "%zu block groups are more than heapscope indexes", n);
    h->sorted = malloc((n ? n : 1) * sizeof *h->sorted);
    if (!h->sorted)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory indexing %zu block groups", n);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        const heap_block *b = &h->blocks.items[i];
        h->sorted[i] = (uint32_t)i;
        h->block_bytes += b->len;
        if (b->len == 0)
            continue;
        if (b->start < lo)
            lo = b->start;
        if (b->start + b->len > hi)
            hi = b->start + b->len;
    }
    qsort_r(h->sorted, n, sizeof *h->sorted, cmp_start, &h->blocks);
    if (lo >= hi)
        return HS_OK;
    h->span_lo = lo & ~(uint64_t)((1u << BLOCK_SHIFT) - 1);
    h->span_blocks = ((hi - h->span_lo) + (1u << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
    if (h->span_blocks > MAX_TABLE_ENTRIES)
        return HS_OK;
    h->block_table = calloc(h->span_blocks, sizeof *h->block_table);
    if (!h->block_table)
        return HS_OK; /* the search still works, only slower */
    for (size_t i = 0; i < n; i++) {
        const heap_block *b = &h->blocks.items[i];
        uint64_t first = (b->start - h->span_lo) >> BLOCK_SHIFT;
        uint64_t count = ((uint64_t)b->len + (1u << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
        for (uint64_t k = 0; k < count && first + k < h->span_blocks; k++)
            h->block_table[first + k] = (uint32_t)i + 1;
    }
    return HS_OK;
}

long heap_find_group(const heap *h, uint64_t addr) {
    if (addr < h->span_lo)
        return -1;
    if (h->block_table) {
        uint64_t k = (addr - h->span_lo) >> BLOCK_SHIFT;
        if (k >= h->span_blocks || !h->block_table[k])
            return -1;
        long g = (long)h->block_table[k] - 1;
        const heap_block *b = &h->blocks.items[g];
        return addr - b->start < b->len ? g : -1;
    }
    size_t lo = 0, hi = h->blocks.count;
    while (lo < hi) { /* last group starting at or below addr */
        size_t mid = lo + (hi - lo) / 2;
        if (h->blocks.items[h->sorted[mid]].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    long g = h->sorted[lo - 1];
    const heap_block *b = &h->blocks.items[g];
    return addr - b->start < b->len ? g : -1;
}

bool heap_in_blocks(const heap *h, uint64_t addr) { return heap_find_group(h, addr) >= 0; }

void heap_block_span(const heap *h, uint64_t *lo, uint64_t *hi) {
    *lo = h->span_lo;
    *hi = h->span_lo + (h->span_blocks << BLOCK_SHIFT);
}

void heap_free_map_values(u64map *m) {
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i])
            free((void *)(uintptr_t)m->values[i]);
    u64map_free(m);
}

heap_cached_bitmap *heap_cache_bitmap(const uint8_t *bits, size_t count) {
    heap_cached_bitmap *cb = malloc(sizeof *cb + count);
    if (cb) {
        cb->count = count;
        cb->owner = 0;
        if (count)
            memcpy(cb->bits, bits, count);
    }
    return cb;
}

bool heap_block_list_adopt(heap_block_list *l, void *buf) {
    if (!hs_grow((void **)&l->owned, &l->owned_cap, l->n_owned + 1, sizeof *l->owned)) {
        free(buf);
        return false;
    }
    l->owned[l->n_owned++] = buf;
    return true;
}

void heap_block_list_free(heap_block_list *l) {
    for (size_t i = 0; i < l->n_owned; i++)
        free(l->owned[i]);
    free(l->owned);
    free(l->items);
    *l = (heap_block_list){0};
}

void heap_blobs_free(heap_blobs *b) {
    free(b->items);
    free(b->storage);
    *b = (heap_blobs){0};
}

hs_status heap_load_group(heap *h, size_t g, hs_error *err) {
    if (h->blocks.items[g].data)
        return HS_OK;
    if (!h->src.ops->load_block)
        return hs_fail(err, HS_ERR_INTERNAL, "block group %zu has no bytes", g);
    hs_status st = h->src.ops->load_block(h->src.self, &h->blocks, g, err);
    if (st == HS_OK && !h->blocks.items[g].data)
        st = hs_fail(err, HS_ERR_INTERNAL, "the source did not load block group %zu", g);
    if (st != HS_OK)
        return hs_fail_context(err, "block group at 0x%llx",
                               (unsigned long long)h->blocks.items[g].start);
    return HS_OK;
}

hs_status heap_load_all_blocks(heap *h, hs_error *err) {
    for (size_t g = 0; g < h->blocks.count; g++) {
        hs_status st = heap_load_group(h, g, err);
        if (st != HS_OK)
            return st;
    }
    return HS_OK;
}

/* Everything read from the heap itself: valid for one pause only. */
static void drop_heap_contents(heap *h) {
    wire_ptr_list_free(&h->roots);
    wire_ptr_list_free(&h->saved);
    heap_block_list_free(&h->blocks);
    free(h->sorted);
    free(h->block_table);
    h->sorted = NULL;
    h->block_table = NULL;
    h->span_lo = h->span_blocks = h->block_bytes = 0;
    heap_free_map_values(&h->statics);
    heap_free_map_values(&h->ret_fun_bitmaps);
    heap_cost_drop(h);
}

hs_status heap_refresh(heap *h, hs_error *err) {
    drop_heap_contents(h);
    heap_source src = h->src;
    hs_status st = src.ops->roots(src.self, &h->roots, err);
    if (st == HS_OK)
        st = src.ops->saved_objects(src.self, &h->saved, err);
    if (st == HS_OK)
        st = src.ops->blocks(src.self, &h->blocks, err);
    if (st == HS_OK)
        st = index_blocks(h, err);
    if (st != HS_OK)
        drop_heap_contents(h);
    return st;
}

hs_status heap_open(heap_source src, heap **out, hs_error *err) {
    heap *h = calloc(1, sizeof *h);
    if (!h)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    h->src = src;
    hs_status st = src.ops->version(src.self, &h->version, err);
    if (st == HS_OK && h->version.prof_mode > WIRE_PROF_OTHER)
        st = hs_fail(err, HS_ERR_PROTOCOL, "unknown profiling mode %u", h->version.prof_mode);
    if (st == HS_OK) {
        bool profiled = h->version.prof_mode != WIRE_PROF_NONE;
        h->header_bytes = profiled ? 24 : 8;
        h->info_bytes = profiled ? 32 : 16;
        st = heap_refresh(h, err);
    }
    if (st != HS_OK) {
        heap_free(h);
        return st;
    }
    *out = h;
    return HS_OK;
}

void heap_free(heap *h) {
    if (!h)
        return;
    drop_heap_contents(h);
    heap_free_map_values(&h->frame_bitmaps);
    heap_free_map_values(&h->fun_bitmaps);
    heap_infos_free(h);
    free(h);
}

const wire_version *heap_version(const heap *h) { return &h->version; }
unsigned heap_header_bytes(const heap *h) { return h->header_bytes; }
const wire_ptr_list *heap_roots(const heap *h) { return &h->roots; }
const wire_ptr_list *heap_saved_objects(const heap *h) { return &h->saved; }
size_t heap_block_count(const heap *h) { return h->blocks.count; }
uint64_t heap_block_bytes(const heap *h) { return h->block_bytes; }
uint8_t heap_prof_mode(const heap *h) { return h->version.prof_mode; }
