/* heapscope's snapshot files as bytes: the input is the whole file (an
 * SQLite database, mutated anywhere: header, pages, BLOBs, rows), opened
 * as `heapscope FILE` opens it, described as the picker lists it, and read
 * through by the walk of the heap targets. The file lives on tmpfs
 * (fuzz_scratch_file). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "fuzz_source.h"
#include "heapscope/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int fd = fuzz_scratch_file();
    const char *path = fuzz_scratch_path();
    if (fd < 0)
        return 0;
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
        return 0;
    store_file_info info;
    store_file_describe(path, &info);
    FUZZ_CHECK(info.ok || info.kind == STORE_FILE_GHCDEBUG || !strchr(info.why, '\n'));
    store_snapshot *s = NULL;
    hs_error err = {0};
    if (store_snapshot_open(path, &s, &err) != HS_OK) {
        FUZZ_CHECK(err.message[0] && !strchr(err.message, '\n'));
        return 0;
    }
    fuzz_heap_walk(store_snapshot_source(s));
    store_snapshot_close(s);
    return 0;
}
