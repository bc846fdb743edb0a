/* The dominator computation over a plain graph (private to src/query):
 * the heap adapter (dominators_heap.c) and the unit tests both feed it,
 * so the tests exercise the code the heap uses. */
#ifndef HEAPSCOPE_QUERY_DOMINATORS_INTERNAL_H
#define HEAPSCOPE_QUERY_DOMINATORS_INTERNAL_H

#include <stdint.h>

#include "heapscope/query.h"

/* Node 0 is the virtual root; the graph's nodes are 1..n. */
#define DOM_ROOT 0u
/* dom_result.idom of a node the starts do not reach. */
#define DOM_NONE UINT32_MAX

/* Successor lists handed out by a graph (reused from node to node). */
typedef struct dom_ids {
    uint32_t *items;
    uint64_t *keys; /* each item's key (see dom_graph.successors) */
    size_t count, cap;
} dom_ids;

bool dom_ids_push(dom_ids *l, uint32_t v, uint64_t key);

/* The start nodes of one phase: the virtual root's children. */
typedef struct dom_phase {
    const uint32_t *starts;
    const uint64_t *keys; /* their keys, or NULL (0 each) */
    size_t count;
} dom_phase;

typedef struct dom_graph {
    uint32_t n; /* nodes 1..n; below UINT32_MAX - 1 */
    /* Appends node v's successors to out (0 and numbers above n are
     * skipped), each with a key of the graph's choosing that comes back as
     * `key` when that node's successors are asked (a heap passes the
     * address, which saves finding it from the number). Failure ends the
     * computation. */
    hs_status (*successors)(void *ctx, uint32_t v, uint64_t key, dom_ids *out, hs_error *err);
    uint64_t (*size)(void *ctx, uint32_t v); /* node v's own bytes */
    void *ctx;
    /* Phases as query_traverse_phases runs them: what the first phase's
     * starts reach hangs from the root by those starts only; the next
     * phase's starts then add what is still unreached, and its edges into
     * an earlier phase's nodes are ignored (they changed nothing there). */
    const dom_phase *phases;
    size_t n_phases;
    query_progress_fn progress; /* optional: counts of nodes done; false cancels */
    void *progress_ctx;
    size_t base_bytes; /* memory the caller holds meanwhile, counted in peak_bytes */
    /* Nodes from this number up (0: none) are few and have many
     * predecessors (a heap's static closures: [], small Ints and Chars,
     * nullary constructors): their late edges are kept in arrays of their
     * own, 4 bytes an edge instead of 8, read in order. */
    uint32_t hubs_from;
} dom_graph;

typedef struct dom_result {
    uint32_t *idom;     /* n + 1: immediate dominator of each node (DOM_ROOT or a
                           node), DOM_NONE when unreached (and for the root) */
    uint64_t *retained; /* n + 1: bytes each node keeps alive, its own included;
                           retained[DOM_ROOT] is all that the starts reach */
    uint32_t reached;   /* nodes reached (the root not counted) */
    size_t peak_bytes;  /* the most memory held at once, base_bytes included */
} dom_result;

/* Dominator tree (semi-NCA over a depth-first numbering) and retained
 * sizes; no recursion. On failure nothing is left allocated. */
hs_status dom_compute(const dom_graph *g, dom_result *out, hs_error *err);
void dom_result_free(dom_result *r);

/* For each group, the bytes of the union of the dominator subtrees of its
 * closures, added to bytes[group] (group_of[v] = group + 1 for a closure
 * counted in a group, else 0; n_nodes = the tree's nodes): a closure below
 * another of the same group adds nothing, its bytes are in that one's
 * retained size already. counted[group] (if not NULL) gains one per
 * closure. *all_bytes: the same over every group's closures together
 * (leaks_nest.c). */
hs_status dom_sum_subtrees(const dom_result *res, uint32_t n_nodes, const uint32_t *group_of,
                           size_t n_groups, uint64_t *bytes, uint64_t *counted,
                           uint64_t *all_bytes, hs_error *err);

#endif
