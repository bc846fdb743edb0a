/* Snapshot files: one pause of a heap kept in an SQLite database that
 * answers every question the heap module asks, offline (man heapscope,
 * SNAPSHOT FILES, has the schema).
 *
 * A snapshot is written from any paused heap (a live debuggee, another
 * snapshot, a converted ghc-debug file) and read back as a heap_source, so
 * every query, view and command works on it as on the live process. The
 * file is untrusted input when read: its header, schema and every BLOB are
 * checked (bounds, checksums) before anything is decoded, and any fault is
 * a one-line error value. Writing is atomic: a temporary file in the same
 * directory is renamed over the path only once it is complete and synced. */
#ifndef HEAPSCOPE_STORE_H
#define HEAPSCOPE_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "heapscope/heap.h"
#include "heapscope/query.h"
#include "heapscope/status.h"

/* PRAGMA application_id of a heapscope snapshot ("HSnp"), and the schema
 * version (PRAGMA user_version) this heapscope writes and reads. */
#define STORE_APPLICATION_ID 0x48536e70
#define STORE_SCHEMA_VERSION 1

/* What is known about a pause besides its heap. */
typedef struct store_meta {
    char program[256];  /* program name, "" if unknown */
    int64_t pid;        /* 0 if unknown */
    char target[512];   /* where it was read from: socket path, tcp:HOST:PORT, file */
    int64_t paused_at;  /* Unix time of the pause, 0 if unknown */
    /* Filled by store_snapshot_open (ignored by the writer, which reads
     * them from the heap and the traversal): */
    wire_version version;
    uint64_t closures;      /* closures reachable from the GC roots */
    uint64_t closure_bytes; /* their bytes */
    uint64_t heap_bytes;    /* bytes of the block groups */
    uint64_t block_groups;
    int64_t written_at;     /* Unix time the file was written */
    char written_by[64];    /* "heapscope 0.1.0" */
    uint32_t schema;        /* the file's schema version */
} store_meta;

/* Progress of a long step: phase names it ("blocks", "closures", ...);
 * total is 0 when unknown. Return false to cancel (the call then fails
 * with HS_ERR_USAGE "cancelled" and leaves no file). */
typedef bool (*store_progress_fn)(void *ctx, const char *phase, uint64_t done, uint64_t total);

typedef struct store_write_options {
    bool replace; /* an existing file at the path is replaced (else: an error) */
    store_progress_fn progress; /* optional */
    void *progress_ctx;
    query_unreadable *unreadable; /* optional: receives the closures the traversal could
                                     not read (left out of the closures table) */
} store_write_options;

/* Writes the pause heap h shows into a new snapshot file at path. Loads
 * every block group and traverses the heap from its GC roots (which fetches
 * every reachable closure's info table, constructor description and source
 * location), walks the cost-centre stacks of a profiled heap, then writes
 * all of it, with the `closures` table for SQL users. The file appears at
 * path complete or not at all. opts may be NULL (no replace, no progress). */
hs_status store_snapshot_write(heap *h, const char *path, const store_meta *meta,
                               const store_write_options *opts, hs_error *err);

/* Completes the pause h shows, while the debuggee is still paused: asks
 * its source every answer the reachable heap can need (from the GC roots
 * and the saved objects: info tables, SRTs, constructor descriptions,
 * bitmaps, static closures, the source location of every info table, a
 * profiled heap's cost centres; what store_snapshot_write records), so
 * that every command can then read h without asking again. Without whole,
 * only the source location of every info table fetched so far (a command
 * that read the few closures it shows). progress (optional) may cancel it
 * (HS_ERR_CANCELLED). */
hs_status store_complete_pause(heap *h, bool whole, store_progress_fn progress,
                               void *progress_ctx, hs_error *err);

typedef struct store_snapshot store_snapshot;

/* Opens a snapshot read-only. Checks the header (an SQLite database with
 * heapscope's application id, a schema this heapscope reads, not
 * truncated) and the tables; loads no heap block yet. */
hs_status store_snapshot_open(const char *path, store_snapshot **out, hs_error *err);
const store_meta *store_snapshot_meta(const store_snapshot *s);
/* A heap_source answering from the file (valid until the snapshot closes):
 * block groups are loaded, checksummed and bounds-checked when first
 * needed. */
heap_source store_snapshot_source(store_snapshot *s);
void store_snapshot_close(store_snapshot *s);

/* What a file is, for a listing of snapshot files (describe.c). */
typedef enum store_file_kind {
    STORE_FILE_OTHER,     /* not a snapshot heapscope opens */
    STORE_FILE_HEAPSCOPE, /* a heapscope snapshot (damaged when !ok) */
    STORE_FILE_GHCDEBUG   /* starts like a ghc-debug snapshot: what it holds is
                             known only once it is opened (it is read whole) */
} store_file_kind;

typedef struct store_file_info {
    store_file_kind kind;
    bool ok;          /* it opens, as far as this look can tell */
    store_meta meta;  /* a heapscope snapshot's meta table (zero otherwise) */
    char why[HS_ERROR_MESSAGE_MAX]; /* when !ok, without the file's name:
                                       "truncated (100 of 4096 bytes)" */
} store_file_info;

/* Looks at the file at path: a heapscope snapshot is opened (header,
 * schema, meta table; no heap block) and closed, a ghc-debug one only
 * sniffed. Never fails: what is wrong goes into why. */
void store_file_describe(const char *path, store_file_info *out);

/* True when path is a readable file that starts like a heapscope snapshot
 * (SQLite header with heapscope's application id); reads 100 bytes. */
bool store_is_snapshot_file(const char *path);

/* SQLite's message for a failure rc of db (NULL: rc alone), with the
 * system's reason after an I/O error ("disk I/O error (File too large)"),
 * into buf. Shared with the cache, another SQLite file. */
struct sqlite3;
void store_sqlite_why(struct sqlite3 *db, int rc, char *buf, size_t cap);

/* ---- writing any file atomically (atomic.c) ---- */

/* Refuses an existing target unless replace (and then anything but a
 * regular file): what a command checks before it pauses anything. */
hs_status store_target_check(const char *target, bool replace, hs_error *err);

typedef struct store_tmpfile {
    char path[4096];   /* the temporary file, in the target's directory */
    char target[4096];
    bool replace;
} store_tmpfile;

/* store_target_check, then creates an empty temporary file beside the
 * target (".NAME.XXXXXX.tmp"). */
hs_status store_tmpfile_create(const char *target, bool replace, store_tmpfile *t,
                               hs_error *err);
/* Syncs the temporary file and moves it to the target (without replacing
 * one made meanwhile unless asked), then syncs the directory. On failure
 * it is removed. */
hs_status store_tmpfile_commit(store_tmpfile *t, hs_error *err);
/* Removes the temporary file (a failed or cancelled write). */
void store_tmpfile_abort(store_tmpfile *t);

#endif
