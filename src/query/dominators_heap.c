/* The dominator tree of a heap: numbers the reachable closures densely,
 * then hands the heap as a plain graph to dom_compute.
 *
 * Closure numbers: a first traversal (the retainer search's: GC roots,
 * then saved objects; WEAK closures retain nothing) marks, one bit per
 * dense heap word, where each reachable closure starts and where it ends.
 * A closure's number is 1 + the count of starts below it (a 32-bit count
 * per 64 words makes that a popcount), its size the distance to the next
 * end; every 64th start's word is sampled so a number finds its address
 * in a few steps. Closures outside the blocks (static ones), and the few
 * whose size is not whole words (a TSO's), are numbered after, with their
 * address and exact size in a list. All this costs about 3
 * bits per heap word: about a byte per closure, counted in the budget. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "heapscope/closure_type.h"
#include "heapscope/grow.h"
#include "dominators_internal.h"
#include "dominators_map.h"

static hs_status nomem(hs_error *err) {
    return hs_fail(err, HS_ERR_NOMEM, "out of memory for the dominator tree");
}

/* ---- pass 1: mark what is reachable ----------------------------------- */

typedef struct mark_ctx {
    dom_map *m;
    bool failed;
} mark_ctx;

static query_action mark(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)h, (void)depth;
    mark_ctx *x = ctx;
    if (!dom_map_mark(x->m, c->addr, c->size)) {
        x->failed = true;
        return QUERY_STOP;
    }
    return c->type == HS_WEAK ? QUERY_SKIP_CHILDREN : QUERY_CONTINUE;
}

/* ---- the heap as a graph ---------------------------------------------- */

/* Info tables recently used and the static closures' numbers: direct-
 * mapped caches in front of the heap's and the map's hash tables, which
 * cost a hash per closure (and most edges into statics) otherwise. */
#define SLOTS 512

typedef struct heap_graph {
    heap *h;
    dom_map *m;
    heap_closure c;
    query_unreadable *unreadable;
    uint32_t next_rank;  /* size(): the sequential cursor */
    uint64_t next_word;
    uint64_t info_keys[SLOTS];
    const heap_info *infos[SLOTS];
    uint64_t other_keys[SLOTS];
    uint32_t other_ids[SLOTS];
} heap_graph;

static inline size_t slot(uint64_t key) {
    return (size_t)(key >> 3 ^ key >> 12) & (SLOTS - 1);
}

static uint32_t id_of(heap_graph *g, uint64_t addr) {
    uint32_t v = dom_map_heap_id(g->m, addr);
    if (v)
        return v;
    size_t k = slot(addr);
    if (g->other_keys[k] == addr && addr)
        return g->other_ids[k];
    v = dom_map_id(g->m, addr);
    g->other_keys[k] = addr;
    g->other_ids[k] = v;
    return v;
}

/* Decodes the closure at addr: from the bytes and info table at hand when
 * they are (the traversal fetched them), else through the heap. */
static hs_status decode(heap_graph *g, uint64_t addr, hs_error *problem) {
    size_t len;
    const uint8_t *bytes = heap_memory_cached(g->h, addr, &len);
    if (bytes && len >= 8) {
        uint64_t ptr = hs_load_le64(bytes);
        size_t k = slot(ptr);
        const heap_info *info = g->info_keys[k] == ptr && ptr ? g->infos[k] : NULL;
        if (!info && (info = heap_info_lookup(g->h, ptr)) != NULL) {
            g->info_keys[k] = ptr;
            g->infos[k] = info;
        }
        if (info)
            return heap_decode_known(g->h, addr, bytes, len, info, &g->c, problem);
    }
    return heap_decode(g->h, addr, &g->c, problem);
}

static hs_status successors(void *ctx, uint32_t v, uint64_t addr, dom_ids *out, hs_error *err) {
    heap_graph *g = ctx;
    if (!addr)
        addr = dom_map_addr(g->m, v);
    hs_error problem;
    hs_status st = decode(g, addr, &problem);
    if (query_unreadable_status(st)) { /* read in pass 1: only a changed source gets here */
        query_unreadable_add(g->unreadable, addr, problem.message);
        return HS_OK;
    }
    if (st != HS_OK) {
        if (err)
            *err = problem;
        return st;
    }
    if (g->c.type == HS_WEAK)
        return HS_OK;
    for (size_t e = 0; e < g->c.n_edges; e++) {
        uint64_t a = wire_untag(g->c.edges[e].addr);
        uint32_t s = id_of(g, a);
        if (s && !dom_ids_push(out, s, a))
            return nomem(err);
    }
    return HS_OK;
}

/* Asked in increasing number order: a cursor walks the start bits. */
static uint64_t size(void *ctx, uint32_t v) {
    heap_graph *g = ctx;
    dom_map *m = g->m;
    if (v > m->n_heap)
        return m->others[v - m->n_heap - 1].size;
    uint64_t w = v == g->next_rank ? dom_map_next_start(m, g->next_word)
                                   : dom_map_word(m, v - 1);
    g->next_rank = v + 1;
    g->next_word = w + 1;
    return dom_map_size(m, w);
}

/* The numbers and addresses of a start set's reachable closures. */
static hs_status starts_of(dom_map *m, const wire_ptr_list *l, dom_phase *ph, hs_error *err) {
    uint32_t *ids = malloc((l->count + 1) * sizeof *ids);
    uint64_t *keys = malloc((l->count + 1) * sizeof *keys);
    *ph = (dom_phase){ids, keys, 0};
    if (!ids || !keys)
        return nomem(err);
    for (size_t i = 0; i < l->count; i++) {
        uint32_t id = dom_map_id(m, l->items[i]);
        if (id) {
            ids[ph->count] = id;
            keys[ph->count++] = wire_untag(l->items[i]);
        }
    }
    return HS_OK;
}

static hs_status compute(heap *h, query_dominators *d, query_progress_fn progress,
                         void *progress_ctx, hs_error *err) {
    heap_graph hg = {.h = h, .m = &d->map, .unreadable = &d->unreadable};
    dom_phase phases[2] = {{0}};
    hs_status st = starts_of(&d->map, heap_roots(h), &phases[0], err);
    if (st == HS_OK)
        st = starts_of(&d->map, heap_saved_objects(h), &phases[1], err);
    if (st == HS_OK) {
        dom_graph g = {.n = dom_map_count(&d->map), .successors = successors, .size = size,
                       .ctx = &hg, .phases = phases, .n_phases = 2, .progress = progress,
                       .progress_ctx = progress_ctx, .base_bytes = dom_map_bytes(&d->map),
                       .hubs_from = d->map.n_heap + 1};
        st = dom_compute(&g, &d->res, err);
    }
    for (int p = 0; p < 2; p++) {
        free((void *)phases[p].starts);
        free((void *)phases[p].keys);
    }
    heap_closure_free(&hg.c);
    return st;
}

hs_status query_dominators_run(heap *h, query_progress_fn progress, void *progress_ctx,
                               query_dominators **out, hs_error *err) {
    *out = NULL;
    query_dominators *d = calloc(1, sizeof *d);
    if (!d)
        return nomem(err);
    d->h = h;
    hs_status st = dom_map_init(&d->map, h, err);
    if (st == HS_OK) {
        mark_ctx x = {.m = &d->map};
        query_traversal t = {.visit = mark, .ctx = &x, .progress = progress,
                             .progress_ctx = progress_ctx};
        const wire_ptr_list *roots = heap_roots(h), *saved = heap_saved_objects(h);
        query_starts phases[2] = {{roots->items, roots->count}, {saved->items, saved->count}};
        query_traversal_stats ts;
        st = query_traverse_phases(h, phases, 2, &t, &ts, err);
        if (st == HS_OK && x.failed)
            st = nomem(err);
        d->unreadable = ts.unreadable;
    }
    if (st == HS_OK)
        st = dom_map_index(&d->map, err);
    if (st == HS_OK)
        st = compute(h, d, progress, progress_ctx, err);
    if (st != HS_OK) {
        query_dominators_free(d);
        return st;
    }
    *out = d;
    return HS_OK;
}

void query_dominators_free(query_dominators *d) {
    if (!d)
        return;
    dom_map_free(&d->map);
    dom_result_free(&d->res);
    free(d);
}
