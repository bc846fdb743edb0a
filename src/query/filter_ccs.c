/* The cost-centre stacks a cost-centre-id filter selects
 * (retainers-and-eras.md §4.6): from CCS_MAIN, down the index tables
 * (never along back edges), find the stacks whose cost centre has the id;
 * each one and everything below it is in the set. Iterative, and a stack
 * is expanded once even if a debuggee's tables loop without back-edge
 * flags. */
#include <stdlib.h>

#include "filter_internal.h"
#include "heapscope/grow.h"

#define MAX_CCS (UINT64_C(1) << 24) /* far beyond any real program: a loop guard */

typedef struct ccs_stack {
    uint64_t *items;
    size_t n, cap;
} ccs_stack;

static bool push(ccs_stack *s, uint64_t v) {
    if (!hs_grow((void **)&s->items, &s->cap, s->n + 1, sizeof *s->items))
        return false;
    s->items[s->n++] = v;
    return true;
}

static hs_status nomem(hs_error *err) {
    return hs_fail(err, HS_ERR_NOMEM, "out of memory collecting cost-centre stacks");
}

/* The id of the cost centre of CCS s, and its index table. */
static hs_status ccs_info(heap *h, uint64_t s, int64_t *id, uint64_t *table, hs_error *err) {
    const wire_ccs *ccs;
    hs_status st = heap_ccs(h, s, &ccs, err);
    if (st != HS_OK)
        return hs_fail_context(err, "cost-centre stack 0x%llx", (unsigned long long)s);
    const wire_cc *cc;
    st = heap_cc(h, ccs->cc, &cc, err);
    if (st != HS_OK)
        return hs_fail_context(err, "cost centre 0x%llx", (unsigned long long)ccs->cc);
    *id = cc->id;
    *table = ccs->index_table;
    return HS_OK;
}

/* Pushes the stacks of s's index table onto todo: all of them into the
 * set when collecting, and onto todo those not reached by a back edge. */
static hs_status children(heap *h, uint64_t table, bool collecting, u64map *set,
                          ccs_stack *todo, hs_error *err) {
    heap_index_walk w = {.next = table};
    for (uint64_t n = 0;; n++) {
        if (n >= MAX_CCS)
            return hs_fail(err, HS_ERR_PROTOCOL, "an index table of cost-centre stacks has no end");
        const wire_index_entry *entry;
        hs_status st = heap_index_walk_step(h, &w, &entry, err);
        if (st != HS_OK)
            return hs_fail_context(err, "index table entry 0x%llx", (unsigned long long)w.at);
        if (!entry)
            return HS_OK;
        if (collecting && entry->ccs && !u64map_put(set, entry->ccs, 1))
            return nomem(err);
        if (!entry->back_edge && entry->ccs && !push(todo, entry->ccs))
            return nomem(err);
    }
}

hs_status query_ccs_collect(heap *h, int64_t wanted, u64map *set, hs_error *err) {
    uint64_t main_ccs;
    hs_status st = heap_ccs_main(h, &main_ccs, err);
    if (st != HS_OK)
        return hs_fail_context(err, "finding the cost-centre stacks of cost centre %lld",
                               (long long)wanted);
    ccs_stack find = {0}, collect = {0};
    u64map seen = {0};
    if (main_ccs && !push(&find, main_ccs))
        st = nomem(err);
    /* find: stop descending where the cost centre is found */
    while (st == HS_OK && find.n > 0) {
        uint64_t s = find.items[--find.n];
        if (u64map_find(&seen, s))
            continue;
        if (seen.count >= MAX_CCS || !u64map_put(&seen, s, 1)) {
            st = seen.count >= MAX_CCS ? hs_fail(err, HS_ERR_TOO_LARGE, "too many cost-centre stacks")
                                       : nomem(err);
            break;
        }
        int64_t id = 0;
        uint64_t table = 0;
        st = ccs_info(h, s, &id, &table, err);
        if (st == HS_OK && id == wanted)
            st = u64map_put(set, s, 1) && push(&collect, s) ? HS_OK : nomem(err);
        else if (st == HS_OK)
            st = children(h, table, false, set, &find, err);
    }
    /* collect: everything below a found stack */
    u64map expanded = {0};
    while (st == HS_OK && collect.n > 0) {
        uint64_t s = collect.items[--collect.n];
        if (u64map_find(&expanded, s))
            continue;
        if (!u64map_put(&expanded, s, 1)) {
            st = nomem(err);
            break;
        }
        const wire_ccs *ccs;
        st = heap_ccs(h, s, &ccs, err);
        if (st != HS_OK)
            st = hs_fail_context(err, "cost-centre stack 0x%llx", (unsigned long long)s);
        else
            st = children(h, ccs->index_table, true, set, &collect, err);
    }
    free(find.items);
    free(collect.items);
    u64map_free(&seen);
    u64map_free(&expanded);
    return st;
}
