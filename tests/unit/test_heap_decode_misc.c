/* Decoding of the RTS objects: TSO layouts by version (heap-layout.md §7),
 * MVAR, MUT_VAR, TVAR, WEAK, BLOCKING_QUEUE, ARR_WORDS, pointer arrays,
 * TREC_CHUNK and BCO (§6.8-§6.17). */
#include "heap_test.h"
#include "heapscope/query.h"

#define I_TSO UINT64_C(0x410000)
#define I_MVAR UINT64_C(0x410100)
#define I_MUTVAR UINT64_C(0x410200)
#define I_TVAR UINT64_C(0x410300)
#define I_WEAK UINT64_C(0x410400)
#define I_BQ UINT64_C(0x410500)
#define I_ARRW UINT64_C(0x410600)
#define I_MARR UINT64_C(0x410700)
#define I_SMARR UINT64_C(0x410800)
#define I_TREC UINT64_C(0x410900)
#define I_BCO UINT64_C(0x410a00)

/* ---- TSO ------------------------------------------------------------- */

/* Offsets from H, typed from the table of heap-layout.md §7. */
typedef struct tso_offsets {
    unsigned why, trec, label, bex, bq, id, alloc, tot, size;
    bool wide;
} tso_offsets;

static const tso_offsets layout_a = {26, 72, 0, 80, 88, 40, 96, 104, 108, false};
static const tso_offsets layout_b = {26, 72, 80, 88, 96, 40, 104, 112, 116, false};
static const tso_offsets layout_c = {32, 80, 88, 96, 104, 48, 112, 120, 124, true};

static void tso(bool prof, uint32_t major, uint32_t patch, const tso_offsets *o, bool label) {
    ht t;
    ht_init_version(&t, prof, major, patch);
    fake_info(t.f, I_TSO, HS_TSO, 0, 0);
    uint64_t a = BLK + 0x100, p = ht_hdr(&t, a, I_TSO);
    /* fill everything with junk first: only the right offsets may matter */
    for (unsigned k = 0; k < 136; k += 8)
        fake_w64(t.f, p + k, UINT64_C(0x5a5a5a5a5a5a5a5a));
    fake_w64(t.f, p, BLK + 0x1000 + 1);      /* link */
    fake_w64(t.f, p + 8, BLK + 0x1100 + 1);  /* global link */
    fake_w64(t.f, p + 16, BLK + 0x1200 + 1); /* stack */
    fake_w16(t.f, p + 24, 1);                /* what_next: ThreadRunGHC */
    if (o->wide) {
        fake_w16(t.f, p + 26, 0);
        fake_w32(t.f, p + o->why, 14);
    } else {
        fake_w16(t.f, p + o->why, 14);
    }
    fake_w32(t.f, p + 28, 0x80);
    fake_w64(t.f, p + o->id, 1234);
    fake_w64(t.f, p + o->trec, BLK + 0x1300);
    if (o->label)
        fake_w64(t.f, p + o->label, label ? BLK + 0x1400 : 0);
    fake_w64(t.f, p + o->bex, BLK + 0x1500);
    fake_w64(t.f, p + o->bq, BLK + 0x1600);
    fake_w64(t.f, p + o->alloc, (uint64_t)-5);
    fake_w32(t.f, p + o->tot, 512);
    /* the label: an ARR_WORDS of UTF-8, shown as Haskell shows the String */
    fake_info(t.f, I_ARRW, HS_ARR_WORDS, 0, 0);
    uint64_t l = ht_hdr(&t, BLK + 0x1400, I_ARRW);
    fake_w64(t.f, l, 11);
    fake_wbytes(t.f, l + 8, "w\xc3\xa9rker\"1\xff" "3", 11);
    ht_open(&t);
    ht_ok(&t, a);
    cr_expect_eq(t.c.size, t.H + o->size);
    ht_prof(&t);
    cr_expect_eq(t.c.what_next, 1);
    cr_expect_eq(t.c.why_blocked, 14);
    cr_expect_eq(t.c.flags, 0x80);
    cr_expect_eq(t.c.thread_id, 1234);
    bool has_label = o->label && label;
    cr_assert_eq(t.c.n_edges, has_label ? 7 : 6);
    ht_edge(&t, 0, BLK + 0x1000, HEAP_EDGE_LINK, NF, 0);
    ht_edge(&t, 1, BLK + 0x1100, HEAP_EDGE_GLOBAL_LINK, NF, 0);
    ht_edge(&t, 2, BLK + 0x1200, HEAP_EDGE_STACK, NF, 0);
    ht_edge(&t, 3, BLK + 0x1300, HEAP_EDGE_TREC, NF, 0);
    ht_edge(&t, 4, BLK + 0x1500, HEAP_EDGE_BLOCKED_EXCEPTIONS, NF, 0);
    ht_edge(&t, 5, BLK + 0x1600, HEAP_EDGE_BLOCKING_QUEUE, NF, 0);
    if (has_label) {
        ht_edge(&t, 6, BLK + 0x1400, HEAP_EDGE_THREAD_LABEL, NF, 0);
        cr_expect_str_eq(ht_edge_label(&t, 6), "Thread label");
    }
    cr_assert_eq(t.c.n_words, 4);
    cr_expect_eq(t.c.words[2], (uint64_t)-5);
    cr_expect_eq(t.c.words[3], 512);
    cr_expect_str_eq(ht_label(&t), has_label ? "TSO 1234 \"w\\233rker\\\"1\\65533\\&3\": BlockedOnMVarRead"
                                             : "TSO 1234: BlockedOnMVarRead");
    uint8_t bytes[4];
    size_t n;
    uint64_t total;
    cr_assert_eq(heap_thread_label(t.h, &t.c, bytes, sizeof bytes, &n, &total, &t.err), HS_OK);
    cr_expect_eq(n, has_label ? 4 : 0, "cut at the caller's room");
    cr_expect_eq(total, has_label ? 11 : 0);
    /* as JSON and steps carry it: valid UTF-8 kept, other bytes escaped */
    char text[QUERY_THREAD_LABEL_MAX];
    query_thread_label(t.h, &t.c, text, sizeof text);
    cr_expect_str_eq(text, has_label ? "w\xc3\xa9rker\"1\\xff3" : "");
    cr_expect_str_eq(ht_edge_label(&t, 1), "Global Link");
    cr_expect_str_eq(ht_edge_label(&t, 3), "TRec");
    cr_expect_str_eq(ht_edge_label(&t, 4), "Blocked Exceptions");
    cr_expect_str_eq(ht_edge_label(&t, 5), "Blocking Queue");
    ht_fini(&t);
}

Test(heap_decode_misc, tso_layout_a) {
    tso(false, 902, 0, &layout_a, true);
    tso(false, 904, 20230101, &layout_a, true);
    tso(true, 905, 20220924, &layout_a, true);
}

Test(heap_decode_misc, tso_layout_b) {
    tso(false, 905, 20220925, &layout_b, true);
    tso(false, 906, 0, &layout_b, true);
    tso(true, 908, 1, &layout_b, true);
    tso(false, 909, 20240131, &layout_b, true);
    tso(false, 906, 0, &layout_b, false);
}

Test(heap_decode_misc, tso_layout_c) {
    tso(false, 909, 20240201, &layout_c, true);
    tso(false, 910, 0, &layout_c, true);
    tso(true, 912, 1, &layout_c, true);
    tso(false, 910, 0, &layout_c, false);
}

Test(heap_decode_misc, tso_unknown_why_blocked_and_truncation) {
    ht t;
    ht_init(&t, false);
    fake_info(t.f, I_TSO, HS_TSO, 0, 0);
    uint64_t p = ht_hdr(&t, BLK, I_TSO);
    fake_w32(t.f, p + 32, 15);
    ht_hdr(&t, BLK + BLK_LEN - 128, I_TSO); /* needs 8 + 124 */
    ht_open(&t);
    ht_ok(&t, BLK);
    cr_expect_str_eq(ht_label(&t), "TSO 0: WhyBlockedUnknownValue 15");
    cr_expect_eq(ht_decode(&t, BLK + BLK_LEN - 128), HS_ERR_PROTOCOL);
    ht_fini(&t);
}

/* ---- small fixed-layout objects -------------------------------------- */

static void fixed_objects(bool prof) {
    ht t;
    ht_init(&t, prof);
    fake_info(t.f, I_MVAR, HS_MVAR_DIRTY, 3, 0);
    fake_info(t.f, I_MUTVAR, HS_MUT_VAR_CLEAN, 1, 0);
    fake_info(t.f, I_TVAR, HS_TVAR, 2, 1);
    fake_info(t.f, I_WEAK, HS_WEAK, 5, 0);
    fake_info(t.f, I_BQ, HS_BLOCKING_QUEUE, 4, 0);
    uint64_t mv = BLK, mu = BLK + 0x80, tv = BLK + 0x100, wk = BLK + 0x180, wk2 = BLK + 0x200;
    uint64_t bq = BLK + 0x280;
    uint64_t p = ht_hdr(&t, mv, I_MVAR);
    fake_w64(t.f, p, STATIC + 0x10);
    fake_w64(t.f, p + 8, STATIC + 0x10);
    fake_w64(t.f, p + 16, BLK + 0x1000 + 1);
    fake_w64(t.f, ht_hdr(&t, mu, I_MUTVAR), BLK + 0x1010 + 2);
    p = ht_hdr(&t, tv, I_TVAR);
    fake_w64(t.f, p, BLK + 0x1020);
    fake_w64(t.f, p + 8, STATIC + 0x20);
    fake_w64(t.f, p + 16, 17);
    for (int k = 0; k < 2; k++) {
        p = ht_hdr(&t, k ? wk2 : wk, I_WEAK);
        for (int i = 0; i < 4; i++)
            fake_w64(t.f, p + 8 * i, BLK + 0x1100 + 0x10 * i);
        fake_w64(t.f, p + 32, k ? BLK + 0x1200 : 0);
    }
    p = ht_hdr(&t, bq, I_BQ);
    for (int i = 0; i < 4; i++)
        fake_w64(t.f, p + 8 * i, BLK + 0x1300 + 0x10 * i);
    ht_open(&t);
    char want[64];

    ht_ok(&t, mv);
    cr_expect_eq(t.c.size, t.H + 24);
    ht_prof(&t);
    cr_assert_eq(t.c.n_edges, 3);
    ht_edge(&t, 0, STATIC + 0x10, HEAP_EDGE_QUEUE_HEAD, NF, 0);
    ht_edge(&t, 1, STATIC + 0x10, HEAP_EDGE_QUEUE_TAIL, NF, 0);
    ht_edge(&t, 2, BLK + 0x1000, HEAP_EDGE_VALUE, NF, 0);
    snprintf(want, sizeof want, "MVar 0x%llx", (unsigned long long)(BLK + 0x1000));
    cr_expect_str_eq(ht_label(&t), want);
    cr_expect_str_eq(ht_edge_label(&t, 0), "Queue Head");
    cr_expect_str_eq(ht_edge_label(&t, 1), "Queue Tail");
    cr_expect_str_eq(ht_edge_label(&t, 2), "Value");

    ht_ok(&t, mu);
    cr_expect_eq(t.c.size, t.H + 8);
    ht_edge(&t, 0, BLK + 0x1010, HEAP_EDGE_VALUE, NF, 0);
    snprintf(want, sizeof want, "_mutVar 0x%llx", (unsigned long long)(BLK + 0x1010));
    cr_expect_str_eq(ht_label(&t), want);

    ht_ok(&t, tv);
    cr_expect_eq(t.c.size, t.H + 24);
    cr_assert_eq(t.c.n_edges, 2);
    ht_edge(&t, 0, BLK + 0x1020, HEAP_EDGE_TVAR_VALUE, NF, 0);
    ht_edge(&t, 1, STATIC + 0x20, HEAP_EDGE_WATCH_QUEUE, NF, 0);
    cr_assert_eq(t.c.n_words, 1);
    cr_expect_eq(t.c.words[0], 17);
    cr_expect_str_eq(ht_label(&t), "_tvar");
    cr_expect_str_eq(ht_edge_label(&t, 0), "val");
    cr_expect_str_eq(ht_edge_label(&t, 1), "Watch Queue");

    ht_ok(&t, wk);
    cr_expect_eq(t.c.size, t.H + 40);
    cr_assert_eq(t.c.n_edges, 4, "a null link is no edge");
    static const uint16_t weak_kinds[] = {HEAP_EDGE_C_FINALIZERS, HEAP_EDGE_KEY, HEAP_EDGE_VALUE,
                                          HEAP_EDGE_FINALIZER, HEAP_EDGE_LINK};
    for (int i = 0; i < 4; i++)
        ht_edge(&t, i, BLK + 0x1100 + 0x10 * i, weak_kinds[i], NF, 0);
    cr_expect_str_eq(ht_label(&t), "_wk");
    ht_ok(&t, wk2);
    cr_assert_eq(t.c.n_edges, 5);
    ht_edge(&t, 4, BLK + 0x1200, HEAP_EDGE_LINK, NF, 0);
    cr_expect_str_eq(ht_edge_label(&t, 0), "C Finalizers");
    cr_expect_str_eq(ht_edge_label(&t, 1), "Key");
    cr_expect_str_eq(ht_edge_label(&t, 3), "Finalizer");
    cr_expect_str_eq(ht_edge_label(&t, 4), "Link");

    ht_ok(&t, bq);
    cr_expect_eq(t.c.size, t.H + 32);
    static const uint16_t bq_kinds[] = {HEAP_EDGE_LINK, HEAP_EDGE_BLACKHOLE, HEAP_EDGE_OWNER,
                                        HEAP_EDGE_QUEUE};
    cr_assert_eq(t.c.n_edges, 4);
    for (int i = 0; i < 4; i++)
        ht_edge(&t, i, BLK + 0x1300 + 0x10 * i, bq_kinds[i], NF, 0);
    cr_expect_str_eq(ht_label(&t), "_blockingQueue");
    cr_expect_str_eq(ht_edge_label(&t, 1), "Black Hole");
    cr_expect_str_eq(ht_edge_label(&t, 2), "Owner");
    cr_expect_str_eq(ht_edge_label(&t, 3), "Queue");
    ht_fini(&t);
}

Test(heap_decode_misc, fixed_objects) { fixed_objects(false); }
Test(heap_decode_misc, fixed_objects_profiled) { fixed_objects(true); }

/* ---- ARR_WORDS ------------------------------------------------------- */

static void arr_words(bool prof) {
    ht t;
    ht_init(&t, prof);
    fake_info(t.f, I_ARRW, HS_ARR_WORDS, 0, 0);
    uint64_t a = BLK, p = ht_hdr(&t, a, I_ARRW);
    static const uint8_t data[] = {'h', 'i', '"', '\\', '\n', 0x80, '7', 14, 'H', 0};
    fake_w64(t.f, p, sizeof data);
    fake_wbytes(t.f, p + 8, data, sizeof data);
    fake_w64(t.f, p + 24, 0x7777777777777777); /* beyond the payload */
    uint64_t b = BLK + 0x100;
    p = ht_hdr(&t, b, I_ARRW);
    fake_w64(t.f, p, 100);
    for (int i = 0; i < 100; i++)
        fake_w8(t.f, p + 8 + i, (uint8_t)('a' + i % 26));
    uint64_t e = BLK + 0x200;
    ht_hdr(&t, e, I_ARRW);
    ht_open(&t);

    ht_ok(&t, a);
    cr_expect_eq(t.c.count, 10);
    cr_expect_eq(t.c.size, t.H + 8 + 16);
    cr_expect_eq(t.c.n_edges, 0);
    ht_prof(&t);
    cr_assert_not_null(t.c.bytes);
    cr_expect_eq(memcmp(t.c.bytes, data, sizeof data), 0);
    cr_expect_str_eq(ht_label(&t), "ARR_WORDS (10 bytes) \"hi\\\"\\\\\\n\\128\\&7\\SO\\&H\\NUL\"");

    ht_ok(&t, b);
    cr_expect_eq(t.c.size, t.H + 8 + 104);
    cr_expect_str_eq(ht_label(&t),
                     "ARR_WORDS (100 bytes) "
                     "\"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl\"...");
    ht_ok(&t, e);
    cr_expect_eq(t.c.size, t.H + 8);
    cr_expect_str_eq(ht_label(&t), "ARR_WORDS (0 bytes) \"\"");
    char key[32];
    heap_census_key(&t.c, key, sizeof key);
    cr_expect_str_eq(key, "ARR_WORDS");
    ht_fini(&t);
}

Test(heap_decode_misc, arr_words) { arr_words(false); }
Test(heap_decode_misc, arr_words_profiled) { arr_words(true); }

Test(heap_decode_misc, arr_words_too_long) {
    ht t;
    ht_init(&t, false);
    fake_info(t.f, I_ARRW, HS_ARR_WORDS, 0, 0);
    fake_w64(t.f, ht_hdr(&t, BLK + BLK_LEN - 64, I_ARRW), 49);
    fake_w64(t.f, ht_hdr(&t, BLK, I_ARRW), UINT64_MAX - 3);
    ht_open(&t);
    cr_expect_eq(ht_decode(&t, BLK + BLK_LEN - 64), HS_ERR_PROTOCOL);
    cr_expect_eq(ht_decode(&t, BLK), HS_ERR_PROTOCOL);
    cr_expect(strstr(t.err.message, "ARR_WORDS"), "%s", t.err.message);
    ht_fini(&t);
}

/* ---- pointer arrays -------------------------------------------------- */

static void arrays(bool prof) {
    ht t;
    ht_init(&t, prof);
    fake_info(t.f, I_MARR, HS_MUT_ARR_PTRS_FROZEN_CLEAN, 0, 0);
    fake_info(t.f, I_SMARR, HS_SMALL_MUT_ARR_PTRS_DIRTY, 0, 0);
    uint64_t a = BLK, p = ht_hdr(&t, a, I_MARR);
    fake_w64(t.f, p, 3);
    fake_w64(t.f, p + 8, 4); /* one card-table word */
    for (int i = 0; i < 3; i++)
        fake_w64(t.f, p + 16 + 8 * i, BLK + 0x2000 + 0x10 * i + 1);
    fake_w64(t.f, p + 40, 0xff);
    uint64_t empty = BLK + 0x100;
    p = ht_hdr(&t, empty, I_MARR);
    uint64_t big = BLK + 0x200;
    p = ht_hdr(&t, big, I_SMARR);
    fake_w64(t.f, p, 25);
    for (int i = 0; i < 25; i++)
        fake_w64(t.f, p + 8 + 8 * i, i == 1 ? 0 : BLK + 0x3000 + 8 * i);
    ht_open(&t);
    char want[512];

    ht_ok(&t, a);
    cr_expect_eq(t.c.count, 3);
    cr_expect_eq(t.c.size, t.H + 16 + 24, "card table not counted");
    ht_prof(&t);
    cr_assert_eq(t.c.n_edges, 3);
    for (int i = 0; i < 3; i++)
        ht_edge(&t, i, BLK + 0x2000 + 0x10 * i, HEAP_EDGE_ELEMENT, NF, i);
    snprintf(want, sizeof want, "[ 0x%llx, 0x%llx, 0x%llx ]", (unsigned long long)(BLK + 0x2000),
             (unsigned long long)(BLK + 0x2010), (unsigned long long)(BLK + 0x2020));
    cr_expect_str_eq(ht_label(&t), want);
    cr_expect_str_eq(ht_edge_label(&t, 2), "[2]");

    ht_ok(&t, empty);
    cr_expect_eq(t.c.size, t.H + 16);
    cr_expect_eq(t.c.n_edges, 0);
    cr_expect_str_eq(ht_label(&t), "[  ]");

    ht_ok(&t, big);
    cr_expect_eq(t.c.count, 25);
    cr_expect_eq(t.c.size, t.H + 8 + 200);
    cr_assert_eq(t.c.n_edges, 24, "the null element is no edge");
    ht_edge(&t, 1, BLK + 0x3010, HEAP_EDGE_ELEMENT, NF, 2);
    size_t n = (size_t)snprintf(want, sizeof want, "[ 0x%llx, null",
                                (unsigned long long)(BLK + 0x3000));
    for (int i = 2; i < 20; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, ", 0x%llx",
                              (unsigned long long)(BLK + 0x3000 + 8 * i));
    snprintf(want + n, sizeof want - n, ", (and more) ]");
    cr_expect_str_eq(ht_label(&t), want);
    char key[64];
    heap_census_key(&t.c, key, sizeof key);
    cr_expect_str_eq(key, "SMALL_MUT_ARR_PTRS_DIRTY");
    ht_fini(&t);
}

Test(heap_decode_misc, arrays) { arrays(false); }
Test(heap_decode_misc, arrays_profiled) { arrays(true); }

Test(heap_decode_misc, array_count_beyond_block) {
    ht t;
    ht_init(&t, false);
    fake_info(t.f, I_MARR, HS_MUT_ARR_PTRS_CLEAN, 0, 0);
    fake_info(t.f, I_SMARR, HS_SMALL_MUT_ARR_PTRS_CLEAN, 0, 0);
    fake_w64(t.f, ht_hdr(&t, BLK, I_MARR), UINT64_C(1) << 62);
    fake_w64(t.f, ht_hdr(&t, BLK + BLK_LEN - 32, I_SMARR), 3);
    ht_open(&t);
    cr_expect_eq(ht_decode(&t, BLK), HS_ERR_PROTOCOL);
    cr_expect_eq(ht_decode(&t, BLK + BLK_LEN - 32), HS_ERR_PROTOCOL);
    ht_fini(&t);
}

/* ---- TREC_CHUNK ------------------------------------------------------ */

static void trec_chunk(bool prof) {
    ht t;
    ht_init(&t, prof);
    fake_info(t.f, I_TREC, HS_TREC_CHUNK, 0, 0);
    uint64_t a = BLK, p = ht_hdr(&t, a, I_TREC);
    fake_w64(t.f, p, BLK + 0x2000);
    fake_w64(t.f, p + 8, 2);
    for (int i = 0; i < 2; i++) {
        uint64_t e = p + 16 + 32 * i;
        fake_w64(t.f, e, BLK + 0x3000 + 0x100 * i);
        fake_w64(t.f, e + 8, BLK + 0x3010 + 0x100 * i);
        fake_w64(t.f, e + 16, BLK + 0x3020 + 0x100 * i);
        fake_w64(t.f, e + 24, 40 + i);
    }
    fake_w64(t.f, p + 16 + 64, BLK + 0x3f00); /* an unused slot */
    uint64_t bad = BLK + 0x400;
    p = ht_hdr(&t, bad, I_TREC);
    fake_w64(t.f, p + 8, 17);
    ht_open(&t);
    ht_ok(&t, a);
    cr_expect_eq(t.c.count, 2);
    cr_expect_eq(t.c.size, t.H + 16 + 64);
    ht_prof(&t);
    cr_assert_eq(t.c.n_edges, 7);
    ht_edge(&t, 0, BLK + 0x2000, HEAP_EDGE_PREV_CHUNK, NF, 0);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            ht_edge(&t, 1 + 3 * i + j, BLK + 0x3000 + 0x100 * i + 0x10 * j, HEAP_EDGE_TREC_ENTRY,
                    NF, 3 * i + j);
    cr_assert_eq(t.c.n_words, 2);
    cr_expect_eq(t.c.words[1], 41);
    cr_expect_str_eq(ht_label(&t), "_trecChunk");
    cr_expect_str_eq(ht_edge_label(&t, 0), "Previous Chunk");
    cr_expect_str_eq(ht_edge_label(&t, 4), "Entry 1 TVar");
    cr_expect_str_eq(ht_edge_label(&t, 5), "Entry 1 Expected");
    cr_expect_str_eq(ht_edge_label(&t, 6), "Entry 1 New");
    cr_expect_eq(ht_decode(&t, bad), HS_ERR_PROTOCOL);
    cr_expect(strstr(t.err.message, "17"), "%s", t.err.message);
    ht_fini(&t);
}

Test(heap_decode_misc, trec_chunk) { trec_chunk(false); }
Test(heap_decode_misc, trec_chunk_profiled) { trec_chunk(true); }

/* ---- BCO ------------------------------------------------------------- */

static void bco(bool prof) {
    ht t;
    ht_init(&t, prof);
    fake_info(t.f, I_BCO, HS_BCO, 4, 0);
    uint64_t a = BLK, p = ht_hdr(&t, a, I_BCO);
    fake_w64(t.f, p, BLK + 0x1000);
    fake_w64(t.f, p + 8, BLK + 0x1100);
    fake_w64(t.f, p + 16, BLK + 0x1200);
    fake_w32(t.f, p + 24, 2);                     /* arity */
    fake_w32(t.f, p + 28, (t.H + 32 + 16) / 8);   /* size in words */
    fake_w64(t.f, p + 32, 3);                     /* bitmap: 3 bits */
    fake_w64(t.f, p + 40, 5);
    uint64_t bad = BLK + 0x100;
    p = ht_hdr(&t, bad, I_BCO);
    fake_w32(t.f, p + 28, (t.H + 40) / 8);
    fake_w64(t.f, p + 32, 65); /* two bitmap words do not fit */
    ht_open(&t);
    ht_ok(&t, a);
    cr_expect_eq(t.c.size, t.H + 48);
    cr_expect_eq(t.c.arity, 2);
    cr_expect_eq(t.c.count, 3);
    ht_prof(&t);
    cr_assert_eq(t.c.n_edges, 3);
    ht_edge(&t, 0, BLK + 0x1000, HEAP_EDGE_INSTRUCTIONS, NF, 0);
    ht_edge(&t, 1, BLK + 0x1100, HEAP_EDGE_LITERALS, NF, 0);
    ht_edge(&t, 2, BLK + 0x1200, HEAP_EDGE_BCO_PTRS, NF, 0);
    cr_assert_eq(t.c.n_words, 1);
    cr_expect_eq(t.c.words[0], 5);
    char want[64];
    snprintf(want, sizeof want, "_bco 0x%llx", (unsigned long long)(BLK + 0x1200));
    cr_expect_str_eq(ht_label(&t), want);
    cr_expect_str_eq(ht_edge_label(&t, 0), "Instructions");
    cr_expect_str_eq(ht_edge_label(&t, 1), "Literals");
    cr_expect_str_eq(ht_edge_label(&t, 2), "Byte Code Objects");
    cr_expect_eq(ht_decode(&t, bad), HS_ERR_PROTOCOL);
    ht_fini(&t);
}

Test(heap_decode_misc, bco) { bco(false); }
Test(heap_decode_misc, bco_profiled) { bco(true); }
