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

/* ---- fingerprints (fingerprint.c) ------------------------------------ */

typedef struct cache_fingerprint {
    char *text;     /* canonical: equal texts = same code at the same addresses */
    char exe[1024]; /* the executable as /proc names it, for people */
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

#endif
