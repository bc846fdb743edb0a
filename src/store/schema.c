/* The snapshot schema: one list of tables makes the file and checks it.
 *
 * Layout, chosen by measurement (issue 10; man heapscope, SNAPSHOT FILES):
 * block groups go into ~1 MiB chunk rows (fast sequential BLOB reads with
 * 64 KiB pages, lazily per chunk); closure_rows is keyed by the word
 * number of the address in GHC's heap range (4-byte keys where an address
 * takes 6: the file is 1.5 x the heap, not 1.6) and written in key order,
 * so its pages fill completely; what is shared by every closure of an info
 * table lives once in closure_kinds, and a row's size is NULL when it is
 * the kind's. The closures view puts it together for SQL users. */
#include <stdio.h>
#include <string.h>

#include "store_internal.h"

_Static_assert(STORE_WORD_BASE == 0x4200000000, "the closures view spells the base out");

typedef struct table_def {
    const char *name;
    const char *columns;    /* the column names, as checked on open */
    const char *definition; /* what follows CREATE TABLE name */
} table_def;

static const table_def tables[] = {
    {"meta", "key, value", "(key TEXT PRIMARY KEY, value) WITHOUT ROWID"},
    {"roots", "ord, address", "(ord INTEGER PRIMARY KEY, address INTEGER NOT NULL)"},
    {"saved_objects", "ord, address", "(ord INTEGER PRIMARY KEY, address INTEGER NOT NULL)"},
    {"heap_chunks", "chunk, groups, groups_checksum, data_checksum, data",
     "(chunk INTEGER PRIMARY KEY, groups BLOB NOT NULL, groups_checksum INTEGER NOT NULL,"
     " data_checksum INTEGER NOT NULL, data BLOB NOT NULL)"},
    {"info_tables", "info, raw, srt",
     "(info INTEGER PRIMARY KEY, raw BLOB NOT NULL, srt INTEGER)"},
    {"con_descs", "info, description", "(info INTEGER PRIMARY KEY, description TEXT)"},
    {"source_infos", "info, found, name, closure_type_text, closure_type, type, label, module, "
                     "position",
     "(info INTEGER PRIMARY KEY, found INTEGER NOT NULL, name TEXT, closure_type_text TEXT,"
     " closure_type INTEGER, type TEXT, label TEXT, module TEXT, position TEXT)"},
    {"frame_bitmaps", "frame_info, frame, bits",
     "(frame_info INTEGER NOT NULL, frame INTEGER NOT NULL, bits BLOB NOT NULL,"
     " PRIMARY KEY (frame_info, frame)) WITHOUT ROWID"},
    {"fun_bitmaps", "fun_info, n, bits",
     "(fun_info INTEGER NOT NULL, n INTEGER NOT NULL, bits BLOB NOT NULL,"
     " PRIMARY KEY (fun_info, n)) WITHOUT ROWID"},
    {"static_closures", "address, bytes", "(address INTEGER PRIMARY KEY, bytes BLOB NOT NULL)"},
    {"cost_centres", "address, id, label, module, srcloc, mem_alloc, time_ticks, is_caf, link",
     "(address INTEGER PRIMARY KEY, id INTEGER NOT NULL, label TEXT, module TEXT, srcloc TEXT,"
     " mem_alloc INTEGER NOT NULL, time_ticks INTEGER NOT NULL, is_caf INTEGER NOT NULL,"
     " link INTEGER NOT NULL)"},
    {"cost_centre_stacks", "address, id, cc, prev, index_table, root, depth, scc_count, "
                           "selected, time_ticks, mem_alloc, inherited_alloc, inherited_ticks",
     "(address INTEGER PRIMARY KEY, id INTEGER NOT NULL, cc INTEGER NOT NULL,"
     " prev INTEGER NOT NULL, index_table INTEGER NOT NULL, root INTEGER NOT NULL,"
     " depth INTEGER NOT NULL, scc_count INTEGER NOT NULL, selected INTEGER NOT NULL,"
     " time_ticks INTEGER NOT NULL, mem_alloc INTEGER NOT NULL,"
     " inherited_alloc INTEGER NOT NULL, inherited_ticks INTEGER NOT NULL)"},
    {"ccs_index_entries", "address, cc, ccs, next, back_edge",
     "(address INTEGER PRIMARY KEY, cc INTEGER NOT NULL, ccs INTEGER NOT NULL,"
     " next INTEGER NOT NULL, back_edge INTEGER NOT NULL)"},
    {"closure_kinds", "kind, info, type, constructor, package, module, location, size",
     "(kind INTEGER PRIMARY KEY, info INTEGER NOT NULL, type TEXT NOT NULL, constructor TEXT,"
     " package TEXT, module TEXT, location TEXT, size INTEGER)"},
    {"closure_rows", "word, kind, era, size",
     "(word INTEGER PRIMARY KEY, kind INTEGER NOT NULL, era INTEGER, size INTEGER)"},
};

#define CLOSURES_COLUMNS "address, info, type, constructor, package, module, size, era, location"

/* 0x4200000000 + 8 * word: STORE_WORD_BASE */
static const char closures_view[] =
    "CREATE VIEW closures AS SELECT 0x4200000000 + 8 * r.word AS address, k.info AS info,"
    " k.type AS type,"
    " k.constructor AS constructor, k.package AS package, k.module AS module,"
    " coalesce(r.size, k.size) AS size, r.era AS era, k.location AS location"
    " FROM closure_rows AS r JOIN closure_kinds AS k ON k.kind = r.kind";

hs_status store_schema_create(sqlite3 *db, hs_error *err) {
    /* page size first: it is fixed once a table exists */
    hs_status st = store_db_exec(db,
                                 "PRAGMA page_size = 65536; PRAGMA journal_mode = OFF;"
                                 " PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;"
                                 " PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;",
                                 err);
    if (st == HS_OK)
        st = store_db_exec(db, "BEGIN", err);
    for (size_t i = 0; st == HS_OK && i < sizeof tables / sizeof tables[0]; i++) {
        char sql[1024];
        snprintf(sql, sizeof sql, "CREATE TABLE %s %s", tables[i].name, tables[i].definition);
        st = store_db_exec(db, sql, err);
    }
    if (st == HS_OK)
        st = store_db_exec(db, closures_view, err);
    if (st == HS_OK)
        st = store_db_exec(db, "COMMIT", err);
    return st;
}

hs_status store_schema_stamp(sqlite3 *db, hs_error *err) {
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d;",
             STORE_APPLICATION_ID, STORE_SCHEMA_VERSION);
    return store_db_exec(db, sql, err);
}

static hs_status pragma_int(sqlite3 *db, const char *sql, int64_t *out, hs_error *err) {
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? HS_OK : store_db_fail(db, rc, err, "reading the snapshot header");
}

static const table_def *table_named(const char *name) {
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (!strcmp(tables[i].name, name))
            return &tables[i];
    return NULL;
}

static hs_status not_ours(hs_error *err, const char *what, const char *name) {
    return hs_fail(err, HS_ERR_PROTOCOL, "not a heapscope snapshot: '%.80s' is %s", name, what);
}

static const char *kind_words(const char *type) {
    if (!strcmp(type, "view"))
        return "a view";
    if (!strcmp(type, "virtual"))
        return "a virtual table";
    if (!strcmp(type, "table"))
        return "a table heapscope does not write";
    return "an object heapscope does not write";
}

/* Everything in the schema, as SQLite parsed it (not as sqlite_schema's
 * type column claims): our ordinary tables, the closures view (which the
 * reader never queries), SQLite's own tables and indexes. A view or a
 * virtual table in place of a table would run the file's code, such as an
 * endless recursive query, on every read; a trigger has no business in a
 * file written once. */
static hs_status check_entries(sqlite3 *db, hs_error *err) {
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "SELECT name, type FROM pragma_table_list"
                                    " WHERE schema = 'main'", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_db_fail(db, rc, err, "reading the snapshot's schema");
    hs_status s = HS_OK;
    while (s == HS_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *type = (const char *)sqlite3_column_text(st, 1);
        if (!name || !type)
            s = not_ours(err, "an unnamed object", "");
        else if (!strcmp(name, "closures"))
            s = strcmp(type, "view") ? not_ours(err, kind_words(type), name) : HS_OK;
        else if (table_named(name) || !strncmp(name, "sqlite_", 7))
            s = strcmp(type, "table") ? not_ours(err, kind_words(type), name) : HS_OK;
        else
            s = not_ours(err, kind_words(type), name);
    }
    if (s == HS_OK && rc != SQLITE_DONE)
        s = store_db_fail(db, rc, err, "reading the snapshot's schema");
    sqlite3_finalize(st);
    if (s != HS_OK)
        return s;
    rc = sqlite3_prepare_v2(db, "SELECT type, name FROM sqlite_schema"
                                " WHERE type NOT IN ('table', 'view', 'index')", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        s = not_ours(err, type && !strcmp(type, "trigger") ? "a trigger" : "unknown",
                     name ? name : "");
    } else if (rc != SQLITE_DONE) {
        s = store_db_fail(db, rc, err, "reading the snapshot's schema");
    }
    sqlite3_finalize(st);
    return s;
}

/* Table t has exactly the columns this version reads, in order, and none
 * computed (a generated column runs an expression from the file). */
static hs_status check_columns(sqlite3 *db, const table_def *t, hs_error *err) {
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "SELECT name, hidden FROM pragma_table_xinfo(?)", -1, &st,
                                NULL);
    if (rc != SQLITE_OK)
        return store_db_fail(db, rc, err, "reading the snapshot's tables");
    sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
    const char *want = t->columns;
    bool same = true;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        size_t n = strcspn(want, ",");
        same = same && name && sqlite3_column_int(st, 1) == 0 && n == strlen(name) &&
               !strncmp(want, name, n);
        want += n;
        want += strspn(want, ", ");
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_db_fail(db, rc, err, "reading the snapshot's tables");
    if (!same || *want)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "not a complete heapscope snapshot: table %s is missing or its columns "
                       "are not (%s)", t->name, t->columns);
    return HS_OK;
}

/* Preparing a view's SELECT only plans it: nothing of it runs. */
static hs_status check_view(sqlite3 *db, const char *name, const char *columns, hs_error *err) {
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT %s FROM %s LIMIT 0", columns, name);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    sqlite3_finalize(st);
    if (rc == SQLITE_OK)
        return HS_OK;
    if ((rc & 0xff) == SQLITE_ERROR)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "not a complete heapscope snapshot: view %s is missing or lacks columns",
                       name);
    return store_db_fail(db, rc, err, "reading the snapshot's tables");
}

hs_status store_schema_check(sqlite3 *db, hs_error *err) {
    int64_t app = 0, version = 0;
    hs_status st = pragma_int(db, "PRAGMA application_id", &app, err);
    if (st == HS_OK)
        st = pragma_int(db, "PRAGMA user_version", &version, err);
    if (st != HS_OK)
        return st;
    if (app != STORE_APPLICATION_ID)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "not a heapscope snapshot (an SQLite database of another application)");
    if (version > STORE_SCHEMA_VERSION)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "made by a newer heapscope (schema %lld, this one reads up to %d)",
                       (long long)version, STORE_SCHEMA_VERSION);
    if (version < 1)
        return hs_fail(err, HS_ERR_PROTOCOL, "not a heapscope snapshot (schema version %lld)",
                       (long long)version);
    st = check_entries(db, err);
    for (size_t i = 0; st == HS_OK && i < sizeof tables / sizeof tables[0]; i++)
        st = check_columns(db, &tables[i], err);
    if (st == HS_OK)
        st = check_view(db, "closures", CLOSURES_COLUMNS, err);
    return st;
}
