/* Shared by the server tests; included by each test file (see the .h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "heapscope/bytes.h"
#include "test_server_helpers.h"

/* ---- byte buffers ---- */

void tb_free(tbuf *t) {
    free(t->b);
    *t = (tbuf){0};
}

void tb_bytes(tbuf *t, const void *p, size_t n) {
    if (t->n + n > t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (cap < t->n + n)
            cap *= 2;
        t->b = realloc(t->b, cap);
        cr_assert(t->b != NULL);
        t->cap = cap;
    }
    if (n)
        memcpy(t->b + t->n, p, n);
    t->n += n;
}

void tb_u8(tbuf *t, uint8_t v) { tb_bytes(t, &v, 1); }
void tb_be16(tbuf *t, uint16_t v) {
    uint8_t b[2];
    hs_store_be16(b, v);
    tb_bytes(t, b, 2);
}
void tb_be32(tbuf *t, uint32_t v) {
    uint8_t b[4];
    hs_store_be32(b, v);
    tb_bytes(t, b, 4);
}
void tb_le64(tbuf *t, uint64_t v) {
    uint8_t b[8];
    hs_store_le64(b, v);
    tb_bytes(t, b, 8);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void tb_hex(tbuf *t, const char *hex) {
    int hi = -1;
    for (const char *c = hex; *c; c++) {
        if (*c == ' ' || *c == '|' || *c == '\n')
            continue;
        int v = hexval(*c);
        cr_assert(v >= 0, "bad hex digit '%c' in test vector", *c);
        if (hi < 0) {
            hi = v;
        } else {
            tb_u8(t, (uint8_t)(hi << 4 | v));
            hi = -1;
        }
    }
    cr_assert(hi < 0, "odd number of hex digits in test vector");
}

/* ---- hand-built processes ---- */

static void add_region(synth_process *p, uint64_t base, uint64_t size) {
    p->regions = realloc(p->regions, (p->n_regions + 1) * sizeof *p->regions);
    cr_assert(p->regions != NULL);
    uint8_t *bytes = calloc(1, size);
    cr_assert(bytes != NULL);
    p->regions[p->n_regions++] = (synth_region){base, size, bytes};
}

void tp_init(synth_process *p, bool profiled) {
    *p = (synth_process){.ghc_major = 910, .ghc_patch = 1, .prof_mode = profiled ? 4 : 0};
    add_region(p, T_TEXT, T_TEXT_SIZE);
    add_region(p, T_DATA, T_DATA_SIZE);
    add_region(p, T_MB1, SYNTH_MBLOCK_SIZE);
    add_region(p, T_MB2, SYNTH_MBLOCK_SIZE);
}

uint8_t *tp_at(synth_process *p, uint64_t addr, uint64_t len) {
    const uint8_t *m = synth_mem(p, addr, len);
    cr_assert(m != NULL, "test bug: 0x%llx is not mapped", (unsigned long long)addr);
    return (uint8_t *)m;
}

void tp_put64(synth_process *p, uint64_t addr, uint64_t v) { hs_store_le64(tp_at(p, addr, 8), v); }
void tp_put32(synth_process *p, uint64_t addr, uint32_t v) { hs_store_le32(tp_at(p, addr, 4), v); }
void tp_put16(synth_process *p, uint64_t addr, uint16_t v) { hs_store_le16(tp_at(p, addr, 2), v); }
void tp_puts(synth_process *p, uint64_t addr, const char *s) {
    memcpy(tp_at(p, addr, strlen(s) + 1), s, strlen(s) + 1);
}

static uint64_t tp_s(const synth_process *p) { return p->prof_mode ? 32 : 16; }

void tp_itbl_layout(synth_process *p, uint64_t info, uint64_t layout, uint32_t type, int32_t srt) {
    tp_put64(p, info - 16, layout);
    tp_put32(p, info - 8, type);
    tp_put32(p, info - 4, (uint32_t)srt);
}

void tp_itbl(synth_process *p, uint64_t info, uint32_t ptrs, uint32_t nptrs, uint32_t type,
             int32_t srt) {
    tp_itbl_layout(p, info, (uint64_t)nptrs << 32 | ptrs, type, srt);
}

void tp_fun_extra(synth_process *p, uint64_t info, uint64_t bitmap, uint32_t fun_type,
                  uint32_t arity) {
    uint64_t x = info - tp_s(p) - 24;
    tp_put64(p, x, 0);
    tp_put64(p, x + 8, bitmap);
    tp_put32(p, x + 16, fun_type);
    tp_put32(p, x + 20, arity);
}

void tp_con_desc(synth_process *p, uint64_t info, uint64_t str_addr, const char *desc) {
    tp_put32(p, info - tp_s(p) - 8, (uint32_t)(int32_t)(int64_t)(str_addr - info));
    tp_puts(p, str_addr, desc);
}

void tp_large_bitmap(synth_process *p, uint64_t addr, const uint8_t *entries, size_t n) {
    tp_put64(p, addr, n);
    for (size_t w = 0; w < (n + 63) / 64; w++) {
        uint64_t bits = 0;
        for (size_t i = w * 64; i < n && i < w * 64 + 64; i++)
            if (!entries[i]) /* RTS: 1 = non-pointer */
                bits |= UINT64_C(1) << (i % 64);
        tp_put64(p, addr + 8 + 8 * w, bits);
    }
}

void tp_group(synth_process *p, uint64_t start, uint32_t blocks, uint16_t flags) {
    uint64_t mb = start & ~(uint64_t)(SYNTH_MBLOCK_SIZE - 1);
    uint64_t d = mb + (((start & (SYNTH_MBLOCK_SIZE - 1)) >> 12) << 6);
    tp_put64(p, d, start);
    tp_put64(p, d + 8, start);
    tp_put16(p, d + 46, flags);
    tp_put32(p, d + 48, blocks);
    p->group_starts = realloc(p->group_starts, (p->n_groups + 1) * sizeof *p->group_starts);
    cr_assert(p->group_starts != NULL);
    size_t i = p->n_groups++;
    while (i > 0 && p->group_starts[i - 1] > start) {
        p->group_starts[i] = p->group_starts[i - 1];
        i--;
    }
    p->group_starts[i] = start;
}

void tp_roots(synth_process *p, const uint64_t *roots, size_t n) {
    free(p->roots);
    p->roots = malloc((n ? n : 1) * sizeof *roots);
    cr_assert(p->roots != NULL);
    memcpy(p->roots, roots, n * sizeof *roots);
    p->n_roots = n;
}

void tp_ipe(synth_process *p, uint64_t info, const char *name, const char *type_no,
            const char *type, const char *label, const char *module, const char *pos) {
    p->ipes = realloc(p->ipes, (p->n_ipes + 1) * sizeof *p->ipes);
    cr_assert(p->ipes != NULL);
    size_t i = p->n_ipes++;
    while (i > 0 && p->ipes[i - 1].info > info) {
        p->ipes[i] = p->ipes[i - 1];
        i--;
    }
    p->ipes[i] = (synth_ipe){info, {name, type_no, type, label, module, pos}};
}

void tp_free(synth_process *p) { synth_process_free(p); }

void tp_vectors(synth_process *p, bool profiled) {
    tp_init(p, profiled);
    tp_itbl(p, V_INFO, 2, 0, 4, 0); /* CONSTR_2_0, constructor tag 0 */
    tp_con_desc(p, V_INFO, 0x4f9000, "main:Main.Leak");
    tp_group(p, V_BLOCK, 1, 0);
    uint64_t h = profiled ? 24 : 8;
    tp_put64(p, V_CLOSURE, V_INFO);
    tp_put64(p, V_CLOSURE + h, 0x4200105a51);
    tp_put64(p, V_CLOSURE + h + 8, 0x4200105a68);
    /* some recognisable bytes elsewhere in the block */
    for (uint64_t a = V_BLOCK; a < V_BLOCK + 0x800; a += 8)
        tp_put64(p, a, a ^ 0x5a5a);
    uint64_t roots[2] = {0x4200105a38, 0x4200107f10};
    tp_roots(p, roots, 2);
    tp_ipe(p, V_INFO, "sat_s1Ab_info", "15", "[Int]", "leaky", "Main", "app/Main.hs:12:5-20");
}

/* ---- the server thread ---- */

static void *serve_thread(void *arg) {
    tconn *c = arg;
    synth_server_config cfg = {.wake_fd = -1, .quiet = true, .silent_on = c->silent_on};
    c->res = synth_serve_connection(c->p, c->st, c->srv, &cfg);
    close(c->srv);
    return NULL;
}

void tc_start_silent(tconn *c, const synth_process *p, synth_state *st, uint32_t silent_on) {
    int sv[2];
    cr_assert(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    *c = (tconn){.fd = sv[0], .srv = sv[1], .p = p, .st = st, .silent_on = silent_on};
    cr_assert(pthread_create(&c->th, NULL, serve_thread, c) == 0);
}

void tc_start(tconn *c, const synth_process *p, synth_state *st) { tc_start_silent(c, p, st, 0); }

synth_serve_result tc_stop(tconn *c) {
    close(c->fd);
    pthread_join(c->th, NULL);
    return c->res;
}

void tc_send(tconn *c, const void *bytes, size_t n) {
    const uint8_t *b = bytes;
    while (n > 0) {
        ssize_t r = send(c->fd, b, n, MSG_NOSIGNAL);
        if (r < 0 && errno == EINTR)
            continue;
        cr_assert(r > 0, "send to the server failed: %s", strerror(errno));
        b += r;
        n -= (size_t)r;
    }
}

void tc_send_hex(tconn *c, const char *hex) {
    tbuf t = {0};
    tb_hex(&t, hex);
    tc_send(c, t.b, t.n);
    tb_free(&t);
}

void tc_request(tconn *c, uint32_t cmd, const tbuf *payload) {
    tbuf t = {0};
    size_t n = payload ? payload->n : 0;
    tb_be32(&t, (uint32_t)(4 + n));
    tb_be32(&t, cmd);
    if (n)
        tb_bytes(&t, payload->b, n);
    tc_send(c, t.b, t.n);
    tb_free(&t);
}

/* Reads n bytes, failing the test after 10 s of silence or on EOF. */
static void read_exact(tconn *c, uint8_t *buf, size_t n) {
    while (n > 0) {
        struct pollfd pf = {.fd = c->fd, .events = POLLIN};
        int pr = poll(&pf, 1, 10000);
        cr_assert(pr > 0, "no response from the server within 10 s");
        ssize_t r = recv(c->fd, buf, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        cr_assert(r > 0, "the server closed the connection (%s)", r < 0 ? strerror(errno) : "EOF");
        buf += r;
        n -= (size_t)r;
    }
}

void tc_read_response(tconn *c, tresp *r) {
    *r = (tresp){0};
    for (;;) {
        uint8_t h[6];
        read_exact(c, h, 6);
        uint32_t blen = hs_load_be32(h);
        uint16_t status = hs_load_be16(h + 4);
        cr_assert(blen < (1u << 30), "absurd frame length %u", blen);
        uint8_t *body = malloc(blen ? blen : 1);
        cr_assert(body != NULL);
        read_exact(c, body, blen);
        tb_bytes(&r->raw, h, 6);
        tb_bytes(&r->raw, body, blen);
        cr_assert(r->frames < sizeof r->frame_len / sizeof *r->frame_len, "too many frames");
        r->frame_len[r->frames] = blen;
        r->frame_status[r->frames] = status;
        r->frames++;
        if (status == 0x0001) {
            tb_bytes(&r->body, body, blen);
            free(body);
            continue;
        }
        if (status == 0x0000)
            tb_bytes(&r->body, body, blen);
        free(body);
        r->status = status;
        return;
    }
}

void tresp_free(tresp *r) {
    tb_free(&r->raw);
    tb_free(&r->body);
}

static void dump(const char *what, const tbuf *t) {
    fprintf(stderr, "%s (%zu bytes):", what, t->n);
    for (size_t i = 0; i < t->n && i < 256; i++)
        fprintf(stderr, " %02x", t->b[i]);
    fprintf(stderr, t->n > 256 ? " ...\n" : "\n");
}

void tc_expect_hex(tconn *c, const char *hex) {
    tbuf want = {0};
    tb_hex(&want, hex);
    tresp r;
    tc_read_response(c, &r);
    bool same = r.raw.n == want.n && memcmp(r.raw.b, want.b, want.n) == 0;
    if (!same) {
        dump("expected", &want);
        dump("received", &r.raw);
    }
    cr_assert(same, "response bytes differ (see stderr)");
    tresp_free(&r);
    tb_free(&want);
}

void tc_expect_silence(tconn *c, int ms) {
    struct pollfd pf = {.fd = c->fd, .events = POLLIN};
    cr_assert(poll(&pf, 1, ms) == 0, "unexpected bytes from the server");
}

void tc_expect_eof(tconn *c) {
    struct pollfd pf = {.fd = c->fd, .events = POLLIN};
    cr_assert(poll(&pf, 1, 10000) > 0, "the server did not close the connection");
    uint8_t b;
    cr_assert(recv(c->fd, &b, 1, 0) == 0, "expected EOF, got data");
}
