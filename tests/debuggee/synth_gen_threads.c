/* Threads: TSOs in layout C (GHC >= 9.10, heap-layout.md §7) and their
 * STACK chunks, with frames of every kind the client must walk: small and
 * large bitmaps, RET_FUN, update/catch/atomically frames, the
 * orig-thunk-info frame, and an underflow frame into an older chunk.
 * The stacks hold the bulk anchors, and the main thread holds the leak.
 *
 *   T0 main, blocked on an MVar, holds the leak's IORef     gen 0
 *   T1 worker, owns a blackhole others wait on, big stack   gen 0
 *   T2 blocked on T1's blackhole, chunked stack             gen 0
 *   T3 in an STM transaction                                gen 0
 *   T4 killed, T5 evaluating a CAF, T6 blocked reading an
 *   MVar, T7 finished                                       gen 1 */
#include <string.h>

#include "synth_gen_internal.h"

#define N_THREADS 8
#define SMALL_STACK_BYTES 1024u   /* -ki1k: a new thread's first chunk */
#define CHUNK_BYTES 32768u        /* -kc32k: later chunks */

typedef struct stk {
    uint64_t addr, lo, sp, end;
    uint32_t size; /* stack_size in words */
} stk;

static enum sg_space thread_space(int t) {
    return t < 4 ? SG_SP_GEN0 : SG_SP_GEN1;
}

static void set_era(sg_ctx *c, unsigned era, int cc) {
    c->cur_era = era <= c->opt->eras ? era : c->opt->eras;
    c->cur_ccs = c->ccs[cc];
}

void sg_threads_reserve(sg_ctx *c) {
    static const unsigned era[N_THREADS] = {1, 1, 2, 9, 1, 2, 9, 3};
    size_t words = c->prof ? 17 : 16; /* 17 or 20 words with the header */
    for (int t = 0; t < N_THREADS; t++) {
        set_era(c, era[t], SG_CC_MAIN_FN);
        c->tsos[t] = sg_new_in(c, SG_T_TSO, words, thread_space(t));
    }
    c->n_tsos = N_THREADS;
}

static void stack_new(sg_ctx *c, stk *s, unsigned total_bytes, enum sg_space sp) {
    s->size = total_bytes / 8 - c->Hw - 2;
    s->addr = sg_new_in(c, SG_T_STACK, 2 + s->size, sp);
    s->lo = s->addr + c->H + 16;
    s->end = s->sp = s->lo + 8 * (uint64_t)s->size;
}

static void stack_done(sg_ctx *c, stk *s) {
    uint8_t *p = sg_at(c, s->addr) + c->H;
    sg_wset(p, 0, s->size | UINT64_C(1) << 32); /* dirty */
    sg_wset(p, 1, s->sp);
}

static void push(sg_ctx *c, stk *s, const uint64_t *w, size_t n) {
    if (s->sp - s->lo < 8 * n)
        sg_fail(c, "internal: stack chunk overflow");
    s->sp -= 8 * n;
    uint8_t *p = sg_at(c, s->sp);
    for (size_t i = 0; i < n; i++)
        sg_wset(p, i, w[i]);
}

/* A frame described by its table's map: 'P' slots take ptrs[] in order
 * (then fresh values), 'N' slots plain words; the profiling header words
 * of RTS frames get a CCS and 0. */
static void frame(sg_ctx *c, stk *s, int tab, const uint64_t *ptrs, size_t n_ptrs) {
    const char *bm = c->tabs[tab].bm;
    size_t n = strlen(bm), k = 0;
    uint64_t w[SG_MAX_BM + 1];
    bool rts_frame = tab < SG_T_FIXED_COUNT ? sg_catalog[tab].prof_hdr : tab == SG_T_ANN_FRAME;
    bool prof_hdr = c->prof && rts_frame;
    w[0] = c->tabs[tab].p;
    for (size_t i = 0; i < n; i++) {
        if (prof_hdr && i < 2)
            w[1 + i] = i == 0 ? c->cur_ccs : 0;
        else if (bm[i] == 'P')
            w[1 + i] = k < n_ptrs ? ptrs[k++] : sg_value(c);
        else
            w[1 + i] = tab == SG_T_CATCH_FRAME ? 0 : sg_word_arg(c);
    }
    push(c, s, w, 1 + n);
}

/* RET_FUN: size, function, then the arguments the function's map describes. */
static void ret_fun_frame(sg_ctx *c, stk *s) {
    uint64_t fv[2];
    fv[0] = sg_value(c);
    fv[1] = sg_value(c);
    uint64_t fun = sg_fun(c, SG_T_FUN_PNP, fv, NULL);
    uint64_t w[6] = {c->tabs[SG_T_RET_FUN].p, 3, fun, 0, 0, 0};
    w[3] = sg_value(c);
    w[4] = sg_word_arg(c);
    w[5] = sg_value(c);
    push(c, s, w, 6);
}

/* GHC 9.14: `annotateStack text` pushed an annotation frame; its value
 * (here the text as a byte array) is reachable only through the frame. */
static void ann_frame(sg_ctx *c, stk *s, int t, const char *text) {
    if (!sg_has_ann_frame(c->opt->ghc_version))
        return;
    uint64_t v = sg_arr_words(c, text, strlen(text), SG_SP_GEN0);
    frame(c, s, SG_T_ANN_FRAME, &v, 1);
    c->ann_thread[c->n_ann] = c->tsos[t];
    c->ann_value[c->n_ann++] = v;
}

typedef struct tso_fields {
    uint64_t stack, block_info, trec, label, bq, alloc_limit;
    uint16_t what_next;
    uint32_t why_blocked, flags, tot_stack;
} tso_fields;

static void tso_fill(sg_ctx *c, int t, const tso_fields *f) {
    uint64_t end = c->stat[SG_S_END_TSO_QUEUE];
    uint64_t global = (t == 3 || t == N_THREADS - 1) ? end : c->tsos[t + 1];
    uint64_t w[17] = {
        end,                                                   /* _link */
        global,                                                /* global_link */
        f->stack,                                              /* stackobj */
        f->what_next | (uint64_t)f->flags << 32,               /* what_next, pad, flags */
        f->why_blocked,                                        /* why_blocked, pad */
        f->block_info ? f->block_info : end,                   /* block_info */
        (uint64_t)t + 1,                                       /* id */
        (uint64_t)1 << 32,                                     /* saved_errno, dirty */
        t == 0 ? c->stat[SG_S_INCALL] : 0,                     /* bound */
        c->stat[SG_S_CAPABILITY],                              /* cap */
        f->trec ? f->trec : c->stat[SG_S_NO_TREC],             /* trec */
        f->label,                                              /* label */
        end,                                                   /* blocked_exceptions */
        f->bq ? f->bq : end,                                   /* bq */
        f->alloc_limit,                                        /* alloc_limit */
        f->tot_stack,                                          /* tot_stack_size, pad */
        c->ccs[SG_CC_MAIN_FN],                                 /* prof.cccs */
    };
    uint8_t *p = sg_at(c, c->tsos[t]) + c->H;
    for (size_t i = 0; i < (c->prof ? 17u : 16u); i++)
        sg_wset(p, i, w[i]);
}

static uint64_t thread_main(sg_ctx *c) {
    stk s;
    set_era(c, 1, SG_CC_MAIN_FN);
    stack_new(c, &s, SMALL_STACK_BYTES, SG_SP_GEN0);
    frame(c, &s, SG_T_STOP_FRAME, NULL, 0);
    uint64_t handler = sg_static_tagged(c, SG_S_HANDLER);
    frame(c, &s, SG_T_CATCH_FRAME, &handler, 1);
    ann_frame(c, &s, 0, "main: serving requests");
    frame(c, &s, SG_T_LEAK_FRAME, &c->leak_mutvar, 1);
    frame(c, &s, SG_T_BLOCK_TAKEMVAR, &c->mvar_main, 1);
    stack_done(c, &s);
    tso_fields f = {.stack = s.addr, .block_info = c->mvar_main, .what_next = 1,
                    .why_blocked = 1, .flags = 0x2 /* LOCKED */, .tot_stack = s.size};
    tso_fill(c, 0, &f);
    return s.addr;
}

static void thread_worker(sg_ctx *c) {
    stk s;
    set_era(c, 1, SG_CC_WORKER);
    stack_new(c, &s, CHUNK_BYTES, SG_SP_GEN0);
    frame(c, &s, SG_T_STOP_FRAME, NULL, 0);
    uint64_t handler = sg_static_tagged(c, SG_S_HANDLER);
    frame(c, &s, SG_T_CATCH_FRAME, &handler, 1);
    ann_frame(c, &s, 1, "worker-1: draining the queue");
    frame(c, &s, SG_RET_SITE(1), &c->anchors[0], 2);
    frame(c, &s, SG_RET_SITE(2), &c->anchors[2], 2);
    frame(c, &s, SG_T_RET_BIG, &c->anchors[4], 2);
    ret_fun_frame(c, &s);
    frame(c, &s, SG_T_UPD_FRAME, &c->bh_owned, 1);
    uint64_t orig = c->tabs[SG_THUNK_SITE(3, 1)].p; /* info of the thunk being updated */
    push(c, &s, (uint64_t[]){c->tabs[SG_T_ORIG_THUNK_FRAME].p, orig}, 2);
    frame(c, &s, SG_RET_SITE(4), NULL, 0);
    stack_done(c, &s);
    static const char label[] = "worker-1";
    uint64_t lab = sg_arr_words(c, label, sizeof label - 1, SG_SP_GEN0);
    tso_fields f = {.stack = s.addr, .label = lab, .bq = c->bq, .what_next = 1,
                    .flags = 0x100 /* ALLOC_LIMIT */, .alloc_limit = 100u << 20,
                    .tot_stack = s.size};
    tso_fill(c, 1, &f);
    c->saved[c->n_saved++] = lab;
}

/* Chunked stack: the current chunk ends in an UNDERFLOW_FRAME that points
 * at the older, full chunk. Being the last frame, it is never traversed. */
static void thread_chunked(sg_ctx *c) {
    stk old, cur;
    set_era(c, 2, SG_CC_GO);
    stack_new(c, &old, SMALL_STACK_BYTES, SG_SP_GEN0);
    frame(c, &old, SG_T_STOP_FRAME, NULL, 0);
    while (old.sp - old.lo >= 8 * 12) {
        uint64_t v = sg_int(c, (int64_t)(old.sp - old.lo));
        frame(c, &old, SG_RET_SITE(0), &v, 1);
    }
    /* it was running byte code: ctoi frame, the BCO, then the BCO's two
     * arguments (pointer, word) */
    uint64_t arg = sg_int(c, 4242);
    push(c, &old, (uint64_t[]){c->tabs[SG_T_RET_BCO].p, c->bco, arg, 7}, 4);
    stack_done(c, &old);
    stack_new(c, &cur, CHUNK_BYTES, SG_SP_GEN0);
    frame(c, &cur, SG_T_UNDERFLOW_FRAME, &old.addr, 1);
    frame(c, &cur, SG_RET_SITE(5), &c->anchors[6], 1);
    frame(c, &cur, SG_RET_SITE(3), &c->anchors[7], 1);
    frame(c, &cur, SG_T_BLOCK_BLACKHOLE, &c->bh_owned, 1);
    stack_done(c, &cur);
    tso_fields f = {.stack = cur.addr, .block_info = c->msg_bh, .what_next = 1,
                    .why_blocked = 2, .tot_stack = old.size + cur.size};
    tso_fill(c, 2, &f);
}

static void thread_stm(sg_ctx *c) {
    stk s;
    set_era(c, 9, SG_CC_WORKER);
    stack_new(c, &s, SMALL_STACK_BYTES, SG_SP_GEN0);
    frame(c, &s, SG_T_STOP_FRAME, NULL, 0);
    uint64_t handler = sg_static_tagged(c, SG_S_HANDLER);
    frame(c, &s, SG_T_CATCH_FRAME, &handler, 1);
    uint64_t atom[2] = {sg_static_tagged(c, SG_S_FUN_A), sg_static_tagged(c, SG_S_UNIT)};
    frame(c, &s, SG_T_ATOMICALLY_FRAME, atom, 2);
    frame(c, &s, SG_T_UPD_FRAME, &c->bh_self, 1);
    frame(c, &s, SG_RET_SITE(6), NULL, 0);
    stack_done(c, &s);
    tso_fields f = {.stack = s.addr, .trec = c->trec_header, .what_next = 1, .why_blocked = 6,
                    .flags = 0x4 /* BLOCKEX */, .tot_stack = s.size};
    tso_fill(c, 3, &f);
}

/* Threads of the old generation. */
static void threads_old(sg_ctx *c) {
    stk s;
    uint64_t handler = sg_static_tagged(c, SG_S_HANDLER);
    for (int t = 4; t < N_THREADS; t++) {
        set_era(c, t == 4 ? 1 : t == 5 ? 2 : t == 6 ? 9 : 3, SG_CC_MAIN_FN);
        stack_new(c, &s, SMALL_STACK_BYTES, SG_SP_GEN1);
        frame(c, &s, SG_T_STOP_FRAME, NULL, 0);
        tso_fields f = {.what_next = 1};
        if (t == 4) {
            f.what_next = 3; /* killed: only its stop frame is left */
        } else if (t == 5) {
            frame(c, &s, SG_T_CATCH_FRAME, &handler, 1);
            frame(c, &s, SG_RET_SITE(7), &c->anchors[8], 1);
            frame(c, &s, SG_RET_SITE(2), &c->anchors[9], 1);
            frame(c, &s, SG_T_UPD_FRAME, &c->caf_bh, 1);
            frame(c, &s, SG_RET_SITE(0), NULL, 0);
            f.why_blocked = 5; /* BlockedOnDelay: block_info is a wake-up time */
            f.block_info = 1700000000123ull;
            f.flags = 0x4 | 0x8;
        } else if (t == 6) {
            frame(c, &s, SG_RET_SITE(1), NULL, 0);
            frame(c, &s, SG_T_BLOCK_TAKEMVAR, &c->mvar_read, 1);
            f.why_blocked = 14; /* BlockedOnMVarRead */
            f.block_info = c->mvar_read;
        } else {
            f.what_next = 4; /* finished */
        }
        stack_done(c, &s);
        f.stack = s.addr;
        f.tot_stack = s.size;
        tso_fill(c, t, &f);
    }
}

void sg_threads_build(sg_ctx *c) {
    uint64_t main_stack = thread_main(c);
    thread_worker(c);
    thread_chunked(c);
    thread_stm(c);
    threads_old(c);

    /* ROOTS: threads (gen 0 list, then gen 1), then stable pointers */
    set_era(c, 1, SG_CC_MAIN_FN);
    uint64_t hw = 2;
    uint64_t holder = sg_con(c, SG_T_HOLDER, &c->anchors[10], &hw);
    uint64_t stable[5] = {holder, c->stable_extra[0], c->stable_extra[1], c->stable_extra[2],
                          c->stable_extra[3]};
    c->n_roots = N_THREADS + 5;
    c->roots = sg_alloc_mem(c, c->n_roots * sizeof *c->roots);
    for (int t = 0; t < N_THREADS; t++)
        c->roots[t] = c->tsos[t] | (t == 5 ? 1 : 0); /* roots may be sent tagged */
    memcpy(c->roots + N_THREADS, stable, sizeof stable);
    if (c->opt->unknown_type) { /* a stable pointer to a closure of a type GHC has not */
        c->unknown = sg_new(c, SG_T_UNKNOWN, 2);
        uint8_t *p = sg_at(c, c->unknown) + c->H;
        sg_wset(p, 0, sg_static_tagged(c, SG_S_UNIT));
        sg_wset(p, 1, c->opt->unknown_type);
        c->roots = sg_realloc_mem(c, c->roots, (c->n_roots + 1) * sizeof *c->roots);
        c->roots[c->n_roots++] = c->unknown;
    }
    c->saved[c->n_saved++] = c->tsos[1];
    c->saved[c->n_saved++] = holder & ~(uint64_t)7;

    uint64_t path[6] = {c->tsos[0], main_stack, c->leak_mutvar, c->leak_thunk,
                        c->leak_first_cell, c->leak_first};
    memcpy(c->leak_path, path, sizeof path);
    c->leak_path_len = 6;
}
