/* Census: count and bytes per bucket over everything reachable from the
 * GC roots (heap-layout.md §11.3). Closures are first grouped by a cheap
 * number (type, info pointer or era) during the traversal; bucket names
 * are made once per group at the end and groups with the same name merged. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/grow.h"
#include "heapscope/query.h"
#include "heapscope/u64map.h"

typedef struct group {
    uint64_t id; /* type, info pointer or era */
    bool by_type;
    uint64_t count, bytes, max;
} group;

typedef struct census_ctx {
    query_census_by by;
    u64map index; /* group key -> position in groups + 1 */
    group *groups;
    size_t n_groups, cap;
    bool failed;
} census_ctx;

static group *group_for(census_ctx *cx, uint64_t id, bool by_type) {
    uint64_t key = (id << 1 | (by_type ? 1 : 0)) + 1; /* never 0 */
    uint64_t *pos = u64map_find(&cx->index, key);
    if (pos)
        return &cx->groups[*pos - 1];
    if (!hs_grow((void **)&cx->groups, &cx->cap, cx->n_groups + 1, sizeof *cx->groups))
        return NULL;
    if (!u64map_put(&cx->index, key, cx->n_groups + 1))
        return NULL;
    cx->groups[cx->n_groups] = (group){.id = id, .by_type = by_type};
    return &cx->groups[cx->n_groups++];
}

static query_action census_visit(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)h;
    (void)depth;
    census_ctx *cx = ctx;
    group *g;
    switch (cx->by) {
    case QUERY_CENSUS_BY_TYPE: g = group_for(cx, c->type, true); break;
    case QUERY_CENSUS_BY_CONSTRUCTOR:
        g = hs_closure_type_is_constructor(c->type) ? group_for(cx, c->info_ptr, false)
                                                    : group_for(cx, c->type, true);
        break;
    case QUERY_CENSUS_BY_ERA: g = group_for(cx, c->prof.present ? c->prof.word : 0, false); break;
    default: g = group_for(cx, c->info_ptr, false); break;
    }
    if (!g) {
        cx->failed = true;
        return QUERY_STOP;
    }
    g->count++;
    g->bytes += c->size;
    if (c->size > g->max)
        g->max = c->size;
    return QUERY_CONTINUE;
}

static hs_status group_name(heap *h, query_census_by by, const group *g, char *buf, size_t cap,
                            hs_error *err) {
    if (g->by_type) {
        snprintf(buf, cap, "%s", hs_closure_type_name((uint32_t)g->id));
        return HS_OK;
    }
    if (by == QUERY_CENSUS_BY_ERA) {
        snprintf(buf, cap, "%" PRIu64, g->id);
        return HS_OK;
    }
    const heap_info *info;
    hs_status st = heap_info_get(h, g->id, &info, err);
    if (st != HS_OK)
        return st;
    if (by == QUERY_CENSUS_BY_CONSTRUCTOR) {
        snprintf(buf, cap, "%s:%s:%s", info->con_package, info->con_module, info->con_name);
        return HS_OK;
    }
    const wire_source_info *ipe;
    st = heap_info_source(h, info, &ipe, err);
    if (st == HS_OK)
        snprintf(buf, cap, "%s", ipe && ipe->position && *ipe->position ? ipe->position
                                                                          : "<no location>");
    return st;
}

static int cmp_key(const void *a, const void *b) {
    return strcmp(((const query_census_row *)a)->key, ((const query_census_row *)b)->key);
}

static int cmp_bytes(const void *a, const void *b) {
    const query_census_row *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return strcmp(x->key, y->key);
}

/* Names every group, merges groups that share a name, sorts by bytes. */
static hs_status make_rows(heap *h, const census_ctx *cx, query_census *out, hs_error *err) {
    out->rows = calloc(cx->n_groups ? cx->n_groups : 1, sizeof *out->rows);
    if (!out->rows)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < cx->n_groups; i++) {
        char name[512];
        hs_status st = group_name(h, cx->by, &cx->groups[i], name, sizeof name, err);
        if (st != HS_OK)
            return st;
        query_census_row *r = &out->rows[out->n_rows++];
        r->key = strdup(name);
        if (!r->key)
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
        r->count = cx->groups[i].count;
        r->bytes = cx->groups[i].bytes;
        r->max = cx->groups[i].max;
        out->total_count += r->count;
        out->total_bytes += r->bytes;
    }
    qsort(out->rows, out->n_rows, sizeof *out->rows, cmp_key);
    size_t w = 0;
    for (size_t i = 0; i < out->n_rows; i++) {
        if (w > 0 && strcmp(out->rows[w - 1].key, out->rows[i].key) == 0) {
            query_census_row *m = &out->rows[w - 1];
            m->count += out->rows[i].count;
            m->bytes += out->rows[i].bytes;
            if (out->rows[i].max > m->max)
                m->max = out->rows[i].max;
            free(out->rows[i].key);
        } else {
            out->rows[w++] = out->rows[i];
        }
    }
    out->n_rows = w;
    qsort(out->rows, out->n_rows, sizeof *out->rows, cmp_bytes);
    return HS_OK;
}

hs_status query_census_run(heap *h, query_census_by by, const query_traversal *progress_only,
                           query_census *out, hs_error *err) {
    memset(out, 0, sizeof *out);
    if (by == QUERY_CENSUS_BY_ERA && heap_version(h)->prof_mode != WIRE_PROF_ERA)
        return hs_fail(err, HS_ERR_USAGE,
                       "a census by era needs a debuggee with era profiling (+RTS -he); "
                       "this one has profiling mode '%s'",
                       heap_version(h)->prof_mode == WIRE_PROF_NONE ? "none" : "not era");
    census_ctx cx = {.by = by};
    query_traversal t = {.visit = census_visit, .ctx = &cx};
    if (progress_only) {
        t.progress = progress_only->progress;
        t.progress_ctx = progress_only->progress_ctx;
    }
    const wire_ptr_list *roots = heap_roots(h);
    query_traversal_stats stats;
    hs_status st = query_traverse(h, roots->items, roots->count, &t, &stats, err);
    if (st == HS_OK && cx.failed)
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory counting the census");
    if (st == HS_OK)
        st = make_rows(h, &cx, out, err);
    if (st != HS_OK)
        query_census_free(out);
    else
        out->unreadable = stats.unreadable;
    u64map_free(&cx.index);
    free(cx.groups);
    return st;
}

void query_census_free(query_census *c) {
    for (size_t i = 0; i < c->n_rows; i++)
        free(c->rows[i].key);
    free(c->rows);
    memset(c, 0, sizeof *c);
}

bool query_census_by_from_name(const char *name, query_census_by *out) {
    static const char *const names[] = {"type", "constructor", "era", "source"};
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(name, names[i]) == 0) {
            *out = (query_census_by)i;
            return true;
        }
    }
    return false;
}
