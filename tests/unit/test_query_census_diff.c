/* Census diff: buckets matched by key at both levels, only the changed
 * ones kept, grown (most bytes first) before shrunk (most bytes lost
 * first), new and vanished buckets counted as 0 on the other side. The
 * censuses are built by hand, so each expected number is known. And the
 * split of a two-level census, against the two censuses it replaces, on a
 * small hand-built heap (query_heap.c). */
#include <criterion/criterion.h>
#include <string.h>

#include "heapscope/query.h"
#include "query_heap.h"

#define ROW(k, c, b) {.key = (char *)(k), .count = (c), .bytes = (b)}

static query_census census_of(query_census_row *rows, size_t n) {
    return (query_census){.rows = rows, .n_rows = n};
}

static void expect_row(const query_census_diff_row *r, const char *key, uint64_t ca,
                       uint64_t ba, uint64_t cb, uint64_t bb) {
    cr_expect_str_eq(r->key, key);
    cr_expect_eq(r->count_a, ca, "%s count in A", key);
    cr_expect_eq(r->bytes_a, ba, "%s bytes in A", key);
    cr_expect_eq(r->count_b, cb, "%s count in B", key);
    cr_expect_eq(r->bytes_b, bb, "%s bytes in B", key);
    cr_expect_eq(r->count_delta, (int64_t)cb - (int64_t)ca, "%s count delta", key);
    cr_expect_eq(r->bytes_delta, (int64_t)bb - (int64_t)ba, "%s bytes delta", key);
}

Test(census_diff, grown_then_shrunk_new_and_gone_unchanged_left_out) {
    query_census_row a[] = {ROW("Same", 4, 64), ROW("Grow", 1, 16), ROW("Shrink", 10, 160),
                            ROW("Gone", 2, 48), ROW("Small", 3, 24)};
    query_census_row b[] = {ROW("New", 5, 400), ROW("Grow", 3, 48), ROW("Same", 4, 64),
                            ROW("Shrink", 9, 144), ROW("Small", 4, 32)};
    query_census ca = census_of(a, 5), cb = census_of(b, 5);
    query_census_diff d;
    hs_error err = {0};
    cr_assert_eq(query_census_diff_compute(&ca, &cb, &d, &err), HS_OK, "%s", err.message);
    cr_assert_eq(d.n_rows, 5);
    cr_expect_eq(d.unchanged, 1);
    expect_row(&d.rows[0], "New", 0, 0, 5, 400);
    expect_row(&d.rows[1], "Grow", 1, 16, 3, 48);
    expect_row(&d.rows[2], "Small", 3, 24, 4, 32);
    expect_row(&d.rows[3], "Gone", 2, 48, 0, 0); /* lost 48 bytes: before Shrink's 16 */
    expect_row(&d.rows[4], "Shrink", 10, 160, 9, 144);
    for (size_t i = 0; i < d.n_rows; i++)
        cr_expect_null(d.rows[i].children);
    query_census_diff_free(&d);
    cr_expect_eq(d.n_rows, 0);
}

Test(census_diff, ties_by_count_then_key_and_count_only_changes) {
    /* Equal bytes delta: the larger count delta first, then by key. A
     * count change at equal bytes is growth (or shrinkage) too. */
    query_census_row a[] = {ROW("b", 1, 8), ROW("a", 1, 8), ROW("c", 1, 8), ROW("d", 2, 32)};
    query_census_row b[] = {ROW("a", 2, 16), ROW("b", 2, 16), ROW("c", 3, 16), ROW("d", 1, 32)};
    query_census ca = census_of(a, 4), cb = census_of(b, 4);
    query_census_diff d;
    hs_error err = {0};
    cr_assert_eq(query_census_diff_compute(&ca, &cb, &d, &err), HS_OK);
    cr_assert_eq(d.n_rows, 4);
    cr_expect_str_eq(d.rows[0].key, "c");
    cr_expect_str_eq(d.rows[1].key, "a");
    cr_expect_str_eq(d.rows[2].key, "b");
    expect_row(&d.rows[3], "d", 2, 32, 1, 32);
    query_census_diff_free(&d);
}

Test(census_diff, second_level_changes_under_an_unchanged_row) {
    /* Main.Leak keeps its totals but moves from era 1 to era 2: kept,
     * between the grown and the shrunk rows, with its children's diff. */
    query_census_row leak_a[] = {ROW("1", 3, 48)};
    query_census_row leak_b[] = {ROW("2", 3, 48)};
    query_census_row box_a[] = {ROW("1", 1, 16)};
    query_census_row box_b[] = {ROW("1", 1, 16), ROW("3", 2, 32)};
    query_census_row a[] = {
        {.key = "Leak", .count = 3, .bytes = 48, .children = leak_a, .n_children = 1},
        {.key = "Box", .count = 1, .bytes = 16, .children = box_a, .n_children = 1},
        ROW("Lost", 1, 8)};
    query_census_row b[] = {
        {.key = "Leak", .count = 3, .bytes = 48, .children = leak_b, .n_children = 1},
        {.key = "Box", .count = 3, .bytes = 48, .children = box_b, .n_children = 2}};
    query_census ca = census_of(a, 3), cb = census_of(b, 2);
    query_census_diff d;
    hs_error err = {0};
    cr_assert_eq(query_census_diff_compute(&ca, &cb, &d, &err), HS_OK);
    cr_assert_eq(d.n_rows, 3);
    cr_expect_eq(d.unchanged, 0);
    expect_row(&d.rows[0], "Box", 1, 16, 3, 48);
    cr_assert_eq(d.rows[0].n_children, 1, "Box's era 1 is unchanged");
    expect_row(&d.rows[0].children[0], "3", 0, 0, 2, 32);
    expect_row(&d.rows[1], "Leak", 3, 48, 3, 48);
    cr_assert_eq(d.rows[1].n_children, 2);
    expect_row(&d.rows[1].children[0], "2", 0, 0, 3, 48);
    expect_row(&d.rows[1].children[1], "1", 3, 48, 0, 0);
    expect_row(&d.rows[2], "Lost", 1, 8, 0, 0);
    query_census_diff_free(&d);
}

Test(census_diff, equal_and_empty_censuses_give_no_rows) {
    query_census_row a[] = {ROW("X", 2, 32), ROW("Y", 1, 8)};
    query_census ca = census_of(a, 2), empty = census_of(NULL, 0);
    query_census_diff d;
    hs_error err = {0};
    cr_assert_eq(query_census_diff_compute(&ca, &ca, &d, &err), HS_OK);
    cr_expect_eq(d.n_rows, 0);
    cr_expect_null(d.rows);
    cr_expect_eq(d.unchanged, 2);
    query_census_diff_free(&d);
    cr_assert_eq(query_census_diff_compute(&empty, &empty, &d, &err), HS_OK);
    cr_expect_eq(d.n_rows, 0);
    cr_assert_eq(query_census_diff_compute(&empty, &ca, &d, &err), HS_OK);
    cr_assert_eq(d.n_rows, 2);
    expect_row(&d.rows[0], "X", 0, 0, 2, 32);
    expect_row(&d.rows[1], "Y", 0, 0, 1, 8);
    query_census_diff_free(&d);
}

static void expect_same_rows(const query_census *got, const query_census *want) {
    cr_assert_eq(got->n_rows, want->n_rows);
    for (size_t i = 0; i < want->n_rows; i++) {
        cr_expect_str_eq(got->rows[i].key, want->rows[i].key);
        cr_expect_eq(got->rows[i].count, want->rows[i].count, "%s", want->rows[i].key);
        cr_expect_eq(got->rows[i].bytes, want->rows[i].bytes, "%s", want->rows[i].key);
        cr_expect_eq(got->rows[i].max, want->rows[i].max, "%s", want->rows[i].key);
        cr_expect_eq(got->rows[i].n_children, 0);
        cr_expect_null(got->rows[i].children);
    }
    cr_expect_eq(got->total_count, want->total_count);
    cr_expect_eq(got->total_bytes, want->total_bytes);
    cr_expect_eq(got->visited, want->visited);
}

Test(census_split, two_levels_give_the_censuses_by_each_kind) {
    qh *q = qh_new(WIRE_PROF_ERA);
    uint64_t held[12];
    for (int i = 0; i < 12; i++) {
        held[i] = qh_con(q, i % 3 ? "main:Main.Leak" : "main:Main.Other", 0, NULL, 1 + i % 4);
        qh_set_era(q, held[i], 1 + (uint64_t)(i % 5));
    }
    uint64_t box = qh_con(q, "main:Main.Box", 12, held, 0);
    qh_set_era(q, box, 2);
    qh_root(q, box);
    heap *h = qh_open(q);
    hs_error err = {0};
    query_census two, by_con, by_era, era_part;
    query_census_spec spec = {.by = {QUERY_CENSUS_BY_CONSTRUCTOR, QUERY_CENSUS_BY_ERA},
                              .levels = 2};
    cr_assert_eq(query_census_compute(h, &spec, &two, &err), HS_OK, "%s", err.message);
    cr_assert_eq(query_census_run(h, QUERY_CENSUS_BY_CONSTRUCTOR, NULL, &by_con, &err), HS_OK);
    cr_assert_eq(query_census_run(h, QUERY_CENSUS_BY_ERA, NULL, &by_era, &err), HS_OK);
    cr_assert_eq(by_era.n_rows, 5, "eras 1 to 5");
    cr_assert_eq(query_census_split(&two, &era_part, &err), HS_OK, "%s", err.message);
    expect_same_rows(&two, &by_con);
    expect_same_rows(&era_part, &by_era);
    query_census_free(&two);
    query_census_free(&by_con);
    query_census_free(&by_era);
    query_census_free(&era_part);
    qh_free(q);
}
