/* Reassembly over a real socket: the multi-frame BLOCK of §12.4, the same
 * answers split into any frames or written byte by byte, ALL_BLOCKS at
 * size with progress and statistics, raw wire_call, and POLL timing. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "heapscope/wire.h"
#include "vectors.h"
#include "wire_peer.h"

static vector_set vec;

static void load_vectors(void) { cr_assert_eq(vectors_load(HEAPSCOPE_VECTORS, &vec), 0); }
static void free_vectors(void) { vectors_free(&vec); }

TestSuite(wire_frames, .init = load_vectors, .fini = free_vectors);

static const char *resp(const char *key) {
    const char *hex = vectors_get(&vec, "responses", key);
    cr_assert_not_null(hex, "no response vector '%s'", key);
    return hex;
}

static void assert_request(const wire_peer *p, size_t i, const char *key) {
    const char *hex = vectors_get(&vec, "requests", key);
    cr_assert_not_null(hex, "no request vector '%s'", key);
    uint8_t *want;
    size_t n = hex_decode(hex, &want);
    size_t got_len = 0;
    const uint8_t *got = peer_request(p, i, &got_len);
    cr_assert_not_null(got, "request %zu (%s) never reached the peer", i, key);
    cr_assert_eq(got_len, n, "%s: %zu bytes on the wire, expected %zu", key, got_len, n);
    cr_assert(memcmp(got, want, n) == 0, "%s: request bytes differ", key);
    free(want);
}

static void finish(wire_peer *p, wire_conn *c) {
    wire_close(c);
    peer_free(p);
}

/* §12.4: one RawBlock as a 14-byte frame, a 4096-byte frame, an empty OKAY. */
static void block_answer(bytes *b, uint8_t **data_out) {
    uint8_t *data = malloc(4096);
    for (int i = 0; i < 4096; i++)
        data[i] = (uint8_t)(i * 7 + 3);
    bytes_hex(b, vectors_get(&vec, "multi_frame_block", "frame1"));
    bytes_hex(b, vectors_get(&vec, "multi_frame_block", "frame2_header"));
    bytes_put(b, data, 4096);
    bytes_hex(b, vectors_get(&vec, "multi_frame_block", "frame3"));
    *data_out = data;
}

static void assert_block(const wire_block_list *l, const uint8_t *data) {
    cr_assert_eq(l->count, 1);
    cr_assert_eq(l->body.len, 4110, "reassembled body is 14 + 4096 bytes");
    cr_assert_eq(l->items[0].flags, 0);
    cr_assert_eq(l->items[0].start, 0x4200105000);
    cr_assert_eq(l->items[0].len, 4096);
    cr_assert(memcmp(l->items[0].data, data, 4096) == 0, "block data differs");
}

Test(wire_frames, multi_frame_block) {
    bytes ans = {0};
    uint8_t *data;
    block_answer(&ans, &data);
    wire_peer p;
    peer_init(&p);
    peer_reply(&p, ans.data, ans.len, 0);
    wire_conn *c = peer_start(&p, NULL);
    wire_block_list l;
    hs_error err = {0};
    cr_assert_eq(wire_block(c, 0x4200105a38, &l, &err), HS_OK, "%s", err.message);
    assert_block(&l, data);
    cr_assert_eq(wire_conn_stats(c).frames_received, 3);
    wire_block_list_free(&l);
    wire_close(c);
    peer_join(&p);
    assert_request(&p, 0, "BLOCK for 0x4200105a38");
    peer_free(&p);
    free(data);
    bytes_free(&ans);
}

/* The same answers in other framings: tiny frames, empty frames, and
 * byte-by-byte writes must not change the result. */
struct framing {
    size_t piece;  /* frame body size (0: the original frames) */
    bool empties;  /* empty CONTINUES frame after each piece */
    size_t chunk;  /* write size on the socket (0: one write) */
};

static const struct framing framings[] = {
    {0, false, 1}, {1, false, 0}, {1, true, 0}, {3, true, 7}, {5, false, 1}, {1000, true, 2},
};

static size_t body_of(const char *hex, bytes *body) {
    bytes all = {0};
    bytes_hex(&all, hex);
    /* concatenate the bodies of all frames */
    size_t off = 0;
    while (off < all.len) {
        uint32_t n = hs_load_be32(all.data + off);
        bytes_put(body, all.data + off + 6, n);
        off += 6 + n;
    }
    bytes_free(&all);
    return body->len;
}

static void reframe(const char *hex, const struct framing *f, bytes *out) {
    if (f->piece == 0) {
        bytes_hex(out, hex);
        return;
    }
    bytes body = {0};
    body_of(hex, &body);
    bytes_answer_split(out, body.data, body.len, f->piece, f->empties);
    bytes_free(&body);
}

Test(wire_frames, any_framing_gives_the_same_answers) {
    for (size_t k = 0; k < sizeof framings / sizeof framings[0]; k++) {
        const struct framing *f = &framings[k];
        bytes a[4] = {{0}};
        reframe(resp("VERSION 9.10.1 profiled eras TNTC"), f, &a[0]);
        reframe(resp("ROOTS 0x4200105a38 0x4200107f10"), f, &a[1]);
        reframe(resp("SOURCE_INFO found sat_s1Ab_info/15/[Int]/leaky/Main/app/Main.hs:12:5-20"),
                f, &a[2]);
        reframe(resp("STACK_BITMAP 3 entries non-ptr non-ptr ptr"), f, &a[3]);
        wire_peer p;
        peer_init(&p);
        for (int i = 0; i < 4; i++)
            peer_reply(&p, a[i].data, a[i].len, f->chunk);
        wire_conn *c = peer_start(&p, NULL);
        hs_error err = {0};

        wire_version v;
        cr_assert_eq(wire_get_version(c, &v, &err), HS_OK, "framing %zu: %s", k, err.message);
        cr_assert_eq(v.major, 910);
        cr_assert_eq(v.prof_mode, 4);
        wire_ptr_list l;
        cr_assert_eq(wire_roots(c, &l, &err), HS_OK, "framing %zu: %s", k, err.message);
        cr_assert_eq(l.count, 2);
        cr_assert_eq(l.items[1], 0x4200107f10);
        wire_ptr_list_free(&l);
        wire_source_info si;
        cr_assert_eq(wire_get_source_info(c, 0x4f8e28, &si, &err), HS_OK, "framing %zu: %s", k,
                     err.message);
        cr_assert_str_eq(si.position, "app/Main.hs:12:5-20");
        cr_assert_str_eq(si.name, "sat_s1Ab_info");
        wire_source_info_free(&si);
        wire_bitmap b;
        cr_assert_eq(wire_stack_bitmap(c, 0x4200207f00, 0x18, &b, &err), HS_OK);
        cr_assert_eq(b.count, 3);
        cr_assert_eq(b.bits[2], 1);
        wire_bitmap_free(&b);

        if (f->piece == 1 && f->empties)
            cr_assert_eq(wire_conn_stats(c).frames_received,
                         (10 + 16 + 76 + 7) * 2 + 4, "every frame counted");
        finish(&p, c);
        for (int i = 0; i < 4; i++)
            bytes_free(&a[i]);
    }
}

Test(wire_frames, block_split_byte_by_byte) {
    bytes ans = {0};
    uint8_t *data;
    block_answer(&ans, &data);
    bytes tiny = {0};
    bytes body = {0};
    size_t off = 0;
    while (off < ans.len) {
        uint32_t n = hs_load_be32(ans.data + off);
        bytes_put(&body, ans.data + off + 6, n);
        off += 6 + n;
    }
    bytes_answer_split(&tiny, body.data, body.len, 13, true);
    wire_peer p;
    peer_init(&p);
    peer_reply(&p, ans.data, ans.len, 1);
    peer_reply(&p, tiny.data, tiny.len, 0);
    wire_conn *c = peer_start(&p, NULL);
    wire_block_list l;
    hs_error err = {0};
    cr_assert_eq(wire_block(c, 0x4200105a38, &l, &err), HS_OK, "%s", err.message);
    assert_block(&l, data);
    wire_block_list_free(&l);
    cr_assert_eq(wire_block(c, 0x4200105a38, &l, &err), HS_OK, "%s", err.message);
    assert_block(&l, data);
    wire_block_list_free(&l);
    finish(&p, c);
    free(data);
    bytes_free(&ans);
    bytes_free(&tiny);
    bytes_free(&body);
}

/* ---- ALL_BLOCKS at size, progress, statistics ------------------------- */

struct progress_log {
    int calls;
    uint64_t last;
    bool cancel;
};

static bool on_progress(void *ctx, uint32_t cmd, uint64_t so_far) {
    struct progress_log *log = ctx;
    cr_assert_eq(cmd, WIRE_CMD_ALL_BLOCKS);
    cr_assert_gt(so_far, log->last, "progress only grows");
    log->calls++;
    log->last = so_far;
    return !log->cancel;
}

/* Stub-style framing (§5.4) of n blocks: a 14-byte CONTINUES frame and a
 * CONTINUES data frame per block, then an empty OKAY. Block i is
 * (1 + i % 3) * 4 KiB, except every 50th is a 1 MiB group. */
static size_t all_blocks_answer(bytes *b, size_t n, size_t *frames) {
    size_t total = 0;
    *frames = 0;
    uint8_t *data = malloc(1u << 20);
    for (size_t i = 0; i < n; i++) {
        uint32_t len = i % 50 == 49 ? 1u << 20 : (uint32_t)(4096 * (1 + i % 3));
        uint8_t h[14];
        hs_store_le16(h, (uint16_t)i);
        hs_store_le64(h + 2, 0x4200000000 + (uint64_t)i * (1u << 20));
        hs_store_be32(h + 10, len);
        bytes_frame(b, WIRE_STATUS_OKAY_CONTINUES, h, 14);
        memset(data, (int)(i & 0xff), len);
        bytes_frame(b, WIRE_STATUS_OKAY_CONTINUES, data, len);
        total += 14 + len;
        *frames += 2;
    }
    bytes_frame(b, WIRE_STATUS_OKAY, NULL, 0);
    (*frames)++;
    free(data);
    return total;
}

Test(wire_frames, all_blocks_large_with_progress) {
    bytes ans = {0};
    size_t frames;
    const size_t nblocks = 1000;
    size_t body_len = all_blocks_answer(&ans, nblocks, &frames);
    cr_assert_gt(body_len, 20u << 20, "the answer is big enough to show progress");
    struct progress_log log = {0};
    wire_options o;
    wire_options_default(&o);
    o.progress = on_progress;
    o.progress_ctx = &log;
    wire_peer p;
    peer_init(&p);
    peer_reply(&p, ans.data, ans.len, 0);
    wire_conn *c = peer_start(&p, &o);
    wire_block_list l;
    hs_error err = {0};
    cr_assert_eq(wire_all_blocks(c, &l, &err), HS_OK, "%s", err.message);
    cr_assert_eq(l.count, nblocks);
    cr_assert_eq(l.body.len, body_len);
    for (size_t i = 0; i < nblocks; i++) {
        uint32_t len = i % 50 == 49 ? 1u << 20 : (uint32_t)(4096 * (1 + i % 3));
        cr_assert_eq(l.items[i].flags, (uint16_t)i);
        cr_assert_eq(l.items[i].start, 0x4200000000 + (uint64_t)i * (1u << 20));
        cr_assert_eq(l.items[i].len, len);
        cr_assert_eq(l.items[i].data[0], (uint8_t)i);
        cr_assert_eq(l.items[i].data[len - 1], (uint8_t)i);
    }
    cr_assert_geq(log.calls, (int)(ans.len / (4u << 20)), "progress at least every 4 MiB");
    wire_stats s = wire_conn_stats(c);
    cr_assert_eq(s.requests, 1);
    cr_assert_eq(s.bytes_sent, 8);
    cr_assert_eq(s.bytes_received, ans.len);
    cr_assert_eq(s.frames_received, frames);
    wire_block_list_free(&l);
    finish(&p, c);
    bytes_free(&ans);
}

Test(wire_frames, progress_can_cancel) {
    bytes ans = {0};
    size_t frames;
    all_blocks_answer(&ans, 400, &frames);
    struct progress_log log = {.cancel = true};
    wire_options o = {.progress = on_progress, .progress_ctx = &log};
    wire_peer p;
    peer_init(&p);
    peer_reply(&p, ans.data, ans.len, 0);
    wire_conn *c = peer_start(&p, &o);
    wire_block_list l;
    hs_error err = {0};
    cr_assert_eq(wire_all_blocks(c, &l, &err), HS_ERR_CANCELLED);
    cr_assert(strstr(err.message, "ALL_BLOCKS: cancelled"), "%s", err.message);
    cr_assert_eq(log.calls, 1, "no progress once cancelled");
    cr_assert_eq(l.count, 0);
    /* the rest of the answer was read and dropped (the stub must finish
     * writing it): the stream is in step */
    cr_assert(wire_conn_is_open(c), "%s", err.message);
    wire_stats s = wire_conn_stats(c);
    cr_assert_eq(s.bytes_received, ans.len);
    cr_assert_eq(s.drained, 1);
    finish(&p, c);
    bytes_free(&ans);
}
Test(wire_frames, raw_wire_call) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, "000000020001abcd" "000000010000ef");
    wire_conn *c = peer_start(&p, NULL);
    wire_buf body = {0};
    hs_error err = {0};
    const uint8_t payload[2] = {1, 2};
    cr_assert_eq(wire_call(c, 0x0d, payload, 2, 1024, &body, &err), HS_OK, "%s", err.message);
    cr_assert_eq(body.len, 3);
    cr_assert_eq(body.data[0], 0xab);
    cr_assert_eq(body.data[2], 0xef);
    wire_buf_free(&body);
    wire_close(c);
    peer_join(&p);
    size_t n;
    const uint8_t *r = peer_request(&p, 0, &n);
    cr_assert_eq(n, 10);
    cr_assert_eq(hs_load_be32(r), 6);
    cr_assert_eq(hs_load_be32(r + 4), 0x0d);
    peer_free(&p);
}

Test(wire_frames, poll_waits_past_the_io_timeout) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, "000000000000");
    peer_delay_last(&p, 400);
    wire_options o = {.io_timeout_ms = 100};
    wire_conn *c = peer_start(&p, &o);
    hs_error err = {0};
    cr_assert_eq(wire_poll(c, 5000, &err), HS_OK, "%s", err.message);
    cr_assert(wire_conn_is_open(c));
    wire_close(c);
    peer_join(&p);
    assert_request(&p, 0, "POLL");
    peer_free(&p);
}

Test(wire_frames, poll_times_out) {
    wire_peer p;
    peer_init(&p);
    peer_no_reply(&p);
    wire_conn *c = peer_start(&p, NULL);
    hs_error err = {0};
    cr_assert_eq(wire_poll(c, 150, &err), HS_ERR_TIMEOUT);
    cr_assert(strstr(err.message, "POLL"), "%s", err.message);
    cr_assert_not(wire_conn_is_open(c), "a late reply would desynchronise the stream");
    finish(&p, c);
}
