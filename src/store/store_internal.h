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

/* ---- writing a file atomically (atomic.c) ---- */

typedef struct store_tmpfile {
    char path[4096];   /* the temporary file, in the target's directory */
    char target[4096];
    bool replace;
} store_tmpfile;

/* Refuses an existing target unless replace, then creates an empty
 * temporary file beside it. */
hs_status store_tmpfile_create(const char *target, bool replace, store_tmpfile *t,
                               hs_error *err);
/* Syncs the temporary file and moves it to the target (without replacing
 * one unless asked), then syncs the directory. On failure it is removed. */
hs_status store_tmpfile_commit(store_tmpfile *t, hs_error *err);
/* Removes the temporary file (a failed or cancelled write). */
void store_tmpfile_abort(store_tmpfile *t);

/* ---- meta table (meta.c) ---- */

hs_status store_meta_write(sqlite3 *db, const store_meta *m, hs_error *err);
hs_status store_meta_read(sqlite3 *db, store_meta *m, hs_error *err);

#endif
