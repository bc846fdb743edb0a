/* The server against the byte vectors of wire-protocol.md §12. */
#include "test_server_helpers.c"

static synth_process P;
static synth_state ST;
static tconn C;

static void start(bool profiled) {
    tp_vectors(&P, profiled);
    synth_state_init(&ST, -1);
    tc_start(&C, &P, &ST);
}
static void setup(void) { start(false); }
static void setup_prof(void) { start(true); }
static void teardown(void) {
    cr_assert_eq(tc_stop(&C), SYNTH_SERVE_CLOSED);
    tp_free(&P);
}

static void pause_ok(void) {
    tc_send_hex(&C, "00 00 00 05 | 00 00 00 02 | 00");
    tc_expect_hex(&C, "00 00 00 00 | 00 00");
}

/* criterion runs suite and test .init both: one suite per flavour */
TestSuite(vectors, .init = setup, .fini = teardown);
TestSuite(vectors_prof, .init = setup_prof, .fini = teardown);

Test(vectors, version_non_profiled) {
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 01");
    tc_expect_hex(&C, "00 00 00 0a | 00 00 | 00 00 03 8e | 00 00 00 01 | 00 | 01");
}

Test(vectors_prof, version_era_profiled) {
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 01");
    tc_expect_hex(&C, "00 00 00 0a | 00 00 | 00 00 03 8e | 00 00 00 01 | 04 | 01");
}

Test(vectors, pause_and_resume) {
    pause_ok();
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 03");
    tc_expect_hex(&C, "00 00 00 00 | 00 00");
}

Test(vectors, roots_two_pointers) {
    pause_ok();
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 04");
    tc_expect_hex(&C, "00 00 00 10 | 00 00 | 38 5a 10 00 42 00 00 00 | 10 7f 10 00 42 00 00 00");
}

Test(vectors, closures_constr_2_0) {
    pause_ok();
    tc_send_hex(&C, "00 00 00 0e | 00 00 00 05 | 00 01 | 38 5a 10 00 42 00 00 00");
    tc_expect_hex(&C, "00 00 00 1c | 00 00 | 00 00 00 18 |"
                      "28 8e 4f 00 00 00 00 00 | 51 5a 10 00 42 00 00 00 | 68 5a 10 00 42 00 00 00");
}

Test(vectors, closures_untags_the_request_pointer) {
    pause_ok();
    tc_send_hex(&C, "00 00 00 0e | 00 00 00 05 | 00 01 | 3a 5a 10 00 42 00 00 00");
    tc_expect_hex(&C, "00 00 00 1c | 00 00 | 00 00 00 18 |"
                      "28 8e 4f 00 00 00 00 00 | 51 5a 10 00 42 00 00 00 | 68 5a 10 00 42 00 00 00");
}

Test(vectors_prof, closures_profiled_header) {
    pause_ok();
    tc_send_hex(&C, "00 00 00 0e | 00 00 00 05 | 00 01 | 38 5a 10 00 42 00 00 00");
    /* H = 24: info, CCS word, profiling word, then the two fields */
    tc_expect_hex(&C, "00 00 00 2c | 00 00 | 00 00 00 28 |"
                      "28 8e 4f 00 00 00 00 00 | 00 00 00 00 00 00 00 00 |"
                      "00 00 00 00 00 00 00 00 |"
                      "51 5a 10 00 42 00 00 00 | 68 5a 10 00 42 00 00 00");
}

Test(vectors, info_tables) {
    pause_ok();
    tc_send_hex(&C, "00 00 00 0e | 00 00 00 06 | 00 01 | 28 8e 4f 00 00 00 00 00");
    tc_expect_hex(&C, "00 00 00 14 | 00 00 | 00 00 00 10 |"
                      "02 00 00 00 | 00 00 00 00 | 04 00 00 00 | 00 00 00 00");
}

Test(vectors_prof, info_tables_profiled_is_32_bytes) {
    pause_ok();
    tp_put64(&P, V_INFO - 32, 0x1111111111111111); /* closure-type string offset */
    tp_put64(&P, V_INFO - 24, 0x2222222222222222); /* closure-description offset */
    tc_send_hex(&C, "00 00 00 0e | 00 00 00 06 | 00 01 | 28 8e 4f 00 00 00 00 00");
    tc_expect_hex(&C, "00 00 00 24 | 00 00 | 00 00 00 20 |"
                      "11 11 11 11 11 11 11 11 | 22 22 22 22 22 22 22 22 |"
                      "02 00 00 00 | 00 00 00 00 | 04 00 00 00 | 00 00 00 00");
}

Test(vectors, srt_none_for_a_constructor) {
    pause_ok();
    tc_send_hex(&C, "00 00 00 0e | 00 00 00 11 | 00 01 | 28 8e 4f 00 00 00 00 00");
    tc_expect_hex(&C, "00 00 00 08 | 00 00 | 00 00 00 00 00 00 00 00");
}

Test(vectors, srt_of_a_thunk) {
    uint64_t thunk = 0x4f9128;
    tp_itbl(&P, thunk, 1, 0, 16, (int32_t)(0x4c7e60 - (int64_t)thunk)); /* THUNK_1_0 */
    pause_ok();
    tc_send_hex(&C, "00 00 00 0e | 00 00 00 11 | 00 01 | 28 91 4f 00 00 00 00 00");
    tc_expect_hex(&C, "00 00 00 08 | 00 00 | 60 7e 4c 00 00 00 00 00");
}

Test(vectors, srt_zero_offset_is_none) {
    tp_itbl(&P, 0x4f9128, 1, 0, 16, 0);
    pause_ok();
    tc_send_hex(&C, "00 00 00 0e | 00 00 00 11 | 00 01 | 28 91 4f 00 00 00 00 00");
    tc_expect_hex(&C, "00 00 00 08 | 00 00 | 00 00 00 00 00 00 00 00");
}

Test(vectors, source_info_found) {
    tc_send_hex(&C, "00 00 00 0c | 00 00 00 0c | 28 8e 4f 00 00 00 00 00");
    tc_expect_hex(&C, "00 00 00 4c | 00 00 |"
                      "00 00 00 06 |"
                      "00 00 00 0d | 73 61 74 5f 73 31 41 62 5f 69 6e 66 6f |"
                      "00 00 00 02 | 31 35 |"
                      "00 00 00 05 | 5b 49 6e 74 5d |"
                      "00 00 00 05 | 6c 65 61 6b 79 |"
                      "00 00 00 04 | 4d 61 69 6e |"
                      "00 00 00 13 | 61 70 70 2f 4d 61 69 6e 2e 68 73 3a 31 32 3a 35 2d 32 30");
}

Test(vectors, source_info_not_found) {
    tc_send_hex(&C, "00 00 00 0c | 00 00 00 0c | 28 91 4f 00 00 00 00 00");
    tc_expect_hex(&C, "00 00 00 04 | 00 00 | 00 00 00 00");
}

Test(vectors, source_info_position_without_colon) {
    tp_ipe(&P, 0x4f9128, "f_info", "8", "Int -> Int", "", "M", "nowhere");
    tc_send_hex(&C, "00 00 00 0c | 00 00 00 0c | 28 91 4f 00 00 00 00 00");
    tc_expect_hex(&C, "00 00 00 35 | 00 00 | 00 00 00 06 |"
                      "00 00 00 06 | 66 5f 69 6e 66 6f |"
                      "00 00 00 01 | 38 |"
                      "00 00 00 0a | 49 6e 74 20 2d 3e 20 49 6e 74 |"
                      "00 00 00 00 |"
                      "00 00 00 01 | 4d |"
                      "00 00 00 07 | 6e 6f 77 68 65 72 65");
}

Test(vectors, con_desc_dotted) {
    tc_send_hex(&C, "00 00 00 0c | 00 00 00 0b | 28 8e 4f 00 00 00 00 00");
    tc_expect_hex(&C, "00 00 00 12 | 00 00 | 00 00 00 0e |"
                      "6d 61 69 6e 3a 4d 61 69 6e 2e 4c 65 61 6b");
}

Test(vectors, con_desc_colon_form) {
    uint64_t con = 0x4f9228;
    tp_itbl(&P, con, 0, 0, 1, 1);
    tp_con_desc(&P, con, 0x4f8f00, "main:Main:Leak"); /* string before P: negative offset */
    tc_send_hex(&C, "00 00 00 0c | 00 00 00 0b | 28 92 4f 00 00 00 00 00");
    tc_expect_hex(&C, "00 00 00 12 | 00 00 | 00 00 00 0e |"
                      "6d 61 69 6e 3a 4d 61 69 6e 3a 4c 65 61 6b");
}

Test(vectors_prof, con_desc_profiled_offset_position) {
    /* profiled: the offset sits at P - 32 - 8 */
    tc_send_hex(&C, "00 00 00 0c | 00 00 00 0b | 28 8e 4f 00 00 00 00 00");
    tc_expect_hex(&C, "00 00 00 12 | 00 00 | 00 00 00 0e |"
                      "6d 61 69 6e 3a 4d 61 69 6e 2e 4c 65 61 6b");
}

/* §12.4: a 14-byte CONTINUES frame, the 4096 data bytes alone, empty OKAY. */
static void expect_block_vector(void) {
    tresp r;
    tc_read_response(&C, &r);
    tbuf want = {0};
    tb_hex(&want, "00 00 00 0e | 00 01 | 00 00 | 00 50 10 00 42 00 00 00 | 00 00 10 00 |"
                  "00 00 10 00 | 00 01");
    tb_bytes(&want, tp_at(&P, V_BLOCK, 4096), 4096);
    tb_hex(&want, "00 00 00 00 | 00 00");
    cr_assert_eq(r.frames, 3);
    cr_assert_eq(r.raw.n, want.n);
    cr_assert(memcmp(r.raw.b, want.b, want.n) == 0, "BLOCK bytes differ from §12.4");
    cr_assert_eq(r.body.n, 4110);
    tresp_free(&r);
    tb_free(&want);
}

Test(vectors, block_multi_frame) {
    tc_send_hex(&C, "00 00 00 0c | 00 00 00 0f | 38 5a 10 00 42 00 00 00");
    expect_block_vector();
}

Test(vectors, block_from_any_address_in_it) {
    tc_send_hex(&C, "00 00 00 0c | 00 00 00 0f | ff 5f 10 00 42 00 00 00");
    expect_block_vector();
}

Test(vectors, block_start_address) {
    tc_send_hex(&C, "00 00 00 0c | 00 00 00 0f | 00 50 10 00 42 00 00 00");
    expect_block_vector();
}

/* The session of §10.2 on one connection, then the leave. */
Test(vectors, session_shape) {
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 03"); /* the TUI resumes first */
    tc_expect_hex(&C, "00 00 00 00 | 01 02");
    pause_ok();
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 01");
    tc_expect_hex(&C, "00 00 00 0a | 00 00 | 00 00 03 8e | 00 00 00 01 | 00 | 01");
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 04");
    tc_expect_hex(&C, "00 00 00 10 | 00 00 | 38 5a 10 00 42 00 00 00 | 10 7f 10 00 42 00 00 00");
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 09");
    tc_expect_hex(&C, "00 00 00 00 | 00 00");
    tc_send_hex(&C, "00 00 00 0c | 00 00 00 0f | 38 5a 10 00 42 00 00 00");
    expect_block_vector();
    tc_send_hex(&C, "00 00 00 0e | 00 00 00 06 | 00 01 | 28 8e 4f 00 00 00 00 00");
    tc_expect_hex(&C, "00 00 00 14 | 00 00 | 00 00 00 10 |"
                      "02 00 00 00 | 00 00 00 00 | 04 00 00 00 | 00 00 00 00");
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 03");
    tc_expect_hex(&C, "00 00 00 00 | 00 00");
}
