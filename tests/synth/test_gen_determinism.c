/* Generation is a function of the options: the same seed gives the same
 * process byte for byte, another seed a different heap. */
#include "test_gen_walk.h"

static bool same_process(const synth_process *a, const synth_process *b) {
    if (a->n_regions != b->n_regions || a->n_groups != b->n_groups ||
        a->n_roots != b->n_roots || a->n_saved != b->n_saved || a->n_ipes != b->n_ipes ||
        a->prof_mode != b->prof_mode || a->ccs_main != b->ccs_main)
        return false;
    for (size_t i = 0; i < a->n_regions; i++)
        if (a->regions[i].base != b->regions[i].base ||
            a->regions[i].size != b->regions[i].size ||
            memcmp(a->regions[i].bytes, b->regions[i].bytes, a->regions[i].size))
            return false;
    if (memcmp(a->group_starts, b->group_starts, a->n_groups * 8) ||
        memcmp(a->roots, b->roots, a->n_roots * 8) || memcmp(a->saved, b->saved, a->n_saved * 8))
        return false;
    for (size_t i = 0; i < a->n_ipes; i++) {
        if (a->ipes[i].info != b->ipes[i].info)
            return false;
        for (int k = 0; k < 6; k++)
            if (strcmp(a->ipes[i].strings[k], b->ipes[i].strings[k]))
                return false;
    }
    return !strcmp(a->plan_json, b->plan_json);
}

static void twice(bool profiled, uint64_t seed, uint64_t closures) {
    synth_options o;
    synth_options_default(&o);
    o.profiled = profiled;
    o.seed = seed;
    o.closures = closures;
    synth_process a, b;
    tw_generate(&o, &a);
    tw_generate(&o, &b);
    cr_assert(same_process(&a, &b), "same seed, different process");
    o.seed = seed + 1;
    synth_process c;
    tw_generate(&o, &c);
    cr_assert_not(same_process(&a, &c), "another seed, same process");
    cr_assert_str_neq(a.plan_json, c.plan_json);
    synth_process_free(&a);
    synth_process_free(&b);
    synth_process_free(&c);
}

Test(gen_determinism, plain) {
    twice(false, 1, 10000);
}

Test(gen_determinism, profiled) {
    twice(true, 42, 10000);
}

Test(gen_determinism, larger_heap) {
    twice(false, 7, 150000);
}

/* A count of a plan's key ("main:Main:Span") in its section ("by_constructor"). */
static uint64_t plan_count(const char *json, const char *section, const char *key) {
    static char sec[1 << 16];
    tw_json_section(json, section, sec, sizeof sec);
    char head[128];
    snprintf(head, sizeof head, "\"%s\": {\"count\"", key);
    const char *at = strstr(sec, head);
    return at ? tw_json_u64(at, "\"count\"") : 0;
}

/* --grow-per-pause: the heap after two resumes is the first heap plus two
 * rounds of N Span closures and N (:) cells, in eras K+1 and K+2; the roots
 * (the growth's IORef last) do not move. */
Test(gen_determinism, growth_adds_only_its_rounds) {
    synth_options o;
    synth_options_default(&o);
    o.profiled = true;
    o.grow_per_pause = 25;
    synth_process a, b;
    tw_generate(&o, &a);
    o.grow_rounds = 2;
    tw_generate(&o, &b);
    cr_assert_eq(a.n_roots, b.n_roots);
    cr_assert_eq(memcmp(a.roots, b.roots, a.n_roots * 8), 0, "the roots moved");
    const char *keys[] = {"main:Main:Span", "ghc-prim:GHC.Types::"};
    for (size_t k = 0; k < 2; k++)
        cr_expect_eq(plan_count(b.plan_json, "by_constructor", keys[k]),
                     plan_count(a.plan_json, "by_constructor", keys[k]) + 50, "%s", keys[k]);
    cr_expect_eq(tw_json_u64(strstr(b.plan_json, "\"reachable\""), "\"count\""),
                 tw_json_u64(strstr(a.plan_json, "\"reachable\""), "\"count\"") + 100);
    const char *growth_eras[] = {"6", "7"};
    for (size_t e = 0; e < 2; e++) {
        cr_expect_eq(plan_count(a.plan_json, "by_era", growth_eras[e]), 0);
        cr_expect_eq(plan_count(b.plan_json, "by_era", growth_eras[e]), 50, "era %s",
                     growth_eras[e]);
    }
    /* without the option, no growth root */
    synth_options_default(&o);
    o.profiled = true;
    synth_process c;
    tw_generate(&o, &c);
    cr_expect_eq(c.n_roots + 1, a.n_roots);
    synth_process_free(&a);
    synth_process_free(&b);
    synth_process_free(&c);
}

/* Options other than the seed still give fixed text and roots layout. */
Test(gen_determinism, text_region_independent_of_seed) {
    synth_options o;
    synth_options_default(&o);
    synth_process a, b;
    tw_generate(&o, &a);
    o.seed = 1000;
    tw_generate(&o, &b);
    cr_assert_eq(a.regions[0].size, b.regions[0].size);
    cr_assert_eq(memcmp(a.regions[0].bytes, b.regions[0].bytes, a.regions[0].size), 0,
                 "info tables depend on the seed");
    cr_assert_eq(a.n_ipes, b.n_ipes);
    cr_assert_eq(a.n_roots, b.n_roots);
    synth_process_free(&a);
    synth_process_free(&b);
}
