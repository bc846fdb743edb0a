/* Opening a paused heap: version, roots, saved objects and all blocks,
 * indexed by address. */
#include <stdlib.h>
#include <string.h>

#include "heap_internal.h"
#include "heapscope/grow.h"

#define BLOCK_SHIFT 12
#define BLOCK_BYTES (UINT64_C(1) << BLOCK_SHIFT)
/* A block group farther than this from the range before it starts a range
 * of its own unless the range stays at least half full: the address index
 * then costs at most about twice the blocks received, wherever a peer puts
 * them (one far block must not make it span terabytes). */
#define RANGE_SLACK_BLOCKS UINT64_C(256)

/* By start, then by place in the list: of a group listed twice, the copy
 * listed first comes first. */
static int cmp_start(const void *a, const void *b, void *ctx) {
    const heap_block_list *bl = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    uint64_t x = bl->items[i].start, y = bl->items[j].start;
    return x != y ? (x < y ? -1 : 1) : (i > j) - (i < j);
}

/* Block-aligned [lo, hi) of a group; false when it wraps the address space. */
static bool group_extent(const heap_block *b, uint64_t *lo, uint64_t *hi) {
    *lo = b->start & ~(BLOCK_BYTES - 1);
    uint64_t end = b->start + b->len;
    if (end < b->start || end > UINT64_MAX - BLOCK_BYTES)
        return false;
    *hi = (end + BLOCK_BYTES - 1) & ~(BLOCK_BYTES - 1);
    return true;
}

/* Groups the sorted block groups into ranges (see RANGE_SLACK_BLOCKS) and
 * numbers their words densely: the largest range first, from 0, so that
 * the common case (one range holds nearly all of the heap) maps addresses
 * with one subtraction; the others follow in address order. */
static hs_status make_ranges(heap *h, const uint32_t *sorted, size_t n, hs_error *err) {
    if (!(h->ranges = malloc((n ? n : 1) * sizeof *h->ranges)))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory indexing %zu block groups", n);
    heap_block_range *r = NULL;
    uint64_t got = 0; /* blocks received in *r */
    for (size_t i = 0; i < n; i++) {
        const heap_block *b = &h->blocks.items[sorted[i]];
        uint64_t lo, hi;
        if (b->len == 0)
            continue;
        if (!group_extent(b, &lo, &hi))
            return hs_fail(err, HS_ERR_PROTOCOL,
                           "block group at 0x%llx of %u bytes runs past the end of the address "
                           "space",
                           (unsigned long long)b->start, b->len);
        uint64_t blocks = (hi - lo) >> BLOCK_SHIFT;
        if (r && (lo <= r->hi || ((hi > r->hi ? hi : r->hi) - r->lo) >> BLOCK_SHIFT <=
                                     2 * (got + blocks) + RANGE_SLACK_BLOCKS)) {
            if (hi > r->hi)
                r->hi = hi;
            got += blocks;
            continue;
        }
        r = &h->ranges[h->n_ranges++];
        *r = (heap_block_range){lo, hi, 0};
        got = blocks;
    }
    for (size_t i = 1; i < h->n_ranges; i++)
        if (h->ranges[i].hi - h->ranges[i].lo > h->ranges[h->big].hi - h->ranges[h->big].lo)
            h->big = i;
    if (h->n_ranges) {
        h->big_lo = h->ranges[h->big].lo;
        h->big_bytes = h->ranges[h->big].hi - h->big_lo;
    }
    h->words = h->big_bytes >> 3;
    for (size_t i = 0; i < h->n_ranges; i++) {
        if (i != h->big) {
            h->ranges[i].first_word = h->words;
            h->words += (h->ranges[i].hi - h->ranges[i].lo) >> 3;
        }
    }
    return HS_OK;
}

/* End of a group, UINT64_MAX when it wraps (make_ranges refuses it). */
static uint64_t group_end(const heap_block *b) {
    uint64_t end = b->start + b->len;
    return end < b->start ? UINT64_MAX : end;
}

/* Sets *same to whether groups a and b (of one start and length) hold the
 * same bytes, loading them from a lazy source first. */
static hs_status same_bytes(heap *h, uint32_t a, uint32_t b, bool *same, hs_error *err) {
    *same = true;
    if (h->blocks.items[a].len == 0)
        return HS_OK;
    hs_status st = heap_load_group(h, a, err);
    if (st == HS_OK)
        st = heap_load_group(h, b, err);
    if (st == HS_OK)
        *same = !memcmp(h->blocks.items[a].data, h->blocks.items[b].data,
                        h->blocks.items[a].len);
    return st;
}

/* Walks the groups sorted by start (then list order) and keeps, in
 * sorted[0 .. *n), one copy of each: a group listed again with the same
 * start, length and bytes is dropped (the RTS lists each empty pinned group
 * once per capability; ghc-debug keeps the first copy, and so does this).
 * Any other overlap is refused: the heap would hold two different answers
 * for one address. */
static hs_status drop_copies(heap *h, uint32_t *sorted, size_t *n, hs_error *err) {
    size_t kept = 0;
    const heap_block *reach = NULL; /* the kept group reaching farthest so far */
    for (size_t k = 0; k < *n; k++) {
        uint32_t g = sorted[k];
        const heap_block *b = &h->blocks.items[g];
        size_t j = kept; /* an earlier copy: a kept group of the same start and length */
        while (j > 0 && h->blocks.items[sorted[j - 1]].start == b->start &&
               h->blocks.items[sorted[j - 1]].len != b->len)
            j--;
        if (j > 0 && h->blocks.items[sorted[j - 1]].start == b->start) {
            bool same;
            hs_status st = same_bytes(h, sorted[j - 1], g, &same, err);
            if (st != HS_OK)
                return st;
            if (!same)
                return hs_fail(err, HS_ERR_PROTOCOL,
                               "the block group at 0x%llx (%u bytes) is listed twice with "
                               "different bytes",
                               (unsigned long long)b->start, b->len);
            if (!h->dropped && !(h->dropped = calloc(h->blocks.count, 1)))
                return hs_fail(err, HS_ERR_NOMEM, "out of memory indexing %zu block groups",
                               h->blocks.count);
            h->dropped[g] = 1;
            h->n_dropped++;
            continue;
        }
        if (b->len > 0 && reach && b->start < group_end(reach)) {
            if (b->start == reach->start)
                return hs_fail(err, HS_ERR_PROTOCOL,
                               "the block group at 0x%llx is listed twice with different "
                               "lengths (%u and %u bytes)",
                               (unsigned long long)b->start, reach->len, b->len);
            return hs_fail(err, HS_ERR_PROTOCOL,
                           "the block groups at 0x%llx (%u bytes) and 0x%llx (%u bytes) overlap",
                           (unsigned long long)reach->start, reach->len,
                           (unsigned long long)b->start, b->len);
        }
        sorted[kept++] = g;
        if (b->len > 0 && (!reach || group_end(b) > group_end(reach)))
            reach = b;
    }
    *n = kept;
    return HS_OK;
}

static hs_status index_blocks(heap *h, hs_error *err) {
    size_t n = h->blocks.count;
    if (n > UINT32_MAX - 1)
        return hs_fail(err, HS_ERR_TOO_LARGE, "%zu block groups are more than heapscope indexes", n);
    uint32_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory indexing %zu block groups", n);
    for (size_t i = 0; i < n; i++)
        sorted[i] = (uint32_t)i;
    qsort_r(sorted, n, sizeof *sorted, cmp_start, &h->blocks);
    hs_status st = drop_copies(h, sorted, &n, err);
    for (size_t k = 0; st == HS_OK && k < n; k++)
        h->block_bytes += h->blocks.items[sorted[k]].len;
    if (st == HS_OK)
        st = make_ranges(h, sorted, n, err);
    uint64_t table_blocks = h->words >> (BLOCK_SHIFT - 3);
    if (st == HS_OK && table_blocks > 0 &&
        (table_blocks > SIZE_MAX / sizeof *h->block_table ||
         !(h->block_table = calloc((size_t)table_blocks, sizeof *h->block_table))))
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory indexing %llu blocks",
                     (unsigned long long)table_blocks);
    for (size_t k = 0; st == HS_OK && table_blocks > 0 && k < n; k++) {
        uint32_t g = sorted[k];
        const heap_block *b = &h->blocks.items[g];
        uint64_t lo, hi, word;
        if (b->len == 0 || !group_extent(b, &lo, &hi) || !heap_dense_word(h, lo, &word))
            continue;
        uint64_t first = word >> (BLOCK_SHIFT - 3), count = (hi - lo) >> BLOCK_SHIFT;
        for (uint64_t i = first; i < first + count; i++)
            h->block_table[i] = g + 1;
    }
    free(sorted);
    return st;
}

/* The range holding addr, or NULL. */
static inline const heap_block_range *range_of(const heap *h, uint64_t addr) {
    if (addr - h->big_lo < h->big_bytes)
        return &h->ranges[h->big];
    size_t lo = 0, hi = h->n_ranges;
    while (lo < hi) { /* the last range starting at or below addr */
        size_t mid = lo + (hi - lo) / 2;
        if (h->ranges[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && addr < h->ranges[lo - 1].hi ? &h->ranges[lo - 1] : NULL;
}

bool heap_dense_word(const heap *h, uint64_t addr, uint64_t *word) {
    const heap_block_range *r = range_of(h, addr);
    if (r)
        *word = r->first_word + ((addr - r->lo) >> 3);
    return r != NULL;
}

uint64_t heap_dense_addr(const heap *h, uint64_t word) {
    const heap_block_range *big = &h->ranges[h->big];
    if (word < (big->hi - big->lo) >> 3)
        return big->lo + (word << 3);
    /* the others are numbered in address order: search them, skipping big */
    size_t lo = 0, hi = h->n_ranges - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->ranges[mid + (mid >= h->big)].first_word <= word)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t j = lo ? lo - 1 : 0;
    const heap_block_range *r = &h->ranges[j + (j >= h->big)];
    return r->lo + ((word - r->first_word) << 3);
}

long heap_find_group(const heap *h, uint64_t addr) {
    uint64_t off = addr - h->big_lo, word; /* the largest range: numbered from 0 */
    if (off < h->big_bytes)
        word = off >> 3;
    else if (!heap_dense_word(h, addr, &word))
        return -1;
    uint32_t g1 = h->block_table[word >> (BLOCK_SHIFT - 3)];
    if (!g1)
        return -1;
    const heap_block *b = &h->blocks.items[g1 - 1];
    return addr - b->start < b->len ? (long)g1 - 1 : -1;
}

bool heap_in_blocks(const heap *h, uint64_t addr) { return heap_find_group(h, addr) >= 0; }

const heap_block_range *heap_block_ranges(const heap *h, size_t *n) {
    *n = h->n_ranges;
    return h->ranges;
}

uint64_t heap_block_words(const heap *h) { return h->words; }

hs_status heap_fetch_split(heap *h, const uint64_t *keys, size_t n, heap_fetch_fn fetch,
                           heap_refuse_fn refuse, hs_error *err) {
    hs_error why = {0};
    hs_status st = fetch(h, keys, n, &why);
    if (st != HEAP_UNAVAILABLE) {
        if (st != HS_OK && err)
            *err = why;
        return st;
    }
    if (n == 1)
        return refuse(h, keys[0], &why, err);
    size_t half = n / 2; /* depth log2(HEAP_MAX_BATCH): 16 */
    st = heap_fetch_split(h, keys, half, fetch, refuse, err);
    return st == HS_OK ? heap_fetch_split(h, keys + half, n - half, fetch, refuse, err) : st;
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
        if (heap_group_dropped(h, g))
            continue;
        hs_status st = heap_load_group(h, g, err);
        if (st != HS_OK)
            return st;
    }
    return HS_OK;
}

/* Everything read from the heap itself: valid for one pause only. */
static void drop_heap_contents(heap *h) {
    h->ipe_here = 0; /* a new pause may reach tables with IPE */
    wire_ptr_list_free(&h->roots);
    wire_ptr_list_free(&h->saved);
    heap_block_list_free(&h->blocks);
    free(h->ranges);
    free(h->block_table);
    free(h->dropped);
    h->ranges = NULL;
    h->block_table = NULL;
    h->dropped = NULL;
    h->n_dropped = 0;
    h->n_ranges = h->big = 0;
    h->big_lo = h->big_bytes = 0;
    h->words = h->block_bytes = 0;
    heap_free_map_values(&h->statics);
    heap_free_map_values(&h->ret_fun_bitmaps);
    heap_cost_drop(h);
    heap_reached_drop(h);
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
    if (st == HS_OK)
        st = heap_reached_name_roots(h, err);
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
size_t heap_block_count(const heap *h) { return h->blocks.count - h->n_dropped; }
uint64_t heap_block_bytes(const heap *h) { return h->block_bytes; }
uint8_t heap_prof_mode(const heap *h) { return h->version.prof_mode; }
