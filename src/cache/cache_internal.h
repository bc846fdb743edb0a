/* Private parts of the cache module, shared by its files. */
#ifndef HEAPSCOPE_CACHE_INTERNAL_H
#define HEAPSCOPE_CACHE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heapscope/cache.h"
#include "heapscope/u64map.h"

/* PRAGMA application_id of the cache database ("HSca": not a snapshot) and
 * the schema version this heapscope writes and reads. */
#define CACHE_APPLICATION_ID 0x48536361
#define CACHE_SCHEMA_VERSION 1
#define CACHE_DEFAULT_BUSY_TIMEOUT_MS 10000

struct cache {
    sqlite3 *db;
    char dir[4096];
    char db_path[4096];
    uint64_t max_bytes;
};

/* ---- SQLite calls as hs_status values (db.c) ---- */

hs_status cache_db_fail(sqlite3 *db, int rc, hs_error *err, const char *doing);
hs_status cache_db_exec(cache *c, const char *sql, hs_error *err, const char *doing);
hs_status cache_db_prepare(cache *c, const char *sql, sqlite3_stmt **st, hs_error *err);
/* Runs a statement that returns no rows, then resets it. */
hs_status cache_db_step_done(cache *c, sqlite3_stmt *st, hs_error *err, const char *doing);
/* BEGIN IMMEDIATE: takes the write lock now (waiting up to the busy
 * timeout), so a transaction never fails half-way on a lock upgrade. */
hs_status cache_begin(cache *c, hs_error *err);
/* COMMIT when st is HS_OK, else ROLLBACK; returns the outcome. */
hs_status cache_commit(cache *c, hs_status st, hs_error *err);
int64_t cache_now(void);
/* A directory of the cache: refused (an error saying why) when it is a
 * symlink, not a directory, another user's or writable by group/others. */
hs_status cache_check_dir(const char *path, hs_error *err);

/* ---- the caching source's memory (source.c, maps.c) ---- */

typedef enum cache_kind {
    CACHE_INFO_TABLE,
    CACHE_SRT,
    CACHE_CON_DESC,
    CACHE_SOURCE_INFO,
    CACHE_FRAME_BITMAP,
    CACHE_FUN_BITMAP
} cache_kind;

/* Bytes: an info table, or a bitmap (one byte per word, 0 or 1). */
typedef struct cache_blob {
    size_t len;
    uint8_t bytes[];
} cache_blob;

/* A constructor description, or the fact that the program has none. */
typedef struct cache_text {
    bool available;
    char text[];
} cache_text;
cache_text *cache_text_new(const char *text /* NULL: none */);

/* A SOURCE_INFO answer, or the fact that the program has none. */
typedef struct cache_ipe {
    bool available;
    wire_source_info si;
} cache_ipe;
cache_ipe *cache_ipe_new(const wire_source_info *si /* NULL: none */);
/* A deep copy (strings duplicated); false when out of memory (to is then
 * empty). */
bool cache_source_info_copy(const wire_source_info *from, wire_source_info *to);

/* Answers by key: info pointer; (info pointer, n) for function bitmaps.
 * Values are the blobs, texts and ipes above, or the SRT itself. */
typedef struct cache_maps {
    u64map infos, srts, con_descs, source_infos, frame_bitmaps, fun_bitmaps;
} cache_maps;

typedef struct cache_pending {
    cache_kind kind;
    uint64_t key;
} cache_pending;

struct cache_source {
    cache *c;
    int64_t program;
    heap_source inner;
    heap_source_ops ops;
    cache_maps maps;
    cache_pending *pending; /* answers not yet written */
    size_t n_pending, pending_cap;
    cache_range *moving;    /* sorted by start: addresses never cached */
    size_t n_moving;
    cache_source_stats stats;
};

/* User-space info pointers are below 2^48; n fits 16 bits. 0: uncacheable. */
static inline uint64_t cache_fun_bitmap_key(uint64_t info, uint16_t n) {
    return info && (info >> 48) == 0 ? info | (uint64_t)n << 48 : 0;
}

/* Reads every cached answer of a program (rows that fail their checks are
 * left out: those requests go to the debuggee). */
hs_status cache_maps_load(cache *c, int64_t program, cache_maps *m, hs_error *err);
/* Writes the pending answers in one transaction. */
hs_status cache_maps_write(cache *c, int64_t program, const cache_maps *m,
                           const cache_pending *p, size_t n, hs_error *err);
void cache_maps_free(cache_maps *m);

/* A 128-bit content hash (elf_id.c). */
typedef struct cache_hash {
    uint64_t a, b, total;
} cache_hash;

void cache_hash_init(cache_hash *h);
/* Hashes 8-byte words: only the last call may pass a length that is not a
 * multiple of 8 (a short word is zero-padded). */
void cache_hash_add(cache_hash *h, const uint8_t *p, size_t len);
void cache_hash_hex(const cache_hash *h, char hex[33]);
/* The hash of every byte of fd (regular files up to 4 GiB). */
bool cache_hash_file(int fd, char hex[33]);

#endif
