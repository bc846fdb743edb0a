/* Opening a snapshot: the header first (without SQLite), then a read-only
 * connection with SQLite's defensive settings, the schema check and the
 * meta table. Nothing of the heap is read here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/interrupt.h"
#include "store_internal.h"

static int guard(void *ctx) {
    store_guard *g = ctx;
    return hs_interrupt_signal() != 0 || ++g->calls > STORE_GUARD_CALLS;
}

int store_read_step(store_snapshot *s, sqlite3_stmt *st) {
    s->guard.calls = 0;
    return sqlite3_step(st);
}

static hs_status open_db(store_snapshot *s, hs_error *err) {
    int rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK)
        return store_db_fail(s->db, rc, err, "opening the snapshot");
    /* a file from elsewhere: no schema code runs with trust, and every
     * cell is checked as it is read */
    sqlite3_db_config(s->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(s->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    sqlite3_db_config(s->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
    /* every query ends (a signal, the budget), and what it sorts stays
     * in memory the budget bounds instead of growing a file on disk */
    sqlite3_progress_handler(s->db, STORE_GUARD_EVERY, guard, &s->guard);
    rc = sqlite3_exec(s->db, "PRAGMA cell_size_check = ON; PRAGMA query_only = ON;"
                             " PRAGMA temp_store = MEMORY;", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return store_db_fail(s->db, rc, err, "opening the snapshot");
    return HS_OK;
}

hs_status store_snapshot_open(const char *path, store_snapshot **out, hs_error *err) {
    *out = NULL;
    hs_status st = store_header_check(path, err);
    if (st != HS_OK)
        return st;
    store_snapshot *s = calloc(1, sizeof *s);
    if (!s)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    snprintf(s->path, sizeof s->path, "%s", path);
    st = open_db(s, err);
    if (st == HS_OK)
        st = store_schema_check(s->db, err);
    s->guard.calls = 0; /* the meta table is small: one budget for it all */
    for (int q = 0; st == HS_OK && q < Q_COUNT; q++)
        st = store_db_prepare(s->db, store_queries[q], &s->q[q], err);
    if (st == HS_OK)
        st = store_meta_read(s->db, &s->meta, err);
    if (st == HS_OK && (s->meta.version.major == 0))
        st = hs_fail(err, HS_ERR_PROTOCOL, "the snapshot does not say which GHC it came from");
    if (st != HS_OK) {
        store_snapshot_close(s);
        /* the header check already named the file in its messages */
        return hs_fail_context(err, "%s", path);
    }
    *out = s;
    return HS_OK;
}

const store_meta *store_snapshot_meta(const store_snapshot *s) { return &s->meta; }

void store_snapshot_close(store_snapshot *s) {
    if (!s)
        return;
    for (int q = 0; q < Q_COUNT; q++)
        sqlite3_finalize(s->q[q]);
    sqlite3_close(s->db);
    free(s->chunks);
    free(s->chunk_of);
    free(s);
}

hs_status store_source_fail(store_snapshot *s, sqlite3_stmt *st, int rc, hs_error *err,
                            const char *doing) {
    if (st)
        sqlite3_reset(st);
    return store_db_fail(s->db, rc, err, doing);
}
