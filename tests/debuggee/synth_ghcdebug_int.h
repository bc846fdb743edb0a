/* Internals of the ghc-debug snapshot writer shared by its traversal
 * (synth_ghcdebug_trace.c) and its closure decoder (synth_ghcdebug_decode.c). */
#ifndef SYNTH_GHCDEBUG_INT_H
#define SYNTH_GHCDEBUG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UNTAG(a) ((a) & ~(uint64_t)7)

/* Closure types (GHC's ClosureTypes.h, Decode.hs: decodeInfoTableType). */
enum {
    T_CONSTR = 1, T_CONSTR_NOCAF = 7, T_FUN = 8, T_FUN_STATIC = 14, T_THUNK = 15,
    T_THUNK_0_2 = 20, T_THUNK_STATIC = 21, T_THUNK_SELECTOR = 22, T_BCO = 23, T_AP = 24,
    T_PAP = 25, T_AP_STACK = 26, T_IND = 27, T_IND_STATIC = 28, T_RET_BCO = 29,
    T_RET_FUN = 32, T_BLOCKING_QUEUE = 37, T_BLACKHOLE = 38, T_MVAR_CLEAN = 39,
    T_MVAR_DIRTY = 40, T_TVAR = 41, T_ARR_WORDS = 42, T_MUT_ARR_FIRST = 43,
    T_MUT_ARR_LAST = 46, T_MUT_VAR_CLEAN = 47, T_MUT_VAR_DIRTY = 48, T_WEAK = 49, T_PRIM = 50,
    T_MUT_PRIM = 51, T_TSO = 52, T_STACK = 53, T_TREC_CHUNK = 54, T_SMALL_ARR_FIRST = 59,
    T_SMALL_ARR_LAST = 62, T_MAX = 65
};

typedef struct gw_itbl {
    uint64_t info;
    uint32_t ptrs, nptrs, type;
} gw_itbl;

/* What the decoder needs of the VERSION answer. */
typedef struct gw_layout {
    bool prof;       /* a profiling header in every closure */
    bool tso_label;  /* Decode.hs: tsoVersionChanged */
    bool tso_why_32; /* Decode.hs: whyBlockedWord32 */
} gw_layout;

/* What decoding one closure leaves to do: pointer fields, an SRT or a
 * constructor description to ask, a PAP payload, a stack. */
typedef struct gw_todo {
    uint64_t ccs; /* 0 = no profiling header */
    bool has_ccs, srt, con_desc, payload, stack;
    uint64_t fun, n_args;        /* PAP / AP payload */
    const uint8_t *args;
    uint64_t sp;                 /* stack: its sp and raw frames */
    const uint8_t *frames;
    size_t frames_len;
    uint64_t *ptrs; /* kept across closures */
    size_t n_ptrs, cap_ptrs;
    bool overflow; /* out of memory */
} gw_todo;

/* Decode.hs: decodeClosure of the closure at cp (raw: its bytes onwards,
 * info table it): what to do next goes into t (t->ptrs is reused). False
 * where ghc-debug raises an error; t->overflow when out of memory. */
bool gw_decode(const gw_layout *tr, uint64_t cp, const uint8_t *raw, size_t len,
               const gw_itbl *it, gw_todo *t);

#endif
