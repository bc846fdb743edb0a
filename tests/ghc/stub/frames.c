/* Response frames exactly as the reference stub cuts them (§5.4): writes go
 * through a 1024-byte buffer; a write that would fill it flushes it first
 * as an OKAY_CONTINUES frame, a write longer than the buffer travels in a
 * frame of its own, and the last frame carries the final status. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "stub.h"

static void send_all(out *o, const void *bytes, size_t n) {
    const uint8_t *p = bytes;
    while (!o->broken && n > 0) {
        ssize_t k = send(o->fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            o->broken = true;
            return;
        }
        p += k;
        n -= (size_t)k;
    }
}

static void send_frame(out *o, const void *body, size_t n, uint16_t status) {
    uint8_t hdr[6] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n,
                      (uint8_t)(status >> 8), (uint8_t)status};
    send_all(o, hdr, sizeof hdr);
    send_all(o, body, n);
}

void out_init(out *o, int fd) {
    o->fd = fd;
    o->broken = false;
    o->len = 0;
}

void out_write(out *o, const void *bytes, size_t n) {
    if (n > OUT_BUFFER) {
        send_frame(o, o->buf, o->len, ST_CONTINUES); /* even when empty */
        o->len = 0;
        send_frame(o, bytes, n, ST_CONTINUES);
        return;
    }
    if (o->len + n >= OUT_BUFFER) {
        send_frame(o, o->buf, o->len, ST_CONTINUES);
        o->len = 0;
    }
    memcpy(o->buf + o->len, bytes, n);
    o->len += n;
}

void out_u8(out *o, uint8_t v) { out_write(o, &v, 1); }

void out_u16le(out *o, uint16_t v) {
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    out_write(o, b, 2);
}

void out_u32be(out *o, uint32_t v) {
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    out_write(o, b, 4);
}

void out_ptr(out *o, uintptr_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    out_write(o, b, 8);
}

void out_finish(out *o, uint16_t status) {
    send_frame(o, o->buf, o->len, status);
    o->len = 0;
}
