/* Private state of the heap generator (synth_gen_*.c).
 *
 * Generation runs in phases, each in its own file (order of synth_gen.c):
 *   synth_gen_static.c   reserve the static closures of the data region
 *   synth_gen_text.c     lay out every info table (the fixed ones listed in
 *                        synth_gen_catalog.c), con descs, bitmaps, IPE map
 *   synth_gen_static.c   write the static closures and cost centres
 *   synth_gen_threads.c  reserve the TSOs (other objects point at them)
 *   synth_gen_rts.c      RTS objects (MVar, TVar, Weak, BCO, compact, ...)
 *   synth_gen_leak.c     the planted leak
 *   synth_gen_shapes.c   the bulk of the heap, batched under "anchors"
 *   synth_gen_threads.c  stacks and TSO fields, which hold the anchors
 *   synth_gen_plan.c     breadth-first walk of the result -> plan
 *   synth_gen_json.c     the plan as JSON
 * synth_gen_heap.c owns megablocks, block groups and descriptors;
 * synth_gen_obj.c writes single closures; synth_gen_walk.c decodes them
 * back from memory (for the plan). Errors longjmp out through sg_fail, and
 * synth_generate frees whatever was built. */
#ifndef SYNTH_GEN_INTERNAL_H
#define SYNTH_GEN_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "synth_gen.h"

/* Closure types (heap-layout.md §2). */
enum sg_type {
    SG_INVALID, SG_CONSTR, SG_CONSTR_1_0, SG_CONSTR_0_1, SG_CONSTR_2_0, SG_CONSTR_1_1,
    SG_CONSTR_0_2, SG_CONSTR_NOCAF, SG_FUN, SG_FUN_1_0, SG_FUN_0_1, SG_FUN_2_0, SG_FUN_1_1,
    SG_FUN_0_2, SG_FUN_STATIC, SG_THUNK, SG_THUNK_1_0, SG_THUNK_0_1, SG_THUNK_2_0,
    SG_THUNK_1_1, SG_THUNK_0_2, SG_THUNK_STATIC, SG_THUNK_SELECTOR, SG_BCO, SG_AP, SG_PAP,
    SG_AP_STACK, SG_IND, SG_IND_STATIC, SG_RET_BCO, SG_RET_SMALL, SG_RET_BIG, SG_RET_FUN,
    SG_UPDATE_FRAME, SG_CATCH_FRAME, SG_UNDERFLOW_FRAME, SG_STOP_FRAME, SG_BLOCKING_QUEUE,
    SG_BLACKHOLE, SG_MVAR_CLEAN, SG_MVAR_DIRTY, SG_TVAR, SG_ARR_WORDS,
    SG_MUT_ARR_PTRS_CLEAN, SG_MUT_ARR_PTRS_DIRTY, SG_MUT_ARR_PTRS_FROZEN_DIRTY,
    SG_MUT_ARR_PTRS_FROZEN_CLEAN, SG_MUT_VAR_CLEAN, SG_MUT_VAR_DIRTY, SG_WEAK, SG_PRIM,
    SG_MUT_PRIM, SG_TSO, SG_STACK, SG_TREC_CHUNK, SG_ATOMICALLY_FRAME, SG_CATCH_RETRY_FRAME,
    SG_CATCH_STM_FRAME, SG_WHITEHOLE, SG_SMALL_MUT_ARR_PTRS_CLEAN,
    SG_SMALL_MUT_ARR_PTRS_DIRTY, SG_SMALL_MUT_ARR_PTRS_FROZEN_DIRTY,
    SG_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN, SG_COMPACT_NFDATA, SG_CONTINUATION,
    SG_ANN_FRAME, /* GHC >= 9.14 */
    SG_N_CLOSURE_TYPES
};
/* ANN_FRAME (annotateStack's frame) came with GHC 9.14: before, 65 is a
 * number GHC has no closure type for. */
static inline bool sg_has_ann_frame(unsigned major) {
    return major >= 914;
}
static inline unsigned sg_closure_types_of(unsigned major) {
    return sg_has_ann_frame(major) ? SG_N_CLOSURE_TYPES : SG_ANN_FRAME;
}

#define SG_HEAP_END UINT64_C(0x14200000000) /* client's heap range, inclusive */
#define SG_LARGE_BYTES 3276u                /* 8/10 of a block */
#define SG_BLOCKS_PER_MB 256u
#define SG_FIRST_BLOCK 4u
#define SG_TEXT_TABLES_CAP 0x20000u /* info tables first, then strings/bitmaps */
#define SG_MAX_BM 80                /* longest pointer map string */

/* The fixed part of the info-table catalogue (synth_gen_catalog.c). */
enum sg_tab {
    /* heap constructors */
    SG_T_IHASH, SG_T_CHASH, SG_T_DHASH, SG_T_CONS, SG_T_JUST, SG_T_TUP2, SG_T_TUP3,
    SG_T_BIN, SG_T_LEAK, SG_T_HOLDER, SG_T_ENTRY, SG_T_SPAN, SG_T_OPG, SG_T_TEXT, SG_T_BS,
    SG_T_PLAINPTR, SG_T_STREF, SG_T_MVARCON, SG_T_TVARCON, SG_T_WEAKCON,
    /* static-only constructors (CONSTR_NOCAF) */
    SG_T_NIL, SG_T_NOTHING, SG_T_TIP, SG_T_TRUE, SG_T_FALSE, SG_T_UNIT, SG_T_OPA, SG_T_OPB,
    SG_T_OPC, SG_T_OPD, SG_T_OPE, SG_T_OPF, SG_T_INTLIKE, SG_T_CHARLIKE,
    SG_T_END_TSO_QUEUE, SG_T_NO_TREC, SG_T_END_STM_WATCH_QUEUE, SG_T_END_STM_CHUNK_LIST,
    SG_T_NO_FINALIZER, SG_T_SRT1, SG_T_SRT2, SG_T_SRT3,
    /* RTS heap objects */
    SG_T_IND, SG_T_IND_STATIC, SG_T_BLACKHOLE, SG_T_CAF_BLACKHOLE, SG_T_MVAR_CLEAN,
    SG_T_MVAR_DIRTY, SG_T_TVAR_CLEAN, SG_T_TVAR_DIRTY, SG_T_ARR_WORDS, SG_T_MUT_ARR_CLEAN,
    SG_T_MUT_ARR_DIRTY, SG_T_MUT_ARR_FROZEN_DIRTY, SG_T_MUT_ARR_FROZEN_CLEAN,
    SG_T_SMALL_ARR_CLEAN, SG_T_SMALL_ARR_DIRTY, SG_T_SMALL_ARR_FROZEN_DIRTY,
    SG_T_SMALL_ARR_FROZEN_CLEAN, SG_T_MUT_VAR_CLEAN, SG_T_MUT_VAR_DIRTY, SG_T_WEAK,
    SG_T_BQ, SG_T_TSO, SG_T_STACK, SG_T_TREC_CHUNK, SG_T_TREC_HEADER, SG_T_MVAR_TSO_QUEUE,
    SG_T_MSG_BLACKHOLE, SG_T_TVAR_WATCH_QUEUE, SG_T_PAP, SG_T_AP, SG_T_AP_STACK, SG_T_BCO,
    SG_T_SEL0, SG_T_SEL1, SG_T_COMPACT,
    /* stack frames */
    SG_T_UPD_FRAME, SG_T_CATCH_FRAME, SG_T_STOP_FRAME, SG_T_UNDERFLOW_FRAME,
    SG_T_ATOMICALLY_FRAME, SG_T_RET_FUN, SG_T_ORIG_THUNK_FRAME, SG_T_BLOCK_TAKEMVAR,
    SG_T_BLOCK_BLACKHOLE, SG_T_RET_BIG, SG_T_LEAK_FRAME, SG_T_RET_BCO,
    /* functions and thunks with fixed roles */
    SG_T_FUN_SMALL, SG_T_FUN_PNP, SG_T_FUN_LARGE, SG_T_FUN_NP, SG_T_FUN_STATIC_A,
    SG_T_FUN_STATIC_B, SG_T_HANDLER, SG_T_LEAK_THUNK, SG_T_CAF_A, SG_T_CAF_B, SG_T_CAF_C,
    SG_T_FIXED_COUNT
};

/* Generated "sites": many distinct thunk/function/return-frame tables, as a
 * real program has, so the IPE map is rich. */
#define SG_KIND_SITES 8 /* per thunk type, per function type */
#define SG_RET_SITES 8
#define SG_THUNK_SITE(kind, k) (SG_T_FIXED_COUNT + (kind) * SG_KIND_SITES + (k))
#define SG_FUN_SITE(kind, k) (SG_T_FIXED_COUNT + (6 + (kind)) * SG_KIND_SITES + (k))
#define SG_RET_SITE(k) (SG_T_FIXED_COUNT + 12 * SG_KIND_SITES + (k))
#define SG_T_TOTAL (SG_T_FIXED_COUNT + 12 * SG_KIND_SITES + SG_RET_SITES)
/* Tables laid out only for some options, after all the others (so the
 * text region of the default heap stays as it was): GHC 9.14's annotation
 * frame, and the table of --unknown-type. */
#define SG_T_ANN_FRAME SG_T_TOTAL
#define SG_T_UNKNOWN (SG_T_TOTAL + 1)
#define SG_T_ALL (SG_T_TOTAL + 2)

/* Static closures and other data-region objects. */
enum sg_static {
    SG_S_END_TSO_QUEUE, SG_S_NO_TREC, SG_S_END_STM_WATCH_QUEUE, SG_S_END_STM_CHUNK_LIST,
    SG_S_NO_FINALIZER, SG_S_NIL, SG_S_NOTHING, SG_S_TIP, SG_S_TRUE, SG_S_FALSE, SG_S_UNIT,
    SG_S_OPA, SG_S_OPB, SG_S_OPC, SG_S_OPD, SG_S_OPE, SG_S_OPF,
    SG_S_FUN_A, SG_S_FUN_B, SG_S_HANDLER, SG_S_CAF_A, SG_S_CAF_B, SG_S_CAF_C,
    SG_S_SRT_A, SG_S_SRT_B, SG_S_SRT_C,
    SG_S_CAPABILITY, SG_S_INCALL, SG_S_GEN0, SG_S_GEN1,
    SG_S_COUNT
};
#define SG_INTLIKE_MIN (-16)
#define SG_INTLIKE_MAX 255
#define SG_CHARLIKE_MAX 255

/* Cost centres of the profiled flavour. */
enum sg_cc { SG_CC_MAIN, SG_CC_CAF, SG_CC_DONT_CARE, SG_CC_MAIN_FN, SG_CC_LEAKY,
             SG_CC_BUILDMAP, SG_CC_WORKER, SG_CC_GO, SG_CC_COUNT };

/* One info table as laid out. */
typedef struct sg_itab {
    uint64_t p;        /* info pointer (entry code address) */
    uint64_t srt;      /* SRT closure address, 0 = none */
    uint16_t type;
    uint32_t ptrs, nptrs;
    uint8_t tag;       /* constructors: 0-based constructor tag */
    uint8_t fun_type;  /* functions */
    uint8_t arity;     /* functions */
    char bm[SG_MAX_BM]; /* argument map (functions) or frame payload map, 'P'/'N' */
} sg_itab;

/* One contiguous run of megablocks, backed by one growing buffer. */
typedef struct sg_run {
    uint64_t base;
    size_t size; /* bytes in use (whole megablocks) */
    size_t cap;
    uint8_t *bytes;
} sg_run;

/* Allocation spaces of small objects. */
enum sg_space { SG_SP_GEN0, SG_SP_GEN1, SG_SP_PINNED, SG_SP_COUNT };
enum sg_arena { SG_AR_SMALL, SG_AR_LARGE, SG_AR_COUNT };

typedef struct sg_heap {
    sg_run *runs;
    size_t n_runs, cap_runs;
    uint64_t next_mb;       /* address of the next megablock to map */
    unsigned mbs_in_run;    /* for the occasional gap between runs */
    struct sg_arena_cur { uint64_t mb; unsigned next; } arena[SG_AR_COUNT];
    struct { uint64_t start, free, end; } open[SG_SP_COUNT];
    uint64_t last_head[2][2]; /* [gen][large?]: descriptor of the last group, for link */
    uint64_t *groups;
    size_t n_groups, cap_groups;
    uint64_t group_bytes;   /* 4096 x blocks over all groups: what ALL_BLOCKS sends */
    uint64_t *starts;       /* closure-start bitmap, one bit per heap word */
    size_t starts_words;
    uint64_t n_closures;
} sg_heap;

typedef struct sg_buf {
    uint8_t *b;
    size_t len, cap;
} sg_buf;

typedef struct sg_ipe_rec {
    uint64_t info;
    size_t str[6]; /* offsets into ctx.ipe_text */
} sg_ipe_rec;

/* One planted string value of --strings (synth_gen_strings.c). */
typedef struct sg_planted {
    const char *value; /* its bytes */
    size_t len;
    const char *kinds; /* as `heapscope strings` names them */
    uint64_t count, bytes, min, matches; /* wasted = bytes - min (the smallest copy) */
    uint64_t shared; /* an array its Texts share, 0 = none */
} sg_planted;
#define SG_MAX_PLANTED 8

#define SG_N_ANCHORS 13
#define SG_POOL 64

typedef struct sg_ctx {
    const synth_options *opt;
    char *err;
    size_t errlen;
    jmp_buf fail;

    bool prof;
    uint8_t prof_mode;  /* SYNTH_PROF_* (0 when not profiled) */
    unsigned H, Hw, S;
    uint64_t rng;

    /* text region */
    sg_buf text;    /* tables segment, at SYNTH_TEXT_BASE */
    sg_buf strs;    /* strings segment, at SYNTH_TEXT_BASE + SG_TEXT_TABLES_CAP */
    sg_itab tabs[SG_T_ALL];
    char leak_desc[160];

    /* IPE map under construction */
    sg_ipe_rec *ipes;
    size_t n_ipes, cap_ipes;
    sg_buf ipe_text;

    /* data region */
    sg_buf data;
    uint64_t stat[SG_S_COUNT];
    uint64_t intlike0;  /* address of INTLIKE(SG_INTLIKE_MIN) */
    uint64_t charlike0; /* address of CHARLIKE(0) */
    unsigned static_bytes; /* size of one INTLIKE/CHARLIKE closure */
    uint64_t cc[SG_CC_COUNT];
    uint64_t ccs[SG_CC_COUNT];
    uint64_t cc_index[8]; /* index-table entries */

    /* heap */
    sg_heap heap;
    unsigned cur_era;   /* era of the closures being written (1..eras) */
    uint64_t cur_ccs;   /* profiled: CCS of the closures being written */

    /* bulk bookkeeping */
    uint64_t anchors[SG_N_ANCHORS]; /* tagged list heads */
    uint64_t *batch;
    size_t n_batch, cap_batch, batch_goal;
    unsigned next_anchor;
    uint64_t pool[SG_POOL]; /* recently built values, for sharing */
    unsigned n_pool;
    uint64_t garbage;       /* garbage closures allocated */
    uint64_t weak_link;     /* newest WEAK: the capability's weak list */
    uint64_t *scratch;      /* temporary arrays of the shapes */
    size_t scratch_cap;

    /* fixtures shared between phases */
    uint64_t mvar_main;     /* MVar the main thread blocks on */
    uint64_t mvar_main_q;   /* its MVAR_TSO_QUEUE */
    uint64_t mvar_read, mvar_read_q;
    uint64_t tvars[2], tvar_wq[2], trec_header;
    uint64_t bh_owned, bq, msg_bh; /* blackhole of thread 1 + blocking queue */
    uint64_t bh_self;       /* blackhole owned by the STM thread */
    uint64_t caf_bh;        /* CAF_BLACKHOLE of the CAF being evaluated */
    uint64_t bco;           /* a byte-code object (for a RET_BCO frame) */
    uint64_t stable_extra[4];
    uint64_t ann_thread[2], ann_value[2]; /* GHC 9.14: the annotation frames */
    size_t n_ann;
    uint64_t unknown;       /* --unknown-type: the closure of that type */
    uint64_t saved[SYNTH_MAX_SAVED];
    size_t n_saved;
    uint64_t tsos[8];
    size_t n_tsos;

    /* the leak */
    uint64_t leak_mutvar, leak_thunk, leak_first_cell, leak_first;
    uint64_t orphan_cell, orphan; /* --saved-shortcut: a Leak only a saved object reaches */
    uint64_t leak_path[8];
    size_t leak_path_len;

    /* --strings */
    sg_planted planted[SG_MAX_PLANTED];
    size_t n_planted;
    uint64_t planted_large[2];

    /* result */
    uint64_t *roots;
    size_t n_roots;
    struct sg_plan *plan; /* while the plan is computed (freed on failure too) */
    sg_buf json;
} sg_ctx;

/* --- synth_gen_util.c --- */
_Noreturn void sg_fail(sg_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *sg_alloc_mem(sg_ctx *c, size_t n);
void *sg_realloc_mem(sg_ctx *c, void *p, size_t n);
uint64_t sg_rand(sg_ctx *c);
uint64_t sg_below(sg_ctx *c, uint64_t n); /* uniform in [0, n) */
bool sg_chance(sg_ctx *c, unsigned percent);
uint64_t sg_mix64(uint64_t x);
size_t sg_buf_put(sg_ctx *c, sg_buf *b, const void *src, size_t n); /* returns offset */
size_t sg_buf_zero(sg_ctx *c, sg_buf *b, size_t n);
void sg_buf_align(sg_ctx *c, sg_buf *b, size_t a, uint8_t fill);
size_t sg_ipe_str(sg_ctx *c, const char *s);

/* Little-endian stores and loads, whatever the host (compilers turn these
 * loops into single moves). */
static inline void sg_put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void sg_put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void sg_put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline uint64_t sg_get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}
static inline uint32_t sg_get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint16_t sg_get16(const uint8_t *p) {
    return (uint16_t)(p[0] | p[1] << 8);
}
/* word i of a closure at host pointer p */
static inline void sg_wset(uint8_t *p, size_t i, uint64_t v) {
    sg_put64(p + 8 * i, v);
}

/* --- synth_gen_catalog.c / synth_gen_text.c --- */
typedef struct sg_tdef {
    uint8_t type;
    uint8_t ptrs, nptrs;
    uint8_t tag;
    const char *con;       /* constructor description, NULL if none */
    const char *bm;        /* frame payload map or function argument map */
    bool prof_hdr;         /* RTS frame: profiling header words in its payload */
    uint8_t fun_type, arity;
    int8_t srt;            /* enum sg_static of the SRT, -1 = none */
    const char *name;      /* IPE: NULL = no IPE entry */
    const char *ctype;     /* IPE closure-type text override ("0") */
    const char *htype, *label, *module, *pos;
} sg_tdef;
extern const sg_tdef sg_catalog[SG_T_FIXED_COUNT];
const char *sg_canned_pattern(unsigned fun_type);
void sg_text_build(sg_ctx *c);
uint64_t sg_text_string(sg_ctx *c, const char *s); /* address of a NUL-terminated copy */

/* --- synth_gen_static.c --- */
void sg_static_reserve(sg_ctx *c);
void sg_static_fill(sg_ctx *c);
/* The cost centre of one of the generator's stacks; false for another address. */
bool sg_cost_centre_of(const sg_ctx *c, uint64_t ccs, const char **label, const char **module,
                       const char **srcloc);

/* --- synth_gen_prof.c: the profiling header word by mode --- */
uint64_t sg_prof_word(uint8_t mode, uint64_t era, uint64_t addr);
uint64_t sg_prof_era(uint8_t mode, uint64_t word);
const char *sg_prof_mode_name(uint8_t mode);
uint64_t sg_intlike(sg_ctx *c, int64_t v);   /* tagged pointer (tag 1) */
uint64_t sg_charlike(sg_ctx *c, unsigned ch); /* tagged pointer (tag 1) */
uint64_t sg_static_tagged(sg_ctx *c, enum sg_static s);
void sg_static_set_caf(sg_ctx *c, enum sg_static s, uint64_t indirectee);

/* --- synth_gen_heap.c --- */
void sg_heap_init(sg_ctx *c);
uint64_t sg_alloc_words(sg_ctx *c, enum sg_space sp, size_t words);
uint64_t sg_alloc_group(sg_ctx *c, unsigned blocks, uint16_t flags, unsigned gen);
void sg_group_set_free(sg_ctx *c, uint64_t start, uint64_t free);
uint8_t *sg_at(sg_ctx *c, uint64_t addr); /* valid until the next allocation */
void sg_mark_start(sg_ctx *c, uint64_t addr);
void sg_heap_finish(sg_ctx *c);
void sg_fill_garbage(sg_ctx *c, uint8_t *p, size_t n);

/* --- synth_gen_obj.c: closure writers (payload words after the header) --- */
enum sg_space sg_space_for_era(sg_ctx *c);
uint64_t sg_new(sg_ctx *c, int tab, size_t payload_words);
uint64_t sg_new_in(sg_ctx *c, int tab, size_t payload_words, enum sg_space sp);
void sg_header(sg_ctx *c, uint64_t addr, int tab);
uint64_t sg_con(sg_ctx *c, int tab, const uint64_t *ptrs, const uint64_t *words);
uint64_t sg_tagged(sg_ctx *c, uint64_t addr, int tab); /* constructor/function tag */
uint64_t sg_int(sg_ctx *c, int64_t v);
uint64_t sg_char(sg_ctx *c, unsigned ch);
uint64_t sg_cons(sg_ctx *c, uint64_t head, uint64_t tail);
uint64_t sg_thunk(sg_ctx *c, int tab, const uint64_t *ptrs, const uint64_t *words);
uint64_t sg_fun(sg_ctx *c, int tab, const uint64_t *ptrs, const uint64_t *words);
uint64_t sg_pap(sg_ctx *c, uint64_t fun, int fun_tab, unsigned n_args, bool ap);
uint64_t sg_arr_words(sg_ctx *c, const void *bytes, size_t n, enum sg_space sp);
uint64_t sg_mut_arr(sg_ctx *c, int tab, const uint64_t *elems, size_t n);
uint64_t sg_small_arr(sg_ctx *c, int tab, const uint64_t *elems, size_t n);
uint64_t sg_mut_var(sg_ctx *c, uint64_t value, bool dirty);
uint64_t sg_ind(sg_ctx *c, int tab, uint64_t indirectee, size_t slop_words);
uint64_t sg_selector(sg_ctx *c, int tab, uint64_t selectee);
uint64_t sg_word_arg(sg_ctx *c); /* a plausible non-pointer payload word */

/* --- synth_gen_shapes.c --- */
uint64_t sg_value(sg_ctx *c);      /* a small reachable value, maybe shared */
void sg_pool_add(sg_ctx *c, uint64_t v);
void sg_bulk_root(sg_ctx *c, uint64_t v);
void sg_shapes_build(sg_ctx *c, uint64_t target);
void sg_garbage_one(sg_ctx *c);

/* --- synth_gen_rts.c, synth_gen_leak.c, synth_gen_threads.c --- */
void sg_threads_reserve(sg_ctx *c);
void sg_rts_build(sg_ctx *c);
void sg_leak_build(sg_ctx *c);
void sg_threads_build(sg_ctx *c);
/* --- synth_gen_grow.c: after the threads (it adds the last root) --- */
void sg_grow_build(sg_ctx *c);
/* The last era a closure can have: eras, plus the growth rounds. */
unsigned sg_last_era(const synth_options *o);
void sg_strings_build(sg_ctx *c);          /* --strings */
void sg_strings_json(sg_ctx *c, sg_buf *b); /* its plan section */

/* --- synth_gen_walk.c: decoding closures from a finished process --- */
typedef struct sg_walk {
    const synth_process *p;
    unsigned H, S;
    uint8_t prof_mode;
} sg_walk;
typedef void (*sg_child_fn)(void *ud, uint64_t child);
typedef struct sg_closure {
    uint64_t addr, info, era; /* era: sg_prof_era of the header word */
    uint64_t ccs, word;       /* profiling header (0 when not profiled) */
    unsigned type;
    uint64_t size; /* bytes, census rule */
    const uint8_t *itab; /* the S bytes of its info table */
} sg_closure;
extern const char *const sg_type_names[SG_N_CLOSURE_TYPES + 1];
/* The census name of a closure type for GHC `major`, as heapscope gives
 * it: the type's name, or UNKNOWN_TYPE_<n> for a number that GHC has not. */
const char *sg_type_name(unsigned major, unsigned type, char *buf, size_t cap);
/* 0 on success, -1 if addr or its info table is not mapped. With emit set,
 * calls it for every child of heap-layout.md §13 in traversal order. */
int sg_decode(const sg_walk *w, uint64_t addr, sg_closure *out, sg_child_fn emit, void *ud);
/* The plan's profiling keys of a path step (", \"ccs\": ..."), for synth_gen_json.c. */
void sg_prof_plan_items(sg_ctx *c, const sg_closure *cl, char *buf, size_t cap);
bool sg_is_constructor(unsigned type);
/* Constructor description of an info pointer, or NULL. */
const char *sg_con_desc(const sg_walk *w, uint64_t info);

/* Census key of a constructor description (wire-protocol.md §7.10 parse,
 * colon-joined), and the name part alone. */
void sg_con_key(const char *desc, char *key, size_t keylen, char *name, size_t namelen);

/* --- synth_gen_plan.c, synth_gen_json.c --- */
typedef struct sg_pkey {
    char *name;
    bool con;
    uint64_t count, bytes;
    uint64_t *era_count, *era_bytes; /* [0..eras] */
} sg_pkey;

typedef struct sg_pthunk {
    uint64_t info, count, bytes;
} sg_pthunk;

typedef struct sg_plan {
    sg_walk w;
    unsigned eras;
    uint64_t *visited; /* heap words, as heap.starts */
    size_t vwords;
    uint64_t *sset;    /* visited static closures (open addressing) */
    size_t scap, sn;
    uint64_t *q;       /* BFS ring */
    size_t qcap, qhead, qlen;
    sg_pkey *keys;
    size_t nkeys, capkeys;
    uint64_t *imap_info; /* info pointer -> key index + 1 */
    uint32_t *imap_key;
    size_t icap, in;
    unsigned level;
    uint64_t cur;
    int path_level[8];
    uint64_t reach_count, reach_bytes, static_count, static_bytes;
    uint64_t garbage_count, garbage_bytes, leak_count, leak_bytes;
    uint64_t *era_count, *era_bytes;
    size_t *order; /* keys sorted by name (JSON) */
    sg_pthunk *thunks; /* reachable thunks per info table (synth_gen_plan_thunks.c) */
    size_t nthunks, capthunks, last_thunk;
    bool bad;
    char why[200];
} sg_plan;
void sg_plan_json(sg_ctx *c, sg_plan *pl, synth_process *out);
void sg_plan_build(sg_ctx *c, synth_process *out);
void sg_plan_cleanup(sg_ctx *c);
/* --- synth_gen_plan_thunks.c: the plan's "by_thunk" --- */
void sg_plan_thunk_count(sg_plan *pl, const sg_closure *cl);
void sg_plan_thunks_json(sg_ctx *c, sg_buf *b, const sg_plan *pl, const synth_process *p,
                         void (*put)(sg_ctx *, sg_buf *, const char *),
                         void (*esc)(const char *, char *, size_t));

#endif
