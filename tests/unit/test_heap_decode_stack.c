/* STACK closures and AP_STACK payloads (heap-layout.md §6.6, §8): small
 * bitmaps derived locally, RET_BIG bitmaps cached per info pointer, RET_FUN
 * asked per frame, the last frame kept, RET_BCO ending the walk. */
#include "heap_test.h"

#define I_STACK UINT64_C(0x420000)
#define I_RET UINT64_C(0x420100)
#define I_RET1 UINT64_C(0x420180)
#define I_UPD UINT64_C(0x420200)
#define I_STOP UINT64_C(0x420300)
#define I_UNDER UINT64_C(0x420400)
#define I_BIG UINT64_C(0x420500)
#define I_RFUN UINT64_C(0x420600)
#define I_RBCO UINT64_C(0x420700)
#define I_FUN3 UINT64_C(0x420800)
#define I_APS UINT64_C(0x420900)
#define SRT_ADDR UINT64_C(0x4c7e60)

#define STACK_WORDS 100u

typedef struct writer {
    fake_source *f;
    uint64_t at;
} writer;

static void put(writer *w, uint64_t v) {
    fake_w64(w->f, w->at, v);
    w->at += 8;
}

/* A STACK closure at a whose frames (frame_words in total) end its stack
 * area; returns sp. */
static uint64_t stack_at(ht *t, uint64_t a, unsigned frame_words) {
    uint64_t p = ht_hdr(t, a, I_STACK);
    fake_w32(t->f, p, STACK_WORDS);
    fake_w8(t->f, p + 4, 1);
    uint64_t end = p + 16 + 8 * STACK_WORDS, sp = end - 8 * frame_words;
    fake_w64(t->f, p + 8, sp);
    return sp;
}

/* heap_closure_edge_label of edge i. */
static const char *ht_frame_edge_label(ht *t, size_t i) {
    cr_assert_lt(i, t->c.n_edges);
    heap_closure_edge_label(t->h, &t->c, i, t->label, sizeof t->label);
    return t->label;
}

static void stack_infos(ht *t) {
    fake_info(t->f, I_STACK, HS_STACK, 0, 0);
    fake_info_layout(t->f, I_RET, HS_RET_SMALL, fake_small_layout("PN"));
    fake_source_location(t->f, I_RET, "worker", "Main", "Main.hs:41:9-30");
    fake_srt(t->f, I_RET, SRT_ADDR);
    fake_info_layout(t->f, I_RET1, HS_RET_SMALL, fake_small_layout("P"));
    /* profiled update and stop frames carry a closure header: its two
     * profiling words are non-pointers in the bitmap */
    fake_info_layout(t->f, I_UPD, HS_UPDATE_FRAME, fake_small_layout(t->prof ? "NNP" : "P"));
    fake_info_layout(t->f, I_STOP, HS_STOP_FRAME, fake_small_layout(t->prof ? "NN" : ""));
    fake_info_layout(t->f, I_UNDER, HS_UNDERFLOW_FRAME, fake_small_layout("P"));
    fake_info_layout(t->f, I_RFUN, HS_RET_FUN, 0);
    fake_info_layout(t->f, I_RBCO, HS_RET_BCO, 0);
    fake_info(t->f, I_FUN3, HS_FUN, 0, 0);
    fake_fun_map(t->f, I_FUN3, "PNP");
}

static void small_frames(bool prof) {
    ht t;
    ht_init(&t, prof);
    stack_infos(&t);
    unsigned pw = prof ? 2 : 0; /* profiling words in update and stop frames */
    uint64_t a = BLK + 0x100, sp = stack_at(&t, a, 3 + 2 + pw + 1 + pw);
    writer w = {t.f, sp};
    put(&w, I_RET);
    put(&w, BLK + 0x2000 + 1);
    put(&w, 42);
    put(&w, I_UPD);
    if (prof) {
        put(&w, CCS_ADDR);
        put(&w, ERA);
    }
    put(&w, BLK + 0x2100 + 2);
    put(&w, I_STOP);
    if (prof) {
        put(&w, CCS_ADDR);
        put(&w, ERA);
    }
    ht_open(&t);
    ht_ok(&t, a);
    cr_expect_eq(t.c.size, t.H + 16 + 8 * STACK_WORDS);
    cr_expect_eq(t.c.count, STACK_WORDS);
    cr_expect_eq(t.c.sp, sp);
    ht_prof(&t);
    cr_assert_eq(t.c.n_frames, 3, "the STOP frame is kept");
    const heap_frame *fr = t.c.frames;
    cr_expect_eq(fr[0].info_ptr, I_RET);
    cr_expect_eq(fr[0].info->type, HS_RET_SMALL);
    cr_expect_eq(fr[0].offset, 0);
    cr_expect_eq(fr[0].size, 24);
    cr_expect_eq(fr[1].offset, 24);
    cr_expect_eq(fr[1].size, 16 + 8 * pw);
    cr_expect_eq(fr[2].offset, 40 + 8 * pw);
    cr_expect_eq(fr[2].size, 8 + 8 * pw);
    cr_expect_eq(fr[2].info->type, HS_STOP_FRAME);

    cr_assert_eq(t.c.n_edges, 3);
    ht_edge(&t, 0, SRT_ADDR, HEAP_EDGE_SRT, 0, 0);
    ht_edge(&t, 1, BLK + 0x2000, HEAP_EDGE_FRAME_FIELD, 0, 0);
    ht_edge(&t, 2, BLK + 0x2100, HEAP_EDGE_FRAME_FIELD, 1, pw);
    cr_expect_eq(fr[0].first_edge, 0);
    cr_expect_eq(fr[0].n_edges, 2);
    cr_expect_eq(fr[1].first_edge, 2);
    cr_expect_eq(fr[1].n_edges, 1);
    cr_expect_eq(fr[2].n_edges, 0);

    cr_assert_eq(t.c.n_words, 1 + 2 * pw);
    cr_expect_eq(t.c.words[0], 42);
    cr_expect_eq(fr[0].first_word, 0);
    cr_expect_eq(fr[0].n_words, 1);
    cr_expect_eq(fr[1].n_words, pw);
    cr_expect_eq(fr[2].first_word, 1 + pw);
    cr_expect_eq(fr[2].n_words, pw);
    if (prof)
        cr_expect_eq(t.c.words[1], CCS_ADDR);

    cr_expect_eq(fake_counts_of(t.f)->stack_bitmap, 0, "small bitmaps come from info tables");
    char want[64];
    snprintf(want, sizeof want, "Stack (100 words, %u used)", 6 + 2 * pw);
    cr_expect_str_eq(ht_label(&t), want);
    cr_expect_str_eq(ht_edge_label(&t, 0), "Frame 0 SRT");
    cr_expect_str_eq(ht_edge_label(&t, 1), "Frame 0 Pointer");
    cr_expect_str_eq(ht_edge_label(&t, 2), "Frame 1 Pointer");
    /* as people read them: each frame's kind, and where IPE has it, its code */
    cr_expect_str_eq(ht_frame_edge_label(&t, 0),
                     "Frame 0 (case continuation in Main.worker at Main.hs:41:9-30) SRT");
    cr_expect_str_eq(ht_frame_edge_label(&t, 1),
                     "Frame 0 (case continuation in Main.worker at Main.hs:41:9-30) Pointer");
    cr_expect_str_eq(ht_frame_edge_label(&t, 2), "Frame 1 (update frame) Pointer");
    cr_expect_eq(heap_frame_of_edge(&t.c, 2), &t.c.frames[1]);
    unsigned asked = fake_counts_of(t.f)->source_info;
    cr_expect_str_eq(ht_frame_edge_label(&t, 1),
                     "Frame 0 (case continuation in Main.worker at Main.hs:41:9-30) Pointer");
    cr_expect_eq(fake_counts_of(t.f)->source_info, asked, "asked once per info table");
    heap_frame_text(t.h, t.c.frames[2].info, want, sizeof want);
    cr_expect_str_eq(want, "stop frame");
    char key[32];
    heap_census_key(&t.c, key, sizeof key);
    cr_expect_str_eq(key, "STACK");
    ht_fini(&t);
}

Test(heap_decode_stack, small_frames) { small_frames(false); }
Test(heap_decode_stack, small_frames_profiled) { small_frames(true); }

Test(heap_decode_stack, underflow_frame_points_to_older_chunk) {
    ht t;
    ht_init(&t, false);
    stack_infos(&t);
    uint64_t a = BLK + 0x100, older = BLK + 0x800;
    uint64_t sp = stack_at(&t, a, 3 + 2);
    writer w = {t.f, sp};
    put(&w, I_RET);
    put(&w, BLK + 0x2000);
    put(&w, 1);
    put(&w, I_UNDER);
    put(&w, older + 1);
    stack_at(&t, older, 1);
    fake_w64(t.f, older + 8 + 16 + 8 * STACK_WORDS - 8, I_STOP);
    ht_open(&t);
    ht_ok(&t, a);
    cr_assert_eq(t.c.n_frames, 2);
    cr_expect_eq(t.c.frames[1].info->type, HS_UNDERFLOW_FRAME);
    cr_assert_eq(t.c.n_edges, 3);
    ht_edge(&t, 2, older, HEAP_EDGE_FRAME_FIELD, 1, 0);
    cr_expect_str_eq(ht_edge_label(&t, 2), "Frame 1 Pointer");
    cr_expect_str_eq(ht_frame_edge_label(&t, 2), "Frame 1 (underflow frame) Pointer");
    ht_ok(&t, older);
    cr_expect_eq(t.c.n_frames, 1);
    cr_expect_eq(t.c.n_edges, 0);
    ht_fini(&t);
}

/* 70 entries: every fifth a pointer. */
static char big_map[71];

static void fill_big(ht *t, uint64_t a) {
    uint64_t sp = stack_at(t, a, 71 + 1);
    writer w = {t->f, sp};
    put(&w, I_BIG);
    for (int i = 0; i < 70; i++)
        put(&w, big_map[i] == 'P' ? BLK + 0x3000 + 8 * i + 3 : (uint64_t)i);
    put(&w, I_STOP);
}

Test(heap_decode_stack, ret_big_bitmap_is_cached) {
    for (int i = 0; i < 70; i++)
        big_map[i] = i % 5 == 0 ? 'P' : 'N';
    big_map[70] = '\0';
    ht t;
    ht_init(&t, false);
    stack_infos(&t);
    fake_info_layout(t.f, I_BIG, HS_RET_BIG, 0x1234); /* an offset to the large bitmap */
    fake_ret_big(t.f, I_BIG, big_map);
    uint64_t a = BLK + 0x100, b = BLK + 0x500;
    fill_big(&t, a);
    fill_big(&t, b);
    ht_open(&t);
    ht_ok(&t, a);
    cr_expect_eq(fake_counts_of(t.f)->stack_bitmap, 1);
    cr_assert_eq(t.c.n_frames, 2);
    cr_expect_eq(t.c.frames[0].size, 8 * 71);
    cr_assert_eq(t.c.n_edges, 14);
    for (int k = 0; k < 14; k++)
        ht_edge(&t, k, BLK + 0x3000 + 8 * (5 * k), HEAP_EDGE_FRAME_FIELD, 0, 5 * k);
    cr_assert_eq(t.c.n_words, 56);
    cr_expect_eq(t.c.words[0], 1);
    cr_expect_eq(t.c.words[55], 69);
    ht_ok(&t, b);
    cr_expect_eq(t.c.n_edges, 14);
    ht_ok(&t, a);
    cr_expect_eq(fake_counts_of(t.f)->stack_bitmap, 1, "no second STACK_BITMAP for RET_BIG");
    ht_fini(&t);
}

Test(heap_decode_stack, ret_fun_frame) {
    ht t;
    ht_init(&t, false);
    stack_infos(&t);
    uint64_t fun = BLK + 0x3000, a = BLK + 0x100;
    ht_hdr(&t, fun, I_FUN3);
    uint64_t sp = stack_at(&t, a, 3 + 2 + 3 + 1);
    writer w = {t.f, sp};
    put(&w, I_RET1);
    put(&w, BLK + 0x2000);
    put(&w, I_RFUN);
    put(&w, 3);
    put(&w, fun + 2);
    put(&w, BLK + 0x2100 + 1);
    put(&w, 9);
    put(&w, BLK + 0x2200);
    put(&w, I_STOP);
    ht_open(&t);
    ht_ok(&t, a);
    cr_assert_eq(t.c.n_frames, 3);
    cr_expect_eq(t.c.frames[1].offset, 16);
    cr_expect_eq(t.c.frames[1].size, 48);
    cr_expect_eq(t.c.frames[2].offset, 64);
    cr_assert_eq(t.c.n_edges, 4);
    ht_edge(&t, 0, BLK + 0x2000, HEAP_EDGE_FRAME_FIELD, 0, 0);
    ht_edge(&t, 1, fun, HEAP_EDGE_FUNCTION, 1, 0);
    ht_edge(&t, 2, BLK + 0x2100, HEAP_EDGE_FRAME_FIELD, 1, 0);
    ht_edge(&t, 3, BLK + 0x2200, HEAP_EDGE_FRAME_FIELD, 1, 2);
    cr_assert_eq(t.c.n_words, 1);
    cr_expect_eq(t.c.words[0], 9);
    cr_expect_eq(t.c.frames[1].first_word, 0);
    cr_expect_eq(t.c.frames[1].n_words, 1);
    cr_expect_str_eq(ht_edge_label(&t, 1), "Frame 1 Function");
    cr_expect_eq(fake_counts_of(t.f)->stack_bitmap, 1);
    ht_ok(&t, a);
    cr_expect_eq(fake_counts_of(t.f)->stack_bitmap, 1, "a frame's RET_FUN map is kept for the pause");
    cr_assert_eq(heap_refresh(t.h, &t.err), HS_OK, "%s", t.err.message);
    ht_ok(&t, a);
    cr_expect_eq(fake_counts_of(t.f)->stack_bitmap, 2, "and asked again after a new pause");
    ht_fini(&t);
}

Test(heap_decode_stack, ret_bco_ends_the_walk) {
    ht t;
    ht_init(&t, false);
    stack_infos(&t);
    uint64_t a = BLK + 0x100, sp = stack_at(&t, a, 3 + 4 + 1);
    writer w = {t.f, sp};
    put(&w, I_RET);
    put(&w, BLK + 0x2000);
    put(&w, 5);
    put(&w, I_RBCO);
    put(&w, BLK + 0x2100);
    put(&w, 0);
    put(&w, 0);
    put(&w, I_STOP);
    ht_open(&t);
    ht_ok(&t, a);
    cr_expect_eq(t.c.n_frames, 1);
    cr_expect_eq(t.c.n_edges, 2);
    cr_expect_eq(t.c.size, t.H + 16 + 8 * STACK_WORDS);
    cr_expect_eq(fake_counts_of(t.f)->stack_bitmap, 0, "no STACK_BITMAP for RET_BCO");
    ht_fini(&t);
}

/* A source without a frame's info table or map (a ghc-debug snapshot has
 * none below an underflow frame) fails that stack alone, with the source's
 * reason (HEAP_UNAVAILABLE: the traversal counts it as unreadable), rather
 * than ending the walk there and hiding what the rest of it holds. */
Test(heap_decode_stack, unknown_frame_fails_the_stack_alone) {
    ht t;
    ht_init(&t, false);
    stack_infos(&t);
    for (int unknown_info = 0; unknown_info < 2; unknown_info++) {
        uint64_t a = BLK + 0x100 + 0x1000 * (uint64_t)unknown_info;
        uint64_t sp = stack_at(&t, a, 3 + 5 + 1);
        writer w = {t.f, sp};
        put(&w, I_RET);
        put(&w, BLK + 0x2000);
        put(&w, 5);
        /* a frame whose info table the source lacks, or a RET_FUN frame
         * whose map it cannot give (its function is not in memory) */
        put(&w, unknown_info ? UINT64_C(0x42ff00) : I_RFUN);
        put(&w, 2);
        put(&w, UINT64_C(0x4cf000));
        put(&w, BLK + 0x2100);
        put(&w, 7);
        put(&w, I_STOP);
    }
    uint64_t good = BLK + 0x2200, sp = stack_at(&t, good, 3 + 1);
    writer w = {t.f, sp};
    put(&w, I_RET);
    put(&w, BLK + 0x2000);
    put(&w, 5);
    put(&w, I_STOP);
    ht_open(&t);
    for (int unknown_info = 0; unknown_info < 2; unknown_info++) {
        uint64_t a = BLK + 0x100 + 0x1000 * (uint64_t)unknown_info;
        cr_expect_eq(ht_decode(&t, a), HEAP_UNAVAILABLE, "%s", t.err.message);
        cr_expect(strstr(t.err.message, "in closure 0x"), "%s", t.err.message);
    }
    ht_ok(&t, good);
    cr_expect_eq(t.c.n_frames, 2);
    ht_fini(&t);
}

Test(heap_decode_stack, empty_stack) {
    ht t;
    ht_init(&t, false);
    stack_infos(&t);
    stack_at(&t, BLK + 0x100, 0);
    ht_open(&t);
    ht_ok(&t, BLK + 0x100);
    cr_expect_eq(t.c.n_frames, 0);
    cr_expect_eq(t.c.n_edges, 0);
    ht_fini(&t);
}

Test(heap_decode_stack, malformed_stacks) {
    ht t;
    ht_init(&t, false);
    stack_infos(&t);
    fake_info_layout(t.f, I_RET + 0x10, HS_RET_SMALL, fake_small_layout("PPPPP"));
    uint64_t a = BLK + 0x100; /* sp outside the stack area */
    stack_at(&t, a, 1);
    fake_w64(t.f, a + 16, a - 8);
    uint64_t b = BLK + 0x500; /* a frame running past the end */
    writer w = {t.f, stack_at(&t, b, 3)};
    put(&w, I_RET + 0x10);
    uint64_t c = BLK + 0x900; /* sp not word-aligned */
    stack_at(&t, c, 1);
    fake_w64(t.f, c + 16, fake_r64(t.f, c + 16) - 4);
    uint64_t d = BLK + BLK_LEN - 64; /* stack_size beyond the block */
    fake_w64(t.f, d, I_STACK);
    fake_w32(t.f, d + 8, 100);
    uint64_t e = BLK + 0xd00; /* a good frame, then one running past the end */
    w = (writer){t.f, stack_at(&t, e, 4)};
    put(&w, I_RET);
    put(&w, BLK + 0x2000);
    put(&w, 1);
    put(&w, I_RET + 0x10);
    ht_open(&t);
    cr_expect_eq(ht_decode(&t, a), HS_ERR_PROTOCOL);
    cr_expect(strstr(t.err.message, "sp"), "%s", t.err.message);
    cr_expect_eq(ht_decode(&t, b), HS_ERR_PROTOCOL);
    cr_expect(strstr(t.err.message, "RET_SMALL"), "%s", t.err.message);
    cr_expect_eq(ht_decode(&t, c), HS_ERR_PROTOCOL);
    cr_expect_eq(ht_decode(&t, d), HS_ERR_PROTOCOL);
    cr_expect(strstr(t.err.message, "STACK"), "%s", t.err.message);
    cr_expect_eq(ht_decode(&t, e), HS_ERR_PROTOCOL);
    cr_expect_eq(t.c.n_frames, 0, "no half-decoded frames after an error");
    cr_expect_eq(t.c.n_edges, 0);
    ht_fini(&t);
}

static void ap_stack(bool prof) {
    ht t;
    ht_init(&t, prof);
    stack_infos(&t);
    fake_info(t.f, I_APS, HS_AP_STACK, 0, 0);
    uint64_t a = BLK + 0x100, fun = BLK + 0x3000, p = ht_hdr(&t, a, I_APS);
    ht_hdr(&t, fun, I_FUN3);
    fake_w64(t.f, p, 0); /* padding */
    fake_w64(t.f, p + 8, 5);
    fake_w64(t.f, p + 16, fun + 1);
    writer w = {t.f, p + 24};
    put(&w, I_RET);
    put(&w, BLK + 0x2000 + 1);
    put(&w, 11);
    put(&w, I_RET1);
    put(&w, BLK + 0x2100);
    put(&w, UINT64_C(0x9999)); /* after the payload: not a frame */
    ht_open(&t);
    ht_ok(&t, a);
    cr_expect_eq(t.c.size, t.H + 24 + 40);
    cr_expect_eq(t.c.count, 5);
    ht_prof(&t);
    cr_assert_eq(t.c.n_frames, 2);
    cr_expect_eq(t.c.frames[1].offset, 24);
    cr_assert_eq(t.c.n_edges, 4);
    ht_edge(&t, 0, fun, HEAP_EDGE_FUNCTION, NF, 0);
    ht_edge(&t, 1, SRT_ADDR, HEAP_EDGE_SRT, 0, 0);
    ht_edge(&t, 2, BLK + 0x2000, HEAP_EDGE_FRAME_FIELD, 0, 0);
    ht_edge(&t, 3, BLK + 0x2100, HEAP_EDGE_FRAME_FIELD, 1, 0);
    cr_assert_eq(t.c.n_words, 1);
    cr_expect_eq(t.c.words[0], 11);
    char want[64];
    snprintf(want, sizeof want, "0x%llx()", (unsigned long long)fun);
    cr_expect_str_eq(ht_label(&t), want);
    cr_expect_str_eq(ht_edge_label(&t, 0), "Function");
    cr_expect_str_eq(ht_edge_label(&t, 1), "Frame 0 SRT");
    ht_fini(&t);
}

Test(heap_decode_stack, ap_stack) { ap_stack(false); }
Test(heap_decode_stack, ap_stack_profiled) { ap_stack(true); }

Test(heap_decode_stack, ap_stack_size_beyond_block) {
    ht t;
    ht_init(&t, false);
    fake_info(t.f, I_APS, HS_AP_STACK, 0, 0);
    uint64_t p = ht_hdr(&t, BLK + BLK_LEN - 48, I_APS);
    fake_w64(t.f, p + 8, 4);
    ht_open(&t);
    cr_expect_eq(ht_decode(&t, BLK + BLK_LEN - 48), HS_ERR_PROTOCOL);
    cr_expect(strstr(t.err.message, "AP_STACK"), "%s", t.err.message);
    ht_fini(&t);
}

/* GHC 9.14's annotation frame (StgAnnFrame: header, ann; a small bitmap
 * like an update frame's): its annotation is an edge of the stack. Before
 * 9.14 the number is no frame type, and the walk ends there, as at any
 * frame it cannot size, without failing the stack. */
static void ann_frame(bool prof, uint32_t major) {
    ht t;
    ht_init_version(&t, prof, major, 1);
    stack_infos(&t);
    const uint64_t i_ann = UINT64_C(0x420a00);
    fake_info_layout(t.f, i_ann, HS_ANN_FRAME, fake_small_layout(prof ? "NNP" : "P"));
    unsigned pw = prof ? 2 : 0;
    uint64_t a = BLK + 0x100, sp = stack_at(&t, a, 2 + 2 + pw + 1 + pw);
    writer w = {t.f, sp};
    put(&w, I_RET1);
    put(&w, BLK + 0x2000 + 1);
    put(&w, i_ann);
    if (prof) {
        put(&w, CCS_ADDR);
        put(&w, ERA);
    }
    put(&w, BLK + 0x2100 + 1); /* the annotation */
    put(&w, I_STOP);
    if (prof) {
        put(&w, CCS_ADDR);
        put(&w, ERA);
    }
    ht_open(&t);
    ht_ok(&t, a);
    if (major < 914) {
        cr_assert_eq(t.c.n_frames, 1, "the walk ends at a type this GHC has not");
        cr_expect_eq(t.c.n_edges, 1);
        ht_fini(&t);
        return;
    }
    cr_assert_eq(t.c.n_frames, 3);
    const heap_frame *fr = t.c.frames;
    cr_expect_eq(fr[1].info->type, HS_ANN_FRAME);
    cr_expect_eq(fr[1].offset, 16);
    cr_expect_eq(fr[1].size, 16 + 8 * pw);
    cr_expect_str_eq(hs_closure_type_name(fr[1].info->type), "ANN_FRAME");
    cr_assert_eq(t.c.n_edges, 2);
    ht_edge(&t, 1, BLK + 0x2100, HEAP_EDGE_FRAME_FIELD, 1, pw);
    cr_expect_eq(fake_counts_of(t.f)->stack_bitmap, 0, "its bitmap is in its info table");
    ht_fini(&t);
}

Test(heap_decode_stack, ann_frame_914) { ann_frame(false, 914); }
Test(heap_decode_stack, ann_frame_914_profiled) { ann_frame(true, 914); }
Test(heap_decode_stack, ann_frame_number_before_914) { ann_frame(false, 912); }
