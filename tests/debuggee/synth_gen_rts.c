/* One-of-a-kind runtime objects, wired the way the RTS wires them: MVar
 * and STM wait queues, a blackhole with its blocking queue, the CAF under
 * evaluation, transaction records, byte-code objects, a compact region,
 * large and pinned byte arrays, AP_STACKs and weak pointers. Threads are
 * reserved before this phase (their TSOs are pointed at) and filled later. */
#include <string.h>

#include "synth_gen_internal.h"

static uint8_t *pl(sg_ctx *c, uint64_t addr) {
    return sg_at(c, addr) + c->H;
}

static void set_words(sg_ctx *c, uint64_t addr, const uint64_t *w, size_t n) {
    uint8_t *p = pl(c, addr);
    for (size_t i = 0; i < n; i++)
        sg_wset(p, i, w[i]);
}

/* An MVar whose queue holds one blocked thread (PRIM MVAR_TSO_QUEUE). */
static uint64_t blocked_mvar(sg_ctx *c, uint64_t tso, uint64_t *queue) {
    uint64_t end = c->stat[SG_S_END_TSO_QUEUE];
    uint64_t q = sg_new(c, SG_T_MVAR_TSO_QUEUE, 2);
    uint64_t qw[2] = {end, tso};
    set_words(c, q, qw, 2);
    uint64_t mv = sg_new(c, SG_T_MVAR_DIRTY, 3);
    uint64_t mw[3] = {q, q, end}; /* empty: the value slot holds the sentinel */
    set_words(c, mv, mw, 3);
    *queue = q;
    return mv;
}

static void stm(sg_ctx *c) {
    uint64_t end_wq = c->stat[SG_S_END_STM_WATCH_QUEUE];
    uint64_t stm_tso = c->tsos[3];
    uint64_t old[2], new[2];
    for (int i = 0; i < 2; i++) {
        old[i] = sg_value(c);
        new[i] = sg_value(c);
        uint64_t wq = sg_new(c, SG_T_TVAR_WATCH_QUEUE, 3);
        uint64_t ww[3] = {stm_tso, end_wq, end_wq};
        set_words(c, wq, ww, 3);
        uint64_t tv = sg_new(c, SG_T_TVAR_DIRTY, 3);
        uint64_t tw[3] = {old[i], wq, 3 + (uint64_t)i};
        set_words(c, tv, tw, 3);
        c->tvars[i] = tv;
        c->tvar_wq[i] = wq;
        uint64_t con = sg_con(c, SG_T_TVARCON, &tv, NULL);
        sg_bulk_root(c, con);
    }
    /* a chunk of 16 entries, two in use */
    uint64_t chunk = sg_new(c, SG_T_TREC_CHUNK, 2 + 64);
    uint8_t *p = pl(c, chunk);
    memset(p, 0, 8 * 66);
    sg_wset(p, 0, c->stat[SG_S_END_STM_CHUNK_LIST]);
    sg_wset(p, 1, 2);
    for (int i = 0; i < 2; i++) {
        sg_wset(p, 2 + 4 * (size_t)i, c->tvars[i]);
        sg_wset(p, 3 + 4 * (size_t)i, old[i]);
        sg_wset(p, 4 + 4 * (size_t)i, new[i]);
        sg_wset(p, 5 + 4 * (size_t)i, 3 + (uint64_t)i);
    }
    c->trec_header = sg_new(c, SG_T_TREC_HEADER, 3);
    uint64_t hw[3] = {c->stat[SG_S_NO_TREC], chunk, 0 /* TREC_ACTIVE */};
    set_words(c, c->trec_header, hw, 3);
}

/* Thread 1 evaluates a thunk (now a BLACKHOLE) that thread 2 waits for. */
static void blackholes(sg_ctx *c) {
    uint64_t end = c->stat[SG_S_END_TSO_QUEUE];
    c->bh_owned = sg_ind(c, SG_T_BLACKHOLE, c->tsos[1], 2);
    c->msg_bh = sg_new(c, SG_T_MSG_BLACKHOLE, 3);
    uint64_t mw[3] = {end, c->tsos[2], c->bh_owned};
    set_words(c, c->msg_bh, mw, 3);
    c->bq = sg_new(c, SG_T_BQ, 4);
    uint64_t bw[4] = {end, c->bh_owned, c->tsos[1], c->msg_bh};
    set_words(c, c->bq, bw, 4);
    sg_wset(pl(c, c->bh_owned), 0, c->bq);
    /* the STM thread's own thunk: nobody waits, so it points at the TSO */
    c->bh_self = sg_ind(c, SG_T_BLACKHOLE, c->tsos[3], 1);
    /* a CAF under evaluation by thread 5 */
    c->cur_ccs = c->ccs[SG_CC_CAF];
    c->caf_bh = sg_ind(c, SG_T_CAF_BLACKHOLE, c->tsos[5], 0);
    sg_static_set_caf(c, SG_S_CAF_C, c->caf_bh);
}

static uint64_t bco(sg_ctx *c, uint64_t inner) {
    static const uint8_t code[40] = {0x21, 0x00, 0x01, 0x00, 0x0c, 0x00, 0x02, 0x00,
                                     0x30, 0x00, 0x00, 0x00, 0x3a, 0x00, 0x01, 0x00};
    uint64_t ins = sg_arr_words(c, code, sizeof code, sg_space_for_era(c));
    uint64_t lit_bytes[2] = {42, UINT64_C(0x4c0000)};
    uint64_t lits = sg_arr_words(c, lit_bytes, sizeof lit_bytes, sg_space_for_era(c));
    uint64_t elems[2] = {inner ? inner : sg_static_tagged(c, SG_S_FUN_A), 0};
    elems[1] = sg_value(c);
    uint64_t ptrs = sg_mut_arr(c, SG_T_MUT_ARR_FROZEN_CLEAN, elems, 2);
    /* instrs, literals, ptrs, arity|size, bitmap: 2 entries, second non-ptr */
    uint64_t b = sg_new(c, SG_T_BCO, 6);
    uint64_t words[6] = {ins, lits, ptrs, 2 | (uint64_t)(c->Hw + 6) << 32, 2, 0x2};
    set_words(c, b, words, 6);
    return b;
}

/* A compact region: block header (self, owner, next), the COMPACT_NFDATA
 * closure, then a string that spills into the group's second block. */
static uint64_t compact(sg_ctx *c) {
    size_t cells = 150, per = 2 * c->Hw + 3; /* a cons cell and a C# box */
    size_t bytes = 24 + 8 * (c->Hw + 9) + 8 * per * cells;
    unsigned blocks = (unsigned)((bytes + SYNTH_BLOCK_SIZE - 1) / SYNTH_BLOCK_SIZE);
    uint64_t start = sg_alloc_group(c, blocks, SYNTH_BF_COMPACT, 1);
    uint64_t obj = start + 24, hp = obj + 8 * (c->Hw + 9);
    uint8_t *h = sg_at(c, start);
    sg_wset(h, 0, start);
    sg_wset(h, 1, obj);
    sg_wset(h, 2, 0);
    sg_header(c, obj, SG_T_COMPACT);
    sg_mark_start(c, obj);
    uint64_t list = sg_static_tagged(c, SG_S_NIL);
    for (size_t i = 0; i < cells; i++) { /* laid out from the end backwards */
        uint64_t ch = hp, cell = hp + 8 * (c->Hw + 1);
        hp += 8 * per;
        sg_header(c, ch, SG_T_CHASH);
        sg_mark_start(c, ch);
        sg_wset(sg_at(c, ch) + c->H, 0, 0x3b1 + i % 24); /* Greek letters */
        sg_header(c, cell, SG_T_CONS);
        sg_mark_start(c, cell);
        uint8_t *cp = sg_at(c, cell) + c->H;
        sg_wset(cp, 0, ch | 1);
        sg_wset(cp, 1, list);
        list = cell | 2;
    }
    uint64_t nf[9] = {blocks * SYNTH_BLOCK_SIZE / 8, 512, hp, start + blocks * SYNTH_BLOCK_SIZE,
                      start, start, 0, list, 0};
    set_words(c, obj, nf, 9);
    sg_group_set_free(c, start, hp);
    return list;
}

static uint64_t ap_stack(sg_ctx *c) {
    int t3 = SG_RET_SITE(2); /* P N P */
    int t1 = SG_RET_SITE(0); /* P */
    uint64_t fun = sg_thunk(c, SG_THUNK_SITE(1, 2), (uint64_t[]){sg_value(c)}, NULL);
    uint64_t a = sg_value(c), b = sg_value(c), d = sg_value(c);
    uint64_t ap = sg_new(c, SG_T_AP_STACK, 3 + 6);
    uint64_t n = sg_word_arg(c);
    uint64_t w[9] = {0, 6, fun, c->tabs[t3].p, a, n, b, c->tabs[t1].p, d};
    set_words(c, ap, w, 9);
    return ap;
}

static uint64_t weak_pair(sg_ctx *c) {
    uint64_t nof = c->stat[SG_S_NO_FINALIZER], w[2];
    for (int i = 0; i < 2; i++) {
        uint64_t key = sg_value(c), val = sg_value(c);
        w[i] = sg_new(c, SG_T_WEAK, 5);
        uint64_t f[5] = {nof, key, val, i ? sg_static_tagged(c, SG_S_FUN_A) : nof,
                         c->weak_link};
        set_words(c, w[i], f, 5);
        c->weak_link = w[i];
    }
    /* only the newer one is wrapped: the older is reachable through the link */
    return sg_con(c, SG_T_WEAKCON, &w[1], NULL);
}

static uint64_t small_map(sg_ctx *c) {
    uint64_t tip = sg_static_tagged(c, SG_S_TIP), size = 1;
    uint64_t p[4] = {0, 0, tip, tip};
    p[0] = sg_int(c, 1000 + (int64_t)sg_below(c, 9000));
    p[1] = sg_value(c);
    return sg_con(c, SG_T_BIN, p, &size);
}

/* A large byte array (its own block group) of hex digits. */
static uint64_t pattern_bytes(sg_ctx *c, size_t n, enum sg_space sp) {
    uint64_t a = sg_new_in(c, SG_T_ARR_WORDS, 1 + (n + 7) / 8, sp);
    uint8_t *p = pl(c, a);
    sg_wset(p, 0, n);
    sg_wset(p, (n + 7) / 8, 0);
    for (size_t i = 0; i < n; i++)
        p[8 + i] = (uint8_t)"0123456789abcdef"[(i * 7) & 15];
    return a;
}

void sg_rts_build(sg_ctx *c) {
    c->cur_era = 1;
    c->cur_ccs = c->ccs[SG_CC_MAIN_FN];
    c->mvar_main = blocked_mvar(c, c->tsos[0], &c->mvar_main_q);
    c->mvar_read = blocked_mvar(c, c->tsos[6], &c->mvar_read_q);
    c->cur_ccs = c->ccs[SG_CC_WORKER];
    c->cur_era = c->opt->eras;
    stm(c);
    blackholes(c);
    c->cur_ccs = c->ccs[SG_CC_MAIN_FN];

    uint64_t b1 = bco(c, 0), b2 = bco(c, b1);
    c->bco = b1;
    uint64_t hp[2] = {b2, compact(c)}, hw = 7;
    sg_bulk_root(c, sg_con(c, SG_T_HOLDER, hp, &hw));

    c->cur_era = 1;
    uint64_t arr = pattern_bytes(c, 65536, sg_space_for_era(c)), tw[2] = {0, 4096};
    sg_bulk_root(c, sg_con(c, SG_T_TEXT, &arr, tw));
    uint64_t pinned = pattern_bytes(c, 40000, SG_SP_PINNED);
    uint64_t contents = sg_con(c, SG_T_PLAINPTR, &pinned, NULL);
    uint64_t bw[2] = {pinned + c->H + 8, 40000};
    sg_bulk_root(c, sg_con(c, SG_T_BS, &contents, bw));

    c->cur_era = c->opt->eras > 2 ? 2 : 1;
    for (int i = 0; i < 2; i++)
        sg_bulk_root(c, ap_stack(c));
    sg_bulk_root(c, weak_pair(c));

    c->stable_extra[0] = sg_con(c, SG_T_MVARCON, &c->mvar_main, NULL);
    uint64_t fp[2];
    fp[0] = sg_value(c);
    fp[1] = sg_value(c);
    c->stable_extra[1] = sg_fun(c, SG_T_FUN_PNP, fp, NULL);
    c->stable_extra[2] = weak_pair(c);
    c->stable_extra[3] = small_map(c);
    uint64_t mr = sg_con(c, SG_T_MVARCON, &c->mvar_read, NULL);
    sg_bulk_root(c, mr);
    c->saved[c->n_saved++] = c->mvar_main;
    c->saved[c->n_saved++] = b2;
    c->saved[c->n_saved++] = hp[1] & ~(uint64_t)7;
    c->saved[c->n_saved++] = arr;
}
