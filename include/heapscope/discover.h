/* Finding debuggees and snapshots (wire-protocol.md §3.1, §3.3, §3.5).
 *
 * data home  = $XDG_DATA_HOME when set and absolute, else $HOME/.local/share
 *              (HOME unset: the passwd home directory)
 * sockets    = <data home>/ghc-debug/debuggee/sockets
 * snapshots  = <data home>/ghc-debug/debuggee/snapshots
 * An unreadable or missing directory is an empty list, not an error. */
#ifndef HEAPSCOPE_DISCOVER_H
#define HEAPSCOPE_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "heapscope/status.h"

typedef struct discover_entry {
    char *path;      /* full path */
    char *name;      /* file name, e.g. 12345-leaky */
    time_t mtime;    /* modification time: the start of a debuggee */
    long mtime_ns;   /* its nanoseconds (a file rewritten within a second) */
    unsigned long long size; /* bytes (of the file a link names, for snapshots) */
    bool is_socket;  /* a Unix socket or a link to one (other files are listed too) */
    bool from_env;   /* came from GHC_DEBUG_SOCKET */
} discover_entry;

typedef struct discover_list {
    discover_entry *items; /* newest first */
    size_t count;
} discover_list;

/* Writes the directory into buf ("" when no home can be found). */
hs_status discover_data_home(char *buf, size_t cap, hs_error *err);
hs_status discover_socket_dir(char *buf, size_t cap, hs_error *err);
hs_status discover_snapshot_dir(char *buf, size_t cap, hs_error *err);

/* Entries of the socket directory plus $GHC_DEBUG_SOCKET when set and
 * present, newest first. */
hs_status discover_sockets(discover_list *out, hs_error *err);
/* Snapshot files, newest first: those of the snapshot directory, then of
 * each of the n directories in dirs (NULL entries and "" are skipped).
 * Regular files and links to them are listed (mtime and size of the file
 * itself); directories, sockets and dot files (the temporary file of a
 * snapshot being written is ".NAME.XXXXXX.tmp") are not, and a file seen
 * twice (a directory given twice, a link beside its file) is listed once.
 * What they hold is not looked at: store_file_describe says that. */
hs_status discover_snapshot_files(const char *const *dirs, size_t n, discover_list *out,
                                  hs_error *err);
/* The snapshot directory's files alone: discover_snapshot_files(NULL, 0). */
hs_status discover_snapshots(discover_list *out, hs_error *err);
void discover_list_free(discover_list *l);

/* mtime in the C locale's "%c" format (wire-protocol.md §3.5). */
void discover_format_time(time_t t, char *buf, size_t cap);

#endif
