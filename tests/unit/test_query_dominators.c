/* The dominator computation (src/query/dominators_core.c) on thousands of
 * random small graphs, against brute force (dom_brute.h): each node's
 * dominators and retained size; long chains (no recursion, deep path
 * compression); cancelling. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "../../src/query/dominators_internal.h"
#include "dom_brute.h"

static uint64_t rng_state;

static uint32_t rnd(uint32_t below) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % below);
}

/* Keys are the node numbers plus a constant: each must come back with its node. */
#define KEY(v) ((uint64_t)(v) + UINT64_C(0x4200000000))

static hs_status db_successors(void *ctx, uint32_t v, uint64_t key, dom_ids *out, hs_error *err) {
    const db_graph *g = ctx;
    cr_assert_eq(key, KEY(v));
    for (uint32_t w = 1; w <= g->n; w++)
        if (g->edge[v][w] && !dom_ids_push(out, w, KEY(w)))
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

static uint64_t db_size(void *ctx, uint32_t v) {
    return ((const db_graph *)ctx)->size[v];
}

/* A random graph: sometimes sparse, sometimes dense, sometimes a chain
 * with a few extra edges; one to three GC roots, up to two saved objects. */
static void random_graph(db_graph *g) {
    memset(g, 0, sizeof *g);
    g->n = 1 + rnd(DB_MAX);
    uint32_t kind = rnd(3), per_mille = 20 + rnd(300);
    for (uint32_t v = 1; v <= g->n; v++) {
        g->size[v] = 8 * (1 + rnd(6));
        if (kind == 2 && v < g->n)
            g->edge[v][v + 1] = true;
        for (uint32_t w = 1; w <= g->n; w++)
            if (rnd(1000) < (kind == 2 ? 30 : per_mille))
                g->edge[v][w] = true;
    }
    for (int p = 0; p < 2; p++) {
        g->n_starts[p] = p == 0 ? 1 + rnd(3) : rnd(3);
        for (size_t i = 0; i < g->n_starts[p]; i++)
            g->starts[p][i] = 1 + rnd(g->n);
    }
}

static void check_graph(const db_graph *g, uint32_t hubs_from, unsigned seed) {
    uint64_t keys[2][DB_MAX + 1];
    for (int p = 0; p < 2; p++)
        for (size_t i = 0; i < g->n_starts[p]; i++)
            keys[p][i] = KEY(g->starts[p][i]);
    dom_phase phases[2] = {{g->starts[0], keys[0], g->n_starts[0]},
                           {g->starts[1], keys[1], g->n_starts[1]}};
    dom_graph dg = {.n = g->n, .successors = db_successors, .size = db_size, .ctx = (void *)g,
                    .phases = phases, .n_phases = 2, .hubs_from = hubs_from};
    dom_result r;
    hs_error err = {0};
    cr_assert_eq(dom_compute(&dg, &r, &err), HS_OK, "seed %u: %s", seed, err.message);
    static bool dominated[DB_MAX + 1][DB_MAX + 1];
    bool reached[DB_MAX + 1];
    db_dominators(g, dominated, reached);
    uint64_t total = 0;
    uint32_t n_reached = 0;
    for (uint32_t w = 1; w <= g->n; w++) {
        cr_assert_eq(r.idom[w] != DOM_NONE, reached[w], "seed %u node %u reached", seed, w);
        if (!reached[w])
            continue;
        n_reached++;
        total += g->size[w];
        bool strict[DB_MAX + 1] = {0}; /* w's dominators by the computed tree */
        for (uint32_t d = r.idom[w], steps = 0; d != DOM_ROOT; d = r.idom[d], steps++) {
            cr_assert(d <= g->n && steps <= g->n, "seed %u: idom chain of %u broken", seed, w);
            strict[d] = true;
        }
        for (uint32_t d = 1; d <= g->n; d++)
            cr_assert_eq(d == w || strict[d], dominated[d][w],
                         "seed %u: does %u dominate %u? tree says %d", seed, d, w,
                         d == w || strict[d]);
        uint64_t retained = 0;
        for (uint32_t x = 1; x <= g->n; x++)
            if (dominated[w][x])
                retained += g->size[x];
        cr_assert_eq(r.retained[w], retained, "seed %u: retained size of %u", seed, w);
    }
    cr_assert_eq(r.reached, n_reached, "seed %u", seed);
    cr_assert_eq(r.retained[DOM_ROOT], total, "seed %u", seed);
    dom_result_free(&r);
}

Test(dominators, random_graphs_match_brute_force) {
    static db_graph g;
    for (unsigned seed = 1; seed <= 5000; seed++) {
        rng_state = UINT64_C(0x9e3779b97f4a7c15) * seed;
        random_graph(&g);
        /* the last few nodes as hubs half of the time (their own edge lists) */
        uint32_t hubs = rnd(2) ? 1 + rnd(g.n) : 0;
        check_graph(&g, hubs, seed);
    }
}

/* A chain 1 -> 2 -> ... -> n with an edge back from n to 1 (and from
 * every 16th node to the first): a path as deep as the graph, for the depth-
 * first search and the path compression alike. */
typedef struct chain {
    uint32_t n;
    uint32_t cancel_after; /* progress reports before cancelling; 0: never */
    uint32_t reports;
} chain;

static hs_status chain_successors(void *ctx, uint32_t v, uint64_t key, dom_ids *out,
                                  hs_error *err) {
    const chain *c = ctx;
    (void)err, (void)key;
    dom_ids_push(out, v < c->n ? v + 1 : 1, 0);
    if (v % 16 == 0)
        dom_ids_push(out, 1, 0);
    return HS_OK;
}

static uint64_t chain_size(void *ctx, uint32_t v) {
    (void)ctx;
    return 16 + 8 * (v % 3);
}

static bool chain_progress(void *ctx, uint64_t done) {
    chain *c = ctx;
    (void)done;
    return !c->cancel_after || ++c->reports < c->cancel_after;
}

static const uint32_t chain_start = 1;
static const dom_phase chain_phase = {&chain_start, NULL, 1};

static dom_graph chain_graph(chain *c) {
    return (dom_graph){.n = c->n, .successors = chain_successors, .size = chain_size, .ctx = c,
                       .phases = &chain_phase, .n_phases = 1, .progress = chain_progress,
                       .progress_ctx = c};
}

Test(dominators, long_chain) {
    chain c = {.n = 2000000};
    dom_graph g = chain_graph(&c);
    dom_result r;
    hs_error err = {0};
    cr_assert_eq(dom_compute(&g, &r, &err), HS_OK, "%s", err.message);
    cr_assert_eq(r.reached, c.n);
    uint64_t below = 0;
    for (uint32_t v = c.n; v >= 1; v--) {
        below += chain_size(NULL, v);
        cr_assert_eq(r.idom[v], v - 1, "idom of %u", v);
        cr_assert_eq(r.retained[v], below, "retained of %u", v);
    }
    cr_assert_eq(r.retained[DOM_ROOT], below);
    cr_assert_gt(r.peak_bytes, 0);
    cr_assert_leq(r.peak_bytes, (size_t)c.n * 24, "peak %zu bytes", r.peak_bytes);
    dom_result_free(&r);
}

Test(dominators, progress_cancels) {
    chain c = {.n = 1000000, .cancel_after = 2};
    dom_graph g = chain_graph(&c);
    dom_result r;
    hs_error err = {0};
    cr_assert_eq(dom_compute(&g, &r, &err), HS_ERR_CANCELLED);
    cr_assert_null(r.idom);
    cr_assert_null(r.retained);
}
