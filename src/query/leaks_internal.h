/* The era-boundary report's pieces (private to src/query): leaks.c finds
 * and names the groups, leaks_nest.c adds up their bytes over the
 * dominator tree. */
#ifndef HEAPSCOPE_QUERY_LEAKS_INTERNAL_H
#define HEAPSCOPE_QUERY_LEAKS_INTERNAL_H

#include "dominators_internal.h"

/* For each group, the bytes of the union of the dominator subtrees of its
 * closures (group_of[v] = group + 1 for a closure counted in a group, else
 * 0; n_nodes = the tree's nodes): a closure below another of the same
 * group adds nothing, its bytes are in that one's retained size already.
 * Each closure counted also adds one to its group's `older`. *all_bytes:
 * the same over every group's closures together. */
hs_status leaks_sum_subtrees(const dom_result *res, uint32_t n_nodes, const uint32_t *group_of,
                             query_leak_group *groups, size_t n_groups, uint64_t *all_bytes,
                             hs_error *err);

#endif
