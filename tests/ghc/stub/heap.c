/* Checked reads of closures and info tables: every address a client sends
 * is looked up in the block groups or the readable mappings before it is
 * dereferenced (the reference stub dereferences blindly and crashes, §9). */
#include "rts_private.h"
#include "stub.h"

const void *heap_info_at(uintptr_t p, size_t extra) {
    size_t need = sizeof(StgInfoTable) + extra;
    if (p < need || !mem_readable(p - need, need))
        return NULL;
    return (const StgInfoTable *)p - 1;
}

/* For the types whose size depends on a field of the closure (not only on
 * the info table), the fixed part of the closure, which holds that field:
 * closure_sizeW_ reads it, so that much must be readable. 0 otherwise. */
static size_t fixed_part(StgHalfWord type) {
    switch (type) {
    case AP_STACK: return sizeof(StgAP_STACK);
    case AP: return sizeof(StgAP);
    case PAP: return sizeof(StgPAP);
    case ARR_WORDS: return sizeof(StgArrBytes);
    case STACK: return sizeof(StgStack);
    case BCO: return sizeof(StgBCO);
    case MUT_ARR_PTRS_CLEAN: case MUT_ARR_PTRS_DIRTY:
    case MUT_ARR_PTRS_FROZEN_CLEAN: case MUT_ARR_PTRS_FROZEN_DIRTY:
        return sizeof(StgMutArrPtrs);
    case SMALL_MUT_ARR_PTRS_CLEAN: case SMALL_MUT_ARR_PTRS_DIRTY:
    case SMALL_MUT_ARR_PTRS_FROZEN_CLEAN: case SMALL_MUT_ARR_PTRS_FROZEN_DIRTY:
        return sizeof(StgSmallMutArrPtrs);
    default:
        return 0;
    }
}

/* Bytes that can be read from p: to the end of its block group when it is
 * in the heap, else to the end of its mapping (static closures). */
static size_t readable_from(uintptr_t p) {
    const group *g = blocks_find(stub_groups(), p);
    if (g)
        return g->start + (uintptr_t)g->blocks * BLOCK_SIZE - p;
    return mem_readable_span(p);
}

size_t heap_closure_bytes(uintptr_t p) {
    if (p == 0 || (p & (sizeof(W_) - 1)) != 0)
        return 0;
    size_t limit = readable_from(p);
    if (limit < sizeof(StgHeader))
        return 0;
    const StgClosure *c = (const StgClosure *)p;
    const StgInfoTable *info = heap_info_at((uintptr_t)c->header.info, 0);
    if (!info || info->type == INVALID_OBJECT || info->type >= N_CLOSURE_TYPES)
        return 0;
    if (limit < fixed_part(info->type))
        return 0;
    size_t bytes = closure_sizeW_(c, info) * sizeof(W_);
    return bytes > 0 && bytes <= limit ? bytes : 0;
}
