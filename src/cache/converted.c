/* ghc-debug snapshots kept converted: the first open of one records its
 * pause in the cache (heapscope's own snapshot format, which opens lazily
 * and which the picker and `heapscope cache list` show); later opens of the
 * same file find that recording instead of reading the file again. A
 * recording is known by the file's real path (its target) and modification
 * time (its time of pause), and the program name ghc-debug:NAME. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "heapscope/cache.h"

/* The identity of the file at path; false when it cannot be known. */
static bool identity(const char *path, char *real, size_t cap, int64_t *mtime) {
    char buf[PATH_MAX];
    struct stat sb;
    if (!realpath(path, buf) || stat(buf, &sb) != 0 || strlen(buf) >= cap)
        return false;
    memcpy(real, buf, strlen(buf) + 1);
    *mtime = (int64_t)sb.st_mtime;
    return true;
}

bool cache_pause_converts(const cache_pause *p, const char *real, int64_t mtime) {
    return p->pid == 0 && p->paused_at == mtime && strcmp(p->target, real) == 0 &&
           strncmp(p->program, "ghc-debug:", 10) == 0;
}

bool cache_find_converted(cache *c, const char *path, char *file, size_t cap) {
    char real[sizeof ((store_meta *)0)->target];
    int64_t mtime;
    cache_pause_list l = {0};
    hs_error err = {0};
    if (!c || !identity(path, real, sizeof real, &mtime) ||
        cache_list_pauses(c, &l, &err) != HS_OK)
        return false;
    bool found = false;
    for (size_t i = 0; i < l.count && !found; i++) {
        const cache_pause *p = &l.items[i];
        found = cache_pause_converts(p, real, mtime) && strlen(p->file) < cap;
        if (found)
            memcpy(file, p->file, strlen(p->file) + 1);
    }
    cache_pause_list_free(&l);
    return found;
}

hs_status cache_record_converted(cache *c, heap *h, const char *path,
                                 const store_write_options *opts, hs_error *err) {
    store_meta meta = {0};
    if (!identity(path, meta.target, sizeof meta.target, &meta.paused_at))
        return hs_fail(err, HS_ERR_IO, "%s: cannot tell the file apart from another", path);
    const char *base = strrchr(meta.target, '/');
    snprintf(meta.program, sizeof meta.program, "ghc-debug:%.200s", base ? base + 1 : meta.target);
    return cache_record(c, h, &meta, NULL, opts, NULL, err);
}
