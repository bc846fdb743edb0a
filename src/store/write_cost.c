/* A profiled heap's cost centres, asked before writing so that the
 * snapshot answers what a live debuggee would: the whole tree of stacks
 * under CCS_MAIN with its index tables (what a cost-centre filter walks),
 * and the stack and cost centre of every reachable closure's header (what
 * the explorer shows). Iterative; each stack and entry asked once. */
#include <stdlib.h>

#include "heapscope/grow.h"
#include "heapscope/u64map.h"
#include "store_internal.h"

#define MAX_COST_ITEMS (UINT64_C(1) << 24) /* a guard against looping tables */

typedef struct todo {
    uint64_t *items;
    size_t n, cap;
} todo;

static bool push(todo *t, uint64_t v) {
    if (!hs_grow((void **)&t->items, &t->cap, t->n + 1, sizeof *t->items))
        return false;
    t->items[t->n++] = v;
    return true;
}

/* A stack and its cost centre; *table its index table. Unavailable parts
 * (a debuggee that does not know them) are simply not recorded. */
static hs_status ask_stack(heap *h, uint64_t addr, uint64_t *table, hs_error *err) {
    const wire_ccs *ccs;
    *table = 0;
    hs_status st = heap_ccs(h, addr, &ccs, err);
    if (st == HEAP_UNAVAILABLE)
        return HS_OK;
    if (st != HS_OK)
        return st;
    *table = ccs->index_table;
    const wire_cc *cc;
    st = heap_cc(h, ccs->cc, &cc, err);
    return st == HEAP_UNAVAILABLE ? HS_OK : st;
}

static hs_status walk_tree(heap *h, uint64_t main_ccs, hs_error *err) {
    todo t = {0};
    u64map seen = {0};
    hs_status st = push(&t, main_ccs) ? HS_OK : hs_fail(err, HS_ERR_NOMEM, "out of memory");
    while (st == HS_OK && t.n > 0) {
        uint64_t s = t.items[--t.n];
        if (u64map_find(&seen, s))
            continue;
        if (seen.count >= MAX_COST_ITEMS || !u64map_put(&seen, s, 1)) {
            st = hs_fail(err, HS_ERR_TOO_LARGE, "too many cost-centre stacks to record");
            break;
        }
        heap_index_walk iw = {0};
        st = ask_stack(h, s, &iw.next, err);
        for (uint64_t n = 0; st == HS_OK; n++) {
            const wire_index_entry *entry;
            if (n >= MAX_COST_ITEMS) {
                st = hs_fail(err, HS_ERR_PROTOCOL, "an index table of cost-centre stacks has no end");
                break;
            }
            st = heap_index_walk_step(h, &iw, &entry, err);
            if (st == HEAP_UNAVAILABLE) {
                st = HS_OK;
                break;
            }
            if (st != HS_OK || !entry)
                break;
            if (entry->ccs && !entry->back_edge && !push(&t, entry->ccs))
                st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
        }
    }
    free(t.items);
    u64map_free(&seen);
    return st;
}

bool store_note_header_ccs(u64map *header_ccs, const heap_closure *c) {
    return !c->prof.present || !c->prof.ccs || u64map_find(header_ccs, c->prof.ccs) ||
           u64map_put(header_ccs, c->prof.ccs, 1);
}

hs_status store_write_cost_centres(store_writer *w, const u64map *header_ccs, hs_error *err) {
    return store_fetch_cost_centres(w->h, header_ccs, err);
}

hs_status store_fetch_cost_centres(heap *h, const u64map *header_ccs, hs_error *err) {
    if (heap_prof_mode(h) == WIRE_PROF_NONE)
        return HS_OK;
    uint64_t main_ccs = 0;
    hs_status st = heap_ccs_main(h, &main_ccs, err);
    if (st == HEAP_UNAVAILABLE)
        return HS_OK;
    if (st == HS_OK && main_ccs)
        st = walk_tree(h, main_ccs, err);
    for (size_t i = 0; st == HS_OK && i < header_ccs->cap; i++) {
        uint64_t table;
        if (header_ccs->keys[i])
            st = ask_stack(h, header_ccs->keys[i], &table, err);
    }
    return st;
}
