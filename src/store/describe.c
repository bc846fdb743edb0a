/* What a file in a snapshot directory is, for a listing: a heapscope
 * snapshot (its meta table), a ghc-debug snapshot (known by its first
 * bytes; the rest only when it is opened, since that reads it whole), or
 * neither, with a reason short enough for a column. Nothing here decodes
 * the heap. */
#include <stdio.h>
#include <string.h>

#include "heapscope/ghcdebug_file.h"
#include "store_internal.h"

/* The messages of store_snapshot_open name the file, sometimes twice
 * ("PATH: PATH is truncated"): a listing shows the name already. */
static void short_reason(const char *message, const char *path, char *why, size_t cap) {
    size_t n = strlen(path);
    const char *s = message;
    while (n && strncmp(s, path, n) == 0 && (s[n] == ':' || s[n] == ' '))
        s += n + (s[n] == ':' ? 2 : 1);
    if (strncmp(s, "is ", 3) == 0)
        s += 3;
    snprintf(why, cap, "%s", s);
}

void store_file_describe(const char *path, store_file_info *out) {
    memset(out, 0, sizeof *out);
    if (ghcdebug_file_sniff_path(path) && !store_is_snapshot_file(path)) {
        out->kind = STORE_FILE_GHCDEBUG;
        out->ok = true;
        return;
    }
    store_snapshot *snap;
    hs_error err = {0};
    if (store_snapshot_open(path, &snap, &err) != HS_OK) {
        out->kind = store_is_snapshot_file(path) ? STORE_FILE_HEAPSCOPE : STORE_FILE_OTHER;
        short_reason(err.message, path, out->why, sizeof out->why);
        return;
    }
    out->kind = STORE_FILE_HEAPSCOPE;
    out->ok = true;
    out->meta = *store_snapshot_meta(snap);
    store_snapshot_close(snap);
}
