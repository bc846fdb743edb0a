/* Census: count and bytes per bucket, one or two levels, over everything
 * reachable from the GC roots (heap-layout.md §11.3), counting only the
 * closures that pass the filters. While walking, a closure is grouped by
 * the raw number of each level (info pointer, era, CCS pointer) in a small
 * hash table with a one-entry cache in front (neighbours often share their
 * info table); groups are named at the end (census_rows.c). Info tables
 * that cannot count (non-thunks in a thunk census, tables an
 * info-table-only filter list rejects) are declined up front, sparing the
 * visit of their closures. */
#include <stdlib.h>
#include <string.h>

#include "census_internal.h"
#include "filter_internal.h"
#include "heapscope/grow.h"
#include "heapscope/u64map.h"

typedef struct census_ctx {
    const query_census_spec *spec;
    census_source src[QUERY_CENSUS_MAX_LEVELS];
    bool thunks_only;
    bool filter_each;     /* filters that need the closure, not just its info table */
    bool filter_by_info;  /* filters decided per info table in wants */
    /* groups by raw values: open addressing, slot = group index + 1 (0 = empty) */
    uint32_t *slots;
    size_t cap;           /* power of two */
    census_group *groups;
    size_t n_groups, groups_cap;
    size_t last;          /* the group of the previous closure, when n_groups > 0 */
    bool failed;          /* err holds why */
    hs_error err;
} census_ctx;

static size_t pair_hash(uint64_t a, uint64_t b) {
    return (size_t)u64map_hash(a ^ (b * UINT64_C(0x9e3779b97f4a7c15) + (b >> 7)));
}

static bool rehash(census_ctx *cx) {
    size_t cap = cx->cap ? 2 * cx->cap : 256;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    for (size_t g = 0; g < cx->n_groups; g++) {
        size_t i = pair_hash(cx->groups[g].raw[0], cx->groups[g].raw[1]) & (cap - 1);
        while (slots[i])
            i = (i + 1) & (cap - 1);
        slots[i] = (uint32_t)(g + 1);
    }
    free(cx->slots);
    cx->slots = slots;
    cx->cap = cap;
    return true;
}

/* The group of raw values (a, b), made when new; NULL when out of memory. */
static census_group *group_of(census_ctx *cx, uint64_t a, uint64_t b) {
    if (cx->n_groups) {
        census_group *g = &cx->groups[cx->last];
        if (g->raw[0] == a && g->raw[1] == b)
            return g;
    }
    if (2 * (cx->n_groups + 1) > cx->cap && !rehash(cx))
        return NULL;
    size_t i = pair_hash(a, b) & (cx->cap - 1);
    for (; cx->slots[i]; i = (i + 1) & (cx->cap - 1)) {
        census_group *g = &cx->groups[cx->slots[i] - 1];
        if (g->raw[0] == a && g->raw[1] == b) {
            cx->last = cx->slots[i] - 1;
            return g;
        }
    }
    if (cx->n_groups >= UINT32_MAX - 1 ||
        !hs_grow((void **)&cx->groups, &cx->groups_cap, cx->n_groups + 1, sizeof *cx->groups))
        return NULL;
    cx->groups[cx->n_groups] = (census_group){.raw = {a, b}};
    cx->slots[i] = (uint32_t)(cx->n_groups + 1);
    cx->last = cx->n_groups++;
    return &cx->groups[cx->last];
}

static bool census_wants(void *ctx, heap *h, const heap_info *info) {
    census_ctx *cx = ctx;
    for (size_t l = 0; l < cx->spec->levels; l++)
        if (!census_counts(cx->spec->by[l], info))
            return false;
    if (!cx->filter_by_info || cx->failed)
        return true;
    bool ok = true;
    if (query_filters_match_info(cx->spec->filters, h, info, &ok, &cx->err) != HS_OK) {
        cx->failed = true; /* the visit stops the walk */
        return true;
    }
    return ok;
}

static query_action census_visit(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)depth;
    census_ctx *cx = ctx;
    if (cx->failed)
        return QUERY_STOP;
    if (cx->thunks_only && !query_census_is_thunk(c->type))
        return QUERY_CONTINUE; /* only closures without an info table get here */
    if (cx->filter_each) {
        bool ok = true;
        if (query_filters_match(cx->spec->filters, h, c, &ok, &cx->err) != HS_OK) {
            cx->failed = true;
            return QUERY_STOP;
        }
        if (!ok)
            return QUERY_CONTINUE;
    }
    uint64_t a = census_raw(cx->src[0], c);
    uint64_t b = cx->spec->levels > 1 ? census_raw(cx->src[1], c) : 0;
    census_group *g = group_of(cx, a, b);
    if (!g) {
        hs_fail(&cx->err, HS_ERR_NOMEM, "out of memory counting the census");
        cx->failed = true;
        return QUERY_STOP;
    }
    g->count++;
    g->bytes += c->size;
    if (c->size > g->max)
        g->max = c->size;
    return QUERY_CONTINUE;
}

static hs_status check_spec(heap *h, const query_census_spec *spec, hs_error *err) {
    if (spec->levels < 1 || spec->levels > QUERY_CENSUS_MAX_LEVELS)
        return hs_fail(err, HS_ERR_USAGE, "a census has 1 or 2 levels, not %zu", spec->levels);
    for (size_t l = 0; l < spec->levels; l++) {
        hs_status st = query_census_by_usable(spec->by[l], h, err);
        if (st != HS_OK)
            return st;
    }
    if (spec->filters && !spec->prepared)
        return query_filters_prepare(spec->filters, h, err);
    return HS_OK;
}

hs_status query_census_compute(heap *h, const query_census_spec *spec, query_census *out,
                               hs_error *err) {
    memset(out, 0, sizeof *out);
    hs_status st = check_spec(h, spec, err);
    if (st != HS_OK)
        return st;
    census_ctx cx = {.spec = spec};
    bool filtered = query_filters_count(spec->filters) > 0;
    cx.filter_by_info = filtered && query_filters_info_only(spec->filters);
    cx.filter_each = filtered && !cx.filter_by_info;
    for (size_t l = 0; l < spec->levels; l++) {
        cx.src[l] = census_by_source(spec->by[l]);
        cx.thunks_only |= spec->by[l] == QUERY_CENSUS_BY_THUNK;
    }
    query_traversal t = {.visit = census_visit, .ctx = &cx, .wants = census_wants,
                         .progress = spec->progress, .progress_ctx = spec->progress_ctx};
    const wire_ptr_list *roots = heap_roots(h);
    query_traversal_stats stats;
    st = query_traverse(h, roots->items, roots->count, &t, &stats, err);
    if (st == HS_OK && cx.failed) {
        *err = cx.err;
        st = cx.err.status != HS_OK ? cx.err.status : HS_ERR_NOMEM;
    }
    if (st == HS_OK)
        st = census_rows_build(h, spec, cx.groups, cx.n_groups, out, err);
    if (st != HS_OK) {
        query_census_free(out);
    } else {
        out->unreadable = stats.unreadable;
        out->visited = stats.visited;
    }
    free(cx.slots);
    free(cx.groups);
    return st;
}

hs_status query_census_run(heap *h, query_census_by by, const query_traversal *progress_only,
                           query_census *out, hs_error *err) {
    query_census_spec spec = {.by = {by}, .levels = 1};
    if (progress_only) {
        spec.progress = progress_only->progress;
        spec.progress_ctx = progress_only->progress_ctx;
    }
    return query_census_compute(h, &spec, out, err);
}
