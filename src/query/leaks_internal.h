/* The era-boundary report's pieces (private to src/query): leaks_walk.c
 * meets every newer -> older edge, leaks.c groups and names them,
 * leaks_edges.c lists one group's edges, leaks_name.c names an info table,
 * dom_sum_subtrees (leaks_nest.c) adds up the groups' bytes over the
 * dominator tree. */
#ifndef HEAPSCOPE_QUERY_LEAKS_INTERNAL_H
#define HEAPSCOPE_QUERY_LEAKS_INTERNAL_H

#include "dominators_internal.h"
#include "dominators_map.h"

/* An edge from closure c (number v in the dominator tree) to its field e,
 * closure number s, of an older era; false stops the walk (out of memory). */
typedef bool (*leaks_edge_fn)(void *ctx, const heap_closure *c, size_t e, uint32_t v,
                              uint32_t s);

typedef struct leaks_walk {
    const dom_map *m;
    const dom_result *res;
    leaks_edge_fn on_edge;
    void *ctx;
    /* filled by leaks_walk_run, by dominator-tree number (index 0 unused) */
    uint32_t *era;  /* era, saturated at UINT32_MAX - 1; 0 = none (no era, or unreached) */
    uint64_t *info; /* info pointer */
    uint64_t visited;
    bool failed;    /* on_edge said out of memory */
} leaks_walk;

/* Two traversals of d's heap (the roots, then the saved objects; WEAK
 * closures retain nothing): the first notes each reachable closure's era
 * and info pointer, the second calls on_edge for every edge to an older
 * era (edges from or to era 0 are none). Extra memory: 12 bytes a closure,
 * kept in w until leaks_walk_free. */
hs_status leaks_walk_run(heap *h, const query_dominators *d, leaks_walk *w,
                         query_progress_fn progress, void *progress_ctx, hs_error *err);
void leaks_walk_free(leaks_walk *w);

/* The best name known for an info table, for both sides of a group: a
 * constructor's description (package:Module:Name, the census constructor
 * key), else its IPE label and source location (either alone when the
 * other is missing; the info-table symbol when both are), else its closure
 * type and "<info 0xP>". *from_ipe: the name came from IPE data.
 * (To be replaced by the heap layer's shared display name when it has one.) */
hs_status leaks_info_name(heap *h, uint64_t info_ptr, char *buf, size_t cap, bool *from_ipe,
                          hs_error *err);

/* The pair of the two info tables in report l (leaks.c), or NULL. */
const query_leak_pair *leaks_pair_find(const query_leaks *l, uint64_t from_info,
                                       uint64_t to_info);

#endif
