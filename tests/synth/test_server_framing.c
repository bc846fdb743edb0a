/* Frame splitting (wire-protocol.md §5.4): the writer alone, then through
 * commands whose write sequences exercise each rule. */
#include "test_server_helpers.c"

#include "synth_server_int.h"

/* ---- the writer on a bare socketpair ---- */

static int W[2];
static synth_out O;

static void wsetup(void) {
    cr_assert(socketpair(AF_UNIX, SOCK_STREAM, 0, W) == 0);
    cr_assert(synth_out_init(&O, W[0], NULL) == 0);
}
static void wteardown(void) {
    synth_out_free(&O);
    close(W[0]);
    close(W[1]);
}

/* Reads one response from the peer end and compares its frames. */
static void expect_frames(const size_t *lens, const uint16_t *status, size_t n,
                          const uint8_t *data, size_t data_len) {
    tconn c = {.fd = W[1]};
    tresp r;
    tc_read_response(&c, &r);
    cr_assert_eq(r.frames, n, "frames: got %zu, want %zu", r.frames, n);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(r.frame_len[i], lens[i], "frame %zu length %zu, want %zu", i,
                     r.frame_len[i], lens[i]);
        cr_assert_eq(r.frame_status[i], status[i], "frame %zu status", i);
    }
    cr_assert_eq(r.body.n, data_len);
    cr_assert(data_len == 0 || memcmp(r.body.b, data, data_len) == 0, "body differs");
    tresp_free(&r);
}

static uint8_t *pattern(size_t n, unsigned seed) {
    uint8_t *b = malloc(n);
    cr_assert(b != NULL);
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(i * 7 + seed);
    return b;
}

TestSuite(writer, .init = wsetup, .fini = wteardown);

Test(writer, empty_response_is_one_empty_frame) {
    cr_assert(synth_finish(&O, SYNTH_OKAY));
    tconn c = {.fd = W[1]};
    tc_expect_hex(&c, "00 00 00 00 | 00 00");
}

Test(writer, error_status_on_the_final_frame) {
    synth_finish(&O, SYNTH_BAD_STACK);
    tconn c = {.fd = W[1]};
    tc_expect_hex(&c, "00 00 00 00 | 01 04");
}

Test(writer, small_writes_share_one_frame) {
    synth_w_u32be(&O, 0x01020304);
    synth_w_u16le(&O, 0x0506);
    synth_w_u64le(&O, 0x0708090a0b0c0d0e);
    synth_w_u8(&O, 0xff);
    synth_finish(&O, SYNTH_OKAY);
    tconn c = {.fd = W[1]};
    tc_expect_hex(&c, "00 00 00 0f | 00 00 | 01 02 03 04 | 06 05 | 0e 0d 0c 0b 0a 09 08 07 | ff");
}

Test(writer, long_write_flushes_empty_buffer_then_travels_alone) {
    uint8_t *d = pattern(2000, 1);
    synth_w(&O, d, 2000);
    synth_finish(&O, SYNTH_OKAY);
    size_t lens[] = {0, 2000, 0};
    uint16_t st[] = {1, 1, 0};
    expect_frames(lens, st, 3, d, 2000);
    free(d);
}

Test(writer, long_write_after_small_ones) {
    uint8_t *d = pattern(1025, 2);
    synth_w_u32be(&O, 1025);
    synth_w(&O, d, 1025);
    synth_w_u8(&O, 9);
    synth_finish(&O, SYNTH_OKAY);
    uint8_t *all = malloc(1030);
    hs_store_be32(all, 1025);
    memcpy(all + 4, d, 1025);
    all[1029] = 9;
    size_t lens[] = {4, 1025, 1};
    uint16_t st[] = {1, 1, 0};
    expect_frames(lens, st, 3, all, 1030);
    free(all);
    free(d);
}

Test(writer, two_long_writes_in_a_row) {
    uint8_t *a = pattern(2000, 3), *b = pattern(3000, 4);
    synth_w(&O, a, 2000);
    synth_w(&O, b, 3000);
    synth_finish(&O, SYNTH_OKAY);
    uint8_t *all = malloc(5000);
    memcpy(all, a, 2000);
    memcpy(all + 2000, b, 3000);
    size_t lens[] = {0, 2000, 0, 3000, 0};
    uint16_t st[] = {1, 1, 1, 1, 0};
    expect_frames(lens, st, 5, all, 5000);
    free(all);
    free(a);
    free(b);
}

Test(writer, write_of_exactly_1024_flushes_first_and_stays_buffered) {
    uint8_t *d = pattern(1024, 5);
    synth_w(&O, d, 1024);
    synth_finish(&O, SYNTH_OKAY);
    size_t lens[] = {0, 1024};
    uint16_t st[] = {1, 0};
    expect_frames(lens, st, 2, d, 1024);
    free(d);
}

Test(writer, buffer_reaching_1024_is_flushed_before_the_write) {
    uint8_t *d = pattern(1024, 6);
    synth_w(&O, d, 1000);
    synth_w(&O, d + 1000, 24); /* 1000 + 24 >= 1024 */
    synth_finish(&O, SYNTH_OKAY);
    size_t lens[] = {1000, 24};
    uint16_t st[] = {1, 0};
    expect_frames(lens, st, 2, d, 1024);
    free(d);
}

Test(writer, buffer_holds_1023_bytes) {
    uint8_t *d = pattern(1023, 7);
    synth_w(&O, d, 1000);
    synth_w(&O, d + 1000, 23);
    synth_finish(&O, SYNTH_OKAY);
    size_t lens[] = {1023};
    uint16_t st[] = {0};
    expect_frames(lens, st, 1, d, 1023);
    free(d);
}

Test(writer, single_bytes_make_1023_byte_frames) {
    uint8_t *d = pattern(3000, 8);
    for (size_t i = 0; i < 3000; i++)
        synth_w_u8(&O, d[i]);
    synth_finish(&O, SYNTH_OKAY);
    size_t lens[] = {1023, 1023, 954};
    uint16_t st[] = {1, 1, 0};
    expect_frames(lens, st, 3, d, 3000);
    free(d);
}

Test(writer, very_long_write_goes_straight_out) {
    size_t n = 100000; /* above the direct-send threshold */
    uint8_t *d = pattern(n, 9);
    synth_w_u32be(&O, (uint32_t)n);
    synth_w(&O, d, n);
    synth_finish(&O, SYNTH_OKAY);
    uint8_t *all = malloc(n + 4);
    hs_store_be32(all, (uint32_t)n);
    memcpy(all + 4, d, n);
    size_t lens[] = {4, n, 0};
    uint16_t st[] = {1, 1, 0};
    expect_frames(lens, st, 3, all, n + 4);
    free(all);
    free(d);
}

Test(writer, responses_follow_each_other) {
    synth_w_u8(&O, 1);
    synth_finish(&O, SYNTH_OKAY);
    synth_finish(&O, SYNTH_NOT_PAUSED);
    synth_w_u8(&O, 2);
    synth_finish(&O, SYNTH_OKAY);
    tconn c = {.fd = W[1]};
    tc_expect_hex(&c, "00 00 00 01 | 00 00 | 01");
    tc_expect_hex(&c, "00 00 00 00 | 01 02");
    tc_expect_hex(&c, "00 00 00 01 | 00 00 | 02");
}

Test(writer, dead_peer_fails_quietly) {
    close(W[1]);
    W[1] = -1;
    uint8_t *d = pattern(5000, 10);
    synth_w(&O, d, 5000);
    cr_assert(!synth_finish(&O, SYNTH_OKAY));
    synth_w(&O, d, 10); /* further writes are dropped, not crashes */
    cr_assert(!synth_finish(&O, SYNTH_OKAY));
    free(d);
}

/* ---- through commands ---- */

static synth_process P;
static synth_state ST;
static tconn C;

static void csetup(void) {
    tp_vectors(&P, false);
    synth_state_init(&ST, -1);
    ST.paused = true;
    tc_start(&C, &P, &ST);
}
static void cteardown(void) {
    tc_stop(&C);
    tp_free(&P);
}

TestSuite(cmd_frames, .init = csetup, .fini = cteardown);

Test(cmd_frames, roots_200_split_at_1016_bytes) {
    uint64_t roots[200];
    for (int i = 0; i < 200; i++)
        roots[i] = V_BLOCK + 8 * (uint64_t)i + (i & 7);
    tp_roots(&P, roots, 200);
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 04");
    tresp r;
    tc_read_response(&C, &r);
    /* 127 PTRs fill 1016 bytes; the 128th would reach 1024 */
    cr_assert_eq(r.frames, 2);
    cr_assert_eq(r.frame_len[0], 1016);
    cr_assert_eq(r.frame_status[0], 1);
    cr_assert_eq(r.frame_len[1], 584);
    cr_assert_eq(r.frame_status[1], 0);
    tbuf want = {0};
    tb_hex(&want, "00 00 03 f8 | 00 01");
    for (int i = 0; i < 127; i++)
        tb_le64(&want, roots[i]);
    tb_hex(&want, "00 00 02 48 | 00 00");
    for (int i = 127; i < 200; i++)
        tb_le64(&want, roots[i]); /* sent as stored, tags included */
    cr_assert_eq(r.raw.n, want.n);
    cr_assert(memcmp(r.raw.b, want.b, want.n) == 0);
    tb_free(&want);
    tresp_free(&r);
}

Test(cmd_frames, closure_longer_than_1024_travels_alone) {
    /* ARR_WORDS with 2000 payload bytes: 8 + 8 + 2000 = 2016 bytes */
    uint64_t info = 0x401028, a = V_BLOCK + 0x100;
    tp_itbl(&P, info, 0, 0, 42, 0);
    tp_put64(&P, a, info);
    tp_put64(&P, a + 8, 2000);
    tc_send_hex(&C, "00 00 00 0e | 00 00 00 05 | 00 01 | 00 51 10 00 42 00 00 00");
    tbuf want = {0};
    tb_hex(&want, "00 00 00 04 | 00 01 | 00 00 07 e0 | 00 00 07 e0 | 00 01");
    tb_bytes(&want, tp_at(&P, a, 2016), 2016);
    tb_hex(&want, "00 00 00 00 | 00 00");
    tresp r;
    tc_read_response(&C, &r);
    cr_assert_eq(r.raw.n, want.n);
    cr_assert(memcmp(r.raw.b, want.b, want.n) == 0);
    tb_free(&want);
    tresp_free(&r);
}

Test(cmd_frames, closures_zero_pointers_is_empty_okay) {
    tc_send_hex(&C, "00 00 00 06 | 00 00 00 05 | 00 00");
    tc_expect_hex(&C, "00 00 00 00 | 00 00");
}

Test(cmd_frames, closures_several_in_request_order) {
    uint64_t con1 = 0x401128; /* CONSTR_1_0 */
    tp_itbl(&P, con1, 1, 0, 2, 0);
    tp_put64(&P, V_BLOCK + 0x200, con1);
    tp_put64(&P, V_BLOCK + 0x208, 0x4200105a38);
    tc_send_hex(&C, "00 00 00 1e | 00 00 00 05 | 00 03 | 00 52 10 00 42 00 00 00 |"
                    "39 5a 10 00 42 00 00 00 | 00 52 10 00 42 00 00 00");
    tc_expect_hex(&C, "00 00 00 44 | 00 00 |"
                      "00 00 00 10 | 28 11 40 00 00 00 00 00 | 38 5a 10 00 42 00 00 00 |"
                      "00 00 00 18 | 28 8e 4f 00 00 00 00 00 | 51 5a 10 00 42 00 00 00 |"
                      "68 5a 10 00 42 00 00 00 |"
                      "00 00 00 10 | 28 11 40 00 00 00 00 00 | 38 5a 10 00 42 00 00 00");
}

Test(cmd_frames, long_constructor_description) {
    uint64_t con = 0x401228;
    char *desc = malloc(3001);
    memset(desc, 'A', 3000);
    memcpy(desc, "main:Main.", 10);
    desc[3000] = '\0';
    tp_itbl(&P, con, 0, 0, 1, 0);
    tp_con_desc(&P, con, 0x402000, desc);
    tc_send_hex(&C, "00 00 00 0c | 00 00 00 0b | 28 12 40 00 00 00 00 00");
    tbuf want = {0};
    tb_hex(&want, "00 00 00 04 | 00 01 | 00 00 0b b8 | 00 00 0b b8 | 00 01");
    tb_bytes(&want, desc, 3000);
    tb_hex(&want, "00 00 00 00 | 00 00");
    tresp r;
    tc_read_response(&C, &r);
    cr_assert_eq(r.raw.n, want.n);
    cr_assert(memcmp(r.raw.b, want.b, want.n) == 0);
    tb_free(&want);
    tresp_free(&r);
    free(desc);
}

Test(cmd_frames, source_info_long_file_name) {
    /* the file part of the position is its own write: > 1024 travels alone */
    static char pos[1200 + 16];
    memset(pos, 'f', 1200);
    strcpy(pos + 1200, ":1:2-3");
    tp_ipe(&P, 0x401328, "x_info", "15", "T", "", "M", pos);
    tc_send_hex(&C, "00 00 00 0c | 00 00 00 0c | 28 13 40 00 00 00 00 00");
    tbuf want = {0};
    tb_hex(&want, "00 00 00 26 | 00 01 | 00 00 00 06 |"
                  "00 00 00 06 | 78 5f 69 6e 66 6f | 00 00 00 02 | 31 35 |"
                  "00 00 00 01 | 54 | 00 00 00 00 | 00 00 00 01 | 4d |"
                  "00 00 04 b6"); /* 1200 + 1 + 5 */
    tb_hex(&want, "00 00 04 b0 | 00 01");
    tb_bytes(&want, pos, 1200);
    tb_hex(&want, "00 00 00 06 | 00 00 | 3a | 31 3a 32 2d 33");
    tresp r;
    tc_read_response(&C, &r);
    bool same = r.raw.n == want.n && memcmp(r.raw.b, want.b, want.n) == 0;
    cr_assert(same, "SOURCE_INFO frames differ (%zu vs %zu bytes)", r.raw.n, want.n);
    tb_free(&want);
    tresp_free(&r);
}
