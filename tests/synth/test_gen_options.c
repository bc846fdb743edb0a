/* Options: defaults, rejected values, and what the profiled flavour adds
 * (era and CCS in every header, the cost-centre tree of synth.h), plus
 * roots, saved objects and threads. */
#include "test_gen_walk.h"

Test(gen_options, defaults) {
    synth_options o;
    synth_options_default(&o);
    cr_assert_eq(o.closures, 10000);
    cr_assert_eq(o.eras, 5);
    cr_assert_not(o.profiled);
    cr_assert_str_eq(o.leak_constructor, "Leak");
    cr_assert_eq(o.leak_count, 1000);
    cr_assert_eq(o.leak_era, 1);
    cr_assert_eq(o.seed, 1);
}

static void rejected(synth_options *o, const char *why) {
    synth_process p;
    memset(&p, 0xab, sizeof p);
    char err[256] = "";
    cr_assert_eq(synth_generate(o, &p, err, sizeof err), -1, "accepted: %s", why);
    cr_assert_neq(err[0], 0, "no message for %s", why);
    cr_assert_null(p.regions, "process not cleared after an error");
    cr_assert_null(p.plan_json);
}

Test(gen_options, invalid_values) {
    synth_options o;
    synth_options_default(&o);
    o.leak_era = 5;
    rejected(&o, "leak_era == eras");
    synth_options_default(&o);
    o.leak_era = 0;
    rejected(&o, "leak_era 0");
    synth_options_default(&o);
    o.eras = 1;
    o.leak_era = 1;
    rejected(&o, "one era");
    synth_options_default(&o);
    o.leak_count = 0;
    rejected(&o, "no leak");
    synth_options_default(&o);
    o.leak_constructor = "leak";
    rejected(&o, "lower-case constructor");
    o.leak_constructor = "Main.Leak";
    rejected(&o, "dotted constructor");
    o.leak_constructor = "Just";
    rejected(&o, "clashes with base:GHC.Maybe.Just");
    o.leak_constructor = "";
    rejected(&o, "empty name");
    synth_options_default(&o);
    o.closures = UINT64_C(1) << 40;
    rejected(&o, "absurd size");
}

Test(gen_options, ghc_versions) {
    synth_options o;
    synth_options_default(&o);
    cr_assert_eq(o.ghc_version, 910);
    cr_assert_eq(o.unknown_type, 0);
    o.ghc_version = 911;
    rejected(&o, "GHC 9.11");
    synth_options_default(&o);
    o.ghc_version = 914;
    o.unknown_type = 65;
    rejected(&o, "ANN_FRAME is a type of GHC 9.14");
    o.unknown_type = 64;
    rejected(&o, "CONTINUATION");
    o.unknown_type = 65536;
    rejected(&o, "beyond 16 bits");
    static const struct { unsigned ghc, patch, unknown; const char *name; } ok[] = {
        {910, 1, 65, "UNKNOWN_TYPE_65"}, {912, 2, 65, "UNKNOWN_TYPE_65"},
        {914, 1, 66, "UNKNOWN_TYPE_66"}, {914, 1, 300, "UNKNOWN_TYPE_LARGE"}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        synth_options_default(&o);
        o.closures = 3000;
        o.leak_count = 100;
        o.ghc_version = ok[i].ghc;
        o.unknown_type = ok[i].unknown;
        synth_process p;
        tw_generate(&o, &p);
        cr_assert_eq(p.ghc_major, ok[i].ghc);
        cr_assert_eq(p.ghc_patch, ok[i].patch);
        /* the last root holds the closure of that type: one pointer, one word */
        tw t = tw_of(&p);
        uint64_t u = p.roots[p.n_roots - 1];
        tw_info info = tw_closure_info(&t, u);
        cr_assert_eq(info.type, ok[i].unknown);
        cr_assert_eq(info.ptrs, 1);
        cr_assert_eq(info.nptrs, 1);
        char want[96];
        snprintf(want, sizeof want, "\"name\": \"%s\", \"address\": \"0x%llx\"", ok[i].name,
                 (unsigned long long)u);
        cr_assert(strstr(p.plan_json, want), "plan lacks %s", want);
        cr_assert_eq(strstr(p.plan_json, "\"annotation_frames\"") != NULL, ok[i].ghc >= 914);
        cr_assert_eq(strstr(p.plan_json, "\"ghc_version\"") != NULL, ok[i].ghc != 910);
        synth_process_free(&p);
    }
}

Test(gen_options, profiled_headers_and_cost_centres) {
    synth_options o;
    synth_options_default(&o);
    o.profiled = true;
    o.eras = 7;
    o.leak_era = 2;
    synth_process p;
    tw_generate(&o, &p);
    tw t = tw_of(&p);
    cr_assert_eq(t.H, 24);
    cr_assert_neq(p.ccs_main, 0);

    /* the CCS tree from CCS_MAIN through the index tables */
    tw_set ccs = {0};
    tw_vec todo = {0};
    tw_push(&todo, p.ccs_main);
    tw_set_add(&ccs, p.ccs_main);
    size_t back_edges = 0;
    cr_assert_eq(tw_u64(&t, p.ccs_main + 16), 0, "CCS_MAIN has no parent");
    cr_assert_eq(tw_u64(&t, p.ccs_main + 40), 0, "CCS_MAIN depth");
    while (todo.n) {
        uint64_t s = todo.v[--todo.n];
        uint64_t cc = tw_u64(&t, s + 8);
        const char *label = (const char *)synth_mem(&p, tw_u64(&t, cc + 8), 1);
        cr_assert_not_null(label);
        cr_assert_not_null(synth_mem(&p, tw_u64(&t, cc + 16), 1), "module string");
        cr_assert_not_null(synth_mem(&p, tw_u64(&t, cc + 24), 1), "srcloc string");
        cr_assert_eq(tw_u64(&t, s + 32), p.ccs_main, "root of every CCS");
        for (uint64_t it = tw_u64(&t, s + 24); it; it = tw_u64(&t, it + 16)) {
            uint64_t child = tw_u64(&t, it + 8);
            cr_assert_eq(tw_u64(&t, child + 8), tw_u64(&t, it), "index entry cc");
            if (tw_u64(&t, it + 24) & 0xff) {
                back_edges++;
                continue;
            }
            cr_assert_eq(tw_u64(&t, child + 16), s, "child's prevStack");
            cr_assert_eq(tw_u64(&t, child + 40), tw_u64(&t, s + 40) + 1, "depth");
            if (tw_set_add(&ccs, child))
                tw_push(&todo, child);
        }
    }
    cr_assert_geq(ccs.n, 6);
    cr_assert_eq(back_edges, 1);
    free(todo.v);

    /* every header: a known CCS (static ones CCS_DONT_CARE) and an era */
    tw_vec all = tw_reach(&t, 0, NULL);
    uint64_t dont_care = 0;
    unsigned eras_seen[8] = {0};
    for (size_t i = 0; i < all.n; i++) {
        uint64_t a = all.v[i], s = tw_u64(&t, a + 8), era = tw_u64(&t, a + 16);
        if (tw_in_heap(a)) {
            cr_assert(era >= 1 && era <= 7, "heap closure era %llu", (unsigned long long)era);
            eras_seen[era]++;
            cr_assert(tw_set_has(&ccs, s), "heap closure CCS 0x%llx not in the tree",
                      (unsigned long long)s);
        } else {
            cr_assert_eq(era, 0);
            if (!dont_care)
                dont_care = s;
            cr_assert_eq(s, dont_care, "static closures share CCS_DONT_CARE");
        }
    }
    for (unsigned e = 1; e <= 7; e++)
        cr_assert_gt(eras_seen[e], 10, "era %u barely used", e);
    cr_assert(!tw_set_has(&ccs, dont_care));
    const char *label = (const char *)synth_mem(&p, tw_u64(&t, tw_u64(&t, dont_care + 8) + 8), 10);
    cr_assert_str_eq(label, "DONT_CARE");
    free(all.v);
    free(ccs.slot);
    synth_process_free(&p);
}

Test(gen_options, roots_threads_and_saved_objects) {
    synth_options o;
    synth_options_default(&o);
    synth_process p;
    tw_generate(&o, &p);
    tw t = tw_of(&p);
    size_t tsos = 0, tagged = 0;
    bool threads_done = false;
    unsigned why[16] = {0}, what[8] = {0};
    for (size_t r = 0; r < p.n_roots; r++) {
        uint64_t a = p.roots[r] & ~(uint64_t)7;
        tagged += (p.roots[r] & 7) != 0;
        if (tw_closure_info(&t, a).type == 52) {
            cr_assert_not(threads_done, "TSO after the stable pointers");
            tsos++;
            uint32_t wb = tw_u32(&t, a + t.H + 32);
            cr_assert_lt(wb, 16);
            why[wb]++;
            what[(uint16_t)tw_u64(&t, a + t.H + 24) & 7]++;
        } else {
            threads_done = true;
        }
    }
    cr_assert_geq(tsos, 6);
    cr_assert_gt(p.n_roots, tsos, "stable pointer roots");
    cr_assert_gt(tagged, 1);
    cr_assert(why[0] && why[1] && why[2] && why[6], "why_blocked varies");
    cr_assert(what[1] && what[3] && what[4], "what_next varies");
    cr_assert(p.n_saved >= 3 && p.n_saved <= SYNTH_MAX_SAVED);
    for (size_t s = 0; s < p.n_saved; s++) {
        cr_assert_eq(p.saved[s] & 7, 0, "saved objects are untagged");
        cr_assert_gt(tw_closure_info(&t, p.saved[s]).type, 0);
    }
    synth_process_free(&p);
}
