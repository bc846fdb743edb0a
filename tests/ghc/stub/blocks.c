/* Every block group that can hold a live closure, for ALL_BLOCKS and BLOCK:
 * each generation's blocks, large objects and compact regions; each
 * nursery; each capability's pinned blocks; and what the GC threads keep
 * in their workspaces between collections (the to-space block a GC thread
 * was filling when the last GC ended stays attached to its workspace for
 * the next GC, and its closures are live but on no generation's list).
 * A descriptor is used only when it is where the block address says its
 * descriptor must be, so a wrong struct offset cannot make us read wild. */
#include <stdlib.h>

#include "rts_private.h"
#include "stub.h"

/* Far more than any chain we walk can hold; stops a corrupt cycle. */
#define MAX_CHAIN (UINT32_C(1) << 26)
#define BDESCR_BYTES (1u << BDESCR_SHIFT)
#define FIRST_BDESCR_OFF (FIRST_BLOCK_OFF >> (BLOCK_SHIFT - BDESCR_SHIFT))

static bool bd_valid(const bdescr *bd) {
    uintptr_t a = (uintptr_t)bd;
    uintptr_t off = a & MBLOCK_MASK;
    if (a == 0 || (a & (BDESCR_BYTES - 1)) != 0 || off < FIRST_BDESCR_OFF ||
        off >= FIRST_BLOCK_OFF || !mem_readable(a, sizeof *bd))
        return false;
    uintptr_t block = (a & ~(uintptr_t)MBLOCK_MASK) + ((off >> BDESCR_SHIFT) << BLOCK_SHIFT);
    return (uintptr_t)bd->start == block && bd->blocks > 0 &&
           mem_readable(block, (size_t)bd->blocks * BLOCK_SIZE);
}

static bool push_valid(group_list *l, const bdescr *bd) {
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 1024;
        group *items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return false;
        l->items = items;
        l->cap = cap;
    }
    l->items[l->count++] = (group){(uintptr_t)bd->start, bd->blocks, bd->flags};
    return true;
}

static bool push(group_list *l, const bdescr *bd) {
    if (bd_valid(bd))
        return push_valid(l, bd);
    l->rejected++;
    return true;
}

/* A chain ends at the first descriptor that fails the checks: its link
 * cannot be trusted either. */
static bool push_chain(group_list *l, const bdescr *bd) {
    for (uint32_t n = 0; bd && n < MAX_CHAIN; n++, bd = bd->link) {
        if (!bd_valid(bd)) {
            l->rejected++;
            return true;
        }
        if (!push_valid(l, bd))
            return false;
    }
    return true;
}

/* A compact region is a chain of block groups linked through the header
 * at the start of each (self, owner, next); the generation lists only the
 * first group of each region. */
static bool push_compacts(group_list *l, const bdescr *first) {
    for (uint32_t n = 0; first && n < MAX_CHAIN; n++, first = first->link) {
        if (!bd_valid(first)) {
            l->rejected++;
            return true;
        }
        const StgCompactNFDataBlock *blk = (const StgCompactNFDataBlock *)first->start;
        for (uint32_t k = 0; blk && k < MAX_CHAIN; k++, blk = blk->next) {
            const bdescr *bd = Bdescr((StgPtr)blk);
            if (!bd_valid(bd) || (const void *)bd->start != blk) {
                l->rejected++;
                break;
            }
            if (!push_valid(l, bd))
                return false;
        }
    }
    return true;
}

static bool push_capabilities(group_list *l) {
    for (uint32_t i = 0; i < n_capabilities; i++) {
        const Capability *cap = capabilities[i];
        const bdescr *current = cap_field(cap, CAP_OFF_PINNED_OBJECT_BLOCK);
        const bdescr *full = cap_field(cap, CAP_OFF_PINNED_OBJECT_BLOCKS);
        if (current && !(bd_valid(current) && (current->flags & BF_PINNED))) {
            stub_log("capability %u: pinned_object_block %p is not a pinned block", i,
                     (const void *)current);
            l->rejected++;
            current = NULL;
        }
        if ((current && !push(l, current)) || !push_chain(l, full))
            return false;
    }
    for (uint32_t i = 0; i < n_nurseries; i++)
        if (!push_chain(l, nurseries[i].blocks))
            return false;
    return true;
}

static const bdescr *ws_word(const char *ws, size_t off) {
    return *(const bdescr *const *)(ws + off);
}

static bool push_gc_threads(group_list *l) {
    long gens = layout_gc_gens_offset();
    if (gens < 0 || !gc_threads)
        return true; /* logged by layout.c; the test then counts misses */
    for (uint32_t i = 0; i < n_capabilities; i++) {
        const char *gct = (const char *)gc_threads[i];
        for (uint32_t g = 0; gct && g < RtsFlags.GcFlags.generations; g++) {
            const char *ws = gct + gens + (size_t)g * WS_SIZE;
            const bdescr *todo = ws_word(ws, WS_OFF_TODO_BD);
            if ((todo && !push(l, todo)) || !push_chain(l, ws_word(ws, WS_OFF_PART_LIST)) ||
                !push_chain(l, ws_word(ws, WS_OFF_SCAVD_LIST)) ||
                !push_chain(l, ws_word(ws, WS_OFF_TODO_LARGE)) ||
                !push_chain(l, ws_word(ws, WS_OFF_TODO_OVERFLOW)))
                return false;
        }
    }
    return true;
}

static int cmp_start(const void *a, const void *b) {
    uintptr_t x = ((const group *)a)->start, y = ((const group *)b)->start;
    return x < y ? -1 : x > y;
}

/* Sorts and drops repeats (a block can sit on two of the lists we walk,
 * e.g. a workspace's todo block that a GC also linked elsewhere). */
static void sort_unique(group_list *l) {
    qsort(l->items, l->count, sizeof *l->items, cmp_start);
    size_t k = 0;
    for (size_t i = 0; i < l->count; i++) {
        if (k > 0) {
            const group *prev = &l->items[k - 1];
            if (l->items[i].start < prev->start + (uintptr_t)prev->blocks * BLOCK_SIZE)
                continue;
        }
        l->items[k++] = l->items[i];
    }
    l->count = k;
}

bool blocks_collect(group_list *l) {
    l->count = 0;
    l->rejected = 0;
    bool ok = true;
    for (uint32_t g = 0; ok && g < RtsFlags.GcFlags.generations; g++) {
        const generation *gen = &generations[g];
        ok = push_chain(l, gen->blocks) && push_chain(l, gen->large_objects) &&
             push_compacts(l, gen->compact_objects);
    }
    ok = ok && push_capabilities(l) && push_gc_threads(l);
    if (ok)
        sort_unique(l);
    if (l->rejected)
        stub_log("%zu block descriptors failed the sanity checks", l->rejected);
    return ok;
}

void group_list_free(group_list *l) {
    free(l->items);
    *l = (group_list){0};
}

const group *blocks_find(const group_list *l, uintptr_t addr) {
    size_t lo = 0, hi = l->count;
    while (lo < hi) { /* first group ending above addr */
        size_t mid = lo + (hi - lo) / 2;
        const group *g = &l->items[mid];
        if (g->start + (uintptr_t)g->blocks * BLOCK_SIZE <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->count && l->items[lo].start <= addr ? &l->items[lo] : NULL;
}
