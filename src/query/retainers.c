/* Retainer search (retainers-and-eras.md §3), breadth first: every match
 * is reported with a shortest path from the GC roots when any GC root
 * reaches it, else from the saved objects (two phases of one traversal),
 * built from the traversal's parent links when the match
 * is found. ghc-debug walks depth first and reports the first path it
 * meets, which can be far longer. WEAK closures neither match nor retain.
 * The search stops at the limit. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/query.h"
#include "filter_internal.h"
#include "heapscope/u64map.h"
#include "retainers_internal.h"

typedef struct search_ctx {
    heap *h;
    const query_search *s;
    query_search_stats *stats;
    query_path_builder pb;
    u64map roots;   /* GC roots, to tell a path from a saved object */
    hs_status st;   /* a failure inside the visitor */
    hs_error err;
} search_ctx;

/* Whether c matches; a failure stops the traversal and is kept. */
static query_action decide(search_ctx *x, const heap_closure *c, bool *hit) {
    *hit = false;
    if (c->type == HS_WEAK) /* never matches, retains nothing (§3) */
        return QUERY_SKIP_CHILDREN;
    hs_status st = query_filters_match(x->s->filters, x->h, c, hit, &x->err);
    if (st != HS_OK) {
        x->st = st;
        return QUERY_STOP;
    }
    return QUERY_CONTINUE;
}

/* When the filters look at info tables only, the traversal asks once per
 * info table and calls the visitor only for closures that can match (and
 * for WEAKs, whose children are skipped). On a failure the closures are
 * visited, and the failure is met and reported there. */
static bool wants(void *ctx, heap *h, const heap_info *info) {
    search_ctx *x = ctx;
    bool out = true;
    hs_error ignored;
    if (info->type != HS_WEAK &&
        query_filters_match_info(x->s->filters, h, info, &out, &ignored) != HS_OK)
        out = true;
    return out;
}

/* Hands a built match to the caller; stops at the limit. */
static query_action report(search_ctx *x, query_match *m, uint32_t depth) {
    x->stats->matches++;
    m->number = x->stats->matches;
    m->depth = depth;
    if (x->s->on_match && !x->s->on_match(x->s->ctx, x->h, m))
        return QUERY_STOP;
    if (x->s->limit && x->stats->matches >= x->s->limit) {
        x->stats->limit_reached = true;
        return QUERY_STOP;
    }
    return QUERY_CONTINUE;
}

static query_action visit_plain(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)h;
    search_ctx *x = ctx;
    bool hit;
    query_action act = decide(x, c, &hit);
    if (!hit)
        return act;
    query_match m;
    x->st = query_path_single(&x->pb, c, &m, &x->err);
    return x->st == HS_OK ? report(x, &m, depth) : QUERY_STOP;
}

static query_action visit_trail(void *ctx, heap *h, const heap_closure *c,
                                const query_trail *trail) {
    (void)h;
    search_ctx *x = ctx;
    bool hit;
    query_action act = decide(x, c, &hit);
    if (!hit)
        return act;
    query_match m;
    x->st = query_path_build(&x->pb, trail, &m, &x->err);
    if (x->st != HS_OK)
        return QUERY_STOP;
    m.from_saved_object = m.n_steps > 0 && !u64map_find(&x->roots, m.steps[0].addr);
    return report(x, &m, query_trail_depth(trail));
}

/* Remembers the GC roots (untagged), to tell a path from a saved object. */
static hs_status note_roots(search_ctx *x, hs_error *err) {
    const wire_ptr_list *roots = heap_roots(x->h);
    for (size_t i = 0; i < roots->count; i++) {
        uint64_t a = wire_untag(roots->items[i]);
        if (a && !u64map_put(&x->roots, a, 1))
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    return HS_OK;
}

hs_status query_search_run(heap *h, const query_search *s, query_search_stats *stats,
                           hs_error *err) {
    query_search_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    hs_status st = s->prepared ? HS_OK : query_filters_prepare(s->filters, h, err);
    if (st != HS_OK)
        return st;
    search_ctx x = {.h = h, .s = s, .stats = stats};
    query_path_init(&x.pb, h);
    st = note_roots(&x, err);
    if (st == HS_OK) {
        query_traversal t = {.ctx = &x, .progress = s->progress, .progress_ctx = s->progress_ctx};
        if (s->paths)
            t.visit_trail = visit_trail;
        else
            t.visit = visit_plain;
        if (query_filters_info_only(s->filters))
            t.wants = wants;
        /* first everything the GC roots reach, then what only saved objects reach */
        const wire_ptr_list *roots = heap_roots(h), *saved = heap_saved_objects(h);
        query_starts phases[2] = {{roots->items, roots->count}, {saved->items, saved->count}};
        st = query_traverse_phases(h, phases, 2, &t, &stats->traversal, err);
        if (st == HS_OK && x.st != HS_OK) {
            st = x.st;
            if (err)
                *err = x.err;
        }
    }
    u64map_free(&x.roots);
    query_path_free(&x.pb);
    return st;
}
