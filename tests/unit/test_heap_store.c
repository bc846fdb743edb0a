/* The heap's store across pauses, and source-location splitting. */
#include "heap_test.h"

#define CON_INFO UINT64_C(0x4f8e28)
#define RET_BIG_INFO UINT64_C(0x4f9000)

/* A refresh refetches roots and blocks (the heap may have changed while
 * the program ran) but keeps info tables, constructor descriptions and
 * bitmaps, which are immutable for the life of the process. */
Test(heap_store, refresh_keeps_immutable_parts) {
    ht t;
    ht_init(&t, false);
    fake_con(t.f, CON_INFO, HS_CONSTR_0_1, 0, 1, "main:Main.Leak");
    uint64_t p = ht_hdr(&t, BLK, CON_INFO);
    fake_w64(t.f, p, 42);
    ht_open(&t);
    cr_assert_eq(ht_decode(&t, BLK), HS_OK, "%s", t.err.message);
    fake_counts before = *fake_counts_of(t.f);
    cr_assert_eq(before.info_tables, 1);
    cr_assert_eq(before.con_desc, 1);

    fake_w64(t.f, p, 43); /* the program ran: the heap changed */
    cr_assert_eq(heap_refresh(t.h, &t.err), HS_OK, "%s", t.err.message);
    cr_assert_eq(ht_decode(&t, BLK), HS_OK, "%s", t.err.message);
    cr_assert_eq(t.c.n_words, 1);
    cr_assert_eq(t.c.words[0], 43, "blocks were fetched again");
    fake_counts after = *fake_counts_of(t.f);
    cr_assert_eq(after.info_tables, before.info_tables, "info table kept");
    cr_assert_eq(after.con_desc, before.con_desc, "constructor description kept");
    cr_assert_str_eq(t.c.info->con_name, "Leak");
    cr_assert_eq(heap_block_count(t.h), 1);
    heap_closure_free(&t.c);
    heap_free(t.h);
    fake_free(t.f);
}

Test(heap_store, static_images_are_dropped_by_refresh) {
    ht t;
    ht_init(&t, false);
    fake_con(t.f, CON_INFO, HS_CONSTR_0_1, 0, 1, "ghc-prim:GHC.Types.I#");
    uint64_t p = ht_hdr(&t, STATIC, CON_INFO);
    fake_w64(t.f, p, 1);
    ht_open(&t);
    cr_assert_eq(ht_decode(&t, STATIC), HS_OK, "%s", t.err.message);
    unsigned fetched = fake_counts_of(t.f)->closures;
    cr_assert_eq(ht_decode(&t, STATIC), HS_OK);
    cr_assert_eq(fake_counts_of(t.f)->closures, fetched, "kept within a pause");
    cr_assert_eq(heap_refresh(t.h, &t.err), HS_OK, "%s", t.err.message);
    cr_assert_eq(ht_decode(&t, STATIC), HS_OK);
    cr_assert_eq(fake_counts_of(t.f)->closures, fetched + 1, "fetched again after a pause");
    heap_closure_free(&t.c);
    heap_free(t.h);
    fake_free(t.f);
}

static void split(const char *pos, const char *file, const char *span) {
    char f[64], s[64];
    heap_position_split(pos, f, sizeof f, s, sizeof s);
    cr_assert_str_eq(f, file, "file of %s", pos);
    cr_assert_str_eq(s, span, "span of %s", pos);
}

Test(heap_store, position_split) {
    split("app/Main.hs:12:5-20", "app/Main.hs", "12:5-20");
    split("compiler/X.hs:(781,9)-(793,67)", "compiler/X.hs", "(781,9)-(793,67)");
    split("C:/src/a.hs:3:1-4", "C:/src/a.hs", "3:1-4");
    split(":", ":", "");
    split("", "", "");
    split("noSpan.hs", "noSpan.hs", "");
    char tiny[4], s[64];
    heap_position_split("app/Main.hs:1:2", tiny, sizeof tiny, s, sizeof s);
    cr_assert_str_eq(tiny, "app", "cut to the buffer");
    cr_assert_str_eq(s, "1:2");
}
