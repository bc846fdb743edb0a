/* Writes what the heap read from its source (heap_export.h) into the
 * snapshot's tables, each through one prepared statement in the writer's
 * single transaction: block groups in chunks, then the answers keyed as
 * the snapshot source looks them up. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/heap_export.h"
#include "store_internal.h"

/* ---- block groups ---- */

typedef struct chunker {
    store_writer *w;
    sqlite3_stmt *insert;
    uint8_t *dir, *data;
    size_t n_groups, dir_cap, data_len, data_cap;
    uint64_t chunk;
    uint64_t done, total;
} chunker;

static hs_status flush_chunk(chunker *k, hs_error *err) {
    if (k->n_groups == 0)
        return HS_OK;
    size_t dir_len = k->n_groups * STORE_DIR_ENTRY_BYTES;
    sqlite3_stmt *st = k->insert;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)k->chunk++);
    sqlite3_bind_blob(st, 2, k->dir, (int)dir_len, SQLITE_STATIC);
    store_bind_u64(st, 3, store_checksum(k->dir, dir_len));
    store_bind_u64(st, 4, store_checksum(k->data, k->data_len));
    sqlite3_bind_blob64(st, 5, k->data, k->data_len, SQLITE_STATIC);
    hs_status x = store_db_step_done(k->w->db, st, err, "writing the heap blocks");
    k->done += k->data_len;
    k->n_groups = 0;
    k->data_len = 0;
    return x == HS_OK ? store_write_progress(k->w, "writing blocks", k->done, k->total, err) : x;
}

static bool reserve(uint8_t **buf, size_t *cap, size_t need) {
    if (need <= *cap)
        return true;
    size_t cap2 = *cap ? *cap : 4096;
    while (cap2 < need)
        cap2 *= 2;
    uint8_t *p = realloc(*buf, cap2);
    if (!p)
        return false;
    *buf = p;
    *cap = cap2;
    return true;
}

static hs_status add_block(void *ctx, const heap_block *b, hs_error *err) {
    chunker *k = ctx;
    if (!b->data)
        return hs_fail(err, HS_ERR_INTERNAL, "block group 0x%llx was not loaded",
                       (unsigned long long)b->start);
    if (b->len > STORE_MAX_GROUP_BYTES)
        return hs_fail(err, HS_ERR_TOO_LARGE,
                       "block group 0x%llx has %u bytes, more than a snapshot holds in one piece",
                       (unsigned long long)b->start, b->len);
    if (k->data_len > 0 && k->data_len + b->len > STORE_CHUNK_BYTES) {
        hs_status st = flush_chunk(k, err);
        if (st != HS_OK)
            return st;
    }
    size_t dir_len = (k->n_groups + 1) * STORE_DIR_ENTRY_BYTES;
    if (!reserve(&k->dir, &k->dir_cap, dir_len) ||
        !reserve(&k->data, &k->data_cap, k->data_len + b->len))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory writing the heap blocks");
    store_dir_put(k->dir + dir_len - STORE_DIR_ENTRY_BYTES,
                  &(store_dir_entry){b->start, b->len, b->flags});
    memcpy(k->data + k->data_len, b->data, b->len);
    k->data_len += b->len;
    k->n_groups++;
    return HS_OK;
}

hs_status store_write_blocks(store_writer *w, hs_error *err) {
    chunker k = {.w = w, .total = heap_block_bytes(w->h)};
    hs_status st = store_db_prepare(w->db,
                                    "INSERT INTO heap_chunks (chunk, groups, groups_checksum, "
                                    "data_checksum, data) VALUES (?,?,?,?,?)",
                                    &k.insert, err);
    if (st == HS_OK)
        st = heap_foreach_block(w->h, add_block, &k, err);
    if (st == HS_OK)
        st = flush_chunk(&k, err);
    sqlite3_finalize(k.insert);
    free(k.dir);
    free(k.data);
    return st;
}

/* ---- answers ---- */

typedef struct answers {
    store_writer *w;
    sqlite3_stmt *st;
} answers;

static hs_status step(answers *a, hs_error *err) {
    return store_db_step_done(a->w->db, a->st, err, "writing the snapshot");
}

static void bind_text(sqlite3_stmt *st, int i, const char *text) {
    if (text)
        sqlite3_bind_text(st, i, text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static hs_status put_info(void *ctx, const heap_export_info *i, hs_error *err) {
    answers *a = ctx;
    store_bind_u64(a->st, 1, i->info->ptr);
    sqlite3_bind_blob(a->st, 2, i->raw, (int)i->raw_len, SQLITE_TRANSIENT);
    return step(a, err);
}

static hs_status put_srt(void *ctx, uint64_t info, uint64_t srt, hs_error *err) {
    answers *a = ctx;
    store_bind_u64(a->st, 1, srt);
    store_bind_u64(a->st, 2, info);
    return step(a, err);
}

static hs_status put_con_desc(void *ctx, uint64_t info, const char *text, hs_error *err) {
    answers *a = ctx;
    store_bind_u64(a->st, 1, info);
    bind_text(a->st, 2, text);
    return step(a, err);
}

static hs_status put_source_info(void *ctx, uint64_t info, const wire_source_info *si,
                                 hs_error *err) {
    answers *a = ctx;
    bool found = si && si->found;
    store_bind_u64(a->st, 1, info);
    sqlite3_bind_int(a->st, 2, found);
    bind_text(a->st, 3, found ? si->name : NULL);
    bind_text(a->st, 4, found ? si->closure_type_text : NULL);
    sqlite3_bind_int64(a->st, 5, found ? si->closure_type : 0);
    bind_text(a->st, 6, found ? si->type : NULL);
    bind_text(a->st, 7, found ? si->label : NULL);
    bind_text(a->st, 8, found ? si->module : NULL);
    bind_text(a->st, 9, found ? si->position : NULL);
    return step(a, err);
}

static hs_status put_frame_bitmap(void *ctx, const heap_export_frame_bitmap *b, hs_error *err) {
    answers *a = ctx;
    store_bind_u64(a->st, 1, b->frame_info);
    store_bind_u64(a->st, 2, b->frame);
    sqlite3_bind_blob64(a->st, 3, b->bits, b->count, SQLITE_TRANSIENT);
    return step(a, err);
}

static hs_status put_fun_bitmap(void *ctx, const heap_export_fun_bitmap *b, hs_error *err) {
    answers *a = ctx;
    store_bind_u64(a->st, 1, b->fun_info);
    sqlite3_bind_int(a->st, 2, b->n);
    sqlite3_bind_blob64(a->st, 3, b->bits, b->n, SQLITE_TRANSIENT);
    return step(a, err);
}

static hs_status put_static(void *ctx, uint64_t addr, const uint8_t *bytes, size_t len,
                            hs_error *err) {
    answers *a = ctx;
    store_bind_u64(a->st, 1, addr);
    sqlite3_bind_blob64(a->st, 2, bytes, len, SQLITE_TRANSIENT);
    return step(a, err);
}

static hs_status put_ccs(void *ctx, uint64_t addr, const wire_ccs *c, hs_error *err) {
    answers *a = ctx;
    const uint64_t v[] = {addr, (uint64_t)c->id, c->cc, c->prev, c->index_table, c->root,
                          c->depth, c->scc_count, c->selected, c->time_ticks, c->mem_alloc,
                          c->inherited_alloc, c->inherited_ticks};
    for (int i = 0; i < (int)(sizeof v / sizeof v[0]); i++)
        store_bind_u64(a->st, i + 1, v[i]);
    return step(a, err);
}

static hs_status put_cc(void *ctx, uint64_t addr, const wire_cc *c, hs_error *err) {
    answers *a = ctx;
    store_bind_u64(a->st, 1, addr);
    sqlite3_bind_int64(a->st, 2, c->id);
    bind_text(a->st, 3, c->label);
    bind_text(a->st, 4, c->module);
    bind_text(a->st, 5, c->srcloc);
    store_bind_u64(a->st, 6, c->mem_alloc);
    store_bind_u64(a->st, 7, c->time_ticks);
    sqlite3_bind_int(a->st, 8, c->is_caf);
    store_bind_u64(a->st, 9, c->link);
    return step(a, err);
}

static hs_status put_index_entry(void *ctx, uint64_t addr, const wire_index_entry *e,
                                 hs_error *err) {
    answers *a = ctx;
    store_bind_u64(a->st, 1, addr);
    store_bind_u64(a->st, 2, e->cc);
    store_bind_u64(a->st, 3, e->ccs);
    store_bind_u64(a->st, 4, e->next);
    sqlite3_bind_int(a->st, 5, e->back_edge);
    return step(a, err);
}

/* One table: prepare its INSERT, feed it every exported item, finalize. */
#define WRITE_TABLE(a, sql, foreach, fn)                                       \
    do {                                                                       \
        if (st == HS_OK)                                                       \
            st = store_db_prepare((a)->w->db, sql, &(a)->st, err);             \
        if (st == HS_OK)                                                       \
            st = foreach((a)->w->h, fn, (a), err);                             \
        sqlite3_finalize((a)->st);                                             \
        (a)->st = NULL;                                                        \
    } while (0)

hs_status store_write_answers(store_writer *w, hs_error *err) {
    answers a = {.w = w};
    hs_status st = HS_OK;
    WRITE_TABLE(&a, "INSERT INTO info_tables (info, raw) VALUES (?,?)", heap_foreach_info,
                put_info);
    WRITE_TABLE(&a, "UPDATE info_tables SET srt = ? WHERE info = ?", heap_foreach_srt, put_srt);
    WRITE_TABLE(&a, "INSERT INTO con_descs VALUES (?,?)", heap_foreach_con_desc, put_con_desc);
    WRITE_TABLE(&a, "INSERT INTO source_infos VALUES (?,?,?,?,?,?,?,?,?)",
                heap_foreach_source_info, put_source_info);
    WRITE_TABLE(&a, "INSERT INTO frame_bitmaps VALUES (?,?,?)", heap_foreach_frame_bitmap,
                put_frame_bitmap);
    WRITE_TABLE(&a, "INSERT INTO fun_bitmaps VALUES (?,?,?)", heap_foreach_fun_bitmap,
                put_fun_bitmap);
    WRITE_TABLE(&a, "INSERT INTO static_closures VALUES (?,?)", heap_foreach_static, put_static);
    WRITE_TABLE(&a, "INSERT INTO cost_centre_stacks VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                heap_foreach_ccs, put_ccs);
    WRITE_TABLE(&a, "INSERT INTO cost_centres VALUES (?,?,?,?,?,?,?,?,?)", heap_foreach_cc,
                put_cc);
    WRITE_TABLE(&a, "INSERT INTO ccs_index_entries VALUES (?,?,?,?,?)",
                heap_foreach_index_entry, put_index_entry);
    uint64_t main_ccs;
    if (st == HS_OK && heap_export_ccs_main(w->h, &main_ccs)) {
        sqlite3_stmt *m;
        st = store_db_prepare(w->db, "INSERT INTO meta VALUES ('ccs_main', ?)", &m, err);
        if (st == HS_OK) {
            store_bind_u64(m, 1, main_ccs);
            st = store_db_step_done(w->db, m, err, "writing the snapshot");
        }
        sqlite3_finalize(m);
    }
    return st;
}
