/* The era-boundary report's pieces (private to src/query): leaks.c finds
 * and names the groups, dom_sum_subtrees (leaks_nest.c) adds up their
 * bytes over the dominator tree. */
#ifndef HEAPSCOPE_QUERY_LEAKS_INTERNAL_H
#define HEAPSCOPE_QUERY_LEAKS_INTERNAL_H

#include "dominators_internal.h"

#endif
