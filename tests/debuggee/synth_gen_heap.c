/* The block allocator: 1 MiB megablocks from SYNTH_HEAP_BASE, block
 * descriptors in each megablock's first 16 KiB, single-block groups for
 * small objects (one open block per space, bump allocation), and
 * multi-block groups for large objects. Fresh megablocks are filled with
 * pseudo-random bytes, so whatever lies past a block's free pointer (or
 * below a stack's sp) looks like stale heap, not zeros.
 *
 * Megablocks are grouped in runs, each backed by one growing buffer (one
 * synth_region each); a hole is left after the first megablock and then
 * every SG_RUN_MBS megablocks, as an OS would hand out address space. */
#include <stdlib.h>
#include <string.h>

#include "synth_gen_internal.h"

#define SG_RUN_MBS 64

static uint64_t descr_of(uint64_t addr) {
    uint64_t mb = addr & ~(uint64_t)(SYNTH_MBLOCK_SIZE - 1);
    return mb + (((addr & (SYNTH_MBLOCK_SIZE - 1)) >> 12) << 6);
}

void sg_heap_init(sg_ctx *c) {
    c->heap.next_mb = SYNTH_HEAP_BASE;
}

static sg_run *run_for(sg_ctx *c, uint64_t addr) {
    sg_heap *h = &c->heap;
    size_t lo = 0, hi = h->n_runs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->runs[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr - h->runs[lo - 1].base >= h->runs[lo - 1].size)
        sg_fail(c, "internal: heap address 0x%llx not mapped", (unsigned long long)addr);
    return &h->runs[lo - 1];
}

uint8_t *sg_at(sg_ctx *c, uint64_t addr) {
    sg_run *r = &c->heap.runs[c->heap.n_runs - 1];
    if (addr < r->base || addr - r->base >= r->size)
        r = run_for(c, addr);
    return r->bytes + (addr - r->base);
}

/* Stale-looking bytes: a separate stream, so garbage does not depend on
 * how the shapes consumed the main generator. */
void sg_fill_garbage(sg_ctx *c, uint8_t *p, size_t n) {
    uint64_t s = (c->opt->seed ^ UINT64_C(0x5eed0fb10c5)) + (uint64_t)n * 31 + c->heap.next_mb;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        s += UINT64_C(0x9e3779b97f4a7c15);
        sg_put64(p + i, sg_mix64(s));
    }
    for (; i < n; i++)
        p[i] = (uint8_t)(0xa5 ^ i);
}

static void grow_starts(sg_ctx *c, uint64_t limit) {
    sg_heap *h = &c->heap;
    size_t need = (size_t)((limit - SYNTH_HEAP_BASE) / 8 / 64) + 1;
    if (need <= h->starts_words)
        return;
    size_t n = h->starts_words ? h->starts_words : 4096;
    while (n < need)
        n *= 2;
    h->starts = sg_realloc_mem(c, h->starts, n * 8);
    memset(h->starts + h->starts_words, 0, (n - h->starts_words) * 8);
    h->starts_words = n;
}

static uint64_t new_megablock(sg_ctx *c) {
    sg_heap *h = &c->heap;
    if (h->n_runs == 1 ? h->mbs_in_run == 1 : h->mbs_in_run == SG_RUN_MBS)
        h->next_mb += SYNTH_MBLOCK_SIZE; /* leave a hole: a new run starts */
    uint64_t mb = h->next_mb;
    h->next_mb += SYNTH_MBLOCK_SIZE;
    if (mb + SYNTH_MBLOCK_SIZE - 1 > SG_HEAP_END)
        sg_fail(c, "heap exhausted the address range");
    sg_run *r = h->n_runs ? &h->runs[h->n_runs - 1] : NULL;
    if (!r || r->base + r->size != mb) {
        if (h->n_runs == h->cap_runs) {
            h->cap_runs = h->cap_runs ? 2 * h->cap_runs : 8;
            h->runs = sg_realloc_mem(c, h->runs, h->cap_runs * sizeof *h->runs);
        }
        r = &h->runs[h->n_runs++];
        *r = (sg_run){.base = mb};
        h->mbs_in_run = 0;
    }
    if (r->size + SYNTH_MBLOCK_SIZE > r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 4 * (size_t)SYNTH_MBLOCK_SIZE;
        r->bytes = sg_realloc_mem(c, r->bytes, cap);
        r->cap = cap;
    }
    uint8_t *m = r->bytes + r->size;
    r->size += SYNTH_MBLOCK_SIZE;
    h->mbs_in_run++;
    memset(m, 0, SYNTH_FIRST_BLOCK_OFFSET);
    for (unsigned b = SG_FIRST_BLOCK; b < SG_BLOCKS_PER_MB; b++)
        sg_put64(m + b * SYNTH_DESCR_SIZE, mb + (uint64_t)b * SYNTH_BLOCK_SIZE);
    sg_fill_garbage(c, m + SYNTH_FIRST_BLOCK_OFFSET,
                    SYNTH_MBLOCK_SIZE - SYNTH_FIRST_BLOCK_OFFSET);
    grow_starts(c, mb + SYNTH_MBLOCK_SIZE);
    return mb;
}

static void push_group(sg_ctx *c, uint64_t start) {
    sg_heap *h = &c->heap;
    if (h->n_groups == h->cap_groups) {
        h->cap_groups = h->cap_groups ? 2 * h->cap_groups : 256;
        h->groups = sg_realloc_mem(c, h->groups, h->cap_groups * sizeof *h->groups);
    }
    h->groups[h->n_groups++] = start;
}

uint64_t sg_alloc_group(sg_ctx *c, unsigned blocks, uint16_t flags, unsigned gen) {
    sg_heap *h = &c->heap;
    unsigned usable = SG_BLOCKS_PER_MB - SG_FIRST_BLOCK;
    if (blocks == 0 || blocks > usable)
        sg_fail(c, "internal: block group of %u blocks", blocks);
    bool big = blocks > 1 || (flags & (SYNTH_BF_LARGE | SYNTH_BF_COMPACT));
    struct sg_arena_cur *a = &h->arena[big ? SG_AR_LARGE : SG_AR_SMALL];
    if (!a->mb || a->next + blocks > SG_BLOCKS_PER_MB) {
        a->mb = new_megablock(c);
        a->next = SG_FIRST_BLOCK;
    }
    uint64_t start = a->mb + (uint64_t)a->next * SYNTH_BLOCK_SIZE;
    a->next += blocks;
    h->group_bytes += (uint64_t)blocks * SYNTH_BLOCK_SIZE;

    uint64_t head = descr_of(start);
    uint8_t *d = sg_at(c, head);
    sg_put64(d + 8, start);                       /* free */
    sg_put64(d + 16, h->last_head[gen][big]);     /* link: the generation's list */
    sg_put64(d + 32, c->stat[gen ? SG_S_GEN1 : SG_S_GEN0]);
    sg_put16(d + 40, (uint16_t)gen);
    sg_put16(d + 42, (uint16_t)gen);              /* dest_no */
    sg_put16(d + 46, flags);
    sg_put32(d + 48, blocks);
    h->last_head[gen][big] = head;
    for (unsigned b = 1; b < blocks; b++) {       /* the rest point at the head */
        uint8_t *t = d + (size_t)b * SYNTH_DESCR_SIZE;
        sg_put64(t + 16, head);
        sg_put16(t + 40, (uint16_t)gen);
        sg_put16(t + 46, flags & SYNTH_BF_COMPACT);
        sg_put32(t + 48, 0);
    }
    push_group(c, start);
    return start;
}

void sg_group_set_free(sg_ctx *c, uint64_t start, uint64_t free) {
    sg_put64(sg_at(c, descr_of(start)) + 8, free);
}

uint64_t sg_alloc_words(sg_ctx *c, enum sg_space sp, size_t words) {
    sg_heap *h = &c->heap;
    size_t bytes = words * 8;
    unsigned gen = sp == SG_SP_GEN1 ? 1 : 0;
    uint16_t pinned = sp == SG_SP_PINNED ? SYNTH_BF_PINNED : 0;
    if (bytes > SG_LARGE_BYTES) {
        unsigned blocks = (unsigned)((bytes + SYNTH_BLOCK_SIZE - 1) / SYNTH_BLOCK_SIZE);
        uint64_t start = sg_alloc_group(c, blocks, SYNTH_BF_LARGE | pinned, gen);
        sg_group_set_free(c, start, start + bytes);
        return start;
    }
    if (!h->open[sp].start || h->open[sp].free + bytes > h->open[sp].end) {
        if (h->open[sp].start)
            sg_group_set_free(c, h->open[sp].start, h->open[sp].free);
        uint64_t start = sg_alloc_group(c, 1, pinned, gen);
        h->open[sp].start = h->open[sp].free = start;
        h->open[sp].end = start + SYNTH_BLOCK_SIZE;
    }
    uint64_t addr = h->open[sp].free;
    h->open[sp].free += bytes;
    return addr;
}

void sg_mark_start(sg_ctx *c, uint64_t addr) {
    uint64_t bit = (addr - SYNTH_HEAP_BASE) >> 3;
    c->heap.starts[bit >> 6] |= UINT64_C(1) << (bit & 63);
    c->heap.n_closures++;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void sg_heap_finish(sg_ctx *c) {
    sg_heap *h = &c->heap;
    for (int sp = 0; sp < SG_SP_COUNT; sp++)
        if (h->open[sp].start)
            sg_group_set_free(c, h->open[sp].start, h->open[sp].free);
    for (size_t i = 0; i < h->n_runs; i++) {
        sg_run *r = &h->runs[i];
        if (r->cap > r->size) {
            uint8_t *b = realloc(r->bytes, r->size);
            if (b)
                r->bytes = b;
            r->cap = r->size;
        }
    }
    qsort(h->groups, h->n_groups, sizeof *h->groups, cmp_u64);
}
