/* Block-level layout: regions, megablocks, block descriptors and block
 * groups (heap-layout.md §1, §12; synth.h). */
#include "test_gen_walk.h"

#define MB UINT64_C(0x100000)

static uint64_t descr(uint64_t a) {
    return (a & ~(MB - 1)) + (((a & (MB - 1)) >> 12) << 6);
}

typedef struct dsc {
    uint64_t start, free, link;
    uint16_t gen_no, flags;
    uint32_t blocks;
} dsc;

static dsc read_descr(const tw *t, uint64_t a) {
    uint64_t d = descr(a);
    dsc r;
    r.start = tw_u64(t, d);
    r.free = tw_u64(t, d + 8);
    r.link = tw_u64(t, d + 16);
    r.gen_no = (uint16_t)tw_u64(t, d + 40);
    r.flags = (uint16_t)(tw_u64(t, d + 40) >> 48);
    r.blocks = (uint32_t)tw_u64(t, d + 48);
    return r;
}

static void check_blocks(bool profiled, uint64_t closures) {
    synth_options o;
    synth_options_default(&o);
    o.profiled = profiled;
    o.closures = closures;
    synth_process p;
    tw_generate(&o, &p);
    tw t = tw_of(&p);

    /* regions: text, data, then megablock runs, sorted and disjoint */
    cr_assert_geq(p.n_regions, 4, "expected at least two heap runs");
    cr_assert_eq(p.regions[0].base, SYNTH_TEXT_BASE);
    cr_assert_eq(p.regions[1].base, SYNTH_DATA_BASE);
    cr_assert_leq(p.regions[0].base + p.regions[0].size, p.regions[1].base);
    cr_assert_eq(p.regions[2].base, SYNTH_HEAP_BASE);
    for (size_t i = 2; i < p.n_regions; i++) {
        cr_assert_eq(p.regions[i].base % MB, 0);
        cr_assert_eq(p.regions[i].size % MB, 0);
        cr_assert_gt(p.regions[i].size, 0);
        if (i > 2)
            cr_assert_gt(p.regions[i].base, p.regions[i - 1].base + p.regions[i - 1].size,
                         "adjacent megablock runs should be one region");
    }

    size_t large = 0, pinned = 0, compact = 0, large_pinned = 0, tails = 0, stale = 0;
    uint64_t prev_end = 0;
    for (size_t g = 0; g < p.n_groups; g++) {
        uint64_t s = p.group_starts[g];
        cr_assert_eq(s & 0xfff, 0, "group start not block aligned");
        cr_assert_geq(s & (MB - 1), 4 * 4096, "group inside the descriptor area");
        cr_assert_geq(s, prev_end, "groups unsorted or overlapping");
        dsc d = read_descr(&t, s);
        cr_assert_eq(d.start, s);
        cr_assert_geq(d.blocks, 1);
        uint64_t end = s + 4096 * (uint64_t)d.blocks;
        cr_assert_leq(end, (s & ~(MB - 1)) + MB, "group crosses its megablock");
        cr_assert(d.free > s && d.free <= end, "free pointer outside the group (or empty group)");
        cr_assert_leq(d.gen_no, 1);
        if (d.link) { /* the previous group of the same generation list */
            cr_assert_eq(d.link % 64, 0);
            cr_assert_lt(d.link & (MB - 1), 4 * 4096, "link is not a block descriptor");
            uint64_t prev = tw_u64(&t, d.link);
            cr_assert_geq(synth_find_group(&p, prev), 0);
            cr_assert_eq(p.group_starts[synth_find_group(&p, prev)], prev);
            cr_assert_eq(read_descr(&t, prev).gen_no, d.gen_no);
        }
        for (uint32_t b = 1; b < d.blocks; b++) {
            dsc tail = read_descr(&t, s + 4096 * (uint64_t)b);
            cr_assert_eq(tail.blocks, 0, "non-head block with a block count");
            cr_assert_eq(tail.link, descr(s), "non-head block not linked to its head");
            cr_assert_eq(tail.start, s + 4096 * (uint64_t)b);
        }
        cr_assert_eq(synth_find_group(&p, s), (long)g);
        cr_assert_eq(synth_find_group(&p, end - 8), (long)g);
        large += (d.flags & SYNTH_BF_LARGE) != 0;
        pinned += (d.flags & SYNTH_BF_PINNED) != 0;
        compact += (d.flags & SYNTH_BF_COMPACT) != 0;
        large_pinned += (d.flags & (SYNTH_BF_LARGE | SYNTH_BF_PINNED)) ==
                        (SYNTH_BF_LARGE | SYNTH_BF_PINNED);
        if (d.flags & SYNTH_BF_COMPACT) {
            cr_assert_gt(d.blocks, 1, "compact data should spill into a second block");
            cr_assert_eq(tw_u64(&t, s), s, "compact block header: self");
            cr_assert_eq(tw_closure_info(&t, tw_u64(&t, s + 8)).type, 63, "owner");
        }
        /* bytes past the free pointer are stale, not zero */
        const uint8_t *tail = synth_mem(&p, d.free, end - d.free);
        cr_assert_not_null(tail);
        for (uint64_t k = 0; k + 8 <= end - d.free; k += 8) {
            tails++;
            uint64_t w;
            memcpy(&w, tail + k, 8);
            stale += w != 0;
        }
        prev_end = end;
    }
    cr_assert_gt(large, 0, "no LARGE group");
    cr_assert_gt(pinned, 0, "no PINNED group");
    cr_assert_eq(compact, 1, "one COMPACT group");
    cr_assert_gt(large_pinned, 0, "no large pinned object");
    cr_assert_gt(tails, 0);
    cr_assert_gt(stale * 10, tails * 9, "free space looks zeroed (%zu of %zu words)", stale, tails);
    cr_assert_lt(synth_find_group(&p, SYNTH_HEAP_BASE + 8), 0, "descriptor area is no group");
    cr_assert_lt(synth_find_group(&p, SYNTH_DATA_BASE), 0);

    /* every heap megablock's descriptors know their blocks' addresses */
    for (size_t i = 2; i < p.n_regions; i++)
        for (uint64_t mb = p.regions[i].base; mb < p.regions[i].base + p.regions[i].size; mb += MB)
            for (unsigned b = 4; b < 256; b += 37)
                cr_assert_eq(tw_u64(&t, mb + 64 * (uint64_t)b), mb + 4096 * (uint64_t)b);
    synth_process_free(&p);
}

Test(gen_blocks, plain) {
    check_blocks(false, 10000);
}

Test(gen_blocks, profiled) {
    check_blocks(true, 10000);
}

Test(gen_blocks, larger_heap_has_more_runs) {
    check_blocks(false, 300000);
}

/* Objects larger than 3276 bytes own their group; smaller ones never do. */
Test(gen_blocks, large_objects_own_groups) {
    synth_options o;
    synth_options_default(&o);
    synth_process p;
    tw_generate(&o, &p);
    tw t = tw_of(&p);
    tw_vec all = tw_reach(&t, 0, NULL);
    size_t big = 0;
    for (size_t i = 0; i < all.n; i++) {
        uint64_t a = all.v[i];
        if (!tw_in_heap(a))
            continue;
        long g = synth_find_group(&p, a);
        cr_assert_geq(g, 0);
        dsc d = read_descr(&t, p.group_starts[g]);
        uint64_t size = tw_rts_size(&t, a);
        if (size > 3276) {
            big++;
            cr_assert(d.flags & SYNTH_BF_LARGE, "large object 0x%llx in a small block",
                      (unsigned long long)a);
            cr_assert_eq(d.free, a + size);
        } else if (!(d.flags & SYNTH_BF_COMPACT)) {
            cr_assert(!(d.flags & SYNTH_BF_LARGE), "small object in a large group");
            cr_assert_eq(d.blocks, 1);
        }
    }
    cr_assert_geq(big, 4, "big arrays, big byte arrays, big stacks");
    free(all.v);
    synth_process_free(&p);
}
