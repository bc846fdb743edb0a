/* Listing the socket and snapshot directories (wire-protocol.md §3.5):
 * newest first by mtime (every entry of the sockets directory by lstat;
 * the regular files of snapshot directories); a directory that cannot be
 * read is an empty list, because a missing ghc-debug dir just means that
 * no debuggee ran yet. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "heapscope/discover.h"
#include "heapscope/grow.h"

/* While listing, each entry keeps its full timestamp so that two sockets
 * created in the same second still sort newest first. */
typedef struct pending {
    discover_entry e;
    struct timespec when;
    dev_t dev; /* the file's identity, to list it once */
    ino_t ino;
} pending;

typedef struct builder {
    pending *items;
    size_t count, cap;
} builder;

static void builder_free(builder *b) {
    for (size_t i = 0; i < b->count; i++) {
        free(b->items[i].e.path);
        free(b->items[i].e.name);
    }
    free(b->items);
    *b = (builder){0};
}

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* A socket, or a symbolic link to one (connect follows links too). */
static bool socket_at(const char *path, const struct stat *own) {
    struct stat target;
    if (S_ISLNK(own->st_mode))
        return stat(path, &target) == 0 && S_ISSOCK(target.st_mode);
    return S_ISSOCK(own->st_mode);
}

/* For sockets st is the entry's own lstat (a link sorts by when it was
 * made); for snapshot files the stat of the file a link names. */
static hs_status add(builder *b, const char *path, const struct stat *st, bool from_env,
                     hs_error *err) {
    if (!hs_grow((void **)&b->items, &b->cap, b->count + 1, sizeof *b->items))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory listing %s", path);
    pending *p = &b->items[b->count];
    *p = (pending){.e = {.mtime = st->st_mtim.tv_sec, .mtime_ns = st->st_mtim.tv_nsec,
                         .size = (unsigned long long)st->st_size,
                         .is_socket = socket_at(path, st), .from_env = from_env},
                   .when = st->st_mtim, .dev = st->st_dev, .ino = st->st_ino};
    p->e.path = strdup(path);
    p->e.name = strdup(base_name(path));
    if (!p->e.path || !p->e.name) {
        free(p->e.path);
        free(p->e.name);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory listing %s", path);
    }
    b->count++;
    return HS_OK;
}

/* Newest first; equal times by name so the order is stable. */
static int newest_first(const void *pa, const void *pb) {
    const pending *a = pa, *b = pb;
    if (a->when.tv_sec != b->when.tv_sec)
        return a->when.tv_sec < b->when.tv_sec ? 1 : -1;
    if (a->when.tv_nsec != b->when.tv_nsec)
        return a->when.tv_nsec < b->when.tv_nsec ? 1 : -1;
    return strcmp(a->e.name, b->e.name);
}

static bool listed(const builder *b, const struct stat *st) {
    for (size_t i = 0; i < b->count; i++)
        if (b->items[i].dev == st->st_dev && b->items[i].ino == st->st_ino)
            return true;
    return false;
}

/* The sockets directory lists every entry as it is (lstat); a snapshot
 * directory only the regular files it holds or links to, once each, and
 * no dot files. */
typedef enum { LIST_ALL, LIST_SNAPSHOT_FILES } list_mode;

static bool wanted(const builder *b, const char *name, const char *path, list_mode mode,
                   struct stat *st) {
    if (mode == LIST_ALL)
        return lstat(path, st) == 0; /* else gone since readdir: a debuggee that just exited */
    return name[0] != '.' && stat(path, st) == 0 && S_ISREG(st->st_mode) && !listed(b, st);
}

static hs_status list_dir(builder *b, const char *dir, list_mode mode, hs_error *err) {
    if (!dir || !dir[0])
        return HS_OK;
    DIR *d = opendir(dir);
    if (!d)
        return HS_OK;
    hs_status rc = HS_OK;
    const struct dirent *de;
    while (rc == HS_OK && (de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char path[4096];
        int n = snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (n < 0 || (size_t)n >= sizeof path)
            continue; /* cannot be opened by name either */
        struct stat st;
        if (wanted(b, de->d_name, path, mode, &st))
            rc = add(b, path, &st, false, err);
    }
    closedir(d);
    return rc;
}

static hs_status finish(builder *b, hs_status rc, discover_list *out, hs_error *err) {
    if (rc != HS_OK) {
        builder_free(b);
        return rc;
    }
    if (b->count > 1) /* qsort wants a non-null array even for 0 items */
        qsort(b->items, b->count, sizeof *b->items, newest_first);
    discover_entry *items = NULL;
    if (b->count) {
        items = malloc(b->count * sizeof *items);
        if (!items) {
            builder_free(b);
            return hs_fail(err, HS_ERR_NOMEM, "out of memory listing a directory");
        }
        for (size_t i = 0; i < b->count; i++)
            items[i] = b->items[i].e;
    }
    out->items = items;
    out->count = b->count;
    free(b->items);
    return HS_OK;
}

/* GHC_DEBUG_SOCKET names a socket outside the directory (or inside it:
 * then the directory's entry is marked instead of listed twice). */
static hs_status add_env_socket(builder *b, hs_error *err) {
    const char *env = getenv("GHC_DEBUG_SOCKET");
    struct stat st;
    if (!env || !env[0] || lstat(env, &st) != 0)
        return HS_OK;
    for (size_t i = 0; i < b->count; i++)
        if (strcmp(b->items[i].e.path, env) == 0) {
            b->items[i].e.from_env = true;
            return HS_OK;
        }
    return add(b, env, &st, true, err);
}

hs_status discover_sockets(discover_list *out, hs_error *err) {
    *out = (discover_list){0};
    char dir[4096];
    hs_status rc = discover_socket_dir(dir, sizeof dir, err);
    if (rc != HS_OK)
        return rc;
    builder b = {0};
    rc = list_dir(&b, dir, LIST_ALL, err);
    if (rc == HS_OK)
        rc = add_env_socket(&b, err);
    return finish(&b, rc, out, err);
}

hs_status discover_snapshot_files(const char *const *dirs, size_t n, discover_list *out,
                                  hs_error *err) {
    *out = (discover_list){0};
    char dir[4096];
    hs_status rc = discover_snapshot_dir(dir, sizeof dir, err);
    if (rc != HS_OK)
        return rc;
    builder b = {0};
    rc = list_dir(&b, dir, LIST_SNAPSHOT_FILES, err);
    for (size_t i = 0; rc == HS_OK && dirs && i < n; i++)
        rc = list_dir(&b, dirs[i], LIST_SNAPSHOT_FILES, err);
    return finish(&b, rc, out, err);
}

hs_status discover_snapshots(discover_list *out, hs_error *err) {
    return discover_snapshot_files(NULL, 0, out, err);
}

void discover_list_free(discover_list *l) {
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++) {
        free(l->items[i].path);
        free(l->items[i].name);
    }
    free(l->items);
    *l = (discover_list){0};
}
