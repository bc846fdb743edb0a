/* The era-boundary report (issue 12 §2, query.h): the edges where a newer
 * era retains an older one, grouped by retainer key and retained
 * constructor, ranked by the bytes only they retain.
 *
 * A first traversal notes each reachable closure's era and info pointer
 * by its dominator-tree number (12 bytes a closure); a second one meets
 * every edge and counts the boundary ones into pairs keyed by the two
 * info pointers, noting each older closure whose immediate dominator is
 * the edge's newer closure (a dominator need not be a predecessor, so the
 * edge is what tells). The pairs are named once each with the census's own
 * keys, pairs whose names and retainer kinds are the same are merged into
 * groups, and a walk of the dominator tree adds up each group's bytes
 * (leaks_nest.c). The ranking puts holds before contents (query.h): in an
 * immutable heap every closure was built from older ones, so a newer
 * constructor or array pointing into an older era is the normal case, and
 * a thunk or function still holding older data is the leak's shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/grow.h"
#include "census_internal.h"
#include "dominators_map.h"
#include "leaks_internal.h"

#define KEY_MAX 512

static hs_status nomem(hs_error *err) {
    return hs_fail(err, HS_ERR_NOMEM, "out of memory for the era-boundary report");
}

hs_status query_leaks_usable(heap *h, hs_error *err) {
    const wire_version *v = heap_version(h);
    if (v->prof_mode == WIRE_PROF_ERA)
        return HS_OK;
    char older[80] = "";
    if (v->major < 910) /* no -he to advise: say why */
        snprintf(older, sizeof older, " (GHC %u.%u has none: it came with GHC 9.10)",
                 v->major / 100, v->major % 100);
    return hs_fail(err, HS_ERR_USAGE,
                   "the era-boundary report needs a debuggee with era profiling (+RTS -he); "
                   "this one has profiling mode '%s'%s",
                   v->prof_mode == WIRE_PROF_NONE ? "none" : "not era", older);
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
    const dom_map *m;
    const dom_result *res;
    uint32_t *era;      /* by number: era, saturated at UINT32_MAX - 1; 0 = none */
    uint64_t *info;     /* by number: info pointer */
    uint64_t *counted;  /* by number, a bit: in `dominated` already */
    dominated *dominated;
    size_t n_dominated, cap_dominated;
    pair *pairs;
    size_t n_pairs, cap_pairs;
    size_t *slots;      /* open addressing: pair index + 1, 0 = empty */
    size_t n_slots;     /* a power of two */
    uint64_t edges;
    bool failed;
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

static uint32_t era_of(const heap *h, const heap_closure *c) {
    uint64_t e;
    if (!heap_closure_era(h, c, &e))
        return 0;
    return e >= UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)e;
}

/* ---- pass 1: eras and info pointers ------------------------------------ */

static query_action note(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)depth;
    leaks_ctx *x = ctx;
    uint32_t v = dom_map_id(x->m, c->addr);
    if (v) {
        x->era[v] = era_of(h, c);
        x->info[v] = c->info_ptr;
    }
    return c->type == HS_WEAK ? QUERY_SKIP_CHILDREN : QUERY_CONTINUE;
}

/* ---- pass 2: the boundary edges ---------------------------------------- */

static query_action edges(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)h, (void)depth;
    leaks_ctx *x = ctx;
    if (c->type == HS_WEAK)
        return QUERY_SKIP_CHILDREN;
    uint32_t v = dom_map_id(x->m, c->addr);
    uint32_t from_era = v ? x->era[v] : 0;
    for (size_t e = 0; from_era && e < c->n_edges; e++) {
        uint32_t s = dom_map_id(x->m, wire_untag(c->edges[e].addr));
        if (!s || !x->era[s] || x->era[s] >= from_era)
            continue;
        pair *p = pair_of(x, x->info[v], x->info[s]);
        if (!p) {
            x->failed = true;
            return QUERY_STOP;
        }
        if (!p->g.edges) {
            p->g.kind = query_leak_kind_of(c->type);
            p->g.from = wire_untag(c->addr);
            p->g.to = wire_untag(c->edges[e].addr);
            p->g.from_era = from_era;
            p->g.to_era = x->era[s];
        }
        p->g.edges++;
        x->edges++;
        /* v immediately dominates s: every path to s passes through v, and
         * this edge; s counts once (v may hold it in several fields) */
        if (x->res->idom[s] == v && !(x->counted[s / 64] >> (s % 64) & 1)) {
            x->counted[s / 64] |= UINT64_C(1) << (s % 64);
            if (!hs_grow((void **)&x->dominated, &x->cap_dominated, x->n_dominated + 1,
                         sizeof *x->dominated)) {
                x->failed = true;
                return QUERY_STOP;
            }
            x->dominated[x->n_dominated++] = (dominated){s, (uint32_t)(p - x->pairs)};
        }
    }
    return QUERY_CONTINUE;
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
    char key[KEY_MAX];
    hs_status st = census_key_of_raw(h, QUERY_CENSUS_BY_SOURCE, p->from_info, key, sizeof key,
                                     err);
    if (st != HS_OK)
        return st;
    p->g.has_position = strcmp(key, "<no location>") != 0;
    if (!p->g.has_position)
        st = census_key_of_raw(h, QUERY_CENSUS_BY_THUNK, p->from_info, key, sizeof key, err);
    if (st != HS_OK)
        return st;
    p->g.info_ptr = p->from_info;
    p->g.retainer = strdup(key);
    st = census_key_of_raw(h, QUERY_CENSUS_BY_CONSTRUCTOR, p->to_info, key, sizeof key, err);
    if (st != HS_OK)
        return st;
    p->g.retained = strdup(key);
    return p->g.retainer && p->g.retained ? HS_OK : nomem(err);
}

static int pairs_by_keys(const void *a, const void *b) {
    return by_keys(&(*(pair *const *)a)->g, &(*(pair *const *)b)->g);
}

/* Names the pairs and merges those whose keys are the same text (and
 * whose retainers are of one kind) into
 * out->groups (the first one's example edge is kept); each pair learns
 * its group. */
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
        out->groups[out->n_groups++] = p->g;
        p->g.retainer = p->g.retained = NULL; /* owned by the group now */
    }
    free(order);
    return st;
}

/* older and bytes of each group (leaks_nest.c), then the ranking. */
static hs_status add_bytes(leaks_ctx *x, query_leaks *out, hs_error *err) {
    uint32_t *group_of = x->era; /* the eras are no longer needed */
    size_t n1 = (size_t)dom_map_count(x->m) + 1;
    memset(group_of, 0, n1 * sizeof *group_of);
    for (size_t i = 0; i < x->n_dominated; i++)
        group_of[x->dominated[i].node] = x->pairs[x->dominated[i].pair].group + 1;
    free(x->info);
    x->info = NULL;
    size_t n = out->n_groups ? out->n_groups : 1;
    uint64_t *bytes = calloc(n, sizeof *bytes), *older = calloc(n, sizeof *older);
    hs_status st = bytes && older ? dom_sum_subtrees(x->res, dom_map_count(x->m), group_of,
                                                     out->n_groups, bytes, older, &out->bytes, err)
                                  : hs_fail(err, HS_ERR_NOMEM, "out of memory");
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

hs_status query_leaks_run(heap *h, const query_dominators *d, query_progress_fn progress,
                          void *progress_ctx, query_leaks *out, hs_error *err) {
    memset(out, 0, sizeof *out);
    hs_status st = query_leaks_usable(h, err);
    if (st != HS_OK)
        return st;
    size_t n1 = (size_t)dom_map_count(&d->map) + 1;
    leaks_ctx x = {.m = &d->map, .res = &d->res, .era = calloc(n1, sizeof *x.era),
                   .info = calloc(n1, sizeof *x.info),
                   .counted = calloc(n1 / 64 + 1, sizeof *x.counted)};
    if (!x.era || !x.info || !x.counted)
        st = nomem(err);
    const wire_ptr_list *roots = heap_roots(h), *saved = heap_saved_objects(h);
    query_starts phases[2] = {{roots->items, roots->count}, {saved->items, saved->count}};
    query_traversal_stats ts = {0};
    query_traversal t = {.visit = note, .ctx = &x, .progress = progress,
                         .progress_ctx = progress_ctx};
    if (st == HS_OK)
        st = query_traverse_phases(h, phases, 2, &t, &ts, err);
    out->closures = ts.visited;
    t.visit = edges;
    if (st == HS_OK)
        st = query_traverse_phases(h, phases, 2, &t, &ts, err);
    if (st == HS_OK && x.failed)
        st = nomem(err);
    out->edges = x.edges;
    if (st == HS_OK)
        st = build_groups(h, &x, out, err);
    if (st == HS_OK)
        st = add_bytes(&x, out, err);
    for (size_t i = 0; i < x.n_pairs; i++) {
        free(x.pairs[i].g.retainer);
        free(x.pairs[i].g.retained);
    }
    free(x.pairs);
    free(x.slots);
    free(x.era);
    free(x.info);
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
    memset(l, 0, sizeof *l);
}
