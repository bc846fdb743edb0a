/* Filters: each kind, inversion (and the reference's rule that inverted
 * constructor / closure-name filters still reject non-constructors /
 * closures without IPE), AND with short-circuit, value errors, and the
 * checks against the debuggee's profiling mode (retainers-and-eras.md §4). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/query.h"
#include "query_heap.h"

typedef struct fx {
    qh *q;
    heap *h;
    query_filters *f;
    heap_closure c;
    hs_error err;
} fx;

static void fx_init(fx *x, uint8_t prof_mode) {
    memset(x, 0, sizeof *x);
    x->q = qh_new(prof_mode);
    cr_assert_eq(query_filters_new(&x->f, &x->err), HS_OK);
}

static void fx_open(fx *x) {
    x->h = qh_open(x->q);
    cr_assert_eq(query_filters_prepare(x->f, x->h, &x->err), HS_OK, "%s", x->err.message);
}

static void fx_fini(fx *x) {
    heap_closure_free(&x->c);
    query_filters_free(x->f);
    qh_free(x->q);
}

static void add(fx *x, query_filter_kind kind, const char *text, bool invert) {
    hs_status st = query_filters_add(x->f, kind, text, invert, &x->err);
    cr_assert_eq(st, HS_OK, "add %s '%s': %s", query_filter_kind_name(kind), text,
                 x->err.message);
}

static bool matches(fx *x, uint64_t addr) {
    cr_assert_eq(heap_decode(x->h, addr, &x->c, &x->err), HS_OK, "%s", x->err.message);
    bool out = false;
    hs_status st = query_filters_match(x->f, x->h, &x->c, &out, &x->err);
    cr_assert_eq(st, HS_OK, "%s", x->err.message);
    return out;
}

/* One filter alone: its result for a constructor Leak, a constructor
 * Other, and a non-constructor (a MUT_VAR). */
typedef struct three {
    uint64_t leak, other, mutvar;
} three;

static three make_three(fx *x) {
    three t;
    t.leak = qh_con(x->q, "main:Main.Leak", 0, NULL, 1);
    t.other = qh_con(x->q, "main:Main.Other", 0, NULL, 1);
    uint64_t v = t.leak;
    t.mutvar = qh_plain(x->q, HS_MUT_VAR_DIRTY, 1, &v, 0);
    return t;
}

Test(query_filter, empty_list_matches_everything) {
    fx x;
    fx_init(&x, WIRE_PROF_NONE);
    three t = make_three(&x);
    fx_open(&x);
    cr_expect_eq(query_filters_count(x.f), 0);
    cr_expect(matches(&x, t.leak));
    cr_expect(matches(&x, t.mutvar));
    fx_fini(&x);
}

Test(query_filter, exact_constructor_and_its_inversion) {
    fx x;
    fx_init(&x, WIRE_PROF_NONE);
    three t = make_three(&x);
    add(&x, QUERY_FILTER_EXACT, "Leak", false);
    fx_open(&x);
    cr_expect(matches(&x, t.leak));
    cr_expect_not(matches(&x, t.other));
    cr_expect_not(matches(&x, t.mutvar));
    fx_fini(&x);

    fx_init(&x, WIRE_PROF_NONE);
    t = make_three(&x);
    add(&x, QUERY_FILTER_EXACT, "Leak", true);
    fx_open(&x);
    cr_expect_not(matches(&x, t.leak));
    cr_expect(matches(&x, t.other));
    /* §4.1: not a constructor -> false even when inverted */
    cr_expect_not(matches(&x, t.mutvar));
    fx_fini(&x);
}

Test(query_filter, exact_compares_the_name_part_only) {
    fx x;
    fx_init(&x, WIRE_PROF_NONE);
    three t = make_three(&x);
    add(&x, QUERY_FILTER_EXACT, "Main.Leak", false);
    fx_open(&x);
    cr_expect_not(matches(&x, t.leak));
    fx_fini(&x);
}

Test(query_filter, closure_name_needs_ipe_even_inverted) {
    fx x;
    fx_init(&x, WIRE_PROF_NONE);
    three t = make_three(&x);
    qh_ipe(x.q, qh_con_info(x.q, "main:Main.Leak", 0, 1), "Leak_con_info", "app/Main.hs:3:1");
    qh_ipe(x.q, qh_con_info(x.q, "main:Main.Other", 0, 1), "Other_con_info", "app/Main.hs:4:1");
    add(&x, QUERY_FILTER_CLOSURE_NAME, "Leak_con_info", false);
    fx_open(&x);
    cr_expect(matches(&x, t.leak));
    cr_expect_not(matches(&x, t.other));
    cr_expect_not(matches(&x, t.mutvar)); /* no IPE */
    fx_fini(&x);

    fx_init(&x, WIRE_PROF_NONE);
    t = make_three(&x);
    qh_ipe(x.q, qh_con_info(x.q, "main:Main.Leak", 0, 1), "Leak_con_info", "app/Main.hs:3:1");
    qh_ipe(x.q, qh_con_info(x.q, "main:Main.Other", 0, 1), "Other_con_info", "app/Main.hs:4:1");
    add(&x, QUERY_FILTER_CLOSURE_NAME, "Leak_con_info", true);
    fx_open(&x);
    cr_expect_not(matches(&x, t.leak));
    cr_expect(matches(&x, t.other));
    cr_expect_not(matches(&x, t.mutvar)); /* no IPE: false though inverted (§4.1) */
    fx_fini(&x);
}

Test(query_filter, closure_name_asks_each_info_table_once) {
    fx x;
    fx_init(&x, WIRE_PROF_NONE);
    uint64_t a = qh_con(x.q, "main:Main.Leak", 0, NULL, 1);
    uint64_t b = qh_con(x.q, "main:Main.Leak", 0, NULL, 1);
    add(&x, QUERY_FILTER_CLOSURE_NAME, "x", false);
    fx_open(&x);
    matches(&x, a);
    matches(&x, b);
    matches(&x, a);
    cr_expect_eq(qh_source_info_requests(x.q), 1);
    fx_fini(&x);
}

Test(query_filter, address_info_type_size) {
    fx x;
    fx_init(&x, WIRE_PROF_NONE);
    three t = make_three(&x);
    char addr[32], info[32];
    snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)t.other | 2); /* tagged: untagged */
    snprintf(info, sizeof info, "0x%llX", (unsigned long long)qh_con_info(x.q, "main:Main.Leak", 0, 1));
    add(&x, QUERY_FILTER_ADDRESS, addr, false);
    fx_open(&x);
    cr_expect(matches(&x, t.other));
    cr_expect_not(matches(&x, t.leak));
    fx_fini(&x);

    fx_init(&x, WIRE_PROF_NONE);
    t = make_three(&x);
    add(&x, QUERY_FILTER_INFO, info, false);
    fx_open(&x);
    cr_expect(matches(&x, t.leak));
    cr_expect_not(matches(&x, t.other));
    cr_expect_not(matches(&x, t.mutvar));
    fx_fini(&x);

    fx_init(&x, WIRE_PROF_NONE);
    t = make_three(&x);
    add(&x, QUERY_FILTER_TYPE, "MUT_VAR_DIRTY", false);
    fx_open(&x);
    cr_expect(matches(&x, t.mutvar));
    cr_expect_not(matches(&x, t.leak));
    fx_fini(&x);

    /* sizes: a constructor with one data word is 16 bytes, a MUT_VAR 16 */
    fx_init(&x, WIRE_PROF_NONE);
    uint64_t big = qh_con(x.q, "main:Main.Big", 0, NULL, 9); /* 80 bytes */
    uint64_t small = qh_con(x.q, "main:Main.Small", 0, NULL, 1);
    add(&x, QUERY_FILTER_MIN_SIZE, "80", false);
    fx_open(&x);
    cr_expect(matches(&x, big));
    cr_expect_not(matches(&x, small));
    fx_fini(&x);

    fx_init(&x, WIRE_PROF_NONE);
    big = qh_con(x.q, "main:Main.Big", 0, NULL, 9);
    small = qh_con(x.q, "main:Main.Small", 0, NULL, 1);
    add(&x, QUERY_FILTER_MIN_SIZE, "81", true); /* smaller than 81 */
    fx_open(&x);
    cr_expect(matches(&x, big));
    cr_expect(matches(&x, small));
    fx_fini(&x);
}

Test(query_filter, negative_size_bound_matches_everything) {
    fx x;
    fx_init(&x, WIRE_PROF_NONE);
    three t = make_three(&x);
    add(&x, QUERY_FILTER_MIN_SIZE, " -5 ", false);
    fx_open(&x);
    cr_expect(matches(&x, t.leak));
    cr_expect(matches(&x, t.mutvar));
    fx_fini(&x);
}

Test(query_filter, era_range_and_inversion) {
    fx x;
    fx_init(&x, WIRE_PROF_ERA);
    uint64_t e1 = qh_con(x.q, "main:Main.A", 0, NULL, 1);
    uint64_t e3 = qh_con(x.q, "main:Main.A", 0, NULL, 1);
    uint64_t e9 = qh_con(x.q, "main:Main.A", 0, NULL, 1);
    qh_set_era(x.q, e1, 1);
    qh_set_era(x.q, e3, 3);
    qh_set_era(x.q, e9, 9);
    add(&x, QUERY_FILTER_ERA, "2-5", false);
    fx_open(&x);
    cr_expect_not(matches(&x, e1));
    cr_expect(matches(&x, e3));
    cr_expect_not(matches(&x, e9));
    fx_fini(&x);

    fx_init(&x, WIRE_PROF_ERA);
    e1 = qh_con(x.q, "main:Main.A", 0, NULL, 1);
    e9 = qh_con(x.q, "main:Main.A", 0, NULL, 1);
    qh_set_era(x.q, e9, 9);
    add(&x, QUERY_FILTER_ERA, "3-", true);
    fx_open(&x);
    cr_expect(matches(&x, e1));
    cr_expect_not(matches(&x, e9));
    fx_fini(&x);
}

Test(query_filter, era_filter_needs_era_profiling) {
    static const uint8_t modes[] = {WIRE_PROF_NONE, WIRE_PROF_PLAIN, WIRE_PROF_LDV};
    for (size_t i = 0; i < 3; i++) {
        fx x;
        fx_init(&x, modes[i]);
        qh_root(x.q, qh_con(x.q, "main:Main.A", 0, NULL, 1));
        add(&x, QUERY_FILTER_ERA, "1", false);
        x.h = qh_open(x.q);
        hs_status st = query_filters_prepare(x.f, x.h, &x.err);
        cr_expect_eq(st, HS_ERR_USAGE, "mode %u", modes[i]);
        cr_expect(strstr(x.err.message, "era profiling"), "%s", x.err.message);
        fx_fini(&x);
    }
}

Test(query_filter, cost_centre_needs_a_profiled_debuggee) {
    fx x;
    fx_init(&x, WIRE_PROF_NONE);
    add(&x, QUERY_FILTER_COST_CENTRE, "3", false);
    x.h = qh_open(x.q);
    cr_expect_eq(query_filters_prepare(x.f, x.h, &x.err), HS_ERR_USAGE);
    cr_expect(strstr(x.err.message, "profiled"), "%s", x.err.message);
    fx_fini(&x);
}

/* Issue 9, item 6: like the era and cost-centre filters, a closure-name
 * filter says why it cannot match. */
Test(query_filter, closure_name_needs_a_ghc_with_provenance) {
    fx x;
    fx_init(&x, WIRE_PROF_NONE);
    qh_ghc(x.q, 900);
    add(&x, QUERY_FILTER_CLOSURE_NAME, "sat_info", false);
    x.h = qh_open(x.q);
    cr_expect_eq(query_filters_prepare(x.f, x.h, &x.err), HS_ERR_USAGE);
    cr_expect(strstr(x.err.message, "GHC 9.0 has no info-table provenance"), "%s",
              x.err.message);
    cr_expect_not(strstr(x.err.message, "build"), "no advice that cannot be followed: %s",
                  x.err.message);
    fx_fini(&x);

    fx_init(&x, WIRE_PROF_NONE);
    qh_ghc(x.q, 902);
    add(&x, QUERY_FILTER_CLOSURE_NAME, "sat_info", false);
    fx_open(&x);
    fx_fini(&x);
}

Test(query_filter, closure_name_reports_missing_provenance) {
    fx x;
    fx_init(&x, WIRE_PROF_NONE);
    three t = make_three(&x);
    add(&x, QUERY_FILTER_CLOSURE_NAME, "Leak_con_info", false);
    fx_open(&x);
    cr_expect_not(query_filters_provenance_missing(x.f), "nothing asked yet");
    cr_expect_not(matches(&x, t.leak));
    cr_expect_not(matches(&x, t.other));
    cr_expect(query_filters_provenance_missing(x.f), "no info table had IPE");
    fx_fini(&x);

    fx_init(&x, WIRE_PROF_NONE);
    t = make_three(&x);
    qh_ipe(x.q, qh_con_info(x.q, "main:Main.Other", 0, 1), "Other_con_info", "app/Main.hs:4:1");
    add(&x, QUERY_FILTER_CLOSURE_NAME, "Leak_con_info", false);
    fx_open(&x);
    cr_expect_not(matches(&x, t.leak));
    cr_expect_not(matches(&x, t.other));
    cr_expect_not(query_filters_provenance_missing(x.f), "one info table had IPE");
    fx_fini(&x);
}

Test(query_filter, provenance_advice_follows_the_ghc_version) {
    char buf[160];
    heap_provenance_advice(&(wire_version){.major = 900, .patch = 2}, buf, sizeof buf);
    cr_expect_str_eq(buf, "GHC 9.0 has no info-table provenance (it came with GHC 9.2)");
    heap_provenance_advice(&(wire_version){.major = 810}, buf, sizeof buf);
    cr_expect_str_eq(buf, "GHC 8.10 has no info-table provenance (it came with GHC 9.2)");
    heap_provenance_advice(&(wire_version){.major = 902}, buf, sizeof buf);
    cr_expect_str_eq(buf, "build the program with -finfo-table-map");
    heap_provenance_advice(&(wire_version){.major = 910}, buf, sizeof buf);
    cr_expect_str_eq(buf, "build the program with -finfo-table-map");
}

/* CCS tree: MAIN(1) -> A(2) -> B(3) -> C(4), A -> D(5), C -> A back edge. */
static void ccs_tree(fx *x) {
    qh_ccs(x->q, 0x4d0000, 1);
    qh_ccs(x->q, 0x4d0100, 2);
    qh_ccs(x->q, 0x4d0200, 3);
    qh_ccs(x->q, 0x4d0300, 4);
    qh_ccs(x->q, 0x4d0400, 5);
    qh_ccs_child(x->q, 0x4d0000, 0x4d0100, false);
    qh_ccs_child(x->q, 0x4d0100, 0x4d0200, false);
    qh_ccs_child(x->q, 0x4d0200, 0x4d0300, false);
    qh_ccs_child(x->q, 0x4d0100, 0x4d0400, false);
    qh_ccs_child(x->q, 0x4d0300, 0x4d0100, true);
    qh_ccs_main(x->q, 0x4d0000);
}

Test(query_filter, cost_centre_selects_the_stack_and_everything_below) {
    static const uint64_t stacks[] = {0x4d0000, 0x4d0100, 0x4d0200, 0x4d0300, 0x4d0400};
    /* id 3 -> B and C, and A through C's back edge (added, not expanded) */
    static const bool want_3[] = {false, true, true, true, false};
    static const bool want_5[] = {false, false, false, false, true};
    for (int round = 0; round < 2; round++) {
        fx x;
        fx_init(&x, WIRE_PROF_PLAIN);
        ccs_tree(&x);
        uint64_t c[5];
        for (int i = 0; i < 5; i++) {
            c[i] = qh_con(x.q, "main:Main.A", 0, NULL, 1);
            qh_set_ccs(x.q, c[i], stacks[i]);
        }
        add(&x, QUERY_FILTER_COST_CENTRE, round ? "5" : "3", false);
        fx_open(&x);
        for (int i = 0; i < 5; i++)
            cr_expect_eq(matches(&x, c[i]), round ? want_5[i] : want_3[i], "round %d stack %d",
                         round, i);
        fx_fini(&x);
    }
}

Test(query_filter, and_short_circuits_in_order) {
    fx x;
    fx_init(&x, WIRE_PROF_NONE);
    three t = make_three(&x);
    qh_ipe(x.q, qh_con_info(x.q, "main:Main.Leak", 0, 1), "Leak_con_info", "app/Main.hs:3:1");
    add(&x, QUERY_FILTER_TYPE, "MUT_VAR_DIRTY", false);         /* false for constructors */
    add(&x, QUERY_FILTER_CLOSURE_NAME, "Leak_con_info", false); /* would ask SOURCE_INFO */
    fx_open(&x);
    cr_expect_not(matches(&x, t.leak));
    cr_expect_not(matches(&x, t.other));
    cr_expect_eq(qh_source_info_requests(x.q), 0, "a later filter was evaluated");
    cr_expect_not(matches(&x, t.mutvar)); /* type true, then no IPE: false */
    cr_expect_eq(qh_source_info_requests(x.q), 1);
    fx_fini(&x);
}

Test(query_filter, and_of_inverted_filters) {
    fx x;
    fx_init(&x, WIRE_PROF_ERA);
    uint64_t leak2 = qh_con(x.q, "main:Main.Leak", 0, NULL, 1);
    uint64_t leak5 = qh_con(x.q, "main:Main.Leak", 0, NULL, 1);
    uint64_t other5 = qh_con(x.q, "main:Main.Other", 0, NULL, 1);
    qh_set_era(x.q, leak2, 2);
    qh_set_era(x.q, leak5, 5);
    qh_set_era(x.q, other5, 5);
    add(&x, QUERY_FILTER_CONSTRUCTOR, "^L", false);
    add(&x, QUERY_FILTER_ERA, "-3", true); /* not in [0,3] */
    fx_open(&x);
    cr_expect_not(matches(&x, leak2));
    cr_expect(matches(&x, leak5));
    cr_expect_not(matches(&x, other5));
    fx_fini(&x);
}

static void refused(query_filter_kind kind, const char *text, const char *needle) {
    query_filters *f;
    hs_error err = {0};
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    hs_status st = query_filters_add(f, kind, text, false, &err);
    cr_expect_eq(st, HS_ERR_USAGE, "%s '%s' accepted", query_filter_kind_name(kind), text);
    cr_expect(strstr(err.message, needle), "%s '%s': %s", query_filter_kind_name(kind), text,
              err.message);
    cr_expect_eq(query_filters_count(f), 0, "nothing is added on error");
    query_filters_free(f);
}

Test(query_filter, bad_values_are_refused) {
    refused(QUERY_FILTER_ADDRESS, "4200100000", "0x followed by");
    refused(QUERY_FILTER_ADDRESS, "0x", "0x followed by");
    refused(QUERY_FILTER_ADDRESS, "0xzz", "0x followed by");
    refused(QUERY_FILTER_ADDRESS, "0x12345678901234567", "0x followed by");
    refused(QUERY_FILTER_INFO, "0X401000", "0x followed by"); /* lower-case x only (§4.1) */
    refused(QUERY_FILTER_TYPE, "THUNK_3_0", "unknown closure type 'THUNK_3_0'");
    refused(QUERY_FILTER_TYPE, "thunk", "the types are: CONSTR, CONSTR_1_0");
    refused(QUERY_FILTER_TYPE, "INVALID_OBJECT", "unknown closure type");
    refused(QUERY_FILTER_MIN_SIZE, "ten", "whole number");
    refused(QUERY_FILTER_MIN_SIZE, "10 B", "whole number");
    refused(QUERY_FILTER_COST_CENTRE, "", "whole number");
    refused(QUERY_FILTER_COST_CENTRE, "99999999999999999999", "whole number");
    refused(QUERY_FILTER_ERA, "1-2-3", "more than one '-'");
    refused(QUERY_FILTER_CONSTRUCTOR, "(", "offset 1");
}

Test(query_filter, numbers_as_haskell_literals) {
    fx x;
    fx_init(&x, WIRE_PROF_NONE);
    uint64_t big = qh_con(x.q, "main:Main.Big", 0, NULL, 9); /* 80 bytes */
    add(&x, QUERY_FILTER_MIN_SIZE, " 0x50 ", false);
    fx_open(&x);
    cr_expect(matches(&x, big));
    fx_fini(&x);
}

Test(query_filter, describe_like_the_filter_list) {
    query_filters *f;
    hs_error err = {0};
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_EXACT, "Leak", false, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_ERA, "2-", true, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_ADDRESS, "0x42001000AB", false, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_CLOSURE_NAME, "sat_info", true, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_MIN_SIZE, "0x10", false, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_CONSTRUCTOR, "^L", false, &err), HS_OK);
    char buf[128];
    /* each label names what it matches (issue 9, item 7) */
    static const char *want[] = {"Exact constructor name Leak", "!Era range [2,\xe2\x88\x9e)",
                                 "Closure address 0x42001000a8", "!Closure name (IPE) sat_info",
                                 "Size (lower bound) 16", "Constructor name matching /^L/"};
    cr_assert_eq(query_filters_count(f), 6);
    for (size_t i = 0; i < 6; i++) {
        query_filters_describe(f, i, buf, sizeof buf);
        cr_expect_str_eq(buf, want[i]);
    }
    query_filters_free(f);
}

Test(query_filter, results_cached_per_info_table_are_per_heap) {
    /* both heaps give their first constructor info pointer 0x401000 */
    query_filters *f;
    hs_error err = {0};
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_EXACT, "Leak", false, &err), HS_OK);
    static const char *const first[2] = {"main:Main.Leak", "main:Main.Other"};
    for (int round = 0; round < 2; round++) {
        qh *q = qh_new(WIRE_PROF_NONE);
        uint64_t a = qh_con(q, first[round], 0, NULL, 1);
        cr_assert_eq(qh_con_info(q, first[round], 0, 1), 0x401000);
        heap *h = qh_open(q);
        cr_assert_eq(query_filters_prepare(f, h, &err), HS_OK);
        heap_closure c = {0};
        cr_assert_eq(heap_decode(h, a, &c, &err), HS_OK);
        bool m = !round;
        cr_assert_eq(query_filters_match(f, h, &c, &m, &err), HS_OK);
        cr_expect_eq(m, round == 0, "round %d", round);
        heap_closure_free(&c);
        qh_free(q);
    }
    query_filters_free(f);
}
