/* heapscope's snapshot reader on rows the fuzz input chooses: the input is
 * the record format of fuzz_source.h, and each record becomes a row of the
 * snapshot's tables (block groups in checksummed chunks, info tables and
 * static closures as BLOBs of any length, bitmaps whose entries may be any
 * byte, cost centres, roots), written through SQLite into a real snapshot
 * file (on tmpfs, with small pages to stay fast), which is then opened
 * and read through by the walk of the heap targets. Header byte 1: bit 4
 * damages the first chunk's checksum, bit 5 puts every group in one chunk.
 * Frame bitmaps: key frame info, bytes u64 frame address then entries;
 * function bitmaps: key function info, bytes u16 n then entries. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "fuzz_source.h"
#include "heapscope/bytes.h"
#include "store_internal.h"

typedef struct rows {
    sqlite3 *db;
    const fuzz_source *f;
    uint8_t flags;
} rows;

static int run(sqlite3 *db, const char *sql, const fuzz_record *r,
               int (*bind)(sqlite3_stmt *, const fuzz_record *)) {
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = bind(st, r);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    sqlite3_finalize(st);
    return rc;
}

static int bind_key_blob(sqlite3_stmt *st, const fuzz_record *r) {
    store_bind_u64(st, 1, r->key);
    return sqlite3_bind_blob(st, 2, r->len ? r->bytes : (const void *)"", (int)r->len,
                             SQLITE_STATIC);
}

static int bind_key_text(sqlite3_stmt *st, const fuzz_record *r) {
    store_bind_u64(st, 1, r->key);
    return sqlite3_bind_text(st, 2, (const char *)r->bytes, (int)r->len, SQLITE_STATIC);
}

static int bind_key(sqlite3_stmt *st, const fuzz_record *r) {
    return store_bind_u64(st, 1, r->key);
}

/* A key, a u64 (or u16) prefix, then the rest of the bytes as a BLOB. */
static int bind_bitmap(sqlite3_stmt *st, const fuzz_record *r, size_t prefix) {
    store_bind_u64(st, 1, r->key);
    uint64_t second = 0;
    size_t skip = r->len < prefix ? r->len : prefix;
    if (r->len >= prefix)
        second = prefix == 8 ? hs_load_le64(r->bytes) : hs_load_le16(r->bytes);
    store_bind_u64(st, 2, second);
    return sqlite3_bind_blob(st, 3, r->bytes + skip, (int)(r->len - skip), SQLITE_STATIC);
}
static int bind_frame_bitmap(sqlite3_stmt *st, const fuzz_record *r) { return bind_bitmap(st, r, 8); }
static int bind_fun_bitmap(sqlite3_stmt *st, const fuzz_record *r) { return bind_bitmap(st, r, 2); }

static int bind_source_info(sqlite3_stmt *st, const fuzz_record *r) {
    wire_source_info si = {0};
    hs_error err;
    if (wire_decode_source_info(r->bytes, r->len, &si, &err) != HS_OK)
        return SQLITE_MISUSE; /* not a row */
    store_bind_u64(st, 1, r->key);
    sqlite3_bind_int(st, 2, si.found);
    const char *texts[] = {si.name, si.closure_type_text, NULL, si.type, si.label, si.module,
                           si.position};
    for (int i = 0; i < 7; i++)
        if (i == 2)
            sqlite3_bind_int64(st, 5, si.closure_type);
        else if (texts[i])
            sqlite3_bind_text(st, 3 + i, texts[i], -1, SQLITE_TRANSIENT);
    wire_source_info_free(&si);
    return SQLITE_OK;
}

static int bind_ccs(sqlite3_stmt *st, const fuzz_record *r) {
    wire_ccs c;
    hs_error err;
    if (wire_decode_ccs(r->bytes, r->len, &c, &err) != HS_OK)
        return SQLITE_MISUSE;
    uint64_t v[] = {r->key, (uint64_t)c.id, c.cc, c.prev, c.index_table, c.root, c.depth,
                    c.scc_count, c.selected, c.time_ticks, c.mem_alloc, c.inherited_alloc,
                    c.inherited_ticks};
    for (int i = 0; i < 13; i++)
        store_bind_u64(st, i + 1, v[i]);
    return SQLITE_OK;
}

static int bind_cc(sqlite3_stmt *st, const fuzz_record *r) {
    wire_cc c = {0};
    hs_error err;
    if (wire_decode_cc(r->bytes, r->len, &c, &err) != HS_OK)
        return SQLITE_MISUSE;
    store_bind_u64(st, 1, r->key);
    sqlite3_bind_int64(st, 2, c.id);
    sqlite3_bind_text(st, 3, c.label, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, c.module, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, c.srcloc, -1, SQLITE_TRANSIENT);
    store_bind_u64(st, 6, c.mem_alloc);
    store_bind_u64(st, 7, c.time_ticks);
    sqlite3_bind_int(st, 8, c.is_caf);
    store_bind_u64(st, 9, c.link);
    wire_cc_free(&c);
    return SQLITE_OK;
}

static int bind_index(sqlite3_stmt *st, const fuzz_record *r) {
    wire_index_entry e;
    hs_error err;
    if (wire_decode_index_entry(r->bytes, r->len, &e, &err) != HS_OK)
        return SQLITE_MISUSE;
    store_bind_u64(st, 1, r->key);
    store_bind_u64(st, 2, e.cc);
    store_bind_u64(st, 3, e.ccs);
    store_bind_u64(st, 4, e.next);
    return sqlite3_bind_int(st, 5, e.back_edge);
}

/* The info table's row, with the SRT a record gives it (else NULL). */
static void write_info(rows *w, const fuzz_record *r) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->db, "INSERT OR IGNORE INTO info_tables VALUES (?, ?, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        return;
    bind_key_blob(st, r);
    for (size_t i = 0; i < w->f->n_records; i++) {
        const fuzz_record *s = &w->f->records[i];
        if (s->kind == FUZZ_SRT && s->key == r->key && s->len >= 8) {
            store_bind_u64(st, 3, hs_load_le64(s->bytes));
            break;
        }
    }
    sqlite3_step(st);
    sqlite3_finalize(st);
}

/* One chunk row of the groups gathered so far (a damaged checksum for the
 * first when asked). */
typedef struct chunk {
    uint8_t *dir, *data;
    size_t groups, len, number;
} chunk;

static void flush_chunk(rows *w, sqlite3_stmt *st, chunk *c) {
    if (c->groups == 0)
        return;
    uint64_t sum = store_checksum(c->data, c->len);
    if (c->number == 0 && (w->flags & 0x10))
        sum ^= 1;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)c->number++);
    sqlite3_bind_blob(st, 2, c->dir, (int)(16 * c->groups), SQLITE_STATIC);
    store_bind_u64(st, 3, store_checksum(c->dir, 16 * c->groups));
    store_bind_u64(st, 4, sum);
    sqlite3_bind_blob(st, 5, c->data, (int)c->len, SQLITE_STATIC);
    sqlite3_step(st);
    sqlite3_reset(st);
    c->groups = c->len = 0;
}

/* Block groups: one chunk each, or all in one chunk. */
static void write_chunks(rows *w) {
    const fuzz_source *f = w->f;
    size_t n = 0, bytes = 0;
    for (size_t i = 0; i < f->n_records; i++)
        if (f->records[i].kind == FUZZ_BLOCK && f->records[i].len >= 2) {
            n++;
            bytes += f->records[i].len - 2;
        }
    chunk c = {malloc(16 * n + 1), malloc(bytes + 1), 0, 0, 0};
    sqlite3_stmt *st = NULL;
    bool one = w->flags & 0x20;
    if (c.dir && c.data &&
        sqlite3_prepare_v2(w->db, "INSERT INTO heap_chunks VALUES (?, ?, ?, ?, ?)", -1, &st,
                           NULL) == SQLITE_OK) {
        for (size_t i = 0; i < f->n_records; i++) {
            const fuzz_record *r = &f->records[i];
            if (r->kind != FUZZ_BLOCK || r->len < 2)
                continue;
            store_dir_entry e = {r->key, (uint32_t)(r->len - 2), hs_load_le16(r->bytes)};
            store_dir_put(c.dir + 16 * c.groups++, &e);
            memcpy(c.data + c.len, r->bytes + 2, r->len - 2);
            c.len += r->len - 2;
            if (!one)
                flush_chunk(w, st, &c);
        }
        flush_chunk(w, st, &c);
    }
    sqlite3_finalize(st);
    free(c.dir);
    free(c.data);
}

static void write_rows(rows *w) {
    for (size_t i = 0; i < w->f->n_records; i++) {
        const fuzz_record *r = &w->f->records[i];
        sqlite3 *db = w->db;
        switch (r->kind) {
        case FUZZ_STATIC: run(db, "INSERT OR IGNORE INTO static_closures VALUES (?, ?)", r, bind_key_blob); break;
        case FUZZ_INFO: write_info(w, r); break;
        case FUZZ_CON_DESC: run(db, "INSERT OR IGNORE INTO con_descs VALUES (?, ?)", r, bind_key_text); break;
        case FUZZ_SOURCE_INFO: run(db, "INSERT OR IGNORE INTO source_infos VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", r, bind_source_info); break;
        case FUZZ_FRAME_BITMAP: run(db, "INSERT OR IGNORE INTO frame_bitmaps VALUES (?, ?, ?)", r, bind_frame_bitmap); break;
        case FUZZ_FUN_BITMAP: run(db, "INSERT OR IGNORE INTO fun_bitmaps VALUES (?, ?, ?)", r, bind_fun_bitmap); break;
        case FUZZ_ROOT: run(db, "INSERT INTO roots (address) VALUES (?)", r, bind_key); break;
        case FUZZ_SAVED: run(db, "INSERT INTO saved_objects (address) VALUES (?)", r, bind_key); break;
        case FUZZ_CCS: run(db, "INSERT OR IGNORE INTO cost_centre_stacks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", r, bind_ccs); break;
        case FUZZ_CC: run(db, "INSERT OR IGNORE INTO cost_centres VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", r, bind_cc); break;
        case FUZZ_INDEX: run(db, "INSERT OR IGNORE INTO ccs_index_entries VALUES (?, ?, ?, ?, ?)", r, bind_index); break;
        case FUZZ_CCS_MAIN: run(db, "INSERT OR IGNORE INTO meta VALUES ('ccs_main', ?)", r, bind_key); break;
        default: break; /* blocks: write_chunks; SRTs: with their info table */
        }
    }
    write_chunks(w);
}

/* A snapshot file at path holding the records; false if SQLite failed. */
static bool write_snapshot(const char *path, const fuzz_source *f, uint8_t flags) {
    rows w = {.f = f, .flags = flags};
    if (sqlite3_open_v2(path, &w.db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        sqlite3_close(w.db);
        return false;
    }
    hs_error err;
    /* a first table fixes the page size before the schema asks for 64 KiB */
    bool ok = store_db_exec(w.db, "PRAGMA page_size = 512; CREATE TABLE fuzz_pad (x)", &err) ==
                  HS_OK &&
              store_schema_create(w.db, &err) == HS_OK &&
              store_db_exec(w.db, "BEGIN", &err) == HS_OK;
    if (ok) {
        store_meta meta = {.version = f->version, .schema = STORE_SCHEMA_VERSION};
        snprintf(meta.written_by, sizeof meta.written_by, "fuzz");
        write_rows(&w);
        ok = store_meta_write(w.db, &meta, &err) == HS_OK &&
             store_db_exec(w.db, "COMMIT", &err) == HS_OK &&
             /* the pad moved the tables' pages; as a table of its own it
              * would make the file no snapshot (store_schema_check) */
             store_db_exec(w.db, "DROP TABLE fuzz_pad", &err) == HS_OK &&
             store_schema_stamp(w.db, &err) == HS_OK;
    }
    return sqlite3_close(w.db) == SQLITE_OK && ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int fd = fuzz_scratch_file();
    const char *path = fuzz_scratch_path();
    if (fd < 0)
        return 0;
    if (ftruncate(fd, 0) != 0)
        return 0;
    fuzz_source f;
    if (!fuzz_source_init(&f, data, size))
        return 0;
    uint8_t flags = size >= 2 ? data[1] : 0;
    store_snapshot *s = NULL;
    hs_error err = {0};
    /* the file is written as heapscope writes one: it must open */
    FUZZ_CHECK(write_snapshot(path, &f, flags));
    FUZZ_CHECK(store_snapshot_open(path, &s, &err) == HS_OK);
    fuzz_heap_walk(store_snapshot_source(s));
    store_snapshot_close(s);
    fuzz_source_free(&f);
    return 0;
}
