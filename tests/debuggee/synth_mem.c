/* The fake process's address space: lookups shared by generator and server. */
#include <stdlib.h>

#include "synth.h"

const uint8_t *synth_mem(const synth_process *p, uint64_t addr, uint64_t len) {
    size_t lo = 0, hi = p->n_regions;
    while (lo < hi) { /* last region with base <= addr */
        size_t mid = lo + (hi - lo) / 2;
        if (p->regions[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const synth_region *r = &p->regions[lo - 1];
    uint64_t off = addr - r->base;
    if (off > r->size || len > r->size - off)
        return NULL;
    return r->bytes + off;
}

const synth_ipe *synth_find_ipe(const synth_process *p, uint64_t info) {
    size_t lo = 0, hi = p->n_ipes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->ipes[mid].info == info)
            return &p->ipes[mid];
        if (p->ipes[mid].info < info)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The group containing addr is the last one starting at or below it, if
 * its descriptor's block count covers addr. */
static uint32_t group_blocks(const synth_process *p, uint64_t start) {
    uint64_t mb = start & ~(uint64_t)(SYNTH_MBLOCK_SIZE - 1);
    uint64_t descr = mb + (((start & (SYNTH_MBLOCK_SIZE - 1)) >> 12) << 6);
    const uint8_t *d = synth_mem(p, descr, SYNTH_DESCR_SIZE);
    if (!d)
        return 0;
    return (uint32_t)d[48] | (uint32_t)d[49] << 8 | (uint32_t)d[50] << 16 |
           (uint32_t)d[51] << 24;
}

long synth_find_group(const synth_process *p, uint64_t addr) {
    size_t lo = 0, hi = p->n_groups;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->group_starts[mid] <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    uint64_t start = p->group_starts[lo - 1];
    if (addr - start >= (uint64_t)group_blocks(p, start) * SYNTH_BLOCK_SIZE)
        return -1;
    return (long)(lo - 1);
}

void synth_process_free(synth_process *p) {
    for (size_t i = 0; i < p->n_regions; i++)
        free(p->regions[i].bytes);
    free(p->regions);
    free(p->group_starts);
    free(p->roots);
    free(p->ipes);
    free(p->ipe_text);
    free(p->plan_json);
    *p = (synth_process){0};
}
