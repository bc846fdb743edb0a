/* query_leaks_group_edges: the edges of one group of the era-boundary
 * report, for a person to look at (heapscope leaks --group, the explorer's
 * view of a group). The report keeps which group the edges between two
 * info tables are in, so the same walk (leaks_walk.c) picks out the
 * group's edges; with a limit only the best are kept (sorted and cut each
 * time twice the limit have come), so a group of millions of edges costs
 * what is shown. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/grow.h"
#include "leaks_internal.h"

typedef struct kept {
    query_leak_edge e;
    uint64_t order; /* the order met */
} kept;

typedef struct group_ctx {
    const query_leaks *l;
    const leaks_walk *walk;
    uint32_t id;    /* the group's query_leak_group.id */
    uint64_t limit; /* 0: all */
    kept *items;
    size_t count, cap;
    uint64_t total;
} group_ctx;

static int by_bytes(const void *a, const void *b) {
    const kept *x = a, *y = b;
    if (x->e.bytes != y->e.bytes)
        return x->e.bytes > y->e.bytes ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static void sort_and_cut(group_ctx *x) {
    qsort(x->items, x->count, sizeof *x->items, by_bytes);
    if (x->limit && x->count > x->limit)
        x->count = (size_t)x->limit;
}

static bool keep_edge(void *ctx, const heap_closure *c, size_t e, uint32_t v, uint32_t s) {
    group_ctx *x = ctx;
    const leaks_walk *w = x->walk;
    const query_leak_pair *p = leaks_pair_find(x->l, w->info[v], w->info[s]);
    if (!p || p->group_id != x->id)
        return true;
    if (x->limit && x->count >= 2 * x->limit)
        sort_and_cut(x);
    if (!hs_grow((void **)&x->items, &x->cap, x->count + 1, sizeof *x->items))
        return false;
    bool dominates = w->res->idom[s] == v;
    x->items[x->count++] = (kept){
        .e = {.from = wire_untag(c->addr), .to = wire_untag(c->edges[e].addr),
              .from_era = w->era[v], .to_era = w->era[s],
              .bytes = dominates ? w->res->retained[s] : 0, .field = (uint32_t)e},
        .order = x->total++};
    return true;
}

hs_status query_leaks_group_edges(heap *h, const query_dominators *d, const query_leaks *l,
                                  size_t group, uint64_t limit, query_progress_fn progress,
                                  void *progress_ctx, query_leak_edges *out, hs_error *err) {
    memset(out, 0, sizeof *out);
    if (group >= l->n_groups)
        return hs_fail(err, HS_ERR_USAGE, "no group %zu: the report has %zu", group + 1,
                       l->n_groups);
    group_ctx x = {.l = l, .id = l->groups[group].id, .limit = limit};
    leaks_walk w = {.on_edge = keep_edge, .ctx = &x};
    x.walk = &w;
    hs_status st = leaks_walk_run(h, d, &w, progress, progress_ctx, err);
    leaks_walk_free(&w);
    if (st == HS_OK) {
        sort_and_cut(&x);
        out->items = malloc((x.count ? x.count : 1) * sizeof *out->items);
        if (!out->items)
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory listing the group's edges");
    }
    for (size_t i = 0; st == HS_OK && i < x.count; i++)
        out->items[i] = x.items[i].e;
    if (st == HS_OK) {
        out->count = x.count;
        out->total = x.total;
    }
    free(x.items);
    return st;
}

void query_leak_edges_free(query_leak_edges *e) {
    free(e->items);
    memset(e, 0, sizeof *e);
}

void query_leak_edge_label(heap *h, const query_leak_edge *e, char *buf, size_t cap) {
    heap_closure c = {0};
    hs_error err = {0};
    if (heap_decode(h, e->from, &c, &err) == HS_OK && e->field < c.n_edges)
        heap_closure_edge_label(h, &c, e->field, buf, cap); /* a frame says its kind */
    else
        snprintf(buf, cap, "field %" PRIu32, e->field);
    heap_closure_free(&c);
}
