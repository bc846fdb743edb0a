/* Retainer search on hand-built heaps: shortest (breadth-first) paths,
 * edge labels, WEAK closures, limits, saved objects, matches below
 * matches, era flags along a path, cancel, and the trail of a traversal
 * (retainers-and-eras.md §3). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/query.h"
#include "query_heap.h"

#define MAX_MATCHES 16
#define MAX_STEPS 16

typedef struct got_step {
    uint64_t addr, era;
    bool has_era, flagged;
    char edge[32], label[64];
    uint32_t type;
} got_step;

typedef struct got_match {
    uint64_t number;
    uint32_t depth;
    bool saved;
    size_t n_steps, n_flagged;
    got_step steps[MAX_STEPS];
} got_match;

typedef struct got {
    got_match m[MAX_MATCHES];
    size_t n;
    size_t stop_after; /* on_match returns false after this many; 0 = never */
} got;

static bool collect(void *ctx, heap *h, const query_match *m) {
    (void)h;
    got *g = ctx;
    cr_assert_lt(g->n, MAX_MATCHES);
    cr_assert_leq(m->n_steps, MAX_STEPS);
    got_match *o = &g->m[g->n++];
    o->number = m->number;
    o->depth = m->depth;
    o->saved = m->from_saved_object;
    o->n_steps = m->n_steps;
    o->n_flagged = m->n_newer_retains_older;
    for (size_t i = 0; i < m->n_steps; i++) {
        const query_step *s = &m->steps[i];
        got_step *d = &o->steps[i];
        d->addr = s->addr;
        d->era = s->era;
        d->has_era = s->has_era;
        d->flagged = s->newer_retains_older;
        d->type = s->type;
        snprintf(d->edge, sizeof d->edge, "%s", s->edge ? s->edge : "(none)");
        snprintf(d->label, sizeof d->label, "%s", s->label);
    }
    return !(g->stop_after && g->n >= g->stop_after);
}

/* Runs a search with one filter (kind/text, or none when text is NULL). */
static hs_status search(heap *h, query_filter_kind kind, const char *text, uint64_t limit,
                        bool paths, got *g, query_search_stats *stats, hs_error *err) {
    query_filters *f;
    cr_assert_eq(query_filters_new(&f, err), HS_OK);
    if (text)
        cr_assert_eq(query_filters_add(f, kind, text, false, err), HS_OK, "%s", err->message);
    query_search s = {.filters = f, .limit = limit, .paths = paths, .on_match = collect,
                      .ctx = g};
    hs_status st = query_search_run(h, &s, stats, err);
    query_filters_free(f);
    return st;
}

/* Root R: Field 0 -> N1 -> N2 -> N3 -> L1 (the first path depth first),
 * Field 1 -> L1 (the shortest). */
typedef struct diamond {
    uint64_t r, n1, n2, n3, l1;
} diamond;

static diamond make_diamond(qh *q) {
    diamond d;
    d.l1 = qh_con(q, "main:Main.Leak", 0, NULL, 1);
    d.n3 = qh_con(q, "main:Main.Node", 1, &d.l1, 0);
    d.n2 = qh_con(q, "main:Main.Node", 1, &d.n3, 0);
    d.n1 = qh_con(q, "main:Main.Node", 1, &d.n2, 0);
    uint64_t f[2] = {d.n1 | 1, d.l1 | 1}; /* tagged pointers */
    d.r = qh_con(q, "main:Main.Root", 2, f, 0);
    qh_root(q, d.r);
    return d;
}

Test(query_retainers, reports_the_shortest_path) {
    qh *q = qh_new(WIRE_PROF_NONE);
    diamond d = make_diamond(q);
    heap *h = qh_open(q);
    got g = {0};
    query_search_stats stats;
    hs_error err = {0};
    cr_assert_eq(search(h, QUERY_FILTER_EXACT, "Leak", 100, true, &g, &stats, &err), HS_OK,
                 "%s", err.message);
    cr_assert_eq(g.n, 1);
    cr_expect_eq(stats.matches, 1);
    cr_expect_not(stats.limit_reached);
    cr_expect_eq(stats.traversal.visited, 5);
    got_match *m = &g.m[0];
    cr_expect_eq(m->number, 1);
    cr_expect_eq(m->depth, 1);
    cr_expect_not(m->saved);
    cr_assert_eq(m->n_steps, 2);
    cr_expect_eq(m->steps[0].addr, d.r);
    cr_expect_str_eq(m->steps[0].edge, "(none)");
    cr_expect_eq(m->steps[1].addr, d.l1);
    cr_expect_str_eq(m->steps[1].edge, "Field 1");
    cr_expect_str_eq(m->steps[1].label, "Leak 0");
    cr_expect_eq(m->steps[1].type, HS_CONSTR);
    cr_expect_not(m->steps[1].has_era);
    qh_free(q);
}

Test(query_retainers, edge_labels_along_a_longer_path) {
    qh *q = qh_new(WIRE_PROF_NONE);
    diamond d = make_diamond(q);
    heap *h = qh_open(q);
    got g = {0};
    hs_error err = {0};
    /* N3 is only reachable through N1 and N2 */
    char addr[32];
    snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)d.n3);
    cr_assert_eq(search(h, QUERY_FILTER_ADDRESS, addr, 100, true, &g, NULL, &err), HS_OK);
    cr_assert_eq(g.n, 1);
    got_match *m = &g.m[0];
    cr_assert_eq(m->n_steps, 4);
    cr_expect_eq(m->depth, 3);
    uint64_t want[4] = {d.r, d.n1, d.n2, d.n3};
    const char *edges[4] = {"(none)", "Field 0", "Field 0", "Field 0"};
    for (int i = 0; i < 4; i++) {
        cr_expect_eq(m->steps[i].addr, want[i], "step %d", i);
        cr_expect_str_eq(m->steps[i].edge, edges[i], "step %d", i);
    }
    qh_free(q);
}

Test(query_retainers, weak_closures_never_match_and_retain_nothing) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t key = qh_con(q, "main:Main.Leak", 0, NULL, 1);
    uint64_t value = qh_con(q, "main:Main.Leak", 0, NULL, 1);
    uint64_t w = qh_weak(q, key, value);
    uint64_t r = qh_con(q, "main:Main.Root", 1, &w, 0);
    qh_root(q, r);
    heap *h = qh_open(q);
    hs_error err = {0};
    got g = {0};
    cr_assert_eq(search(h, QUERY_FILTER_EXACT, "Leak", 0, true, &g, NULL, &err), HS_OK);
    cr_expect_eq(g.n, 0, "a Leak was reached through a WEAK");
    memset(&g, 0, sizeof g);
    cr_assert_eq(search(h, QUERY_FILTER_TYPE, "WEAK", 0, true, &g, NULL, &err), HS_OK);
    cr_expect_eq(g.n, 0, "a WEAK matched");
    memset(&g, 0, sizeof g);
    query_search_stats stats;
    cr_assert_eq(search(h, 0, NULL, 0, false, &g, &stats, &err), HS_OK);
    cr_expect_eq(g.n, 1, "only the root matches an empty filter list");
    cr_expect_eq(stats.traversal.visited, 2, "root and WEAK, nothing below it");
    qh_free(q);
}

/* Root -> Chain -> Chain -> Chain -> Chain -> Chain (each matches). */
static uint64_t make_chain(qh *q, int n, uint64_t *links) {
    uint64_t next = qh_static_con(q, "main:Main.End");
    for (int i = n - 1; i >= 0; i--)
        next = links[i] = qh_con(q, "main:Main.Chain", 1, &next, 0);
    uint64_t r = qh_con(q, "main:Main.Root", 1, &next, 0);
    qh_root(q, r);
    return r;
}

Test(query_retainers, matches_below_matches_in_discovery_order) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t links[5];
    uint64_t r = make_chain(q, 5, links);
    heap *h = qh_open(q);
    got g = {0};
    hs_error err = {0};
    cr_assert_eq(search(h, QUERY_FILTER_EXACT, "Chain", 0, true, &g, NULL, &err), HS_OK);
    cr_assert_eq(g.n, 5);
    for (size_t i = 0; i < 5; i++) {
        cr_expect_eq(g.m[i].number, i + 1);
        cr_expect_eq(g.m[i].depth, i + 1);
        cr_expect_eq(g.m[i].n_steps, i + 2);
        cr_expect_eq(g.m[i].steps[0].addr, r);
        cr_expect_eq(g.m[i].steps[i + 1].addr, links[i]);
    }
    qh_free(q);
}

Test(query_retainers, limit_stops_the_search) {
    static const struct {
        uint64_t limit;
        size_t want;
        bool reached;
    } cases[] = {{1, 1, true}, {2, 2, true}, {5, 5, true}, {6, 5, false}, {0, 5, false}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int paths = 0; paths < 2; paths++) {
            qh *q = qh_new(WIRE_PROF_NONE);
            uint64_t links[5];
            make_chain(q, 5, links);
            heap *h = qh_open(q);
            got g = {0};
            query_search_stats stats;
            hs_error err = {0};
            cr_assert_eq(search(h, QUERY_FILTER_EXACT, "Chain", cases[c].limit, paths, &g,
                                &stats, &err), HS_OK);
            cr_expect_eq(g.n, cases[c].want, "limit %llu", (unsigned long long)cases[c].limit);
            cr_expect_eq(stats.matches, cases[c].want);
            cr_expect_eq(stats.limit_reached, cases[c].reached, "limit %llu",
                         (unsigned long long)cases[c].limit);
            if (cases[c].limit == 2) /* stopped: the rest of the chain was never visited */
                cr_expect_eq(stats.traversal.visited, 3);
            for (size_t i = 0; i < g.n; i++)
                cr_expect_eq(g.m[i].steps[g.m[i].n_steps - 1].addr, links[i]);
            qh_free(q);
        }
    }
}

Test(query_retainers, find_reports_the_match_alone) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t links[3];
    make_chain(q, 3, links);
    heap *h = qh_open(q);
    got g = {0};
    hs_error err = {0};
    cr_assert_eq(search(h, QUERY_FILTER_EXACT, "Chain", 0, false, &g, NULL, &err), HS_OK);
    cr_assert_eq(g.n, 3);
    for (size_t i = 0; i < 3; i++) {
        cr_expect_eq(g.m[i].n_steps, 1);
        cr_expect_eq(g.m[i].depth, i + 1);
        cr_expect_eq(g.m[i].steps[0].addr, links[i]);
        cr_expect_str_eq(g.m[i].steps[0].edge, "(none)");
    }
    qh_free(q);
}

Test(query_retainers, saved_objects_start_paths_after_the_roots) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t only_saved = qh_con(q, "main:Main.Leak", 0, NULL, 1);
    uint64_t both = qh_con(q, "main:Main.Leak", 0, NULL, 1);
    uint64_t holder = qh_con(q, "main:Main.Node", 1, &only_saved, 0);
    qh_root(q, both);
    qh_saved(q, holder);
    qh_saved(q, both);
    heap *h = qh_open(q);
    got g = {0};
    hs_error err = {0};
    cr_assert_eq(search(h, QUERY_FILTER_EXACT, "Leak", 0, true, &g, NULL, &err), HS_OK);
    cr_assert_eq(g.n, 2);
    cr_expect_eq(g.m[0].steps[0].addr, both);
    cr_expect_not(g.m[0].saved, "a GC root that is also saved is a GC root");
    cr_expect_eq(g.m[1].n_steps, 2);
    cr_expect_eq(g.m[1].steps[0].addr, holder);
    cr_expect(g.m[1].saved);
    qh_free(q);
}

/* Root R -> N1 -> N2 -> Leak, and N2 saved: the GC root's longer path is
 * the one shown (issue 9, item 1); a saved object's path only for what no
 * GC root reaches. */
Test(query_retainers, a_gc_root_path_beats_a_shorter_saved_object_path) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t leak = qh_con(q, "main:Main.Leak", 0, NULL, 1);
    uint64_t n2 = qh_con(q, "main:Main.Node", 1, &leak, 0);
    uint64_t n1 = qh_con(q, "main:Main.Node", 1, &n2, 0);
    uint64_t r = qh_con(q, "main:Main.Root", 1, &n1, 0);
    uint64_t orphan = qh_con(q, "main:Main.Leak", 0, NULL, 1);
    qh_saved(q, n2);
    qh_saved(q, orphan);
    qh_root(q, r);
    heap *h = qh_open(q);
    got g = {0};
    query_search_stats stats;
    hs_error err = {0};
    cr_assert_eq(search(h, QUERY_FILTER_EXACT, "Leak", 0, true, &g, &stats, &err), HS_OK);
    cr_assert_eq(g.n, 2);
    cr_expect_not(g.m[0].saved);
    cr_expect_eq(g.m[0].depth, 3);
    cr_assert_eq(g.m[0].n_steps, 4);
    cr_expect_eq(g.m[0].steps[0].addr, r);
    cr_expect_eq(g.m[0].steps[2].addr, n2);
    cr_expect_eq(g.m[0].steps[3].addr, leak);
    cr_expect(g.m[1].saved);
    cr_expect_eq(g.m[1].depth, 0);
    cr_expect_eq(g.m[1].steps[0].addr, orphan);
    cr_expect_eq(stats.traversal.visited, 5, "each closure visited once");
    cr_expect_eq(stats.traversal.depth, 4, "the deepest phase's levels");
    qh_free(q);
}

/* R(1) -> Ref(1) -> Thunk(6) -> (:)(2) -> Leak(2), and Thunk -> static Leak (era 0). */
Test(query_retainers, newer_era_retaining_older_is_flagged) {
    qh *q = qh_new(WIRE_PROF_ERA);
    uint64_t leak = qh_con(q, "main:Main.Leak", 0, NULL, 1);
    uint64_t nil = qh_static_con(q, "ghc-prim:GHC.Types.[]");
    uint64_t cf[2] = {leak, nil};
    uint64_t cons = qh_con(q, "ghc-prim:GHC.Types.:", 2, cf, 0);
    uint64_t stat = qh_static_con(q, "main:Main.Leak");
    uint64_t tf[2] = {cons, stat};
    uint64_t thunk = qh_con(q, "main:Main.Thunk", 2, tf, 0);
    uint64_t ref = qh_con(q, "main:Main.Ref", 1, &thunk, 0);
    uint64_t r = qh_con(q, "main:Main.Root", 1, &ref, 0);
    qh_set_era(q, leak, 2);
    qh_set_era(q, cons, 2);
    qh_set_era(q, thunk, 6);
    qh_root(q, r);
    heap *h = qh_open(q);
    got g = {0};
    hs_error err = {0};
    cr_assert_eq(search(h, QUERY_FILTER_EXACT, "Leak", 0, true, &g, NULL, &err), HS_OK, "%s",
                 err.message);
    cr_assert_eq(g.n, 2);
    /* the static Leak is nearer: era 0 is no era, so nothing is flagged */
    got_match *s = &g.m[0];
    cr_assert_eq(s->n_steps, 4);
    cr_expect_eq(s->steps[3].addr, stat);
    cr_expect_eq(s->steps[3].era, 0);
    cr_expect_eq(s->n_flagged, 0);
    got_match *m = &g.m[1];
    cr_assert_eq(m->n_steps, 5);
    static const uint64_t eras[5] = {1, 1, 6, 2, 2};
    static const bool flags[5] = {false, false, false, true, false};
    for (int i = 0; i < 5; i++) {
        cr_expect(m->steps[i].has_era);
        cr_expect_eq(m->steps[i].era, eras[i], "step %d era", i);
        cr_expect_eq(m->steps[i].flagged, flags[i], "step %d flag", i);
    }
    cr_expect_eq(m->n_flagged, 1);
    cr_expect_str_eq(m->steps[3].edge, "Field 0");
    cr_expect_eq(m->steps[4].addr, leak);

    /* with an era filter: only the heap Leak */
    memset(&g, 0, sizeof g);
    cr_assert_eq(search(h, QUERY_FILTER_ERA, "2", 0, true, &g, NULL, &err), HS_OK);
    cr_expect_eq(g.n, 2, "(:) and Leak are of era 2");
    qh_free(q);
}

Test(query_retainers, era_filter_on_a_heap_without_eras_fails) {
    qh *q = qh_new(WIRE_PROF_NONE);
    make_diamond(q);
    heap *h = qh_open(q);
    got g = {0};
    hs_error err = {0};
    cr_expect_eq(search(h, QUERY_FILTER_ERA, "1-3", 0, true, &g, NULL, &err), HS_ERR_USAGE);
    cr_expect(strstr(err.message, "era profiling"), "%s", err.message);
    cr_expect_eq(g.n, 0);
    qh_free(q);
}

static bool cancel(void *ctx, uint64_t visited) {
    (void)visited;
    ++*(int *)ctx;
    return false;
}

Test(query_retainers, progress_can_cancel) {
    qh *q = qh_new(WIRE_PROF_NONE);
    make_diamond(q);
    heap *h = qh_open(q);
    got g = {0};
    int calls = 0;
    query_search s = {.limit = 0, .paths = true, .on_match = collect, .ctx = &g,
                      .progress = cancel, .progress_ctx = &calls};
    hs_error err = {0};
    cr_expect_eq(query_search_run(h, &s, NULL, &err), HS_ERR_CANCELLED);
    cr_expect_str_eq(err.message, "cancelled");
    cr_expect_eq(calls, 1);
    cr_expect_eq(g.n, 0);
    qh_free(q);
}

Test(query_retainers, the_caller_can_stop_early) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t links[4];
    make_chain(q, 4, links);
    heap *h = qh_open(q);
    got g = {.stop_after = 2};
    query_search_stats stats;
    hs_error err = {0};
    cr_assert_eq(search(h, QUERY_FILTER_EXACT, "Chain", 0, true, &g, &stats, &err), HS_OK);
    cr_expect_eq(g.n, 2);
    cr_expect_not(stats.limit_reached);
    qh_free(q);
}

/* ---- trails of query_traverse ---------------------------------------- */

typedef struct trail_ctx {
    uint64_t target;
    uint64_t path[8];
    size_t n, need_short;
    uint32_t depth;
    uint64_t visited;
} trail_ctx;

static query_action on_trail(void *ctx, heap *h, const heap_closure *c, const query_trail *t) {
    (void)h;
    trail_ctx *x = ctx;
    x->visited++;
    if (c->addr == x->target) {
        uint64_t one = 0xdead;
        x->need_short = query_trail_path(t, &one, 1);
        cr_expect_eq(one, 0xdead, "a short buffer was written");
        x->n = query_trail_path(t, x->path, 8);
        x->depth = query_trail_depth(t);
    }
    return QUERY_CONTINUE;
}

static query_action count_plain(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)h, (void)c, (void)depth;
    ++*(uint64_t *)ctx;
    return QUERY_CONTINUE;
}

Test(query_retainers, traversal_trails) {
    qh *q = qh_new(WIRE_PROF_NONE);
    diamond d = make_diamond(q);
    heap *h = qh_open(q);
    trail_ctx x = {.target = d.n3};
    query_traversal t = {.visit_trail = on_trail, .ctx = &x};
    query_traversal_stats stats;
    hs_error err = {0};
    uint64_t start = d.r | 1;
    cr_assert_eq(query_traverse(h, &start, 1, &t, &stats, &err), HS_OK);
    cr_expect_eq(x.depth, 3);
    cr_expect_eq(x.need_short, 4);
    cr_assert_eq(x.n, 4);
    cr_expect_eq(x.path[0], d.r);
    cr_expect_eq(x.path[1], d.n1);
    cr_expect_eq(x.path[2], d.n2);
    cr_expect_eq(x.path[3], d.n3);

    uint64_t plain = 0;
    query_traversal p = {.visit = count_plain, .ctx = &plain};
    query_traversal_stats pstats;
    cr_assert_eq(query_traverse(h, &start, 1, &p, &pstats, &err), HS_OK);
    cr_expect_eq(plain, x.visited);
    cr_expect_eq(pstats.visited, stats.visited);
    cr_expect_eq(pstats.depth, stats.depth);
    qh_free(q);
}

static bool no_nodes(void *ctx, heap *h, const heap_info *info) {
    (void)ctx, (void)h;
    return !info->con_name || strcmp(info->con_name, "Node") != 0;
}

static query_action seen(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)h, (void)depth;
    uint64_t *list = ctx;
    list[1 + list[0]++] = c->addr;
    return QUERY_CONTINUE;
}

Test(query_retainers, declined_info_tables_are_not_visited_but_walked_through) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t leak = qh_con(q, "main:Main.Leak", 0, NULL, 1);
    uint64_t n2 = qh_con(q, "main:Main.Node", 1, &leak, 0);
    uint64_t n1 = qh_con(q, "main:Main.Node", 1, &n2, 0);
    uint64_t r = qh_con(q, "main:Main.Root", 1, &n1, 0);
    qh_root(q, r);
    heap *h = qh_open(q);
    uint64_t list[8] = {0};
    query_traversal t = {.visit = seen, .ctx = list, .wants = no_nodes};
    query_traversal_stats stats;
    hs_error err = {0};
    cr_assert_eq(query_traverse(h, &r, 1, &t, &stats, &err), HS_OK);
    cr_expect_eq(stats.visited, 4);
    cr_assert_eq(list[0], 2);
    cr_expect_eq(list[1], r);
    cr_expect_eq(list[2], leak);
    qh_free(q);
}
