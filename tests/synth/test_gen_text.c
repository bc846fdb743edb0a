/* The text region: info tables (tables next to code), constructor
 * descriptions and tags, function and frame bitmaps, SRT offsets, the
 * profiling fields, and the IPE map (heap-layout.md §3, §8-§10,
 * wire-protocol.md §7.10-§7.11). */
#include "test_gen_walk.h"

static const uint8_t code_sig[8] = {0x48, 0x8b, 0x45, 0x00, 0xff, 0x20, 0x0f, 0x0b};

/* Every info pointer: the entry code that follows each table. */
static size_t find_tables(const synth_process *p, uint64_t *out, size_t max) {
    const synth_region *r = &p->regions[0];
    cr_assert_eq(r->base, SYNTH_TEXT_BASE);
    size_t n = 0;
    for (uint64_t off = 16; off + 16 <= r->size && off < 0x20000; off += 8)
        if (!memcmp(r->bytes + off, code_sig, sizeof code_sig) && n < max)
            out[n++] = r->base + off;
    return n;
}

static bool is_text_string(const synth_process *p, uint64_t a) {
    for (uint64_t i = 0; i < 4096; i++) {
        const uint8_t *b = synth_mem(p, a + i, 1);
        if (!b || a + i >= SYNTH_DATA_BASE)
            return false;
        if (!*b)
            return true; /* may be empty */
    }
    return false;
}

static bool all_digits(const char *s) {
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* file:L:C1-C2 or file:(L1,C1)-(L2,C2) */
static bool position_ok(const char *pos) {
    const char *colon = strchr(pos, ':');
    if (!colon || colon == pos)
        return false;
    unsigned a, b, c, d;
    char tail;
    if (sscanf(colon + 1, "%u:%u-%u%c", &a, &b, &c, &tail) == 3)
        return b <= c;
    if (sscanf(colon + 1, "(%u,%u)-(%u,%u)%c", &a, &b, &c, &d, &tail) == 4)
        return a <= c;
    return false;
}

static void check_text(bool profiled) {
    synth_options o;
    synth_options_default(&o);
    o.profiled = profiled;
    o.closures = 2000;
    synth_process p;
    tw_generate(&o, &p);
    tw t = tw_of(&p);
    static uint64_t tabs[4096];
    size_t n = find_tables(&p, tabs, 4096);
    cr_assert_gt(n, 150, "only %zu info tables", n);

    size_t with_ipe = 0, funs[3] = {0}, mixed_ret = 0, ret_big = 0, srts = 0, direct_srt = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t P = tabs[k];
        if (k)
            cr_assert_geq(P - tabs[k - 1], t.S + 16, "tables overlap");
        tw_info i = tw_itab(&t, P);
        cr_assert(i.type >= 1 && i.type <= 63, "table 0x%llx type %u", (unsigned long long)P, i.type);
        if (profiled) {
            cr_assert(is_text_string(&p, P + (uint64_t)(int64_t)(int32_t)tw_u32(&t, P - 32)));
            cr_assert(is_text_string(&p, P + (uint64_t)(int64_t)(int32_t)tw_u32(&t, P - 24)));
        }
        const synth_ipe *ipe = synth_find_ipe(&p, P);
        if (ipe) {
            with_ipe++;
            size_t nl = strlen(ipe->strings[0]);
            cr_assert(nl > 5 && !strcmp(ipe->strings[0] + nl - 5, "_info"));
            cr_assert(all_digits(ipe->strings[1]));
            unsigned ct = (unsigned)atoi(ipe->strings[1]);
            if (ct == 0)
                cr_assert(tw_is_con(i.type), "closure type 0 on a non-constructor");
            else
                cr_assert_eq(ct, i.type, "IPE type of %s", ipe->strings[0]);
            cr_assert(position_ok(ipe->strings[5]), "position \"%s\"", ipe->strings[5]);
        }
        if (tw_is_con(i.type)) {
            const char *d = tw_con_desc(&t, P);
            cr_assert(is_text_string(&p, (uint64_t)(d - (const char *)p.regions[0].bytes) +
                                             SYNTH_TEXT_BASE));
            cr_assert_lt((unsigned)i.srt, 7, "constructor tag %d", i.srt);
        }
        if (tw_is_fun(i.type)) {
            uint64_t ext = P - t.S - 24;
            uint32_t ft = tw_u32(&t, ext + 16), arity = tw_u32(&t, ext + 20);
            uint64_t bm = tw_u64(&t, ext + 8);
            cr_assert(ft != 2 && ft <= 28 && arity >= 1);
            if (ft == 0) {
                cr_assert_eq(bm & 63, arity, "small bitmap size != arity");
                funs[0]++;
            } else if (ft == 1) {
                uint64_t lb = P + (uint64_t)(int64_t)(int32_t)(uint32_t)bm;
                cr_assert_eq(tw_u64(&t, lb), arity, "large bitmap size != arity");
                cr_assert_gt(arity, 64);
                funs[1]++;
            } else {
                funs[2]++;
            }
        }
        if (i.type == 30) {
            uint64_t sz = i.layout & 63, bits = i.layout >> 6;
            cr_assert_leq(bits >> sz, 0, "bits beyond the bitmap size");
            mixed_ret += bits != 0 && bits != (UINT64_C(1) << sz) - 1;
        }
        if (i.type == 31) {
            uint64_t lb = P + (uint64_t)(int64_t)(int32_t)i.ptrs;
            cr_assert_gt(tw_u64(&t, lb), 64, "RET_BIG with a small bitmap");
            ret_big++;
        }
        if (i.type == 33)
            cr_assert_eq(i.layout, profiled ? 3 | 3 << 6 : 1, "update frame layout");
        if (i.type == 36)
            cr_assert_eq(i.layout, profiled ? 2 | 3 << 6 : 0, "stop frame layout");
        if (i.type == 35)
            cr_assert_eq(i.layout, 1, "underflow frame: one pointer");
        bool srt_kind = tw_is_fun(i.type) || tw_is_thunk(i.type) || i.type == 21 ||
                        i.type == 30 || i.type == 31;
        if (srt_kind && i.srt) {
            uint64_t s = P + (uint64_t)(int64_t)i.srt;
            cr_assert(s >= SYNTH_DATA_BASE && !tw_in_heap(s), "SRT outside the data region");
            tw_info si = tw_closure_info(&t, s);
            direct_srt += si.type != 7;
            srts++;
        }
    }
    cr_assert_geq(with_ipe * 10, n * 8, "IPE for %zu of %zu tables", with_ipe, n);
    cr_assert_lt(with_ipe, n, "some tables must lack IPE");
    cr_assert(funs[0] && funs[1] && funs[2], "small, large and canned function bitmaps");
    cr_assert_gt(mixed_ret, 0);
    cr_assert_eq(ret_big, 1);
    cr_assert_gt(srts, 10);
    cr_assert_gt(direct_srt, 0, "an SRT pointing straight at a static closure");
    for (size_t k = 1; k < p.n_ipes; k++)
        cr_assert_lt(p.ipes[k - 1].info, p.ipes[k].info, "IPE map unsorted");
    synth_process_free(&p);
}

Test(gen_text, plain_tables) {
    check_text(false);
}

Test(gen_text, profiled_tables) {
    check_text(true);
}

/* The constructor descriptions and tags the client will parse. */
Test(gen_text, constructor_descriptions) {
    static const struct { const char *desc; unsigned type, ptrs, nptrs; int tag; } want[] = {
        {"main:Main.Leak", 5, 1, 1, 0},
        {"ghc-prim:GHC.Types.:", 4, 2, 0, 1},
        {"ghc-prim:GHC.Types.[]", 7, 0, 0, 0},
        {"ghc-prim:GHC.Types.I#", 3, 0, 1, 0},
        {"ghc-prim:GHC.Types.C#", 3, 0, 1, 0},
        {"base:GHC.Maybe.Just", 2, 1, 0, 1},
        {"base:GHC.Maybe.Nothing", 7, 0, 0, 0},
        {"ghc-prim:GHC.Tuple.(,)", 4, 2, 0, 0},
        {"containers-0.6.7:Data.Map.Internal.Bin", 1, 4, 1, 0},
        {"containers-0.6.7:Data.Map.Internal.Tip", 7, 0, 0, 1},
        {"main:Main.Holder", 1, 2, 1, 0},
        {"main:Main.Span", 6, 0, 2, 0},
        {"main:Main.OpG", 2, 1, 0, 6},
        {"END_TSO_QUEUE", 7, 0, 0, 0},
    };
    synth_options o;
    synth_options_default(&o);
    o.closures = 1000;
    synth_process p;
    tw_generate(&o, &p);
    tw t = tw_of(&p);
    static uint64_t tabs[4096];
    size_t n = find_tables(&p, tabs, 4096);
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        bool found = false;
        for (size_t k = 0; k < n && !found; k++) {
            tw_info i = tw_itab(&t, tabs[k]);
            if (!tw_is_con(i.type) || strcmp(tw_con_desc(&t, tabs[k]), want[w].desc) ||
                i.type != want[w].type)
                continue;
            found = true;
            cr_assert_eq(i.ptrs, want[w].ptrs, "%s ptrs", want[w].desc);
            cr_assert_eq(i.nptrs, want[w].nptrs, "%s nptrs", want[w].desc);
            cr_assert_eq(i.srt, want[w].tag, "%s tag", want[w].desc);
        }
        cr_assert(found, "no table for %s (type %u)", want[w].desc, want[w].type);
    }
    const synth_ipe *leak = NULL;
    for (size_t k = 0; k < p.n_ipes; k++)
        if (!strcmp(p.ipes[k].strings[0], "Main_Leak_con_info"))
            leak = &p.ipes[k];
    cr_assert_not_null(leak);
    cr_assert_str_eq(leak->strings[4], "Main");
    synth_process_free(&p);
}
