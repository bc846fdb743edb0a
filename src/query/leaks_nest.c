/* dom_sum_subtrees: a group's bytes as the union of its closures'
 * dominator subtrees. One depth-first walk of the dominator tree (children found from the parent
 * array, laid out by a counting sort) keeps, per group, how many of its
 * closures are above the closure at hand; only a closure with none above
 * adds its retained size (and to the total, when no closure of any group
 * is above). The era-boundary report and the census's retained column
 * use it. Extra memory: about 12 bytes a closure, for the
 * walk only. */
#include <stdlib.h>

#include "heapscope/grow.h"
#include "dominators_internal.h"

/* The walk's stack: a closure's number, or 0 (the root is never pushed)
 * marking where a counted closure's subtree ends, under its number. */
typedef struct stack {
    uint32_t *items;
    size_t count, cap;
} stack;

static bool push(stack *s, uint32_t v) {
    if (s->count == s->cap && !hs_grow((void **)&s->items, &s->cap, s->count + 1, sizeof *s->items))
        return false;
    s->items[s->count++] = v;
    return true;
}

hs_status dom_sum_subtrees(const dom_result *res, uint32_t n_nodes, const uint32_t *group_of,
                           size_t n_groups, uint64_t *bytes, uint64_t *counted,
                           uint64_t *all_bytes, hs_error *err) {
    size_t n1 = (size_t)n_nodes + 1;
    uint32_t *first = calloc(n1 + 1, sizeof *first); /* children of p: kids[first[p]..first[p+1]) */
    uint32_t *kids = malloc(n1 * sizeof *kids);
    uint32_t *above = calloc(n_groups ? n_groups : 1, sizeof *above);
    stack s = {0};
    uint64_t any_above = 0; /* counted closures of any group above */
    *all_bytes = 0;
    bool ok = first && kids && above;
    for (uint32_t v = 1; ok && v <= n_nodes; v++)
        if (res->idom[v] != DOM_NONE)
            first[res->idom[v] + 1]++;
    for (size_t p = 1; ok && p <= n1; p++)
        first[p] += first[p - 1];
    for (uint32_t v = 1; ok && v <= n_nodes; v++) { /* first[p] ends as the next free slot */
        uint32_t p = res->idom[v];
        if (p != DOM_NONE)
            kids[first[p]++] = v;
    }
    /* first[p] is now the end of p's children, i.e. the start of p + 1's */
    for (uint32_t k = first[DOM_ROOT]; ok && k-- > 0;)
        ok = push(&s, kids[k]);
    while (ok && s.count) {
        uint32_t v = s.items[--s.count];
        if (v == 0) { /* the end of a counted closure's subtree */
            above[group_of[s.items[--s.count]] - 1]--;
            any_above--;
            continue;
        }
        uint32_t g = group_of[v];
        if (g) {
            if (counted)
                counted[g - 1]++;
            if (!above[g - 1]++)
                bytes[g - 1] += res->retained[v];
            if (!any_above++)
                *all_bytes += res->retained[v];
            ok = push(&s, v) && push(&s, 0);
        }
        for (uint32_t k = first[v - 1]; ok && k < first[v]; k++)
            ok = push(&s, kids[k]);
    }
    free(first);
    free(kids);
    free(above);
    free(s.items);
    return ok ? HS_OK : hs_fail(err, HS_ERR_NOMEM, "out of memory adding up retained sizes");
}
