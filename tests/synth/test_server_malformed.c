/* Malformed requests (wire-protocol.md §9, test-server guidance): each gets
 * an empty BAD_COMMAND frame and the connection keeps working. */
#include "test_server_helpers.c"

static synth_process P;
static synth_state ST;
static tconn C;

#define BAD "00 00 00 00 | 01 00"
#define VERSION_REQ "00 00 00 04 | 00 00 00 01"
#define VERSION_ANS "00 00 00 0a | 00 00 | 00 00 03 8e | 00 00 00 01 | 00 | 01"

static void setup(void) {
    tp_vectors(&P, false);
    synth_state_init(&ST, -1);
    ST.paused = true; /* so that address checks, not the pause, decide */
    tc_start(&C, &P, &ST);
}
static void teardown(void) {
    tc_stop(&C);
    tp_free(&P);
}

/* The answer is BAD_COMMAND and the next request is served normally. */
static void expect_bad_then_alive(const char *request) {
    tc_send_hex(&C, request);
    tc_expect_hex(&C, BAD);
    tc_send_hex(&C, VERSION_REQ);
    tc_expect_hex(&C, VERSION_ANS);
}

TestSuite(malformed, .init = setup, .fini = teardown);

Test(malformed, len_zero) { expect_bad_then_alive("00 00 00 00"); }

Test(malformed, len_below_four_skips_its_bytes) { expect_bad_then_alive("00 00 00 03 | 00 00 01"); }

Test(malformed, unknown_commands) {
    expect_bad_then_alive("00 00 00 04 | 00 00 00 00");
    expect_bad_then_alive("00 00 00 04 | 00 00 00 0a"); /* find-pointer, unimplemented */
    expect_bad_then_alive("00 00 00 04 | 00 00 00 0d");
    expect_bad_then_alive("00 00 00 04 | 00 00 00 16");
    expect_bad_then_alive("00 00 00 08 | ff ff ff ff | 01 02 03 04");
}

Test(malformed, short_payloads) {
    expect_bad_then_alive("00 00 00 04 | 00 00 00 02");                      /* PAUSE */
    expect_bad_then_alive("00 00 00 05 | 00 00 00 05 | 00");                 /* CLOSURES */
    expect_bad_then_alive("00 00 00 06 | 00 00 00 05 | 00 01");              /* no pointer */
    expect_bad_then_alive("00 00 00 0e | 00 00 00 05 | 00 02 | 38 5a 10 00 42 00 00 00");
    expect_bad_then_alive("00 00 00 0d | 00 00 00 06 | 00 01 | 28 8e 4f 00 00 00 00");
    expect_bad_then_alive("00 00 00 0c | 00 00 00 07 | 00 7f 20 00 42 00 00 00");
    expect_bad_then_alive("00 00 00 0d | 00 00 00 10 | 38 5a 10 00 42 00 00 00 | 00");
    expect_bad_then_alive("00 00 00 05 | 00 00 00 11 | 00");                 /* SRT */
    expect_bad_then_alive("00 00 00 08 | 00 00 00 0b | 28 8e 4f 00");        /* CON_DESC */
    expect_bad_then_alive("00 00 00 0b | 00 00 00 0c | 28 8e 4f 00 00 00 00"); /* SOURCE_INFO */
    expect_bad_then_alive("00 00 00 04 | 00 00 00 0f");                      /* BLOCK */
    expect_bad_then_alive("00 00 00 04 | 00 00 00 12");                      /* CCS */
    expect_bad_then_alive("00 00 00 04 | 00 00 00 13");                      /* CC */
    expect_bad_then_alive("00 00 00 04 | 00 00 00 14");                      /* INDEX_TABLE */
}

Test(malformed, extra_payload_is_ignored) {
    tc_send_hex(&C, "00 00 00 07 | 00 00 00 01 | aa bb cc");
    tc_expect_hex(&C, VERSION_ANS);
}

Test(malformed, unmapped_closure) {
    expect_bad_then_alive("00 00 00 0e | 00 00 00 05 | 00 01 | 10 00 00 00 00 00 00 00");
    expect_bad_then_alive("00 00 00 0e | 00 00 00 05 | 00 01 | 00 00 00 00 00 00 00 00");
    /* mapped closure whose info pointer leads nowhere */
    tp_put64(&P, V_BLOCK + 0x900, 0x1234567);
    expect_bad_then_alive("00 00 00 0e | 00 00 00 05 | 00 01 | 00 59 10 00 42 00 00 00");
    /* closure running off the end of its region */
    tp_put64(&P, T_MB2 + SYNTH_MBLOCK_SIZE - 8, V_INFO);
    expect_bad_then_alive("00 00 00 0e | 00 00 00 05 | 00 01 | f8 ff 2f 00 42 00 00 00");
}

Test(malformed, one_bad_pointer_spoils_the_whole_request) {
    /* errors are checked before anything is written: no partial body */
    expect_bad_then_alive("00 00 00 16 | 00 00 00 05 | 00 02 | 38 5a 10 00 42 00 00 00 |"
                          "08 00 00 00 00 00 00 00");
    expect_bad_then_alive("00 00 00 16 | 00 00 00 06 | 00 02 | 28 8e 4f 00 00 00 00 00 |"
                          "08 00 00 00 00 00 00 00");
    expect_bad_then_alive("00 00 00 16 | 00 00 00 11 | 00 02 | 28 8e 4f 00 00 00 00 00 |"
                          "00 00 00 00 00 00 00 00");
}

Test(malformed, unmapped_info_tables) {
    expect_bad_then_alive("00 00 00 0e | 00 00 00 06 | 00 01 | 08 00 00 00 00 00 00 00");
    expect_bad_then_alive("00 00 00 0e | 00 00 00 06 | 00 01 | 00 ff ff ff ff ff ff ff");
    expect_bad_then_alive("00 00 00 0e | 00 00 00 11 | 00 01 | 08 00 00 00 00 00 00 00");
}

Test(malformed, con_desc_of_a_non_constructor_or_nowhere) {
    tp_itbl(&P, 0x401028, 1, 0, 16, 0); /* THUNK_1_0 */
    expect_bad_then_alive("00 00 00 0c | 00 00 00 0b | 28 10 40 00 00 00 00 00");
    expect_bad_then_alive("00 00 00 0c | 00 00 00 0b | 00 00 00 00 00 00 00 00");
    /* a constructor whose description offset points outside memory */
    tp_itbl(&P, 0x401128, 0, 0, 1, 0);
    tp_put32(&P, 0x401128 - 24, 0x7ffffff0);
    expect_bad_then_alive("00 00 00 0c | 00 00 00 0b | 28 11 40 00 00 00 00 00");
    /* an unterminated description running to the end of the text region */
    tp_itbl(&P, 0x401228, 0, 0, 1, 0);
    tp_put32(&P, 0x401228 - 24, (uint32_t)(T_DATA - 16 - 0x401228));
    memset(tp_at(&P, T_DATA - 16, 16), 'x', 16);
    expect_bad_then_alive("00 00 00 0c | 00 00 00 0b | 28 12 40 00 00 00 00 00");
}

Test(malformed, source_info_of_nowhere_is_not_found) {
    tc_send_hex(&C, "00 00 00 0c | 00 00 00 0c | 00 00 00 00 00 00 00 00");
    tc_expect_hex(&C, "00 00 00 04 | 00 00 | 00 00 00 00");
}

Test(malformed, blocks_that_do_not_exist) {
    expect_bad_then_alive("00 00 00 0c | 00 00 00 0f | 00 00 00 00 42 00 00 00");
    expect_bad_then_alive("00 00 00 0c | 00 00 00 0f | 00 00 00 00 00 00 00 00");
    expect_bad_then_alive("00 00 00 0c | 00 00 00 0f | 00 60 10 00 42 00 00 00");
    expect_bad_then_alive("00 00 00 0c | 00 00 00 0f | ff ff ff ff ff ff ff ff");
}

Test(malformed, stack_bitmap_nowhere) {
    expect_bad_then_alive("00 00 00 10 | 00 00 00 07 | 00 00 00 00 00 00 00 00 | 00 00 00 00");
    expect_bad_then_alive("00 00 00 10 | 00 00 00 07 | f0 ff ff ff ff ff ff ff | 00 00 00 20");
    /* a frame whose info pointer has no table */
    tp_put64(&P, V_BLOCK + 0x900, 0x99);
    expect_bad_then_alive("00 00 00 10 | 00 00 00 07 | 00 59 10 00 42 00 00 00 | 00 00 00 00");
}

Test(malformed, fun_bitmap_nowhere_or_not_a_function) {
    expect_bad_then_alive("00 00 00 0e | 00 00 00 10 | 00 00 00 00 00 00 00 00 | 00 03");
    /* the §12 closure is a constructor */
    expect_bad_then_alive("00 00 00 0e | 00 00 00 10 | 38 5a 10 00 42 00 00 00 | 00 03");
}

Test(malformed, cost_centres_nowhere) {
    expect_bad_then_alive("00 00 00 0c | 00 00 00 12 | 08 00 00 00 00 00 00 00");
    expect_bad_then_alive("00 00 00 0c | 00 00 00 13 | 08 00 00 00 00 00 00 00");
    /* a CostCentre whose label pointer leads nowhere */
    tp_put64(&P, T_DATA + 0x100, 1);
    tp_put64(&P, T_DATA + 0x108, 0x10);
    expect_bad_then_alive("00 00 00 0c | 00 00 00 13 | 00 01 4c 00 00 00 00 00");
}

Test(malformed, pipelined_requests_are_all_answered) {
    tc_send_hex(&C, VERSION_REQ "| 00 00 00 00 |" VERSION_REQ);
    tc_expect_hex(&C, VERSION_ANS);
    tc_expect_hex(&C, BAD);
    tc_expect_hex(&C, VERSION_ANS);
}

Test(malformed, request_dribbled_byte_by_byte) {
    tbuf t = {0};
    tb_hex(&t, "00 00 00 0e | 00 00 00 06 | 00 01 | 28 8e 4f 00 00 00 00 00");
    for (size_t i = 0; i < t.n; i++)
        tc_send(&C, t.b + i, 1);
    tb_free(&t);
    tc_expect_hex(&C, "00 00 00 14 | 00 00 | 00 00 00 10 |"
                      "02 00 00 00 | 00 00 00 00 | 04 00 00 00 | 00 00 00 00");
}

Test(malformed, largest_legal_request) {
    /* CLOSURES with 65535 pointers: LEN = 4 + 2 + 524280 */
    tbuf pl = {0};
    tb_be16(&pl, 65535);
    for (int i = 0; i < 65535; i++)
        tb_le64(&pl, V_CLOSURE | (uint64_t)(i & 7));
    tc_request(&C, 5, &pl);
    tresp r;
    tc_read_response(&C, &r);
    cr_assert_eq(r.status, 0);
    cr_assert_eq(r.body.n, (size_t)65535 * 28);
    tbuf one = {0};
    tb_hex(&one, "00 00 00 18 | 28 8e 4f 00 00 00 00 00 | 51 5a 10 00 42 00 00 00 |"
                 "68 5a 10 00 42 00 00 00");
    for (size_t i = 0; i < 65535; i++)
        cr_assert(memcmp(r.body.b + 28 * i, one.b, 28) == 0, "closure %zu differs", i);
    tresp_free(&r);
    tb_free(&one);
    tb_free(&pl);
    tc_send_hex(&C, VERSION_REQ);
    tc_expect_hex(&C, VERSION_ANS);
}

Test(malformed, absurd_length_closes_the_connection) {
    tc_send_hex(&C, "7f ff ff ff | 00 00 00 01");
    tc_expect_hex(&C, BAD);
    tc_expect_eof(&C);
}

Test(malformed, length_just_over_the_cap) {
    tbuf t = {0};
    tb_be32(&t, SYNTH_MAX_REQUEST + 1);
    tc_send(&C, t.b, t.n);
    tb_free(&t);
    tc_expect_hex(&C, BAD);
    tc_expect_eof(&C);
}

/* Own connections: how the connection ends matters. */
Test(malformed_end, eof_mid_request_drops_it) {
    synth_process p;
    synth_state st;
    tconn c;
    tp_vectors(&p, false);
    synth_state_init(&st, -1);
    tc_start(&c, &p, &st);
    tc_send_hex(&c, "00 00 00 0e | 00 00 00 05 | 00");
    cr_assert_eq(tc_stop(&c), SYNTH_SERVE_CLOSED);
    tp_free(&p);
}
