/* GHC closure type numbers and names (heap-layout.md §2; ANN_FRAME from
 * GHC 9.14's rts/include/rts/storage/ClosureTypes.h, doc/ghc-versions.md). */
#ifndef HEAPSCOPE_CLOSURE_TYPE_H
#define HEAPSCOPE_CLOSURE_TYPE_H

#include <stdbool.h>
#include <stdint.h>

#define HS_CLOSURE_TYPE_LIST(X)                                                             \
    X(INVALID_OBJECT, 0) X(CONSTR, 1) X(CONSTR_1_0, 2) X(CONSTR_0_1, 3) X(CONSTR_2_0, 4)      \
    X(CONSTR_1_1, 5) X(CONSTR_0_2, 6) X(CONSTR_NOCAF, 7) X(FUN, 8) X(FUN_1_0, 9)            \
    X(FUN_0_1, 10) X(FUN_2_0, 11) X(FUN_1_1, 12) X(FUN_0_2, 13) X(FUN_STATIC, 14)          \
    X(THUNK, 15) X(THUNK_1_0, 16) X(THUNK_0_1, 17) X(THUNK_2_0, 18) X(THUNK_1_1, 19)        \
    X(THUNK_0_2, 20) X(THUNK_STATIC, 21) X(THUNK_SELECTOR, 22) X(BCO, 23) X(AP, 24)        \
    X(PAP, 25) X(AP_STACK, 26) X(IND, 27) X(IND_STATIC, 28) X(RET_BCO, 29)                 \
    X(RET_SMALL, 30) X(RET_BIG, 31) X(RET_FUN, 32) X(UPDATE_FRAME, 33) X(CATCH_FRAME, 34)   \
    X(UNDERFLOW_FRAME, 35) X(STOP_FRAME, 36) X(BLOCKING_QUEUE, 37) X(BLACKHOLE, 38)         \
    X(MVAR_CLEAN, 39) X(MVAR_DIRTY, 40) X(TVAR, 41) X(ARR_WORDS, 42)                        \
    X(MUT_ARR_PTRS_CLEAN, 43) X(MUT_ARR_PTRS_DIRTY, 44) X(MUT_ARR_PTRS_FROZEN_DIRTY, 45)    \
    X(MUT_ARR_PTRS_FROZEN_CLEAN, 46) X(MUT_VAR_CLEAN, 47) X(MUT_VAR_DIRTY, 48) X(WEAK, 49)  \
    X(PRIM, 50) X(MUT_PRIM, 51) X(TSO, 52) X(STACK, 53) X(TREC_CHUNK, 54)                   \
    X(ATOMICALLY_FRAME, 55) X(CATCH_RETRY_FRAME, 56) X(CATCH_STM_FRAME, 57)                 \
    X(WHITEHOLE, 58) X(SMALL_MUT_ARR_PTRS_CLEAN, 59) X(SMALL_MUT_ARR_PTRS_DIRTY, 60)        \
    X(SMALL_MUT_ARR_PTRS_FROZEN_DIRTY, 61) X(SMALL_MUT_ARR_PTRS_FROZEN_CLEAN, 62)           \
    X(COMPACT_NFDATA, 63) X(CONTINUATION, 64) X(ANN_FRAME, 65)

enum hs_closure_type {
#define HS_CLOSURE_TYPE_ENUM(name, num) HS_##name = num,
    HS_CLOSURE_TYPE_LIST(HS_CLOSURE_TYPE_ENUM)
#undef HS_CLOSURE_TYPE_ENUM
    HS_N_CLOSURE_TYPES = 66 /* every GHC heapscope knows (9.2 to 9.14) */
};

/* Set on a closure type that the debuggee's GHC does not have (a number
 * not below hs_closure_types_of its version): heapscope decodes such a
 * closure as an opaque leaf and names it UNKNOWN_TYPE_<number>. */
#define HS_CLOSURE_TYPE_UNKNOWN 0x80000000u

/* How many closure types the RTS of GHC `ghc_major` (__GLASGOW_HASKELL__,
 * 0 = not known: the newest) has: 65 up to 9.12, 66 (ANN_FRAME) from 9.14. */
uint32_t hs_closure_types_of(uint32_t ghc_major);
/* The closure type heapscope works with for `raw`, the type of an info
 * table of GHC `ghc_major`: raw itself, or raw | HS_CLOSURE_TYPE_UNKNOWN
 * when that GHC has no such type. */
uint32_t hs_closure_type_of(uint32_t raw, uint32_t ghc_major);

/* "CONSTR_2_0", ...; "UNKNOWN_TYPE_70" for a number outside the table
 * (with or without HS_CLOSURE_TYPE_UNKNOWN), "UNKNOWN_TYPE_LARGE" beyond
 * 255 (no GHC comes near). A static string. */
const char *hs_closure_type_name(uint32_t type);
/* The number for a name of the table, or -1. */
int hs_closure_type_from_name(const char *name);
/* What a type filter matches for `name`: a type of the table (not
 * INVALID_OBJECT), or UNKNOWN_TYPE_<n> (65 to 255) as heapscope names a
 * number the debuggee's GHC has not. False for anything else. */
bool hs_closure_type_parse(const char *name, uint32_t *type);

static inline bool hs_closure_type_is_constructor(uint32_t t) {
    return t >= HS_CONSTR && t <= HS_CONSTR_NOCAF;
}

#endif
