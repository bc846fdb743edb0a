/* Response framing of the synthetic debuggee: the stub's 1024-byte frame
 * buffer (wire-protocol.md §5.4, without the 8-byte quirk), batched into a
 * large output buffer so that a 400 MB ALL_BLOCKS streams with few syscalls. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "heapscope/bytes.h"
#include "synth_server_int.h"

#define OUT_CAP (256u * 1024u)
/* Writes at least this long skip the output buffer and go to the socket
 * straight from the fake memory. */
#define DIRECT_MIN (64u * 1024u)
#define HDR 6u

int synth_out_init(synth_out *o, int fd, volatile sig_atomic_t *stop) {
    *o = (synth_out){.fd = fd, .stop = stop, .cap = OUT_CAP};
    o->buf = malloc(OUT_CAP);
    return o->buf ? 0 : -1;
}

void synth_out_free(synth_out *o) {
    free(o->buf);
    free(o->held);
    o->buf = o->held = NULL;
}

static bool stopping(const synth_out *o) { return o->stop && *o->stop; }

/* A hostile response is held back whole, to be sent its own way. */
static void hold_iov(synth_out *o, const struct iovec *iov, int n) {
    for (int i = 0; i < n && !o->failed; i++) {
        size_t need = o->held_len + iov[i].iov_len;
        if (need > o->held_cap) {
            size_t cap = o->held_cap ? o->held_cap : 4096;
            while (cap < need)
                cap *= 2;
            uint8_t *b = realloc(o->held, cap);
            if (!b) {
                o->failed = true;
                return;
            }
            o->held = b;
            o->held_cap = cap;
        }
        memcpy(o->held + o->held_len, iov[i].iov_base, iov[i].iov_len);
        o->held_len = need;
    }
}

/* Sends every byte of the vectors; marks the writer failed on error. */
static void send_iov(synth_out *o, struct iovec *iov, int n) {
    if (o->silent)
        return;
    if (o->hostile) {
        hold_iov(o, iov, n);
        return;
    }
    while (n > 0 && !o->failed) {
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t r = sendmsg(o->fd, &m, MSG_NOSIGNAL);
        if (r < 0 && errno == ENOTSOCK) /* a pipe or file: plain writev */
            r = writev(o->fd, iov, n);
        if (r < 0) {
            if (errno == EINTR && !stopping(o))
                continue;
            o->failed = true;
            o->fail_errno = errno;
            o->fail_fragile = errno == EPIPE || errno == ECONNRESET;
            return;
        }
        size_t done = (size_t)r;
        while (n > 0 && done >= iov->iov_len) {
            done -= iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (uint8_t *)iov->iov_base + done;
            iov->iov_len -= done;
        }
    }
}

/* Sends the buffered bytes; only called when no frame is open in them. */
static void flush_buf(synth_out *o) {
    if (o->len > 0) {
        struct iovec v = {o->buf, o->len};
        send_iov(o, &v, 1);
    }
    o->len = 0;
}

static void put_header(uint8_t *h, size_t blen, uint16_t status) {
    hs_store_be32(h, (uint32_t)blen);
    hs_store_be16(h + 4, status);
}

/* Starts B with room for a full frame behind it. */
static void open_frame(synth_out *o) {
    if (o->cap - o->len < HDR + SYNTH_FRAME_BUF)
        flush_buf(o);
    o->frame_at = o->len;
    o->len += HDR;
    o->blen = 0;
}

static void close_frame(synth_out *o, uint16_t status) {
    put_header(o->buf + o->frame_at, o->blen, status);
}

/* A frame of its own for a write longer than B (§5.4 row 1, part b). */
static void own_frame(synth_out *o, const void *bytes, size_t len) {
    uint8_t h[HDR];
    put_header(h, len, SYNTH_OKAY_CONTINUES);
    if (len >= DIRECT_MIN) {
        struct iovec v[3] = {{o->buf, o->len}, {h, HDR}, {(void *)bytes, len}};
        send_iov(o, v, 3);
        o->len = 0;
        return;
    }
    if (o->cap - o->len < HDR + len)
        flush_buf(o);
    memcpy(o->buf + o->len, h, HDR);
    memcpy(o->buf + o->len + HDR, bytes, len);
    o->len += HDR + len;
}

void synth_w(synth_out *o, const void *bytes, size_t len) {
    if (o->failed)
        return;
    if (!o->open) {
        o->open = true;
        open_frame(o);
    }
    if (len > SYNTH_FRAME_BUF) {
        /* flush B even when empty, then the write travels alone */
        close_frame(o, SYNTH_OKAY_CONTINUES);
        own_frame(o, bytes, len);
        open_frame(o);
        return;
    }
    if (o->blen + len >= SYNTH_FRAME_BUF) {
        close_frame(o, SYNTH_OKAY_CONTINUES);
        open_frame(o);
    }
    if (len > 0)
        memcpy(o->buf + o->len, bytes, len);
    o->len += len;
    o->blen += len;
}

void synth_w_u8(synth_out *o, uint8_t v) { synth_w(o, &v, 1); }

void synth_w_u16le(synth_out *o, uint16_t v) {
    uint8_t b[2];
    hs_store_le16(b, v);
    synth_w(o, b, 2);
}

void synth_w_u32be(synth_out *o, uint32_t v) {
    uint8_t b[4];
    hs_store_be32(b, v);
    synth_w(o, b, 4);
}

void synth_w_u64le(synth_out *o, uint64_t v) {
    uint8_t b[8];
    hs_store_le64(b, v);
    synth_w(o, b, 8);
}

bool synth_out_send(synth_out *o, const uint8_t *bytes, size_t len) {
    struct iovec v = {(void *)bytes, len};
    uint8_t kind = o->hostile;
    o->hostile = 0;
    send_iov(o, &v, 1);
    o->hostile = kind;
    return !o->failed;
}

bool synth_finish(synth_out *o, uint16_t status) {
    if (!o->failed) {
        if (!o->open)
            open_frame(o);
        close_frame(o, status);
        flush_buf(o);
        if (o->hostile && !o->silent)
            synth_hostile_deliver(o);
    }
    o->open = false;
    o->len = 0;
    o->blen = 0;
    return !o->failed;
}
