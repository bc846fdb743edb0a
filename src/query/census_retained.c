/* A census row's retained bytes: each closure the census counts (walked
 * again from the GC roots) is given its first-level row (the key text
 * made once per raw value), then dom_sum_subtrees adds up the union of
 * each row's subtrees. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/u64map.h"
#include "census_internal.h"
#include "dominators_map.h"

typedef struct retained_ctx {
    const query_census_spec *spec;
    const query_census *c;
    const query_census_row **by_key; /* the rows sorted by key, for bsearch */
    const dom_map *m;
    u64map rows;        /* raw value + 1 -> row + 1 (0: not a row) */
    uint32_t *group_of; /* tree node -> row + 1 */
    hs_status st;
    hs_error err;
} retained_ctx;

static int cmp_key(const void *a, const void *b) {
    return strcmp((*(const query_census_row *const *)a)->key,
                  (*(const query_census_row *const *)b)->key);
}

/* The row (+ 1) of closure cl, or 0 when the census does not count it. */
static hs_status row_of(heap *h, retained_ctx *x, const heap_closure *cl, uint32_t *out,
                        hs_error *err) {
    const query_census_spec *spec = x->spec;
    bool match = true;
    *out = 0;
    for (size_t l = 0; l < spec->levels; l++) /* as the census: a thunk level counts thunks */
        if (spec->by[l] == QUERY_CENSUS_BY_THUNK && !query_census_is_thunk(cl->type))
            return HS_OK;
    if (spec->filters) {
        hs_status st = query_filters_match(spec->filters, h, cl, &match, err);
        if (st != HS_OK || !match)
            return st;
    }
    uint64_t raw = census_raw(census_by_source(spec->by[0]), cl);
    /* the map's keys are raw + 1 (an era or CCS can be 0); all ones is not kept */
    uint64_t *known = raw == UINT64_MAX ? NULL : u64map_find(&x->rows, raw + 1);
    if (known) {
        *out = (uint32_t)*known;
        return HS_OK;
    }
    char key[512];
    hs_status st = census_key_of_raw(h, spec->by[0], raw, key, sizeof key, err);
    if (st != HS_OK)
        return st;
    const query_census_row probe = {.key = key}, *p = &probe;
    const query_census_row **row = bsearch(&p, x->by_key, x->c->n_rows, sizeof *x->by_key, cmp_key);
    if (row)
        *out = (uint32_t)(*row - x->c->rows) + 1;
    if (raw == UINT64_MAX || u64map_put(&x->rows, raw + 1, *out))
        return HS_OK;
    return hs_fail(err, HS_ERR_NOMEM, "out of memory");
}

static query_action visit(void *ctx, heap *h, const heap_closure *cl, uint32_t depth) {
    (void)depth;
    retained_ctx *x = ctx;
    uint32_t row, v = dom_map_id(x->m, cl->addr);
    x->st = row_of(h, x, cl, &row, &x->err);
    if (x->st != HS_OK)
        return QUERY_STOP;
    if (v)
        x->group_of[v] = row;
    return QUERY_CONTINUE;
}

hs_status query_census_retained(heap *h, const query_dominators *d,
                                const query_census_spec *spec, query_census *c, hs_error *err) {
    uint32_t n = dom_map_count(&d->map);
    retained_ctx x = {.spec = spec, .c = c, .m = &d->map,
                      .group_of = calloc((size_t)n + 1, sizeof *x.group_of)};
    uint64_t *bytes = calloc(c->n_rows ? c->n_rows : 1, sizeof *bytes);
    x.by_key = malloc((c->n_rows ? c->n_rows : 1) * sizeof *x.by_key);
    uint64_t all;
    hs_status st = x.group_of && bytes && x.by_key ? HS_OK
                                                   : hs_fail(err, HS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == HS_OK && i < c->n_rows; i++)
        x.by_key[i] = &c->rows[i];
    if (st == HS_OK && c->n_rows > 1)
        qsort(x.by_key, c->n_rows, sizeof *x.by_key, cmp_key);
    /* the census's closures: what the GC roots reach (the tree also holds
     * what only saved objects reach, hanging from its root apart) */
    query_traversal t = {.visit = visit, .ctx = &x, .progress = spec->progress,
                         .progress_ctx = spec->progress_ctx};
    query_traversal_stats stats;
    const wire_ptr_list *roots = heap_roots(h);
    if (st == HS_OK)
        st = query_traverse(h, roots->items, roots->count, &t, &stats, err);
    if (st == HS_OK && x.st != HS_OK) {
        st = x.st;
        *err = x.err;
    }
    if (st == HS_OK)
        st = dom_sum_subtrees(&d->res, n, x.group_of, c->n_rows, bytes, NULL, &all, err);
    for (size_t i = 0; st == HS_OK && i < c->n_rows; i++)
        c->rows[i].retained = bytes[i];
    u64map_free(&x.rows);
    free(x.group_of);
    free(x.by_key);
    free(bytes);
    return st;
}
