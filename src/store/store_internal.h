/* The store's private helpers, shared by the files of src/store. */
#ifndef HEAPSCOPE_STORE_INTERNAL_H
#define HEAPSCOPE_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "heapscope/store.h"

/* ---- SQLite calls as hs_status values (db.c) ---- */

/* An SQLite failure as an error value: rc names the kind (a damaged file,
 * a full disk, ...), the message says what was being done. */
hs_status store_db_fail(sqlite3 *db, int rc, hs_error *err, const char *doing);
hs_status store_db_exec(sqlite3 *db, const char *sql, hs_error *err);
hs_status store_db_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, hs_error *err);
/* Runs a prepared statement that returns no rows, then resets it. */
hs_status store_db_step_done(sqlite3 *db, sqlite3_stmt *st, hs_error *err, const char *doing);
/* Binds an unsigned 64-bit value (addresses) as SQLite's signed integer:
 * addresses stay below 2^63, and a larger value round-trips unchanged. */
static inline int store_bind_u64(sqlite3_stmt *st, int i, uint64_t v) {
    return sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}
static inline uint64_t store_column_u64(sqlite3_stmt *st, int i) {
    return (uint64_t)sqlite3_column_int64(st, i);
}

/* ---- schema (schema.c) ---- */

/* Creates every table and the closures view in an empty database, and the
 * pragmas of a file written once (no journal: the file is renamed into
 * place only when complete). */
hs_status store_schema_create(sqlite3 *db, hs_error *err);
/* Stamps application_id and user_version: the last thing written. */
hs_status store_schema_stamp(sqlite3 *db, hs_error *err);
/* Checks an opened file: our application id, a schema we read, and every
 * table with the columns this version uses. */
hs_status store_schema_check(sqlite3 *db, hs_error *err);

/* ---- the file header, read without SQLite (sniff.c) ---- */

/* Checks the first 100 bytes and the size of the file at path: an SQLite
 * database, heapscope's, a schema this heapscope reads, and as long as its
 * header says. The message names what is wrong in words for the user. */
hs_status store_header_check(const char *path, hs_error *err);

/* ---- heap block chunks (codec.c) ----
 *
 * Block groups are stored in chunks of about STORE_CHUNK_BYTES: one row per
 * chunk with a directory BLOB (one 16-byte entry per group: start u64, len
 * u32, flags u16, 2 zero bytes, little-endian) and a data BLOB (the groups'
 * bytes, back to back), each with a checksum. */
#define STORE_CHUNK_BYTES (1u << 20)
#define STORE_DIR_ENTRY_BYTES 16u
/* A group is one BLOB at most: SQLite's default length limit less room. */
#define STORE_MAX_GROUP_BYTES (960u << 20)

typedef struct store_dir_entry {
    uint64_t start;
    uint32_t len;
    uint16_t flags;
} store_dir_entry;

/* A checksum of n bytes (64-bit, word at a time): detects damaged BLOBs. */
uint64_t store_checksum(const uint8_t *p, size_t n);
void store_dir_put(uint8_t *dst, const store_dir_entry *e);
store_dir_entry store_dir_get(const uint8_t *src);
/* Checks a chunk's directory against its checksum and itself: whole
 * entries, at least one, zero padding, groups that do not wrap around the
 * address space, lengths within bounds and adding up to data_len. */
hs_status store_dir_check(const uint8_t *dir, size_t dir_len, uint64_t checksum,
                          uint64_t data_len, hs_error *err);

/* ---- small typed answers (codec.c) ---- */

/* A bitmap BLOB: bytes that are 0 or 1, at most max_count of them. */
hs_status store_bitmap_check(const uint8_t *bits, size_t count, size_t max_count,
                             hs_error *err);

/* ---- meta table (meta.c) ---- */

hs_status store_meta_write(sqlite3 *db, const store_meta *m, hs_error *err);
hs_status store_meta_read(sqlite3 *db, store_meta *m, hs_error *err);

/* ---- the writer (write*.c) ---- */

typedef struct store_writer {
    sqlite3 *db;
    heap *h;
    store_progress_fn progress;
    void *progress_ctx;
    store_meta meta; /* closures and bytes filled by the traversal */
    query_unreadable *unreadable; /* the traversal's skipped closures; NULL = not wanted */
} store_writer;

/* Calls the progress function; HS_ERR_CANCELLED when it says stop. */
hs_status store_write_progress(store_writer *w, const char *phase, uint64_t done,
                               uint64_t total, hs_error *err);
/* Traverses from the GC roots (fetching every reachable closure's info
 * table, description and location, and a profiled heap's cost centres),
 * then writes closure_kinds and closure_rows in address order. */
hs_status store_write_closures(store_writer *w, hs_error *err);
/* Asks a profiled heap's cost-centre tree and the stacks in header_ccs
 * (a set of addresses), so that store_write_answers finds them. */
struct u64map;
hs_status store_write_cost_centres(store_writer *w, const struct u64map *header_ccs,
                                   hs_error *err);
/* The same asking, for any heap (store_complete_pause). */
hs_status store_fetch_cost_centres(heap *h, const struct u64map *header_ccs, hs_error *err);
/* Adds closure c's cost-centre stack (profiled headers) to header_ccs, the
 * set the two calls above ask for; false when out of memory. */
bool store_note_header_ccs(struct u64map *header_ccs, const heap_closure *c);
/* Block groups, in chunks. */
hs_status store_write_blocks(store_writer *w, hs_error *err);
/* Everything else the heap asked its source (heap_export.h). */
hs_status store_write_answers(store_writer *w, hs_error *err);

/* ---- closure rows (write_closures.c, rows_feed.c) ---- */

/* closure_rows.word of an address: words from the start of GHC's heap
 * range, so that rows of a heap below 2 GiB have 4-byte keys (an address
 * as key takes 6); static closures below it get negative words. */
#define STORE_WORD_BASE HEAP_RANGE_LO
static inline int64_t store_word_of(uint64_t addr) {
    return (int64_t)(addr - STORE_WORD_BASE) / 8;
}

typedef struct store_row {
    int64_t word;
    int64_t kind;
    uint64_t era;
    uint32_t size;
    bool has_era, size_differs; /* else NULL */
} store_row;

typedef struct store_rows_feed {
    store_row *rows;
    size_t n;
} store_rows_feed;

/* Makes "heapscope_rows_feed" (word, kind, era, size) read feed's rows on db. */
hs_status store_rows_feed_register(sqlite3 *db, store_rows_feed *feed, hs_error *err);

/* ---- the reader (snapshot.c, source_*.c) ---- */

enum store_query {
    Q_ROOTS,
    Q_SAVED,
    Q_CHUNKS,
    Q_STATIC,
    Q_INFO,
    Q_SRT,
    Q_CON_DESC,
    Q_SOURCE_INFO,
    Q_FRAME_BITMAP,
    Q_FUN_BITMAP,
    Q_CCS,
    Q_CC,
    Q_INDEX_ENTRY,
    Q_CCS_MAIN,
    Q_COUNT
};

/* One chunk row as listed by the blocks call: its groups are
 * list items [first_group, first_group + n_groups). */
typedef struct store_chunk_ref {
    int64_t rowid;
    uint64_t data_len;
    uint64_t data_checksum;
    size_t first_group, n_groups;
} store_chunk_ref;

/* What bounds every query of a file from elsewhere: SQLite calls the
 * guard every STORE_GUARD_EVERY VM instructions; it stops the query when a
 * quit signal came or after STORE_GUARD_CALLS calls for one row (a row of
 * a file heapscope wrote takes well under a thousand instructions). */
#define STORE_GUARD_EVERY 1000
#define STORE_GUARD_CALLS 100000
typedef struct store_guard {
    uint64_t calls; /* since the row began */
} store_guard;

struct store_snapshot {
    sqlite3 *db;
    store_guard guard;
    char path[4096];
    store_meta meta;
    sqlite3_stmt *q[Q_COUNT];
    store_chunk_ref *chunks;
    size_t n_chunks;
    size_t *chunk_of; /* list item -> chunk index */
    size_t n_items;
};

/* The SQL of each prepared query (source_answers.c). */
extern const char *const store_queries[Q_COUNT];
hs_status store_source_blocks(void *self, heap_block_list *out, hs_error *err);
hs_status store_source_load_block(void *self, heap_block_list *out, size_t i, hs_error *err);
/* sqlite3_step with the guard's budget renewed: one row's worth. */
int store_read_step(store_snapshot *s, sqlite3_stmt *st);
/* A damaged-file error naming the snapshot. */
hs_status store_source_fail(store_snapshot *s, sqlite3_stmt *st, int rc, hs_error *err,
                            const char *doing);

#endif
