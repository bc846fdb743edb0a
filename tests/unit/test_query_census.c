/* Census: one and two levels over each kind (type, constructor, era,
 * source, closure name, cost centre, thunk), filters, sorting by each
 * column, cancel, and the bucket filter, whose matches must be exactly a
 * census row's closures. Small hand-built heaps (query_heap.c). */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/query.h"
#include "query_heap.h"

/* Closures of the test heap, all held by one root Box. */
typedef struct world {
    qh *q;
    heap *h;
    unsigned H;                 /* header bytes */
    uint64_t leak[3], other[2]; /* Leak era 2, 2, 3 (1 word); Other era 1 (2 words) */
    uint64_t thunk_a[2];        /* THUNK_1_0 at A.hs:1:1-5, named sat_a_info */
    uint64_t thunk_b;           /* THUNK_2_0 at B.hs:(2,2)-(3,9) */
    uint64_t thunk_bare;        /* THUNK_0_1, no IPE */
    uint64_t bare_info;
    uint64_t ap;                /* an AP (a thunk too), no IPE */
    uint64_t box;
} world;

static void world_make(world *w, uint8_t prof) {
    memset(w, 0, sizeof *w);
    w->q = qh_new(prof);
    w->H = prof == WIRE_PROF_NONE ? 8 : 24;
    for (int i = 0; i < 3; i++)
        w->leak[i] = qh_con(w->q, "main:Main.Leak", 0, NULL, 1);
    for (int i = 0; i < 2; i++)
        w->other[i] = qh_con(w->q, "main:Main.Other", 0, NULL, 2);
    uint64_t a_info = qh_new_info(w->q, HS_THUNK_1_0, 1, 0);
    uint64_t b_info = qh_new_info(w->q, HS_THUNK_2_0, 2, 0);
    w->bare_info = qh_new_info(w->q, HS_THUNK_0_1, 0, 1);
    uint64_t one = w->leak[0], two[2] = {w->leak[1], w->other[0]};
    w->thunk_a[0] = qh_with_info(w->q, a_info, 1, &one, 0);
    w->thunk_a[1] = qh_with_info(w->q, a_info, 1, &one, 0);
    w->thunk_b = qh_with_info(w->q, b_info, 2, two, 0);
    w->thunk_bare = qh_with_info(w->q, w->bare_info, 0, NULL, 1);
    uint64_t ap_fields[1] = {w->other[1]};
    w->ap = qh_plain(w->q, HS_AP, 1, ap_fields, 0);
    qh_ipe(w->q, a_info, "sat_a_info", "A.hs:1:1-5");
    qh_ipe(w->q, b_info, "sat_b_info", "B.hs:(2,2)-(3,9)");
    uint64_t all[] = {w->leak[0],    w->leak[1],    w->leak[2], w->other[0], w->other[1],
                      w->thunk_a[0], w->thunk_a[1], w->thunk_b, w->thunk_bare, w->ap};
    w->box = qh_con(w->q, "main:Main.Box", 10, all, 0);
    if (prof != WIRE_PROF_NONE) {
        qh_set_era(w->q, w->leak[0], 2);
        qh_set_era(w->q, w->leak[1], 2);
        qh_set_era(w->q, w->leak[2], 3);
    }
    qh_root(w->q, w->box);
}

static void world_open(world *w) {
    w->h = qh_open(w->q);
}

static void world_free(world *w) {
    qh_free(w->q);
}

static query_census census_of(world *w, query_census_by a, int b, query_filters *f) {
    query_census_spec spec = {.by = {a}, .levels = 1, .filters = f};
    if (b >= 0) {
        spec.by[1] = (query_census_by)b;
        spec.levels = 2;
    }
    query_census c;
    hs_error err = {0};
    hs_status st = query_census_compute(w->h, &spec, &c, &err);
    cr_assert_eq(st, HS_OK, "%s", err.message);
    return c;
}

static const query_census_row *row(const query_census_row *rows, size_t n, const char *key) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].key, key) == 0)
            return &rows[i];
    return NULL;
}

static void expect_row(const query_census_row *rows, size_t n, const char *key, uint64_t count,
                       uint64_t bytes, uint64_t max) {
    const query_census_row *r = row(rows, n, key);
    cr_assert(r, "no row '%s'", key);
    cr_expect_eq(r->count, count, "%s: count %" PRIu64 ", want %" PRIu64, key, r->count, count);
    cr_expect_eq(r->bytes, bytes, "%s: bytes %" PRIu64 ", want %" PRIu64, key, r->bytes, bytes);
    cr_expect_eq(r->max, max, "%s: max %" PRIu64 ", want %" PRIu64, key, r->max, max);
}

static uint64_t bucket_matches(world *w, const char *text, bool invert);
static void rows_match_buckets(world *w, query_census_by by);

Test(query_census, by_type_counts_every_reachable_closure) {
    world w;
    world_make(&w, WIRE_PROF_NONE);
    world_open(&w);
    query_census c = census_of(&w, QUERY_CENSUS_BY_TYPE, -1, NULL);
    unsigned H = w.H;
    expect_row(c.rows, c.n_rows, "CONSTR", 6, 3 * (H + 8) + 2 * (H + 16) + H + 80, H + 80);
    expect_row(c.rows, c.n_rows, "THUNK_1_0", 2, 2 * (H + 16), H + 16);
    expect_row(c.rows, c.n_rows, "THUNK_2_0", 1, H + 24, H + 24);
    expect_row(c.rows, c.n_rows, "THUNK_0_1", 1, H + 16, H + 16);
    cr_expect_eq(c.total_count, 11);
    cr_expect_eq(c.visited, 11);
    cr_expect_null(c.rows[0].children);
    for (size_t i = 1; i < c.n_rows; i++) /* bytes descending by default */
        cr_expect_geq(c.rows[i - 1].bytes, c.rows[i].bytes);
    query_census_free(&c);
    world_free(&w);
}

Test(query_census, two_levels_constructor_then_era) {
    world w;
    world_make(&w, WIRE_PROF_ERA);
    world_open(&w);
    query_census c = census_of(&w, QUERY_CENSUS_BY_CONSTRUCTOR, QUERY_CENSUS_BY_ERA, NULL);
    unsigned H = w.H;
    const query_census_row *leak = row(c.rows, c.n_rows, "main:Main:Leak");
    cr_assert(leak);
    cr_expect_eq(leak->count, 3);
    cr_assert_eq(leak->n_children, 2);
    expect_row(leak->children, leak->n_children, "2", 2, 2 * (H + 8), H + 8);
    expect_row(leak->children, leak->n_children, "3", 1, H + 8, H + 8);
    const query_census_row *other = row(c.rows, c.n_rows, "main:Main:Other");
    cr_assert(other);
    cr_assert_eq(other->n_children, 1);
    expect_row(other->children, 1, "1", 2, 2 * (H + 16), H + 16);
    uint64_t sum = 0;
    for (size_t i = 0; i < c.n_rows; i++) {
        uint64_t children = 0;
        for (size_t k = 0; k < c.rows[i].n_children; k++)
            children += c.rows[i].children[k].count;
        cr_expect_eq(children, c.rows[i].count, "%s", c.rows[i].key);
        sum += c.rows[i].count;
    }
    cr_expect_eq(sum, c.total_count);
    query_census_free(&c);
    world_free(&w);
}

Test(query_census, thunks_by_source_location_or_info_table) {
    world w;
    world_make(&w, WIRE_PROF_NONE);
    world_open(&w);
    query_census c = census_of(&w, QUERY_CENSUS_BY_THUNK, -1, NULL);
    unsigned H = w.H;
    char bare[64];
    snprintf(bare, sizeof bare, "<info 0x%" PRIx64 ">", w.bare_info);
    cr_expect_eq(c.n_rows, 4);
    expect_row(c.rows, c.n_rows, "A.hs:1:1-5", 2, 2 * (H + 16), H + 16);
    expect_row(c.rows, c.n_rows, "B.hs:(2,2)-(3,9)", 1, H + 24, H + 24);
    expect_row(c.rows, c.n_rows, bare, 1, H + 16, H + 16);
    cr_expect_eq(c.total_count, 5, "thunks only: constructors are not counted");
    cr_expect_eq(c.visited, 11);
    query_census_free(&c);
    world_free(&w);
}

Test(query_census, source_and_closure_name) {
    world w;
    world_make(&w, WIRE_PROF_NONE);
    world_open(&w);
    query_census c = census_of(&w, QUERY_CENSUS_BY_CLOSURE_NAME, QUERY_CENSUS_BY_SOURCE, NULL);
    const query_census_row *a = row(c.rows, c.n_rows, "sat_a_info");
    cr_assert(a);
    cr_expect_eq(a->count, 2);
    cr_assert_eq(a->n_children, 1);
    cr_expect_str_eq(a->children[0].key, "A.hs:1:1-5");
    const query_census_row *none = row(c.rows, c.n_rows, "<no name>");
    cr_assert(none);
    cr_expect_eq(none->count, 8);
    cr_expect_str_eq(none->children[0].key, "<no location>");
    query_census_free(&c);
    world_free(&w);
}

Test(query_census, cost_centre_of_the_header_ccs) {
    world w;
    world_make(&w, WIRE_PROF_PLAIN);
    qh_ccs(w.q, 0x9000, 7);
    qh_ccs_main(w.q, 0x9000);
    qh_set_ccs(w.q, w.leak[0], 0x9000);
    qh_set_ccs(w.q, w.other[1], 0x9000);
    world_open(&w);
    query_census c = census_of(&w, QUERY_CENSUS_BY_COST_CENTRE, QUERY_CENSUS_BY_TYPE, NULL);
    const query_census_row *cc = row(c.rows, c.n_rows, "Main:cc7");
    cr_assert(cc);
    cr_expect_eq(cc->count, 2);
    const query_census_row *none = row(c.rows, c.n_rows, "<no cost centre>");
    cr_assert(none);
    cr_expect_eq(none->count, 9);
    query_census_free(&c);
    rows_match_buckets(&w, QUERY_CENSUS_BY_COST_CENTRE);
    world_free(&w);
}

Test(query_census, a_thunk_named_by_ipe_without_a_position) {
    world w;
    world_make(&w, WIRE_PROF_NONE);
    qh_ipe(w.q, w.bare_info, "sat_c_info", "");
    world_open(&w);
    query_census c = census_of(&w, QUERY_CENSUS_BY_THUNK, -1, NULL);
    char key[96];
    snprintf(key, sizeof key, "Main (sat_c)"); /* no file: module and name instead */
    expect_row(c.rows, c.n_rows, key, 1, w.H + 16, w.H + 16);
    query_census_free(&c);
    char text[128];
    snprintf(text, sizeof text, "thunk=%s", key);
    cr_expect_eq(bucket_matches(&w, text, false), 1);
    world_free(&w);
}

/* The stub sends ":" for an entry with neither file nor span (a thunk the
 * compiler made): never a location, and never one bucket for all of them. */
Test(query_census, an_entry_without_file_is_located_by_module_and_label) {
    world w;
    world_make(&w, WIRE_PROF_NONE);
    qh_ipe_full(w.q, w.bare_info, "sat_s1_info", "insertWith", "Data.Map.Internal", ":");
    world_open(&w);
    query_census c = census_of(&w, QUERY_CENSUS_BY_THUNK, -1, NULL);
    expect_row(c.rows, c.n_rows, "Data.Map.Internal (insertWith)", 1, w.H + 16, w.H + 16);
    for (size_t i = 0; i < c.n_rows; i++)
        cr_expect_str_neq(c.rows[i].key, ":");
    query_census_free(&c);
    c = census_of(&w, QUERY_CENSUS_BY_SOURCE, -1, NULL);
    cr_expect(row(c.rows, c.n_rows, "Data.Map.Internal (insertWith)"));
    cr_expect(row(c.rows, c.n_rows, "A.hs:1:1-5"));
    cr_expect(row(c.rows, c.n_rows, "<no location>"), "closures without an IPE entry");
    cr_expect(!row(c.rows, c.n_rows, ":"));
    query_census_free(&c);
    cr_expect_eq(bucket_matches(&w, "source=Data.Map.Internal (insertWith)", false), 1);
    world_free(&w);
}

Test(query_census, display_names_of_info_tables) {
    world w;
    world_make(&w, WIRE_PROF_NONE);
    world_open(&w);
    struct {
        uint64_t addr;
        const char *want;
    } cases[] = {{w.leak[0], "main:Main:Leak"}, {w.thunk_a[0], "sat_a"}, {w.thunk_bare, NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        heap_closure c = {0};
        hs_error err = {0};
        cr_assert_eq(heap_decode(w.h, cases[i].addr, &c, &err), HS_OK, "%s", err.message);
        char name[128], bare[64];
        cr_assert_eq(heap_info_display_name(w.h, c.info, name, sizeof name, &err), HS_OK);
        snprintf(bare, sizeof bare, "<info 0x%" PRIx64 ">", w.bare_info);
        cr_expect_str_eq(name, cases[i].want ? cases[i].want : bare);
        heap_closure_free(&c);
    }
    world_free(&w);
}

/* Advice to build with -finfo-table-map only for a program without any IPE:
 * in one that has some, a closure without a location is the RTS's or a
 * library's. The answer comes from the closures reachable, not only from
 * the tables looked at so far (none here). */
Test(query_census, location_advice_for_the_whole_program) {
    for (int with_ipe = 0; with_ipe < 2; with_ipe++) {
        qh *q = qh_new(WIRE_PROF_NONE);
        uint64_t info = qh_new_info(q, HS_THUNK_0_1, 0, 1);
        uint64_t t = qh_with_info(q, info, 0, NULL, 1);
        uint64_t leak = qh_con(q, "main:Main.Leak", 0, NULL, 1), both[2] = {leak, t};
        if (with_ipe)
            qh_ipe(q, info, "sat_t_info", "T.hs:1:1-3");
        qh_root(q, qh_con(q, "main:Main.Box", 2, both, 0));
        heap *h = qh_open(q);
        heap_ipe_presence p;
        hs_error err = {0};
        cr_assert_eq(heap_program_ipe(h, &p, &err), HS_OK, "%s", err.message);
        cr_expect_eq(p, with_ipe ? HEAP_IPE_SOME : HEAP_IPE_NONE);
        char advice[160];
        cr_assert_eq(heap_location_advice(h, advice, sizeof advice, &err), HS_OK);
        cr_expect_str_eq(advice, with_ipe ? "this info table (of the RTS or a library) was built "
                                            "without -finfo-table-map"
                                          : "build the program with -finfo-table-map");
        qh_free(q);
    }
}

/* Before GHC 9.2 there is no IPE to ask for, nor advice to build with it. */
Test(query_census, location_advice_for_a_ghc_without_provenance) {
    qh *q = qh_new(WIRE_PROF_NONE);
    qh_ghc(q, 900);
    qh_root(q, qh_con(q, "main:Main.Leak", 0, NULL, 1));
    heap *h = qh_open(q);
    heap_ipe_presence p;
    hs_error err = {0};
    cr_assert_eq(heap_program_ipe(h, &p, &err), HS_OK, "%s", err.message);
    cr_expect_eq(p, HEAP_IPE_NONE);
    cr_expect_eq(qh_source_info_requests(q), 0, "nothing asked");
    char advice[160];
    cr_assert_eq(heap_location_advice(h, advice, sizeof advice, &err), HS_OK);
    cr_expect_str_eq(advice, "GHC 9.0 has no info-table provenance (it came with GHC 9.2)");
    qh_free(q);
}

Test(query_census, filters_choose_what_is_counted) {
    world w;
    world_make(&w, WIRE_PROF_ERA);
    world_open(&w);
    query_filters *f;
    hs_error err = {0};
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_ERA, "2-", false, &err), HS_OK);
    query_census c = census_of(&w, QUERY_CENSUS_BY_CONSTRUCTOR, -1, f);
    cr_expect_eq(c.n_rows, 1, "only the Leaks are of era 2 and later");
    expect_row(c.rows, c.n_rows, "main:Main:Leak", 3, 3 * (w.H + 8), w.H + 8);
    cr_expect_eq(c.visited, 11, "the walk still goes through everything");
    query_census_free(&c);
    query_filters_free(f);
    /* an info-table-only filter (declined per info table) */
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_TYPE, "THUNK_1_0", true, &err), HS_OK);
    c = census_of(&w, QUERY_CENSUS_BY_THUNK, -1, f);
    cr_expect_null(row(c.rows, c.n_rows, "A.hs:1:1-5"));
    cr_expect_eq(c.total_count, 3);
    query_census_free(&c);
    query_filters_free(f);
    world_free(&w);
}

Test(query_census, sorts_by_each_column_both_ways) {
    world w;
    world_make(&w, WIRE_PROF_NONE);
    world_open(&w);
    query_census c = census_of(&w, QUERY_CENSUS_BY_TYPE, QUERY_CENSUS_BY_CONSTRUCTOR, NULL);
    for (int col = 0; col < QUERY_CENSUS_COL_COUNT_; col++) {
        for (int desc = 0; desc < 2; desc++) {
            query_census_sort(&c, (query_census_column)col, desc);
            for (size_t i = 1; i < c.n_rows; i++) {
                const query_census_row *x = &c.rows[i - 1], *y = &c.rows[i];
                double ax = (double)x->bytes / (double)x->count;
                double ay = (double)y->bytes / (double)y->count;
                double vx = col == QUERY_CENSUS_COL_COUNT ? (double)x->count
                            : col == QUERY_CENSUS_COL_BYTES ? (double)x->bytes
                            : col == QUERY_CENSUS_COL_MAX   ? (double)x->max
                            : col == QUERY_CENSUS_COL_AVG   ? ax
                            : col == QUERY_CENSUS_COL_RETAINED ? (double)x->retained
                                                            : (double)strcmp(x->key, y->key);
                double vy = col == QUERY_CENSUS_COL_COUNT ? (double)y->count
                            : col == QUERY_CENSUS_COL_BYTES ? (double)y->bytes
                            : col == QUERY_CENSUS_COL_MAX   ? (double)y->max
                            : col == QUERY_CENSUS_COL_AVG   ? ay
                            : col == QUERY_CENSUS_COL_RETAINED ? (double)y->retained
                                                            : 0;
                if (desc)
                    cr_expect_geq(vx, vy, "column %s descending at %zu",
                                  query_census_column_name((query_census_column)col), i);
                else
                    cr_expect_leq(vx, vy, "column %s ascending at %zu",
                                  query_census_column_name((query_census_column)col), i);
            }
        }
    }
    query_census_sort(&c, QUERY_CENSUS_COL_KEY, false);
    cr_expect_str_eq(c.rows[0].key, "AP");
    query_census_free(&c);
    world_free(&w);
}

static bool stop_now(void *ctx, uint64_t visited) {
    (void)ctx, (void)visited;
    return false;
}

Test(query_census, cancel_and_unusable_kinds) {
    world w;
    world_make(&w, WIRE_PROF_NONE);
    world_open(&w);
    query_census_spec spec = {.by = {QUERY_CENSUS_BY_TYPE}, .levels = 1, .progress = stop_now};
    query_census c;
    hs_error err = {0};
    cr_expect_eq(query_census_compute(w.h, &spec, &c, &err), HS_ERR_CANCELLED);
    cr_expect_eq(c.n_rows, 0);
    spec = (query_census_spec){.by = {QUERY_CENSUS_BY_TYPE, QUERY_CENSUS_BY_ERA}, .levels = 2};
    cr_expect_eq(query_census_compute(w.h, &spec, &c, &err), HS_ERR_USAGE);
    cr_expect(strstr(err.message, "era profiling"), "%s", err.message);
    spec = (query_census_spec){.by = {QUERY_CENSUS_BY_COST_CENTRE}, .levels = 1};
    cr_expect_eq(query_census_compute(w.h, &spec, &c, &err), HS_ERR_USAGE);
    spec = (query_census_spec){.by = {QUERY_CENSUS_BY_TYPE}, .levels = 3};
    cr_expect_eq(query_census_compute(w.h, &spec, &c, &err), HS_ERR_USAGE);
    world_free(&w);
}

Test(query_census, names_of_kinds_and_columns) {
    for (int by = 0; by < QUERY_CENSUS_BY_COUNT; by++) {
        query_census_by back;
        cr_expect(query_census_by_from_name(query_census_by_name((query_census_by)by), &back));
        cr_expect_eq(back, by);
    }
    query_census_column col;
    cr_expect(query_census_column_from_name("avg", &col));
    cr_expect_eq(col, QUERY_CENSUS_COL_AVG);
    cr_expect_not(query_census_column_from_name("average", &col));
    query_census_by by;
    cr_expect_not(query_census_by_from_name("thunks", &by));
}

/* ---- the bucket filter ---- */

static bool count_match(void *ctx, heap *h, const query_match *m) {
    (void)h, (void)m;
    ++*(uint64_t *)ctx;
    return true;
}

/* How many closures the search finds with the filter "BY=KEY" (inverted). */
static uint64_t bucket_matches(world *w, const char *text, bool invert) {
    query_filters *f;
    hs_error err = {0};
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_BUCKET, text, invert, &err), HS_OK, "%s: %s",
                 text, err.message);
    uint64_t n = 0;
    query_search s = {.filters = f, .on_match = count_match, .ctx = &n};
    query_search_stats stats;
    cr_assert_eq(query_search_run(w->h, &s, &stats, &err), HS_OK, "%s", err.message);
    query_filters_free(f);
    return n;
}

/* Every row of a census by `by` is found again by its bucket filter. */
static void rows_match_buckets(world *w, query_census_by by) {
    query_census c = census_of(w, by, -1, NULL);
    cr_assert_gt(c.n_rows, 0);
    for (size_t i = 0; i < c.n_rows; i++) {
        char text[600];
        snprintf(text, sizeof text, "%s=%s", query_census_by_name(by), c.rows[i].key);
        cr_expect_eq(bucket_matches(w, text, false), c.rows[i].count, "%s", text);
    }
    query_census_free(&c);
}

Test(query_census, bucket_filter_matches_exactly_a_rows_closures) {
    world w;
    world_make(&w, WIRE_PROF_ERA);
    world_open(&w);
    for (int by = 0; by < QUERY_CENSUS_BY_COUNT; by++)
        if (by != QUERY_CENSUS_BY_COST_CENTRE)
            rows_match_buckets(&w, (query_census_by)by);
    cr_expect_eq(bucket_matches(&w, "constructor=main:Main:Nope", false), 0);
    cr_expect_eq(bucket_matches(&w, "era=2", true), 9);
    /* inverted, a thunk bucket still never matches a non-thunk */
    cr_expect_eq(bucket_matches(&w, "thunk=A.hs:1:1-5", true), 3);
    world_free(&w);
}

Test(query_census, bucket_filter_text_is_checked) {
    query_filters *f;
    hs_error err = {0};
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    const char *bad[] = {"constructor", "kind=x", "era=abc", "era=-1", "=x", "era="};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_expect_eq(query_filters_add(f, QUERY_FILTER_BUCKET, bad[i], false, &err),
                     HS_ERR_USAGE, "%s", bad[i]);
        cr_expect_gt(strlen(err.message), 0);
    }
    cr_expect_eq(query_filters_count(f), 0);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_BUCKET, "constructor=a:B:=", false, &err),
                 HS_OK, "a key may hold '=': %s", err.message);
    char text[128];
    query_filters_describe(f, 0, text, sizeof text);
    cr_expect_str_eq(text, "Census bucket constructor=a:B:=");
    query_filters_free(f);
    /* era buckets want era profiling */
    world w;
    world_make(&w, WIRE_PROF_NONE);
    world_open(&w);
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_BUCKET, "era=1", false, &err), HS_OK);
    cr_expect_eq(query_filters_prepare(f, w.h, &err), HS_ERR_USAGE);
    query_filters_free(f);
    world_free(&w);
}
