/* What the retainers of an era-boundary group are (query.h): the closure
 * types that hold what they point at as the input of an unfinished
 * computation, and those that contain it as part of a value. */
#include "heapscope/closure_type.h"
#include "heapscope/query.h"

query_leak_kind query_leak_kind_of(uint32_t t) {
    if (hs_closure_type_is_constructor(t))
        return QUERY_LEAK_CONSTRUCTOR;
    switch (t) {
    case HS_THUNK: case HS_THUNK_1_0: case HS_THUNK_0_1: case HS_THUNK_2_0: case HS_THUNK_1_1:
    case HS_THUNK_0_2: case HS_THUNK_STATIC: case HS_THUNK_SELECTOR: case HS_AP:
    case HS_AP_STACK:
        return QUERY_LEAK_THUNK;
    case HS_FUN: case HS_FUN_1_0: case HS_FUN_0_1: case HS_FUN_2_0: case HS_FUN_1_1:
    case HS_FUN_0_2: case HS_FUN_STATIC: case HS_PAP: case HS_BCO: case HS_CONTINUATION:
        return QUERY_LEAK_FUNCTION;
    case HS_STACK: case HS_TSO:
        return QUERY_LEAK_STACK;
    case HS_MUT_ARR_PTRS_CLEAN: case HS_MUT_ARR_PTRS_DIRTY: case HS_MUT_ARR_PTRS_FROZEN_DIRTY:
    case HS_MUT_ARR_PTRS_FROZEN_CLEAN: case HS_SMALL_MUT_ARR_PTRS_CLEAN:
    case HS_SMALL_MUT_ARR_PTRS_DIRTY: case HS_SMALL_MUT_ARR_PTRS_FROZEN_DIRTY:
    case HS_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN:
        return QUERY_LEAK_ARRAY;
    case HS_MUT_VAR_CLEAN: case HS_MUT_VAR_DIRTY: case HS_MVAR_CLEAN: case HS_MVAR_DIRTY:
    case HS_TVAR:
        return QUERY_LEAK_MUTABLE;
    default: /* IND, BLACKHOLE (an evaluated thunk: its value), PRIM, ... */
        return QUERY_LEAK_OTHER;
    }
}

const char *query_leak_kind_name(query_leak_kind k) {
    static const char *const names[] = {"thunk", "function", "stack", "constructor",
                                        "array", "mutable", "other"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "other";
}

bool query_leak_kind_holds(query_leak_kind k) {
    return k == QUERY_LEAK_THUNK || k == QUERY_LEAK_FUNCTION || k == QUERY_LEAK_STACK;
}
