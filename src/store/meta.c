/* The meta table: key/value facts about the pause (what ran, when, how
 * big), readable with sqlite3 as they are. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "store_internal.h"

static hs_status put(sqlite3 *db, sqlite3_stmt *st, const char *key, const char *text,
                     int64_t number, hs_error *err) {
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (text)
        sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_int64(st, 2, number);
    return store_db_step_done(db, st, err, "writing the snapshot's meta table");
}

hs_status store_meta_write(sqlite3 *db, const store_meta *m, hs_error *err) {
    sqlite3_stmt *st;
    hs_status s = store_db_prepare(db, "INSERT INTO meta (key, value) VALUES (?, ?)", &st, err);
    if (s != HS_OK)
        return s;
    const struct {
        const char *key;
        const char *text;
        int64_t number;
    } rows[] = {
        {"program", m->program, 0},
        {"pid", NULL, m->pid},
        {"target", m->target, 0},
        {"paused_at", NULL, m->paused_at},
        {"ghc_major", NULL, m->version.major},
        {"ghc_patch", NULL, m->version.patch},
        {"profiling_mode", NULL, m->version.prof_mode},
        {"tables_next_to_code", NULL, m->version.tntc},
        {"closures", NULL, (int64_t)m->closures},
        {"closure_bytes", NULL, (int64_t)m->closure_bytes},
        {"heap_bytes", NULL, (int64_t)m->heap_bytes},
        {"block_groups", NULL, (int64_t)m->block_groups},
        {"written_at", NULL, m->written_at},
        {"written_by", m->written_by, 0},
    };
    for (size_t i = 0; s == HS_OK && i < sizeof rows / sizeof rows[0]; i++)
        s = put(db, st, rows[i].key, rows[i].text, rows[i].number, err);
    sqlite3_finalize(st);
    return s;
}

/* Reads every key it knows; a missing key leaves its default, an
 * out-of-range number is an error. */
hs_status store_meta_read(sqlite3 *db, store_meta *m, hs_error *err) {
    memset(m, 0, sizeof *m);
    sqlite3_stmt *st;
    hs_status s = store_db_prepare(db, "SELECT key, value FROM meta", &st, err);
    if (s != HS_OK)
        return s;
    int rc;
    while (s == HS_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *key = (const char *)sqlite3_column_text(st, 0);
        const char *text = (const char *)sqlite3_column_text(st, 1);
        int64_t v = sqlite3_column_int64(st, 1);
        if (!key)
            continue;
        if (!strcmp(key, "program"))
            snprintf(m->program, sizeof m->program, "%s", text ? text : "");
        else if (!strcmp(key, "target"))
            snprintf(m->target, sizeof m->target, "%s", text ? text : "");
        else if (!strcmp(key, "written_by"))
            snprintf(m->written_by, sizeof m->written_by, "%s", text ? text : "");
        else if (!strcmp(key, "pid"))
            m->pid = v;
        else if (!strcmp(key, "paused_at"))
            m->paused_at = v;
        else if (!strcmp(key, "written_at"))
            m->written_at = v;
        else if (!strcmp(key, "ghc_major") || !strcmp(key, "ghc_patch")) {
            if (v < 0 || v > UINT32_MAX)
                s = hs_fail(err, HS_ERR_PROTOCOL, "the snapshot's %s is %" PRId64, key, v);
            else if (key[4] == 'm')
                m->version.major = (uint32_t)v;
            else
                m->version.patch = (uint32_t)v;
        } else if (!strcmp(key, "profiling_mode")) {
            if (v < 0 || v > WIRE_PROF_OTHER)
                s = hs_fail(err, HS_ERR_PROTOCOL, "the snapshot's profiling mode is %" PRId64, v);
            m->version.prof_mode = (uint8_t)v;
        } else if (!strcmp(key, "tables_next_to_code"))
            m->version.tntc = v != 0;
        else if (!strcmp(key, "closures"))
            m->closures = (uint64_t)v;
        else if (!strcmp(key, "closure_bytes"))
            m->closure_bytes = (uint64_t)v;
        else if (!strcmp(key, "heap_bytes"))
            m->heap_bytes = (uint64_t)v;
        else if (!strcmp(key, "block_groups"))
            m->block_groups = (uint64_t)v;
    }
    if (s == HS_OK && rc != SQLITE_DONE)
        s = store_db_fail(db, rc, err, "reading the snapshot's meta table");
    sqlite3_finalize(st);
    return s;
}
