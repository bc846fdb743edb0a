/* The source contract and the export API: a lazy in-memory source whose
 * blocks load on demand; everything a heap read exported through
 * heap_foreach_* and served again by a replay source (a snapshot in
 * miniature), which must decode, label, census and filter the same pause
 * identically without a request it cannot answer. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "heap_test.h"
#include "heapscope/bytes.h"
#include "heapscope/heap_export.h"
#include "heapscope/query.h"
#include "query_heap.h"
#include "replay_source.h"

#define I_LEAK UINT64_C(0x401000)
#define I_ANON UINT64_C(0x401100) /* a constructor the source has no description of */
#define I_STACK UINT64_C(0x420000)
#define I_BIG UINT64_C(0x420500)
#define I_RFUN UINT64_C(0x420600)
#define I_STOP UINT64_C(0x420300)
#define I_FUN3 UINT64_C(0x420800)
#define I_PAP UINT64_C(0x405000)
#define STACK_WORDS 40u

/* Everything a decode shows of a closure, as one line. */
static void fingerprint(heap *h, uint64_t addr, char *out, size_t cap) {
    heap_closure c = {0};
    hs_error err = {0};
    cr_assert_eq(heap_decode(h, addr, &c, &err), HS_OK, "0x%llx: %s", (unsigned long long)addr,
                 err.message);
    char label[256];
    heap_closure_label(h, &c, label, sizeof label);
    size_t n = (size_t)snprintf(out, cap, "%s size %u frames %zu |", label, c.size, c.n_frames);
    for (size_t i = 0; i < c.n_edges && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, " %llx/%u/%u/%u",
                              (unsigned long long)c.edges[i].addr, c.edges[i].kind,
                              c.edges[i].frame, c.edges[i].index);
    for (size_t i = 0; i < c.n_words && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, " w%llx", (unsigned long long)c.words[i]);
    heap_closure_free(&c);
}

/* A heap with everything the decoder may ask for: constructors (one
 * without a description), a static closure, a STACK with RET_BIG and
 * RET_FUN frames and an SRT, and a PAP needing a function bitmap. */
typedef struct rich {
    ht t;
    uint64_t addrs[8];
    size_t n;
    uint64_t sp, fun;
} rich;

static uint64_t leak(ht *t, uint64_t a, uint64_t v) {
    fake_w64(t->f, ht_hdr(t, a, I_LEAK), v);
    return a;
}

static void rich_build(rich *r, bool lazy) {
    ht *t = &r->t;
    ht_init(t, false);
    fake_set_lazy(t->f, lazy);
    fake_con(t->f, I_LEAK, HS_CONSTR_0_1, 0, 1, "main:Main.Leak");
    fake_info(t->f, I_ANON, HS_CONSTR_0_1, 0, 1);
    fake_info(t->f, I_STACK, HS_STACK, 0, 0);
    fake_info_layout(t->f, I_BIG, HS_RET_BIG, 0);
    fake_ret_big(t->f, I_BIG, "PNP");
    fake_srt(t->f, I_BIG, STATIC);
    fake_info_layout(t->f, I_RFUN, HS_RET_FUN, 0);
    fake_info_layout(t->f, I_STOP, HS_STOP_FRAME, fake_small_layout(""));
    fake_info(t->f, I_FUN3, HS_FUN, 0, 0);
    fake_fun_map(t->f, I_FUN3, "PNP");
    fake_info(t->f, I_PAP, HS_PAP, 0, 0);

    uint64_t p1 = leak(t, BLK + 0x2000, 1), p2 = leak(t, BLK + 0x2100, 2);
    uint64_t p3 = leak(t, BLK + 0x2200, 3), anon = BLK + 0x2300;
    fake_w64(t->f, ht_hdr(t, anon, I_ANON), 4);
    leak(t, STATIC, 5);
    r->fun = BLK + 0x3000;
    ht_hdr(t, r->fun, I_FUN3);

    uint64_t a = BLK + 0x100, p = ht_hdr(t, a, I_STACK);
    fake_w32(t->f, p, STACK_WORDS);
    uint64_t end = p + 16 + 8 * STACK_WORDS;
    r->sp = end - 8 * (4 + 6 + 1);
    fake_w64(t->f, p + 8, r->sp);
    const uint64_t frames[] = {I_BIG, p1 + 1, 9, p2, I_RFUN, 3, r->fun + 2, p3, 7, anon + 1,
                               I_STOP};
    for (size_t i = 0; i < 11; i++)
        fake_w64(t->f, r->sp + 8 * i, frames[i]);

    uint64_t pap = BLK + 0x1000, q = ht_hdr(t, pap, I_PAP);
    fake_w32(t->f, q, 1);
    fake_w32(t->f, q + 4, 3);
    fake_w64(t->f, q + 8, r->fun + 3);
    fake_w64(t->f, q + 16, p1);
    fake_w64(t->f, q + 24, 11);
    fake_w64(t->f, q + 32, p2);

    const uint64_t all[] = {a, pap, p1, p2, p3, anon, STATIC, r->fun};
    memcpy(r->addrs, all, sizeof all);
    r->n = 8;
    ht_open(t);
}

Test(heap_export, lazy_source_loads_blocks_when_needed) {
    rich r;
    rich_build(&r, true);
    size_t len = 0;
    cr_expect_null(heap_memory_cached(r.t.h, BLK + 0x2000, &len), "nothing loaded yet");
    cr_expect_eq(fake_counts_of(r.t.f)->load_block, 0);
    ht_ok(&r.t, BLK + 0x2000);
    cr_expect_str_eq(ht_label(&r.t), "Leak 1");
    cr_expect_eq(fake_counts_of(r.t.f)->load_block, 1);
    ht_ok(&r.t, BLK + 0x2100);
    cr_expect_eq(fake_counts_of(r.t.f)->load_block, 1, "a loaded group stays loaded");
    cr_assert_eq(heap_load_all_blocks(r.t.h, &r.t.err), HS_OK, "%s", r.t.err.message);
    cr_expect_eq(fake_counts_of(r.t.f)->load_block, 1, "only one group here");
    ht_fini(&r.t);
}

static hs_status count_block(void *ctx, const heap_block *b, hs_error *err) {
    (void)err;
    cr_expect_not_null(b->data);
    cr_expect_eq(b->start, BLK);
    cr_expect_eq(b->len, BLK_LEN);
    ++*(int *)ctx;
    return HS_OK;
}

typedef struct seen {
    int frames_big, frames_fun, funs, srts, statics, descs, no_desc, infos;
} seen;

static hs_status see_frame(void *ctx, const heap_export_frame_bitmap *b, hs_error *err) {
    (void)err;
    seen *s = ctx;
    cr_assert_eq(b->count, 3);
    cr_expect(b->bits[0] && !b->bits[1] && b->bits[2]);
    if (b->frame_info == I_BIG && b->frame == 0)
        s->frames_big++;
    else if (b->frame_info == I_RFUN && b->frame != 0)
        s->frames_fun++;
    return HS_OK;
}

static hs_status see_fun(void *ctx, const heap_export_fun_bitmap *b, hs_error *err) {
    (void)err;
    cr_expect_eq(b->fun_info, I_FUN3);
    cr_expect_eq(b->n, 3);
    ((seen *)ctx)->funs++;
    return HS_OK;
}

static hs_status see_srt(void *ctx, uint64_t info, uint64_t srt, hs_error *err) {
    (void)err;
    if (info == I_BIG && srt == STATIC)
        ((seen *)ctx)->srts++;
    return HS_OK;
}

static hs_status see_static(void *ctx, uint64_t addr, const uint8_t *b, size_t len,
                            hs_error *err) {
    (void)err;
    if (addr == STATIC && len >= 16 && hs_load_le64(b) == I_LEAK && hs_load_le64(b + 8) == 5)
        ((seen *)ctx)->statics++;
    return HS_OK;
}

static hs_status see_desc(void *ctx, uint64_t info, const char *text, hs_error *err) {
    (void)err;
    seen *s = ctx;
    if (info == I_LEAK && text && !strcmp(text, "main:Main.Leak"))
        s->descs++;
    if (info == I_ANON && !text)
        s->no_desc++;
    return HS_OK;
}

static hs_status see_info(void *ctx, const heap_export_info *i, hs_error *err) {
    (void)err;
    cr_expect_eq(i->raw_len, 16);
    cr_expect_eq(hs_load_le32(i->raw + i->raw_len - 8), i->info->type, "raw bytes of 0x%llx",
                 (unsigned long long)i->info->ptr);
    ((seen *)ctx)->infos++;
    return HS_OK;
}

static hs_status stop_at_first(void *ctx, const heap_export_info *i, hs_error *err) {
    (void)i;
    ++*(int *)ctx;
    return hs_fail(err, HS_ERR_IO, "disk full");
}

Test(heap_export, foreach_gives_what_the_heap_read) {
    rich r;
    rich_build(&r, false);
    char fp[1024];
    for (size_t i = 0; i < r.n; i++)
        fingerprint(r.t.h, r.addrs[i], fp, sizeof fp);
    hs_error err = {0};
    int blocks = 0;
    cr_assert_eq(heap_foreach_block(r.t.h, count_block, &blocks, &err), HS_OK);
    cr_expect_eq(blocks, 1);
    seen s = {0};
    cr_assert_eq(heap_foreach_frame_bitmap(r.t.h, see_frame, &s, &err), HS_OK);
    cr_assert_eq(heap_foreach_fun_bitmap(r.t.h, see_fun, &s, &err), HS_OK);
    cr_assert_eq(heap_foreach_srt(r.t.h, see_srt, &s, &err), HS_OK);
    cr_assert_eq(heap_foreach_static(r.t.h, see_static, &s, &err), HS_OK);
    cr_assert_eq(heap_foreach_con_desc(r.t.h, see_desc, &s, &err), HS_OK);
    cr_assert_eq(heap_foreach_info(r.t.h, see_info, &s, &err), HS_OK);
    cr_expect_eq(s.frames_big, 1, "RET_BIG map, keyed by its info table");
    cr_expect_eq(s.frames_fun, 1, "RET_FUN map, keyed by its frame");
    cr_expect_eq(s.funs, 1);
    cr_expect_eq(s.srts, 1);
    cr_expect_eq(s.statics, 1);
    cr_expect_eq(s.descs, 1);
    cr_expect_eq(s.no_desc, 1, "a description the source lacked is exported as none");
    cr_expect_eq(s.infos, 8, "LEAK, ANON, STACK, BIG, RFUN, STOP, FUN3, PAP: %d", s.infos);
    int calls = 0;
    cr_expect_eq(heap_foreach_info(r.t.h, stop_at_first, &calls, &err), HS_ERR_IO);
    cr_expect_eq(calls, 1, "the first failure stops the walk");
    cr_expect_str_eq(err.message, "disk full");
    ht_fini(&r.t);
}

static void replay_matches(bool lazy) {
    rich r;
    rich_build(&r, false);
    char before[8][1024], after[1024];
    for (size_t i = 0; i < r.n; i++)
        fingerprint(r.t.h, r.addrs[i], before[i], sizeof before[i]);
    cr_expect(strstr(before[5], "? 4") != NULL, "no description: %s", before[5]);
    replay *rp = replay_from_heap(r.t.h, lazy);
    heap *h2 = NULL;
    hs_error err = {0};
    cr_assert_eq(heap_open(replay_source(rp), &h2, &err), HS_OK, "%s", err.message);
    for (size_t i = 0; i < r.n; i++) {
        fingerprint(h2, r.addrs[i], after, sizeof after);
        cr_expect_str_eq(after, before[i], "closure 0x%llx", (unsigned long long)r.addrs[i]);
    }
    cr_expect_eq(replay_misses(rp), 0, "the export holds every answer");
    cr_expect_eq(replay_loads(rp), lazy ? 1u : 0u);
    heap_free(h2);
    replay_free(rp);
    ht_fini(&r.t);
}

Test(heap_export, replay_decodes_the_same) { replay_matches(false); }
Test(heap_export, lazy_replay_decodes_the_same) { replay_matches(true); }

/* ---- a profiled pause: census, cost centres, source locations ---------- */

typedef struct outcome {
    char census[2048];
    bool match[6];
    char position[128];
} outcome;

static void look(heap *h, const uint64_t *c, uint64_t ipe_info, outcome *o) {
    hs_error err = {0};
    query_census cen;
    cr_assert_eq(query_census_run(h, QUERY_CENSUS_BY_CONSTRUCTOR, NULL, &cen, &err), HS_OK, "%s",
                 err.message);
    size_t n = 0;
    for (size_t i = 0; i < cen.n_rows; i++)
        n += (size_t)snprintf(o->census + n, sizeof o->census - n, "%s %llu %llu;",
                              cen.rows[i].key, (unsigned long long)cen.rows[i].count,
                              (unsigned long long)cen.rows[i].bytes);
    query_census_free(&cen);
    query_filters *f;
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_COST_CENTRE, "3", false, &err), HS_OK);
    cr_assert_eq(query_filters_prepare(f, h, &err), HS_OK, "%s", err.message);
    heap_closure cl = {0};
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(heap_decode(h, c[i], &cl, &err), HS_OK, "%s", err.message);
        cr_assert_eq(query_filters_match(f, h, &cl, &o->match[i], &err), HS_OK, "%s",
                     err.message);
    }
    heap_closure_free(&cl);
    query_filters_free(f);
    const heap_info *info;
    const wire_source_info *si = NULL;
    cr_assert_eq(heap_info_get(h, ipe_info, &info, &err), HS_OK);
    cr_assert_eq(heap_info_source(h, info, &si, &err), HS_OK);
    snprintf(o->position, sizeof o->position, "%s", si ? si->position : "none");
    const wire_ccs *ccs;
    const wire_cc *cc;
    cr_assert_eq(heap_ccs(h, 0x4d0200, &ccs, &err), HS_OK, "%s", err.message);
    cr_assert_eq(heap_cc(h, ccs->cc, &cc, &err), HS_OK, "%s", err.message);
    cr_expect_eq(cc->id, 3);
}

Test(heap_export, replay_of_a_profiled_pause_answers_the_same) {
    qh *q = qh_new(WIRE_PROF_ERA);
    static const uint64_t stacks[] = {0x4d0000, 0x4d0100, 0x4d0200, 0x4d0300, 0x4d0400};
    for (int i = 0; i < 5; i++)
        qh_ccs(q, stacks[i], i + 1);
    qh_ccs_child(q, 0x4d0000, 0x4d0100, false);
    qh_ccs_child(q, 0x4d0100, 0x4d0200, false);
    qh_ccs_child(q, 0x4d0200, 0x4d0300, false);
    qh_ccs_child(q, 0x4d0100, 0x4d0400, false);
    qh_ccs_main(q, 0x4d0000);
    uint64_t c[6];
    for (int i = 0; i < 5; i++) {
        c[i] = qh_con(q, i % 2 ? "main:Main.A" : "main:Main.B", 0, NULL, 1);
        qh_set_ccs(q, c[i], stacks[i]);
        qh_set_era(q, c[i], (uint64_t)i + 1);
        qh_root(q, c[i]);
    }
    c[5] = qh_static_con(q, "main:Main.S");
    qh_root(q, c[5]);
    uint64_t ipe_info = qh_con_info(q, "main:Main.A", 0, 1);
    qh_ipe(q, ipe_info, "A_con_info", "app/Main.hs:3:1-9");
    heap *h = qh_open(q);
    outcome live = {0}, again = {0};
    look(h, c, ipe_info, &live);
    cr_expect(live.match[2] && live.match[3] && !live.match[0] && !live.match[4]);
    cr_expect_str_eq(live.position, "app/Main.hs:3:1-9");
    uint64_t era;
    heap_closure cl = {0};
    hs_error err = {0};
    cr_assert_eq(heap_decode(h, c[1], &cl, &err), HS_OK);
    cr_expect(heap_closure_era(h, &cl, &era) && era == 2);
    heap_closure_free(&cl);

    replay *rp = replay_from_heap(h, true);
    heap *h2 = NULL;
    cr_assert_eq(heap_open(replay_source(rp), &h2, &err), HS_OK, "%s", err.message);
    look(h2, c, ipe_info, &again);
    cr_expect_str_eq(again.census, live.census);
    cr_expect_arr_eq(again.match, live.match, sizeof live.match);
    cr_expect_str_eq(again.position, live.position);
    cr_expect_eq(replay_misses(rp), 0, "the export holds every answer");
    heap_free(h2);
    replay_free(rp);
    qh_free(q);
}

Test(heap_export, cost_centres_are_asked_once_per_pause) {
    qh *q = qh_new(WIRE_PROF_PLAIN);
    qh_ccs(q, 0x4d0000, 1);
    qh_ccs_main(q, 0x4d0000);
    heap *h = qh_open(q);
    hs_error err = {0};
    const wire_ccs *a, *b;
    cr_assert_eq(heap_ccs(h, 0x4d0000, &a, &err), HS_OK, "%s", err.message);
    cr_assert_eq(heap_ccs(h, 0x4d0000, &b, &err), HS_OK);
    cr_expect_eq(a, b, "the second answer is the kept one");
    cr_expect_eq(heap_ccs(h, 0x4d9990, &a, &err), HEAP_UNAVAILABLE);
    cr_expect(strstr(err.message, "no CCS") != NULL, "%s", err.message);
    uint64_t main_ccs = 0;
    cr_assert_eq(heap_ccs_main(h, &main_ccs, &err), HS_OK);
    cr_expect_eq(main_ccs, 0x4d0000);
    cr_expect(heap_export_ccs_main(h, &main_ccs));
    cr_assert_eq(heap_refresh(h, &err), HS_OK);
    cr_expect_not(heap_export_ccs_main(h, &main_ccs), "a new pause forgets the old answers");
    qh_free(q);
}
