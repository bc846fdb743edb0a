/* Writing a file atomically: the snapshot is built in a temporary file in
 * the target's directory (same file system, so the final move is a
 * rename), synced, and only then moved to its name; the directory is
 * synced after. A crash or kill at any moment leaves the target as it was
 * (absent, or the old file) — at worst a stray ".NAME.XXXXXX.tmp".
 * Snapshots and `dump` files are both written this way. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_internal.h"

/* The directory part and the last component of path (dirname and basename
 * work on copies). */
static void split_path(const char *path, char *dir, size_t dir_cap, char *base,
                       size_t base_cap) {
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s", path);
    snprintf(b, sizeof b, "%s", path);
    snprintf(dir, dir_cap, "%s", dirname(a));
    snprintf(base, base_cap, "%s", basename(b));
}

static hs_status already_exists(const char *target, hs_error *err) {
    return hs_fail(err, HS_ERR_USAGE, "%s already exists (--force replaces it)", target);
}

hs_status store_target_check(const char *target, bool replace, hs_error *err) {
    size_t n = strlen(target);
    if (n == 0 || n >= sizeof ((store_tmpfile *)0)->target - 32 || target[n - 1] == '/')
        return hs_fail(err, HS_ERR_USAGE, "'%s' is not a file name to write", target);
    struct stat sb;
    if (lstat(target, &sb) == 0) {
        if (!replace)
            return already_exists(target, err);
        if (!S_ISREG(sb.st_mode))
            return hs_fail(err, HS_ERR_USAGE, "%s exists and is not a regular file", target);
    }
    return HS_OK;
}

hs_status store_tmpfile_create(const char *target, bool replace, store_tmpfile *t,
                               hs_error *err) {
    memset(t, 0, sizeof *t);
    hs_status st = store_target_check(target, replace, err);
    if (st != HS_OK)
        return st;
    snprintf(t->target, sizeof t->target, "%s", target);
    t->replace = replace;
    char dir[4096], base[4096];
    split_path(target, dir, sizeof dir, base, sizeof base);
    if ((size_t)snprintf(t->path, sizeof t->path, "%s/.%s.XXXXXX.tmp", dir, base) >=
        sizeof t->path)
        return hs_fail(err, HS_ERR_USAGE, "'%s' is too long a file name", target);
    int fd = mkstemps(t->path, 4);
    if (fd < 0) {
        int e = errno;
        t->path[0] = '\0';
        return hs_fail(err, HS_ERR_IO, "cannot create a file in %s: %s", dir, strerror(e));
    }
    close(fd);
    return HS_OK;
}

static hs_status sync_path(const char *path, int flags, const char *what, hs_error *err) {
    int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0)
        return hs_fail(err, HS_ERR_IO, "cannot open %s to sync it: %s", what, strerror(errno));
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    /* some file systems cannot sync a directory: the rename still stands */
    if (rc != 0 && !(flags & O_DIRECTORY && (e == EINVAL || e == EROFS)))
        return hs_fail(err, HS_ERR_IO, "cannot sync %s: %s", what, strerror(e));
    return HS_OK;
}

hs_status store_tmpfile_commit(store_tmpfile *t, hs_error *err) {
    hs_status st = sync_path(t->path, O_RDONLY, t->path, err);
    if (st == HS_OK) {
        /* link() fails rather than replace a file created meanwhile */
        int rc = t->replace ? rename(t->path, t->target) : link(t->path, t->target);
        if (rc != 0) {
            int e = errno;
            st = e == EEXIST ? already_exists(t->target, err)
                             : hs_fail(err, HS_ERR_IO, "cannot write %s: %s", t->target,
                                       strerror(e));
        }
    }
    if (st != HS_OK || !t->replace)
        unlink(t->path); /* after link(): the target keeps the data */
    if (st == HS_OK) {
        char dir[4096], base[4096];
        split_path(t->target, dir, sizeof dir, base, sizeof base);
        st = sync_path(dir, O_RDONLY | O_DIRECTORY, dir, err);
    }
    t->path[0] = '\0';
    return st;
}

void store_tmpfile_abort(store_tmpfile *t) {
    if (t->path[0])
        unlink(t->path);
    t->path[0] = '\0';
}
