/* Merged root paths (src/query/merged.c): matches' paths built by hand,
 * sharing prefixes, a match above other matches, a saved object's path. */
#include <criterion/criterion.h>
#include <string.h>

#include "heapscope/query.h"

static query_step step(uint64_t addr, uint32_t size, const char *edge) {
    return (query_step){.addr = addr, .size = size, .edge = edge, .label = "text"};
}

static void add(query_merged *t, const query_step *steps, size_t n, bool saved) {
    query_match m = {.steps = steps, .n_steps = n, .from_saved_object = saved};
    hs_error err = {0};
    cr_assert_eq(query_merged_add(t, &m, &err), HS_OK, "%s", err.message);
}

static const query_merged_node *at(const query_merged *t, uint64_t addr) {
    for (size_t i = 0; i < query_merged_count(t); i++)
        if (query_merged_node_at(t, i)->step.addr == addr)
            return query_merged_node_at(t, i);
    cr_assert_fail("no node 0x%llx", (unsigned long long)addr);
    return NULL;
}

Test(merged, prefixes_counts_and_order) {
    query_merged *t;
    hs_error err = {0};
    cr_assert_eq(query_merged_new(&t, &err), HS_OK);
    char edge[16]; /* copied by the tree: overwritten after each add */
    strcpy(edge, "Field 0");
    query_step abc[] = {step(0xa0, 16, NULL), step(0xb0, 24, edge), step(0xc0, 40, edge)};
    add(t, abc, 3, false);
    strcpy(edge, "Field 1");
    query_step abd[] = {step(0xa0, 16, NULL), step(0xb0, 24, edge), step(0xd0, 8, edge)};
    add(t, abd, 3, false);
    query_step ab[] = {step(0xa0, 16, NULL), step(0xb0, 24, edge)};
    add(t, ab, 2, false); /* B is a match above C and D */
    query_step ef[] = {step(0xe0, 16, NULL), step(0xf0, 100, "Value")};
    add(t, ef, 2, true);
    cr_assert_eq(query_merged_finish(t, &err), HS_OK);
    cr_assert_eq(query_merged_count(t), 6);
    const query_merged_node *a = at(t, 0xa0), *b = at(t, 0xb0), *c = at(t, 0xc0),
                            *d = at(t, 0xd0), *e = at(t, 0xe0), *f = at(t, 0xf0);
    cr_assert_eq(a->matches, 3);
    cr_assert_eq(a->bytes, 40 + 8 + 24);
    cr_assert(!a->match && b->match && c->match && d->match && !e->match && f->match);
    cr_assert_eq(b->matches, 3);
    cr_assert_eq(c->matches, 1);
    cr_assert_eq(e->bytes, 100);
    cr_assert(!a->from_saved_object && e->from_saved_object);
    cr_assert_str_eq(c->step.edge, "Field 0");
    cr_assert_str_eq(d->step.edge, "Field 1");
    cr_assert_eq(b->n_children, 2); /* most bytes first */
    cr_assert_eq(query_merged_node_at(t, b->children[0]), c);
    cr_assert_eq(query_merged_node_at(t, b->children[1]), d);
    cr_assert_eq(a->n_children, 1);
    cr_assert_eq(c->n_children, 0);
    size_t n;
    const size_t *starts = query_merged_starts(t, &n);
    cr_assert_eq(n, 2);
    cr_assert_eq(query_merged_node_at(t, starts[0]), e); /* 100 bytes before 72 */
    cr_assert_eq(query_merged_node_at(t, starts[1]), a);
    cr_assert_eq(a->parent, QUERY_MERGED_NONE);
    cr_assert_eq(query_merged_node_at(t, c->parent), b);
    query_merged_free(t);
}

Test(merged, empty) {
    query_merged *t;
    hs_error err = {0};
    cr_assert_eq(query_merged_new(&t, &err), HS_OK);
    cr_assert_eq(query_merged_finish(t, &err), HS_OK);
    size_t n = 1;
    query_merged_starts(t, &n);
    cr_assert_eq(n, 0);
    query_merged_free(t);
}
