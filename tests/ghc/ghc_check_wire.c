/* The stub at the byte level, on a raw connection (the stub serves one
 * connection at a time, so the library's connection is closed first):
 * malformed requests and bad addresses get empty error frames and the
 * program lives on; answers are cut into frames exactly as §5.4 says,
 * which splits records anywhere (between a length and its bytes, inside
 * a list of pointers). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ghc_checks.h"
#include "heapscope/bytes.h"

/* One request whose answer must be a single empty frame with status want. */
static void expect_error(ghc_ctx *x, int fd, uint32_t cmd, const void *payload, size_t n,
                         uint16_t want, const char *what) {
    raw_response r;
    bool ok = raw_call(fd, cmd, payload, n, &r);
    CHECK(x, ok, "%s: no answer", what);
    if (ok)
        CHECK(x, r.status == want && r.n_frames == 1 && r.len == 0,
              "%s: status 0x%04x in %zu frames (%zu bytes), want an empty 0x%04x", what,
              r.status, r.n_frames, r.len, want);
    raw_response_free(&r);
}

static void expect_raw_error(ghc_ctx *x, int fd, const void *bytes, size_t n, const char *what) {
    raw_response r;
    bool ok = raw_send_bytes(fd, bytes, n) && raw_read_response(fd, &r);
    CHECK(x, ok && r.status == 0x0100 && r.len == 0, "%s: want an empty BAD_COMMAND", what);
    if (ok)
        raw_response_free(&r);
}

static uint16_t simple_status(int fd, uint32_t cmd, const void *payload, size_t n) {
    raw_response r;
    uint16_t st = raw_call(fd, cmd, payload, n, &r) ? r.status : 0xffff;
    raw_response_free(&r);
    return st;
}

static int reconnect(ghc_ctx *x) {
    if (x->conn)
        wire_close(x->conn);
    x->conn = NULL;
    int fd = raw_connect(x->prog.socket);
    CHECK(x, fd >= 0, "cannot connect to %s", x->prog.socket);
    return fd;
}

/* The first root (a thread) and its info pointer. */
static bool first_thread(ghc_ctx *x, int fd, uint64_t *tso, uint64_t *info) {
    raw_response r;
    bool ok = raw_call(fd, 4, NULL, 0, &r) && r.status == 0 && r.len >= 8;
    CHECK(x, ok, "ROOTS failed");
    if (ok) {
        *tso = hs_load_le64(r.body) & ~UINT64_C(7);
        uint8_t req[10];
        hs_store_be16(req, 1);
        hs_store_le64(req + 2, *tso);
        raw_response_free(&r);
        ok = raw_call(fd, 5, req, sizeof req, &r) && r.status == 0 && r.len >= 12;
        CHECK(x, ok, "CLOSURES of a thread failed");
        if (ok)
            *info = hs_load_le64(r.body + 4);
    }
    raw_response_free(&r);
    return ok;
}

static void bad_addresses(ghc_ctx *x, int fd) {
    static const uint64_t bad[] = {0x10, UINT64_C(0x4200000000) + (UINT64_C(1) << 38),
                                   UINT64_C(0xdeadbeef000), UINT64_C(0xffffffffffffff8)};
    uint8_t p[32];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hs_store_be16(p, 1); /* CLOSURES, INFO_TABLES, SRT: u16 count, then PTRs */
        hs_store_le64(p + 2, bad[i]);
        expect_error(x, fd, 5, p, 10, 0x0100, "CLOSURES of a bad address");
        expect_error(x, fd, 6, p, 10, 0x0100, "INFO_TABLES of a bad address");
        expect_error(x, fd, 17, p, 10, 0x0100, "SRT of a bad address");
        expect_error(x, fd, 11, p + 2, 8, 0x0100, "CON_DESC of a bad address");
        expect_error(x, fd, 15, p + 2, 8, 0x0100, "BLOCK of a bad address");
        hs_store_be32(p + 10, 0); /* STACK_BITMAP: PTR sp, u32 offset */
        expect_error(x, fd, 7, p + 2, 12, 0x0104, "STACK_BITMAP of a bad address");
        hs_store_be16(p + 10, 3); /* FUN_BITMAP: PTR fun, u16 count */
        expect_error(x, fd, 16, p + 2, 10, 0x0100, "FUN_BITMAP of a bad address");
    }
    uint64_t tso, info;
    if (!first_thread(x, fd, &tso, &info))
        return;
    hs_store_le64(p, info);
    expect_error(x, fd, 11, p, 8, 0x0100, "CON_DESC of a thread's info table");
    hs_store_le64(p, tso);
    hs_store_be32(p + 8, 0);
    expect_error(x, fd, 7, p, 12, 0x0104, "STACK_BITMAP of a thread (not a frame)");
    hs_store_be16(p + 8, 2);
    expect_error(x, fd, 16, p, 10, 0x0100, "FUN_BITMAP of a thread (not a function)");
    /* one good and one bad pointer: refused whole, nothing written */
    uint8_t two[18] = {0, 2};
    hs_store_le64(two + 2, tso);
    hs_store_le64(two + 10, 0x10);
    expect_error(x, fd, 5, two, sizeof two, 0x0100, "CLOSURES of a good and a bad address");
    raw_response r;
    hs_store_le64(p, info);
    CHECK(x, raw_call(fd, 12, p, 8, &r) && r.status == 0 && r.len == 4 && hs_load_be32(r.body) == 0,
          "SOURCE_INFO must answer not found");
    raw_response_free(&r);
    uint8_t zero[2] = {0, 0};
    CHECK(x, raw_call(fd, 5, zero, 2, &r) && r.status == 0 && r.len == 0,
          "CLOSURES of no pointers must be an empty OKAY");
    raw_response_free(&r);
}

void check_malformed(ghc_ctx *x) {
    int fd = reconnect(x);
    if (fd < 0)
        return;
    static const uint8_t short_len[] = {0, 0, 0, 2, 0xaa, 0xbb};
    expect_raw_error(x, fd, short_len, sizeof short_len, "LEN 2");
    static const uint8_t zero_len[] = {0, 0, 0, 0};
    expect_raw_error(x, fd, zero_len, sizeof zero_len, "LEN 0");
    size_t huge = (size_t)3 << 20; /* longer than any real request */
    uint8_t *big = calloc(1, huge + 8);
    if (big) {
        hs_store_be32(big, (uint32_t)(huge + 4));
        hs_store_be32(big + 4, 5);
        expect_raw_error(x, fd, big, huge + 8, "a 3 MiB request");
        free(big);
    }
    static const uint32_t unknown[] = {0, 8, 10, 13, 22, 0x01000001};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        expect_error(x, fd, unknown[i], NULL, 0, 0x0100, "an unknown or unsupported command");
    expect_error(x, fd, 2, NULL, 0, 0x0100, "PAUSE without its mode byte");
    expect_error(x, fd, 3, NULL, 0, 0x0102, "RESUME while running");
    expect_error(x, fd, 5, "\0\1", 2, 0x0102, "CLOSURES while running");
    expect_error(x, fd, 18, "12345678", 8, 0x0100, "CCS on a non-profiled program");
    expect_error(x, fd, 21, NULL, 0, 0x0100, "CCS_MAIN on a non-profiled program");
    CHECK(x, simple_status(fd, 2, "\0", 1) == 0, "PAUSE failed");
    expect_error(x, fd, 2, "\0", 1, 0x0101, "PAUSE while paused");
    uint8_t p[24] = {0, 5};
    expect_error(x, fd, 5, p, 10, 0x0100, "CLOSURES of 5 pointers with 1 given");
    expect_error(x, fd, 17, p, 10, 0x0100, "SRT of 5 pointers with 1 given");
    expect_error(x, fd, 7, p, 8, 0x0100, "STACK_BITMAP without its offset");
    expect_error(x, fd, 16, p, 8, 0x0100, "FUN_BITMAP without its count");
    expect_error(x, fd, 15, p, 4, 0x0100, "BLOCK with half a pointer");
    bad_addresses(x, fd);
    /* a request cut off by a disconnect, then a new connection */
    close(fd);
    fd = raw_connect(x->prog.socket);
    static const uint8_t partial[] = {0, 0, 0, 12, 0, 0, 0, 15, 1, 2};
    raw_send_bytes(fd, partial, sizeof partial);
    close(fd);
    fd = raw_connect(x->prog.socket);
    raw_response r;
    bool ok = raw_call(fd, 1, NULL, 0, &r) && r.status == 0 && r.len == 10;
    CHECK(x, ok && hs_load_be32(r.body) == 900 && hs_load_be32(r.body + 4) == 2,
          "VERSION after all that");
    raw_response_free(&r);
    CHECK(x, simple_status(fd, 3, NULL, 0) == 0, "RESUME after the disconnect");
    expect_error(x, fd, 3, NULL, 0, 0x0102, "a second RESUME");
    /* fork mode is served as a pause in place */
    CHECK(x, simple_status(fd, 2, "\1", 1) == 0, "PAUSE in fork mode");
    expect_error(x, fd, 2, "\0", 1, 0x0101, "PAUSE after a fork-mode PAUSE");
    CHECK(x, simple_status(fd, 3, NULL, 0) == 0, "RESUME after a fork-mode PAUSE");
    close(fd);
}

/* ---- framing --------------------------------------------------------- */

typedef struct sizes {
    size_t *items;
    size_t count, cap;
} sizes;

static void add_size(sizes *s, size_t n) {
    if (s->count == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->items = realloc(s->items, s->cap * sizeof *s->items);
        if (!s->items)
            abort();
    }
    s->items[s->count++] = n;
}

/* The frame body lengths §5.4 produces for this sequence of writes. */
static void expected_frames(const sizes *writes, sizes *frames) {
    size_t buf = 0;
    for (size_t i = 0; i < writes->count; i++) {
        size_t n = writes->items[i];
        if (n > 1024) {
            add_size(frames, buf);
            add_size(frames, n);
            buf = 0;
        } else if (buf + n >= 1024) {
            add_size(frames, buf);
            buf = n;
        } else {
            buf += n;
        }
    }
    add_size(frames, buf);
}

static void compare_frames(ghc_ctx *x, const raw_response *r, const sizes *writes,
                           const char *what) {
    sizes want = {0};
    expected_frames(writes, &want);
    bool same = want.count == r->n_frames && r->status == 0;
    for (size_t i = 0; same && i < want.count; i++)
        same = want.items[i] == r->frame_len[i] &&
               r->frame_status[i] == (i + 1 < want.count ? 0x0001 : 0x0000);
    size_t largest = 0;
    for (size_t i = 0; i < r->n_frames; i++)
        if (r->frame_len[i] <= 1024 && r->frame_len[i] > largest)
            largest = r->frame_len[i];
    ghc_note("%s: %zu bytes in %zu frames (largest buffered frame %zu bytes)", what, r->len,
             r->n_frames, largest);
    CHECK(x, same, "%s: frames differ from the spec's buffering (%zu frames, want %zu)", what,
          r->n_frames, want.count);
    free(want.items);
}

void check_frames(ghc_ctx *x) {
    int fd = reconnect(x);
    if (fd < 0)
        return;
    CHECK(x, simple_status(fd, 2, "\0", 1) == 0, "PAUSE failed");
    raw_response roots, closures, blocks;
    sizes w = {0};
    /* ROOTS: one 8-byte write per root */
    if (raw_call(fd, 4, NULL, 0, &roots) && roots.status == 0) {
        for (size_t i = 0; i < roots.len / 8; i++)
            add_size(&w, 8);
        compare_frames(x, &roots, &w, "ROOTS");
        /* CLOSURES of every root at once: W(u32 size) W(size bytes) each */
        size_t n = roots.len / 8 > 65535 ? 65535 : roots.len / 8;
        uint8_t *req = malloc(2 + 8 * n);
        if (!req)
            abort();
        hs_store_be16(req, (uint16_t)n);
        for (size_t i = 0; i < n; i++)
            hs_store_le64(req + 2 + 8 * i, hs_load_le64(roots.body + 8 * i) & ~UINT64_C(7));
        w.count = 0;
        if (raw_call(fd, 5, req, 2 + 8 * n, &closures) && closures.status == 0) {
            for (size_t off = 0; off + 4 <= closures.len;) {
                size_t len = hs_load_be32(closures.body + off);
                add_size(&w, 4);
                add_size(&w, len);
                off += 4 + len;
            }
            CHECK(x, w.count == 2 * n, "CLOSURES: %zu records for %zu pointers", w.count / 2, n);
            compare_frames(x, &closures, &w, "CLOSURES of every root");
        } else {
            CHECK(x, false, "CLOSURES of the roots failed");
        }
        raw_response_free(&closures);
        free(req);
    } else {
        CHECK(x, false, "ROOTS failed");
    }
    raw_response_free(&roots);
    /* ALL_BLOCKS: W(flags) W(start) W(len) W(data) per group */
    w.count = 0;
    if (raw_call(fd, 14, NULL, 0, &blocks) && blocks.status == 0) {
        for (size_t off = 0; off + 14 <= blocks.len;) {
            size_t len = hs_load_be32(blocks.body + off + 10);
            add_size(&w, 2), add_size(&w, 8), add_size(&w, 4), add_size(&w, len);
            off += 14 + len;
        }
        compare_frames(x, &blocks, &w, "ALL_BLOCKS");
    } else {
        CHECK(x, false, "ALL_BLOCKS failed");
    }
    raw_response_free(&blocks);
    free(w.items);
    CHECK(x, simple_status(fd, 3, NULL, 0) == 0, "RESUME failed");
    close(fd);
}
