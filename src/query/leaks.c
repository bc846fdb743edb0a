/* The era-boundary report (issue 12 §2, query.h): the edges where a newer
 * era retains an older one, grouped by the names of the retainer and the
 * retained closure, ranked by the bytes only they retain.
 *
 * The walk (leaks_walk.c) hands over every boundary edge; they are counted
 * into pairs keyed by the two info pointers, noting each older closure
 * whose immediate dominator is the edge's newer closure (a dominator need
 * not be a predecessor, so the edge is what tells). The pairs are named
 * once each (leaks_name.c), pairs whose names and retainer kinds are the
 * same are merged into groups, and a walk of the dominator tree adds up
 * each group's bytes (leaks_nest.c). The pairs are kept, so that a group's
 * edges can be listed (leaks_edges.c). The ranking puts holds before
 * contents (query.h): in an immutable heap every closure was built from
 * older ones, so a newer constructor or array pointing into an older era
 * is the normal case, and a thunk or function still holding older data is
 * the leak's shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/grow.h"
#include "leaks_internal.h"

#define KEY_MAX 512

static hs_status nomem(hs_error *err) {
    return hs_fail(err, HS_ERR_NOMEM, "out of memory for the era-boundary report");
}

hs_status query_leaks_usable(heap *h, hs_error *err) {
    return heap_eras_needed(heap_version(h), "the era-boundary report", err);
}

/* One info-pointer pair: a group before naming. */
typedef struct pair {
    uint64_t from_info, to_info;
    uint32_t group; /* after naming: its group's index */
    query_leak_group g;
} pair;

/* An older closure its newer retainer dominates, in the pair of that edge. */
typedef struct dominated {
    uint32_t node, pair;
} dominated;

typedef struct leaks_ctx {
    const dom_result *res;
    const leaks_walk *walk;
    uint64_t *counted;    /* by number, a bit: in `dominated` already */
    dominated *dominated;
    size_t n_dominated, cap_dominated;
    pair *pairs;
    size_t n_pairs, cap_pairs;
    size_t *slots;        /* open addressing: pair index + 1, 0 = empty */
    size_t n_slots;       /* a power of two */
    uint64_t edges;
} leaks_ctx;

static size_t hash_pair(uint64_t a, uint64_t b) {
    uint64_t x = (a ^ (b * UINT64_C(0x9e3779b97f4a7c15))) * UINT64_C(0xff51afd7ed558ccd);
    return (size_t)(x ^ x >> 29);
}

static bool rehash(leaks_ctx *x) {
    size_t n = x->n_slots ? x->n_slots * 2 : 256;
    size_t *s = calloc(n, sizeof *s);
    if (!s)
        return false;
    for (size_t i = 0; i < x->n_pairs; i++) {
        size_t k = hash_pair(x->pairs[i].from_info, x->pairs[i].to_info) & (n - 1);
        while (s[k])
            k = (k + 1) & (n - 1);
        s[k] = i + 1;
    }
    free(x->slots);
    x->slots = s;
    x->n_slots = n;
    return true;
}

/* The pair (from_info, to_info), made on first use; NULL when out of memory. */
static pair *pair_of(leaks_ctx *x, uint64_t from_info, uint64_t to_info) {
    if ((x->n_pairs + 1) * 2 > x->n_slots && !rehash(x))
        return NULL;
    size_t k = hash_pair(from_info, to_info) & (x->n_slots - 1);
    for (; x->slots[k]; k = (k + 1) & (x->n_slots - 1)) {
        pair *p = &x->pairs[x->slots[k] - 1];
        if (p->from_info == from_info && p->to_info == to_info)
            return p;
    }
    if (!hs_grow((void **)&x->pairs, &x->cap_pairs, x->n_pairs + 1, sizeof *x->pairs))
        return NULL;
    pair *p = &x->pairs[x->n_pairs++];
    memset(p, 0, sizeof *p);
    p->from_info = from_info;
    p->to_info = to_info;
    x->slots[k] = x->n_pairs;
    return p;
}

/* An edge of the walk: counted into its pair. */
static bool count_edge(void *ctx, const heap_closure *c, size_t e, uint32_t v, uint32_t s) {
    leaks_ctx *x = ctx;
    const leaks_walk *w = x->walk;
    pair *p = pair_of(x, w->info[v], w->info[s]);
    if (!p)
        return false;
    if (!p->g.edges) {
        p->g.kind = query_leak_kind_of(c->type);
        p->g.from = wire_untag(c->addr);
        p->g.to = wire_untag(c->edges[e].addr);
        p->g.from_era = w->era[v];
        p->g.to_era = w->era[s];
    }
    p->g.edges++;
    x->edges++;
    /* v immediately dominates s: every path to s passes through v, and
     * this edge; s counts once (v may hold it in several fields) */
    if (x->res->idom[s] == v && !(x->counted[s / 64] >> (s % 64) & 1)) {
        x->counted[s / 64] |= UINT64_C(1) << (s % 64);
        if (!hs_grow((void **)&x->dominated, &x->cap_dominated, x->n_dominated + 1,
                     sizeof *x->dominated))
            return false;
        x->dominated[x->n_dominated++] = (dominated){s, (uint32_t)(p - x->pairs)};
    }
    return true;
}

/* ---- naming and merging ------------------------------------------------ */

static int by_keys(const void *a, const void *b) {
    const query_leak_group *x = a, *y = b;
    int c = strcmp(x->retainer, y->retainer);
    if (!c)
        c = strcmp(x->retained, y->retained);
    return c ? c : (int)x->kind - (int)y->kind;
}

/* Groups that free something first, holds before contents, then bytes. */
static int by_rank(const void *a, const void *b) {
    const query_leak_group *x = a, *y = b;
    if ((x->bytes > 0) != (y->bytes > 0))
        return x->bytes > 0 ? -1 : 1;
    bool hx = query_leak_kind_holds(x->kind), hy = query_leak_kind_holds(y->kind);
    if (hx != hy)
        return hx ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->edges != y->edges)
        return x->edges > y->edges ? -1 : 1;
    return by_keys(a, b);
}

static hs_status name_pair(heap *h, pair *p, hs_error *err) {
    char name[KEY_MAX];
    bool from_ipe;
    hs_status st = leaks_info_name(h, p->from_info, name, sizeof name, &p->g.named_by_ipe, err);
    if (st == HS_OK && !(p->g.retainer = strdup(name)))
        st = nomem(err);
    if (st == HS_OK)
        st = leaks_info_name(h, p->to_info, name, sizeof name, &from_ipe, err);
    if (st == HS_OK && !(p->g.retained = strdup(name)))
        st = nomem(err);
    return st;
}

static int pairs_by_keys(const void *a, const void *b) {
    return by_keys(&(*(pair *const *)a)->g, &(*(pair *const *)b)->g);
}

/* Names the pairs and merges those whose names are the same text (and
 * whose retainers are of one kind) into out->groups (the first one's
 * example edge is kept); each pair learns its group. */
static hs_status build_groups(heap *h, leaks_ctx *x, query_leaks *out, hs_error *err) {
    out->groups = calloc(x->n_pairs ? x->n_pairs : 1, sizeof *out->groups);
    pair **order = malloc((x->n_pairs ? x->n_pairs : 1) * sizeof *order);
    hs_status st = out->groups && order ? HS_OK : nomem(err);
    for (size_t i = 0; st == HS_OK && i < x->n_pairs; i++) {
        st = name_pair(h, &x->pairs[i], err);
        order[i] = &x->pairs[i];
    }
    if (st == HS_OK)
        qsort(order, x->n_pairs, sizeof *order, pairs_by_keys);
    for (size_t r = 0; st == HS_OK && r < x->n_pairs; r++) {
        pair *p = order[r];
        query_leak_group *k = out->n_groups ? &out->groups[out->n_groups - 1] : NULL;
        if (k && by_keys(k, &p->g) == 0) {
            k->edges += p->g.edges;
            p->group = (uint32_t)(out->n_groups - 1);
            continue;
        }
        p->group = (uint32_t)out->n_groups;
        p->g.id = p->group;
        out->groups[out->n_groups++] = p->g;
        p->g.retainer = p->g.retained = NULL; /* owned by the group now */
    }
    free(order);
    return st;
}

/* older and bytes of each group (leaks_nest.c), then the ranking. */
static hs_status add_bytes(leaks_ctx *x, leaks_walk *w, uint32_t n_nodes, query_leaks *out,
                           hs_error *err) {
    uint32_t *group_of = w->era; /* the eras are no longer needed */
    memset(group_of, 0, ((size_t)n_nodes + 1) * sizeof *group_of);
    for (size_t i = 0; i < x->n_dominated; i++)
        group_of[x->dominated[i].node] = x->pairs[x->dominated[i].pair].group + 1;
    size_t n = out->n_groups ? out->n_groups : 1;
    uint64_t *bytes = calloc(n, sizeof *bytes), *older = calloc(n, sizeof *older);
    hs_status st = bytes && older ? dom_sum_subtrees(x->res, n_nodes, group_of, out->n_groups,
                                                     bytes, older, &out->bytes, err)
                                  : nomem(err);
    for (size_t g = 0; st == HS_OK && g < out->n_groups; g++) {
        out->groups[g].bytes += bytes[g];
        out->groups[g].older += older[g];
    }
    free(bytes);
    free(older);
    if (st == HS_OK)
        qsort(out->groups, out->n_groups, sizeof *out->groups, by_rank);
    return st;
}

static int by_infos(const void *a, const void *b) {
    const query_leak_pair *x = a, *y = b;
    if (x->from_info != y->from_info)
        return x->from_info < y->from_info ? -1 : 1;
    return x->to_info < y->to_info ? -1 : x->to_info > y->to_info;
}

/* The pairs and their groups, for query_leaks_group_edges. */
static hs_status keep_pairs(const leaks_ctx *x, query_leaks *out, hs_error *err) {
    out->pairs = malloc((x->n_pairs ? x->n_pairs : 1) * sizeof *out->pairs);
    if (!out->pairs)
        return nomem(err);
    for (size_t i = 0; i < x->n_pairs; i++)
        out->pairs[i] = (query_leak_pair){x->pairs[i].from_info, x->pairs[i].to_info,
                                          x->pairs[i].group};
    out->n_pairs = x->n_pairs;
    qsort(out->pairs, out->n_pairs, sizeof *out->pairs, by_infos);
    return HS_OK;
}

const query_leak_pair *leaks_pair_find(const query_leaks *l, uint64_t from_info,
                                       uint64_t to_info) {
    query_leak_pair key = {from_info, to_info, 0};
    return bsearch(&key, l->pairs, l->n_pairs, sizeof *l->pairs, by_infos);
}

hs_status query_leaks_run(heap *h, const query_dominators *d, query_progress_fn progress,
                          void *progress_ctx, query_leaks *out, hs_error *err) {
    memset(out, 0, sizeof *out);
    hs_status st = query_leaks_usable(h, err);
    if (st != HS_OK)
        return st;
    uint32_t n_nodes = dom_map_count(&d->map);
    leaks_ctx x = {.res = &d->res, .counted = calloc((size_t)n_nodes / 64 + 1,
                                                     sizeof *x.counted)};
    leaks_walk w = {.on_edge = count_edge, .ctx = &x};
    x.walk = &w;
    st = x.counted ? leaks_walk_run(h, d, &w, progress, progress_ctx, err) : nomem(err);
    out->closures = w.visited;
    out->edges = x.edges;
    if (st == HS_OK)
        st = build_groups(h, &x, out, err);
    if (st == HS_OK)
        st = add_bytes(&x, &w, n_nodes, out, err);
    if (st == HS_OK)
        st = keep_pairs(&x, out, err);
    for (size_t i = 0; i < x.n_pairs; i++) {
        free(x.pairs[i].g.retainer);
        free(x.pairs[i].g.retained);
    }
    leaks_walk_free(&w);
    free(x.pairs);
    free(x.slots);
    free(x.counted);
    free(x.dominated);
    if (st != HS_OK)
        query_leaks_free(out);
    return st;
}

void query_leaks_free(query_leaks *l) {
    for (size_t i = 0; i < l->n_groups; i++) {
        free(l->groups[i].retainer);
        free(l->groups[i].retained);
    }
    free(l->groups);
    free(l->pairs);
    memset(l, 0, sizeof *l);
}
