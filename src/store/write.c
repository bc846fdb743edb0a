/* store_snapshot_write: one pause into a new file, atomically. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "store_internal.h"

#ifndef HEAPSCOPE_VERSION
#define HEAPSCOPE_VERSION "unknown"
#endif

hs_status store_write_progress(store_writer *w, const char *phase, uint64_t done,
                               uint64_t total, hs_error *err) {
    if (w->progress && !w->progress(w->progress_ctx, phase, done, total))
        return hs_fail(err, HS_ERR_CANCELLED, "cancelled");
    return HS_OK;
}

static hs_status write_ptrs(store_writer *w, const char *table, const wire_ptr_list *l,
                            hs_error *err) {
    char sql[96];
    snprintf(sql, sizeof sql, "INSERT INTO %s (ord, address) VALUES (?, ?)", table);
    sqlite3_stmt *st;
    hs_status x = store_db_prepare(w->db, sql, &st, err);
    for (size_t i = 0; x == HS_OK && i < l->count; i++) {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
        store_bind_u64(st, 2, l->items[i]);
        x = store_db_step_done(w->db, st, err, "writing the roots");
    }
    sqlite3_finalize(st);
    return x;
}

/* Everything in one transaction of a journal-less file: a failure leaves a
 * temporary file that is removed, never a half-written snapshot. */
static hs_status fill(store_writer *w, hs_error *err) {
    hs_status st = store_schema_create(w->db, err);
    if (st == HS_OK)
        st = store_db_exec(w->db, "BEGIN", err);
    if (st == HS_OK)
        st = store_write_closures(w, err); /* first: it asks what the rest records */
    if (st == HS_OK)
        st = write_ptrs(w, "roots", heap_roots(w->h), err);
    if (st == HS_OK)
        st = write_ptrs(w, "saved_objects", heap_saved_objects(w->h), err);
    if (st == HS_OK)
        st = store_write_blocks(w, err);
    if (st == HS_OK)
        st = store_write_answers(w, err);
    if (st == HS_OK)
        st = store_meta_write(w->db, &w->meta, err);
    if (st == HS_OK)
        st = store_db_exec(w->db, "COMMIT", err);
    if (st == HS_OK)
        st = store_schema_stamp(w->db, err);
    return st;
}

hs_status store_snapshot_write(heap *h, const char *path, const store_meta *meta,
                               const store_write_options *opts, hs_error *err) {
    store_write_options none = {0};
    if (!opts)
        opts = &none;
    store_writer w = {.h = h, .progress = opts->progress, .progress_ctx = opts->progress_ctx,
                      .unreadable = opts->unreadable};
    if (meta)
        w.meta = *meta;
    w.meta.version = *heap_version(h);
    w.meta.heap_bytes = heap_block_bytes(h);
    w.meta.block_groups = heap_block_count(h);
    w.meta.written_at = (int64_t)time(NULL);
    snprintf(w.meta.written_by, sizeof w.meta.written_by, "heapscope %s", HEAPSCOPE_VERSION);
    w.meta.schema = STORE_SCHEMA_VERSION;

    store_tmpfile tmp;
    hs_status st = store_tmpfile_create(path, opts->replace, &tmp, err);
    if (st != HS_OK)
        return st;
    st = store_write_progress(&w, "loading blocks", 0, w.meta.heap_bytes, err);
    if (st == HS_OK)
        st = heap_load_all_blocks(h, err);
    if (st == HS_OK) {
        int rc = sqlite3_open_v2(tmp.path, &w.db, SQLITE_OPEN_READWRITE, NULL);
        if (rc != SQLITE_OK)
            st = store_db_fail(w.db, rc, err, "creating the snapshot");
    }
    if (st == HS_OK)
        st = fill(&w, err);
    if (w.db) {
        int rc = sqlite3_close(w.db);
        if (st == HS_OK && rc != SQLITE_OK)
            st = store_db_fail(NULL, rc, err, "closing the snapshot");
    }
    if (st == HS_OK)
        st = store_tmpfile_commit(&tmp, err);
    else
        store_tmpfile_abort(&tmp);
    if (st != HS_OK && st != HS_ERR_CANCELLED)
        hs_fail_context(err, "writing %s", path);
    return st;
}
