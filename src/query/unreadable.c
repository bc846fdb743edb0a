/* Closures a query cannot read are skipped and counted, so that one bad
 * closure (a hostile or broken debuggee, a snapshot that lacks it) does
 * not fail a whole census or search. */
#include <stdio.h>

#include "heapscope/query.h"

void query_unreadable_add(query_unreadable *u, uint64_t addr, const char *problem) {
    if (u->count++ == 0) {
        u->first = addr;
        snprintf(u->problem, sizeof u->problem, "%s", problem);
    }
}

bool query_unreadable_status(hs_status st) {
    return st == HS_ERR_PROTOCOL || st == HEAP_UNAVAILABLE;
}
