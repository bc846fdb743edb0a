/* STACK_BITMAP (heap-layout.md §8.3) and FUN_BITMAP (§9). */
#include "test_server_helpers.c"

static synth_process P;
static synth_state ST;
static tconn C;

#define SP UINT64_C(0x4200207f00)
#define FUN_SMALL UINT64_C(0x401528) /* FUN, fun_type 0, args N P P */
#define FUN_LARGE UINT64_C(0x401728) /* FUN, fun_type 1, 100 args */
#define FUN_CANNED UINT64_C(0x401828) /* FUN_2_0, canned pattern (set per test) */
#define FUN_CLOSURE UINT64_C(0x4200105a38)
#define LARGE_FUN_CLOSURE UINT64_C(0x4200105b00)
#define CANNED_CLOSURE UINT64_C(0x4200105c00)

/* Wire entries of the 100-argument function: every 4th is a non-pointer. */
static uint8_t large_fun_entry(size_t i) { return i % 4 == 0 ? 0 : 1; }

static void build(bool profiled) {
    tp_vectors(&P, profiled);
    tp_group(&P, T_MB2 + 0x7000, 1, 0); /* the stack block */
    tp_itbl_layout(&P, 0x401028, 0xc3, 30, 0); /* RET_SMALL, N N P */
    tp_itbl_layout(&P, FUN_SMALL, 0, 8, 0);
    tp_fun_extra(&P, FUN_SMALL, (0x1 << 6) | 3, 0, 3);
    tp_itbl_layout(&P, FUN_LARGE, 0, 8, 0);
    tp_fun_extra(&P, FUN_LARGE, 0x404000 - FUN_LARGE, 1, 100);
    uint8_t e[100];
    for (size_t i = 0; i < 100; i++)
        e[i] = large_fun_entry(i);
    tp_large_bitmap(&P, 0x404000, e, 100);
    tp_itbl(&P, FUN_CANNED, 2, 0, 11, 0);
    tp_put64(&P, FUN_CLOSURE, FUN_SMALL);
    tp_put64(&P, LARGE_FUN_CLOSURE, FUN_LARGE);
    tp_put64(&P, CANNED_CLOSURE, FUN_CANNED);
    synth_state_init(&ST, -1);
    tc_start(&C, &P, &ST);
}
static void setup(void) { build(false); }
static void setup_prof(void) { build(true); }
static void teardown(void) {
    tc_stop(&C);
    tp_free(&P);
}

/* STACK_BITMAP request for the frame at SP + off. */
static void ask_stack(uint32_t off) {
    tbuf pl = {0};
    tb_le64(&pl, SP);
    tb_be32(&pl, off);
    tc_request(&C, 7, &pl);
    tb_free(&pl);
}

static void ask_fun(uint64_t fun, uint16_t n) {
    tbuf pl = {0};
    tb_le64(&pl, fun);
    tb_be16(&pl, n);
    tc_request(&C, 16, &pl);
    tb_free(&pl);
}

/* One response must be u32 n + the n entries, split as single-byte writes. */
static void expect_entries(const uint8_t *e, size_t n) {
    tresp r;
    tc_read_response(&C, &r);
    cr_assert_eq(r.status, 0);
    cr_assert_eq(r.body.n, 4 + n);
    cr_assert_eq(hs_load_be32(r.body.b), n);
    cr_assert(n == 0 || memcmp(r.body.b + 4, e, n) == 0, "bitmap entries differ");
    size_t total = 4 + n, frames = (total + 1022) / 1023; /* B flushes at 1023 */
    cr_assert_eq(r.frames, frames, "%zu frames for %zu bytes", r.frames, total);
    tresp_free(&r);
}

TestSuite(stack, .init = setup, .fini = teardown);

Test(stack, ret_small_vector_of_12_2) {
    tp_put64(&P, SP + 0x18, 0x401028);
    tc_send_hex(&C, "00 00 00 10 | 00 00 00 07 | 00 7f 20 00 42 00 00 00 | 00 00 00 18");
    tc_expect_hex(&C, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 00 01");
}

Test(stack, layout_word_examples_of_8_3) {
    tp_itbl_layout(&P, 0x401128, 0x41, 30, 0);
    tp_itbl_layout(&P, 0x401138, 0x01, 30, 0);
    tp_put64(&P, SP, 0x401128);
    tp_put64(&P, SP + 8, 0x401138);
    ask_stack(0);
    tc_expect_hex(&C, "00 00 00 05 | 00 00 | 00 00 00 01 | 00");
    ask_stack(8);
    tc_expect_hex(&C, "00 00 00 05 | 00 00 | 00 00 00 01 | 01");
}

Test(stack, rts_frames_with_small_layouts) {
    tp_itbl_layout(&P, 0x401628, 0x01, 33, 0);   /* UPDATE_FRAME: the updatee */
    tp_itbl_layout(&P, 0x401638, 0x42, 34, 0);   /* CATCH_FRAME: N, handler P */
    tp_itbl_layout(&P, 0x401648, 0x00, 36, 0);   /* STOP_FRAME: nothing */
    tp_itbl_layout(&P, 0x401658, 0x01, 35, 0);   /* UNDERFLOW_FRAME: next chunk */
    tp_itbl_layout(&P, 0x401668, 0x1c3, 55, 0);  /* ATOMICALLY_FRAME: N N N... */
    tp_itbl_layout(&P, 0x401678, 0x3ffff, 57, 0); /* CATCH_STM_FRAME, n = 63 */
    uint64_t infos[] = {0x401628, 0x401638, 0x401648, 0x401658, 0x401668, 0x401678};
    for (size_t i = 0; i < 6; i++)
        tp_put64(&P, SP + 8 * i, infos[i]);
    ask_stack(0);
    tc_expect_hex(&C, "00 00 00 05 | 00 00 | 00 00 00 01 | 01");
    ask_stack(8);
    tc_expect_hex(&C, "00 00 00 06 | 00 00 | 00 00 00 02 | 00 01");
    ask_stack(16);
    tc_expect_hex(&C, "00 00 00 04 | 00 00 | 00 00 00 00");
    ask_stack(24);
    tc_expect_hex(&C, "00 00 00 05 | 00 00 | 00 00 00 01 | 01");
    ask_stack(32); /* 0x1c3: n = 3, bits 0b111 */
    tc_expect_hex(&C, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 00 00");
    ask_stack(40); /* 0x3ffff: n = 63, bits 0-11 set, the rest pointers */
    uint8_t e[63];
    for (size_t i = 0; i < 63; i++)
        e[i] = i < 12 ? 0 : 1;
    expect_entries(e, 63);
}

Test(stack, ret_big_with_70_entries) {
    uint8_t e[70];
    for (size_t i = 0; i < 70; i++)
        e[i] = i % 3 == 0;
    tp_large_bitmap(&P, 0x402000, e, 70);
    tp_itbl_layout(&P, 0x401228, 0x402000 - 0x401228, 31, 0);
    tp_put64(&P, SP + 0x40, 0x401228);
    ask_stack(0x40);
    tbuf want = {0};
    tb_hex(&want, "00 00 00 4a | 00 00 | 00 00 00 46");
    tb_bytes(&want, e, 70);
    tresp r;
    tc_read_response(&C, &r);
    cr_assert_eq(r.raw.n, want.n);
    cr_assert(memcmp(r.raw.b, want.b, want.n) == 0);
    tresp_free(&r);
    tb_free(&want);
}

Test(stack, ret_big_bitmap_before_the_table) {
    /* a negative offset: the bitmap sits below the info table */
    uint8_t e[65];
    for (size_t i = 0; i < 65; i++)
        e[i] = i == 64;
    tp_large_bitmap(&P, 0x400800, e, 65);
    tp_itbl_layout(&P, 0x401228, (uint64_t)(int64_t)(0x400800 - 0x401228), 31, 0);
    tp_put64(&P, SP, 0x401228);
    ask_stack(0);
    expect_entries(e, 65);
}

Test(stack, ret_big_with_2000_entries_spans_frames) {
    static uint8_t e[2000];
    for (size_t i = 0; i < 2000; i++)
        e[i] = i % 5 == 1;
    tp_large_bitmap(&P, 0x403000, e, 2000);
    tp_itbl_layout(&P, 0x401328, 0x403000 - 0x401328, 31, 0);
    tp_put64(&P, SP, 0x401328);
    ask_stack(0);
    tresp r;
    tc_read_response(&C, &r);
    cr_assert_eq(r.frames, 2);
    cr_assert_eq(r.frame_len[0], 1023);
    cr_assert_eq(r.frame_status[0], 1);
    cr_assert_eq(r.frame_len[1], 981);
    cr_assert_eq(r.frame_status[1], 0);
    cr_assert_eq(hs_load_be32(r.body.b), 2000);
    cr_assert(memcmp(r.body.b + 4, e, 2000) == 0);
    tresp_free(&r);
}

Test(stack, ret_fun_uses_the_function_bitmap) {
    tp_itbl_layout(&P, 0x401428, 0, 32, 0);
    tp_put64(&P, SP + 0x20, 0x401428);
    tp_put64(&P, SP + 0x28, 3);               /* size: 3 argument words */
    tp_put64(&P, SP + 0x30, FUN_CLOSURE + 3); /* tagged function */
    ask_stack(0x20);
    tc_expect_hex(&C, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 01 01");
}

Test(stack, ret_fun_with_a_large_function_bitmap) {
    tp_itbl_layout(&P, 0x401428, 0, 32, 0);
    tp_put64(&P, SP, 0x401428);
    tp_put64(&P, SP + 8, 100);
    tp_put64(&P, SP + 16, LARGE_FUN_CLOSURE);
    ask_stack(0);
    uint8_t e[100];
    for (size_t i = 0; i < 100; i++)
        e[i] = large_fun_entry(i);
    expect_entries(e, 100);
}

Test(stack, ret_fun_whose_function_is_not_one) {
    tp_itbl_layout(&P, 0x401428, 0, 32, 0);
    tp_put64(&P, SP, 0x401428);
    tp_put64(&P, SP + 8, 2);
    tp_put64(&P, V_BLOCK + 0x300, V_INFO); /* a constructor */
    tp_put64(&P, SP + 16, V_BLOCK + 0x300);
    ask_stack(0);
    tc_expect_hex(&C, "00 00 00 00 | 01 00");
}

/* ANN_FRAME (65, GHC 9.14: header, annotation) has a small layout; an
 * older GHC has no such frame type. */
Test(stack, ann_frame_by_version) {
    tp_itbl_layout(&P, 0x401b28, 0x01, 65, 0);
    tp_put64(&P, SP, 0x401b28);
    P.ghc_major = 914;
    ask_stack(0);
    tc_expect_hex(&C, "00 00 00 05 | 00 00 | 00 00 00 01 | 01");
    P.ghc_major = 912;
    ask_stack(0);
    tc_expect_hex(&C, "00 00 00 00 | 01 04");
}

Test(stack, unsupported_frame_types_are_bad_stack) {
    tp_itbl_layout(&P, 0x401928, 0, 29, 0); /* RET_BCO */
    tp_put64(&P, SP, 0x401928);
    tp_put64(&P, SP + 8, V_INFO); /* CONSTR_2_0: not a frame */
    tp_itbl(&P, 0x401a28, 1, 0, 16, 0); /* THUNK_1_0 */
    tp_put64(&P, SP + 16, 0x401a28);
    ask_stack(0);
    tc_expect_hex(&C, "00 00 00 00 | 01 04");
    ask_stack(8);
    tc_expect_hex(&C, "00 00 00 00 | 01 04");
    ask_stack(16);
    tc_expect_hex(&C, "00 00 00 00 | 01 04");
    /* the connection is fine afterwards */
    tp_put64(&P, SP + 24, 0x401028);
    ask_stack(24);
    tc_expect_hex(&C, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 00 01");
}

Test(stack, ret_big_with_a_corrupt_bit_count) {
    tp_put64(&P, 0x402000, UINT64_C(1) << 40);
    tp_itbl_layout(&P, 0x401228, 0x402000 - 0x401228, 31, 0);
    tp_put64(&P, SP, 0x401228);
    ask_stack(0);
    tc_expect_hex(&C, "00 00 00 00 | 01 00");
}

TestSuite(fun, .init = setup, .fini = teardown);

Test(fun, small_bitmap_vector_request) {
    tc_send_hex(&C, "00 00 00 0e | 00 00 00 10 | 38 5a 10 00 42 00 00 00 | 00 03");
    tc_expect_hex(&C, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 01 01");
}

Test(fun, tagged_function_pointer) {
    ask_fun(FUN_CLOSURE + 2, 3);
    tc_expect_hex(&C, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 01 01");
}

Test(fun, exactly_n_entries) {
    ask_fun(FUN_CLOSURE, 0);
    tc_expect_hex(&C, "00 00 00 04 | 00 00 | 00 00 00 00");
    ask_fun(FUN_CLOSURE, 1);
    tc_expect_hex(&C, "00 00 00 05 | 00 00 | 00 00 00 01 | 00");
    ask_fun(FUN_CLOSURE, 5); /* past the bitmap's size: zero bits, pointers */
    tc_expect_hex(&C, "00 00 00 09 | 00 00 | 00 00 00 05 | 00 01 01 01 01");
}

Test(fun, large_bitmap) {
    ask_fun(LARGE_FUN_CLOSURE, 100);
    uint8_t e[100];
    for (size_t i = 0; i < 100; i++)
        e[i] = large_fun_entry(i);
    expect_entries(e, 100);
}

Test(fun, large_bitmap_asked_past_its_end) {
    ask_fun(LARGE_FUN_CLOSURE, 130);
    uint8_t e[130];
    for (size_t i = 0; i < 130; i++)
        e[i] = i < 100 ? large_fun_entry(i) : 1;
    expect_entries(e, 130);
}

static void canned(uint32_t fun_type, uint16_t n, const char *want) {
    tp_fun_extra(&P, FUN_CANNED, 0, fun_type, n);
    ask_fun(CANNED_CLOSURE, n);
    tc_expect_hex(&C, want);
}

Test(fun, canned_patterns) {
    canned(3, 2, "00 00 00 06 | 00 00 | 00 00 00 02 | 01 01");       /* none */
    canned(4, 1, "00 00 00 05 | 00 00 | 00 00 00 01 | 00");          /* N */
    canned(5, 1, "00 00 00 05 | 00 00 | 00 00 00 01 | 01");          /* P */
    canned(6, 1, "00 00 00 05 | 00 00 | 00 00 00 01 | 00");          /* F */
    canned(7, 1, "00 00 00 05 | 00 00 | 00 00 00 01 | 00");          /* D */
    canned(8, 1, "00 00 00 05 | 00 00 | 00 00 00 01 | 00");          /* L */
    canned(9, 3, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 00 01");    /* V16 */
    canned(10, 5, "00 00 00 09 | 00 00 | 00 00 00 05 | 00 00 00 00 01"); /* V32 */
    canned(11, 9, "00 00 00 0d | 00 00 | 00 00 00 09 | 00 00 00 00 00 00 00 00 01"); /* V64 */
    canned(12, 2, "00 00 00 06 | 00 00 | 00 00 00 02 | 00 00");      /* NN */
    canned(13, 3, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 01 01");   /* NP */
    canned(14, 2, "00 00 00 06 | 00 00 | 00 00 00 02 | 01 00");      /* PN */
    canned(15, 2, "00 00 00 06 | 00 00 | 00 00 00 02 | 01 01");      /* PP */
    canned(16, 3, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 00 00");   /* NNN */
    canned(17, 3, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 00 01");   /* NNP */
    canned(18, 3, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 01 00");   /* NPN */
    canned(19, 3, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 01 01");   /* NPP */
    canned(20, 3, "00 00 00 07 | 00 00 | 00 00 00 03 | 01 00 00");   /* PNN */
    canned(21, 3, "00 00 00 07 | 00 00 | 00 00 00 03 | 01 00 01");   /* PNP */
    canned(22, 3, "00 00 00 07 | 00 00 | 00 00 00 03 | 01 01 00");   /* PPN */
    canned(23, 3, "00 00 00 07 | 00 00 | 00 00 00 03 | 01 01 01");   /* PPP */
    canned(24, 4, "00 00 00 08 | 00 00 | 00 00 00 04 | 01 01 01 01");
    canned(28, 8, "00 00 00 0c | 00 00 | 00 00 00 08 | 01 01 01 01 01 01 01 01");
}

Test(fun, unknown_pattern_is_refused) {
    canned(29, 1, "00 00 00 00 | 01 00");
    canned(0xffffffff, 1, "00 00 00 00 | 01 00");
}

TestSuite(fun_prof, .init = setup_prof, .fini = teardown);

Test(fun_prof, extras_sit_before_the_32_byte_table) {
    ask_fun(FUN_CLOSURE, 3);
    tc_expect_hex(&C, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 01 01");
    ask_fun(LARGE_FUN_CLOSURE, 100);
    uint8_t e[100];
    for (size_t i = 0; i < 100; i++)
        e[i] = large_fun_entry(i);
    expect_entries(e, 100);
}

Test(fun_prof, profiled_update_frame) {
    /* profiled RTS frames cover their two profiling words as non-pointers */
    tp_itbl_layout(&P, 0x401628, (0x3 << 6) | 3, 33, 0);
    tp_put64(&P, SP, 0x401628);
    ask_stack(0);
    tc_expect_hex(&C, "00 00 00 07 | 00 00 | 00 00 00 03 | 00 00 01");
}
