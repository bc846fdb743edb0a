#include "heapscope/regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *hs_file_type_name(mode_t mode) {
    switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    }
    return "not a regular file";
}

hs_status hs_open_regular(const char *path, const char *what, int *fd, off_t *size,
                          hs_error *err) {
    *fd = -1;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer */
    int f = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (f < 0) {
        int e = errno;
        return hs_fail(err, e == ENOENT ? HS_ERR_NOT_FOUND : HS_ERR_IO, "cannot open %s: %s",
                       path, strerror(e));
    }
    struct stat sb;
    if (fstat(f, &sb) != 0) {
        int e = errno;
        close(f);
        return hs_fail(err, HS_ERR_IO, "cannot stat %s: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(f);
        return hs_fail(err, HS_ERR_USAGE, "%s is %s, not %s", path, hs_file_type_name(sb.st_mode),
                       what);
    }
    int flags = fcntl(f, F_GETFL);
    if (flags < 0 || fcntl(f, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(f);
        return hs_fail(err, HS_ERR_IO, "cannot read %s: %s", path, strerror(e));
    }
    if (size)
        *size = sb.st_size;
    *fd = f;
    return HS_OK;
}
