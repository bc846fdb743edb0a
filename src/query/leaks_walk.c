/* The era-boundary edges (leaks_internal.h): a first traversal notes each
 * reachable closure's era and info pointer by its dominator-tree number
 * (12 bytes a closure), a second one meets every edge and hands over
 * those to an older era. The report (leaks.c) and a group's edge list
 * (leaks_edges.c) are two consumers of this one walk. */
#include <stdlib.h>

#include "heapscope/closure_type.h"
#include "leaks_internal.h"

static uint32_t era_of(const heap *h, const heap_closure *c) {
    uint64_t e;
    if (!heap_closure_era(h, c, &e))
        return 0;
    return e >= UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)e;
}

static query_action note(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)depth;
    leaks_walk *w = ctx;
    uint32_t v = dom_map_id(w->m, c->addr);
    if (v) {
        w->era[v] = era_of(h, c);
        w->info[v] = c->info_ptr;
    }
    return c->type == HS_WEAK ? QUERY_SKIP_CHILDREN : QUERY_CONTINUE;
}

static query_action edges(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)h, (void)depth;
    leaks_walk *w = ctx;
    if (c->type == HS_WEAK)
        return QUERY_SKIP_CHILDREN;
    uint32_t v = dom_map_id(w->m, c->addr);
    uint32_t from_era = v ? w->era[v] : 0;
    for (size_t e = 0; from_era && e < c->n_edges; e++) {
        uint32_t s = dom_map_id(w->m, wire_untag(c->edges[e].addr));
        if (!s || !w->era[s] || w->era[s] >= from_era)
            continue;
        if (!w->on_edge(w->ctx, c, e, v, s)) {
            w->failed = true;
            return QUERY_STOP;
        }
    }
    return QUERY_CONTINUE;
}

hs_status leaks_walk_run(heap *h, const query_dominators *d, leaks_walk *w,
                         query_progress_fn progress, void *progress_ctx, hs_error *err) {
    size_t n1 = (size_t)dom_map_count(&d->map) + 1;
    w->m = &d->map;
    w->res = &d->res;
    w->era = calloc(n1, sizeof *w->era);
    w->info = calloc(n1, sizeof *w->info);
    if (!w->era || !w->info)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for the era-boundary report");
    const wire_ptr_list *roots = heap_roots(h), *saved = heap_saved_objects(h);
    query_starts phases[2] = {{roots->items, roots->count}, {saved->items, saved->count}};
    query_traversal_stats ts = {0};
    query_traversal t = {.visit = note, .ctx = w, .progress = progress,
                         .progress_ctx = progress_ctx};
    hs_status st = query_traverse_phases(h, phases, 2, &t, &ts, err);
    w->visited = ts.visited;
    t.visit = edges;
    if (st == HS_OK)
        st = query_traverse_phases(h, phases, 2, &t, &ts, err);
    if (st == HS_OK && w->failed)
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory for the era-boundary report");
    return st;
}

void leaks_walk_free(leaks_walk *w) {
    free(w->era);
    free(w->info);
    w->era = NULL;
    w->info = NULL;
}
