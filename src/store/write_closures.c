/* The `closures` table for SQL users: one row per closure reachable from
 * the GC roots (the closures a census counts), in address order.
 *
 * A traversal marks what is reachable (one bit per heap word, a list for
 * closures outside the blocks) and fetches every info table on the way;
 * a sweep in address order then decodes each marked closure again and
 * appends its row. Appending in key order fills SQLite's pages completely
 * and is its fastest insert; rows go in batches through a virtual table
 * (rows_feed.c) rather than one bound INSERT each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "heapscope/closure_type.h"
#include "heapscope/grow.h"
#include "heapscope/query.h"
#include "heapscope/u64map.h"
#include "store_internal.h"

#define ROWS_PER_BATCH 65536

typedef struct kind {
    const heap_info *info;
    uint32_t size; /* of its first closure: rows of this size store NULL */
} kind;

typedef struct sweep {
    store_writer *w;
    uint64_t *bits;    /* reachable closure starts, one bit per dense heap word */
    uint64_t *others;  /* reachable closures outside the blocks */
    size_t n_others, others_cap;
    u64map ccs;        /* header cost-centre stacks seen (profiled heaps) */
    bool nomem;

    u64map kind_of; /* info pointer -> kind id */
    kind *kinds;
    size_t n_kinds, kinds_cap;

    sqlite3_stmt *insert; /* from the feed */
    store_rows_feed feed;
    uint64_t written;
    heap_closure c;
} sweep;

static query_action mark(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)depth;
    sweep *s = ctx;
    uint64_t wd;
    if (heap_dense_word(h, c->addr, &wd)) {
        s->bits[wd >> 6] |= UINT64_C(1) << (wd & 63);
    } else if (hs_grow((void **)&s->others, &s->others_cap, s->n_others + 1,
                       sizeof *s->others)) {
        s->others[s->n_others++] = c->addr;
    } else {
        s->nomem = true;
        return QUERY_STOP;
    }
    if (!store_note_header_ccs(&s->ccs, c)) {
        s->nomem = true;
        return QUERY_STOP;
    }
    return QUERY_CONTINUE;
}

static bool traverse_progress(void *ctx, uint64_t visited) {
    hs_error ignored;
    return store_write_progress(ctx, "counting closures", visited, 0, &ignored) == HS_OK;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static hs_status flush_rows(sweep *s, hs_error *err) {
    if (s->feed.n == 0)
        return HS_OK;
    hs_status x = store_db_step_done(s->w->db, s->insert, err, "writing the closures table");
    s->written += s->feed.n;
    s->feed.n = 0;
    if (x == HS_OK)
        x = store_write_progress(s->w, "writing closures", s->written, s->w->meta.closures, err);
    return x;
}

static hs_status kind_for(sweep *s, const heap_info *info, uint32_t size, uint64_t *id,
                          hs_error *err) {
    uint64_t *known = u64map_find(&s->kind_of, info->ptr);
    if (known) {
        *id = *known - 1;
        return HS_OK;
    }
    if (!hs_grow((void **)&s->kinds, &s->kinds_cap, s->n_kinds + 1, sizeof *s->kinds) ||
        !u64map_put(&s->kind_of, info->ptr, s->n_kinds + 1))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory listing closure kinds");
    /* the location is recorded with the kind: the snapshot then answers
     * every census by source offline */
    const wire_source_info *ipe;
    hs_status st = heap_info_source(s->w->h, info, &ipe, err);
    if (st != HS_OK)
        return st;
    s->kinds[s->n_kinds] = (kind){info, size};
    *id = s->n_kinds++;
    return HS_OK;
}

static hs_status add_row(sweep *s, uint64_t addr, hs_error *err) {
    heap *h = s->w->h;
    size_t len;
    const uint8_t *bytes = heap_memory_cached(h, addr, &len);
    const heap_info *info = bytes ? heap_info_lookup(h, hs_load_le64(bytes)) : NULL;
    hs_status st = info ? heap_decode_known(h, addr, bytes, len, info, &s->c, err)
                        : heap_decode(h, addr, &s->c, err);
    if (st != HS_OK)
        return hs_fail_context(err, "closure 0x%llx", (unsigned long long)addr);
    uint64_t k = 0;
    st = kind_for(s, s->c.info, s->c.size, &k, err);
    /* the source locations of a stack's frames too, which name the frames
     * offline (a source that was not completed, a ghc-debug file, has not
     * been asked for them) */
    for (size_t f = 0; st == HS_OK && f < s->c.n_frames; f++) {
        const wire_source_info *ipe;
        if (s->c.frames[f].info)
            st = heap_info_source(h, s->c.frames[f].info, &ipe, err);
    }
    if (st != HS_OK)
        return st;
    store_row *r = &s->feed.rows[s->feed.n++];
    *r = (store_row){.word = store_word_of(addr), .kind = (int64_t)k, .size = s->c.size};
    r->has_era = heap_closure_era(h, &s->c, &r->era);
    r->size_differs = s->c.size != s->kinds[k].size;
    return s->feed.n == ROWS_PER_BATCH ? flush_rows(s, err) : HS_OK;
}

/* Every marked closure, in address order: the outside ones merged with a
 * walk over the bits of each block range in address order (ranges start
 * on 4 KiB boundaries, so each covers whole 64-bit words of bits). */
static hs_status sweep_rows(sweep *s, hs_error *err) {
    if (s->n_others > 1) /* none outside the block ranges: others may be NULL */
        qsort(s->others, s->n_others, sizeof *s->others, cmp_u64);
    size_t o = 0, n_ranges;
    hs_status st = HS_OK;
    const heap_block_range *r = heap_block_ranges(s->w->h, &n_ranges);
    for (size_t i = 0; st == HS_OK && i < n_ranges; i++) {
        uint64_t first = r[i].first_word >> 6, end = first + ((r[i].hi - r[i].lo) >> 9);
        for (uint64_t w64 = first; st == HS_OK && w64 < end; w64++) {
            for (uint64_t m = s->bits[w64]; st == HS_OK && m; m &= m - 1) {
                uint64_t k = (w64 - first) << 6 | (uint64_t)__builtin_ctzll(m);
                uint64_t addr = r[i].lo + (k << 3);
                while (st == HS_OK && o < s->n_others && s->others[o] < addr)
                    st = add_row(s, s->others[o++], err);
                if (st == HS_OK)
                    st = add_row(s, addr, err);
            }
        }
    }
    while (st == HS_OK && o < s->n_others)
        st = add_row(s, s->others[o++], err);
    return st == HS_OK ? flush_rows(s, err) : st;
}

static hs_status bind_text_or_null(sqlite3_stmt *st, int i, const char *text) {
    if (text && *text)
        sqlite3_bind_text(st, i, text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
    return HS_OK;
}

static hs_status write_kinds(sweep *s, hs_error *err) {
    sqlite3_stmt *st;
    hs_status x = store_db_prepare(s->w->db,
                                   "INSERT INTO closure_kinds (kind, info, type, constructor, "
                                   "package, module, location, size) VALUES (?,?,?,?,?,?,?,?)",
                                   &st, err);
    for (size_t k = 0; x == HS_OK && k < s->n_kinds; k++) {
        const heap_info *i = s->kinds[k].info;
        bool con = hs_closure_type_is_constructor(i->type);
        const wire_source_info *ipe = NULL;
        x = heap_info_source(s->w->h, i, &ipe, err);
        if (x != HS_OK)
            break;
        sqlite3_bind_int64(st, 1, (sqlite3_int64)k);
        store_bind_u64(st, 2, i->ptr);
        sqlite3_bind_text(st, 3, hs_closure_type_name(i->type), -1, SQLITE_STATIC);
        /* a constructor's names as described, empty ones included */
        if (con) {
            sqlite3_bind_text(st, 4, i->con_name, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st, 5, i->con_package, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st, 6, i->con_module, -1, SQLITE_TRANSIENT);
        } else {
            sqlite3_bind_null(st, 4);
            sqlite3_bind_null(st, 5);
            bind_text_or_null(st, 6, ipe ? ipe->module : NULL);
        }
        bind_text_or_null(st, 7, ipe ? ipe->position : NULL);
        sqlite3_bind_int64(st, 8, s->kinds[k].size);
        x = store_db_step_done(s->w->db, st, err, "writing the closure kinds");
    }
    sqlite3_finalize(st);
    return x;
}

static hs_status prepare_insert(sweep *s, hs_error *err) {
    s->feed.rows = malloc(ROWS_PER_BATCH * sizeof *s->feed.rows);
    if (!s->feed.rows)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    hs_status st = store_rows_feed_register(s->w->db, &s->feed, err);
    if (st == HS_OK)
        st = store_db_prepare(s->w->db,
                              "INSERT INTO closure_rows (word, kind, era, size)"
                              " SELECT word, kind, era, size FROM heapscope_rows_feed",
                              &s->insert, err);
    return st;
}

hs_status store_write_closures(store_writer *w, hs_error *err) {
    sweep s = {.w = w};
    heap *h = w->h;
    uint64_t n_words = heap_block_words(h);
    s.bits = calloc((n_words + 63) / 64 + 1, sizeof *s.bits);
    hs_status st = s.bits ? HS_OK : hs_fail(err, HS_ERR_NOMEM, "out of memory marking closures");
    query_traversal t = {.visit = mark, .ctx = &s, .progress = traverse_progress,
                         .progress_ctx = w};
    query_traversal_stats stats = {0};
    const wire_ptr_list *roots = heap_roots(h);
    if (st == HS_OK)
        st = query_traverse(h, roots->items, roots->count, &t, &stats, err);
    if (st == HS_OK && s.nomem)
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory marking closures");
    w->meta.closures = stats.visited;
    w->meta.closure_bytes = stats.bytes;
    if (w->unreadable)
        *w->unreadable = stats.unreadable;
    if (st == HS_OK)
        st = store_write_cost_centres(w, &s.ccs, err);
    if (st == HS_OK)
        st = prepare_insert(&s, err);
    if (st == HS_OK)
        st = sweep_rows(&s, err);
    if (st == HS_OK)
        st = write_kinds(&s, err);
    sqlite3_finalize(s.insert);
    free(s.feed.rows);
    heap_closure_free(&s.c);
    free(s.bits);
    free(s.others);
    free(s.kinds);
    u64map_free(&s.kind_of);
    u64map_free(&s.ccs);
    return st;
}
