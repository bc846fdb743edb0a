/* CLOSURES sizes by the RTS rules (heap-layout.md §11.1), blocks (§7.12,
 * §7.13), saved objects, and the profiling structures (§7.16 - §7.19). */
#include "test_server_helpers.c"

static synth_process P;
static synth_state ST;
static tconn C;

static void start(bool profiled) {
    tp_vectors(&P, profiled);
    synth_state_init(&ST, -1);
    ST.paused = true;
    tc_start(&C, &P, &ST);
}
static void setup(void) { start(false); }
static void setup_prof(void) { start(true); }
static void teardown(void) {
    tc_stop(&C);
    tp_free(&P);
}

/* ---- closure sizes ---- */

static uint64_t next_info = 0x410028, next_closure = T_MB2 + 0x10000;

/* A closure of the given type with its info table; returns its address.
 * words[] are written after the info pointer (header words included). */
static uint64_t closure(uint32_t type, uint32_t ptrs, uint32_t nptrs, const uint64_t *words,
                        size_t n) {
    uint64_t info = next_info, a = next_closure;
    next_info += 0x100;
    next_closure += 0x400;
    tp_itbl(&P, info, ptrs, nptrs, type, 0);
    tp_put64(&P, a, info);
    for (size_t i = 0; i < n; i++)
        tp_put64(&P, a + 8 + 8 * i, words[i]);
    /* recognisable filler after the fields */
    for (size_t i = n; i < 100; i++)
        tp_put64(&P, a + 8 + 8 * i, 0xf00d000000000000 | i);
    return a;
}

/* CLOSURES(a) must answer with exactly `words` words of memory. */
static void expect_size(uint64_t a, uint64_t words) {
    tbuf pl = {0}, want = {0};
    tb_be16(&pl, 1);
    tb_le64(&pl, a);
    tc_request(&C, 5, &pl);
    tb_be32(&want, (uint32_t)(4 + 8 * words));
    tb_be16(&want, 0);
    tb_be32(&want, (uint32_t)(8 * words));
    tb_bytes(&want, tp_at(&P, a, 8 * words), 8 * words);
    tresp r;
    tc_read_response(&C, &r);
    bool same = r.raw.n == want.n && memcmp(r.raw.b, want.b, want.n) == 0;
    cr_assert(same, "closure at 0x%llx: %zu response bytes, want %zu (%llu words)",
              (unsigned long long)a, r.raw.n, want.n, (unsigned long long)words);
    tresp_free(&r);
    tb_free(&pl);
    tb_free(&want);
}

TestSuite(sizes, .init = setup, .fini = teardown);

Test(sizes, thunks) {
    expect_size(closure(16, 1, 0, NULL, 0), 3); /* THUNK_1_0: pad + 1 */
    expect_size(closure(17, 0, 1, NULL, 0), 3); /* THUNK_0_1 */
    expect_size(closure(18, 2, 0, NULL, 0), 4); /* THUNK_2_0 */
    expect_size(closure(19, 1, 1, NULL, 0), 4);
    expect_size(closure(20, 0, 2, NULL, 0), 4);
    expect_size(closure(15, 2, 1, NULL, 0), 5); /* THUNK: 1 + 1 + 3 */
    expect_size(closure(22, 0, 0, NULL, 0), 3); /* THUNK_SELECTOR */
    expect_size(closure(21, 0, 0, NULL, 0), 1); /* THUNK_STATIC: no padding */
}

Test(sizes, constructors_and_functions) {
    expect_size(closure(1, 2, 3, NULL, 0), 6);
    expect_size(closure(2, 1, 0, NULL, 0), 2);
    expect_size(closure(3, 0, 1, NULL, 0), 2);
    expect_size(closure(4, 2, 0, NULL, 0), 3);
    expect_size(closure(5, 1, 1, NULL, 0), 3);
    expect_size(closure(6, 0, 2, NULL, 0), 3);
    expect_size(closure(7, 0, 0, NULL, 0), 1);
    expect_size(closure(8, 1, 1, NULL, 0), 3);
    expect_size(closure(9, 1, 0, NULL, 0), 2);
    expect_size(closure(10, 0, 1, NULL, 0), 2);
    expect_size(closure(11, 2, 0, NULL, 0), 3);
    expect_size(closure(12, 1, 1, NULL, 0), 3);
    expect_size(closure(13, 0, 2, NULL, 0), 3);
    expect_size(closure(14, 0, 0, NULL, 0), 1);
}

Test(sizes, applications) {
    uint64_t ap[] = {0, (uint64_t)3 << 32, 0}; /* pad; arity 0, n_args 3; fun */
    expect_size(closure(24, 0, 0, ap, 3), 1 + 3 + 3);
    uint64_t pap[] = {(uint64_t)2 << 32 | 1, 0}; /* arity 1, n_args 2; fun */
    expect_size(closure(25, 0, 0, pap, 2), 1 + 2 + 2);
    uint64_t aps[] = {0, 4, 0}; /* pad; size 4 words; fun */
    expect_size(closure(26, 0, 0, aps, 3), 1 + 3 + 4);
}

Test(sizes, indirections_and_fixed_layouts) {
    expect_size(closure(27, 1, 0, NULL, 0), 2);  /* IND */
    expect_size(closure(28, 1, 3, NULL, 0), 5);  /* IND_STATIC by its table */
    expect_size(closure(38, 1, 0, NULL, 0), 2);  /* BLACKHOLE */
    expect_size(closure(39, 3, 0, NULL, 0), 4);  /* MVAR_CLEAN */
    expect_size(closure(47, 1, 0, NULL, 0), 2);  /* MUT_VAR_CLEAN */
    expect_size(closure(41, 2, 1, NULL, 0), 4);  /* TVAR */
    expect_size(closure(49, 5, 0, NULL, 0), 6);  /* WEAK */
    expect_size(closure(37, 4, 0, NULL, 0), 5);  /* BLOCKING_QUEUE */
    expect_size(closure(50, 2, 2, NULL, 0), 5);  /* PRIM */
    expect_size(closure(51, 1, 0, NULL, 0), 2);  /* MUT_PRIM */
}

Test(sizes, arrays) {
    uint64_t bytes13[] = {13};
    expect_size(closure(42, 0, 0, bytes13, 1), 1 + 1 + 2); /* ARR_WORDS */
    uint64_t bytes0[] = {0};
    expect_size(closure(42, 0, 0, bytes0, 1), 2);
    uint64_t mut[] = {3, 4}; /* 3 elements + 1 card word */
    expect_size(closure(43, 0, 0, mut, 2), 1 + 2 + 4);
    expect_size(closure(46, 0, 0, mut, 2), 1 + 2 + 4);
    uint64_t small[] = {3};
    expect_size(closure(59, 0, 0, small, 1), 1 + 1 + 3);
    expect_size(closure(62, 0, 0, small, 1), 1 + 1 + 3);
}

Test(sizes, threads_stacks_bcos_trecs) {
    expect_size(closure(52, 0, 0, NULL, 0), 17); /* TSO, GHC 9.10 */
    P.ghc_major = 908;
    expect_size(closure(52, 0, 0, NULL, 0), 16);
    P.ghc_major = 904;
    expect_size(closure(52, 0, 0, NULL, 0), 15);
    P.ghc_major = 909;
    P.ghc_patch = 20240201; /* a 9.10 development snapshot */
    expect_size(closure(52, 0, 0, NULL, 0), 17);
    uint64_t stack[] = {10}; /* stack_size in words (u32) */
    expect_size(closure(53, 0, 0, stack, 1), 1 + 2 + 10);
    uint64_t bco[] = {0, 0, 0, (uint64_t)9 << 32 | 2}; /* arity 2, size 9 words */
    expect_size(closure(23, 0, 0, bco, 4), 9);
    expect_size(closure(54, 0, 0, NULL, 0), 1 + 2 + 64); /* TREC_CHUNK */
}

Test(sizes, absurd_size_fields_are_refused) {
    uint64_t huge[] = {UINT64_C(1) << 50};
    uint64_t a = closure(42, 0, 0, huge, 1);
    tbuf pl = {0};
    tb_be16(&pl, 1);
    tb_le64(&pl, a);
    tc_request(&C, 5, &pl);
    tc_expect_hex(&C, "00 00 00 00 | 01 00");
    tb_free(&pl);
}

TestSuite(sizes_prof, .init = setup_prof, .fini = teardown);

Test(sizes_prof, profiled_header_adds_two_words) {
    expect_size(closure(16, 1, 0, NULL, 0), 3 + 2);
    expect_size(closure(4, 2, 0, NULL, 0), 3 + 2);
    uint64_t ap[] = {0, 0, 0, (uint64_t)3 << 32, 0}; /* CCS, prof word, pad, n_args 3 */
    expect_size(closure(24, 0, 0, ap, 5), 3 + 3 + 3);
    uint64_t bytes[] = {0, 0, 16};
    expect_size(closure(42, 0, 0, bytes, 3), 3 + 1 + 2);
    expect_size(closure(52, 0, 0, NULL, 0), 20);
}

/* ---- saved objects ---- */

Test(sizes, saved_objects_are_untagged) {
    P.saved[0] = 0x4200105a39;
    P.saved[1] = 0x4200105a3d;
    P.n_saved = 2;
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 09");
    tc_expect_hex(&C, "00 00 00 10 | 00 00 | 38 5a 10 00 42 00 00 00 | 38 5a 10 00 42 00 00 00");
}

/* ---- blocks ---- */

#define LARGE_G (T_MB2 + 0x4000) /* 2 blocks, LARGE */
#define PINNED_G (T_MB2 + 0x7000) /* 1 block, PINNED | COMPACT-free flags */
#define COMPACT_A (T_MB2 + 0x9000) /* 3 blocks, COMPACT */
#define COMPACT_B (T_MB2 + 0xc000) /* 1 block, COMPACT */

static void blocks(void) {
    tp_group(&P, LARGE_G, 2, 0x0002);
    tp_group(&P, PINNED_G, 1, 0x0004);
    for (uint64_t a = T_MB2 + 0x4000; a < T_MB2 + 0xd000; a += 8)
        tp_put64(&P, a, a * 0x9e3779b97f4a7c15);
}

static uint64_t descr(uint64_t block) {
    return (block & ~(uint64_t)0xfffff) + (((block & 0xfffff) >> 12) << 6);
}

/* Appends the §7.13 frames of one RawBlock to want. */
static void want_block(tbuf *want, uint16_t flags, uint64_t start, uint32_t len) {
    tb_be32(want, 14);
    tb_be16(want, 1);
    uint8_t f[2];
    hs_store_le16(f, flags);
    tb_bytes(want, f, 2);
    tb_le64(want, start);
    tb_be32(want, len);
    tb_be32(want, len);
    tb_be16(want, 1);
    tb_bytes(want, tp_at(&P, start, len), len);
}

static void expect_raw(tbuf *want) {
    tresp r;
    tc_read_response(&C, &r);
    bool same = r.raw.n == want->n && memcmp(r.raw.b, want->b, want->n) == 0;
    cr_assert(same, "%zu response bytes, want %zu", r.raw.n, want->n);
    tresp_free(&r);
    tb_free(want);
}

static void ask_block(uint64_t addr) {
    tbuf pl = {0};
    tb_le64(&pl, addr);
    tc_request(&C, 15, &pl);
    tb_free(&pl);
}

Test(sizes, all_blocks_in_group_order) {
    blocks();
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 0e");
    tbuf want = {0};
    want_block(&want, 0, V_BLOCK, 4096);
    want_block(&want, 0x0002, LARGE_G, 8192);
    want_block(&want, 0x0004, PINNED_G, 4096);
    tb_hex(&want, "00 00 00 00 | 00 00");
    expect_raw(&want);
}

Test(sizes, all_blocks_of_an_empty_heap) {
    P.n_groups = 0;
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 0e");
    tc_expect_hex(&C, "00 00 00 00 | 00 00");
}

Test(sizes, all_blocks_with_a_broken_descriptor) {
    blocks();
    tp_put32(&P, descr(PINNED_G) + 48, 0); /* zero blocks */
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 0e");
    tc_expect_hex(&C, "00 00 00 00 | 01 00");
}

Test(sizes, block_inside_a_multi_block_group_is_the_whole_group) {
    blocks();
    ask_block(LARGE_G + 0x1804);
    tbuf want = {0};
    want_block(&want, 0x0002, LARGE_G, 8192);
    tb_hex(&want, "00 00 00 00 | 00 00");
    expect_raw(&want);
}

Test(sizes, block_flags_are_little_endian) {
    blocks();
    tp_group(&P, COMPACT_B, 1, 0x0204);
    ask_block(COMPACT_B + 0x10);
    tbuf want = {0};
    tb_hex(&want, "00 00 00 0e | 00 01 | 04 02");
    tb_le64(&want, COMPACT_B);
    tb_hex(&want, "00 00 10 00 | 00 00 10 00 | 00 01");
    tb_bytes(&want, tp_at(&P, COMPACT_B, 4096), 4096);
    tb_hex(&want, "00 00 00 00 | 00 00");
    expect_raw(&want);
}

Test(sizes, compact_block_goes_to_its_head) {
    blocks();
    tp_group(&P, COMPACT_A, 3, 0x0200);
    tp_group(&P, COMPACT_B, 1, 0x0200);
    /* without a link in the interior descriptor: the group found by address */
    ask_block(COMPACT_A + 0x1123);
    tbuf want = {0};
    want_block(&want, 0x0200, COMPACT_A, 3 * 4096);
    tb_hex(&want, "00 00 00 00 | 00 00");
    expect_raw(&want);
    /* an interior descriptor (blocks = 0) whose link names a head
     * descriptor is followed, as the RTS's objectGetCompactBlock does */
    tp_put64(&P, descr(COMPACT_A + 0x1000) + 16, descr(COMPACT_B));
    ask_block(COMPACT_A + 0x1123);
    want_block(&want, 0x0200, COMPACT_B, 4096);
    tb_hex(&want, "00 00 00 00 | 00 00");
    expect_raw(&want);
    /* the first block's descriptor has a block count: no redirection */
    ask_block(COMPACT_A + 0x10);
    want_block(&want, 0x0200, COMPACT_A, 3 * 4096);
    tb_hex(&want, "00 00 00 00 | 00 00");
    expect_raw(&want);
}

/* ---- profiling structures ---- */

#define CCS_AT (T_DATA + 0x1000)
#define CC_AT (T_DATA + 0x2000)
#define IT_AT (T_DATA + 0x3000)

static void cost_centres(void) {
    for (int i = 0; i < 12; i++)
        tp_put64(&P, CCS_AT + 8 * i, 0x0102030405060700 + (uint64_t)i);
    tp_put64(&P, CC_AT, 5);
    tp_puts(&P, 0x420000, "MAIN");
    tp_puts(&P, 0x420010, "Main");
    tp_puts(&P, 0x420020, "<built-in>");
    tp_put64(&P, CC_AT + 8, 0x420000);
    tp_put64(&P, CC_AT + 16, 0x420010);
    tp_put64(&P, CC_AT + 24, 0x420020);
    tp_put64(&P, CC_AT + 32, 0x1122334455667788);
    tp_put64(&P, CC_AT + 40, 2);
    tp_put64(&P, CC_AT + 48, 1);
    tp_put64(&P, CC_AT + 56, CC_AT + 0x40);
    tp_put64(&P, IT_AT, CC_AT);
    tp_put64(&P, IT_AT + 8, CCS_AT);
    tp_put64(&P, IT_AT + 16, 0);
    *tp_at(&P, IT_AT + 24, 1) = 1;
    P.ccs_main = CCS_AT;
}

static void ask_ptr(uint32_t cmd, uint64_t addr) {
    tbuf pl = {0};
    tb_le64(&pl, addr);
    tc_request(&C, cmd, &pl);
    tb_free(&pl);
}

Test(sizes_prof, ccs_is_twelve_words) {
    cost_centres();
    ask_ptr(18, CCS_AT);
    tbuf want = {0};
    tb_hex(&want, "00 00 00 60 | 00 00");
    for (int i = 0; i < 12; i++)
        tb_le64(&want, 0x0102030405060700 + (uint64_t)i);
    expect_raw(&want);
}

Test(sizes_prof, cc_write_sequence) {
    cost_centres();
    ask_ptr(19, CC_AT);
    tbuf want = {0};
    tb_hex(&want, "00 00 00 46 | 00 00 | 05 00 00 00 00 00 00 00 |"
                  "00 00 00 04 | 4d 41 49 4e | 00 00 00 04 | 4d 61 69 6e |"
                  "00 00 00 0a | 3c 62 75 69 6c 74 2d 69 6e 3e |"
                  "88 77 66 55 44 33 22 11 | 02 00 00 00 00 00 00 00 |"
                  "01 00 00 00 00 00 00 00");
    tb_le64(&want, CC_AT + 0x40);
    expect_raw(&want);
}

Test(sizes_prof, index_table_entry) {
    cost_centres();
    ask_ptr(20, IT_AT);
    tbuf want = {0};
    tb_hex(&want, "00 00 00 19 | 00 00");
    tb_le64(&want, CC_AT);
    tb_le64(&want, CCS_AT);
    tb_le64(&want, 0);
    tb_u8(&want, 1);
    expect_raw(&want);
}

Test(sizes_prof, ccs_main) {
    cost_centres();
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 15");
    tc_expect_hex(&C, "00 00 00 08 | 00 00 | 00 10 4c 00 00 00 00 00");
}

Test(sizes, profiling_only_commands_on_a_plain_rts) {
    cost_centres();
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 15");
    tc_expect_hex(&C, "00 00 00 00 | 01 00");
    ask_ptr(20, IT_AT);
    tc_expect_hex(&C, "00 00 00 00 | 01 00");
}
