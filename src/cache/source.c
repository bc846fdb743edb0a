/* A heap_source that answers immutable requests from the cache and sends
 * the others (and every miss) to the source it wraps, recording what the
 * misses brought back.
 *
 * The program's cached rows are read once into memory when the source is
 * made (SQLite answers random key lookups ~200x slower than a hash map; a
 * program has thousands of info tables, read in one scan), and new answers
 * are written back in one transaction by cache_source_flush. Rows read
 * from the file are checked like any outside bytes; a row that fails is
 * ignored, so the request goes to the debuggee. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/grow.h"
#include "heapscope/u64map.h"
#include "cache_internal.h"

static hs_status nomem(hs_error *err) { return hs_fail(err, HS_ERR_NOMEM, "out of memory"); }

/* Remembers an answer as new (to write at the next flush). */
static bool note_new(cache_source *s, cache_kind kind, uint64_t key) {
    if (!hs_grow((void **)&s->pending, &s->pending_cap, s->n_pending + 1, sizeof *s->pending))
        return false;
    s->pending[s->n_pending++] = (cache_pending){kind, key};
    return true;
}

/* Keeps a copy of value under key unless one is there (a duplicate key in
 * one request). Takes ownership of value. */
static bool keep(cache_source *s, cache_kind kind, u64map *m, uint64_t key, void *value) {
    if (u64map_find(m, key)) {
        free(value);
        return true;
    }
    if (!u64map_put(m, key, (uintptr_t)value)) {
        free(value);
        return false;
    }
    return note_new(s, kind, key);
}

static cache_blob *blob_new(const uint8_t *p, size_t len) {
    cache_blob *b = malloc(sizeof *b + (len ? len : 1));
    if (b) {
        b->len = len;
        memcpy(b->bytes, p, len);
    }
    return b;
}

static const cache_blob *blob_at(const u64map *m, uint64_t key) {
    uint64_t *v = u64map_find(m, key);
    return v ? (const cache_blob *)(uintptr_t)*v : NULL;
}

/* ---- forwarded requests ---- */

#define INNER(s) ((cache_source *)(s))->inner
static hs_status fw_version(void *s, wire_version *o, hs_error *e) {
    return INNER(s).ops->version(INNER(s).self, o, e);
}
static hs_status fw_roots(void *s, wire_ptr_list *o, hs_error *e) {
    return INNER(s).ops->roots(INNER(s).self, o, e);
}
static hs_status fw_saved(void *s, wire_ptr_list *o, hs_error *e) {
    return INNER(s).ops->saved_objects(INNER(s).self, o, e);
}
static hs_status fw_blocks(void *s, heap_block_list *o, hs_error *e) {
    return INNER(s).ops->blocks(INNER(s).self, o, e);
}
static hs_status fw_load_block(void *s, heap_block_list *o, size_t i, hs_error *e) {
    return INNER(s).ops->load_block(INNER(s).self, o, i, e);
}
static hs_status fw_closures(void *s, const uint64_t *p, size_t n, heap_blobs *o, hs_error *e) {
    return INNER(s).ops->closures(INNER(s).self, p, n, o, e);
}
static hs_status fw_ccs(void *s, uint64_t p, wire_ccs *o, hs_error *e) {
    return INNER(s).ops->ccs(INNER(s).self, p, o, e);
}
static hs_status fw_cc(void *s, uint64_t p, wire_cc *o, hs_error *e) {
    return INNER(s).ops->cc(INNER(s).self, p, o, e);
}
static hs_status fw_index_entry(void *s, uint64_t p, wire_index_entry *o, hs_error *e) {
    return INNER(s).ops->index_entry(INNER(s).self, p, o, e);
}
static hs_status fw_ccs_main(void *s, uint64_t *o, hs_error *e) {
    return INNER(s).ops->ccs_main(INNER(s).self, o, e);
}

/* ---- what may be cached ---- */

/* An address in a library's memory: the library is mapped elsewhere at the
 * next run, so an answer for it is neither taken from the cache nor kept.
 * 0 is never a key. */
static bool uncacheable(const cache_source *s, uint64_t key) {
    if (key == 0)
        return true;
    size_t lo = 0, hi = s->n_moving; /* the last range starting at or below key */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->moving[mid].start <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && key < s->moving[lo - 1].end;
}

static int by_start(const void *a, const void *b) {
    uint64_t x = ((const cache_range *)a)->start, y = ((const cache_range *)b)->start;
    return x < y ? -1 : x > y;
}

bool cache_source_set_moving(cache_source *s, const cache_range *ranges, size_t n) {
    cache_range *copy = n ? malloc(n * sizeof *copy) : NULL;
    if (n && !copy)
        return false;
    if (n) {
        memcpy(copy, ranges, n * sizeof *copy);
        qsort(copy, n, sizeof *copy, by_start);
    }
    free(s->moving);
    s->moving = copy;
    s->n_moving = n;
    return true;
}

/* ---- batched requests: info tables and SRTs ---- */

/* The keys to ask the wrapped source (not cached, or uncacheable), in
 * order; asked[i] says whether keys[i] is one of them. */
static hs_status to_ask(const cache_source *s, const u64map *m, const uint64_t *keys, size_t n,
                        uint64_t **ask, size_t *n_ask, bool **asked, hs_error *err) {
    *ask = malloc((n ? n : 1) * sizeof **ask);
    *asked = malloc(n ? n : 1);
    if (!*ask || !*asked)
        return nomem(err);
    *n_ask = 0;
    for (size_t i = 0; i < n; i++) {
        (*asked)[i] = uncacheable(s, keys[i]) || !u64map_find(m, keys[i]);
        if ((*asked)[i])
            (*ask)[(*n_ask)++] = keys[i];
    }
    return HS_OK;
}

static void count(cache_source *s, size_t n, size_t n_ask) {
    s->stats.misses += n_ask;
    s->stats.hits += n - n_ask;
}

static hs_status c_info_tables(void *self, const uint64_t *infos, size_t n, heap_blobs *out,
                               hs_error *err) {
    cache_source *s = self;
    *out = (heap_blobs){0};
    uint64_t *ask;
    bool *asked;
    size_t n_ask = 0;
    heap_blobs got = {0};
    hs_status st = to_ask(s, &s->maps.infos, infos, n, &ask, &n_ask, &asked, err);
    if (st == HS_OK && n_ask > 0)
        st = s->inner.ops->info_tables(s->inner.self, ask, n_ask, &got, err);
    if (st == HS_OK && n_ask > 0 && got.count != n_ask)
        st = hs_fail(err, HS_ERR_INTERNAL, "%zu info tables for %zu asked", got.count, n_ask);
    for (size_t j = 0; st == HS_OK && j < n_ask; j++) {
        if (uncacheable(s, ask[j]))
            continue;
        cache_blob *b = blob_new(got.items[j].data, got.items[j].len);
        if (!b || !keep(s, CACHE_INFO_TABLE, &s->maps.infos, ask[j], b))
            st = nomem(err);
    }
    count(s, n, n_ask);
    /* the answers in order: what was asked from `got`, the rest from the map */
    size_t total = 0;
    for (size_t i = 0, j = 0; st == HS_OK && i < n; i++)
        total += asked[i] ? got.items[j++].len : blob_at(&s->maps.infos, infos[i])->len;
    if (st == HS_OK) {
        out->items = malloc((n ? n : 1) * sizeof *out->items);
        out->storage = malloc(total ? total : 1);
        if (!out->items || !out->storage)
            st = nomem(err);
    }
    for (size_t i = 0, j = 0, at = 0; st == HS_OK && i < n; i++) {
        heap_blob from;
        if (asked[i]) {
            from = got.items[j++];
        } else {
            const cache_blob *b = blob_at(&s->maps.infos, infos[i]);
            from = (heap_blob){b->bytes, b->len};
        }
        memcpy((uint8_t *)out->storage + at, from.data, from.len);
        out->items[i] = (heap_blob){(uint8_t *)out->storage + at, from.len};
        at += from.len;
    }
    if (st == HS_OK)
        out->count = n;
    else
        heap_blobs_free(out);
    heap_blobs_free(&got);
    free(ask);
    free(asked);
    return st;
}

static hs_status c_srts(void *self, const uint64_t *infos, size_t n, uint64_t *out,
                        hs_error *err) {
    cache_source *s = self;
    uint64_t *ask, *got = NULL;
    bool *asked;
    size_t n_ask = 0;
    hs_status st = to_ask(s, &s->maps.srts, infos, n, &ask, &n_ask, &asked, err);
    if (st == HS_OK && n_ask > 0) {
        got = malloc(n_ask * sizeof *got);
        st = got ? s->inner.ops->srts(s->inner.self, ask, n_ask, got, err) : nomem(err);
    }
    for (size_t j = 0; st == HS_OK && j < n_ask; j++) {
        if (uncacheable(s, ask[j]) || u64map_find(&s->maps.srts, ask[j]))
            continue;
        if (!u64map_put(&s->maps.srts, ask[j], got[j]) || !note_new(s, CACHE_SRT, ask[j]))
            st = nomem(err);
    }
    count(s, n, n_ask);
    for (size_t i = 0, j = 0; st == HS_OK && i < n; i++)
        out[i] = asked[i] ? got[j++] : *u64map_find(&s->maps.srts, infos[i]);
    free(ask);
    free(asked);
    free(got);
    return st;
}

/* ---- bitmaps: RET_BIG frames by info table, functions by (info, n) ---- */

static hs_status bitmap_answer(const cache_blob *b, heap_bitmap *out, hs_error *err) {
    out->bits = malloc(b->len ? b->len : 1);
    if (!out->bits)
        return nomem(err);
    memcpy(out->bits, b->bytes, b->len);
    out->count = b->len;
    return HS_OK;
}

/* Keeps a copy of the bitmap the wrapped source answered (asked: its
 * status) under key. */
static hs_status cached_bitmap(cache_source *s, cache_kind kind, u64map *m, uint64_t key,
                               hs_status asked, heap_bitmap *out, hs_error *err) {
    if (asked != HS_OK)
        return asked;
    cache_blob *b = blob_new(out->bits, out->count);
    if (!b || !keep(s, kind, m, key, b)) {
        free(out->bits);
        *out = (heap_bitmap){0};
        return nomem(err);
    }
    return HS_OK;
}

static hs_status c_frame_bitmap(void *self, uint64_t sp, uint32_t off, const heap_info *fi,
                                heap_bitmap *out, hs_error *err) {
    cache_source *s = self;
    *out = (heap_bitmap){0};
    /* RET_FUN maps belong to the frame */
    bool by_info = fi && fi->type == HS_RET_BIG && !uncacheable(s, fi->ptr);
    const cache_blob *b = by_info ? blob_at(&s->maps.frame_bitmaps, fi->ptr) : NULL;
    if (b) {
        s->stats.hits++;
        return bitmap_answer(b, out, err);
    }
    hs_status st = s->inner.ops->frame_bitmap(s->inner.self, sp, off, fi, out, err);
    if (!by_info)
        return st;
    s->stats.misses++;
    return cached_bitmap(s, CACHE_FRAME_BITMAP, &s->maps.frame_bitmaps, fi->ptr, st, out, err);
}

static hs_status c_fun_bitmap(void *self, uint64_t fun, const heap_info *fi, uint16_t n,
                              heap_bitmap *out, hs_error *err) {
    cache_source *s = self;
    *out = (heap_bitmap){0};
    uint64_t key = fi && !uncacheable(s, fi->ptr) ? cache_fun_bitmap_key(fi->ptr, n) : 0;
    const cache_blob *b = key ? blob_at(&s->maps.fun_bitmaps, key) : NULL;
    if (b) {
        s->stats.hits++;
        return bitmap_answer(b, out, err);
    }
    hs_status st = s->inner.ops->fun_bitmap(s->inner.self, fun, fi, n, out, err);
    if (!key)
        return st;
    s->stats.misses++;
    return cached_bitmap(s, CACHE_FUN_BITMAP, &s->maps.fun_bitmaps, key, st, out, err);
}

/* ---- constructor descriptions and source locations ---- */

static hs_status unavailable(hs_error *err, const char *what, uint64_t info) {
    return hs_fail(err, HEAP_UNAVAILABLE, "the program has no %s for 0x%llx", what,
                   (unsigned long long)info);
}

static hs_status c_con_desc(void *self, uint64_t info, char **text, hs_error *err) {
    cache_source *s = self;
    if (uncacheable(s, info))
        return s->inner.ops->con_desc(s->inner.self, info, text, err);
    *text = NULL;
    uint64_t *v = u64map_find(&s->maps.con_descs, info);
    if (v) {
        s->stats.hits++;
        const cache_text *t = (const cache_text *)(uintptr_t)*v;
        if (!t->available)
            return unavailable(err, "constructor description", info);
        *text = strdup(t->text);
        return *text ? HS_OK : nomem(err);
    }
    s->stats.misses++;
    hs_status st = s->inner.ops->con_desc(s->inner.self, info, text, err);
    if (st != HS_OK && st != HEAP_UNAVAILABLE)
        return st;
    cache_text *t = cache_text_new(st == HS_OK ? *text : NULL);
    if (!t || !keep(s, CACHE_CON_DESC, &s->maps.con_descs, info, t)) {
        free(*text);
        *text = NULL;
        return nomem(err);
    }
    return st;
}

static hs_status c_source_info(void *self, uint64_t info, wire_source_info *out, hs_error *err) {
    cache_source *s = self;
    if (uncacheable(s, info))
        return s->inner.ops->source_info(s->inner.self, info, out, err);
    *out = (wire_source_info){0};
    uint64_t *v = u64map_find(&s->maps.source_infos, info);
    if (v) {
        s->stats.hits++;
        const cache_ipe *c = (const cache_ipe *)(uintptr_t)*v;
        if (!c->available)
            return unavailable(err, "source locations", info);
        return cache_source_info_copy(&c->si, out) ? HS_OK : nomem(err);
    }
    s->stats.misses++;
    hs_status st = s->inner.ops->source_info(s->inner.self, info, out, err);
    if (st != HS_OK && st != HEAP_UNAVAILABLE)
        return st;
    cache_ipe *c = cache_ipe_new(st == HS_OK ? out : NULL);
    if (!c || !keep(s, CACHE_SOURCE_INFO, &s->maps.source_infos, info, c)) {
        wire_source_info_free(out);
        return nomem(err);
    }
    return st;
}

static const heap_source_ops cached_ops = {
    .version = fw_version,
    .roots = fw_roots,
    .saved_objects = fw_saved,
    .blocks = fw_blocks,
    .load_block = fw_load_block,
    .closures = fw_closures,
    .info_tables = c_info_tables,
    .srts = c_srts,
    .frame_bitmap = c_frame_bitmap,
    .fun_bitmap = c_fun_bitmap,
    .con_desc = c_con_desc,
    .source_info = c_source_info,
    .ccs = fw_ccs,
    .cc = fw_cc,
    .index_entry = fw_index_entry,
    .ccs_main = fw_ccs_main,
};

hs_status cache_source_new(cache *c, int64_t program, heap_source inner, cache_source **out,
                           hs_error *err) {
    *out = NULL;
    cache_source *s = calloc(1, sizeof *s);
    if (!s)
        return nomem(err);
    s->c = c;
    s->program = program;
    s->inner = inner;
    s->ops = cached_ops;
    if (!inner.ops->load_block)
        s->ops.load_block = NULL; /* keep "blocks always come loaded" */
    hs_status st = cache_maps_load(c, program, &s->maps, err);
    if (st != HS_OK) {
        cache_source_free(s);
        return st;
    }
    *out = s;
    return HS_OK;
}

heap_source cache_source_heap(cache_source *s) { return (heap_source){&s->ops, s}; }

cache_source_stats cache_source_get_stats(const cache_source *s) {
    cache_source_stats st = s->stats;
    st.pending = s->n_pending;
    return st;
}

hs_status cache_source_flush(cache_source *s, hs_error *err) {
    if (s->n_pending == 0)
        return HS_OK;
    hs_status st = cache_maps_write(s->c, s->program, &s->maps, s->pending, s->n_pending, err);
    if (st == HS_OK) {
        s->stats.recorded += s->n_pending;
        s->n_pending = 0;
    }
    return st;
}

void cache_source_free(cache_source *s) {
    if (!s)
        return;
    cache_maps_free(&s->maps);
    free(s->pending);
    free(s->moving);
    free(s);
}
