/* Closure-level consistency of generated heaps, both flavours: every
 * pointer of every reachable closure (including those of dropped last
 * frames) points at a closure with a real info table, heap closures sit
 * inside their block group's used area without overlapping, static ones in
 * the data region, tags match constructor tags and function arities, and
 * fields hold closures of the types the RTS puts there. */
#include "test_gen_walk.h"

typedef struct chk {
    const tw *t;
    uint64_t edges, tagged, dropped;
} chk;

static const uint8_t entry_sig[4] = {0x48, 0x8b, 0x45, 0x00};

static bool static_kind(uint32_t ty) {
    return ty == 7 || ty == 14 || ty == 21 || ty == 28;
}

/* A is the start of a well-formed closure; returns its type. */
static uint32_t check_closure(const tw *t, uint64_t a) {
    cr_assert_eq(a & 7, 0, "misaligned closure 0x%llx", (unsigned long long)a);
    uint64_t info = tw_u64(t, a);
    cr_assert(info >= SYNTH_TEXT_BASE && info < SYNTH_DATA_BASE && !(info & 7),
              "info pointer 0x%llx of 0x%llx outside the text region", (unsigned long long)info,
              (unsigned long long)a);
    const uint8_t *code = synth_mem(t->p, info, 4);
    cr_assert(code && !memcmp(code, entry_sig, 4), "no entry code at 0x%llx",
              (unsigned long long)info);
    uint32_t ty = tw_itab(t, info).type;
    cr_assert(ty >= 1 && ty <= 62 && !(ty >= 29 && ty <= 36) && !(ty >= 55 && ty <= 58),
              "closure 0x%llx has type %u", (unsigned long long)a, ty);
    uint64_t size = tw_rts_size(t, a);
    if (tw_in_heap(a)) {
        cr_assert(!static_kind(ty), "static-only type %u in the heap", ty);
        long g = synth_find_group(t->p, a);
        cr_assert_geq(g, 0, "heap closure 0x%llx outside every block group",
                      (unsigned long long)a);
        uint64_t start = t->p->group_starts[g];
        uint64_t d = (start & ~(uint64_t)0xfffff) + (((start & 0xfffff) >> 12) << 6);
        uint64_t free_ = tw_u64(t, d + 8);
        uint16_t flags = (uint16_t)(tw_u64(t, d + 40) >> 48); /* u16 at +46 */
        cr_assert(a + size <= free_, "closure 0x%llx (%llu bytes) runs past its group's free 0x%llx",
                  (unsigned long long)a, (unsigned long long)size, (unsigned long long)free_);
        if (flags & SYNTH_BF_LARGE)
            cr_assert_eq(a, start, "large object not at its group start");
        if (flags & SYNTH_BF_PINNED)
            cr_assert_eq(ty, 42, "pinned block holds a type %u closure", ty);
    } else {
        cr_assert(a >= SYNTH_DATA_BASE, "static closure 0x%llx outside the data region",
                  (unsigned long long)a);
        cr_assert(static_kind(ty), "static closure of type %u", ty);
        cr_assert_not_null(synth_mem(t->p, a, size));
    }
    return ty;
}

static void check_tag(const tw *t, uint64_t v) {
    unsigned tag = v & 7;
    if (!tag)
        return;
    uint64_t a = v & ~(uint64_t)7, info = tw_u64(t, a);
    tw_info i = tw_itab(t, info);
    if (tw_is_con(i.type)) {
        unsigned want = (unsigned)i.srt + 1 < 7 ? (unsigned)i.srt + 1 : 7;
        cr_assert_eq(tag, want, "constructor tag %u, pointer tag %u", (unsigned)i.srt, tag);
    } else {
        cr_assert(tw_is_fun(i.type), "tagged pointer to a type %u closure", i.type);
        cr_assert_eq(tag, tw_u32(t, info - t->S - 4), "function pointer tag is not its arity");
    }
}

static void on_edge(void *ud, uint64_t from, uint64_t v, int kind) {
    chk *k = ud;
    (void)from;
    cr_assert_neq(v & ~(uint64_t)7, 0, "null pointer field in 0x%llx", (unsigned long long)from);
    check_closure(k->t, v & ~(uint64_t)7);
    check_tag(k->t, v);
    if (kind == TW_SRT)
        cr_assert(!tw_in_heap(v), "SRT in the heap");
    k->edges++;
    k->tagged += (v & 7) != 0;
    k->dropped += kind == TW_LAST_FRAME;
}

static uint32_t type_at(const tw *t, uint64_t v) {
    return tw_closure_info(t, v & ~(uint64_t)7).type;
}

static unsigned frame_kinds[128]; /* by closure type: 0..65 */

/* Fields the RTS only ever fills with closures of particular types. */
static void check_fields(const tw *t, uint64_t a) {
    uint64_t H = t->H;
    uint32_t ty = type_at(t, a);
    switch (ty) {
    case 52: {
        cr_assert_eq(type_at(t, tw_u64(t, a + H + 16)), 53, "TSO stack is not a STACK");
        uint32_t gl = type_at(t, tw_u64(t, a + H + 8));
        cr_assert(gl == 52 || gl == 7);
        uint32_t trec = type_at(t, tw_u64(t, a + H + 80));
        cr_assert(trec == 51 || trec == 7);
        uint64_t label = tw_u64(t, a + H + 88);
        if (label)
            cr_assert_eq(type_at(t, label), 42);
        uint16_t what_next = (uint16_t)tw_u64(t, a + H + 24);
        cr_assert(what_next >= 1 && what_next <= 4);
        break;
    }
    case 37:
        cr_assert_eq(type_at(t, tw_u64(t, a + H + 8)), 38);
        cr_assert_eq(type_at(t, tw_u64(t, a + H + 16)), 52);
        cr_assert_eq(type_at(t, tw_u64(t, a + H + 24)), 50);
        break;
    case 39: case 40:
        for (int k = 0; k < 2; k++) {
            uint32_t q = type_at(t, tw_u64(t, a + H + 8 * (uint64_t)k));
            cr_assert(q == 50 || q == 7, "MVar queue of type %u", q);
        }
        break;
    case 54: {
        uint64_t used = tw_u64(t, a + H + 8);
        for (uint64_t e = 0; e < used; e++)
            cr_assert_eq(type_at(t, tw_u64(t, a + H + 16 + 32 * e)), 41);
        break;
    }
    case 49: {
        uint64_t link = tw_u64(t, a + H + 32);
        if (link)
            cr_assert_eq(type_at(t, link), 49);
        break;
    }
    case 23:
        cr_assert_eq(type_at(t, tw_u64(t, a + H)), 42);
        cr_assert_eq(type_at(t, tw_u64(t, a + H + 8)), 42);
        cr_assert(tw_is_marr(type_at(t, tw_u64(t, a + H + 16))));
        break;
    case 22: {
        uint64_t sel = tw_u64(t, a + H + 8);
        tw_info si = tw_closure_info(t, sel & ~(uint64_t)7);
        cr_assert(tw_is_con(si.type) || tw_is_thunk(si.type));
        if (tw_is_con(si.type))
            cr_assert_lt(tw_closure_info(t, a).ptrs, si.ptrs, "selector past the fields");
        break;
    }
    case 25: {
        uint32_t arity = tw_u32(t, a + H), nargs = tw_u32(t, a + H + 4);
        uint64_t fun = tw_u64(t, a + H + 8) & ~(uint64_t)7;
        uint64_t finfo = tw_u64(t, fun);
        cr_assert_eq(arity + nargs, tw_u32(t, finfo - t->S - 4), "PAP arity + args != fun arity");
        break;
    }
    case 53: { /* frames: update frames update blackholes, underflow goes to a stack */
        uint64_t sp = tw_u64(t, a + H + 8), end = a + tw_size(t, a);
        while (sp < end) {
            uint64_t info = tw_u64(t, sp);
            tw_info fi = tw_itab(t, info);
            if (fi.type == 29) { /* RET_BCO: its size is not in the info table */
                frame_kinds[29]++;
                sp = end;
                break;
            }
            uint64_t n = fi.type == 31 ? tw_u64(t, info + (uint64_t)(int64_t)(int32_t)fi.ptrs)
                         : fi.type == 32 ? tw_u64(t, sp + 8) + 2
                                         : (fi.layout & 63);
            frame_kinds[fi.type]++;
            if (fi.type == 33)
                cr_assert_eq(type_at(t, tw_u64(t, sp + 8 * n)), 38, "updatee not a BLACKHOLE");
            if (fi.type == 35)
                cr_assert_eq(type_at(t, tw_u64(t, sp + 8)), 53, "underflow to a non-STACK");
            if (fi.type == 65) /* ANN_FRAME: its annotation, after the profiling words */
                cr_assert_eq(type_at(t, tw_u64(t, sp + 8 * n)), 42, "annotation not text");
            if (fi.type == 32)
                cr_assert(tw_is_fun(type_at(t, tw_u64(t, sp + 16))));
            sp += 8 * (1 + n);
        }
        cr_assert_eq(sp, end);
        break;
    }
    default:
        break;
    }
}

static int cmp_u64(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static void check_heap_of(unsigned ghc, bool profiled, uint64_t seed, uint64_t closures) {
    synth_options o;
    synth_options_default(&o);
    o.ghc_version = ghc;
    o.profiled = profiled;
    o.seed = seed;
    o.closures = closures;
    o.leak_count = closures / 20;
    memset(frame_kinds, 0, sizeof frame_kinds);
    synth_process p;
    tw_generate(&o, &p);
    tw t = tw_of(&p);
    cr_assert_eq(p.prof_mode, profiled ? 4 : 0);
    cr_assert_eq(p.ghc_major, ghc);
    cr_assert_eq(p.ghc_patch, ghc == 912 ? 2 : 1);

    chk k = {&t, 0, 0, 0};
    for (size_t r = 0; r < p.n_roots; r++)
        check_closure(&t, p.roots[r] & ~(uint64_t)7);
    tw_vec all = tw_reach(&t, 0, NULL);
    cr_assert_gt(all.n, closures * 3 / 4);
    size_t heap_n = 0;
    uint64_t *heap = malloc(all.n * 8);
    cr_assert_not_null(heap);
    unsigned kinds[128] = {0};
    for (size_t i = 0; i < all.n; i++) {
        uint32_t ty = check_closure(&t, all.v[i]);
        kinds[ty]++;
        tw_children(&t, all.v[i], on_edge, &k);
        check_fields(&t, all.v[i]);
        if (tw_in_heap(all.v[i]))
            heap[heap_n++] = all.v[i];
    }
    cr_assert_gt(k.edges, all.n);
    cr_assert_gt(k.tagged, 1000, "too few tagged pointers");
    cr_assert_gt(k.dropped, 0, "no pointer in a last stack frame");
    /* every family of heap-layout.md §6 is present */
    static const unsigned want[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 37, 38,
                                    39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52,
                                    53, 54, 59};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert_gt(kinds[want[i]], 0, "no reachable closure of type %u", want[i]);

    static const unsigned frames[] = {30, 31, 32, 33, 34, 35, 36, 55};
    for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++)
        cr_assert_gt(frame_kinds[frames[i]], 0, "no stack frame of type %u", frames[i]);
    cr_assert_eq(frame_kinds[65], ghc >= 914 ? 2 : 0, "annotation frames of the main and worker "
                                                     "threads under GHC 9.14 only");

    qsort(heap, heap_n, 8, cmp_u64);
    for (size_t i = 0; i + 1 < heap_n; i++)
        cr_assert_leq(heap[i] + tw_rts_size(&t, heap[i]), heap[i + 1],
                      "closures 0x%llx and 0x%llx overlap", (unsigned long long)heap[i],
                      (unsigned long long)heap[i + 1]);
    free(heap);
    free(all.v);
    synth_process_free(&p);
}

static void check_heap(bool profiled, uint64_t seed, uint64_t closures) {
    check_heap_of(910, profiled, seed, closures);
}

/* GHC 9.12 lays out what 9.10 does; 9.14 adds annotation frames. */
Test(gen_layout, heaps_of_ghc_912_and_914_are_consistent) {
    check_heap_of(912, false, 3, 8000);
    check_heap_of(914, false, 3, 8000);
    check_heap_of(914, true, 4, 8000);
}

Test(gen_layout, plain_heap_is_consistent) {
    check_heap(false, 1, 20000);
}

Test(gen_layout, profiled_heap_is_consistent) {
    check_heap(true, 1, 20000);
}

Test(gen_layout, other_seed_is_consistent) {
    check_heap(false, 77, 50000);
    check_heap(true, 12345, 50000);
}

/* Every closure kind and frame kind, whatever the seed, even when small. */
Test(gen_layout, small_heaps_have_every_kind) {
    for (uint64_t seed = 100; seed < 106; seed++)
        check_heap(seed & 1, seed, 2000);
}

/* The exact bytes of a few closures, as the spec lays them out. */
Test(gen_layout, leak_closure_bytes) {
    synth_options o;
    synth_options_default(&o);
    o.leak_count = 300;
    synth_process p;
    tw_generate(&o, &p);
    tw t = tw_of(&p);
    const char *fm = strstr(p.plan_json, "\"first_match\": \"");
    cr_assert_not_null(fm);
    uint64_t first = strtoull(fm + strlen("\"first_match\": \""), NULL, 16);
    tw_info i = tw_closure_info(&t, first);
    cr_assert_eq(i.type, 5);
    cr_assert_eq(i.ptrs, 1);
    cr_assert_eq(i.nptrs, 1);
    cr_assert_eq(i.srt, 0, "Leak is constructor 0");
    cr_assert_str_eq(tw_con_desc(&t, tw_u64(&t, first)), "main:Main.Leak");
    uint64_t box = tw_u64(&t, first + 8);
    cr_assert_eq(box & 7, 1, "I# pointer tagged 1");
    cr_assert_eq(tw_u64(&t, (box & ~(uint64_t)7) + 8), 1, "first Leak holds I# 1");
    cr_assert_eq(tw_u64(&t, first + 16), 1 * 31 + 7);
    cr_assert_eq(tw_size(&t, first), 24);
    synth_process_free(&p);
}
