/* Reading one request: u32 BE LEN, then LEN bytes holding the u32 BE
 * command id and its payload (§4). A request that cannot be parsed is
 * still read whole, so the connection stays in step and the dispatcher can
 * answer BAD_COMMAND instead of dying as the reference stub does (§9). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "stub.h"

/* The largest legitimate request (CLOSURES of 65535 pointers) is 512 KiB;
 * anything longer is drained and refused. */
#define REQ_MAX (1u << 20)

/* 1 when n bytes were read, 0 on EOF before any byte, -1 otherwise. */
static int read_full(int fd, void *buf, size_t n) {
    uint8_t *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, p + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return got == 0 && k == 0 ? 0 : -1;
        got += (size_t)k;
    }
    return 1;
}

static int drain(int fd, uint32_t n) {
    uint8_t scratch[4096];
    while (n > 0) {
        size_t k = n < sizeof scratch ? n : sizeof scratch;
        if (read_full(fd, scratch, k) != 1)
            return -1;
        n -= (uint32_t)k;
    }
    return 1;
}

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int req_read(int fd, req_reader *rd, req *r) {
    uint8_t hdr[4];
    int st = read_full(fd, hdr, 4);
    if (st != 1)
        return st;
    uint32_t len = be32(hdr);
    *r = (req){.malformed = true};
    if (len < 4 || len > REQ_MAX)
        return drain(fd, len);
    if (len > rd->cap) {
        uint8_t *b = realloc(rd->buf, len);
        if (!b)
            return drain(fd, len);
        rd->buf = b;
        rd->cap = len;
    }
    if (read_full(fd, rd->buf, len) != 1)
        return -1;
    r->malformed = false;
    r->cmd = be32(rd->buf);
    r->payload = rd->buf + 4;
    r->len = len - 4;
    return 1;
}

void req_reader_free(req_reader *rd) {
    free(rd->buf);
    rd->buf = NULL;
    rd->cap = 0;
}

static bool take(req *r, size_t n, const uint8_t **p) {
    if (r->len - r->pos < n)
        return false;
    *p = r->payload + r->pos;
    r->pos += n;
    return true;
}

bool req_u8(req *r, uint8_t *v) {
    const uint8_t *p;
    if (!take(r, 1, &p))
        return false;
    *v = p[0];
    return true;
}

bool req_u16be(req *r, uint16_t *v) {
    const uint8_t *p;
    if (!take(r, 2, &p))
        return false;
    *v = (uint16_t)(p[0] << 8 | p[1]);
    return true;
}

bool req_u32be(req *r, uint32_t *v) {
    const uint8_t *p;
    if (!take(r, 4, &p))
        return false;
    *v = be32(p);
    return true;
}

bool req_ptr(req *r, uintptr_t *v) {
    const uint8_t *p;
    if (!take(r, 8, &p))
        return false;
    uintptr_t x = 0;
    for (int i = 7; i >= 0; i--)
        x = x << 8 | p[i];
    *v = x;
    return true;
}
