/* The cache: one SQLite database under $XDG_CACHE_HOME/heapscope/ (by
 * default ~/.cache/heapscope/cache.db) shared by every heapscope process.
 *
 * It keeps two things:
 *   - answers that never change for one program image (info tables, their
 *     SRTs, constructor descriptions, source locations, large bitmaps),
 *     keyed by a fingerprint that proves a later process runs the same
 *     binary loaded at the same place; a program without a fingerprint
 *     (tcp: targets, no /proc access, code made at run time) is never
 *     answered from the cache;
 *   - the recorded pauses: the history the picker lists and a later diff
 *     compares (cache_pauses.c).
 *
 * The database is in WAL mode with a busy timeout, and every write is one
 * short IMMEDIATE transaction, so processes using it at once wait for each
 * other instead of failing or corrupting it. A cache that cannot be opened
 * is never fatal to a command: callers warn and go on without it. */
#ifndef HEAPSCOPE_CACHE_H
#define HEAPSCOPE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "heapscope/heap.h"
#include "heapscope/status.h"
#include "heapscope/store.h"

/* ---- fingerprints (fingerprint.c) ------------------------------------ */

/* [start, end) of memory. */
typedef struct cache_range {
    uint64_t start, end;
} cache_range;

typedef struct cache_fingerprint {
    char *text;     /* canonical: equal texts = the same executable at the same
                       place, the same libraries, the same arguments */
    char exe[1024]; /* the executable as /proc names it, for people */
    cache_range *moving; /* the libraries' memory, mapped elsewhere at every run:
                            no answer for an address in it is reused or kept */
    size_t n_moving;
} cache_fingerprint;

/* Fingerprints the running process pid (the peer of a Unix socket, from
 * wire_conn_peer_pid) through /proc/PID. HS_ERR_NOT_FOUND, with the reason
 * in err, when its identity cannot be proved: then nothing is reused.
 * Answers are only trusted if the process is still alive after this call
 * (a pid can be reused): the caller's next request to it proves that. */
hs_status cache_fingerprint_pid(pid_t pid, cache_fingerprint *out, hs_error *err);
/* The same from a directory laid out like /proc/PID (exe, maps, cmdline). */
hs_status cache_fingerprint_dir(const char *proc_dir, cache_fingerprint *out, hs_error *err);
void cache_fingerprint_free(cache_fingerprint *f);

/* One line of /proc/PID/maps, parsed in place (exposed for the fuzz test). */
typedef struct cache_map_line {
    uint64_t start, end, offset, inode;
    unsigned dev_major, dev_minor;
    char perms[5];
    char *path;   /* "" for anonymous memory; " (deleted)" cut off */
    bool deleted; /* the file was unlinked or replaced after mapping */
} cache_map_line;
bool cache_maps_parse_line(char *line, cache_map_line *out);
/* The GNU build id of an ELF file as hex (exposed for the fuzz test). */
bool cache_elf_build_id(int fd, char *hex, size_t cap);

/* ---- the database (db.c) -------------------------------------------- */

typedef struct cache cache;

#define CACHE_DEFAULT_MAX_BYTES (UINT64_C(2) << 30)

typedef struct cache_options {
    const char *dir;     /* NULL: $XDG_CACHE_HOME/heapscope, else ~/.cache/heapscope */
    uint64_t max_bytes;  /* size cap of the whole directory; 0: 2 GiB */
    int busy_timeout_ms; /* longest wait for another process's write; 0: 10 s */
} cache_options;

/* The default directory ($XDG_CACHE_HOME when set and absolute). */
hs_status cache_default_dir(char *buf, size_t cap, hs_error *err);
/* Opens (creating when needed) DIR/cache.db. A file that is not a
 * heapscope cache, a newer schema or a damaged file is an error naming it;
 * callers then go on without a cache. opts may be NULL. */
hs_status cache_open(const cache_options *opts, cache **out, hs_error *err);
void cache_close(cache *c);
const char *cache_dir(const cache *c);
const char *cache_db_path(const cache *c);
uint64_t cache_max_bytes(const cache *c);

/* The id of the program a fingerprint names, added when new. */
hs_status cache_program(cache *c, const cache_fingerprint *fp, int64_t *id, hs_error *err);

/* ---- the caching source (source.c) ---------------------------------- */

/* A heap_source wrapping another (the live debuggee) for one program: info
 * tables, SRTs, constructor descriptions, source locations, RET_BIG frame
 * bitmaps and function bitmaps come from the cache when it has them; every
 * other request, and every miss, goes to the wrapped source, and what a
 * miss brings back is kept and written at the next cache_source_flush. */
typedef struct cache_source cache_source;

typedef struct cache_source_stats {
    uint64_t hits;     /* keys answered from the cache */
    uint64_t misses;   /* keys asked of the wrapped source */
    uint64_t recorded; /* answers written to the database */
    uint64_t pending;  /* answers not yet written */
} cache_source_stats;

/* Reads the program's cached answers (program from cache_program). The
 * cache and the wrapped source must outlive it. */
hs_status cache_source_new(cache *c, int64_t program, heap_source inner, cache_source **out,
                           hs_error *err);
heap_source cache_source_heap(cache_source *s);
/* Addresses the source neither answers from the cache nor keeps answers
 * for (a fingerprint's `moving` ranges); copied. False when out of memory. */
bool cache_source_set_moving(cache_source *s, const cache_range *ranges, size_t n);
cache_source_stats cache_source_get_stats(const cache_source *s);
/* Writes new answers in one transaction; on failure they stay pending. */
hs_status cache_source_flush(cache_source *s, hs_error *err);
void cache_source_free(cache_source *s);

/* ---- recorded pauses (pauses.c) ------------------------------------- */

/* A pause kept in the cache: a snapshot file under DIR/pauses/. */
typedef struct cache_pause {
    int64_t id;
    char file[4096];     /* the snapshot file: open it as any snapshot */
    char program[256];   /* program name, "" when unknown */
    char exe[1024];      /* its executable, "" when unknown */
    int64_t pid;         /* 0 when unknown */
    char target[512];    /* where it was read: socket path or tcp:HOST:PORT */
    int64_t paused_at;   /* Unix time of the pause */
    uint64_t closures;   /* closures reachable from the GC roots */
    uint64_t heap_bytes; /* bytes of the heap's block groups */
    uint64_t file_bytes; /* size of the snapshot file */
} cache_pause;

typedef struct cache_pause_list {
    cache_pause *items; /* newest first */
    size_t count;
} cache_pause_list;

/* Writes the pause h shows into the cache (store_snapshot_write: every
 * block, every reachable closure's answers, atomically) and indexes it;
 * then drops the oldest pauses while the cache is over its size cap (this
 * one stays, even when it alone is over the cap). exe
 * may be NULL; opts gives progress and cancelling (NULL: none). out may be
 * NULL. */
hs_status cache_record(cache *c, heap *h, const store_meta *meta, const char *exe,
                       const store_write_options *opts, cache_pause *out, hs_error *err);
/* The recorded pauses, newest first (what the picker's Snapshots tab and
 * `heapscope cache list` show); a pause whose file is gone is left out. */
hs_status cache_list_pauses(cache *c, cache_pause_list *out, hs_error *err);
/* Rows whose file is not a file of this cache's pauses/ (a path elsewhere,
 * a symlink): never opened nor deleted, listed to be said so. */
hs_status cache_list_foreign(cache *c, cache_pause_list *out, hs_error *err);
void cache_pause_list_free(cache_pause_list *l);
/* Removes one recorded pause (row, then file). */
hs_status cache_forget_pause(cache *c, int64_t id, hs_error *err);

/* ghc-debug snapshots kept converted (converted.c): the recorded pause
 * made from the ghc-debug snapshot at path while it is unchanged (same
 * real path and modification time), its snapshot file copied into file;
 * false when there is none (or c is NULL). */
bool cache_find_converted(cache *c, const char *path, char *file, size_t cap);
/* True when the recorded pause p is that conversion of the ghc-debug
 * snapshot whose real path is real and modification time mtime (for a
 * listing that has both at hand). */
bool cache_pause_converts(const cache_pause *p, const char *real, int64_t mtime);
/* Records the pause h read from the ghc-debug snapshot at path, to be
 * found by cache_find_converted. */
hs_status cache_record_converted(cache *c, heap *h, const char *path,
                                 const store_write_options *opts, hs_error *err);

typedef struct cache_usage {
    uint64_t db_bytes;    /* cache.db and its WAL */
    uint64_t pause_bytes; /* the recorded pauses' files */
    uint64_t max_bytes;   /* the size cap */
    uint64_t programs;    /* fingerprints with cached answers */
    uint64_t pauses;
    uint64_t tmp_bytes;   /* unfinished recordings' temporary files */
    uint64_t tmp_files;
} cache_usage;
hs_status cache_usage_get(cache *c, cache_usage *out, hs_error *err);
/* Keeps the cache under its cap: the oldest pauses go first, then the
 * answers of the programs used longest ago; files no row names (a crash
 * mid-recording) and stale temporary files are removed. */
hs_status cache_trim(cache *c, hs_error *err);
/* Removes the files of pauses/ that no row names and the temporary files
 * of recordings whose writer is dead (done by cache_open and cache_trim). */
hs_status cache_remove_orphans(cache *c, hs_error *err);
/* Removes the database and every recorded pause of the cache directory
 * (opts->dir, or the default), without opening it: also what replaces a
 * damaged or foreign cache.db. */
hs_status cache_clear(const cache_options *opts, hs_error *err);

/* ---- recording beside a UI (recorder.c) ------------------------------ */

/* Records a pause on a thread while the caller (the UI's thread, which
 * owns the heap and its connection) goes on: the thread asks for what it
 * needs through a mailbox that cache_recorder_serve answers between
 * keypresses. The heap must stay unchanged (no heap_refresh, no heap_free)
 * and the cache open until cache_recorder_finish returns. */
typedef struct cache_recorder cache_recorder;

typedef struct cache_recorder_config {
    cache *cache;      /* the owner's cache (the thread opens its own connection) */
    int64_t program;   /* whose cached answers the thread reads; 0 = none */
    const cache_range *moving; /* addresses not cached (cache_link.moving) */
    size_t n_moving;
    heap *h;           /* the pause to record (its blocks are shared, not copied) */
    heap_source src;   /* what h reads through: called on the owner's thread only */
    store_meta meta;   /* cache_link_meta */
    char exe[1024];
} cache_recorder_config;

typedef struct cache_recorder_progress {
    bool running;
    char phase[64];    /* the writer's phase ("closures", ...) */
    uint64_t done, total;
} cache_recorder_progress;

hs_status cache_recorder_start(const cache_recorder_config *cfg, cache_recorder **out,
                               hs_error *err);
/* Readable when the thread waits for an answer or has ended: poll it with
 * the keyboard. */
int cache_recorder_fd(const cache_recorder *r);
/* Answers the thread's requests for up to budget_ms (0: only those already
 * waiting); false once the recording has ended. */
bool cache_recorder_serve(cache_recorder *r, int budget_ms);
cache_recorder_progress cache_recorder_get_progress(cache_recorder *r);
/* Waits for the end (answering requests meanwhile), or with abandon
 * cancels it: no file is left and the status is HS_ERR_CANCELLED. Frees r;
 * out (may be NULL) gets the recorded pause. */
hs_status cache_recorder_finish(cache_recorder *r, bool abandon, cache_pause *out,
                                hs_error *err);

/* ---- a session's link to the cache (link.c) ------------------------- */

typedef struct cache_link {
    cache *cache;         /* NULL: the cache is off */
    cache_source *source; /* NULL: nothing is cached for this program */
    int64_t program;
    pid_t pid;            /* the peer's pid, 0 when unknown (tcp:) */
    cache_range *moving;  /* the program's libraries (cache_fingerprint.moving) */
    size_t n_moving;
    char exe[1024];       /* the program's executable, "" when unknown */
    char why_not[HS_ERROR_MESSAGE_MAX]; /* why source is NULL */
} cache_link;

/* The source a session should read the heap of conn through: live wrapped
 * in a caching source when c is open and the program at the other end of
 * conn has a fingerprint, else live itself (why_not says why). Never fails.
 * The connection's next request must come before any cached answer is
 * used (heap_open's VERSION does): it proves the fingerprinted process is
 * the one answering. */
heap_source cache_link_live(cache *c, wire_conn *conn, heap_source live, cache_link *link);
/* What a recording of this pause says about it: the target, the pid, the
 * program (the "<pid>-<program>" of a ghc-debug socket name, as the picker
 * shows it, else the executable's name) and now as the time of the pause. */
void cache_link_meta(const cache_link *link, const char *target, store_meta *out);
/* Writes new answers (after a pause was read, and before closing). */
hs_status cache_link_flush(cache_link *link, hs_error *err);
void cache_link_close(cache_link *link);

#endif
