/* The first 100 bytes of a file say whether it is a heapscope snapshot
 * (SQLite's header: magic, page size, page count, user_version and
 * application_id, all big-endian) without letting SQLite near it. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heapscope/regular_file.h"
#include "store_internal.h"

#define HEADER_BYTES 100

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Reads the header; *got says how many bytes there were (up to 100). */
static hs_status read_header(const char *path, uint8_t *h, size_t *got, off_t *size,
                             hs_error *err) {
    int fd;
    hs_status st = hs_open_regular(path, "a snapshot file", &fd, size, err);
    if (st == HS_ERR_NOT_FOUND)
        return HS_ERR_IO; /* the message says so; "not found" means no such answer here */
    if (st != HS_OK)
        return st;
    *got = 0;
    while (*got < HEADER_BYTES) {
        ssize_t n = read(fd, h + *got, HEADER_BYTES - *got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            return hs_fail(err, HS_ERR_IO, "cannot read %s: %s", path, strerror(e));
        }
        if (n == 0)
            break;
        *got += (size_t)n;
    }
    close(fd);
    return HS_OK;
}

static bool is_sqlite(const uint8_t *h, size_t got) {
    return got >= 16 && memcmp(h, "SQLite format 3", 16) == 0;
}

bool store_is_snapshot_file(const char *path) {
    uint8_t h[HEADER_BYTES];
    size_t got;
    off_t size;
    return read_header(path, h, &got, &size, NULL) == HS_OK && got == HEADER_BYTES &&
           is_sqlite(h, got) && be32(h + 68) == STORE_APPLICATION_ID;
}

hs_status store_header_check(const char *path, hs_error *err) {
    uint8_t h[HEADER_BYTES];
    size_t got;
    off_t size;
    hs_status st = read_header(path, h, &got, &size, err);
    if (st != HS_OK)
        return st;
    if (!is_sqlite(h, got))
        return hs_fail(err, HS_ERR_PROTOCOL, "%s is not a snapshot: neither a heapscope one (not "
                                             "an SQLite database) nor a ghc-debug one", path);
    if (got < HEADER_BYTES)
        return hs_fail(err, HS_ERR_PROTOCOL, "%s is truncated (%zu bytes)", path, got);
    if (be32(h + 68) != STORE_APPLICATION_ID)
        return hs_fail(err, HS_ERR_PROTOCOL, "%s is not a heapscope snapshot (an SQLite "
                                             "database of another application)", path);
    uint32_t schema = be32(h + 60);
    if (schema > STORE_SCHEMA_VERSION)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "%s was made by a newer heapscope (schema %u, this one reads up to %d)",
                       path, schema, STORE_SCHEMA_VERSION);
    uint32_t page = (uint32_t)h[16] << 8 | h[17];
    uint64_t page_size = page == 1 ? 65536 : page;
    uint64_t pages = be32(h + 28);
    bool count_valid = be32(h + 92) == be32(h + 24); /* "version-valid-for" */
    if (page_size < 512 || (page_size & (page_size - 1)))
        return hs_fail(err, HS_ERR_PROTOCOL, "%s is damaged (page size %llu)", path,
                       (unsigned long long)page_size);
    if (count_valid && (uint64_t)size < pages * page_size)
        return hs_fail(err, HS_ERR_PROTOCOL, "%s is truncated (%lld of %llu bytes)", path,
                       (long long)size, (unsigned long long)(pages * page_size));
    return HS_OK;
}
