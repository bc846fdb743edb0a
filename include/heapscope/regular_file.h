/* Opening a file named from outside (a snapshot, a theme) for reading.
 *
 * A plain open() of a FIFO blocks until a writer comes, and a device may
 * never end: these open with O_NONBLOCK (cleared again once the file is
 * known to be regular) and refuse anything but a regular file, naming
 * what it is instead. */
#ifndef HEAPSCOPE_REGULAR_FILE_H
#define HEAPSCOPE_REGULAR_FILE_H

#include <sys/types.h>

#include "heapscope/status.h"

/* "a FIFO", "a directory", "a character device", ... for st_mode's type. */
const char *hs_file_type_name(mode_t mode);

/* Opens path read-only into *fd when it is a regular file, and says its
 * size in *size (when size is not NULL; from the check's own fstat).
 * Otherwise *fd is -1 and the error says "PATH is a FIFO, not WHAT"
 * (HS_ERR_USAGE; what: "a snapshot file") or why open failed (HS_ERR_IO,
 * or HS_ERR_NOT_FOUND when it does not exist). */
hs_status hs_open_regular(const char *path, const char *what, int *fd, off_t *size,
                          hs_error *err);

#endif
