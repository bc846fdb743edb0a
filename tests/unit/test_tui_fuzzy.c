/* The palette's fuzzy filter. */
#include <criterion/criterion.h>

#include "../../src/tui/fuzzy.h"

Test(tui_fuzzy, subsequence_or_nothing) {
    cr_assert_geq(tui_fuzzy_score("frt", "Find retainers"), 0);
    cr_assert_geq(tui_fuzzy_score("FIND", "find address"), 0, "case does not matter");
    cr_assert_eq(tui_fuzzy_score("xyz", "Find retainers"), -1);
    cr_assert_eq(tui_fuzzy_score("sf", "fs"), -1, "order matters");
    cr_assert_eq(tui_fuzzy_score("", "anything"), 0);
}

Test(tui_fuzzy, substrings_and_word_starts_rank_first) {
    cr_assert_gt(tui_fuzzy_score("era", "Era colours"), tui_fuzzy_score("era", "Clear filters"));
    cr_assert_gt(tui_fuzzy_score("clear", "Clear filters"),
                 tui_fuzzy_score("clear", "Collapse or go to parent, leave a rest"));
}

Test(tui_fuzzy, filter_orders_best_first_and_stable) {
    const char *names[] = {"Add filter: era range", "Era colours", "Quit", "Find closures by era"};
    size_t out[4];
    size_t n = tui_fuzzy_filter("era", names, 4, out);
    cr_assert_eq(n, 3);
    cr_assert_eq(out[0], 1, "the word-start match first");
    size_t all = tui_fuzzy_filter("", names, 4, out);
    cr_assert_eq(all, 4);
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq(out[i], i, "an empty pattern keeps the table's order");
}
