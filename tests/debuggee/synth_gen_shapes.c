/* The bulk of the heap: the data structures a real program keeps alive
 * (lists of Int, strings, Data.Map trees, records, thunks, functions and
 * partial applications, arrays, Text and ByteString, mutable cells, weak
 * pointers), about 2% unreachable garbage interleaved with them, and one
 * long list. Each structure's root goes into a batch; full batches become
 * arrays (or lists) consed onto one of SG_N_ANCHORS lists, which the
 * threads' stacks, a stable pointer and a CAF hold. */
#include <stdio.h>
#include <string.h>

#include "synth_gen_internal.h"

static uint64_t nil(sg_ctx *c) {
    return sg_static_tagged(c, SG_S_NIL);
}

static uint64_t *scratch(sg_ctx *c, size_t n) {
    if (n > c->scratch_cap) {
        c->scratch = sg_realloc_mem(c, c->scratch, n * sizeof *c->scratch);
        c->scratch_cap = n;
    }
    return c->scratch;
}

void sg_pool_add(sg_ctx *c, uint64_t v) {
    c->pool[c->n_pool++ % SG_POOL] = v;
}

static uint64_t pool_pick(sg_ctx *c) {
    if (!c->n_pool)
        return sg_intlike(c, 0);
    unsigned n = c->n_pool < SG_POOL ? c->n_pool : SG_POOL;
    return c->pool[sg_below(c, n)];
}

static int64_t some_int(sg_ctx *c) {
    return sg_chance(c, 50) ? (int64_t)sg_below(c, 272) - 16 : (int64_t)sg_below(c, 1000000);
}

static unsigned some_char(sg_ctx *c) {
    static const unsigned wide[] = {0x3bb, 0x3b1, 0x2192, 0x1f600, 0x4e2d};
    if (sg_chance(c, 4))
        return wide[sg_below(c, 5)];
    return (unsigned)("etaoinshrdlucmfwyp EATONS,.0123456789"[sg_below(c, 37)]);
}

static uint64_t string(sg_ctx *c, size_t len) {
    uint64_t s = nil(c);
    for (size_t i = 0; i < len; i++)
        s = sg_cons(c, sg_char(c, some_char(c)), s);
    return s;
}

/* Random sites; C leaves the order of calls inside one expression open,
 * so each draw is its own statement (determinism across compilers). */
static int thunk_site(sg_ctx *c) {
    int kind = (int)sg_below(c, 6);
    return SG_THUNK_SITE(kind, (int)sg_below(c, SG_KIND_SITES));
}

static int fun_site(sg_ctx *c) {
    int kind = (int)sg_below(c, 6);
    return SG_FUN_SITE(kind, (int)sg_below(c, SG_KIND_SITES));
}

static void values(sg_ctx *c, uint64_t *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        v[i] = sg_value(c);
}

static uint64_t fields_thunk(sg_ctx *c, int tab) {
    uint64_t p[4], w[4];
    for (unsigned i = 0; i < c->tabs[tab].ptrs; i++)
        p[i] = sg_chance(c, 50) ? pool_pick(c) : sg_int(c, some_int(c));
    for (unsigned i = 0; i < c->tabs[tab].nptrs; i++)
        w[i] = sg_word_arg(c);
    if (c->tabs[tab].type >= SG_FUN && c->tabs[tab].type <= SG_FUN_0_2)
        return sg_fun(c, tab, p, w);
    return sg_thunk(c, tab, p, w);
}

/* A small value: leaves only, so building it never nests deeply. */
uint64_t sg_value(sg_ctx *c) {
    if (c->n_pool && sg_chance(c, 8))
        return pool_pick(c);
    uint64_t r = sg_below(c, 100), v, w[2];
    if (r < 40) {
        v = sg_int(c, some_int(c));
    } else if (r < 55) {
        v = string(c, 1 + sg_below(c, 8));
    } else if (r < 65) {
        if (sg_chance(c, 30))
            return sg_static_tagged(c, SG_S_NOTHING);
        v = sg_int(c, some_int(c));
        v = sg_con(c, SG_T_JUST, &v, NULL);
    } else if (r < 72) {
        uint64_t p[2];
        p[0] = sg_int(c, some_int(c));
        p[1] = sg_int(c, some_int(c));
        v = sg_con(c, SG_T_TUP2, p, NULL);
    } else if (r < 78) {
        w[0] = UINT64_C(0x3ff0000000000000) + (sg_rand(c) >> 12);
        v = sg_con(c, SG_T_DHASH, NULL, w);
    } else if (r < 85) {
        v = fields_thunk(c, thunk_site(c));
    } else if (r < 90) {
        if (sg_chance(c, 60))
            return sg_static_tagged(c, (enum sg_static)(SG_S_OPA + sg_below(c, 6)));
        v = sg_int(c, some_int(c));
        v = sg_con(c, SG_T_OPG, &v, NULL);
    } else if (r < 95) {
        v = sg_int(c, some_int(c));
        w[0] = sg_word_arg(c);
        v = sg_con(c, SG_T_ENTRY, &v, w);
    } else {
        w[0] = sg_below(c, 5000);
        w[1] = w[0] + sg_below(c, 300);
        v = sg_con(c, SG_T_SPAN, NULL, w);
    }
    if (sg_chance(c, 25))
        sg_pool_add(c, v);
    return v;
}

static uint64_t int_list(sg_ctx *c, size_t len) {
    uint64_t s = nil(c);
    for (size_t i = 0; i < len; i++)
        s = sg_cons(c, sg_chance(c, 5) ? pool_pick(c) : sg_int(c, some_int(c)), s);
    return s;
}

static uint64_t map_value(sg_ctx *c) {
    switch (sg_below(c, 4)) {
    case 0: return string(c, 2 + sg_below(c, 10));
    case 1: return fields_thunk(c, SG_THUNK_SITE(1, (int)sg_below(c, SG_KIND_SITES)));
    default: return sg_value(c);
    }
}

/* A balanced Data.Map Int v, built bottom-up over a complete binary tree in
 * level order; in-order ranks give the keys, so it is a search tree. */
static uint64_t map(sg_ctx *c, size_t n) {
    uint64_t *node = scratch(c, 3 * n), *rank = node + n, *stack = node + 2 * n;
    size_t sp = 0, next = 0, i = 0;
    for (;;) { /* iterative in-order walk of indices */
        while (i < n) {
            stack[sp++] = i;
            i = 2 * i + 1;
        }
        if (!sp)
            break;
        i = stack[--sp];
        rank[i] = next++;
        i = 2 * i + 2;
    }
    int64_t base = (int64_t)sg_below(c, 100000), step = 1 + (int64_t)sg_below(c, 9);
    uint64_t tip = sg_static_tagged(c, SG_S_TIP);
    for (size_t k = n; k-- > 0;) {
        uint64_t l = 2 * k + 1 < n ? node[2 * k + 1] : tip;
        uint64_t r = 2 * k + 2 < n ? node[2 * k + 2] : tip;
        uint64_t size = 0; /* nodes below k, level by level */
        for (size_t lo = k, hi = k; lo < n; lo = 2 * lo + 1, hi = 2 * hi + 2)
            size += (hi < n ? hi : n - 1) - lo + 1;
        uint64_t key = sg_int(c, base + step * (int64_t)rank[k]);
        uint64_t val = map_value(c);
        uint64_t p[4] = {key, val, l, r};
        node[k] = sg_con(c, SG_T_BIN, p, &size); /* nothing above reallocates scratch */
    }
    return n ? c->scratch[0] : tip;
}

static uint64_t record(sg_ctx *c) {
    uint64_t t3[3];
    values(c, t3, 3);
    uint64_t tup = sg_con(c, SG_T_TUP3, t3, NULL);
    uint64_t s = string(c, 3 + sg_below(c, 12));
    uint64_t just = sg_con(c, SG_T_JUST, &s, NULL);
    uint64_t p[2] = {tup, just}, w = sg_below(c, 1u << 20);
    return sg_con(c, SG_T_HOLDER, p, &w);
}

static uint64_t list_of(sg_ctx *c, const uint64_t *v, size_t n) {
    uint64_t s = nil(c);
    for (size_t i = n; i-- > 0;)
        s = sg_cons(c, v[i], s);
    return s;
}

/* Unevaluated and evaluated thunks: sites with and without SRTs,
 * selectors, an AP, a BLACKHOLE and an IND left by updates. */
static uint64_t thunks(sg_ctx *c) {
    uint64_t v[6];
    size_t n = 0;
    int kinds = 1 + (int)sg_below(c, 3);
    for (int i = 0; i < kinds; i++)
        v[n++] = fields_thunk(c, thunk_site(c));
    uint64_t sel_of = v[0];
    if (sg_chance(c, 70)) {
        uint64_t pair[2];
        values(c, pair, 2);
        sel_of = sg_con(c, SG_T_TUP2, pair, NULL);
    }
    v[n++] = sg_selector(c, sg_chance(c, 50) ? SG_T_SEL0 : SG_T_SEL1, sel_of);
    uint64_t r = sg_below(c, 3), slop = sg_below(c, 3);
    if (r == 0)
        v[n++] = sg_ind(c, SG_T_BLACKHOLE, sg_value(c), 1 + slop);
    else if (r == 1)
        v[n++] = sg_ind(c, SG_T_IND, sg_value(c), slop);
    else {
        uint64_t fv = sg_value(c);
        uint64_t f = sg_fun(c, SG_T_FUN_SMALL, &fv, NULL);
        v[n++] = sg_pap(c, f, SG_T_FUN_SMALL, 1 + (unsigned)sg_below(c, 4), true);
    }
    return list_of(c, v, n);
}

/* Function closures and partial applications of them. */
static uint64_t functions(sg_ctx *c) {
    uint64_t v[4];
    size_t n = 0;
    int site = fun_site(c);
    uint64_t f = fields_thunk(c, site);
    v[n++] = f;
    if (c->tabs[site].arity >= 2)
        v[n++] = sg_pap(c, f, site, 1 + (unsigned)sg_below(c, c->tabs[site].arity - 1), false);
    uint64_t r = sg_below(c, 10);
    if (r < 3) {
        uint64_t fp[2];
        values(c, fp, 2);
        uint64_t g = sg_fun(c, SG_T_FUN_PNP, fp, NULL);
        v[n++] = sg_pap(c, g, SG_T_FUN_PNP, 1 + (unsigned)sg_below(c, 2), false);
    } else if (r < 5) {
        v[n++] = sg_pap(c, sg_static_tagged(c, SG_S_FUN_B), SG_T_FUN_STATIC_B, 1, false);
    } else if (r < 6) {
        uint64_t fp[2];
        values(c, fp, 2);
        uint64_t w = sg_word_arg(c);
        uint64_t g = sg_fun(c, SG_T_FUN_LARGE, fp, &w);
        unsigned nargs = 60 + (unsigned)sg_below(c, 9);
        v[n++] = sg_pap(c, g, SG_T_FUN_LARGE, nargs, sg_chance(c, 30));
    } else if (r < 8) {
        uint64_t w = sg_word_arg(c);
        uint64_t g = sg_fun(c, SG_T_FUN_NP, NULL, &w);
        v[n++] = sg_pap(c, g, SG_T_FUN_NP, 1, false);
    } else {
        uint64_t fv = sg_value(c);
        uint64_t g = sg_fun(c, SG_T_FUN_SMALL, &fv, NULL);
        v[n++] = sg_pap(c, g, SG_T_FUN_SMALL, 1 + (unsigned)sg_below(c, 4), false);
    }
    return list_of(c, v, n);
}

/* an array of `tab`, or of a random array type when tab < 0 */
static uint64_t array(sg_ctx *c, int tab) {
    static const int big[] = {SG_T_MUT_ARR_FROZEN_CLEAN, SG_T_MUT_ARR_CLEAN, SG_T_MUT_ARR_DIRTY,
                              SG_T_MUT_ARR_FROZEN_DIRTY};
    static const int small[] = {SG_T_SMALL_ARR_FROZEN_CLEAN, SG_T_SMALL_ARR_CLEAN,
                                SG_T_SMALL_ARR_DIRTY, SG_T_SMALL_ARR_FROZEN_DIRTY};
    bool is_small = tab < 0 ? sg_chance(c, 40) : c->tabs[tab].type >= SG_SMALL_MUT_ARR_PTRS_CLEAN;
    size_t n = is_small ? 1 + sg_below(c, 32) : 1 + sg_below(c, 300);
    uint64_t *e = scratch(c, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = sg_value(c);
        e = c->scratch;
        e[i] = v;
    }
    if (tab < 0)
        tab = is_small ? small[sg_below(c, 4)] : big[sg_below(c, 4)];
    return is_small ? sg_small_arr(c, tab, e, n) : sg_mut_arr(c, tab, e, n);
}

static uint64_t text_or_bytes(sg_ctx *c, int kind) {
    static const char *const words[] = {"request", "λ-calculus", "heap", "retainer", "naïve",
                                        "GET /index.html", "era", "thunk", "→ done"};
    char buf[256];
    size_t len = 0;
    for (unsigned k = 1 + (unsigned)sg_below(c, 6); k-- > 0 && len < 200;)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s ", words[sg_below(c, 9)]);
    if (kind == 0 || (kind < 0 && sg_chance(c, 55))) {
        uint64_t arr = sg_arr_words(c, buf, len, sg_space_for_era(c));
        uint64_t w[2] = {0, len};
        return sg_con(c, SG_T_TEXT, &arr, w);
    }
    if (sg_chance(c, 30)) { /* a dead pinned buffer: fragmentation */
        sg_arr_words(c, buf, len / 2 + 1, SG_SP_PINNED);
        c->garbage++;
    }
    uint64_t arr = sg_arr_words(c, buf, len, SG_SP_PINNED);
    uint64_t contents = sg_con(c, SG_T_PLAINPTR, &arr, NULL);
    uint64_t w[2] = {arr + c->H + 8, len}; /* Addr# into the payload, length */
    return sg_con(c, SG_T_BS, &contents, w);
}

/* IORef, MVar or TVar (kind 0-2), clean or dirty */
static uint64_t mutable(sg_ctx *c, uint64_t r, bool dirty) {
    uint64_t v = sg_value(c), cell;
    if (r == 0) {
        cell = sg_mut_var(c, v, dirty);
        return sg_con(c, SG_T_STREF, &cell, NULL);
    }
    if (r == 1) {
        cell = sg_new(c, dirty ? SG_T_MVAR_DIRTY : SG_T_MVAR_CLEAN, 3);
        uint8_t *p = sg_at(c, cell) + c->H;
        sg_wset(p, 0, c->stat[SG_S_END_TSO_QUEUE]);
        sg_wset(p, 1, c->stat[SG_S_END_TSO_QUEUE]);
        sg_wset(p, 2, v);
        return sg_con(c, SG_T_MVARCON, &cell, NULL);
    }
    cell = sg_new(c, dirty ? SG_T_TVAR_DIRTY : SG_T_TVAR_CLEAN, 3);
    uint8_t *p = sg_at(c, cell) + c->H;
    sg_wset(p, 0, v);
    sg_wset(p, 1, c->stat[SG_S_END_STM_WATCH_QUEUE]);
    sg_wset(p, 2, sg_below(c, 40));
    return sg_con(c, SG_T_TVARCON, &cell, NULL);
}

static uint64_t weak(sg_ctx *c) {
    uint64_t key = sg_value(c), val = sg_value(c);
    uint64_t fin = sg_chance(c, 50) ? c->stat[SG_S_NO_FINALIZER]
                                    : sg_static_tagged(c, SG_S_FUN_A);
    uint64_t w = sg_new(c, SG_T_WEAK, 5);
    uint8_t *p = sg_at(c, w) + c->H;
    uint64_t f[5] = {c->stat[SG_S_NO_FINALIZER], key, val, fin, c->weak_link};
    for (size_t i = 0; i < 5; i++)
        sg_wset(p, i, f[i]);
    c->weak_link = w;
    return sg_con(c, SG_T_WEAKCON, &w, NULL);
}

static uint64_t ops(sg_ctx *c) {
    uint64_t v[8];
    size_t n = 2 + sg_below(c, 7);
    for (size_t i = 0; i < n; i++) {
        if (sg_chance(c, 70)) {
            v[i] = sg_static_tagged(c, (enum sg_static)(SG_S_OPA + sg_below(c, 6)));
        } else {
            uint64_t x = sg_int(c, some_int(c));
            v[i] = sg_con(c, SG_T_OPG, &x, NULL);
        }
    }
    return list_of(c, v, n);
}

/* An unreachable closure: nothing will ever point at it. */
void sg_garbage_one(sg_ctx *c) {
    uint64_t before = c->heap.n_closures, w, p[2];
    switch (sg_below(c, 6)) {
    case 0:
        sg_cons(c, pool_pick(c), nil(c));
        break;
    case 1:
        w = 1000000 + sg_below(c, 1000000);
        sg_con(c, SG_T_IHASH, NULL, &w);
        break;
    case 2:
        p[0] = pool_pick(c);
        p[1] = pool_pick(c);
        w = sg_below(c, SG_KIND_SITES);
        sg_thunk(c, SG_THUNK_SITE(3, (int)w), p, NULL);
        break;
    case 3:
        sg_arr_words(c, "stale bytes", 11, sg_space_for_era(c));
        break;
    case 4:
        sg_ind(c, SG_T_BLACKHOLE, pool_pick(c), 1);
        break;
    default:
        p[0] = pool_pick(c);
        sg_con(c, SG_T_JUST, p, NULL);
        break;
    }
    c->garbage += c->heap.n_closures - before;
}

static void flush_batch(sg_ctx *c) {
    if (!c->n_batch)
        return;
    uint64_t box, r = sg_below(c, 100);
    size_t n = c->n_batch;
    if (n <= 128 && r < 10)
        box = sg_small_arr(c, SG_T_SMALL_ARR_FROZEN_CLEAN, c->batch, n);
    else if (r < 15)
        box = list_of(c, c->batch, n);
    else
        box = sg_mut_arr(c, r < 70 ? SG_T_MUT_ARR_FROZEN_CLEAN : r < 80 ? SG_T_MUT_ARR_CLEAN
                            : r < 90 ? SG_T_MUT_ARR_DIRTY : SG_T_MUT_ARR_FROZEN_DIRTY,
                         c->batch, n);
    unsigned a = c->next_anchor++ % SG_N_ANCHORS;
    c->anchors[a] = sg_cons(c, box, c->anchors[a]);
    c->n_batch = 0;
    c->batch_goal = 64 + sg_below(c, 960);
}

void sg_bulk_root(sg_ctx *c, uint64_t v) {
    if (!c->anchors[0])
        for (int i = 0; i < SG_N_ANCHORS; i++)
            c->anchors[i] = nil(c);
    if (c->n_batch == c->cap_batch) {
        c->cap_batch = c->cap_batch ? 2 * c->cap_batch : 1024;
        c->batch = sg_realloc_mem(c, c->batch, c->cap_batch * sizeof *c->batch);
    }
    c->batch[c->n_batch++] = v;
    if (!c->batch_goal)
        c->batch_goal = 64 + sg_below(c, 960);
    if (c->n_batch >= c->batch_goal)
        flush_batch(c);
}

/* One of every kind, whatever the seed, so even small heaps exercise every
 * decoder path. */
static void samples(sg_ctx *c) {
    static const int arrays[] = {SG_T_MUT_ARR_CLEAN,         SG_T_MUT_ARR_DIRTY,
                                 SG_T_MUT_ARR_FROZEN_DIRTY,  SG_T_MUT_ARR_FROZEN_CLEAN,
                                 SG_T_SMALL_ARR_CLEAN,       SG_T_SMALL_ARR_DIRTY,
                                 SG_T_SMALL_ARR_FROZEN_DIRTY, SG_T_SMALL_ARR_FROZEN_CLEAN};
    for (int kind = 0; kind < 6; kind++) {
        sg_bulk_root(c, fields_thunk(c, SG_THUNK_SITE(kind, kind)));
        sg_bulk_root(c, fields_thunk(c, SG_FUN_SITE(kind, kind)));
    }
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        sg_bulk_root(c, array(c, arrays[i]));
    for (int m = 0; m < 6; m++)
        sg_bulk_root(c, mutable(c, (uint64_t)m / 2, m % 2));
    uint64_t fv[2];
    values(c, fv, 2);
    uint64_t w = sg_word_arg(c);
    uint64_t f_small = sg_fun(c, SG_T_FUN_SMALL, fv, NULL);
    uint64_t f_pnp = sg_fun(c, SG_T_FUN_PNP, fv, NULL);
    uint64_t f_large = sg_fun(c, SG_T_FUN_LARGE, fv, &w);
    uint64_t f_np = sg_fun(c, SG_T_FUN_NP, NULL, &w);
    uint64_t v[7];
    v[0] = sg_pap(c, f_small, SG_T_FUN_SMALL, 3, false);
    v[1] = sg_pap(c, f_pnp, SG_T_FUN_PNP, 2, false);
    v[2] = sg_pap(c, f_large, SG_T_FUN_LARGE, 66, false);
    v[3] = sg_pap(c, f_np, SG_T_FUN_NP, 1, false);
    v[4] = sg_pap(c, sg_static_tagged(c, SG_S_FUN_B), SG_T_FUN_STATIC_B, 1, false);
    v[5] = sg_pap(c, f_small, SG_T_FUN_SMALL, 4, true);
    v[6] = sg_pap(c, f_large, SG_T_FUN_LARGE, 10, true);
    sg_bulk_root(c, list_of(c, v, 7));
    uint64_t pair[2];
    values(c, pair, 2);
    v[0] = sg_selector(c, SG_T_SEL0, sg_con(c, SG_T_TUP2, pair, NULL));
    v[1] = sg_selector(c, SG_T_SEL1, fields_thunk(c, SG_THUNK_SITE(0, 1)));
    v[2] = sg_ind(c, SG_T_IND, sg_value(c), 1);
    v[3] = sg_ind(c, SG_T_BLACKHOLE, sg_value(c), 2);
    sg_bulk_root(c, list_of(c, v, 4));
    sg_bulk_root(c, text_or_bytes(c, 0));
    sg_bulk_root(c, text_or_bytes(c, 1));
    sg_bulk_root(c, weak(c));
    sg_bulk_root(c, ops(c));
    sg_bulk_root(c, record(c));
    sg_bulk_root(c, map(c, 7));
    sg_bulk_root(c, string(c, 12));
    sg_bulk_root(c, int_list(c, 10));
}

void sg_shapes_build(sg_ctx *c, uint64_t target) {
    static const int ccs_pick[] = {SG_CC_MAIN_FN, SG_CC_BUILDMAP, SG_CC_WORKER, SG_CC_GO,
                                   SG_CC_CAF};
    c->cur_era = 1;
    c->cur_ccs = c->ccs[SG_CC_MAIN_FN];
    samples(c);
    if (target >= 20000) { /* one long list: deep chains for the traversals */
        size_t len = target / 20 < 1000000 ? target / 20 : 1000000;
        sg_bulk_root(c, int_list(c, len));
    }
    while (c->heap.n_closures < target) {
        c->cur_era = 1 + (unsigned)sg_below(c, c->opt->eras);
        c->cur_ccs = c->ccs[ccs_pick[sg_below(c, 5)]];
        uint64_t r = sg_below(c, 100), v;
        if (r < 20) v = int_list(c, 5 + sg_below(c, 56));
        else if (r < 36) v = string(c, 3 + sg_below(c, 38));
        else if (r < 46) v = map(c, 3 + sg_below(c, 62));
        else if (r < 60) v = record(c);
        else if (r < 70) v = thunks(c);
        else if (r < 76) v = functions(c);
        else if (r < 81) v = array(c, -1);
        else if (r < 88) v = text_or_bytes(c, -1);
        else if (r < 93) {
            uint64_t kind = sg_below(c, 3);
            v = mutable(c, kind, sg_chance(c, 50));
        }
        else if (r < 94) v = weak(c);
        else v = ops(c);
        sg_bulk_root(c, v);
        while (c->garbage * 50 < c->heap.n_closures)
            sg_garbage_one(c);
    }
    flush_batch(c);
    sg_static_set_caf(c, SG_S_CAF_B, c->anchors[SG_N_ANCHORS - 1]);
}
