/* The heap's store across pauses, its address index, and source-location
 * splitting. */
#include "heap_test.h"
#include "heapscope/heap_export.h"
#include "heapscope/query.h"

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

static query_action count_visit(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)h, (void)c, (void)depth;
    ++*(unsigned *)ctx;
    return QUERY_CONTINUE;
}

/* A block group far from the others (a peer chooses the addresses) gets a
 * range of its own: what is sized by the dense numbering (visited set,
 * block index) grows with the blocks received, not with the 0.5 PiB gap.
 * The largest range is numbered first, the others in address order. */
Test(heap_store, far_block_costs_its_own_words) {
    const uint64_t near = BLK + (UINT64_C(1) << 20), far = UINT64_C(0x7f0000000000);
    const uint64_t low = 0x10000;
    ht t;
    ht_init(&t, false);
    fake_add_block(t.f, far, 0x1000);
    fake_add_block(t.f, low, 0x2000);
    fake_add_block(t.f, near, 0x1000);
    fake_con(t.f, CON_INFO, HS_CONSTR_1_0, 1, 0, "main:Main.Link");
    fake_w64(t.f, ht_hdr(&t, BLK, CON_INFO), far + 1); /* tagged */
    fake_w64(t.f, ht_hdr(&t, far, CON_INFO), near);
    fake_w64(t.f, ht_hdr(&t, near, CON_INFO), BLK);
    ht_open(&t);

    size_t n;
    const heap_block_range *r = heap_block_ranges(t.h, &n);
    cr_assert_eq(n, 3, "the 1 MiB gap is kept, the far ones are not");
    cr_assert_eq(r[0].lo, low);
    cr_assert_eq(r[0].hi, low + 0x2000);
    cr_assert_eq(r[1].lo, BLK);
    cr_assert_eq(r[1].hi, near + 0x1000);
    cr_assert_eq(r[2].lo, far);
    uint64_t big_words = (near + 0x1000 - BLK) / 8;
    cr_assert_eq(r[1].first_word, 0, "the largest range first");
    cr_assert_eq(r[0].first_word, big_words);
    cr_assert_eq(r[2].first_word, big_words + 0x2000 / 8);
    cr_assert_eq(heap_block_words(t.h), r[2].first_word + 0x1000 / 8);
    uint64_t received_words = (BLK_LEN + 0x4000) / 8;
    cr_assert_leq(heap_block_words(t.h), 2 * received_words + 256 * 512);
    uint64_t addrs[] = {BLK, BLK + BLK_LEN - 8, near + 8, far, far + 0xff8, low, low + 0x1ff8};
    for (size_t i = 0; i < sizeof addrs / sizeof *addrs; i++) {
        uint64_t w;
        cr_assert(heap_dense_word(t.h, addrs[i], &w), "0x%llx", (unsigned long long)addrs[i]);
        cr_assert_lt(w, heap_block_words(t.h));
        cr_assert_eq(heap_dense_addr(t.h, w), addrs[i]);
        cr_assert(heap_in_blocks(t.h, addrs[i]));
    }
    uint64_t w;
    cr_assert_not(heap_dense_word(t.h, far + 0x1000, &w));
    cr_assert_not(heap_dense_word(t.h, far - 8, &w));
    cr_assert_not(heap_dense_word(t.h, low - 8, &w));
    cr_assert_not(heap_in_blocks(t.h, BLK + BLK_LEN), "inside a range, in no group");

    unsigned visited = 0;
    query_traversal tr = {.visit = count_visit, .ctx = &visited};
    uint64_t root = BLK;
    cr_assert_eq(query_traverse(t.h, &root, 1, &tr, NULL, &t.err), HS_OK, "%s", t.err.message);
    cr_assert_eq(visited, 3, "both ranges are walked, each closure once");
    heap_free(t.h);
    fake_free(t.f);
}

/* A group whose end lies past the top of the address space is refused. */
Test(heap_store, wrapping_block_is_refused) {
    ht t;
    ht_init(&t, false);
    fake_add_block(t.f, UINT64_C(0xfffffffffffff000), 0x1000);
    cr_assert_neq(heap_open(fake_heap_source(t.f), &t.h, &t.err), HS_OK);
    cr_assert(strstr(t.err.message, "past the end of the address space"), "%s", t.err.message);
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

/* A source that lacks some of a batch (a ghc-debug snapshot records only
 * what its traversal asked) refuses the batch: the heap then splits it,
 * keeps what it gets, and only the closures needing the rest fail, each
 * with the source's reason, which is remembered (not asked for again). */
Test(heap_store, batches_survive_missing_answers) {
    ht t;
    ht_init(&t, false);
    const uint64_t known = UINT64_C(0x4f8e28), other = UINT64_C(0x4f8f28);
    const uint64_t unknown = UINT64_C(0x4f9e28);
    fake_info(t.f, known, HS_CONSTR_0_1, 0, 1);
    fake_info(t.f, other, HS_CONSTR_0_1, 0, 1);
    ht_hdr(&t, STATIC, known);
    ht_open(&t);
    const uint64_t infos[3] = {known, unknown, other};
    cr_assert_eq(heap_info_prefetch(t.h, infos, 3, &t.err), HS_OK, "%s", t.err.message);
    cr_assert(heap_info_cached(t.h, known) && heap_info_cached(t.h, other));
    cr_assert_not_null(heap_info_lookup(t.h, known));
    cr_assert_null(heap_info_lookup(t.h, unknown));
    unsigned asked = fake_counts_of(t.f)->info_tables;
    const heap_info *info;
    cr_assert_eq(heap_info_get(t.h, unknown, &info, &t.err), HEAP_UNAVAILABLE);
    cr_assert(strstr(t.err.message, "no info table"), "%s", t.err.message);
    cr_assert(strstr(t.err.message, "0x4f9e28"), "%s", t.err.message);
    cr_assert_eq(fake_counts_of(t.f)->info_tables, asked, "the refusal is remembered");

    const uint64_t addrs[3] = {STATIC, UINT64_C(0x4c9000), STATIC + 0x100};
    cr_assert_eq(heap_prefetch_statics(t.h, addrs, 3, &t.err), HS_OK, "%s", t.err.message);
    size_t len;
    cr_assert_not_null(heap_memory_cached(t.h, STATIC, &len));
    cr_assert_not_null(heap_memory_cached(t.h, STATIC + 0x100, &len));
    cr_assert_null(heap_memory_cached(t.h, UINT64_C(0x4c9000), &len));
    asked = fake_counts_of(t.f)->closures;
    const uint8_t *bytes;
    cr_assert_eq(heap_memory(t.h, UINT64_C(0x4c9000), &bytes, &len, &t.err), HEAP_UNAVAILABLE);
    cr_assert(strstr(t.err.message, "0x4c9000"), "%s", t.err.message);
    cr_assert_eq(fake_counts_of(t.f)->closures, asked, "the refusal is remembered");
    ht_fini(&t);
}

/* One key a source refuses among many costs a few requests (the batch is
 * split in halves around it), not one per key. */
Test(heap_store, a_refused_batch_is_split_in_halves) {
    ht t;
    ht_init(&t, false);
    enum { N = 500 }; /* 8 bytes apart: all inside the 4 KiB static region */
    uint64_t addrs[N];
    for (size_t i = 0; i < N; i++)
        addrs[i] = STATIC + 8 * i;
    addrs[N / 3] = UINT64_C(0x4c9000); /* but this one */
    ht_open(&t);
    unsigned before = fake_counts_of(t.f)->closures;
    cr_assert_eq(heap_prefetch_statics(t.h, addrs, N, &t.err), HS_OK, "%s", t.err.message);
    unsigned asked = fake_counts_of(t.f)->closures - before;
    cr_assert_leq(asked, 2 * 9 + 1, "%u requests for one refusal among %d", asked, N);
    size_t len;
    for (size_t i = 0; i < N; i++)
        cr_assert_eq(heap_memory_cached(t.h, addrs[i], &len) != NULL, i != N / 3, "%zu", i);
    ht_fini(&t);
}

/* ---- a block group listed twice ------------------------------------- */

#define DUP UINT64_C(0x4200200000) /* a group the source lists twice */
#define DUP_LEN 0x1000u

static hs_status count_block(void *ctx, const heap_block *b, hs_error *err) {
    (void)b, (void)err;
    ++*(unsigned *)ctx;
    return HS_OK;
}

/* The RTS lists each empty pinned group once per capability, byte for
 * byte: the heap keeps the first copy and counts, indexes and exports the
 * group once (eager and lazy sources alike); a closure in it decodes. */
Test(heap_store, identical_copies_are_kept_once) {
    for (int lazy = 0; lazy < 2; lazy++) {
        ht t;
        ht_init(&t, false);
        fake_set_lazy(t.f, lazy);
        fake_add_block(t.f, DUP, DUP_LEN);
        fake_con(t.f, CON_INFO, HS_CONSTR_0_1, 0, 1, "main:Main.Leak");
        fake_w64(t.f, ht_hdr(&t, DUP + 0x40, CON_INFO), 42);
        fake_add_block_copy(t.f, DUP, DUP_LEN);
        fake_add_block(t.f, DUP + 0x10000, DUP_LEN);
        fake_add_block_copy(t.f, DUP, DUP_LEN); /* a third capability, after another group */
        ht_open(&t);
        cr_assert_eq(heap_block_count(t.h), 3, "lazy %d: groups counted once", lazy);
        cr_assert_eq(heap_block_bytes(t.h), BLK_LEN + 2 * DUP_LEN, "lazy %d", lazy);
        unsigned exported = 0;
        cr_assert_eq(heap_foreach_block(t.h, count_block, &exported, &t.err), HS_OK);
        cr_assert_eq(exported, 3, "lazy %d: exported (and so stored) once", lazy);
        cr_assert(heap_in_blocks(t.h, DUP + DUP_LEN - 8));
        ht_ok(&t, DUP + 0x40);
        cr_assert_eq(t.c.n_words, 1);
        cr_assert_eq(t.c.words[0], 42);
        heap_closure_free(&t.c);
        cr_assert_eq(heap_load_all_blocks(t.h, &t.err), HS_OK, "%s", t.err.message);
        /* a new pause lists them again: still once */
        cr_assert_eq(heap_refresh(t.h, &t.err), HS_OK, "%s", t.err.message);
        cr_assert_eq(heap_block_count(t.h), 3, "lazy %d: after a refresh", lazy);
        cr_assert_eq(heap_block_bytes(t.h), BLK_LEN + 2 * DUP_LEN);
        heap_free(t.h);
        fake_free(t.f);
    }
}

/* heap_open on the fake source fails with a one-line message holding
 * `want` (eager and lazy). */
static void open_refused(void (*add)(fake_source *f), const char *want) {
    for (int lazy = 0; lazy < 2; lazy++) {
        ht t;
        ht_init(&t, false);
        fake_set_lazy(t.f, lazy);
        add(t.f);
        t.h = NULL;
        cr_assert_neq(heap_open(fake_heap_source(t.f), &t.h, &t.err), HS_OK,
                      "lazy %d: accepted (%s)", lazy, want);
        cr_assert_null(t.h);
        cr_assert(strstr(t.err.message, want) && !strchr(t.err.message, '\n'),
                  "lazy %d: '%s' lacks '%s'", lazy, t.err.message, want);
        fake_free(t.f);
    }
}

static void add_partial_overlap(fake_source *f) {
    fake_add_block(f, DUP, 2 * DUP_LEN);
    fake_add_block(f, DUP + DUP_LEN, 2 * DUP_LEN); /* its second half again, and more */
}

static void add_other_bytes(fake_source *f) {
    fake_add_block(f, DUP, DUP_LEN);
    fake_add_block_copy(f, DUP, DUP_LEN);
    fake_w8(f, DUP + DUP_LEN - 1, 1); /* the first copy only */
}

static void add_other_length(fake_source *f) {
    fake_add_block(f, DUP, DUP_LEN);
    fake_add_block(f, DUP, 2 * DUP_LEN);
}

static void add_inside(fake_source *f) { /* inside the test's group at BLK, listed first */
    fake_add_block(f, BLK + 0x1000, 0x1000);
}

/* Any other overlap stays an error: two answers for one address. */
Test(heap_store, overlaps_other_than_copies_are_refused) {
    open_refused(add_partial_overlap,
                 "the block groups at 0x4200200000 (8192 bytes) and 0x4200201000 (8192 bytes) "
                 "overlap");
    open_refused(add_other_bytes,
                 "the block group at 0x4200200000 (4096 bytes) is listed twice with different "
                 "bytes");
    open_refused(add_other_length,
                 "the block group at 0x4200200000 is listed twice with different lengths "
                 "(4096 and 8192 bytes)");
    open_refused(add_inside, "the block groups at 0x4200100000 (16384 bytes) and 0x4200101000 "
                             "(4096 bytes) overlap");
}

/* A refresh that meets an overlap leaves the heap empty but valid, and
 * the heap figures at zero. */
Test(heap_store, a_refused_refresh_leaves_no_copies_counted) {
    ht t;
    ht_init(&t, false);
    fake_add_block(t.f, DUP, DUP_LEN);
    fake_add_block_copy(t.f, DUP, DUP_LEN);
    ht_open(&t);
    cr_assert_eq(heap_block_count(t.h), 2);
    fake_w8(t.f, DUP, 1); /* the program ran: now the copies differ */
    cr_assert_neq(heap_refresh(t.h, &t.err), HS_OK);
    cr_assert(strstr(t.err.message, "different bytes"), "%s", t.err.message);
    cr_assert_eq(heap_block_count(t.h), 0);
    cr_assert_eq(heap_block_bytes(t.h), 0);
    heap_free(t.h);
    fake_free(t.f);
}
