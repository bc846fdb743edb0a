/* The explorer's tree without a terminal: lazy expansion, visible rows,
 * collapse, parent navigation, find over visible rows. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../../src/tui/tree.h"

/* Every node gets `fan` children labelled "<parent>.<i>"; depth-limited. */
typedef struct loader {
    int fan;
    uint32_t max_depth;
    int calls;
    bool fail;
} loader;

static hs_status load(void *ctx, tui_tree *t, tui_node_id id, hs_error *err) {
    loader *l = ctx;
    l->calls++;
    if (l->fail)
        return hs_fail(err, HS_ERR_IO, "boom");
    if (tui_tree_node(t, id)->depth >= l->max_depth)
        return HS_OK;
    char parent[64];
    snprintf(parent, sizeof parent, "%s", tui_tree_label(t, id));
    for (int i = 0; i < l->fan; i++) {
        char lab[96];
        snprintf(lab, sizeof lab, "%s.%d", parent, i);
        cr_assert_neq(tui_tree_add(t, id, lab, 0, (uint64_t)i, 0), TUI_NODE_NONE);
    }
    return HS_OK;
}

static tui_node_id top(tui_tree *t, const char *label) {
    return tui_tree_add(t, TUI_NODE_NONE, label, 0, 0, 0);
}

static const char *row_label(tui_tree *t, size_t r) {
    size_t n;
    const uint32_t *rows = tui_tree_rows(t, &n);
    cr_assert_lt(r, n);
    return tui_tree_label(t, rows[r]);
}

Test(tui_tree, top_level_rows_in_order) {
    tui_tree t;
    tui_tree_init(&t);
    top(&t, "a");
    top(&t, "b");
    top(&t, "c");
    size_t n;
    tui_tree_rows(&t, &n);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(row_label(&t, 0), "a");
    cr_assert_str_eq(row_label(&t, 2), "c");
    tui_tree_free(&t);
}

Test(tui_tree, expand_loads_once_and_shows_children) {
    tui_tree t;
    tui_tree_init(&t);
    tui_node_id a = top(&t, "a");
    top(&t, "b");
    loader l = {.fan = 2, .max_depth = 5};
    hs_error err;
    cr_assert_eq(tui_tree_expand(&t, a, load, &l, &err), HS_OK);
    size_t n;
    tui_tree_rows(&t, &n);
    cr_assert_eq(n, 4);
    cr_assert_str_eq(row_label(&t, 1), "a.0");
    cr_assert_str_eq(row_label(&t, 2), "a.1");
    cr_assert_str_eq(row_label(&t, 3), "b");
    tui_tree_collapse(&t, a);
    tui_tree_rows(&t, &n);
    cr_assert_eq(n, 2);
    cr_assert_eq(tui_tree_expand(&t, a, load, &l, &err), HS_OK);
    cr_assert_eq(l.calls, 1, "children are read once");
    tui_tree_free(&t);
}

Test(tui_tree, three_levels_and_depths) {
    tui_tree t;
    tui_tree_init(&t);
    tui_node_id a = top(&t, "a");
    loader l = {.fan = 2, .max_depth = 5};
    hs_error err;
    tui_tree_expand(&t, a, load, &l, &err);
    tui_node_id a1 = tui_tree_node(&t, a)->last_child;
    tui_tree_expand(&t, a1, load, &l, &err);
    tui_node_id a10 = tui_tree_node(&t, a1)->first_child;
    tui_tree_expand(&t, a10, load, &l, &err);
    size_t n;
    tui_tree_rows(&t, &n);
    /* a, a.0, a.1, a.1.0, a.1.0.0, a.1.0.1, a.1.1 */
    cr_assert_eq(n, 7);
    cr_assert_str_eq(row_label(&t, 4), "a.1.0.0");
    cr_assert_str_eq(row_label(&t, 6), "a.1.1");
    cr_assert_eq(tui_tree_node(&t, tui_tree_rows(&t, &n)[4])->depth, 3);
    cr_assert_eq(tui_tree_row_of(&t, a10), 3);
    tui_tree_free(&t);
}

Test(tui_tree, leaf_stays_closed) {
    tui_tree t;
    tui_tree_init(&t);
    tui_node_id a = top(&t, "a");
    loader l = {.fan = 2, .max_depth = 0};
    hs_error err;
    cr_assert_eq(tui_tree_expand(&t, a, load, &l, &err), HS_OK);
    cr_assert(tui_tree_node(&t, a)->leaf);
    cr_assert_not(tui_tree_node(&t, a)->expanded);
    tui_tree_expand(&t, a, load, &l, &err);
    cr_assert_eq(l.calls, 1);
    tui_tree_free(&t);
}

Test(tui_tree, failed_load_can_be_retried) {
    tui_tree t;
    tui_tree_init(&t);
    tui_node_id a = top(&t, "a");
    loader l = {.fan = 1, .max_depth = 3, .fail = true};
    hs_error err = {0};
    cr_assert_eq(tui_tree_expand(&t, a, load, &l, &err), HS_ERR_IO);
    cr_assert_str_eq(err.message, "boom");
    cr_assert_not(tui_tree_node(&t, a)->loaded);
    l.fail = false;
    cr_assert_eq(tui_tree_expand(&t, a, load, &l, &err), HS_OK);
    cr_assert(tui_tree_node(&t, a)->expanded);
    tui_tree_free(&t);
}

Test(tui_tree, left_collapses_then_goes_to_parent) {
    tui_tree t;
    tui_tree_init(&t);
    tui_node_id a = top(&t, "a");
    loader l = {.fan = 2, .max_depth = 5};
    hs_error err;
    tui_tree_expand(&t, a, load, &l, &err);
    tui_node_id a0 = tui_tree_node(&t, a)->first_child;
    tui_tree_expand(&t, a0, load, &l, &err);
    bool collapsed;
    cr_assert_eq(tui_tree_left(&t, a0, &collapsed), a0);
    cr_assert(collapsed);
    cr_assert_eq(tui_tree_left(&t, a0, &collapsed), a);
    cr_assert_not(collapsed);
    cr_assert_eq(tui_tree_left(&t, a, &collapsed), a); /* collapses a */
    cr_assert(collapsed);
    cr_assert_eq(tui_tree_left(&t, a, &collapsed), a, "top level stays");
    tui_tree_free(&t);
}

Test(tui_tree, collapse_all_keeps_children_loaded) {
    tui_tree t;
    tui_tree_init(&t);
    tui_node_id a = top(&t, "a");
    loader l = {.fan = 3, .max_depth = 5};
    hs_error err;
    tui_tree_expand(&t, a, load, &l, &err);
    tui_node_id a2 = tui_tree_node(&t, a)->last_child;
    tui_tree_expand(&t, a2, load, &l, &err);
    tui_node_id deep = tui_tree_node(&t, a2)->first_child;
    cr_assert_eq(tui_tree_top_of(&t, deep), a);
    tui_tree_collapse_all(&t);
    size_t n;
    tui_tree_rows(&t, &n);
    cr_assert_eq(n, 1);
    cr_assert_eq(tui_tree_row_of(&t, deep), -1, "hidden rows have no index");
    tui_tree_expand(&t, a, load, &l, &err);
    tui_tree_rows(&t, &n);
    cr_assert_eq(n, 4, "a and its three children; a.2 stays closed");
    cr_assert_eq(l.calls, 2);
    tui_tree_free(&t);
}

Test(tui_tree, many_roots) {
    tui_tree t;
    tui_tree_init(&t);
    for (int i = 0; i < 100000; i++) {
        char lab[16];
        snprintf(lab, sizeof lab, "r%d", i);
        cr_assert_neq(tui_tree_add(&t, TUI_NODE_NONE, lab, 0, (uint64_t)i, 0), TUI_NODE_NONE);
    }
    size_t n;
    tui_tree_rows(&t, &n);
    cr_assert_eq(n, 100000);
    cr_assert_str_eq(row_label(&t, 99999), "r99999");
    tui_tree_free(&t);
}

static const char *label_text(void *ctx, tui_tree *t, tui_node_id id) {
    (void)ctx;
    return tui_tree_label(t, id);
}

Test(tui_tree, find_wraps_and_ignores_case) {
    tui_tree t;
    tui_tree_init(&t);
    top(&t, "Leak one");
    top(&t, "other");
    top(&t, "LEAK two");
    size_t found;
    cr_assert_eq(tui_tree_find(&t, 0, "leak", label_text, NULL, NULL, &found), TUI_FIND_FOUND);
    cr_assert_eq(found, 2);
    cr_assert_eq(tui_tree_find(&t, 2, "leak", label_text, NULL, NULL, &found), TUI_FIND_FOUND);
    cr_assert_eq(found, 0, "wraps round to the top");
    cr_assert_eq(tui_tree_find(&t, 0, "one", label_text, NULL, NULL, &found), TUI_FIND_FOUND);
    cr_assert_eq(found, 0, "the start row is looked at last");
    cr_assert_eq(tui_tree_find(&t, 0, "absent", label_text, NULL, NULL, &found), TUI_FIND_NONE);
    tui_tree_free(&t);
}

Test(tui_tree, find_sees_only_visible_rows) {
    tui_tree t;
    tui_tree_init(&t);
    tui_node_id a = top(&t, "a");
    top(&t, "b");
    loader l = {.fan = 2, .max_depth = 5};
    hs_error err;
    tui_tree_expand(&t, a, load, &l, &err);
    tui_tree_collapse(&t, a);
    size_t found;
    cr_assert_eq(tui_tree_find(&t, 0, "a.1", label_text, NULL, NULL, &found), TUI_FIND_NONE);
    tui_tree_expand(&t, a, load, &l, &err);
    cr_assert_eq(tui_tree_find(&t, 0, "a.1", label_text, NULL, NULL, &found), TUI_FIND_FOUND);
    cr_assert_eq(found, 2);
    tui_tree_free(&t);
}

static bool stop_now(void *ctx, size_t done, size_t total) {
    (void)ctx;
    (void)done;
    (void)total;
    return false;
}

Test(tui_tree, find_can_be_cancelled) {
    tui_tree t;
    tui_tree_init(&t);
    for (int i = 0; i < 5000; i++)
        top(&t, "row");
    size_t found;
    cr_assert_eq(tui_tree_find(&t, 0, "nowhere", label_text, stop_now, NULL, &found),
                 TUI_FIND_CANCELLED);
    tui_tree_free(&t);
}

Test(tui_tree, find_ci) {
    cr_assert_eq(tui_find_ci("Hello World", "world"), 6);
    cr_assert_eq(tui_find_ci("abc", ""), 0);
    cr_assert_eq(tui_find_ci("abc", "abcd"), -1);
}

/* A label that is a string of the pool itself (a search's path steps are
 * added so) survives the pool moving while it is copied. */
Test(tui_tree, label_from_the_pool_itself) {
    tui_tree t;
    tui_tree_init(&t);
    uint32_t off = tui_tree_intern(&t, "Newer retainer (era 3)");
    cr_assert_neq(off, TUI_STR_NONE);
    for (int i = 0; i < 2000; i++) { /* every growth of the pool moves it, maybe */
        tui_node_id id = tui_tree_add(&t, TUI_NODE_NONE, tui_tree_str(&t, off), 0, 0, 0);
        cr_assert_neq(id, TUI_NODE_NONE);
        cr_assert_str_eq(tui_tree_label(&t, id), "Newer retainer (era 3)", "node %d", i);
    }
    tui_tree_free(&t);
}
