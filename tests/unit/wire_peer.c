#include "wire_peer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "heapscope/bytes.h"
#include "vectors.h"

static void die(const char *what) {
    fprintf(stderr, "wire_peer: %s\n", what);
    abort();
}

void bytes_put(bytes *b, const void *p, size_t n) {
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n)
            cap *= 2;
        uint8_t *d = realloc(b->data, cap);
        if (!d)
            die("out of memory");
        b->data = d;
        b->cap = cap;
    }
    if (n > 0)
        memcpy(b->data + b->len, p, n);
    b->len += n;
}

void bytes_hex(bytes *b, const char *hex) {
    uint8_t *raw;
    size_t n = hex_decode(hex, &raw);
    if (n == (size_t)-1)
        die("bad hex");
    bytes_put(b, raw, n);
    free(raw);
}

void bytes_be32(bytes *b, uint32_t v) {
    uint8_t x[4];
    hs_store_be32(x, v);
    bytes_put(b, x, 4);
}

void bytes_le64(bytes *b, uint64_t v) {
    uint8_t x[8];
    hs_store_le64(x, v);
    bytes_put(b, x, 8);
}

void bytes_frame(bytes *b, uint16_t status, const void *body, size_t n) {
    uint8_t h[6];
    hs_store_be32(h, (uint32_t)n);
    hs_store_be16(h + 4, status);
    bytes_put(b, h, 6);
    bytes_put(b, body, n);
}

void bytes_answer_split(bytes *b, const void *body, size_t n, size_t piece, bool empties) {
    const uint8_t *p = body;
    for (size_t off = 0; off < n; off += piece) {
        size_t k = n - off < piece ? n - off : piece;
        bytes_frame(b, WIRE_STATUS_OKAY_CONTINUES, p + off, k);
        if (empties)
            bytes_frame(b, WIRE_STATUS_OKAY_CONTINUES, NULL, 0);
    }
    bytes_frame(b, WIRE_STATUS_OKAY, NULL, 0);
}

void bytes_free(bytes *b) {
    free(b->data);
    *b = (bytes){0};
}

void peer_init(wire_peer *p) {
    *p = (wire_peer){.fd = -1};
}

void peer_reply(wire_peer *p, const void *reply, size_t len, size_t chunk) {
    if (p->n_steps == PEER_MAX_STEPS)
        die("too many steps");
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        die("out of memory");
    if (len)
        memcpy(copy, reply, len);
    p->steps[p->n_steps++] = (peer_step){.reply = copy, .len = len, .chunk = chunk};
}

void peer_reply_hex(wire_peer *p, const char *hex) {
    bytes b = {0};
    bytes_hex(&b, hex);
    peer_reply(p, b.data, b.len, 0);
    bytes_free(&b);
}

void peer_no_reply(wire_peer *p) {
    if (p->n_steps == PEER_MAX_STEPS)
        die("too many steps");
    p->steps[p->n_steps++] = (peer_step){0};
}

void peer_delay_last(wire_peer *p, int ms) {
    if (p->n_steps == 0)
        die("no step to delay");
    p->steps[p->n_steps - 1].delay_ms = ms;
}

static bool read_exact(int fd, uint8_t *dst, size_t n) {
    while (n > 0) {
        ssize_t r = recv(fd, dst, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        dst += r;
        n -= (size_t)r;
    }
    return true;
}

/* Reads one request into p->requests; false at EOF or error. */
static bool read_request(wire_peer *p) {
    uint8_t h[4];
    if (!read_exact(p->fd, h, 4))
        return false;
    uint32_t len = hs_load_be32(h);
    if (len > (1u << 24))
        return false;
    uint8_t *rest = malloc(len ? len : 1);
    bool ok = rest && read_exact(p->fd, rest, len);
    if (ok) {
        bytes_put(&p->requests, h, 4);
        bytes_put(&p->requests, rest, len);
        if (p->request_count < sizeof p->request_end / sizeof p->request_end[0])
            p->request_end[p->request_count++] = p->requests.len;
    }
    free(rest);
    return ok;
}

static void write_all(int fd, const uint8_t *src, size_t n, size_t chunk) {
    while (n > 0) {
        size_t k = chunk && chunk < n ? chunk : n;
        ssize_t w = send(fd, src, k, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* the client went away: the test checks what it saw */
        src += w;
        n -= (size_t)w;
    }
}

static void *serve(void *arg) {
    wire_peer *p = arg;
    for (size_t i = 0; i < p->n_steps; i++) {
        if (!read_request(p))
            goto done;
        if (p->steps[i].delay_ms > 0)
            nanosleep(&(struct timespec){p->steps[i].delay_ms / 1000,
                                         (long)(p->steps[i].delay_ms % 1000) * 1000000L},
                      NULL);
        if (p->steps[i].reply)
            write_all(p->fd, p->steps[i].reply, p->steps[i].len, p->steps[i].chunk);
    }
    if (!p->close_after)
        while (read_request(p)) {
        }
done:
    shutdown(p->fd, SHUT_RDWR);
    return NULL;
}

wire_conn *peer_start(wire_peer *p, const wire_options *opts) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        die("socketpair failed");
    p->fd = sv[1];
    wire_conn *c = NULL;
    hs_error err;
    if (wire_conn_from_fd(sv[0], "test peer", opts, &c, &err) != HS_OK)
        die(err.message);
    if (pthread_create(&p->thread, NULL, serve, p) != 0)
        die("pthread_create failed");
    p->started = true;
    return c;
}

void peer_join(wire_peer *p) {
    if (p->started)
        pthread_join(p->thread, NULL);
    p->started = false;
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
}

const uint8_t *peer_request(const wire_peer *p, size_t i, size_t *len) {
    if (i >= p->request_count)
        return NULL;
    size_t start = i == 0 ? 0 : p->request_end[i - 1];
    *len = p->request_end[i] - start;
    return p->requests.data + start;
}

void peer_free(wire_peer *p) {
    peer_join(p);
    for (size_t i = 0; i < p->n_steps; i++)
        free(p->steps[i].reply);
    bytes_free(&p->requests);
    p->n_steps = 0;
}
