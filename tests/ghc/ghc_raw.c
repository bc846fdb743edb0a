/* Raw requests and frame-by-frame answers, for checks of the stub's own
 * framing and error replies that the client library deliberately hides. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ghc_checks.h"

#define READ_TIMEOUT_MS 10000
#define MAX_RAW_BODY (UINT64_C(1) << 32)

int raw_connect(const char *path) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path)
        return -1;
    memcpy(addr.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

bool raw_send_bytes(int fd, const void *bytes, size_t n) {
    const uint8_t *p = bytes;
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

bool raw_request(int fd, uint32_t cmd, const void *payload, size_t n) {
    uint32_t len = (uint32_t)(4 + n);
    uint8_t hdr[8] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len,
                      (uint8_t)(cmd >> 24), (uint8_t)(cmd >> 16), (uint8_t)(cmd >> 8), (uint8_t)cmd};
    return raw_send_bytes(fd, hdr, sizeof hdr) && raw_send_bytes(fd, payload, n);
}

static bool read_full(int fd, void *buf, size_t n) {
    uint8_t *p = buf;
    while (n > 0) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, READ_TIMEOUT_MS) <= 0)
            return false;
        ssize_t k = read(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

static bool grow(void **items, size_t *cap, size_t need, size_t size) {
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 16;
    while (c < need)
        c *= 2;
    void *p = realloc(*items, c * size);
    if (!p)
        return false;
    *items = p;
    *cap = c;
    return true;
}

bool raw_read_response(int fd, raw_response *r) {
    memset(r, 0, sizeof *r);
    size_t body_cap = 0, frames_cap = 0, frames_cap2 = 0;
    for (;;) {
        uint8_t hdr[6];
        if (!read_full(fd, hdr, sizeof hdr))
            return false;
        uint32_t len = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
        uint16_t status = (uint16_t)(hdr[4] << 8 | hdr[5]);
        if (r->len + len > MAX_RAW_BODY ||
            !grow((void **)&r->body, &body_cap, r->len + len + 1, 1) ||
            !grow((void **)&r->frame_len, &frames_cap, r->n_frames + 1, sizeof *r->frame_len) ||
            !grow((void **)&r->frame_status, &frames_cap2, r->n_frames + 1,
                  sizeof *r->frame_status) ||
            !read_full(fd, r->body + r->len, len))
            return false;
        r->len += len;
        r->frame_len[r->n_frames] = len;
        r->frame_status[r->n_frames++] = status;
        if (status != 0x0001) {
            r->status = status;
            return true;
        }
    }
}

void raw_response_free(raw_response *r) {
    free(r->body);
    free(r->frame_len);
    free(r->frame_status);
    memset(r, 0, sizeof *r);
}

bool raw_call(int fd, uint32_t cmd, const void *payload, size_t n, raw_response *r) {
    memset(r, 0, sizeof *r);
    return raw_request(fd, cmd, payload, n) && raw_read_response(fd, r);
}
