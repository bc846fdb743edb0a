/* A heap of a million closures generates, with its plan, and keeps its
 * proportions (no timing assertion: that is for benchmarks). */
#include "test_gen_walk.h"

Test(gen_scale, million_closures) {
    synth_options o;
    synth_options_default(&o);
    o.closures = 1000000;
    o.seed = 11;
    synth_process p;
    tw_generate(&o, &p);
    const char *r = strstr(p.plan_json, "\"reachable\"");
    const char *s = strstr(p.plan_json, "\"static\"");
    const char *g = strstr(p.plan_json, "\"garbage\"");
    cr_assert(r && s && g);
    uint64_t heap = tw_json_u64(r, "\"count\"") - tw_json_u64(s, "\"count\"");
    uint64_t garbage = tw_json_u64(g, "\"count\"");
    cr_assert(heap + garbage >= 950000 && heap + garbage <= 1100000, "%llu heap closures",
              (unsigned long long)(heap + garbage));
    cr_assert(garbage * 100 >= heap && garbage * 100 <= 4 * heap);
    uint64_t bytes = 0;
    for (size_t i = 2; i < p.n_regions; i++)
        bytes += p.regions[i].size;
    cr_assert_lt(bytes, UINT64_C(100) << 20, "%llu heap bytes for 1M closures",
                 (unsigned long long)bytes);
    cr_assert_gt(p.n_groups, 5000);
    cr_assert_gt(p.n_regions, 3);
    /* the long list (1/20 of the closures, one chain) is among the cons cells */
    const char *cons = strstr(p.plan_json, "\"ghc-prim:GHC.Types::\": {\"count\": ");
    cr_assert_not_null(cons);
    cr_assert_gt(strtoull(strchr(cons, '{') + 10, NULL, 10), 50000);
    synth_process_free(&p);
}

Test(gen_scale, profiled_quarter_million) {
    synth_options o;
    synth_options_default(&o);
    o.closures = 250000;
    o.profiled = true;
    o.eras = 12;
    o.leak_era = 11;
    synth_process p;
    tw_generate(&o, &p);
    cr_assert_not_null(strstr(p.plan_json, "\"12\": {\"count\": "));
    cr_assert_not_null(strstr(p.plan_json, "\"main:Main:Leak\": {\"11\": {\"count\": 1000,"));
    synth_process_free(&p);
}
